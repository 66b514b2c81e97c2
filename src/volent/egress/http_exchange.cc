// One exchange with a pinned address over Boost.Beast (http_exchange.h).
#include "volent/egress/http_exchange.h"

#include <optional>
#include <type_traits>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include "volent/egress/ip_literal.h"

namespace volent::egress {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
namespace ssl = net::ssl;
using tcp = net::ip::tcp;

using TlsStream = beast::ssl_stream<beast::tcp_stream>;
constexpr uint32_t kMaxResponseHeaderBytes = 64 * 1024;

bool MethodCarriesBody(std::string_view method) { return method == "POST" || method == "PUT" || method == "PATCH"; }

// One exchange. Owned by the handlers of its pending operation: each
// completion handler holds a shared_ptr, so the session lives exactly as long
// as something can still happen to it. Every handler runs on the stream's
// strand (the stream's executor), so the stream's timer and its operations
// never run at once even when several threads run the io_context.
template <class Stream>
class Session : public std::enable_shared_from_this<Session<Stream>> {
 public:
  // The stream is made first: when that throws, `exchange` and `done` are
  // still the caller's.
  template <class... StreamArgs>
  Session(Exchange&& exchange, ExchangeDone&& done, StreamArgs&&... stream_args)
      : stream_(std::forward<StreamArgs>(stream_args)...),
        ex_(std::move(exchange)),
        done_(std::move(done)),
        where_(FormatEndpoint(ex_.address, ex_.url.port)) {}

  void Start() {
    net::dispatch(stream_.get_executor(), [self = this->shared_from_this()] { self->Connect(); });
  }

 private:
  static constexpr bool kTls = std::is_same_v<Stream, TlsStream>;

  void Finish(Outcome outcome, std::string reason) {
    if (!done_) return;  // once only
    result_.outcome = outcome;
    result_.reason = std::move(reason);
    ExchangeDone done = std::move(done_);
    done_ = nullptr;
    done(std::move(result_));
  }

  void Connect() {
    result_.pinned_address = where_;
    beast::get_lowest_layer(stream_).expires_at(ex_.deadline);
    beast::get_lowest_layer(stream_).async_connect(
        tcp::endpoint(ex_.address, static_cast<uint16_t>(ex_.url.port)),
        [self = this->shared_from_this()](beast::error_code ec) { self->OnConnect(ec); });
  }

  void OnConnect(beast::error_code ec) {
    if (ec) {
      Finish(Outcome::kNotSent, ec == beast::error::timeout ? "connecting to " + where_ + " took longer than the time limit"
                                                            : "could not connect to " + where_ + ": " + ec.message());
      return;
    }
    if constexpr (kTls) {
      if (ex_.url.host_kind == HostKind::kName &&
          !SSL_set_tlsext_host_name(stream_.native_handle(), ex_.url.host.c_str())) {
        Finish(Outcome::kNotSent, "could not set the TLS server name " + ex_.url.host);
        return;
      }
      stream_.set_verify_mode(ssl::verify_peer);
      stream_.set_verify_callback(ssl::host_name_verification(ex_.url.host));
      stream_.async_handshake(ssl::stream_base::client, [self = this->shared_from_this()](beast::error_code hec) {
        if (hec) {
          self->Finish(Outcome::kNotSent,
                       hec == beast::error::timeout
                           ? "the TLS handshake with " + self->where_ + " took longer than the time limit"
                           : "the TLS handshake with " + self->ex_.url.host + " (" + self->where_ +
                                 ") failed: " + hec.message());
          return;
        }
        self->Write();
      });
    } else {
      Write();
    }
  }

  void Write() {
    request_.version(11);
    request_.method_string(ex_.method);
    request_.target(ex_.url.target);
    request_.set(http::field::host, ex_.url.Authority());
    for (const auto& [name, value] : ex_.headers) request_.insert(name, value);
    request_.set(http::field::connection, "close");
    if (ex_.body) request_.body() = *ex_.body;
    if (!request_.body().empty() || MethodCarriesBody(ex_.method)) request_.content_length(request_.body().size());
    http::async_write(stream_, request_, [self = this->shared_from_this()](beast::error_code ec, size_t) {
      if (ec) {
        self->Finish(Outcome::kFailed,
                     ec == beast::error::timeout
                         ? "sending the request to " + self->where_ + " took longer than the time limit"
                         : "sending the request to " + self->where_ + " failed: " + ec.message());
        return;
      }
      self->Read();
    });
  }

  void Read() {
    request_ = {};  // sent: its body is not needed any more
    parser_.emplace();
    parser_->body_limit(static_cast<uint64_t>(ex_.max_response_bytes));
    parser_->header_limit(kMaxResponseHeaderBytes);
    if (ex_.method == "HEAD") parser_->skip(true);
    // The header first: Beast 1.74's eager whole-message read does not stop
    // at a Content-Length over the body limit when header and body arrive in
    // one piece, so the length is checked here, before any body is kept.
    http::async_read_header(stream_, buffer_, *parser_, [self = this->shared_from_this()](beast::error_code ec, size_t) {
      auto& parser = *self->parser_;
      if (!ec && parser.content_length() && *parser.content_length() > self->ex_.max_response_bytes &&
          !parser.is_done()) {
        ec = http::error::body_limit;
      }
      if (ec || parser.is_done()) {  // done: HEAD, 204, 304 have no body
        self->OnRead(ec);
        return;
      }
      http::async_read(self->stream_, self->buffer_, parser,
                       [self](beast::error_code rec, size_t) { self->OnRead(rec); });
    });
  }

  void OnRead(beast::error_code ec) {
    if (!ec && parser_->get().body().size() > ex_.max_response_bytes) ec = http::error::body_limit;
    if (ec == http::error::body_limit) {
      Finish(Outcome::kFailed, "the response body from " + where_ + " is larger than max_response_bytes (" +
                                   std::to_string(ex_.max_response_bytes) + " bytes)");
      return;
    }
    if (ec == http::error::header_limit) {
      Finish(Outcome::kFailed, "the response headers from " + where_ + " are larger than " +
                                   std::to_string(kMaxResponseHeaderBytes) + " bytes");
      return;
    }
    if (ec == beast::error::timeout) {
      Finish(Outcome::kFailed, "no whole response from " + where_ + " within the time limit");
      return;
    }
    if (ec == http::error::end_of_stream || ec == http::error::partial_message) {
      Finish(Outcome::kFailed, "the connection to " + where_ + " closed before a whole response arrived");
      return;
    }
    if (ec) {
      Finish(Outcome::kFailed, "reading the response from " + where_ + " failed: " + ec.message());
      return;
    }
    http::response<http::string_body>& response = parser_->get();
    result_.response.status = static_cast<int>(response.result_int());
    for (const auto& field : response) {
      result_.response.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
    }
    result_.response.body = std::move(response.body());
    // Closed now rather than when the last handler lets go of the session.
    beast::error_code ignored;
    beast::get_lowest_layer(stream_).socket().shutdown(tcp::socket::shutdown_both, ignored);
    beast::get_lowest_layer(stream_).close();
    Finish(Outcome::kAnswered, "");
  }

  Stream stream_;
  Exchange ex_;
  ExchangeDone done_;
  const std::string where_;
  SendResult result_;
  http::request<http::string_body> request_;
  beast::flat_buffer buffer_;
  std::optional<http::response_parser<http::string_body>> parser_;
};

}  // namespace

void StartExchange(net::io_context& ioc, Exchange exchange, ExchangeDone done) {
  SendResult refused;
  refused.outcome = Outcome::kNotSent;
  try {
    if (exchange.url.scheme == "https") {
      if (exchange.tls == nullptr) {
        refused.reason = "no TLS client context could be made (OpenSSL); https is unavailable";
        done(std::move(refused));
        return;
      }
      ssl::context& tls = *exchange.tls;
      std::make_shared<Session<TlsStream>>(std::move(exchange), std::move(done), net::make_strand(ioc), tls)->Start();
    } else {
      std::make_shared<Session<beast::tcp_stream>>(std::move(exchange), std::move(done), net::make_strand(ioc))
          ->Start();
    }
  } catch (const std::exception& e) {
    // Asio and OpenSSL report resource failures (no memory for an SSL
    // object) by throwing while the session is made; nothing was sent.
    // `done` is still ours when that happens (Session's constructor).
    refused.reason = std::string("the exchange could not start: ") + e.what();
    if (done) done(std::move(refused));
  }
}

}  // namespace volent::egress
