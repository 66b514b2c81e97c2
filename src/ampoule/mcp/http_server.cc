#include "ampoule/mcp/http_server.h"

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <deque>
#include <optional>
#include <string>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "core/http/read_header.h"
#include "ampoule/mcp/http_handler.h"
#include "ampoule/mcp/http_session_table.h"

namespace ampoule::mcp {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

namespace {

constexpr size_t kHeaderLimit = 16 * 1024;
// Tool calls block a worker for up to a minute each; this many run at once,
// the rest wait their turn.
constexpr size_t kWorkers = 32;

// What every connection shares.
struct Shared {
  std::shared_ptr<Server> server;
  HttpSessionTable sessions;
  HttpHandlerConfig config;
  size_t max_body_bytes;
  HttpLimits limits;
  std::atomic<int> connections{0};
  net::thread_pool* workers;

  Shared(std::shared_ptr<Server> s, size_t max_sessions) : server(std::move(s)), sessions(max_sessions) {}
};

std::string Chunk(const std::string& data) {
  char size[32];
  std::snprintf(size, sizeof size, "%zx\r\n", data.size());
  return size + data + "\r\n";
}

// One client connection: requests one after another (keep-alive), each
// answered before the next is read.
class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(tcp::socket socket, std::shared_ptr<Shared> shared)
      : stream_(std::move(socket)), heartbeat_(stream_.get_executor()), shared_(std::move(shared)) {
    ++shared_->connections;
  }
  ~Connection() { --shared_->connections; }

  void Start() {
    net::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->ReadHeader(); });
  }

 private:
  void ReadHeader() {
    parser_.emplace();
    parser_->header_limit(kHeaderLimit);
    parser_->body_limit(shared_->max_body_bytes);
    stream_.expires_after(shared_->limits.read);
    httpd::AsyncReadCheckedHeader(stream_, buffer_, *parser_, kHeaderLimit,
                                  [self = shared_from_this()](beast::error_code ec, Status framing) {
                                    if (!framing.ok()) return self->RefuseFraming(framing.message());
                                    self->OnHeader(ec);
                                  });
  }

  // Where this request ends is unknown: answer once and close, reading
  // nothing more from the connection.
  void RefuseFraming(const std::string& reason) {
    Write(ErrorResponse(http::status::bad_request, -32000, "bad request: " + reason, 11, false));
  }

  void OnHeader(beast::error_code ec) {
    if (ec) return OnReadError(ec);
    auto& req = parser_->get();
    auto expect = req.find(http::field::expect);
    if (expect != req.end() && beast::iequals(expect->value(), "100-continue") &&
        !parser_->is_done()) {
      // The client waits for this before sending the body.
      auto cont = std::make_shared<std::string>("HTTP/1.1 100 Continue\r\n\r\n");
      net::async_write(stream_, net::buffer(*cont),
                       [self = shared_from_this(), cont](beast::error_code ec, size_t) {
                         if (ec) return self->Close();
                         self->ReadBody();
                       });
      return;
    }
    ReadBody();
  }

  void ReadBody() {
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code ec, size_t) { self->OnRead(ec); });
  }

  void OnReadError(beast::error_code ec) {
    if (ec == http::error::end_of_stream || ec == http::error::partial_message) return Close();
    if (ec.category() != beast::http::make_error_code(http::error::bad_target).category()) {
      return Close();  // the socket failed or timed out: nobody to answer
    }
    // Malformed HTTP: answer once, then close, since where the next request
    // would start is unknown.
    HttpResponse res;
    if (ec == http::error::body_limit) {
      res = ErrorResponse(http::status::payload_too_large, -32000,
                          "payload too large: the message is bigger than this server accepts",
                          11, false);
    } else if (ec == http::error::header_limit) {
      res = ErrorResponse(http::status::request_header_fields_too_large, -32000,
                          "request header fields too large", 11, false);
    } else {
      res = ErrorResponse(http::status::bad_request, -32000, "bad request: malformed HTTP", 11, false);
    }
    Write(std::move(res));
  }

  void OnRead(beast::error_code ec) {
    if (ec) return OnReadError(ec);
    HttpRequest req = parser_->release();
    HttpRouted routed = Route(req, *shared_->server, shared_->sessions, shared_->config);
    if (routed.response) return Write(std::move(*routed.response));

    auto dispatch = std::make_shared<HttpDispatch>(std::move(*routed.dispatch));
    // HTTP/1.0 has no chunked encoding: such a client gets the event stream
    // whole, once the call is done.
    const bool live = dispatch->stream && dispatch->version == 11;
    stream_.expires_never();  // the call may take a minute; no read is pending
    if (live) StartStream(*dispatch);

    auto executor = stream_.get_executor();
    auto shared = shared_;
    net::post(*shared_->workers, [self = shared_from_this(), dispatch, executor, shared, live] {
      auto reply = RunDispatch(*dispatch);
      auto res = std::make_shared<HttpResponse>(Complete(*dispatch, reply, shared->sessions));
      net::post(executor, [self, res, live] {
        if (live) {
          self->FinishStream(res->body());
        } else {
          self->Write(std::move(*res));
        }
      });
    });
  }

  // A whole response; then the next request, or the end.
  void Write(HttpResponse res) {
    auto message = std::make_shared<HttpResponse>(std::move(res));
    stream_.expires_after(shared_->limits.write);
    http::async_write(stream_, *message, [self = shared_from_this(), message](beast::error_code ec, size_t) {
      if (ec) return self->Close();
      self->Next(message->keep_alive());
    });
  }

  void Next(bool keep_alive) {
    if (!keep_alive) return Close();
    ReadHeader();
  }

  // The event stream of a running tools/call: headers now, a comment every
  // heartbeat interval, the event when the call is done.
  void StartStream(const HttpDispatch& dispatch) {
    stream_header_.emplace(StreamHeader(dispatch));
    header_serializer_.emplace(*stream_header_);
    stream_keep_alive_ = stream_header_->keep_alive();
    stream_done_ = false;
    failed_ = false;
    writing_ = true;
    stream_.expires_after(shared_->limits.write);
    http::async_write_header(stream_, *header_serializer_,
                             [self = shared_from_this()](beast::error_code ec, size_t) {
                               self->writing_ = false;
                               if (ec) return self->Fail();
                               self->stream_.expires_never();
                               self->Pump();
                             });
    ArmHeartbeat();
  }

  void ArmHeartbeat() {
    heartbeat_.expires_after(shared_->limits.heartbeat);
    heartbeat_.async_wait([self = shared_from_this()](beast::error_code ec) {
      if (ec || self->stream_done_ || self->failed_) return;
      if (!self->writing_ && self->out_.empty()) self->Enqueue(Chunk(": keep-alive\n\n"));
      self->ArmHeartbeat();
    });
  }

  void FinishStream(const std::string& event) {
    heartbeat_.cancel();
    if (failed_) return;  // the client left; the answer has nowhere to go
    stream_done_ = true;
    out_.push_back(Chunk(event));
    out_.push_back("0\r\n\r\n");
    Pump();
  }

  void Enqueue(std::string bytes) {
    out_.push_back(std::move(bytes));
    Pump();
  }

  void Pump() {
    if (writing_ || failed_) return;
    if (out_.empty()) {
      if (stream_done_) {
        stream_done_ = false;
        stream_header_.reset();
        header_serializer_.reset();
        Next(stream_keep_alive_);
      }
      return;
    }
    writing_ = true;
    stream_.expires_after(shared_->limits.write);
    net::async_write(stream_, net::buffer(out_.front()),
                     [self = shared_from_this()](beast::error_code ec, size_t) {
                       self->writing_ = false;
                       if (ec) return self->Fail();
                       self->out_.pop_front();
                       self->stream_.expires_never();
                       self->Pump();
                     });
  }

  void Fail() {
    failed_ = true;
    out_.clear();
    heartbeat_.cancel();
    Close();
  }

  void Close() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.socket().close(ignored);
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  net::steady_timer heartbeat_;
  std::shared_ptr<Shared> shared_;
  std::optional<http::request_parser<http::string_body>> parser_;

  std::optional<http::response<http::empty_body>> stream_header_;
  std::optional<http::response_serializer<http::empty_body>> header_serializer_;
  std::deque<std::string> out_;
  bool writing_ = false;
  bool stream_done_ = false;
  bool stream_keep_alive_ = true;
  bool failed_ = false;
};

class HttpServerImpl : public HttpServer {
 public:
  HttpServerImpl(std::shared_ptr<Server> server, const HttpOptions& options)
      : shared_(std::make_shared<Shared>(std::move(server), options.max_sessions)),
        acceptor_(ioc_),
        retry_(ioc_),
        workers_(kWorkers) {
    shared_->config.allowed_origins = options.allowed_origins;
    shared_->max_body_bytes = options.max_body_bytes;
    shared_->workers = &workers_;
  }

  void set_limits(const HttpLimits& limits) { shared_->limits = limits; }

  Status Listen(const HttpOptions& options) {
    std::string host = options.host == "localhost" ? "127.0.0.1" : options.host;
    beast::error_code ec;
    auto address = net::ip::make_address(host, ec);
    if (ec) {
      return Error{"--http: '" + options.host +
                   "' is not an IP address; use 127.0.0.1 (this machine only) or an address of "
                   "this machine"};
    }
    if (options.port < 0 || options.port > 65535) {
      return Error{"--http: port " + std::to_string(options.port) + " is out of range (0-65535)"};
    }
    tcp::endpoint endpoint(address, static_cast<unsigned short>(options.port));
    acceptor_.open(endpoint.protocol(), ec);
    if (!ec) acceptor_.set_option(net::socket_base::reuse_address(true), ec);
    if (!ec) acceptor_.bind(endpoint, ec);
    if (!ec) acceptor_.listen(net::socket_base::max_listen_connections, ec);
    if (ec) {
      return Error{"cannot listen on " + options.host + ":" + std::to_string(options.port) + ": " +
                   ec.message() + " (pick another port, or 0 for any free one)"};
    }
    port_ = acceptor_.local_endpoint().port();
    shared_->config.port = port_;
    shared_->config.loopback_only = address.is_loopback();
    return Status::Ok();
  }

  int port() const override { return port_; }

  void CatchSignals() override {
    if (signals_) return;
    // Caught from here on; acted on once Run runs.
    signals_.emplace(ioc_, SIGINT, SIGTERM);
    signals_->async_wait([this](beast::error_code ec, int) {
      if (!ec) Stop();
    });
  }

  void Run(bool handle_signals) override {
    if (handle_signals) CatchSignals();
    Accept();
    ioc_.run();
    // Calls already running finish (their sandboxes end cleanly); calls
    // still queued never start. Their answers are dropped with the
    // connections.
    workers_.stop();
    workers_.join();
  }

  void Stop() override {
    net::post(ioc_, [this] {
      beast::error_code ignored;
      acceptor_.close(ignored);
      ioc_.stop();
    });
    ioc_.stop();
  }

 private:
  void Accept() {
    acceptor_.async_accept(net::make_strand(ioc_), [this](beast::error_code ec, tcp::socket socket) {
      if (!acceptor_.is_open()) return;
      if (ec) {
        // Out of descriptors, say: wait a little rather than spin.
        retry_.expires_after(std::chrono::milliseconds(100));
        retry_.async_wait([this](beast::error_code) { Accept(); });
        return;
      }
      if (shared_->connections >= shared_->limits.max_connections) {
        beast::error_code ignored;
        socket.close(ignored);
      } else {
        std::make_shared<Connection>(std::move(socket), shared_)->Start();
      }
      Accept();
    });
  }

  net::io_context ioc_{1};
  std::shared_ptr<Shared> shared_;
  tcp::acceptor acceptor_;
  net::steady_timer retry_;
  std::optional<net::signal_set> signals_;
  net::thread_pool workers_;
  int port_ = 0;
};

}  // namespace

Result<std::unique_ptr<HttpServer>> HttpServer::Bind(std::shared_ptr<Server> server,
                                                     const HttpOptions& options,
                                                     HttpLimits limits) {
  auto impl = std::make_unique<HttpServerImpl>(std::move(server), options);
  impl->set_limits(limits);
  AMP_RETURN_IF_ERROR(impl->Listen(options));
  return std::unique_ptr<HttpServer>(std::move(impl));
}

Status ServeHttp(std::shared_ptr<Server> server, const HttpOptions& options) {
  auto bound = HttpServer::Bind(std::move(server), options);
  if (!bound.ok()) return bound.status();
  HttpServer& http_server = **bound;
  // Before saying where it listens: a client may signal as soon as it knows.
  http_server.CatchSignals();
  std::string host = options.host.find(':') != std::string::npos ? "[" + options.host + "]" : options.host;
  std::fprintf(stderr, "ampoule mcp: listening on http://%s:%d/mcp\n", host.c_str(), http_server.port());
  std::fflush(stderr);
  if (options.on_listening) options.on_listening(http_server.port());
  http_server.Run(/*handle_signals=*/true);
  return Status::Ok();
}

}  // namespace ampoule::mcp
