// How a request's body is delimited (RFC 9112 section 6), judged once for
// every HTTP server of the project: the control API (src/volent/control), MCP over
// HTTP (src/ampoule/mcp) and the mock model (src/volent/mockmodel). A request whose framing
// two parsers could read differently is refused, so nothing can hide a
// second request in the first one's body (request smuggling).
//
// The check reads the raw bytes of the header block, because Boost.Beast's
// parser, which the servers use for the rest, accepts some of what is
// refused here: it unfolds obs-fold lines, trims blanks around values,
// ignores a Transfer-Encoding that does not end in "chunked" (the body then
// has no length at all), and takes a Content-Length repeated or listed with
// equal values. What is refused:
//   - any byte below 0x20 but HTAB, and DEL, outside a CRLF; a CR without
//     its LF, an LF without its CR (bare line endings);
//   - a line that starts with a space or tab (obs-fold, or blanks before
//     the request line), an empty line before the request line, a header
//     line without a colon or with blanks before it;
//   - Transfer-Encoding other than exactly one field "Transfer-Encoding:
//     chunked" (any case, one optional space after the colon): "xchunked",
//     "identity", "chunked, identity", "gzip, chunked", tabs, padding;
//   - Content-Length repeated (even with equal values) or other than a plain
//     decimal number after one optional space: signs, lists, padding, hex;
//   - both Transfer-Encoding and Content-Length;
//   - Transfer-Encoding in an HTTP/1.0 request.
// Every refusal is a 400 after which the server closes the connection.
//
// Pure code on bytes, no sockets (read_header.h does the reading). In the
// ampoule namespace, since Ampoule's MCP transport uses it as well as the
// node's servers.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "core/result.h"

namespace core::httpd {

// The framing rules above on one complete header block: the request line
// through the empty line that ends the header (its CRLF CRLF included).
// The error says, in words fit for a client, which rule the request broke;
// it never repeats the request's bytes.
Status CheckFraming(std::string_view header);

// Finds the end of a request's header block in bytes as they arrive, and
// judges it: line endings and control bytes as soon as they are seen (a
// header Beast would wait on forever is refused at once), CheckFraming once
// the block is whole. One scanner per request; Scan is given everything
// received so far for that request, each time a little more, and resumes
// where it stopped.
class HeaderScanner {
 public:
  enum class State { kNeedMore, kComplete, kBad };

  State Scan(std::string_view received);

  // kComplete: the length of the header block, its final CRLF CRLF included.
  size_t length() const { return length_; }
  // kBad: why.
  const std::string& reason() const { return reason_; }

 private:
  State Fail(std::string reason);

  State state_ = State::kNeedMore;
  size_t next_ = 0;        // the first byte not yet looked at
  size_t line_start_ = 0;  // where the current line begins
  size_t length_ = 0;
  std::string reason_;
};

}  // namespace core::httpd
