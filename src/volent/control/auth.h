// Authentication of control API requests
// (docs/decisions/0040-control-api-authentication.md): who sent a request,
// from its bearer token or its verified client certificate, or the answer
// that refuses it.
//
//   401 unauthorized   no credential, or one that is malformed, unknown,
//                      wrong, expired or revoked; with WWW-Authenticate
//   429 too-many-...   a wrong or absent credential while a failure limit
//                      is reached (the address's, the token id's, or all
//                      addresses'; failure_limiter.h); with Retry-After.
//                      A valid credential is never refused for failures.
//
// A token is sent as "Authorization: Bearer vlt_..." (credentials.h). A
// client certificate has already been verified against the client CA by
// the TLS handshake; its subject's OU values name its roles. When both are
// present the token decides. In development mode (no authentication, asked
// for explicitly and only on loopback) every request is the development
// principal, which may do everything.
//
// Failures are counted per client address, per token id and in all; one
// summary per interval is journaled as an auth-failures entry (never with a
// credential's text).
//
// Thread-safe.
#pragma once

#include <string>
#include <variant>

#include "volent/access/credentials.h"
#include "volent/control/failure_limiter.h"
#include "volent/control/message.h"
#include "volent/journal/journal.h"

namespace volent::control {

struct AuthOptions {
  bool development_no_auth = false;
  bool tokens = true;  // bearer tokens accepted
  bool mtls = false;   // client certificates accepted
  access::CredentialStore* credentials = nullptr;  // REQUIRES: set when tokens; outlives the Authenticator
  journal::Journal* journal = nullptr;     // auth-failures entries; null: not journaled
  FailureLimits limits;
  access::CredentialClock clock;  // empty: the credential store's clock, else the system's
};

class Authenticator {
 public:
  explicit Authenticator(AuthOptions options);

  // The principal `request` speaks for, or the refusal to answer.
  std::variant<access::Principal, Response> Authenticate(const Request& request);
  // "tokens", "mtls", "tokens+mtls" or "none (development)": for /healthz
  // and the start line.
  std::string mode() const;
  bool development() const { return options_.development_no_auth; }
  // Journals the failures counted but not journaled yet (at a stop).
  void Flush();

 private:
  Response Refuse(const Request& request, const std::string& detail, const char* error);
  void JournalReport(const FailureReport& report);
  void ReportIfDue(int64_t now);
  int64_t Now() const;

  AuthOptions options_;
  FailureLimiter limiter_;
};

}  // namespace volent::control
