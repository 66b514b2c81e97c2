// What the node's HTTP servers share (the control API, src/volent/control/; the
// mock model, src/volent/mockmodel/): listening on HOST:PORT, the accept loop on
// per-connection strands with a cap on connections, SIGINT/SIGTERM, and a
// graceful stop (idle connections close at once; busy ones get `grace` to
// answer, then everything stops). Each server keeps its own Connection,
// which must:
//   - be constructed from (tcp::socket, std::shared_ptr<Shared>) and call
//     shared->Register(this) in Start and shared->Unregister in its
//     destructor (ConnectionRegistry below);
//   - have Start() and CloseIfIdle().
// `Shared` derives from ConnectionRegistry<Connection> and has `options`
// with host, port, threads and max_connections.
//
// Header-only, so the socket code stays in the objects of the servers that
// listen (scripts/audit-sockets.sh judges objects). Thread-safe as Asio is:
// Stop may be called from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <csignal>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>

#include "core/result.h"

namespace volent::httpd {

// The open connections of a server, for Stop to close idle ones, and the
// count that tells when the last one has gone.
template <class Connection>
struct ConnectionRegistry {
  using Handle = typename std::list<std::weak_ptr<Connection>>::iterator;

  std::atomic<size_t> connections{0};
  std::atomic<bool> stopping{false};
  std::mutex mu;                              // guards live
  std::list<std::weak_ptr<Connection>> live;
  std::function<void()> on_last_closed;       // set by the listener

  Handle Register(std::weak_ptr<Connection> connection) {
    std::lock_guard lock(mu);
    return live.insert(live.end(), std::move(connection));
  }
  void Unregister(Handle handle) {
    {
      std::lock_guard lock(mu);
      live.erase(handle);
    }
    if (--connections == 0 && stopping) on_last_closed();
  }
};

template <class Connection, class Shared>
class Listener {
 public:
  Listener(std::shared_ptr<Shared> shared, std::chrono::steady_clock::duration grace)
      : ioc_(shared->options.threads), acceptor_(ioc_), retry_(ioc_), grace_timer_(ioc_), grace_(grace),
        shared_(std::move(shared)) {
    shared_->on_last_closed = [this] { boost::asio::post(ioc_, [this] { grace_timer_.cancel(); }); };
  }

  // Binds and listens. Errors say which address failed and what to try.
  ampoule::Status Listen() {
    namespace net = boost::asio;
    const auto& options = shared_->options;
    std::string host = options.host == "localhost" ? "127.0.0.1" : options.host;
    boost::system::error_code ec;
    auto address = net::ip::make_address(host, ec);
    if (ec) {
      return ampoule::Error{"listen address '" + options.host +
                            "' is not an IP address; use 127.0.0.1 (this machine only) or an address of this machine"};
    }
    if (options.port < 0 || options.port > 65535) {
      return ampoule::Error{"port " + std::to_string(options.port) + " is out of range (0-65535)"};
    }
    net::ip::tcp::endpoint endpoint(address, static_cast<unsigned short>(options.port));
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

  int port() const { return port_; }

  void CatchSignals() {
    if (signals_) return;
    signals_.emplace(ioc_, SIGINT, SIGTERM);
    signals_->async_wait([this](boost::system::error_code ec, int) {
      if (!ec) Stop();
    });
  }

  // Serves on options.threads threads until stopped.
  void Run() {
    Accept();
    std::vector<std::thread> extra;
    for (int i = 1; i < shared_->options.threads; ++i) extra.emplace_back([this] { ioc_.run(); });
    ioc_.run();
    for (auto& t : extra) t.join();
  }

  void Stop() {
    boost::asio::post(ioc_, [this] {
      if (shared_->stopping.exchange(true)) return;
      boost::system::error_code ignored;
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
      // Requests in flight get this long; then everything stops.
      grace_timer_.expires_after(grace_);
      grace_timer_.async_wait([this](boost::system::error_code ec) {
        if (!ec) ioc_.stop();
      });
    });
  }

 private:
  void Accept() {
    acceptor_.async_accept(boost::asio::make_strand(ioc_),
                           [this](boost::system::error_code ec, boost::asio::ip::tcp::socket socket) {
                             if (!acceptor_.is_open() || shared_->stopping) return;
                             if (ec) {
                               // Out of descriptors, say: wait a little rather than spin.
                               retry_.expires_after(std::chrono::milliseconds(100));
                               retry_.async_wait([this](boost::system::error_code ec) {
                                 if (!ec) Accept();
                               });
                               return;
                             }
                             if (shared_->connections >= shared_->options.max_connections) {
                               boost::system::error_code ignored;
                               socket.close(ignored);
                             } else {
                               ++shared_->connections;
                               std::make_shared<Connection>(std::move(socket), shared_)->Start();
                             }
                             Accept();
                           });
  }

  boost::asio::io_context ioc_;
  boost::asio::ip::tcp::acceptor acceptor_;
  boost::asio::steady_timer retry_;
  boost::asio::steady_timer grace_timer_;
  std::chrono::steady_clock::duration grace_;
  std::optional<boost::asio::signal_set> signals_;
  std::shared_ptr<Shared> shared_;
  int port_ = 0;
};

}  // namespace volent::httpd
