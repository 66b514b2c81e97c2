// The secrets the egress gate adds to requests (volent.yaml
// egress.credentials; docs/egress.md, "Credentials"; decision 0044): an
// allowlist entry names a credential, and the gate writes its header into
// every request that entry allows, after the allowlist and the address rule
// decided, so that the tool making the request, its arguments, its receipt
// and the model never hold the secret.
//
// LoadCredentials reads each value once, at node start: from its file,
// through the one safe file reader (core/file_read.h: a regular file, at
// most kMaxCredentialBytes), or from the node's environment. A file that
// other users may read or write (mode o+r, o+w, g+w) is refused, naming the
// file: the secret is only as safe as its file. One trailing newline (LF or
// CR LF) is stripped; anything else that is not printable ASCII (CR, LF,
// NUL, any control byte: a second header written through the value), a value
// that starts or ends with a space (HTTP would drop it), or one shorter than
// kMinCredentialBytes is refused. Errors name the credential and where its
// value is, never the value or a part of it.
//
// The header must be a token the gate does not write itself (not Host,
// Content-Length, a hop-by-hop or proxy header: headers.h) and not
// Idempotency-Key (the node's, for tools).
//
// Thread-safe: a loaded Credentials is read-only.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "volent/manifest/manifest.h"

namespace volent::egress {

// A value longer than this is not a credential (a token, a key).
inline constexpr size_t kMaxCredentialBytes = 16 * 1024;
// Shorter than this is guessable, and would be redacted everywhere.
inline constexpr size_t kMinCredentialBytes = 8;

struct HeaderCredential {
  std::string name;    // as in egress.credentials and AllowEntry::credential
  std::string header;  // e.g. "Authorization"
  std::string value;   // the header's value: the prefix, then the secret
  std::string secret;  // the secret alone: what is redacted from answers
};
using Credentials = std::map<std::string, HeaderCredential, std::less<>>;

// How an environment variable is read: the process's getenv unless a test
// gives its own. Returns null when the variable is not set.
using EnvReader = std::function<const char*(const char* name)>;

// Every credential of `specs` (NodeConfig::egress_credentials), or every
// problem found (one line each; kInvalidArgument).
core::Result<Credentials> LoadCredentials(const std::vector<manifest::EgressCredential>& specs,
                                             const EnvReader& env = nullptr);

// What stands in an answer where the secret of `name` was: "[credential NAME]".
std::string RedactedMark(std::string_view name);

// Replaces every occurrence of `secret` in `text` with `mark`; returns how
// many there were. An empty secret replaces nothing.
size_t Redact(std::string& text, std::string_view secret, std::string_view mark);

}  // namespace volent::egress
