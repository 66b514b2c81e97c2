// Reading a request's header under the framing check (framing.h), for the
// project's HTTP servers (control API, MCP over HTTP, mock model).
//
// AsyncReadCheckedHeader reads from `stream` into `buffer` until the buffer
// holds a whole header block, refusing it as soon as HeaderScanner does;
// only a block that passed is handed to Beast's parser, which parses it
// from the buffer and never reads from the socket. The handler is called
// once (at once when the buffer already holds the header), as
// handler(error_code, Status framing):
//   - framing not ok: the request broke a framing rule (the message says
//     which); answer 400 and close, reading nothing more as a request;
//   - error_code set: as http::async_read_header would report it
//     (end_of_stream when the client left before a byte, partial_message
//     when it left midway, Beast's parse errors, header_limit, timeouts and
//     socket errors);
//   - neither: the header is parsed, the body is still to read.
// A header longer than `header_limit` fails with http::error::header_limit,
// as before.
//
// `stream` is a beast::tcp_stream or a TLS stream over one.
// Header-only, so the socket code stays in the objects of the servers that
// listen (scripts/audit-sockets.sh judges objects). `stream`, `buffer` and
// `parser` must outlive the operation (the handler usually owns them).
#pragma once

#include <cstddef>
#include <memory>
#include <string_view>
#include <utility>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "core/http/framing.h"
#include "core/result.h"

namespace core::httpd {

namespace detail {

template <class Stream, class Parser, class Handler>
class CheckedHeaderRead : public std::enable_shared_from_this<CheckedHeaderRead<Stream, Parser, Handler>> {
 public:
  CheckedHeaderRead(Stream& stream, boost::beast::flat_buffer& buffer, Parser& parser,
                    size_t header_limit, Handler handler)
      : stream_(stream), buffer_(buffer), parser_(parser), header_limit_(header_limit),
        handler_(std::move(handler)) {}

  void Step() {
    auto bytes = buffer_.cdata();
    std::string_view received(static_cast<const char*>(bytes.data()), bytes.size());
    switch (scanner_.Scan(received)) {
      case HeaderScanner::State::kBad:
        return handler_(boost::beast::error_code{}, Error{scanner_.reason()});
      case HeaderScanner::State::kComplete:
        return Parse(true);
      case HeaderScanner::State::kNeedMore:
        if (received.size() >= header_limit_) return Parse(false);
        return ReadMore();
    }
  }

 private:
  void ReadMore() {
    // Sized as Beast's own reads are, so buffers grow no faster than before.
    size_t room = boost::beast::read_size(buffer_, 65536);
    if (room == 0) return Parse(false);  // the buffer is full: the parser says why
    stream_.async_read_some(buffer_.prepare(room),
                            [self = this->shared_from_this()](boost::beast::error_code ec, size_t n) {
                              self->buffer_.commit(n);
                              if (ec == boost::asio::error::eof) {
                                namespace http = boost::beast::http;
                                ec = self->buffer_.size() == 0 ? http::error::end_of_stream
                                                               : http::error::partial_message;
                              }
                              if (ec) return self->handler_(ec, Status::Ok());
                              self->Step();
                            });
  }

  // The parser reads the header from the buffer only, never from the
  // socket: bytes after the checked block are not the header's.
  void Parse(bool checked) {
    namespace http = boost::beast::http;
    boost::beast::error_code ec;
    size_t used = parser_.put(buffer_.data(), ec);
    if (ec == http::error::need_more) {
      // A whole block the parser cannot finish has a broken request line
      // (say, no version); an unfinished one is over the limit.
      if (checked) return handler_(boost::beast::error_code{}, Error{"the request line is not well-formed"});
      return handler_(http::error::header_limit, Status::Ok());
    }
    if (ec) return handler_(ec, Status::Ok());
    // The parser must end the header where the scanner did; a difference
    // would mean bytes it read as header were never judged.
    if (used != scanner_.length()) {
      return handler_(boost::beast::error_code{}, Error{"the end of the header is ambiguous"});
    }
    buffer_.consume(used);
    handler_(boost::beast::error_code{}, Status::Ok());
  }

  Stream& stream_;
  boost::beast::flat_buffer& buffer_;
  Parser& parser_;
  size_t header_limit_;
  Handler handler_;
  HeaderScanner scanner_;
};

}  // namespace detail

template <class Stream, class Parser, class Handler>
void AsyncReadCheckedHeader(Stream& stream, boost::beast::flat_buffer& buffer, Parser& parser, size_t header_limit,
                            Handler handler) {
  std::make_shared<detail::CheckedHeaderRead<Stream, Parser, Handler>>(stream, buffer, parser, header_limit,
                                                               std::move(handler))
      ->Step();
}

}  // namespace core::httpd
