#include "volent/mockmodel/server.h"


#include <optional>
#include <vector>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "core/http/drain.h"
#include "core/http/listener.h"
#include "core/http/read_header.h"

namespace volent::mockmodel {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

namespace {

constexpr size_t kMaxHeaderBytes = 64 * 1024;
// After an answer that ends a connection mid-request (413, 431, 400), the
// client may still be sending: read and drop that much, for this long, so
// it sees the answer instead of a reset.
constexpr size_t kDrainBytes = 8 * 1024 * 1024;
constexpr auto kDrainTime = std::chrono::seconds(2);

using Parser = http::request_parser<http::string_body>;
using WireResponse = http::response<http::string_body>;

class Connection;

// What every connection shares.
struct Shared : httpd::ConnectionRegistry<Connection> {
  Service* service = nullptr;
  ServerOptions options;
};

std::optional<std::string> Header(const http::request<http::string_body>& req, std::string_view name) {
  auto it = req.find(beast::string_view(name.data(), name.size()));
  if (it == req.end()) return std::nullopt;
  return std::string(it->value());
}

ServiceResponse PlainError(int status, const char* type, const std::string& message) {
  nlohmann::json body;
  body["type"] = "error";
  body["error"] = {{"type", type}, {"message", message}, {"param", nullptr}, {"code", nullptr}};
  ServiceResponse out;
  out.status = status;
  out.body = body.dump();
  return out;
}

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(tcp::socket socket, std::shared_ptr<Shared> shared)
      : stream_(std::move(socket)), timer_(stream_.get_executor()), shared_(std::move(shared)) {}

  ~Connection() { shared_->Unregister(self_it_); }

  void Start() {
    self_it_ = shared_->Register(weak_from_this());
    net::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->ReadHeader(); });
  }

  // On the strand: an idle connection (no request begun) closes now; one
  // with a request closes after its answer.
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
    parser_->header_limit(kMaxHeaderBytes);
    parser_->body_limit(kMaxBodyBytes);
    stream_.expires_after(shared_->options.idle_timeout);
    ampoule::httpd::AsyncReadCheckedHeader(
        stream_, buffer_, *parser_, kMaxHeaderBytes,
        [self = shared_from_this()](beast::error_code ec, ampoule::Status framing) {
          // Where this request ends is unknown: nothing after it is read.
          if (!framing.ok()) return self->Refuse(PlainError(400, "invalid_request_error", framing.message()));
          self->OnHeader(ec);
        });
  }

  void OnHeader(beast::error_code ec) {
    if (ec) return OnReadError(ec);
    busy_ = true;
    auto length = parser_->content_length();
    if (length && *length > kMaxBodyBytes) return Refuse(shared_->service->TooLarge(Target()));
    auto& req = parser_->get();
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

  std::string Target() const { return parser_ ? std::string(parser_->get().target()) : std::string(); }

  void OnReadError(beast::error_code ec) {
    if (ec == http::error::body_limit) return Refuse(shared_->service->TooLarge(Target()));
    if (ec == http::error::header_limit) {
      return Refuse(PlainError(431, "invalid_request_error", "the request's headers exceed 64 KiB"));
    }
    if (ec.category() == http::make_error_code(http::error::bad_target).category() &&
        ec != http::error::end_of_stream && ec != http::error::partial_message) {
      return Refuse(PlainError(400, "invalid_request_error", "the request is not well-formed HTTP/1.1"));
    }
    Close();  // the client left, timed out, or the socket failed: nobody to answer
  }

  void OnRead(beast::error_code ec) {
    if (ec) return OnReadError(ec);
    auto& req = parser_->get();
    ServiceRequest request;
    request.method = std::string(req.method_string());
    request.target = std::string(req.target());
    request.body = std::move(req.body());
    request.x_api_key = Header(req, "x-api-key");
    request.anthropic_version = Header(req, "anthropic-version");
    request.authorization = Header(req, "authorization");
    request.idempotency_key = Header(req, "idempotency-key");
    auto response = std::make_shared<ServiceResponse>(shared_->service->Handle(request));
    bool keep_alive = req.keep_alive();
    unsigned version = req.version();
    if (response->delay.count() <= 0) return Write(response, version, keep_alive, false);
    // The hold is a timer on this connection's strand: no thread waits.
    timer_.expires_after(response->delay);
    timer_.async_wait([self = shared_from_this(), response, version, keep_alive](beast::error_code) {
      self->Write(response, version, keep_alive, false);
    });
  }

  // Answers, then ends the connection (the rest of the request is unread).
  void Refuse(ServiceResponse response) {
    busy_ = true;
    Write(std::make_shared<ServiceResponse>(std::move(response)), 11, false, true);
  }

  void Write(std::shared_ptr<ServiceResponse> response, unsigned version, bool keep_alive, bool drain) {
    auto message = std::make_shared<WireResponse>(static_cast<http::status>(response->status), version);
    message->set(http::field::content_type, "application/json");
    for (const auto& [name, value] : response->headers) message->set(name, value);
    message->keep_alive(keep_alive && !drain && !shared_->stopping);
    message->body() = std::move(response->body);
    message->prepare_payload();
    stream_.expires_after(shared_->options.idle_timeout);
    http::async_write(stream_, *message,
                      [self = shared_from_this(), message, response, drain](beast::error_code ec, size_t) {
                        self->shared_->service->Finished(*response);
                        if (ec) return self->Close();
                        if (drain) return self->Drain();
                        if (!message->keep_alive()) return self->Close();
                        self->ReadHeader();
                      });
  }

  void Drain() { drainer_.Start(stream_, shared_from_this(), kDrainBytes, kDrainTime); }

  void Close() { httpd::CloseStream(stream_); }

  beast::tcp_stream stream_;
  net::steady_timer timer_;
  beast::flat_buffer buffer_;
  std::shared_ptr<Shared> shared_;
  std::optional<Parser> parser_;
  Shared::Handle self_it_;
  httpd::Drainer drainer_;
  bool busy_ = false;  // a request has begun and is not answered yet
};

class ServerImpl : public Server {
 public:
  ServerImpl(Service& service, const ServerOptions& options)
      : shared_(MakeShared(service, options)), listener_(shared_, options.stop_grace) {}

  ampoule::Status Listen() { return listener_.Listen(); }
  int port() const override { return listener_.port(); }
  void CatchSignals() override { listener_.CatchSignals(); }
  void Run() override { listener_.Run(); }
  void Stop() override { listener_.Stop(); }

 private:
  static std::shared_ptr<Shared> MakeShared(Service& service, const ServerOptions& options) {
    auto shared = std::make_shared<Shared>();
    shared->service = &service;
    shared->options = options;
    return shared;
  }

  std::shared_ptr<Shared> shared_;
  httpd::Listener<Connection, Shared> listener_;
};

}  // namespace

ampoule::Result<std::unique_ptr<Server>> Server::Bind(Service& service, const ServerOptions& options) {
  auto server = std::make_unique<ServerImpl>(service, options);
  AMP_RETURN_IF_ERROR(server->Listen());
  return std::unique_ptr<Server>(std::move(server));
}

}  // namespace volent::mockmodel
