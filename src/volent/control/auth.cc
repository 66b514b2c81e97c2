#include "volent/control/auth.h"

#include <chrono>

namespace volent::control {
namespace {

constexpr std::string_view kBearer = "bearer ";

bool StartsWithNoCase(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    char c = text[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != prefix[i]) return false;
  }
  return true;
}

Principal FromCertificate(const ClientCertificate& certificate) {
  Principal p;
  p.kind = Principal::Kind::kCertificate;
  p.certificate_subject = certificate.subject;
  p.certificate_sha256 = certificate.sha256;
  for (const auto& unit : certificate.units) {
    if (auto role = ParseRole(unit)) p.roles.push_back(*role);
  }
  return p;
}

Principal FromToken(const Credential& credential) {
  Principal p;
  p.kind = Principal::Kind::kToken;
  p.token_id = credential.id;
  p.name = credential.name;
  p.roles = credential.roles;
  p.approval_key = credential.approval_key;
  return p;
}

}  // namespace

Authenticator::Authenticator(AuthOptions options) : options_(std::move(options)), limiter_(options_.limits) {}

int64_t Authenticator::Now() const {
  if (options_.clock) return options_.clock();
  if (options_.credentials) return options_.credentials->now_ms();
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string Authenticator::mode() const {
  if (options_.development_no_auth) return "none (development)";
  if (options_.tokens && options_.mtls) return "tokens+mtls";
  return options_.mtls ? "mtls" : "tokens";
}

Response Authenticator::Refuse(const Request& request, const std::string& detail, const char* error) {
  Response r = ProblemResponse(MakeProblem(401, detail, request.path));
  std::string challenge = options_.tokens ? "Bearer realm=\"volent\"" : "Mutual realm=\"volent\"";
  if (error && options_.tokens) challenge += ", error=\"" + std::string(error) + "\"";
  r.headers.emplace_back("WWW-Authenticate", challenge);
  return r;
}

void Authenticator::JournalReport(const FailureReport& report) {
  if (!options_.journal) return;
  nlohmann::json payload = {{"address", report.address.empty() ? "in-process" : report.address},
                            {"failures", report.failures},
                            {"refused", report.refused},
                            {"first_ms", report.first_ms},
                            {"last_ms", report.last_ms},
                            {"last_reason", report.last_reason}};
  // A journal that cannot record this does not stop the refusal; the
  // counts are lost, the refusals still happen.
  (void)options_.journal->AppendOwnKey(journal::EntryKind::kAuthFailures, "control", "auth", payload);
}

void Authenticator::Flush() {
  for (const auto& report : limiter_.Flush()) JournalReport(report);
}

std::variant<Principal, Response> Authenticator::Authenticate(const Request& request) {
  if (options_.development_no_auth) {
    Principal p;
    p.kind = Principal::Kind::kDevelopment;
    return p;
  }
  const int64_t now = Now();
  std::optional<FailureReport> due;
  if (auto wait = limiter_.Blocked(request.peer, now, due)) {
    if (due) JournalReport(*due);
    Response r = ProblemResponse(MakeProblem(
        429, "too many failed authentications from this address: try again in " + std::to_string(*wait) + " s",
        request.path));
    r.headers.emplace_back("Retry-After", std::to_string(*wait));
    return r;
  }
  auto fail = [&](const std::string& detail, const std::string& reason) -> Response {
    if (auto report = limiter_.Failed(request.peer, now, reason)) JournalReport(*report);
    return Refuse(request, detail, "invalid_token");
  };
  if (!request.authorization.empty()) {
    if (!options_.tokens) return fail("this node accepts client certificates only, not tokens", "token refused");
    if (!StartsWithNoCase(request.authorization, kBearer)) {
      return fail("send the token as Authorization: Bearer vlt_...", "not a bearer credential");
    }
    std::string_view token = std::string_view(request.authorization).substr(kBearer.size());
    while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
    while (!token.empty() && (token.back() == ' ' || token.back() == '\t')) token.remove_suffix(1);
    TokenCheck check = options_.credentials ? options_.credentials->Check(token) : TokenCheck{};
    switch (check.verdict) {
      case TokenVerdict::kValid: return FromToken(check.credential);
      case TokenVerdict::kExpired:
        return fail("the token " + check.credential.id + " has expired: ask an admin for a new one",
                    "token " + check.credential.id + " expired");
      case TokenVerdict::kRevoked:
        return fail("the token " + check.credential.id + " was revoked", "token " + check.credential.id + " revoked");
      case TokenVerdict::kUnknown: return fail("the token is not valid", "unknown token or wrong secret");
      case TokenVerdict::kMalformed: return fail("the token is not valid", "malformed token");
    }
  }
  if (request.certificate.present && options_.mtls) {
    if (auto outside = request.certificate.OutsideValidity(now)) return fail(*outside, "certificate out of its validity");
    return FromCertificate(request.certificate);
  }
  // No credential at all: not a guess, so not counted against the address.
  std::string detail = options_.tokens && options_.mtls
                           ? "send a bearer token (Authorization: Bearer vlt_...) or a client certificate"
                       : options_.tokens ? "send a bearer token: Authorization: Bearer vlt_..."
                                         : "present a client certificate the node's client CA signed";
  return Refuse(request, "authentication required: " + detail, nullptr);
}

}  // namespace volent::control
