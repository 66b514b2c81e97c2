#include "volent/access/credentials.h"

#include <sodium.h>
#include <sys/stat.h>

#include <cerrno>
#include <algorithm>
#include <chrono>
#include <cstring>
#include <mutex>

#include "core/errno_text.h"
#include "core/file_read.h"
#include "core/file_write.h"
#include "core/hex.h"
#include "core/json.h"
#include "core/sha256.h"

namespace volent::access {
namespace {

using core::Error;
using core::ErrorKind;
using nlohmann::json;

int64_t SystemMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string RandomHex(size_t bytes) {
  std::string raw(bytes, '\0');
  randombytes_buf(raw.data(), raw.size());
  std::string hex = core::HexEncode(raw);
  sodium_memzero(raw.data(), raw.size());
  return hex;
}

json ToJson(const ApiCredential& c) {
  json roles = json::array();
  for (Role r : c.roles) roles.push_back(std::string(RoleName(r)));
  return {{"id", c.id},           {"name", c.name},           {"roles", roles},
          {"created_ms", c.created_ms}, {"expires_ms", c.expires_ms}, {"revoked_ms", c.revoked_ms},
          {"created_by", c.created_by}, {"revoked_by", c.revoked_by}, {"approval_key", c.approval_key},
          {"token_sha256", c.token_sha256}};
}

// One stored credential, or an error naming what is wrong with entry `i`.
core::Result<ApiCredential> FromJson(const json& j, size_t i) {
  auto bad = [&](const std::string& what) {
    return Error{"entry " + std::to_string(i) + ": " + what, ErrorKind::kInvalidArgument};
  };
  if (!j.is_object()) return bad("not an object");
  ApiCredential c;
  try {
    c.id = j.at("id").get<std::string>();
    c.name = j.at("name").get<std::string>();
    for (const auto& r : j.at("roles")) {
      auto role = ParseRole(r.get<std::string>());
      if (!role) return bad("unknown role " + r.dump());
      c.roles.push_back(*role);
    }
    c.created_ms = j.at("created_ms").get<int64_t>();
    c.expires_ms = j.at("expires_ms").get<int64_t>();
    c.revoked_ms = j.at("revoked_ms").get<int64_t>();
    c.created_by = j.at("created_by").get<std::string>();
    c.revoked_by = j.at("revoked_by").get<std::string>();
    c.approval_key = j.at("approval_key").get<std::string>();
    c.token_sha256 = j.at("token_sha256").get<std::string>();
  } catch (const json::exception&) {
    return bad("a member is missing or of the wrong type");
  }
  if (!core::IsLowerHex(c.id, kTokenIdHexDigits / 2)) return bad("the id is not 16 hex digits");
  if (!core::IsLowerHex(c.token_sha256, 32)) return bad("token_sha256 is not 64 hex digits");
  if (c.roles.empty()) return bad("no roles");
  return c;
}

}  // namespace

bool IsValidCredentialName(std::string_view name) {
  if (name.empty() || name.size() > kMaxCredentialNameBytes) return false;
  if (name.find_first_not_of(' ') == std::string_view::npos) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    auto c = static_cast<unsigned char>(name[i]);
    if (c < 0x20 || c == 0x7F) return false;
    if (c == 0xC2 && i + 1 < name.size() && static_cast<unsigned char>(name[i + 1]) <= 0x9F) return false;
  }
  return true;
}

core::Result<std::unique_ptr<CredentialStore>> CredentialStore::Open(const std::string& data_dir,
                                                                       CredentialClock clock) {
  std::unique_ptr<CredentialStore> store(new CredentialStore());
  if (sodium_init() < 0) return Error{"the random source is not available", ErrorKind::kUnavailable};
  store->path_ = data_dir + "/" + kCredentialsFile;
  store->clock_ = clock ? std::move(clock) : CredentialClock(SystemMillis);
  struct stat st;
  if (lstat(store->path_.c_str(), &st) != 0) {
    if (errno != ENOENT) return Error{"cannot read " + store->path_ + ": " + core::ErrnoText()};
    store->fresh_ = true;
    return store;
  }
  // Whoever may write this file, or owns it, decides who may do what: it
  // is read only as a regular file (not a link) that only the node's user
  // (or root) owns and may write, else the node does not start.
  auto text = core::ReadFileCapped(store->path_, kMaxCredentialsFileBytes, nullptr,
                                            core::kTrustFileRules);
  if (!text) return Error{text.message()};
  const std::string fix = " (restore it from a backup; to start over, stop the node, move the file away and start "
                          "again: a new bootstrap admin token is made)";
  auto doc = core::ParseJsonBounded(*text, store->path_, {kMaxCredentialsFileBytes});
  if (!doc) return Error{doc.message() + fix};
  if (!doc->is_object() || doc->value("version", 0) != 1 || !doc->contains("credentials") ||
      !(*doc)["credentials"].is_array()) {
    return Error{store->path_ + " is not a version 1 credentials file" + fix};
  }
  for (const auto& entry : (*doc)["credentials"]) {
    auto credential = FromJson(entry, store->credentials_.size());
    if (!credential) return Error{store->path_ + ": " + credential.message() + fix};
    store->credentials_.push_back(std::move(*credential));
  }
  return store;
}

core::Status CredentialStore::Save(const std::vector<ApiCredential>& credentials) const {
  json list = json::array();
  for (const auto& c : credentials) list.push_back(ToJson(c));
  json doc = {{"version", 1}, {"credentials", std::move(list)}};
  return core::WriteFileAtomically(path_, doc.dump(2) + "\n", 0600);
}

core::Result<std::pair<ApiCredential, std::string>> CredentialStore::Create(const NewCredential& request) {
  if (!IsValidCredentialName(request.name)) {
    return Error{"a name is 1 to 100 bytes of UTF-8 without control characters, not only spaces",
                 ErrorKind::kInvalidArgument};
  }
  if (request.roles.empty()) return Error{"a credential needs at least one role", ErrorKind::kInvalidArgument};
  if (request.ttl_seconds < 1 || request.ttl_seconds > kMaxTokenTtlSeconds) {
    return Error{"ttl_seconds must be 1 to " + std::to_string(kMaxTokenTtlSeconds) + " (366 days)",
                 ErrorKind::kInvalidArgument};
  }
  std::unique_lock lock(mu_);
  if (credentials_.size() >= kMaxCredentials) {
    return Error{"the node holds " + std::to_string(kMaxCredentials) +
                     " credentials (revoked ones count): prune revoked ones from " + path_ + " while the node is stopped",
                 ErrorKind::kConflict};
  }
  ApiCredential c;
  do {
    c.id = RandomHex(kTokenIdHexDigits / 2);
  } while (std::any_of(credentials_.begin(), credentials_.end(), [&](const ApiCredential& o) { return o.id == c.id; }));
  std::string token = std::string(kTokenPrefix) + c.id + "_" + RandomHex(kTokenSecretHexDigits / 2);
  c.token_sha256 = core::Sha256Hex(token);
  c.name = request.name;
  c.roles = request.roles;
  c.created_ms = clock_();
  c.expires_ms = c.created_ms + request.ttl_seconds * 1000;
  c.created_by = request.created_by;
  c.approval_key = request.approval_key;
  std::vector<ApiCredential> next = credentials_;
  next.push_back(c);
  if (auto saved = Save(next); !saved.ok()) {
    return Error{"the credential could not be stored: " + saved.message(), ErrorKind::kUnavailable};
  }
  credentials_ = std::move(next);
  c.token_sha256.clear();
  return std::make_pair(std::move(c), std::move(token));
}

std::vector<ApiCredential> CredentialStore::List() const {
  std::shared_lock lock(mu_);
  std::vector<ApiCredential> out = credentials_;
  for (auto& c : out) c.token_sha256.clear();
  return out;
}

core::Result<ApiCredential> CredentialStore::Revoke(std::string_view id, const std::string& by) {
  std::unique_lock lock(mu_);
  auto it = std::find_if(credentials_.begin(), credentials_.end(), [&](const ApiCredential& c) { return c.id == id; });
  if (it == credentials_.end()) return Error{"no credential \"" + std::string(id) + "\"", ErrorKind::kNotFound};
  if (it->revoked_ms != 0) {
    return Error{"credential " + it->id + " was already revoked by " + it->revoked_by, ErrorKind::kConflict};
  }
  std::vector<ApiCredential> next = credentials_;
  ApiCredential& changed = next[static_cast<size_t>(it - credentials_.begin())];
  changed.revoked_ms = clock_();
  changed.revoked_by = by;
  if (auto saved = Save(next); !saved.ok()) {
    return Error{"the revocation could not be stored: " + saved.message(), ErrorKind::kUnavailable};
  }
  ApiCredential result = changed;
  credentials_ = std::move(next);
  result.token_sha256.clear();
  return result;
}

bool CredentialStore::HasActive(Role role) const {
  std::shared_lock lock(mu_);
  const int64_t now = clock_();
  return std::any_of(credentials_.begin(), credentials_.end(), [&](const ApiCredential& c) {
    return c.revoked_ms == 0 && now < c.expires_ms && std::find(c.roles.begin(), c.roles.end(), role) != c.roles.end();
  });
}

TokenCheck CredentialStore::Check(std::string_view token) const {
  TokenCheck check;
  if (token.size() != kTokenLength || token.substr(0, kTokenPrefix.size()) != kTokenPrefix ||
      token[kTokenPrefix.size() + kTokenIdHexDigits] != '_') {
    return check;  // kMalformed
  }
  std::string_view id = token.substr(kTokenPrefix.size(), kTokenIdHexDigits);
  std::string_view secret = token.substr(kTokenPrefix.size() + kTokenIdHexDigits + 1);
  if (!core::IsLowerHex(id, kTokenIdHexDigits / 2) ||
      !core::IsLowerHex(secret, kTokenSecretHexDigits / 2)) {
    return check;
  }
  const std::string presented = core::Sha256Hex(token);
  std::shared_lock lock(mu_);
  check.verdict = TokenVerdict::kUnknown;
  for (const ApiCredential& c : credentials_) {
    if (c.id != id) continue;
    // Both are 64 hex digits: compared in constant time.
    if (sodium_memcmp(c.token_sha256.data(), presented.data(), presented.size()) != 0) return check;
    check.credential = c;
    check.credential.token_sha256.clear();
    if (c.revoked_ms != 0) {
      check.verdict = TokenVerdict::kRevoked;
    } else if (clock_() >= c.expires_ms) {
      check.verdict = TokenVerdict::kExpired;
    } else {
      check.verdict = TokenVerdict::kValid;
    }
    return check;
  }
  return check;
}

}  // namespace volent::access
