#include "volent/attest/quote_verify.h"

#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <tss2/tss2_mu.h>
#include <tss2/tss2_rc.h>

#include <algorithm>
#include <memory>
#include <optional>

#include "core/hex.h"
#include "core/sha256.h"
#include "volent/attest/ak_public.h"
#include "volent/attest/openssl_ptr.h"

namespace volent::attest {
namespace {

using core::Error;
using core::ErrorKind;

const uint8_t* Bytes(std::string_view s) { return reinterpret_cast<const uint8_t*>(s.data()); }
std::string_view View(const uint8_t* p, size_t n) { return {reinterpret_cast<const char*>(p), n}; }

std::string Hex(std::string_view s) { return s.empty() ? "(empty)" : core::HexEncode(s); }

std::string IndexList(const std::vector<uint32_t>& indexes) {
  std::string out;
  for (uint32_t i : indexes) out += (out.empty() ? "" : ",") + std::to_string(i);
  return "[" + out + "]";
}

// The attest bytes as a TPM-generated quote, or the problem that stops it.
std::optional<Problem> DecodeAttest(std::string_view bytes, QuoteAttest& out) {
  TPMS_ATTEST a{};
  size_t offset = 0;
  const TSS2_RC rc = Tss2_MU_TPMS_ATTEST_Unmarshal(Bytes(bytes), bytes.size(), &offset, &a);
  if (rc != TSS2_RC_SUCCESS) {
    return Problem{QuoteProblem::kAttestMalformed, "attest (TPMS_ATTEST, " + std::to_string(bytes.size()) +
                                                       " bytes) does not decode: " + Tss2_RC_Decode(rc)};
  }
  if (offset != bytes.size()) {
    return Problem{QuoteProblem::kAttestMalformed,
                   "attest: " + std::to_string(bytes.size() - offset) + " bytes after the TPMS_ATTEST"};
  }
  if (a.magic != TPM2_GENERATED_VALUE) {
    return Problem{QuoteProblem::kNotTpmGenerated, "attest: magic is not TPM_GENERATED_VALUE (0xff544347)"};
  }
  if (a.type != TPM2_ST_ATTEST_QUOTE) {
    return Problem{QuoteProblem::kNotAQuote, "attest: type " + std::to_string(a.type) +
                                                 " is not TPM_ST_ATTEST_QUOTE (" +
                                                 std::to_string(TPM2_ST_ATTEST_QUOTE) + ")"};
  }
  out.nonce = std::string(View(a.extraData.buffer, a.extraData.size));
  out.qualified_signer = std::string(View(a.qualifiedSigner.name, a.qualifiedSigner.size));
  out.clock = a.clockInfo.clock;
  out.reset_count = a.clockInfo.resetCount;
  out.restart_count = a.clockInfo.restartCount;
  out.firmware_version = a.firmwareVersion;
  const TPML_PCR_SELECTION& sel = a.attested.quote.pcrSelect;
  out.other_banks = sel.count != 1 || sel.pcrSelections[0].hash != TPM2_ALG_SHA256;
  if (!out.other_banks) {
    const TPMS_PCR_SELECTION& s = sel.pcrSelections[0];
    const size_t n = std::min<size_t>(s.sizeofSelect, sizeof(s.pcrSelect));
    for (uint32_t i = 0; i < n * 8; ++i) {
      if (s.pcrSelect[i / 8] & (1u << (i % 8))) out.pcr_indexes.push_back(i);
    }
  }
  const TPM2B_DIGEST& d = a.attested.quote.pcrDigest;
  out.pcr_digest = std::string(View(d.buffer, d.size));
  return std::nullopt;
}

// The TPM's ECDSA signature (r, s) as the DER OpenSSL verifies, or empty.
std::string EcdsaDer(const TPMS_SIGNATURE_ECC& ecc) {
  EcdsaSigPtr sig(ECDSA_SIG_new());
  BIGNUM* r = BN_bin2bn(ecc.signatureR.buffer, ecc.signatureR.size, nullptr);
  BIGNUM* s = BN_bin2bn(ecc.signatureS.buffer, ecc.signatureS.size, nullptr);
  if (!sig || !r || !s || ECDSA_SIG_set0(sig.get(), r, s) != 1) {
    BN_free(r);
    BN_free(s);
    return "";
  }
  unsigned char* der = nullptr;
  const int n = i2d_ECDSA_SIG(sig.get(), &der);
  std::string out = n > 0 ? std::string(reinterpret_cast<char*>(der), static_cast<size_t>(n)) : "";
  OPENSSL_free(der);
  return out;
}

// Decodes the TPMT_SIGNATURE and, when `pem` is a key, verifies it over
// `message`. No problem means it verified (or there was no key to try).
std::optional<Problem> CheckSignature(std::string_view signature, std::string_view message, const std::string& pem) {
  TPMT_SIGNATURE sig{};
  size_t offset = 0;
  const TSS2_RC rc = Tss2_MU_TPMT_SIGNATURE_Unmarshal(Bytes(signature), signature.size(), &offset, &sig);
  if (rc != TSS2_RC_SUCCESS || offset != signature.size()) {
    return Problem{QuoteProblem::kSignatureMalformed,
                   "signature (TPMT_SIGNATURE, " + std::to_string(signature.size()) + " bytes) does not decode" +
                       (rc != TSS2_RC_SUCCESS ? std::string(": ") + Tss2_RC_Decode(rc) : " to its end")};
  }
  if (sig.sigAlg != TPM2_ALG_ECDSA || sig.signature.ecdsa.hash != TPM2_ALG_SHA256) {
    return Problem{QuoteProblem::kSignatureMalformed, "signature is not ECDSA with SHA-256"};
  }
  const std::string der = EcdsaDer(sig.signature.ecdsa);
  if (der.empty()) return Problem{QuoteProblem::kSignatureMalformed, "signature: r or s does not encode"};
  if (pem.empty()) return std::nullopt;
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  PkeyPtr key(bio ? PEM_read_bio_PUBKEY(bio.get(), nullptr, nullptr, nullptr) : nullptr);
  MdCtxPtr ctx(EVP_MD_CTX_new());
  if (!key || !ctx || EVP_DigestVerifyInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key.get()) != 1 ||
      EVP_DigestVerify(ctx.get(), Bytes(der), der.size(), Bytes(message), message.size()) != 1) {
    return Problem{QuoteProblem::kSignatureInvalid, "signature does not verify under the AK over the attest bytes"};
  }
  return std::nullopt;
}

void CheckAk(const Result<AkPublic>& ak, std::string_view expected_name, std::vector<Problem>& out) {
  if (!ak.ok()) {
    out.push_back({QuoteProblem::kAkMalformed, ak.message()});
    return;
  }
  if (!ak->attribute_fault.empty()) out.push_back({QuoteProblem::kAkNotRestrictedSigning, ak->attribute_fault});
  if (!ak->algorithm_fault.empty()) out.push_back({QuoteProblem::kAkAlgorithm, ak->algorithm_fault});
  if (!expected_name.empty() && ak->name != expected_name) {
    out.push_back({QuoteProblem::kAkNotExpected,
                   "AK name " + Hex(ak->name) + " is not the expected " + Hex(expected_name)});
  }
}

void CheckPcrs(const QuoteAttest& a, std::span<const PcrValue> pcrs, std::vector<Problem>& out) {
  std::vector<uint32_t> reported;
  bool ordered = !pcrs.empty();
  for (const PcrValue& p : pcrs) {
    if (p.index >= kPcrCount || (!reported.empty() && p.index <= reported.back())) ordered = false;
    reported.push_back(p.index);
  }
  if (!ordered) {
    out.push_back({QuoteProblem::kPcrListInvalid, "reported PCRs " + IndexList(reported) +
                                                       " are not one or more ascending indexes below " +
                                                       std::to_string(kPcrCount)});
  }
  if (a.other_banks || a.pcr_indexes != reported) {
    out.push_back({QuoteProblem::kPcrSelectionMismatch,
                   "the quote selects " + (a.other_banks ? std::string("banks other than sha256 alone")
                                                         : "sha256 " + IndexList(a.pcr_indexes)) +
                       ", the report gives " + IndexList(reported)});
  }
  const auto digest = PcrDigest(pcrs);
  if (a.pcr_digest != View(digest.data(), digest.size())) {
    out.push_back({QuoteProblem::kPcrDigestMismatch, "the quoted pcrDigest " + Hex(a.pcr_digest) +
                                                          " is not SHA-256 of the reported values (" +
                                                          Hex(View(digest.data(), digest.size())) + ")"});
  }
}

}  // namespace

std::string_view ProblemName(QuoteProblem problem) {
  switch (problem) {
    case QuoteProblem::kAkMalformed: return "ak_malformed";
    case QuoteProblem::kAkNotRestrictedSigning: return "ak_not_restricted_signing";
    case QuoteProblem::kAkAlgorithm: return "ak_algorithm";
    case QuoteProblem::kAkNotExpected: return "ak_not_expected";
    case QuoteProblem::kSignatureMalformed: return "signature_malformed";
    case QuoteProblem::kSignatureInvalid: return "signature_invalid";
    case QuoteProblem::kAttestMalformed: return "attest_malformed";
    case QuoteProblem::kNotTpmGenerated: return "not_tpm_generated";
    case QuoteProblem::kNotAQuote: return "not_a_quote";
    case QuoteProblem::kSignerMismatch: return "signer_mismatch";
    case QuoteProblem::kNonceMismatch: return "nonce_mismatch";
    case QuoteProblem::kPcrListInvalid: return "pcr_list_invalid";
    case QuoteProblem::kPcrSelectionMismatch: return "pcr_selection_mismatch";
    case QuoteProblem::kPcrDigestMismatch: return "pcr_digest_mismatch";
  }
  return "unknown";
}

std::vector<Problem> VerifyQuote(const Quote& quote, std::string_view nonce, std::string_view expected_ak_name) {
  std::vector<Problem> out;
  const Result<AkPublic> ak = ParseAkPublic(quote.ak_public);
  CheckAk(ak, expected_ak_name, out);
  const std::string pem = ak.ok() ? ak->pem : "";
  if (auto p = CheckSignature(quote.signature, quote.attest, pem)) out.push_back(std::move(*p));
  QuoteAttest a;
  if (auto p = DecodeAttest(quote.attest, a)) {
    out.push_back(std::move(*p));
    return out;
  }
  if (ak.ok() && !ak->name.empty() && a.qualified_signer != EndorsementQualifiedName(ak->name)) {
    out.push_back({QuoteProblem::kSignerMismatch, "attest: qualifiedSigner " + Hex(a.qualified_signer) +
                                                      " is not the AK as a primary of the endorsement hierarchy"});
  }
  if (a.nonce != nonce) {
    out.push_back({QuoteProblem::kNonceMismatch,
                   "attest: extraData " + Hex(a.nonce) + " is not the expected nonce " + Hex(nonce)});
  }
  CheckPcrs(a, quote.pcrs, out);
  return out;
}

Result<QuoteAttest> ParseQuoteAttest(std::string_view attest) {
  QuoteAttest out;
  if (auto p = DecodeAttest(attest, out)) return Error{p->detail, ErrorKind::kInvalidArgument};
  return out;
}

std::array<uint8_t, 32> PcrDigest(std::span<const PcrValue> pcrs) {
  core::Sha256Hasher h;
  for (const PcrValue& p : pcrs) h.Update(std::span<const uint8_t>(p.sha256));
  return h.Finish();
}

std::array<uint8_t, 32> ReplayPcr(std::span<const std::array<uint8_t, 32>> measurements) {
  std::array<uint8_t, 32> value{};
  for (const auto& m : measurements) {
    core::Sha256Hasher h;
    h.Update(std::span<const uint8_t>(value));
    h.Update(std::span<const uint8_t>(m));
    value = h.Finish();
  }
  return value;
}

std::string EndorsementQualifiedName(std::string_view name) {
  // A hierarchy's qualified name is its handle, big-endian.
  static constexpr char kEndorsement[] = {0x40, 0x00, 0x00, 0x0b};
  const auto digest = core::Sha256(std::string(kEndorsement, 4) + std::string(name));
  return std::string("\x00\x0b", 2) + std::string(digest.begin(), digest.end());
}

}  // namespace volent::attest
