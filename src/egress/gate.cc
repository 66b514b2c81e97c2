// The egress gate's Send: the steps of gate.h in order.
#include "egress/gate.h"

#include <chrono>

#include <boost/asio/ssl/context.hpp>

#include "egress/allowlist.h"
#include "egress/headers.h"
#include "egress/http_exchange.h"
#include "egress/resolve.h"
#include "egress/url.h"

namespace volent::egress {
namespace {

SendResult Stop(SendResult result, Outcome outcome, std::string reason) {
  result.outcome = outcome;
  result.reason = std::move(reason);
  return result;
}

}  // namespace

// Interim: synchronous only; redirects, the denial sink and the DNS server
// option are not applied yet.
struct Gate::Impl {
  std::vector<manifest::AllowEntry> allowlist_;
  GateOptions options_;
  std::shared_ptr<boost::asio::ssl::context> tls_;
  SendResult Send(std::string_view capability, const HttpRequest& request) const;
};

Gate::Gate(std::vector<manifest::AllowEntry> allowlist, GateOptions options)
    : impl_(new Impl{std::move(allowlist), std::move(options), MakeTlsClientContext()}) {}

Gate::~Gate() = default;

SendResult Gate::Send(std::string_view capability, const HttpRequest& request) const {
  return impl_->Send(capability, request);
}

void Gate::SendAsync(std::string_view capability, HttpRequest request, SendCallback done) const {
  done(impl_->Send(capability, request));
}

SendResult Gate::Impl::Send(std::string_view capability, const HttpRequest& request) const {
  SendResult result;
  if (request.timeout_ms <= 0) return Stop(std::move(result), Outcome::kDenied, "timeout_ms must be at least 1");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(request.timeout_ms);

  ParsedUrl parsed = ParseUrl(request.url);
  if (!parsed.ok()) return Stop(std::move(result), Outcome::kDenied, parsed.error);
  const Url& url = *parsed.url;
  if (!IsToken(request.method)) {
    return Stop(std::move(result), Outcome::kDenied,
                "method \"" + request.method + "\" is not a token (e.g. GET, POST)");
  }
  FilteredHeaders headers = FilterHeaders(request.headers);
  if (!headers.error.empty()) return Stop(std::move(result), Outcome::kDenied, headers.error);

  Candidates candidates = MatchRequest(allowlist_, capability, url, request.method);
  if (candidates.entries.empty()) return Stop(std::move(result), Outcome::kDenied, candidates.deny_reason);

  std::vector<boost::asio::ip::address> addresses;
  if (url.ip) {
    addresses.push_back(*url.ip);
  } else {
    Resolved resolved = ResolveHost(url.host, deadline);
    if (!resolved.error.empty()) {
      return Stop(std::move(result), Outcome::kNotSent, "could not resolve " + url.host + ": " + resolved.error);
    }
    addresses = std::move(resolved.addresses);
  }
  Judgement judgement = JudgeCandidates(candidates, addresses);
  if (judgement.entry == nullptr) {
    return Stop(std::move(result), Outcome::kDenied, url.host + ": " + judgement.deny_reason);
  }

  Exchange exchange;
  exchange.url = &url;
  exchange.address = addresses.front();  // pinned: the address judged is the address used
  exchange.method = request.method;
  exchange.headers = std::move(headers.headers);
  exchange.body = &request.body;
  exchange.max_response_bytes = request.max_response_bytes;
  exchange.deadline = deadline;
  exchange.tls = tls_.get();
  return RunExchange(exchange);
}

}  // namespace volent::egress
