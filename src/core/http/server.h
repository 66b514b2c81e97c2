// The one HTTP/1.1 connection skeleton of the project's servers (the control
// API, src/volent/control; MCP over HTTP, src/ampoule/mcp; the mock model,
// src/volent/mockmodel). docs/decisions/0029-http-server-skeleton.md.
//
// The skeleton owns everything about connections: listening on HOST:PORT,
// the accept loop with a cap on connections, overall and per client
// address (at a cap, the idle connection that has waited longest for a
// request header is closed to make room, one that never sent a request
// first; when none is idle the new one is closed at once), SIGINT/SIGTERM,
// the header timeout (a whole request header within `header_timeout` of
// connecting or of the previous answer), the read timeout (a whole request
// within `read_timeout`) and the write timeout (each write), the framing
// check on every request (framing.h: a
// request that breaks it is answered 400 with Connection: close, and nothing
// after it is read as a request), the header and body limits (431, 413),
// Expect: 100-continue, keep-alive (one request at a time, each answered
// before the next is read), and a graceful stop: Stop closes the listening
// socket and every idle connection at once; a connection whose request is
// being read or answered gets `stop_grace` to finish it (its answer says
// Connection: close), then Run returns whatever is left. With
// ServerOptions::tls every connection is TLS: the handshake comes first,
// under the header timeout, and the client certificate it verified (if any)
// is in the Reply's peer for each request of the connection. A HEAD
// request's answer is its head only: the status line and headers the
// handler made (Content-Length included), never body bytes (RFC 9110
// 9.3.2), whatever the handler put in the body.
//
// A Handler decides the answers. It gets each whole request with a Reply,
// and answers through the Reply at once or later, from any thread (a worker
// pool, a timer), as one response or as a chunked stream with heartbeats.
//
// Socket code lives in server.cc only, an inbound server in the socket
// audit's list (scripts/audit-sockets.sh): it listens and accepts, never
// connects or resolves.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <boost/beast/http.hpp>

#include "core/result.h"

namespace boost::asio::ssl {
class context;
}

namespace core::httpd {

using Request = boost::beast::http::request<boost::beast::http::string_body>;
using Response = boost::beast::http::response<boost::beast::http::string_body>;
// The status line and headers of a streamed response (Transfer-Encoding: chunked).
using StreamHead = boost::beast::http::response<boost::beast::http::empty_body>;

struct ServerOptions {
  std::string host = "127.0.0.1";  // an IP address, or "localhost"
  int port = 0;                    // 0: any free port
  // Put before the errors about host and port, naming the setting they came
  // from (MCP: "--http: ").
  std::string error_prefix;
  int threads = 1;  // I/O threads; each connection is a strand
  // At most this many connections at once, and from one client address.
  // A new connection at either cap closes the connection (of that address,
  // for the second) that has waited longest for a request header, one that
  // never sent a request before one that did; one being read or answered is
  // never closed for it. Nothing idle to close: the new one is closed.
  // docs/decisions/0048-operators-door.md.
  size_t max_connections = 1024;
  size_t max_connections_per_source = 0;  // 0: no cap per address
  size_t header_limit = 16 * 1024;
  uint64_t body_limit = 1 << 20;
  // A whole request header, from connecting (a TLS handshake gets as long,
  // before it) or from the previous answer: a client idle or trickling its
  // header is closed after this. The smaller of this and read_timeout
  // applies.
  std::chrono::milliseconds header_timeout{10000};
  std::chrono::milliseconds read_timeout{30000};   // a whole request, from connecting or the previous answer
  std::chrono::milliseconds write_timeout{30000};  // each write
  std::chrono::milliseconds stop_grace{10000};     // after Stop, for requests in flight
  // After a refusal (400, 413, 431) the client may still be sending: this
  // much is read and dropped, for this long, so it sees the answer rather
  // than a reset.
  size_t drain_bytes = 4 << 20;
  std::chrono::milliseconds drain_time{2000};
  // Set: every connection is TLS (server side) with this context, the
  // handshake first, within header_timeout; a failed handshake (plain HTTP,
  // a client certificate the context's verify mode refuses) just closes.
  // The context decides the versions, the server certificate and whether a
  // client certificate is asked for, required and against which CA.
  std::shared_ptr<boost::asio::ssl::context> tls;
};

// A request the skeleton refuses before any handler sees it; the handler
// words the answer (Handler::Refuse).
struct Refusal {
  enum class Kind {
    kFraming,         // 400: framing.h's rules; `reason` says which
    kMalformed,       // 400: not HTTP/1.1 Beast can parse
    kHeaderTooLarge,  // 431: over header_limit
    kBodyTooLarge,    // 413: over body_limit (from Content-Length, or while a chunked body arrives)
  };
  Kind kind;
  int status;
  std::string reason;
  std::string target;  // the request target when the start line was read, else empty
};

// The client certificate a TLS handshake verified (against the context's
// CA); `present` false on plain connections and when none was sent.
struct PeerCertificate {
  bool present = false;
  std::string subject;             // RFC 2253, e.g. "OU=approver,CN=alice"
  std::string sha256;              // lowercase hex SHA-256 of its DER
  std::vector<std::string> units;  // its subject's OU values, in order
  // Its validity, Unix seconds: a resumed TLS session carries the
  // certificate of its first handshake, unchecked since, so whoever
  // authenticates with it checks these against their own clock.
  int64_t not_before = 0;
  int64_t not_after = 0;
};

// Who is at the other end of a connection, as the transport knows it.
struct Peer {
  std::string address;  // the client's IP address as text; "" when unknown
  PeerCertificate certificate;
};

class Connection;
template <class Stream>
class StreamConnection;

// How a handler answers one request: exactly one Send, or one StartStream
// followed by one EndStream. Copyable and thread-safe; the calls run on the
// connection's strand in the order made. Keeps the connection alive while
// held; must not be used after the Server is destroyed.
class Reply {
 public:
  // Writes `response` after `hold` (a timer, no thread waits), then runs
  // `sent` (whether the write succeeded or not). The response keeps its own
  // version and Connection header, except that a stopping server closes.
  void Send(Response response, std::chrono::steady_clock::duration hold = {},
            std::function<void()> sent = {}) const;
  // Writes `head` now (with Transfer-Encoding: chunked), then `heartbeat` as
  // a chunk each `every` that nothing else was written, until EndStream.
  void StartStream(StreamHead head, std::chrono::steady_clock::duration every, std::string heartbeat) const;
  // Writes `last` as a chunk and ends the stream.
  void EndStream(std::string last) const;
  // The client of this request's connection (fixed for the connection's life).
  const Peer& peer() const;

 private:
  template <class Stream>
  friend class StreamConnection;
  explicit Reply(std::shared_ptr<Connection> connection) : connection_(std::move(connection)) {}
  std::shared_ptr<Connection> connection_;
};

class Handler {
 public:
  virtual ~Handler() = default;
  // A whole request within the limits, on the connection's strand: answer
  // it through `reply`, now or later. Must not block for long (other
  // connections may share the thread): slow work goes elsewhere.
  virtual void Handle(Request request, Reply reply) = 0;
  // The answer to a refused request (status refusal.status; the skeleton
  // sends it as HTTP/1.1 with Connection: close, then ends the connection).
  virtual Response Refuse(const Refusal& refusal) = 0;
  // Called once when the server begins to stop, on an I/O thread: a handler
  // with work queued may decline what has not started (and answer so).
  virtual void Stopping() {}
};

class Server {
 public:
  virtual ~Server() = default;

  // Binds and listens (nothing is served until Run). `handler` must outlive
  // the server. Errors say which address failed and what to try.
  static Result<std::unique_ptr<Server>> Bind(Handler& handler, const ServerOptions& options);

  virtual int port() const = 0;
  // Whether the bound address is a loopback address.
  virtual bool loopback() const = 0;
  // From now on SIGINT and SIGTERM stop the server (acted on once Run runs).
  virtual void CatchSignals() = 0;
  // Serves on options.threads threads until Stop or a caught signal, then
  // drains (above) and returns.
  virtual void Run() = 0;
  // Thread-safe; may be called before Run.
  virtual void Stop() = 0;
};

// A server whose public interface is Interface (port, CatchSignals, Run and
// Stop, as the control API's and the mock model's are), made of its
// handler and the skeleton.
template <class Interface, class HandlerType>
class HandlerServer : public Interface {
 public:
  template <class... Args>
  explicit HandlerServer(Args&&... handler_args) : handler_(std::forward<Args>(handler_args)...) {}

  Status Bind(const ServerOptions& options) {
    // Qualified: Interface may have a Server of its own.
    auto server = core::httpd::Server::Bind(handler_, options);
    if (!server.ok()) return server.status();
    server_ = std::move(*server);
    return Status::Ok();
  }

  int port() const override { return server_->port(); }
  void CatchSignals() override { server_->CatchSignals(); }
  void Run() override { server_->Run(); }
  void Stop() override { server_->Stop(); }

 private:
  HandlerType handler_;
  std::unique_ptr<core::httpd::Server> server_;
};

}  // namespace core::httpd
