// One HTTP/1.1 exchange with a pinned address (docs/egress.md, "Sending").
//
// Connects to exactly `address` (never resolves), speaks TLS for https with
// SNI and certificate checks against the URL's host name (or its IP literal),
// writes one request with `Connection: close`, and reads one response whose
// body is at most `max_response_bytes`. Everything, connect to last byte,
// happens before `deadline`; a private io_context per exchange means
// exchanges on many threads share nothing but the TLS context.
//
// Outcomes: kNotSent when connect or the TLS handshake fails (no byte of the
// request has left), kFailed once writing has begun and no whole response
// came back, kAnswered otherwise. Never kDenied: the caller has decided.
//
// Thread-safe. Never throws but std::bad_alloc.
#pragma once

#include <chrono>
#include <memory>

#include <boost/asio/ip/address.hpp>

#include "egress/gate.h"
#include "egress/url.h"

namespace boost::asio::ssl {
class context;
}

namespace volent::egress {

struct Exchange {
  const Url* url = nullptr;
  boost::asio::ip::address address;  // the judged address to connect to
  std::string method;
  Headers headers;                   // already filtered (headers.h)
  const std::string* body = nullptr;
  size_t max_response_bytes = 0;
  std::chrono::steady_clock::time_point deadline;
  boost::asio::ssl::context* tls = nullptr;  // required for https
};

SendResult RunExchange(const Exchange& exchange);

// A TLS client context: the system trust store, peer verification on,
// TLS 1.2 at least. Null when OpenSSL cannot make one (https is then
// kNotSent with a reason).
std::shared_ptr<boost::asio::ssl::context> MakeTlsClientContext();

}  // namespace volent::egress
