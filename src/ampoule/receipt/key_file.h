// Key files: the signing key (secret) and public keys, as text.
//
// Formats (documented for users in docs/receipt-spec.md, "Keys"). Both are
// UTF-8 text; blank lines and lines starting with '#' are ignored.
//
//   secret key file KEY      ed25519-secret <base64 of the 32-byte seed>
//   public key file KEY.pub  ed25519 <base64 of the 32-byte public key> [comment]
//
// A trusted-keys file is any number of public key lines (a concatenation of
// .pub files). Base64 is the standard alphabet with padding.
//
// Secret key files are created with mode 0600 and never overwritten; a
// secret key file that is readable or writable by group or others is
// refused, as ssh does, because someone else may already have copied it.
//
// Thread-safe: no state.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/ed25519.h"
#include "core/result.h"

namespace ampoule::receipt {

// Named limits on key files, which are tiny when well formed.
inline constexpr size_t kMaxKeyFileBytes = 1 << 20;
inline constexpr size_t kMaxTrustedKeys = 64;

// Creates `path` with mode 0600 holding `key`. Refuses (error, file left
// untouched) if `path` exists, including as a symlink. On a failed write the
// partial file is removed.
core::Status WriteSecretKeyFile(const std::string& path, const core::ed25519::SecretKey& key);

// Creates `path` (mode 0644) holding `key` with a comment naming its key id.
// Refuses to overwrite an existing file.
core::Status WritePublicKeyFile(const std::string& path, const core::ed25519::PublicKey& key);

// Writes `path` (secret) and `path + ".pub"` (public), refusing if either
// exists. Leaves neither file behind on failure.
core::Status WriteKeyPair(const std::string& path, const core::ed25519::SecretKey& key);

// Reads a secret key file. Errors: unreadable, not a regular file, mode
// allows group/other access, malformed, or a public key file given instead.
core::Result<core::ed25519::SecretKey> ReadSecretKeyFile(const std::string& path);

// Reads a file holding exactly one public key. Errors on I/O, on malformed
// lines, on weak keys (see PublicKey::FromBytes) and on zero or several keys.
core::Result<core::ed25519::PublicKey> ReadPublicKeyFile(const std::string& path);

// Reads a trusted-keys file: one or more public keys, at most
// kMaxTrustedKeys. Same errors as ReadPublicKeyFile.
core::Result<std::vector<core::ed25519::PublicKey>> ReadTrustedKeysFile(const std::string& path);

// Parses public key lines from `text`; `what` names the source in errors
// (with 1-based line numbers). Returns every key in order, possibly none.
core::Result<std::vector<core::ed25519::PublicKey>> ParsePublicKeys(std::string_view text, std::string_view what);

// The text of a public key file for `key` (what WritePublicKeyFile writes).
std::string FormatPublicKey(const core::ed25519::PublicKey& key);

}  // namespace ampoule::receipt
