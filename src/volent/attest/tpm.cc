#include "volent/attest/tpm.h"

#include <tss2/tss2_esys.h>
#include <tss2/tss2_mu.h>
#include <tss2/tss2_rc.h>
#include <tss2/tss2_tctildr.h>

#include <algorithm>
#include <cstring>

#include "volent/attest/ak_public.h"
#include "volent/attest/quote_verify.h"

namespace volent::attest {
namespace {

using core::Error;
using core::ErrorKind;

// How often Quote quotes again when a PCR moves between quote and read.
constexpr int kQuoteAttempts = 3;

// Frees what ESYS allocated for an output.
struct EsysFree {
  void operator()(void* p) const { Esys_Free(p); }
};
template <class T>
using EsysPtr = std::unique_ptr<T, EsysFree>;

Error TpmError(std::string_view command, TSS2_RC rc, std::string_view hint = {}) {
  return Error{std::string(command) + " failed: " + Tss2_RC_Decode(rc) + std::string(hint), ErrorKind::kUnavailable};
}

template <class T, auto F>
std::string Marshal(const T& value) {
  uint8_t buf[sizeof(T) + 64];
  size_t offset = 0;
  if (F(&value, buf, sizeof(buf), &offset) != TSS2_RC_SUCCESS) return "";
  return std::string(reinterpret_cast<const char*>(buf), offset);
}

template <class T, auto F>
bool Unmarshal(std::string_view bytes, T& out) {
  size_t offset = 0;
  return F(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), &offset, &out) == TSS2_RC_SUCCESS &&
         offset == bytes.size();
}

// The AK template. Changing any field changes the AK of every node: a
// verifier that pinned an AK name would refuse every quote after it.
TPM2B_PUBLIC AkTemplate() {
  TPM2B_PUBLIC t{};
  TPMT_PUBLIC& p = t.publicArea;
  p.type = TPM2_ALG_ECC;
  p.nameAlg = TPM2_ALG_SHA256;
  // userWithAuth with an empty auth value: the AK guards nothing secret, it
  // only signs what the TPM itself produced (restricted).
  p.objectAttributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_SENSITIVEDATAORIGIN |
                       TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_SIGN_ENCRYPT;
  TPMS_ECC_PARMS& ecc = p.parameters.eccDetail;
  ecc.symmetric.algorithm = TPM2_ALG_NULL;
  ecc.scheme.scheme = TPM2_ALG_ECDSA;
  ecc.scheme.details.ecdsa.hashAlg = TPM2_ALG_SHA256;
  ecc.curveID = TPM2_ECC_NIST_P256;
  ecc.kdf.scheme = TPM2_ALG_NULL;
  return t;  // unique: empty
}

// The TCG EK Credential Profile's template L-2 (ECC NIST P-256), so that the
// EK is the one a manufacturer's EK certificate names.
TPM2B_PUBLIC EkTemplate() {
  // PolicySecret(TPM_RH_ENDORSEMENT): using the EK needs the endorsement
  // hierarchy's authorization.
  static constexpr uint8_t kPolicy[32] = {0x83, 0x71, 0x97, 0x67, 0x44, 0x84, 0xb3, 0xf8, 0x1a, 0x90, 0xcc,
                                          0x8d, 0x46, 0xa5, 0xd7, 0x24, 0xfd, 0x52, 0xd7, 0x6e, 0x06, 0x52,
                                          0x0b, 0x64, 0xf2, 0xa1, 0xda, 0x1b, 0x33, 0x14, 0x69, 0xaa};
  TPM2B_PUBLIC t{};
  TPMT_PUBLIC& p = t.publicArea;
  p.type = TPM2_ALG_ECC;
  p.nameAlg = TPM2_ALG_SHA256;
  p.objectAttributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_SENSITIVEDATAORIGIN |
                       TPMA_OBJECT_ADMINWITHPOLICY | TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT;
  p.authPolicy.size = sizeof(kPolicy);
  std::memcpy(p.authPolicy.buffer, kPolicy, sizeof(kPolicy));
  TPMS_ECC_PARMS& ecc = p.parameters.eccDetail;
  ecc.symmetric = {.algorithm = TPM2_ALG_AES, .keyBits = {.aes = 128}, .mode = {.aes = TPM2_ALG_CFB}};
  ecc.scheme.scheme = TPM2_ALG_NULL;
  ecc.curveID = TPM2_ECC_NIST_P256;
  ecc.kdf.scheme = TPM2_ALG_NULL;
  p.unique.ecc.x.size = 32;  // 32 zero bytes each
  p.unique.ecc.y.size = 32;
  return t;
}

// A primary key of the endorsement hierarchy from `tmpl`: its handle, and
// its public area marshaled into `public_area`.
Result<ESYS_TR> CreateEndorsementPrimary(ESYS_CONTEXT* esys, const TPM2B_PUBLIC& tmpl, std::string_view what,
                                         std::string& public_area) {
  const TPM2B_SENSITIVE_CREATE sensitive{};
  const TPM2B_DATA outside{};
  const TPML_PCR_SELECTION creation_pcrs{};
  ESYS_TR handle = ESYS_TR_NONE;
  TPM2B_PUBLIC* out = nullptr;
  const TSS2_RC rc = Esys_CreatePrimary(esys, ESYS_TR_RH_ENDORSEMENT, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE,
                                        &sensitive, &tmpl, &outside, &creation_pcrs, &handle, &out, nullptr, nullptr,
                                        nullptr);
  EsysPtr<TPM2B_PUBLIC> owned(out);
  if (rc != TSS2_RC_SUCCESS) {
    return TpmError("TPM2_CreatePrimary (" + std::string(what) + ", endorsement hierarchy)", rc,
                    (rc & 0xff) == (TPM2_RC_BAD_AUTH & 0xff) ? " (the endorsement hierarchy has a password)" : "");
  }
  public_area = Marshal<TPM2B_PUBLIC, Tss2_MU_TPM2B_PUBLIC_Marshal>(*out);
  return handle;
}

Result<std::vector<uint32_t>> PcrIndexes(std::span<const uint32_t> indexes) {
  if (indexes.empty()) return Error{"no PCR selected", ErrorKind::kInvalidArgument};
  std::vector<uint32_t> out(indexes.begin(), indexes.end());
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  if (out.back() >= kPcrCount) {
    return Error{"PCR " + std::to_string(out.back()) + " does not exist (PCRs are 0.." +
                     std::to_string(kPcrCount - 1) + ")",
                 ErrorKind::kInvalidArgument};
  }
  return out;
}

TPML_PCR_SELECTION Sha256Selection(const std::vector<uint32_t>& indexes) {
  TPML_PCR_SELECTION sel{};
  sel.count = 1;
  sel.pcrSelections[0].hash = TPM2_ALG_SHA256;
  sel.pcrSelections[0].sizeofSelect = kPcrCount / 8;
  for (uint32_t i : indexes) sel.pcrSelections[0].pcrSelect[i / 8] |= 1u << (i % 8);
  return sel;
}

std::vector<uint32_t> Sha256Indexes(const TPML_PCR_SELECTION& sel) {
  std::vector<uint32_t> out;
  for (uint32_t b = 0; b < sel.count && b < TPM2_NUM_PCR_BANKS; ++b) {
    const TPMS_PCR_SELECTION& s = sel.pcrSelections[b];
    if (s.hash != TPM2_ALG_SHA256) continue;
    for (uint32_t i = 0; i < std::min<uint32_t>(s.sizeofSelect, TPM2_PCR_SELECT_MAX) * 8; ++i) {
      if (s.pcrSelect[i / 8] & (1u << (i % 8))) out.push_back(i);
    }
  }
  return out;
}

}  // namespace

Tpm::Tpm(ESYS_CONTEXT* esys, TSS2_TCTI_CONTEXT* tcti)
    : esys_(esys), tcti_(tcti), ak_(ESYS_TR_NONE), ek_(ESYS_TR_NONE) {}

Tpm::~Tpm() {
  // Transient objects outlive the connection in the TPM unless flushed
  // (through a resource manager they are flushed anyway).
  if (ak_ != ESYS_TR_NONE) (void)Esys_FlushContext(esys_, ak_);
  if (ek_ != ESYS_TR_NONE) (void)Esys_FlushContext(esys_, ek_);
  Esys_Finalize(&esys_);
  Tss2_TctiLdr_Finalize(&tcti_);
}

Result<std::unique_ptr<Tpm>> Tpm::Open(std::string_view tcti) {
  const std::string conf(tcti);
  const std::string tried =
      conf.empty() ? "tctildr's default TCTI search (tabrmd, device:/dev/tpmrm0, device:/dev/tpm0, swtpm, mssim)"
                   : "TCTI '" + conf + "'";
  TSS2_TCTI_CONTEXT* t = nullptr;
  TSS2_RC rc = Tss2_TctiLdr_Initialize(conf.empty() ? nullptr : conf.c_str(), &t);
  if (rc != TSS2_RC_SUCCESS) {
    return Error{"cannot reach a TPM through " + tried + ": " + Tss2_RC_Decode(rc), ErrorKind::kUnavailable};
  }
  ESYS_CONTEXT* e = nullptr;
  rc = Esys_Initialize(&e, t, nullptr);
  if (rc != TSS2_RC_SUCCESS) {
    Tss2_TctiLdr_Finalize(&t);
    return Error{"cannot start ESYS over " + tried + ": " + Tss2_RC_Decode(rc), ErrorKind::kUnavailable};
  }
  std::unique_ptr<Tpm> tpm(new Tpm(e, t));
  // One harmless command, so that a TCTI that connects to nothing useful
  // fails here and not at the first quote.
  TPMI_YES_NO more = TPM2_NO;
  TPMS_CAPABILITY_DATA* caps = nullptr;
  rc = Esys_GetCapability(e, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, TPM2_CAP_TPM_PROPERTIES, TPM2_PT_MANUFACTURER,
                          1, &more, &caps);
  Esys_Free(caps);
  if (rc == TPM2_RC_INITIALIZE) rc = Esys_Startup(e, TPM2_SU_CLEAR);
  if (rc != TSS2_RC_SUCCESS) {
    return Error{"the TPM behind " + tried + " does not answer: " + Tss2_RC_Decode(rc), ErrorKind::kUnavailable};
  }
  return tpm;
}

Result<std::vector<PcrValue>> Tpm::ReadPcrs(std::span<const uint32_t> indexes) {
  auto wanted = PcrIndexes(indexes);
  if (!wanted) return wanted.error();
  std::vector<uint32_t> remaining = *wanted;
  std::vector<PcrValue> out;
  // A TPM returns at most 8 digests a call (TPML_DIGEST), the lowest
  // indexes first, and says which in its selection.
  while (!remaining.empty()) {
    const TPML_PCR_SELECTION sel = Sha256Selection(remaining);
    UINT32 counter = 0;
    TPML_PCR_SELECTION* sel_out = nullptr;
    TPML_DIGEST* values = nullptr;
    const TSS2_RC rc =
        Esys_PCR_Read(esys_, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, &sel, &counter, &sel_out, &values);
    EsysPtr<TPML_PCR_SELECTION> sel_owned(sel_out);
    EsysPtr<TPML_DIGEST> values_owned(values);
    if (rc != TSS2_RC_SUCCESS) return TpmError("TPM2_PCR_Read", rc);
    const std::vector<uint32_t> got = Sha256Indexes(*sel_out);
    if (got.empty() || got.size() != values->count) {
      return Error{"TPM2_PCR_Read returned no sha256 value for PCR " + std::to_string(remaining.front()) +
                       " (is the TPM's sha256 bank allocated?)",
                   ErrorKind::kUnavailable};
    }
    for (size_t i = 0; i < got.size(); ++i) {
      const auto it = std::find(remaining.begin(), remaining.end(), got[i]);
      if (it == remaining.end() || values->digests[i].size != 32) {
        return Error{"TPM2_PCR_Read returned a value for PCR " + std::to_string(got[i]) + " that was not asked for",
                     ErrorKind::kUnavailable};
      }
      remaining.erase(it);
      PcrValue v{got[i], {}};
      std::memcpy(v.sha256.data(), values->digests[i].buffer, 32);
      out.push_back(v);
    }
  }
  std::sort(out.begin(), out.end(), [](const PcrValue& a, const PcrValue& b) { return a.index < b.index; });
  return out;
}

Status Tpm::Extend(uint32_t pcr, const std::array<uint8_t, 32>& digest) {
  if (pcr >= kPcrCount) {
    return Error{"PCR " + std::to_string(pcr) + " does not exist (PCRs are 0.." + std::to_string(kPcrCount - 1) + ")",
                 ErrorKind::kInvalidArgument};
  }
  TPML_DIGEST_VALUES values{};
  values.count = 1;
  values.digests[0].hashAlg = TPM2_ALG_SHA256;
  std::memcpy(values.digests[0].digest.sha256, digest.data(), digest.size());
  const TSS2_RC rc =
      Esys_PCR_Extend(esys_, ESYS_TR_PCR0 + pcr, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, &values);
  if (rc != TSS2_RC_SUCCESS) return TpmError("TPM2_PCR_Extend (PCR " + std::to_string(pcr) + ")", rc);
  return Status::Ok();
}

Status Tpm::EnsureAk() {
  if (ak_ != ESYS_TR_NONE) return Status::Ok();
  auto handle = CreateEndorsementPrimary(esys_, AkTemplate(), "attestation key", ak_public_);
  if (!handle) return handle.error();
  ak_ = *handle;
  return Status::Ok();
}

Status Tpm::EnsureEk() {
  if (ek_ != ESYS_TR_NONE) return Status::Ok();
  auto handle = CreateEndorsementPrimary(esys_, EkTemplate(), "endorsement key", ek_public_);
  if (!handle) return handle.error();
  ek_ = *handle;
  return Status::Ok();
}

Result<AttestationKey> Tpm::Ak() {
  CORE_RETURN_IF_ERROR(EnsureAk());
  auto parsed = ParseAkPublic(ak_public_);
  if (!parsed) return parsed.error();
  TPM2B_NAME* name = nullptr;
  const TSS2_RC rc = Esys_TR_GetName(esys_, ak_, &name);
  EsysPtr<TPM2B_NAME> owned(name);
  if (rc != TSS2_RC_SUCCESS) return TpmError("reading the AK's name", rc);
  return AttestationKey{ak_public_, parsed->pem, std::string(reinterpret_cast<const char*>(name->name), name->size)};
}

Result<attest::Quote> Tpm::Quote(std::span<const uint32_t> indexes, std::string_view nonce) {
  if (nonce.empty() || nonce.size() > kMaxQuoteNonceBytes) {
    return Error{"a quote's nonce is 1 to " + std::to_string(kMaxQuoteNonceBytes) + " bytes, this one is " +
                     std::to_string(nonce.size()) + " (send the SHA-256 of a longer one)",
                 ErrorKind::kInvalidArgument};
  }
  auto wanted = PcrIndexes(indexes);
  if (!wanted) return wanted.error();
  CORE_RETURN_IF_ERROR(EnsureAk());
  TPM2B_DATA qualifying{};
  qualifying.size = static_cast<UINT16>(nonce.size());
  std::memcpy(qualifying.buffer, nonce.data(), nonce.size());
  const TPMT_SIG_SCHEME scheme{.scheme = TPM2_ALG_NULL, .details = {}};  // the AK's own: ECDSA-SHA256
  const TPML_PCR_SELECTION sel = Sha256Selection(*wanted);
  for (int attempt = 0; attempt < kQuoteAttempts; ++attempt) {
    TPM2B_ATTEST* attest = nullptr;
    TPMT_SIGNATURE* signature = nullptr;
    const TSS2_RC rc = Esys_Quote(esys_, ak_, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, &qualifying, &scheme,
                                  &sel, &attest, &signature);
    EsysPtr<TPM2B_ATTEST> attest_owned(attest);
    EsysPtr<TPMT_SIGNATURE> signature_owned(signature);
    if (rc != TSS2_RC_SUCCESS) return TpmError("TPM2_Quote", rc);
    attest::Quote q;
    q.attest.assign(reinterpret_cast<const char*>(attest->attestationData), attest->size);
    q.signature = Marshal<TPMT_SIGNATURE, Tss2_MU_TPMT_SIGNATURE_Marshal>(*signature);
    q.ak_public = ak_public_;
    auto pcrs = ReadPcrs(*wanted);
    if (!pcrs) return pcrs.error();
    q.pcrs = std::move(*pcrs);
    auto parsed = ParseQuoteAttest(q.attest);
    if (!parsed) return Error{"the TPM's own quote does not decode: " + parsed.message(), ErrorKind::kUnavailable};
    const auto digest = PcrDigest(q.pcrs);
    if (parsed->pcr_digest == std::string_view(reinterpret_cast<const char*>(digest.data()), digest.size())) return q;
  }
  return Error{"the quoted PCRs changed between the quote and reading them, " + std::to_string(kQuoteAttempts) +
                   " times in a row (something keeps extending them)",
               ErrorKind::kUnavailable};
}

Result<std::string> Tpm::EndorsementKeyPublic() {
  CORE_RETURN_IF_ERROR(EnsureEk());
  return ek_public_;
}

Result<TpmCredential> Tpm::MakeCredential(std::string_view ek_public, std::string_view ak_name, std::string_view secret) {
  TPM2B_PUBLIC ek{};
  if (!Unmarshal<TPM2B_PUBLIC, Tss2_MU_TPM2B_PUBLIC_Unmarshal>(ek_public, ek)) {
    return Error{"the EK public area (TPM2B_PUBLIC) does not decode", ErrorKind::kInvalidArgument};
  }
  TPM2B_NAME name{};
  TPM2B_DIGEST credential{};
  if (ak_name.empty() || ak_name.size() > sizeof(name.name)) {
    return Error{"the AK name is empty or too long", ErrorKind::kInvalidArgument};
  }
  if (secret.empty() || secret.size() > kMaxCredentialBytes) {
    return Error{"a credential is 1 to " + std::to_string(kMaxCredentialBytes) + " bytes",
                 ErrorKind::kInvalidArgument};
  }
  name.size = static_cast<UINT16>(ak_name.size());
  std::memcpy(name.name, ak_name.data(), ak_name.size());
  credential.size = static_cast<UINT16>(secret.size());
  std::memcpy(credential.buffer, secret.data(), secret.size());
  ESYS_TR handle = ESYS_TR_NONE;
  TSS2_RC rc =
      Esys_LoadExternal(esys_, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, nullptr, &ek, ESYS_TR_RH_NULL, &handle);
  if (rc != TSS2_RC_SUCCESS) return TpmError("TPM2_LoadExternal (the EK public area)", rc);
  TPM2B_ID_OBJECT* blob = nullptr;
  TPM2B_ENCRYPTED_SECRET* encrypted = nullptr;
  rc = Esys_MakeCredential(esys_, handle, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, &credential, &name, &blob,
                           &encrypted);
  EsysPtr<TPM2B_ID_OBJECT> blob_owned(blob);
  EsysPtr<TPM2B_ENCRYPTED_SECRET> encrypted_owned(encrypted);
  (void)Esys_FlushContext(esys_, handle);
  if (rc != TSS2_RC_SUCCESS) return TpmError("TPM2_MakeCredential", rc);
  return TpmCredential{Marshal<TPM2B_ID_OBJECT, Tss2_MU_TPM2B_ID_OBJECT_Marshal>(*blob),
                    Marshal<TPM2B_ENCRYPTED_SECRET, Tss2_MU_TPM2B_ENCRYPTED_SECRET_Marshal>(*encrypted)};
}

Result<std::string> Tpm::ActivateCredential(const TpmCredential& credential) {
  TPM2B_ID_OBJECT blob{};
  TPM2B_ENCRYPTED_SECRET secret{};
  if (!Unmarshal<TPM2B_ID_OBJECT, Tss2_MU_TPM2B_ID_OBJECT_Unmarshal>(credential.blob, blob) ||
      !Unmarshal<TPM2B_ENCRYPTED_SECRET, Tss2_MU_TPM2B_ENCRYPTED_SECRET_Unmarshal>(credential.secret, secret)) {
    return Error{"the credential (TPM2B_ID_OBJECT, TPM2B_ENCRYPTED_SECRET) does not decode",
                 ErrorKind::kInvalidArgument};
  }
  CORE_RETURN_IF_ERROR(EnsureAk());
  CORE_RETURN_IF_ERROR(EnsureEk());
  // The EK answers only to its policy: PolicySecret(TPM_RH_ENDORSEMENT).
  const TPMT_SYM_DEF no_symmetric{.algorithm = TPM2_ALG_NULL, .keyBits = {}, .mode = {}};
  ESYS_TR session = ESYS_TR_NONE;
  TSS2_RC rc = Esys_StartAuthSession(esys_, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE,
                                     nullptr, TPM2_SE_POLICY, &no_symmetric, TPM2_ALG_SHA256, &session);
  if (rc != TSS2_RC_SUCCESS) return TpmError("TPM2_StartAuthSession (policy)", rc);
  rc = Esys_PolicySecret(esys_, ESYS_TR_RH_ENDORSEMENT, session, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE,
                         nullptr, nullptr, nullptr, 0, nullptr, nullptr);
  std::string_view command = "TPM2_PolicySecret (endorsement hierarchy)", hint;
  TPM2B_DIGEST* out = nullptr;
  if (rc == TSS2_RC_SUCCESS) {
    command = "TPM2_ActivateCredential";
    hint = " (was the credential made for this TPM's EK and AK?)";
    rc = Esys_ActivateCredential(esys_, ak_, ek_, ESYS_TR_PASSWORD, session, ESYS_TR_NONE, &blob, &secret, &out);
  }
  EsysPtr<TPM2B_DIGEST> owned(out);
  (void)Esys_FlushContext(esys_, session);  // ESYS keeps sessions open (continueSession)
  if (rc != TSS2_RC_SUCCESS) {
    return TpmError(command, rc, hint);
  }
  return std::string(reinterpret_cast<const char*>(out->buffer), out->size);
}

}  // namespace volent::attest
