#include "mockmodel/server.h"

#include <sys/resource.h>

#include <atomic>
#include <csignal>
#include <list>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

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
struct Shared {
  Service* service = nullptr;
  ServerOptions options;
  std::atomic<size_t> connections{0};
  std::atomic<bool> stopping{false};
  std::mutex mu;                              // guards live
  std::list<std::weak_ptr<Connection>> live;  // for Stop to close idle ones
  std::function<void()> on_last_closed;       // set by the server
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

  ~Connection() {
    {
      std::lock_guard lock(shared_->mu);
      shared_->live.erase(self_it_);
    }
    if (--shared_->connections == 0 && shared_->stopping) shared_->on_last_closed();
  }

  void Start() {
    {
      std::lock_guard lock(shared_->mu);
      self_it_ = shared_->live.insert(shared_->live.end(), weak_from_this());
    }
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
    http::async_read_header(stream_, buffer_, *parser_,
                            [self = shared_from_this()](beast::error_code ec, size_t) { self->OnHeader(ec); });
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

  // Half-closes and reads what the client still sends, then closes.
  void Drain() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.expires_after(kDrainTime);
    drained_ = 0;
    DrainSome();
  }

  void DrainSome() {
    scratch_.resize(16 * 1024);
    stream_.async_read_some(net::buffer(scratch_), [self = shared_from_this()](beast::error_code ec, size_t n) {
      self->drained_ += n;
      if (ec || self->drained_ > kDrainBytes) return self->Close();
      self->DrainSome();
    });
  }

  void Close() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.socket().close(ignored);
  }

  beast::tcp_stream stream_;
  net::steady_timer timer_;
  beast::flat_buffer buffer_;
  std::shared_ptr<Shared> shared_;
  std::optional<Parser> parser_;
  std::list<std::weak_ptr<Connection>>::iterator self_it_;
  std::vector<char> scratch_;
  size_t drained_ = 0;
  bool busy_ = false;  // a request has begun and is not answered yet
};

class ServerImpl : public Server {
 public:
  ServerImpl(Service& service, const ServerOptions& options)
      : ioc_(options.threads), acceptor_(ioc_), retry_(ioc_), grace_(ioc_), shared_(std::make_shared<Shared>()) {
    shared_->service = &service;
    shared_->options = options;
    shared_->on_last_closed = [this] { net::post(ioc_, [this] { grace_.cancel(); }); };
  }

  ampoule::Status Listen() {
    const auto& options = shared_->options;
    std::string host = options.host == "localhost" ? "127.0.0.1" : options.host;
    beast::error_code ec;
    auto address = net::ip::make_address(host, ec);
    if (ec) {
      return ampoule::Error{"listen address '" + options.host +
                            "' is not an IP address; use 127.0.0.1 (this machine only) or an address of this machine"};
    }
    if (options.port < 0 || options.port > 65535) {
      return ampoule::Error{"port " + std::to_string(options.port) + " is out of range (0-65535)"};
    }
    tcp::endpoint endpoint(address, static_cast<unsigned short>(options.port));
    acceptor_.open(endpoint.protocol(), ec);
    if (!ec) acceptor_.set_option(net::socket_base::reuse_address(true), ec);
    if (!ec) acceptor_.bind(endpoint, ec);
    if (!ec) acceptor_.listen(net::socket_base::max_listen_connections, ec);
    if (ec) {
      return ampoule::Error{"cannot listen on " + options.host + ":" + std::to_string(options.port) + ": " +
                            ec.message() + " (pick another port, or 0 for any free one)"};
    }
    port_ = acceptor_.local_endpoint().port();
    return ampoule::Status::Ok();
  }

  int port() const override { return port_; }

  void CatchSignals() override {
    if (signals_) return;
    signals_.emplace(ioc_, SIGINT, SIGTERM);
    signals_->async_wait([this](beast::error_code ec, int) {
      if (!ec) Stop();
    });
  }

  void Run() override {
    Accept();
    std::vector<std::thread> extra;
    for (int i = 1; i < shared_->options.threads; ++i) extra.emplace_back([this] { ioc_.run(); });
    ioc_.run();
    for (auto& t : extra) t.join();
  }

  void Stop() override {
    net::post(ioc_, [this] {
      if (shared_->stopping.exchange(true)) return;
      beast::error_code ignored;
      acceptor_.close(ignored);
      retry_.cancel();
      if (signals_) signals_->cancel();
      std::vector<std::shared_ptr<Connection>> open;
      {
        std::lock_guard lock(shared_->mu);
        for (auto& weak : shared_->live) {
          if (auto c = weak.lock()) open.push_back(std::move(c));
        }
      }
      if (open.empty() && shared_->connections == 0) return;
      for (auto& c : open) c->CloseIfIdle();
      // Answers being held get this long; then everything stops.
      grace_.expires_after(shared_->options.stop_grace);
      grace_.async_wait([this](beast::error_code ec) {
        if (!ec) ioc_.stop();
      });
    });
  }

 private:
  void Accept() {
    acceptor_.async_accept(net::make_strand(ioc_), [this](beast::error_code ec, tcp::socket socket) {
      if (!acceptor_.is_open() || shared_->stopping) return;
      if (ec) {
        // Out of descriptors, say: wait a little rather than spin.
        retry_.expires_after(std::chrono::milliseconds(100));
        retry_.async_wait([this](beast::error_code ec) {
          if (!ec) Accept();
        });
        return;
      }
      if (shared_->connections >= shared_->options.max_connections) {
        beast::error_code ignored;
        socket.close(ignored);
      } else {
        ++shared_->connections;
        std::make_shared<Connection>(std::move(socket), shared_)->Start();
      }
      Accept();
    });
  }

  net::io_context ioc_;
  tcp::acceptor acceptor_;
  net::steady_timer retry_;
  net::steady_timer grace_;
  std::optional<net::signal_set> signals_;
  std::shared_ptr<Shared> shared_;
  int port_ = 0;
};

}  // namespace

ampoule::Result<std::unique_ptr<Server>> Server::Bind(Service& service, const ServerOptions& options) {
  auto server = std::make_unique<ServerImpl>(service, options);
  AMP_RETURN_IF_ERROR(server->Listen());
  return std::unique_ptr<Server>(std::move(server));
}

size_t RaiseDescriptorLimit() {
  struct rlimit limit {};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return 0;
  if (limit.rlim_cur < limit.rlim_max) {
    struct rlimit raised = limit;
    raised.rlim_cur = limit.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
  }
  return static_cast<size_t>(limit.rlim_cur);
}

}  // namespace volent::mockmodel
