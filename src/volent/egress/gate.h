// The egress gate: the one place where the node sends anything outside
// (docs/egress.md). Every outbound HTTP request of a tool names the
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
// Thread-safe: Send and SendAsync may run on many threads at once; the
// allowlist and the TLS client context are read-only once made. SendAsync
// runs a request on the gate's own io_context and I/O threads without a
// thread per request and calls back; Send is SendAsync and a wait (on one of
// the gate's own threads, i.e. from a callback, it runs the request on a
// private io_context on that thread instead of waiting for itself).
// Callbacks and the DenialSink must not throw, and should not block: they
// hold a gate thread meanwhile. The destructor stops taking requests, waits
// for those under way (callbacks included) to finish or reach their
// deadlines, and joins the threads; it may run on a gate thread (a callback
// dropping the last owner), which then frees the gate when its work is over.
//
// Credentials (credentials.h; docs/egress.md, "Credentials"): when the
// entry that allowed the request names a credential, the gate writes the
// credential's header into it, after every check above, on the last step
// before connecting. A caller's request that sets that header itself is
// denied (it may neither set nor learn it). Redirects carry it only to the
// origin (scheme, host, port) the caller named, and only when the entry
// that allows the hop names the same credential; elsewhere it is not sent.
// The answer the caller gets (headers, body, reason, the redirect URLs) has
// every occurrence of the secret replaced by "[credential NAME]", and
// SendResult::credential names it. Nothing the gate returns or hands to the
// DenialSink holds the value.
//
// Order of a Send: the URL is read strictly (url.h), the method and headers
// are checked (headers.h), the allowlist is matched (allowlist.h), the name
// is resolved once (resolve.h), every address is judged, and the first
// address is connected to (http_exchange.h). Each step that refuses
// returns kDenied before the next begins, and the denial is handed to the
// DenialSink (the node journals it). A redirect starts the order again.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "volent/egress/credentials.h"
#include "volent/manifest/manifest.h"

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
  int timeout_ms = 10000;                      // the whole exchange, every hop: resolve, connect, send, receive (> 0)
  size_t max_response_bytes = 1024 * 1024;     // a longer body is an error (kFailed), not cut silently
  // Redirects to follow (301, 302, 303, 307, 308 with a Location): -1 takes
  // the gate's GateOptions::max_redirects; 0 returns the 3xx as it is.
  int max_redirects = -1;
  // Who asks, recorded with a denial: the step's idempotency key
  // ("AGENT/RUN/STEP") in the node; "" when nobody in particular.
  std::string origin;
};

struct HttpResponse {
  int status = 0;
  Headers headers;
  std::string body;
};

enum class Outcome {
  kDenied,     // refused by the allowlist or the address rule: nothing was sent to the URL refused
               // (after redirects, earlier hops were sent: SendResult::redirects lists them)
  kNotSent,    // allowed, but no connection could be made (resolve/connect failed): nothing was sent
  kFailed,     // the request may have reached the target, but no whole answer came back; also a
               // redirect that could not be sent (the first hop was) and the redirect limit reached
  kAnswered,   // a whole response came back (any status)
};
std::string_view OutcomeName(Outcome outcome);  // "denied", "not-sent", "failed", "answered"

struct SendResult {
  Outcome outcome = Outcome::kDenied;
  std::string reason;           // for kDenied, kNotSent, kFailed: what happened, for a person
  std::string pinned_address;   // the judged address connected to, or tried ("127.0.0.1:8080", "[::1]:443");
                                // "" when it did not come to that (kDenied, or a name that did not resolve)
  HttpResponse response;        // for kAnswered: the last hop's response (for kFailed at the
                                // redirect limit: the last 3xx)
  std::vector<std::string> redirects;  // the URLs redirected to, in order (the last is the one answered or refused)
  // The name of the credential the gate added to the request (never its
  // value), "" when none was: see "Credentials" below.
  std::string credential;
};

// A request the gate refused, as the node journals it (docs/egress.md).
struct Denial {
  std::string capability;
  std::string method;
  std::string url;      // the URL refused (after redirects: the hop's, not the first)
  std::string reason;   // as in SendResult::reason
  std::string origin;   // HttpRequest::origin
  int hop = 0;          // 0 for the request itself, N for its Nth redirect
};
// Called once for every kDenied result, before the caller sees it, on the
// thread that decided (any thread). Must not call back into the gate.
using DenialSink = std::function<void(const Denial&)>;

struct GateOptions {
  // The DNS server names are resolved with, "IP" or "IP:PORT" ("[::1]:5353");
  // "" asks the system resolver (nsswitch, /etc/hosts, resolv.conf). Check
  // it first with CheckDnsServer (resolve.h): a value it refuses makes every
  // lookup fail (kNotSent with its reason).
  std::string dns_server;
  int max_redirects = 5;    // the default of HttpRequest::max_redirects (0..20; clamped)
  size_t io_threads = 2;    // threads running SendAsync exchanges (>= 1; 0 is taken as 1)
  DenialSink on_denial;     // null: denials are only returned
  // The TLS client context of https requests (the CAs trusted, a client
  // certificate: `volent approve` to a node with mutual TLS); null: the
  // system's trusted CAs and no client certificate.
  std::shared_ptr<boost::asio::ssl::context> tls_client;
  // The values of the credentials allowlist entries name (LoadCredentials).
  // An entry naming one that is not here allows nothing (denied).
  Credentials credentials;
};

class Gate {
 public:
  explicit Gate(std::vector<manifest::AllowEntry> allowlist, GateOptions options = {});
  // Stops taking requests, waits for the exchanges under way (and their
  // callbacks), then joins its threads (see the top of this file).
  ~Gate();
  Gate(const Gate&) = delete;
  Gate& operator=(const Gate&) = delete;

  // Sends `request` under `capability` if the allowlist allows it, following
  // redirects up to the hop limit, each one judged from the top (URL,
  // allowlist, resolution, addresses) as a request of its own: 303 (and 301
  // or 302 after a POST) continue as GET without a body; 307 and 308 keep
  // method and body. Headers that carry credentials (Authorization,
  // Proxy-Authorization, Cookie, X-Api-Key) are dropped when a redirect
  // leaves the origin (scheme, host, port). A redirect still answered after
  // the hop limit is kFailed ("stopped after N redirects (the limit) ...").
  // Blocks until done.
  SendResult Send(std::string_view capability, const HttpRequest& request) const;

  // The same, without blocking: `done` is called exactly once, on one of the
  // gate's I/O threads (or at once, on the caller's, when the request is
  // refused before any I/O, or kNotSent when the gate is being destroyed).
  // Thousands may be in flight: an exchange waiting for its answer costs a
  // socket and a timer, not a thread.
  using SendCallback = std::function<void(SendResult)>;
  void SendAsync(std::string_view capability, HttpRequest request, SendCallback done) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace volent::egress
