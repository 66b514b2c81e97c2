#include "volent/attest/trust.h"

#include <dirent.h>
#include <openssl/x509.h>

#include <algorithm>
#include <cstdlib>

#include "core/file_read.h"
#include "core/sha256.h"

namespace volent::attest {
namespace {

// A trust bundle is a few hundred KB; a folder a few hundred certificates.
constexpr size_t kMaxRootsFile = size_t{16} << 20;
constexpr size_t kMaxRootsEntries = 8192;
constexpr size_t kMaxRootsEntry = size_t{1} << 20;

std::string FileSha256(const std::string& path, size_t cap) {
  auto bytes = core::ReadFileCapped(path, cap, nullptr, {.from = core::PathFrom::kUntrusted});
  return bytes ? core::Sha256Hex(*bytes) : std::string();
}

std::string DirSha256(const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return "";
  std::vector<std::string> names;
  while (const dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    if (names.size() == kMaxRootsEntries) break;
    names.push_back(name);
  }
  closedir(d);
  std::sort(names.begin(), names.end());
  std::string lines;
  for (const std::string& name : names) {
    // Symbolic links (the hashed names OpenSSL looks up) are followed: what
    // counts is the certificate a name leads to.
    const std::string digest = FileSha256(dir + "/" + name, kMaxRootsEntry);
    lines += name + " " + (digest.empty() ? "-" : digest) + "\n";
  }
  return core::Sha256Hex(lines);
}

nlohmann::json OrNull(const std::string& s) { return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s); }

}  // namespace

TlsRoots ReadTlsRoots(const std::string& file, const std::string& dir) {
  TlsRoots roots;
  roots.file = file;
  roots.dir = dir;
  roots.file_sha256 = FileSha256(file, kMaxRootsFile);
  roots.dir_sha256 = DirSha256(dir);
  return roots;
}

TlsRoots DefaultTlsRoots() {
  // As X509_STORE_set_default_paths finds them (egress/tls_client.cc).
  const char* file_env = std::getenv(X509_get_default_cert_file_env());
  const char* dir_env = std::getenv(X509_get_default_cert_dir_env());
  const std::string file = file_env && *file_env ? file_env : X509_get_default_cert_file();
  // SSL_CERT_DIR may list several folders (':'); the first is measured and
  // the whole value named.
  const std::string dirs = dir_env && *dir_env ? dir_env : X509_get_default_cert_dir();
  TlsRoots roots = ReadTlsRoots(file, dirs.substr(0, dirs.find(':')));
  roots.dir = dirs;
  return roots;
}

std::string DnsServerName(const std::string& dns_server) {
  if (dns_server.empty()) return "system";
  if (dns_server.front() == '[') return dns_server.back() == ']' ? dns_server + ":53" : dns_server;
  return dns_server.find(':') == std::string::npos ? dns_server + ":53" : dns_server;
}

nlohmann::json TrustDocument(const TrustSettings& s) {
  nlohmann::json tool_keys = nlohmann::json::array();
  for (const auto& [name, key] : s.tool_keys) tool_keys.push_back({{"name", name}, {"public_key", key}});
  nlohmann::json model_keys = nlohmann::json::array();
  for (const std::string& capability : s.model_key_capabilities) model_keys.push_back(capability);
  return {
      {"format", kTrustFormat},
      {"egress",
       {{"dns_server", DnsServerName(s.dns_server)},
        {"max_redirects", s.max_redirects},
        // The gate connects to the addresses it resolved itself: the node has
        // no proxy setting and reads no *_proxy variable.
        {"proxy", "none"},
        {"tls_roots",
         {{"file", s.tls_roots.file},
          {"file_sha256", OrNull(s.tls_roots.file_sha256)},
          {"dir", s.tls_roots.dir},
          {"dir_sha256", OrNull(s.tls_roots.dir_sha256)}}}}},
      {"model_keys", std::move(model_keys)},
      {"tool_keys", std::move(tool_keys)},
      {"control",
       {{"auth", s.control_auth}, {"client_ca", OrNull(s.client_ca)}, {"client_ca_sha256", OrNull(s.client_ca_sha256)}}},
  };
}

}  // namespace volent::attest
