// A small HTTP/1.1 server for the egress gate's tests: listens on a loopback
// address of the caller's choice (127.0.0.1, 127.0.0.2, ..., ::1: Linux
// routes all of 127.0.0.0/8 to lo) and port (0: any), answers every request
// with what the handler says, and records what arrived and how many
// connections came (for a server an attack aims at, one is already a
// failure). One thread, asynchronous, so hundreds of connections can be open
// at once; with Hold(n) it answers nothing until n requests have arrived,
// which shows they were in flight together. When the address cannot be
// bound (no IPv6 loopback, port taken), ok() is false and nothing listens.
// Test code only (header-only, included by *_test.cc).
#pragma once

#include <algorithm>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ip/v6_only.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "volent/egress/gate.h"

namespace volent::egress::testing {

struct Seen {
  std::string method;
  std::string target;
  Headers headers;
  std::string body;
  bool Has(std::string_view name) const {
    for (const auto& [n, v] : headers) {
      if (boost::beast::iequals(n, boost::beast::string_view(name.data(), name.size()))) return true;
    }
    return false;
  }
  std::string Get(std::string_view name) const {
    for (const auto& [n, v] : headers) {
      if (boost::beast::iequals(n, boost::beast::string_view(name.data(), name.size()))) return v;
    }
    return "";
  }
  size_t Count(std::string_view name) const {
    size_t count = 0;
    for (const auto& [n, v] : headers) {
      if (boost::beast::iequals(n, boost::beast::string_view(name.data(), name.size()))) ++count;
    }
    return count;
  }
};

struct Reply {
  int status = 200;
  Headers headers;
  std::string body = "hello";
  bool silent = false;   // read the request, never answer
  bool chunked = false;  // Transfer-Encoding: chunked instead of Content-Length
};

class TestServer {
 public:
  using Handler = std::function<Reply(const Seen&)>;

  explicit TestServer(std::string address = "127.0.0.1", Handler handler = nullptr, int port = 0)
      : address_(std::move(address)), handler_(std::move(handler)), acceptor_(ioc_) {
    namespace net = boost::asio;
    boost::system::error_code ec;
    const net::ip::address ip = net::ip::make_address(address_, ec);
    if (ec) return;
    net::ip::tcp::endpoint endpoint(ip, static_cast<unsigned short>(port));
    acceptor_.open(endpoint.protocol(), ec);
    if (ec) return;
    acceptor_.set_option(net::socket_base::reuse_address(true), ec);
    if (ip.is_v6()) acceptor_.set_option(net::ip::v6_only(true), ec);
    acceptor_.bind(endpoint, ec);
    if (ec) return;
    acceptor_.listen(net::socket_base::max_listen_connections, ec);
    if (ec) return;
    port_ = acceptor_.local_endpoint(ec).port();
    if (ec) return;
    Accept();
    thread_ = std::thread([this] { ioc_.run(); });
  }
  ~TestServer() {
    if (!thread_.joinable()) return;
    boost::asio::post(ioc_, [this] {
      boost::system::error_code ec;
      acceptor_.close(ec);
      ioc_.stop();
    });
    thread_.join();
  }
  TestServer(const TestServer&) = delete;
  TestServer& operator=(const TestServer&) = delete;

  bool ok() const { return thread_.joinable(); }
  int port() const { return port_; }
  // "127.0.0.1:PORT", "[::1]:PORT".
  std::string HostPort() const {
    const bool v6 = address_.find(':') != std::string::npos;
    return (v6 ? "[" + address_ + "]" : address_) + ":" + std::to_string(port_);
  }
  std::string Origin() const { return "http://" + HostPort(); }
  std::string Url(std::string_view path = "/") const { return Origin() + std::string(path); }

  // Answers nothing until `count` requests have arrived (then all of them).
  void Hold(size_t count) {
    std::lock_guard<std::mutex> lock(mutex_);
    hold_until_ = count;
  }
  // Answers what is held now and stops holding.
  void Release() {
    boost::asio::post(ioc_, [this] {
      std::vector<std::shared_ptr<Connection>> release;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        hold_until_ = 0;
        release.swap(held_);
      }
      Write(release);
    });
  }
  std::vector<Seen> Requests() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return seen_;
  }
  size_t most_held() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return most_held_;
  }
  // Connections accepted, whether or not a request came on them.
  int connections() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return connections_;
  }

 private:
  struct Connection {
    explicit Connection(boost::asio::ip::tcp::socket s) : socket(std::move(s)) {}
    boost::asio::ip::tcp::socket socket;
    boost::beast::flat_buffer buffer;
    boost::beast::http::request<boost::beast::http::string_body> request;
    boost::beast::http::response<boost::beast::http::string_body> response;
  };

  void Accept() {
    acceptor_.async_accept([this](boost::system::error_code ec, boost::asio::ip::tcp::socket socket) {
      if (ec) return;  // closed
      {
        std::lock_guard<std::mutex> lock(mutex_);
        ++connections_;
      }
      auto c = std::make_shared<Connection>(std::move(socket));
      boost::beast::http::async_read(c->socket, c->buffer, c->request,
                                     [this, c](boost::system::error_code rec, size_t) { OnRequest(c, rec); });
      Accept();
    });
  }

  void OnRequest(const std::shared_ptr<Connection>& c, boost::system::error_code ec) {
    if (ec) return;
    Seen seen;
    seen.method = std::string(c->request.method_string());
    seen.target = std::string(c->request.target());
    for (const auto& f : c->request) seen.headers.emplace_back(std::string(f.name_string()), std::string(f.value()));
    seen.body = c->request.body();
    Reply reply = handler_ ? handler_(seen) : Reply{};
    std::vector<std::shared_ptr<Connection>> release;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      seen_.push_back(seen);
      if (reply.silent) {
        silent_.push_back(c);  // kept open until the server goes
        return;
      }
      Prepare(*c, reply);
      held_.push_back(c);
      most_held_ = std::max(most_held_, held_.size());
      if (seen_.size() < hold_until_) return;
      release.swap(held_);
    }
    Write(release);
  }

  static void Write(const std::vector<std::shared_ptr<Connection>>& connections) {
    for (const auto& r : connections) {
      boost::beast::http::async_write(r->socket, r->response, [r](boost::system::error_code, size_t) {
        boost::system::error_code ignored;
        r->socket.shutdown(boost::asio::ip::tcp::socket::shutdown_send, ignored);
      });
    }
  }

  static void Prepare(Connection& c, const Reply& reply) {
    c.response = {};
    c.response.version(11);
    c.response.result(static_cast<unsigned>(reply.status));
    for (const auto& [name, value] : reply.headers) c.response.insert(name, value);
    c.response.body() = reply.body;
    if (reply.chunked) {
      c.response.chunked(true);
    } else {
      c.response.prepare_payload();
    }
  }

  const std::string address_;
  Handler handler_;
  boost::asio::io_context ioc_;
  boost::asio::ip::tcp::acceptor acceptor_;
  int port_ = 0;
  mutable std::mutex mutex_;
  std::vector<Seen> seen_;
  size_t hold_until_ = 0;
  size_t most_held_ = 0;
  int connections_ = 0;
  std::vector<std::shared_ptr<Connection>> held_;
  std::vector<std::shared_ptr<Connection>> silent_;
  std::thread thread_;
};

}  // namespace volent::egress::testing
