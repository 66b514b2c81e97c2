// One HTTP/1.1 exchange with a pinned address (docs/egress.md, "Sending").
//
// Connects to exactly `address` (never resolves), speaks TLS for https with
// SNI and certificate checks against the URL's host name (or its IP literal),
// writes one request with `Connection: close`, and reads one response whose
// body is at most `max_response_bytes` and whose headers are at most 64 KiB.
// Everything, connect to last byte, happens before `deadline` (one timer on
// the stream).
//
// StartExchange runs it on the caller's io_context without blocking: the
// exchange keeps its own state (socket, buffers, a copy of what it sends)
// alive until it calls `done`, exactly once, on a thread running that
// io_context (on a strand of its own, so any number of threads may run the
// context). An exchange in flight costs a socket, a timer and its buffers,
// no thread.
//
// Outcomes: kNotSent when connect or the TLS handshake fails (no byte of the
// request has left), kFailed once writing has begun and no whole response
// came back, kAnswered otherwise. Never kDenied: the caller has decided.
//
// Thread-safe. Never throws but std::bad_alloc.
#pragma once

#include <chrono>
#include <functional>
#include <memory>

#include <boost/asio/ip/address.hpp>

#include "volent/egress/gate.h"
#include "volent/egress/url.h"

namespace boost::asio {
class io_context;
namespace ssl {
class context;
}
}  // namespace boost::asio

namespace volent::egress {

struct Exchange {
  Url url;
  boost::asio::ip::address address;  // the judged address to connect to
  std::string method;
  Headers headers;                   // already filtered (headers.h)
  std::shared_ptr<const std::string> body;  // null: no body
  size_t max_response_bytes = 0;
  std::chrono::steady_clock::time_point deadline;
  // Required for https; must outlive the exchange (the gate's, read-only).
  boost::asio::ssl::context* tls = nullptr;
};

// The result has outcome, reason, pinned_address and, when answered,
// response set; `redirects` is left empty (the gate's business).
using ExchangeDone = std::function<void(SendResult)>;
void StartExchange(boost::asio::io_context& ioc, Exchange exchange, ExchangeDone done);

// A TLS client context: the system trust store, peer verification on,
// TLS 1.2 at least. Null when OpenSSL cannot make one (https is then
// kNotSent with a reason).
std::shared_ptr<boost::asio::ssl::context> MakeTlsClientContext();

}  // namespace volent::egress
