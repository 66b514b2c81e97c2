// Ending a connection politely (the node's HTTP servers, listener.h).
//
// After an answer that ends a connection mid-request (413, 431, 400), the
// client may still be sending: closing at once would make its kernel answer
// with a reset, and the client would never read the answer. Drainer
// half-closes, reads and drops what still comes (up to a limit, for a
// time), then closes.
//
// Header-only, like listener.h. A Drainer belongs to one connection and is
// used on its strand.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <vector>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>

namespace volent::httpd {

// Shuts the socket down both ways and closes it, ignoring errors.
inline void CloseStream(boost::beast::tcp_stream& stream) {
  boost::system::error_code ignored;
  stream.socket().shutdown(boost::asio::ip::tcp::socket::shutdown_both, ignored);
  stream.socket().close(ignored);
}

class Drainer {
 public:
  // `owner` keeps the connection (and so `stream` and this) alive until done.
  void Start(boost::beast::tcp_stream& stream, std::shared_ptr<void> owner, size_t max_bytes,
             std::chrono::steady_clock::duration time) {
    boost::system::error_code ignored;
    stream.socket().shutdown(boost::asio::ip::tcp::socket::shutdown_send, ignored);
    stream.expires_after(time);
    drained_ = 0;
    ReadSome(stream, std::move(owner), max_bytes);
  }

 private:
  void ReadSome(boost::beast::tcp_stream& stream, std::shared_ptr<void> owner, size_t max_bytes) {
    scratch_.resize(16 * 1024);
    stream.async_read_some(boost::asio::buffer(scratch_),
                           [this, &stream, owner, max_bytes](boost::system::error_code ec, size_t n) {
                             drained_ += n;
                             if (ec || drained_ > max_bytes) return CloseStream(stream);
                             ReadSome(stream, owner, max_bytes);
                           });
  }

  std::vector<char> scratch_;
  size_t drained_ = 0;
};

}  // namespace volent::httpd
