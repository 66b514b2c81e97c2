// The egress gate: the one place where the node sends anything outside
// (SPEC B3, docs/egress.md). Every outbound HTTP request of a tool names the
// capability it is made under; the gate allows it only if an entry of the
// node's allowlist for that capability matches (scheme, host or address
// range, port, path prefix, method), and only to addresses the entry may
// reach. Anything else is denied before a byte is sent.
//
// Address rule: a `host` entry (an exact name, "*.example.com" or "*") never
// reaches a forbidden address (loopback, private, link-local, metadata, ...:
// ClassifyAddress); only a `cidr` entry opens a range, and only its own. The
// name is resolved once, every resolved address is judged, and the gate
// connects to the checked address it pinned (Host keeps the name).
//
// Thread-safe: Send may run on many threads at once; the gate holds no
// mutable state (the TLS client context it shares is read-only once made).
// Blocking: Send returns when the exchange is over or its time limit is up.
//
// Order of a Send: the URL is read strictly (url.h), the method and headers
// are checked (headers.h), the allowlist is matched (allowlist.h), the name
// is resolved once (resolve.h), every address is judged, and the first
// address is connected to (http_exchange.h). Each step that refuses
// returns kDenied before the next begins.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "manifest/manifest.h"

namespace boost::asio::ssl {
class context;
}

namespace volent::egress {

using Headers = std::vector<std::pair<std::string, std::string>>;

struct HttpRequest {
  std::string method = "GET";
  std::string url;      // absolute http:// or https:// URL
  Headers headers;      // the caller's; hop-by-hop and proxy headers are dropped, Host is set by the gate
  std::string body;
  int timeout_ms = 10000;                      // the whole exchange: resolve, connect, send, receive (> 0)
  size_t max_response_bytes = 1024 * 1024;     // a longer body is an error (kFailed), not cut silently
};

struct HttpResponse {
  int status = 0;
  Headers headers;
  std::string body;
};

enum class Outcome {
  kDenied,     // refused by the allowlist or the address rule: nothing was sent
  kNotSent,    // allowed, but no connection could be made (resolve/connect failed): nothing was sent
  kFailed,     // the request may have reached the target, but no whole answer came back
  kAnswered,   // a whole response came back (any status)
};
std::string_view OutcomeName(Outcome outcome);  // "denied", "not-sent", "failed", "answered"

struct SendResult {
  Outcome outcome = Outcome::kDenied;
  std::string reason;           // for kDenied, kNotSent, kFailed: what happened, for a person
  std::string pinned_address;   // the judged address connected to, or tried ("127.0.0.1:8080", "[::1]:443");
                                // "" when it did not come to that (kDenied, or a name that did not resolve)
  HttpResponse response;        // for kAnswered
};

class Gate {
 public:
  explicit Gate(std::vector<manifest::AllowEntry> allowlist);

  // Sends `request` under `capability` if the allowlist allows it. Redirects
  // are not followed (the response is returned as it is).
  SendResult Send(std::string_view capability, const HttpRequest& request) const;

 private:
  std::vector<manifest::AllowEntry> allowlist_;
  std::shared_ptr<boost::asio::ssl::context> tls_;  // shared by every https exchange
};

}  // namespace volent::egress
