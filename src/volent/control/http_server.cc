#include "volent/control/http_server.h"

#include <optional>
#include <vector>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "volent/control/wire.h"
#include "core/http/drain.h"
#include "core/http/listener.h"
#include "core/http/read_header.h"

namespace volent::control {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

namespace {

// After an answer that ends a connection mid-request (413, 431, 400), the
// client may still be sending: read and drop that much, for this long, so
// it sees the answer instead of a reset.
constexpr size_t kDrainBytes = 4 * 1024 * 1024;
constexpr auto kDrainTime = std::chrono::seconds(2);
// How long Stop waits for requests in flight before it gives up on them.
constexpr auto kStopGrace = std::chrono::seconds(10);

class Connection;

// What every connection shares.
struct Shared : httpd::ConnectionRegistry<Connection> {
  const ControlApi* api = nullptr;
  ServerOptions options;
};

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(tcp::socket socket, std::shared_ptr<Shared> shared)
      : stream_(std::move(socket)), shared_(std::move(shared)) {}

  ~Connection() { shared_->Unregister(self_it_); }

  void Start() {
    self_it_ = shared_->Register(weak_from_this());
    net::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->ReadHeader(); });
  }

  // On the strand: an idle connection (no request begun) closes now; a busy
  // one closes after its answer.
  void CloseIfIdle() {
    net::dispatch(stream_.get_executor(), [self = shared_from_this()] {
      if (!self->busy_ && self->buffer_.size() == 0) self->Close();
    });
  }

 private:
  void ReadHeader() {
    if (shared_->stopping) return Close();
    busy_ = false;
    parser_.emplace();
    ConfigureParser(*parser_);
    // One deadline for the whole request, header and body.
    stream_.expires_after(shared_->options.request_timeout);
    ampoule::httpd::AsyncReadCheckedHeader(stream_, buffer_, *parser_, kMaxHeaderBytes,
                                           [self = shared_from_this()](beast::error_code ec, ampoule::Status framing) {
                                             // Where this request ends is unknown: nothing after it is read.
                                             if (!framing.ok()) return self->Refuse(400, framing.message());
                                             self->OnHeader(ec);
                                           });
  }

  void OnHeader(beast::error_code ec) {
    if (ec) return OnReadError(ec);
    busy_ = true;
    auto& req = parser_->get();
    auto length = parser_->content_length();
    if (length && *length > kMaxBodyBytes) return Refuse(413, "the body exceeds 1 MiB");
    auto expect = req.find(http::field::expect);
    if (expect != req.end() && beast::iequals(expect->value(), "100-continue") && !parser_->is_done()) {
      auto cont = std::make_shared<std::string>("HTTP/1.1 100 Continue\r\n\r\n");
      net::async_write(stream_, net::buffer(*cont), [self = shared_from_this(), cont](beast::error_code ec, size_t) {
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
    if (ec == http::error::body_limit) return Refuse(413, "the body exceeds 1 MiB");
    if (ec == http::error::header_limit) return Refuse(431, "the request's headers exceed 16 KiB");
    if (ec.category() == http::make_error_code(http::error::bad_target).category() &&
        ec != http::error::end_of_stream && ec != http::error::partial_message) {
      return Refuse(400, "the request is not well-formed HTTP/1.1");
    }
    Close();  // the client left, timed out, or the socket failed: nobody to answer
  }

  void OnRead(beast::error_code ec) {
    if (ec) return OnReadError(ec);
    const WireRequest& wire = parser_->get();
    Response response = shared_->api->Dispatch(FromWire(wire));
    bool keep_alive = wire.keep_alive() && !shared_->stopping;
    Write(ToWire(response, wire.version(), keep_alive), false);
  }

  // Answers, then ends the connection (the rest of the request is unread).
  void Refuse(int status, std::string detail) {
    busy_ = true;
    // The start line may have been read even when the headers failed.
    std::string target = parser_ ? std::string(parser_->get().target()) : "";
    Request request;
    SplitTarget(target, request);
    Response response = ProblemResponse(MakeProblem(status, std::move(detail), request.path));
    Write(ToWire(response, 11, false), true);
  }

  void Write(WireResponse response, bool drain) {
    auto message = std::make_shared<WireResponse>(std::move(response));
    stream_.expires_after(shared_->options.request_timeout);
    http::async_write(stream_, *message, [self = shared_from_this(), message, drain](beast::error_code ec, size_t) {
      if (ec) return self->Close();
      if (drain) return self->Drain();
      if (!message->keep_alive()) return self->Close();
      self->ReadHeader();
    });
  }

  void Drain() { drainer_.Start(stream_, shared_from_this(), kDrainBytes, kDrainTime); }

  void Close() { httpd::CloseStream(stream_); }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_{kMaxHeaderBytes + 8192};
  std::shared_ptr<Shared> shared_;
  std::optional<WireParser> parser_;
  Shared::Handle self_it_;
  httpd::Drainer drainer_;
  bool busy_ = false;  // a request has begun and is not answered yet
};

class ServerImpl : public HttpServer {
 public:
  ServerImpl(const ControlApi& api, const ServerOptions& options)
      : shared_(MakeShared(api, options)), listener_(shared_, kStopGrace) {}

  ampoule::Status Listen() { return listener_.Listen(); }
  int port() const override { return listener_.port(); }
  void CatchSignals() override { listener_.CatchSignals(); }
  void Run() override { listener_.Run(); }
  void Stop() override { listener_.Stop(); }

 private:
  static std::shared_ptr<Shared> MakeShared(const ControlApi& api, const ServerOptions& options) {
    auto shared = std::make_shared<Shared>();
    shared->api = &api;
    shared->options = options;
    return shared;
  }

  std::shared_ptr<Shared> shared_;
  httpd::Listener<Connection, Shared> listener_;
};

}  // namespace

ampoule::Result<std::unique_ptr<HttpServer>> HttpServer::Bind(const ControlApi& api,
                                                              const ServerOptions& options) {
  auto server = std::make_unique<ServerImpl>(api, options);
  AMP_RETURN_IF_ERROR(server->Listen());
  return std::unique_ptr<HttpServer>(std::move(server));
}

}  // namespace volent::control
