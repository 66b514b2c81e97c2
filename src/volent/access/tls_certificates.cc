#include "volent/access/tls_certificates.h"

#include <openssl/bn.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <arpa/inet.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <set>

#include "core/errno_text.h"
#include "core/file_read.h"
#include "core/file_write.h"
#include "core/hex.h"
#include "volent/attest/openssl_ptr.h"

// Binds `lhs` to the value of the Result `expr`, or returns its error.
#define TLS_CONCAT_(a, b) a##b
#define TLS_CONCAT(a, b) TLS_CONCAT_(a, b)
#define TLS_ASSIGN_OR_RETURN(lhs, expr)                       \
  auto TLS_CONCAT(amp_result_, __LINE__) = (expr);            \
  if (!TLS_CONCAT(amp_result_, __LINE__).ok()) return TLS_CONCAT(amp_result_, __LINE__).error(); \
  lhs = std::move(*TLS_CONCAT(amp_result_, __LINE__))

namespace volent::access {

namespace {

using attest::BioPtr;
using attest::OpensslFree;
using attest::PkeyPtr;
using X509Ptr = std::unique_ptr<X509, OpensslFree<X509_free>>;
using BnPtr = std::unique_ptr<BIGNUM, OpensslFree<BN_free>>;

constexpr int kCaDays = 3650;
constexpr int kServerDays = 825;
constexpr size_t kMaxPemBytes = 64 * 1024;

core::Error OpensslError(const std::string& what) { return core::Error{what + " (OpenSSL failed)"}; }

std::string BioText(BIO* bio) {
  char* data = nullptr;
  long n = BIO_get_mem_data(bio, &data);
  return n > 0 && data != nullptr ? std::string(data, static_cast<size_t>(n)) : std::string();
}

core::Result<std::string> KeyPem(EVP_PKEY* key) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) != 1) {
    return OpensslError("cannot write a private key");
  }
  return BioText(bio.get());
}

core::Result<std::string> CertificatePem(X509* cert) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_X509(bio.get(), cert) != 1) return OpensslError("cannot write a certificate");
  return BioText(bio.get());
}

// The node's own TLS files decide who may connect and as whom (the CA
// signs client certificates, whose OU values are roles): read as trust
// files (core/file_read.h), so one others may write or own is refused.
core::Result<std::string> ReadPem(const std::string& path) {
  auto bytes = core::ReadFileCapped(path, kMaxPemBytes, nullptr, core::kTrustFileRules);
  if (!bytes) return core::Error{path + ": " + bytes.message()};
  return std::move(*bytes);
}

core::Result<PkeyPtr> LoadKey(const std::string& path) {
  TLS_ASSIGN_OR_RETURN(std::string pem, ReadPem(path));
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  PkeyPtr key(bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr) : nullptr);
  if (!key) return core::Error{path + ": not a PEM private key"};
  return key;
}

core::Result<X509Ptr> LoadCertificate(const std::string& path) {
  TLS_ASSIGN_OR_RETURN(std::string pem, ReadPem(path));
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  X509Ptr cert(bio ? PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr) : nullptr);
  if (!cert) return core::Error{path + ": not a PEM certificate"};
  return cert;
}

// A certificate for `key` with subject `entries` (field, value), signed by
// `issuer_key` as `issuer` (null: self-signed), with the given extensions.
core::Result<X509Ptr> MakeCertificate(EVP_PKEY* key, const std::vector<std::pair<std::string, std::string>>& entries,
                                         X509* issuer, EVP_PKEY* issuer_key, int days,
                                         const std::vector<std::pair<int, std::string>>& extensions) {
  X509Ptr cert(X509_new());
  if (!cert) return OpensslError("cannot make a certificate");
  X509* x = cert.get();
  // A random 127-bit serial: certificates of one CA never share one.
  BnPtr serial(BN_new());
  if (!serial || BN_rand(serial.get(), 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) != 1 ||
      BN_to_ASN1_INTEGER(serial.get(), X509_get_serialNumber(x)) == nullptr || X509_set_version(x, 2) != 1 ||
      X509_gmtime_adj(X509_getm_notBefore(x), -3600) == nullptr ||
      X509_gmtime_adj(X509_getm_notAfter(x), static_cast<long>(days) * 24 * 3600) == nullptr ||
      X509_set_pubkey(x, key) != 1) {
    return OpensslError("cannot fill a certificate");
  }
  X509_NAME* name = X509_get_subject_name(x);
  for (const auto& [field, value] : entries) {
    if (X509_NAME_add_entry_by_txt(name, field.c_str(), MBSTRING_UTF8,
                                   reinterpret_cast<const unsigned char*>(value.data()),
                                   static_cast<int>(value.size()), -1, 0) != 1) {
      return core::Error{"cannot put " + field + "=" + value + " in a certificate's subject"};
    }
  }
  if (X509_set_issuer_name(x, issuer ? X509_get_subject_name(issuer) : name) != 1) {
    return OpensslError("cannot name a certificate's issuer");
  }
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer ? issuer : x, x, nullptr, nullptr, 0);
  for (const auto& [nid, value] : extensions) {
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
    if (ext == nullptr) return core::Error{"cannot make the certificate extension '" + value + "'"};
    int added = X509_add_ext(x, ext, -1);
    X509_EXTENSION_free(ext);
    if (added != 1) return OpensslError("cannot add a certificate extension");
  }
  if (X509_sign(x, issuer_key ? issuer_key : key, EVP_sha256()) == 0) return OpensslError("cannot sign a certificate");
  return cert;
}

core::Result<PkeyPtr> NewKey() {
  PkeyPtr key(EVP_EC_gen("P-256"));
  if (!key) return OpensslError("cannot make an EC P-256 key");
  return key;
}

bool IsIpAddress(const std::string& host) {
  unsigned char buffer[16];
  return inet_pton(AF_INET, host.c_str(), buffer) == 1 || inet_pton(AF_INET6, host.c_str(), buffer) == 1;
}

std::string SubjectAltNames(const std::string& host) {
  std::set<std::string> names = {"DNS:localhost", "IP:127.0.0.1", "IP:::1"};
  if (!host.empty() && host != "0.0.0.0" && host != "::") {
    names.insert((IsIpAddress(host) ? "IP:" : "DNS:") + host);
  }
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ",") + n;
  return out;
}

std::string SubjectOf(X509* cert) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio || X509_NAME_print_ex(bio.get(), X509_get_subject_name(cert), 0, XN_FLAG_RFC2253) < 0) return "";
  return BioText(bio.get());
}

std::string Sha256Of(X509* cert) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (X509_digest(cert, EVP_sha256(), digest, &n) != 1) return "";
  return core::HexEncode(std::string_view(reinterpret_cast<const char*>(digest), n));
}

// The key first, so a certificate never names a key that was not written.
core::Status WritePair(const std::string& key_path, EVP_PKEY* key, const std::string& cert_path, X509* cert) {
  TLS_ASSIGN_OR_RETURN(std::string key_pem, KeyPem(key));
  TLS_ASSIGN_OR_RETURN(std::string cert_pem, CertificatePem(cert));
  CORE_RETURN_IF_ERROR(core::WriteFileAtomically(key_path, key_pem, 0600));
  return core::WriteFileAtomically(cert_path, cert_pem, 0644);
}

}  // namespace

NodeTlsPaths NodeTlsPathsOf(const std::string& data_dir) {
  NodeTlsPaths p;
  p.dir = (std::filesystem::path(data_dir) / "tls").string();
  p.ca_certificate = p.dir + "/ca.crt";
  p.ca_key = p.dir + "/ca.key";
  p.certificate = p.dir + "/server.crt";
  p.key = p.dir + "/server.key";
  return p;
}

core::Result<bool> EnsureNodeTls(const std::string& data_dir, const std::string& host) {
  const NodeTlsPaths paths = NodeTlsPathsOf(data_dir);
  if (mkdir(paths.dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return core::Error{paths.dir + ": " + core::ErrnoText()};
  }
  CORE_RETURN_IF_ERROR(core::CheckTrustFolder(paths.dir));
  bool made = false;
  std::error_code ec;
  if (!std::filesystem::exists(paths.ca_certificate, ec)) {
    TLS_ASSIGN_OR_RETURN(PkeyPtr key, NewKey());
    TLS_ASSIGN_OR_RETURN(X509Ptr cert,
                         MakeCertificate(key.get(), {{"CN", "volent node CA"}}, nullptr, nullptr, kCaDays,
                                         {{NID_basic_constraints, "critical,CA:TRUE,pathlen:0"},
                                          {NID_key_usage, "critical,keyCertSign,cRLSign"},
                                          {NID_subject_key_identifier, "hash"}}));
    CORE_RETURN_IF_ERROR(WritePair(paths.ca_key, key.get(), paths.ca_certificate, cert.get()));
    made = true;
  }
  if (!made && std::filesystem::exists(paths.certificate, ec)) {
    // Kept as they are, but only as trust files: the server uses them by
    // path (OpenSSL), so they are checked here, once, at the start.
    for (const std::string* path : {&paths.ca_certificate, &paths.ca_key, &paths.certificate, &paths.key}) {
      if (!std::filesystem::exists(*path, ec)) continue;  // a CA key kept elsewhere
      TLS_ASSIGN_OR_RETURN(std::string unused, ReadPem(*path));
      (void)unused;
    }
    return false;
  }
  TLS_ASSIGN_OR_RETURN(PkeyPtr ca_key, LoadKey(paths.ca_key));
  TLS_ASSIGN_OR_RETURN(X509Ptr ca_cert, LoadCertificate(paths.ca_certificate));
  TLS_ASSIGN_OR_RETURN(PkeyPtr key, NewKey());
  TLS_ASSIGN_OR_RETURN(X509Ptr cert,
                       MakeCertificate(key.get(), {{"CN", host.empty() ? "localhost" : host}}, ca_cert.get(),
                                       ca_key.get(), kServerDays,
                                       {{NID_basic_constraints, "critical,CA:FALSE"},
                                        {NID_key_usage, "critical,digitalSignature"},
                                        {NID_ext_key_usage, "serverAuth"},
                                        {NID_subject_alt_name, SubjectAltNames(host)},
                                        {NID_authority_key_identifier, "keyid"}}));
  CORE_RETURN_IF_ERROR(WritePair(paths.key, key.get(), paths.certificate, cert.get()));
  return true;
}

core::Result<IssuedCertificate> IssueClientCertificate(const std::string& data_dir, const std::string& name,
                                                          const std::vector<std::string>& units, int days) {
  const NodeTlsPaths paths = NodeTlsPathsOf(data_dir);
  TLS_ASSIGN_OR_RETURN(PkeyPtr ca_key, LoadKey(paths.ca_key));
  TLS_ASSIGN_OR_RETURN(X509Ptr ca_cert, LoadCertificate(paths.ca_certificate));
  std::vector<std::pair<std::string, std::string>> entries;
  for (const auto& unit : units) entries.emplace_back("OU", unit);
  entries.emplace_back("CN", name);
  TLS_ASSIGN_OR_RETURN(PkeyPtr key, NewKey());
  TLS_ASSIGN_OR_RETURN(X509Ptr cert, MakeCertificate(key.get(), entries, ca_cert.get(), ca_key.get(), days,
                                                     {{NID_basic_constraints, "critical,CA:FALSE"},
                                                      {NID_key_usage, "critical,digitalSignature"},
                                                      {NID_ext_key_usage, "clientAuth"},
                                                      {NID_authority_key_identifier, "keyid"}}));
  IssuedCertificate out;
  TLS_ASSIGN_OR_RETURN(out.key_pem, KeyPem(key.get()));
  TLS_ASSIGN_OR_RETURN(out.certificate_pem, CertificatePem(cert.get()));
  out.subject = SubjectOf(cert.get());
  out.sha256 = Sha256Of(cert.get());
  return out;
}

}  // namespace volent::access
