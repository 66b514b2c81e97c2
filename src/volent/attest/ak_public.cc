#include "volent/attest/ak_public.h"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>
#include <tss2/tss2_mu.h>
#include <tss2/tss2_rc.h>

#include <memory>

#include "core/sha256.h"
#include "volent/attest/openssl_ptr.h"

namespace volent::attest {
namespace {

using core::Error;
using core::ErrorKind;

std::string AttributeFault(TPMA_OBJECT attrs) {
  // What a key must say about itself to be an AK: generated in the TPM,
  // never leaving it, and signing only what the TPM produced.
  static constexpr std::pair<TPMA_OBJECT, const char*> kNames[] = {
      {TPMA_OBJECT_FIXEDTPM, "fixedTPM"},         {TPMA_OBJECT_FIXEDPARENT, "fixedParent"},
      {TPMA_OBJECT_SENSITIVEDATAORIGIN, "sensitiveDataOrigin"},
      {TPMA_OBJECT_RESTRICTED, "restricted"},     {TPMA_OBJECT_SIGN_ENCRYPT, "sign"}};
  std::string missing;
  for (const auto& [bit, name] : kNames) {
    if (!(attrs & bit)) missing += (missing.empty() ? "" : ", ") + std::string(name);
  }
  if (!missing.empty()) return "the key is not a TPM-resident restricted signing key (missing: " + missing + ")";
  if (attrs & TPMA_OBJECT_DECRYPT) return "the key is a decryption key too (decrypt is set)";
  return "";
}

std::string AlgorithmFault(const TPMT_PUBLIC& pub) {
  if (pub.type != TPM2_ALG_ECC) return "the key is not an ECC key (type " + std::to_string(pub.type) + ")";
  if (pub.nameAlg != TPM2_ALG_SHA256) return "the key's nameAlg is not SHA-256";
  const TPMS_ECC_PARMS& ecc = pub.parameters.eccDetail;
  if (ecc.curveID != TPM2_ECC_NIST_P256) return "the key is not on NIST P-256";
  if (ecc.scheme.scheme != TPM2_ALG_ECDSA || ecc.scheme.details.ecdsa.hashAlg != TPM2_ALG_SHA256) {
    return "the key's scheme is not ECDSA with SHA-256";
  }
  if (pub.unique.ecc.x.size > 32 || pub.unique.ecc.y.size > 32) return "the key's point is longer than P-256's";
  return "";
}

// 32 bytes, big-endian, left-padded (a TPM may drop leading zero bytes).
std::string Coordinate(const TPM2B_ECC_PARAMETER& p) {
  std::string out(32 - p.size, '\0');
  out.append(reinterpret_cast<const char*>(p.buffer), p.size);
  return out;
}

// The P-256 point as OpenSSL's key, or null when it is not on the curve.
PkeyPtr P256Key(const TPMS_ECC_POINT& point) {
  const std::string octets = "\x04" + Coordinate(point.x) + Coordinate(point.y);
  ParamBldPtr bld(OSSL_PARAM_BLD_new());
  if (!bld || !OSSL_PARAM_BLD_push_utf8_string(bld.get(), OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) ||
      !OSSL_PARAM_BLD_push_octet_string(bld.get(), OSSL_PKEY_PARAM_PUB_KEY, octets.data(), octets.size())) {
    return nullptr;
  }
  ParamPtr params(OSSL_PARAM_BLD_to_param(bld.get()));
  PkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_name(nullptr, "EC", nullptr));
  EVP_PKEY* raw = nullptr;
  if (!params || !ctx || EVP_PKEY_fromdata_init(ctx.get()) != 1 ||
      EVP_PKEY_fromdata(ctx.get(), &raw, EVP_PKEY_PUBLIC_KEY, params.get()) != 1) {
    return nullptr;
  }
  PkeyPtr key(raw);
  PkeyCtxPtr check(EVP_PKEY_CTX_new_from_pkey(nullptr, key.get(), nullptr));
  if (!check || EVP_PKEY_public_check(check.get()) != 1) return nullptr;
  return key;
}

std::string Pem(EVP_PKEY* key) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_PUBKEY(bio.get(), key) != 1) return "";
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio.get(), &data);
  return n > 0 ? std::string(data, static_cast<size_t>(n)) : "";
}

}  // namespace

Result<AkPublic> ParseAkPublic(std::string_view bytes) {
  TPM2B_PUBLIC pub{};
  size_t offset = 0;
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  const TSS2_RC rc = Tss2_MU_TPM2B_PUBLIC_Unmarshal(data, bytes.size(), &offset, &pub);
  if (rc != TSS2_RC_SUCCESS) {
    return Error{"AK public (TPM2B_PUBLIC, " + std::to_string(bytes.size()) + " bytes) does not decode: " +
                     Tss2_RC_Decode(rc),
                 ErrorKind::kInvalidArgument};
  }
  if (pub.size == 0 || offset != bytes.size()) {
    return Error{"AK public (TPM2B_PUBLIC): " + std::to_string(bytes.size() - offset) +
                     " bytes after the structure, or an empty one",
                 ErrorKind::kInvalidArgument};
  }
  AkPublic out;
  // The name hashes the TPMT_PUBLIC exactly as marshaled: the bytes after the
  // TPM2B's 2-byte size, which the decode above consumed entirely.
  if (pub.publicArea.nameAlg == TPM2_ALG_SHA256) {
    const auto digest = core::Sha256(bytes.substr(2));
    out.name = std::string("\x00\x0b", 2) + std::string(digest.begin(), digest.end());
  }
  out.attribute_fault = AttributeFault(pub.publicArea.objectAttributes);
  out.algorithm_fault = AlgorithmFault(pub.publicArea);
  if (out.algorithm_fault.empty()) {
    PkeyPtr key = P256Key(pub.publicArea.unique.ecc);
    out.pem = key ? Pem(key.get()) : "";
    if (out.pem.empty()) out.algorithm_fault = "the key's point is not on NIST P-256";
  }
  return out;
}

}  // namespace volent::attest
