// The network side of the HTTP transport (http.h): the project's connection
// skeleton (core/http/server.h: listening, HTTP/1.1 connections with
// keep-alive on one I/O thread, the framing check, a graceful stop) and a
// pool of worker threads that run the sessions' calls. The rules of the
// endpoint live in http_handler.h.
//
// Limits on clients (HttpLimits): a request (headers and body) must arrive
// within 60 s of the previous response or of connecting; each write must
// complete within 30 s; headers are limited to 16 KiB and bodies to
// max_body_bytes; at most 512 connections at once. While a tools/call runs,
// its event stream carries a comment every 15 s so intermediaries do not
// take the quiet for a dead connection.
#pragma once

#include <chrono>
#include <memory>

#include "ampoule/mcp/http.h"
#include "core/result.h"

namespace ampoule::mcp {

// How long and how many the server bears with clients (tests lower them).
struct HttpLimits {
  std::chrono::milliseconds read{60000};       // for a whole request, from the last response
  std::chrono::milliseconds write{30000};      // for each write
  std::chrono::milliseconds heartbeat{15000};  // between comments on a running call's stream
  // More connections are closed on arrival, so idle sockets cannot take the
  // descriptors the sandboxes need.
  int max_connections = 512;
  // After Stop, how long requests in flight (running calls, their streams)
  // may take to be answered.
  std::chrono::milliseconds stop_grace{10000};
};

class HttpServer {
 public:
  // Binds the listening socket (nothing is served until Run).
  static core::Result<std::unique_ptr<HttpServer>> Bind(std::shared_ptr<Server> server,
                                                  const HttpOptions& options,
                                                  HttpLimits limits = {});
  virtual ~HttpServer() = default;
  virtual int port() const = 0;
  // Serves until Stop (or, with handle_signals, SIGINT/SIGTERM), then
  // drains: idle connections close at once, requests in flight get
  // `stop_grace` to be answered (with Connection: close). Returns once the
  // calls already running have finished; calls still queued never start
  // (each is answered with a JSON-RPC error saying the server is stopping).
  virtual void Run(bool handle_signals) = 0;
  // Starts catching SIGINT and SIGTERM now (they stop Run); Run(true) does
  // this itself, but a signal sent between Bind and Run would otherwise end the
  // process by the default action (status 143, not 0).
  virtual void CatchSignals() = 0;
  // Thread-safe; may be called before Run.
  virtual void Stop() = 0;
};

}  // namespace ampoule::mcp
