// The node's bearer tokens (docs/decisions/0040-control-api-authentication.md).
//
// A token is "vlt_<id>_<secret>": <id> 16 lowercase hex digits (8 random
// bytes, public: it names the credential in lists and the journal), <secret>
// 64 lowercase hex digits (32 random bytes). It is returned once, when it is
// made; the node keeps only the SHA-256 of the whole token, compared in
// constant time. Each token has a name, roles, an expiry, and may be
// revoked; a revoked or expired one stays listed (never reused) until the
// file is pruned by hand.
//
// Storage: DATA_DIR/credentials.json (mode 0600), replaced whole and
// atomically (core/file_write.h) on every change, before the change is
// visible. The file is read as a trust file (core/file_read.h,
// kTrustFileRules): a link, or a file its group or others may write or
// someone else owns, is refused, naming the chmod or chown that fixes it.
// A file that cannot be read or understood stops the node at start
// (it is never silently replaced: that would lock every holder out, or let
// revoked tokens back in).
//
// Thread-safe: checks take a shared lock, changes an exclusive one.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "volent/access/principal.h"

namespace volent::access {

inline constexpr char kCredentialsFile[] = "credentials.json";
inline constexpr std::string_view kTokenPrefix = "vlt_";
inline constexpr size_t kTokenIdHexDigits = 16;
inline constexpr size_t kTokenSecretHexDigits = 64;
inline constexpr size_t kTokenLength = 4 + kTokenIdHexDigits + 1 + kTokenSecretHexDigits;
// Named limits of what a caller may ask for.
inline constexpr size_t kMaxCredentials = 1000;         // revoked and expired ones count
inline constexpr size_t kMaxCredentialNameBytes = 100;  // printable, no control characters
inline constexpr int64_t kDefaultTokenTtlSeconds = 30LL * 24 * 3600;
inline constexpr int64_t kMaxTokenTtlSeconds = 366LL * 24 * 3600;
inline constexpr size_t kMaxCredentialsFileBytes = 4 << 20;

// Unix time in milliseconds.
using CredentialClock = std::function<int64_t()>;

struct ApiCredential {
  std::string id;      // kTokenIdHexDigits hex digits
  std::string name;
  std::vector<Role> roles;
  int64_t created_ms = 0;
  int64_t expires_ms = 0;
  int64_t revoked_ms = 0;   // 0: not revoked
  std::string created_by;   // Principal::Describe() of the creator
  std::string revoked_by;
  std::string approval_key; // base64 Ed25519 public key, or ""
  std::string token_sha256; // hex; never leaves the store
};

struct NewCredential {
  std::string name;
  std::vector<Role> roles;
  int64_t ttl_seconds = kDefaultTokenTtlSeconds;
  std::string approval_key;  // checked by the caller (a valid Ed25519 public key), or ""
  std::string created_by;
};

// What a presented token turned out to be.
enum class TokenVerdict { kValid, kMalformed, kUnknown, kExpired, kRevoked };

struct TokenCheck {
  TokenVerdict verdict = TokenVerdict::kMalformed;
  ApiCredential credential;  // when the id is known (kValid, kExpired, kRevoked)
};

class CredentialStore {
 public:
  // Opens DATA_DIR/credentials.json; a missing file is an empty store whose
  // fresh() is true. `clock` empty: the system clock.
  static core::Result<std::unique_ptr<CredentialStore>> Open(const std::string& data_dir,
                                                               CredentialClock clock = {});

  // True when the file did not exist at Open (the node's first start).
  bool fresh() const { return fresh_; }
  const std::string& path() const { return path_; }
  int64_t now_ms() const { return clock_(); }

  // Makes a token: the credential and the token text (its only copy).
  // Errors: kInvalidArgument (empty or bad name, no roles, ttl out of 1 s
  // to kMaxTokenTtlSeconds), kConflict (kMaxCredentials reached),
  // kUnavailable (the file could not be written: nothing changed).
  core::Result<std::pair<ApiCredential, std::string>> Create(const NewCredential& request);
  // Every credential, oldest first (no secret in them).
  std::vector<ApiCredential> List() const;
  // Revokes `id`. Errors: kNotFound, kConflict (already revoked),
  // kUnavailable (not written: nothing changed).
  core::Result<ApiCredential> Revoke(std::string_view id, const std::string& by);
  // True when some token holding `role` is neither revoked nor expired.
  bool HasActive(Role role) const;
  // Judges a presented token, in time independent of the secret's bytes.
  TokenCheck Check(std::string_view token) const;

 private:
  CredentialStore() = default;
  core::Status Save(const std::vector<ApiCredential>& credentials) const;

  std::string path_;
  CredentialClock clock_;
  bool fresh_ = false;
  mutable std::shared_mutex mu_;  // guards credentials_
  std::vector<ApiCredential> credentials_;
};

// True when `name` is 1 to kMaxCredentialNameBytes bytes, printable (no
// control characters) and not only spaces.
bool IsValidCredentialName(std::string_view name);

}  // namespace volent::access
