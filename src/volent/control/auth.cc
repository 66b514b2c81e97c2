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

access::Principal FromCertificate(const ClientCertificate& certificate) {
  access::Principal p;
  p.kind = access::Principal::Kind::kCertificate;
  p.certificate_subject = certificate.subject;
  p.certificate_sha256 = certificate.sha256;
  for (const auto& unit : certificate.units) {
    if (auto role = access::ParseRole(unit)) p.roles.push_back(*role);
  }
  return p;
}

// The public id part of a token of the right shape ("vlt_<id>_..."), else
// "": the key of its failure bucket, the same whether or not a credential
// has the id.
std::string TokenId(std::string_view token) {
  if (token.size() != access::kTokenLength || token.substr(0, access::kTokenPrefix.size()) != access::kTokenPrefix) return "";
  std::string_view id = token.substr(access::kTokenPrefix.size(), access::kTokenIdHexDigits);
  for (char c : id) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return "";
  }
  return std::string(id);
}

access::Principal FromToken(const access::ApiCredential& credential) {
  access::Principal p;
  p.kind = access::Principal::Kind::kToken;
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
  auto counts = [](const std::vector<FailureCount>& list, const char* key, const char* unnamed) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& c : list) {
      out.push_back({{key, c.name.empty() ? unnamed : c.name},
                     {"failures", c.failures},
                     {"refused", c.refused}});
    }
    return out;
  };
  nlohmann::json payload = {{"failures", report.failures},
                            {"refused", report.refused},
                            {"addresses", report.addresses},
                            {"first_ms", report.first_ms},
                            {"last_ms", report.last_ms},
                            {"last_reason", report.last_reason},
                            {"top_addresses", counts(report.top_addresses, "address", "in-process")},
                            {"top_ids", counts(report.top_ids, "id", "")}};
  // A journal that cannot record this does not stop the refusal; the
  // counts are lost, the refusals still happen.
  (void)options_.journal->AppendOwnKey(journal::EntryKind::kAuthFailures, "control", "auth", payload);
}

void Authenticator::Flush() {
  if (auto report = limiter_.Flush()) JournalReport(*report);
}

void Authenticator::ReportIfDue(int64_t now) {
  if (auto report = limiter_.TakeDue(now)) JournalReport(*report);
}

std::variant<access::Principal, Response> Authenticator::Authenticate(const Request& request) {
  if (options_.development_no_auth) {
    access::Principal p;
    p.kind = access::Principal::Kind::kDevelopment;
    return p;
  }
  const int64_t now = Now();
  // The credential is judged first, whatever the limits say: a valid one is
  // never refused for failures (its own address's, its id's, everyone's).
  // Guessing gains nothing from this: a secret has 256 bits.
  std::string detail, reason, id;
  bool presented = !request.authorization.empty();
  if (presented) {
    if (!options_.tokens) {
      detail = "this node accepts client certificates only, not tokens";
      reason = "token refused";
    } else if (!StartsWithNoCase(request.authorization, kBearer)) {
      detail = "send the token as Authorization: Bearer vlt_...";
      reason = "not a bearer credential";
    } else {
      std::string_view token = std::string_view(request.authorization).substr(kBearer.size());
      while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
      while (!token.empty() && (token.back() == ' ' || token.back() == '\t')) token.remove_suffix(1);
      id = TokenId(token);
      access::TokenCheck check = options_.credentials ? options_.credentials->Check(token) : access::TokenCheck{};
      switch (check.verdict) {
        case access::TokenVerdict::kValid: ReportIfDue(now); return FromToken(check.credential);
        case access::TokenVerdict::kExpired:
          detail = "the token " + check.credential.id + " has expired: ask an admin for a new one";
          reason = "token " + check.credential.id + " expired";
          break;
        case access::TokenVerdict::kRevoked:
          detail = "the token " + check.credential.id + " was revoked";
          reason = "token " + check.credential.id + " revoked";
          break;
        case access::TokenVerdict::kUnknown: detail = "the token is not valid"; reason = "unknown token or wrong secret"; break;
        case access::TokenVerdict::kMalformed: detail = "the token is not valid"; reason = "malformed token"; break;
      }
    }
  } else if (request.certificate.present && options_.mtls) {
    // Verified by the TLS handshake against the client CA; its validity is
    // checked again on every request, against the node's clock: a resumed
    // TLS session skips the handshake's check.
    if (auto outside = request.certificate.OutsideValidity(now)) {
      presented = true;
      detail = *outside;
      reason = "certificate out of its validity";
    } else {
      ReportIfDue(now);
      return FromCertificate(request.certificate);
    }
  }
  // A wrong or absent credential: refused outright while a limit is reached.
  if (auto wait = limiter_.Blocked(request.peer, id, now)) {
    ReportIfDue(now);
    Response r = ProblemResponse(MakeProblem(
        429, "too many failed authentications: try again in " + std::to_string(*wait) + " s", request.path));
    r.headers.emplace_back("Retry-After", std::to_string(*wait));
    return r;
  }
  if (presented) {
    limiter_.Failed(request.peer, id, now, reason);
    ReportIfDue(now);
    return Refuse(request, detail, "invalid_token");
  }
  // No credential at all: not a guess, so not counted.
  std::string what = options_.tokens && options_.mtls
                         ? "send a bearer token (Authorization: Bearer vlt_...) or a client certificate"
                     : options_.tokens ? "send a bearer token: Authorization: Bearer vlt_..."
                                       : "present a client certificate the node's client CA signed";
  return Refuse(request, "authentication required: " + what, nullptr);
}

}  // namespace volent::control
