// One exchange with a pinned address over Boost.Beast (http_exchange.h).
#include "egress/http_exchange.h"

#include <optional>
#include <type_traits>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include "egress/ip_literal.h"

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

template <class Stream>
class Session {
 public:
  Session(Stream& stream, const Exchange& exchange, SendResult& result)
      : stream_(stream), ex_(exchange), result_(result), where_(FormatEndpoint(exchange.address, exchange.url->port)) {}

  void Start() {
    result_.pinned_address = where_;
    beast::get_lowest_layer(stream_).expires_at(ex_.deadline);
    beast::get_lowest_layer(stream_).async_connect(tcp::endpoint(ex_.address, static_cast<uint16_t>(ex_.url->port)),
                                                   [this](beast::error_code ec) { OnConnect(ec); });
  }

 private:
  static constexpr bool kTls = std::is_same_v<Stream, TlsStream>;

  void Finish(Outcome outcome, std::string reason) {
    result_.outcome = outcome;
    result_.reason = std::move(reason);
  }

  void OnConnect(beast::error_code ec) {
    if (ec) {
      Finish(Outcome::kNotSent, ec == beast::error::timeout ? "connecting to " + where_ + " took longer than the time limit"
                                                            : "could not connect to " + where_ + ": " + ec.message());
      return;
    }
    if constexpr (kTls) {
      if (ex_.url->host_kind == HostKind::kName &&
          !SSL_set_tlsext_host_name(stream_.native_handle(), ex_.url->host.c_str())) {
        Finish(Outcome::kNotSent, "could not set the TLS server name " + ex_.url->host);
        return;
      }
      stream_.set_verify_mode(ssl::verify_peer);
      stream_.set_verify_callback(ssl::host_name_verification(ex_.url->host));
      stream_.async_handshake(ssl::stream_base::client, [this](beast::error_code hec) {
        if (hec) {
          Finish(Outcome::kNotSent,
                 hec == beast::error::timeout
                     ? "the TLS handshake with " + where_ + " took longer than the time limit"
                     : "the TLS handshake with " + ex_.url->host + " (" + where_ + ") failed: " + hec.message());
          return;
        }
        Write();
      });
    } else {
      Write();
    }
  }

  void Write() {
    request_.version(11);
    request_.method_string(ex_.method);
    request_.target(ex_.url->target);
    request_.set(http::field::host, ex_.url->Authority());
    for (const auto& [name, value] : ex_.headers) request_.insert(name, value);
    request_.set(http::field::connection, "close");
    request_.body() = *ex_.body;
    if (!ex_.body->empty() || MethodCarriesBody(ex_.method)) request_.content_length(ex_.body->size());
    http::async_write(stream_, request_, [this](beast::error_code ec, size_t) {
      if (ec) {
        Finish(Outcome::kFailed, ec == beast::error::timeout
                                     ? "sending the request to " + where_ + " took longer than the time limit"
                                     : "sending the request to " + where_ + " failed: " + ec.message());
        return;
      }
      Read();
    });
  }

  void Read() {
    parser_.emplace();
    parser_->body_limit(static_cast<uint64_t>(ex_.max_response_bytes));
    parser_->header_limit(kMaxResponseHeaderBytes);
    if (ex_.method == "HEAD") parser_->skip(true);
    // The header first: Beast 1.74's eager whole-message read does not stop
    // at a Content-Length over the body limit when header and body arrive in
    // one piece, so the length is checked here, before any body is kept.
    http::async_read_header(stream_, buffer_, *parser_, [this](beast::error_code ec, size_t) {
      if (!ec && parser_->content_length() && *parser_->content_length() > ex_.max_response_bytes &&
          !parser_->is_done()) {
        ec = http::error::body_limit;
      }
      if (ec || parser_->is_done()) {  // done: HEAD, 204, 304 have no body
        OnRead(ec);
        return;
      }
      http::async_read(stream_, buffer_, *parser_, [this](beast::error_code rec, size_t) { OnRead(rec); });
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
    Finish(Outcome::kAnswered, "");
  }

  Stream& stream_;
  const Exchange& ex_;
  SendResult& result_;
  const std::string where_;
  http::request<http::string_body> request_;
  beast::flat_buffer buffer_;
  std::optional<http::response_parser<http::string_body>> parser_;
};

template <class Stream>
void Run(net::io_context& ioc, Stream& stream, const Exchange& exchange, SendResult& result) {
  Session<Stream> session(stream, exchange, result);
  session.Start();
  ioc.run();
}

}  // namespace

SendResult RunExchange(const Exchange& exchange) {
  SendResult result;
  result.outcome = Outcome::kFailed;
  try {
    net::io_context ioc(1);
    if (exchange.url->scheme == "https") {
      if (exchange.tls == nullptr) {
        result.outcome = Outcome::kNotSent;
        result.reason = "no TLS client context could be made (OpenSSL); https is unavailable";
        return result;
      }
      TlsStream stream(ioc, *exchange.tls);
      Run(ioc, stream, exchange, result);
    } else {
      beast::tcp_stream stream(ioc);
      Run(ioc, stream, exchange, result);
    }
  } catch (const std::exception& e) {
    // Asio reports resource failures (no descriptors, no memory for a
    // socket) by throwing; the caller gets a value.
    if (result.pinned_address.empty()) result.outcome = Outcome::kNotSent;
    result.reason = std::string("the exchange could not run: ") + e.what();
  }
  return result;
}

}  // namespace volent::egress
