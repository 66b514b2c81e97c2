// The mock model's HTTP/1.1 server: the project's connection skeleton
// (core/http/server.h) answering each request with Service::Handle after
// the answer's delay. docs/mock-model.md.
//
// Delays are asynchronous timers, never a sleeping thread: a connection
// waiting for its answer holds a socket and a timer, no thread, so two
// threads keep thousands of requests in flight. One request at a time per
// connection (keep-alive, no pipelining ahead of the answer).
//
// Limits: headers 64 KiB (431), bodies 4 MiB (413 in the API's error format,
// decided from Content-Length before the body is read, or while a chunked
// body arrives), a request within `idle_timeout` of connecting or of the
// previous answer, at most `max_connections` at once (beyond, new
// connections are closed at once). A request that breaks the framing rules
// (core/http/framing.h) is a 400 in the API's error format, then the
// connection closes.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "core/result.h"
#include "volent/mockmodel/service.h"

namespace volent::mockmodel {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 0;  // 0: any free port
  size_t max_connections = 10000;
  int threads = 2;
  std::chrono::milliseconds idle_timeout{120000};
  // After Stop, how long requests in flight may take to be answered.
  std::chrono::milliseconds stop_grace{10000};
};

class Server {
 public:
  virtual ~Server() = default;

  // Binds and listens (nothing is served until Run). `service` must outlive
  // the server. Errors say which address failed and what to try.
  static core::Result<std::unique_ptr<Server>> Bind(Service& service, const ServerOptions& options);

  virtual int port() const = 0;
  // From now on SIGINT and SIGTERM stop the server (acted on once Run runs).
  virtual void CatchSignals() = 0;
  // Serves until Stop or a caught signal, then drains: idle connections
  // close at once, requests in flight (answers still being held included)
  // get `stop_grace` to be answered (with Connection: close); then Run
  // returns.
  virtual void Run() = 0;
  // Thread-safe; Run returns soon after.
  virtual void Stop() = 0;
};

}  // namespace volent::mockmodel
