// The HTTP/1.1 server of the control API: the project's connection skeleton
// (core/http/server.h) answering each request with ControlApi::Dispatch,
// and its refusals as problems. docs/control-api.md.
//
// Limits: headers 16 KiB (431, then close), bodies 1 MiB (413, decided from
// Content-Length before the body is read, and while a chunked body arrives),
// a whole request header within `header_timeout` and a whole request within
// `request_timeout` of connecting or of the previous answer (else the
// connection is closed), at most `max_connections` at once and
// `max_connections_per_source` from one address (at a cap the idle
// connection waiting longest for a request is closed to make room, so idle
// sockets cannot keep an operator out; docs/decisions/0048-operators-door.md).
// A HEAD is answered with headers only. Keep-alive; a client that
// half-closes after its request still gets its answer. A request that
// breaks the framing rules (core/http/framing.h) is a 400 problem, then the
// connection closes.
//
// TLS: with `tls` set every connection is TLS; a client certificate the
// context verified reaches the Authenticator as Request::certificate.
//
// Threading: `threads` threads run the I/O; each connection is a strand.
// Handlers are fast and in memory, so they run inline on that strand.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "core/result.h"
#include "volent/control/api.h"

namespace boost::asio::ssl {
class context;
}

namespace volent::control {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 8470;  // 0: any free port
  std::chrono::milliseconds header_timeout{10000};
  std::chrono::milliseconds request_timeout{30000};
  size_t max_connections = 1024;
  size_t max_connections_per_source = 256;  // 0: no cap per address
  int threads = 2;
  // After Stop, how long requests in flight may take to be answered.
  std::chrono::milliseconds stop_grace{10000};
  // Set: TLS (control/tls_context.h); unset: plain HTTP.
  std::shared_ptr<boost::asio::ssl::context> tls;
};

class HttpServer {
 public:
  virtual ~HttpServer() = default;

  // Binds and listens (nothing is served until Run). `api` must outlive the
  // server. Errors say which address failed and what to try.
  static core::Result<std::unique_ptr<HttpServer>> Bind(const ControlApi& api,
                                                           const ServerOptions& options);

  virtual int port() const = 0;
  // From now on SIGINT and SIGTERM stop the server (acted on once Run runs).
  virtual void CatchSignals() = 0;
  // Serves until Stop or a caught signal, then drains: idle connections
  // close at once, requests in flight get `stop_grace` to be answered
  // (with Connection: close); then Run returns.
  virtual void Run() = 0;
  // Thread-safe; Run returns soon after.
  virtual void Stop() = 0;
};

}  // namespace volent::control
