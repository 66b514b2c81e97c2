// Fuzz target for the framing check of the project's HTTP servers
// (httpd/framing.h): raw bytes as they would arrive on a connection.
//
// What must hold, beyond no crash, hang or sanitizer report:
//   - the scanner's answer does not depend on how the bytes arrive (all at
//     once, or in two pieces split anywhere);
//   - a header the check accepts is one Beast's parser, when it reads it
//     at all, ends exactly where the check did, and frames as the check
//     saw it: chunked only with Transfer-Encoding, a length only with
//     Content-Length, never both, never chunked in HTTP/1.0.
//
// Seeds: fuzz/corpus/http_framing_fuzz (valid headers and smuggling forms).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "core/http/framing.h"

namespace {

namespace http = boost::beast::http;
using core::httpd::HeaderScanner;

void Check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);

  HeaderScanner whole;
  HeaderScanner::State state = whole.Scan(input);
  HeaderScanner pieces;
  size_t split = size == 0 ? 0 : data[0] % (size + 1);
  HeaderScanner::State first = pieces.Scan(input.substr(0, split));
  HeaderScanner::State second = first == HeaderScanner::State::kNeedMore ? pieces.Scan(input) : first;
  Check(second == state);
  if (state == HeaderScanner::State::kBad) Check(whole.reason() == pieces.reason());
  if (state != HeaderScanner::State::kComplete) return 0;
  Check(whole.length() == pieces.length() && whole.length() <= size);

  std::string_view header = input.substr(0, whole.length());
  Check(core::httpd::CheckFraming(header).ok());
  http::request_parser<http::string_body> parser;
  parser.header_limit(64 * 1024);
  boost::beast::error_code ec;
  size_t used = parser.put(boost::asio::buffer(header.data(), header.size()), ec);
  // The parser refuses what the check let by (or cannot finish a header
  // whose request line is broken): the server answers 400 all the same.
  if (ec) return 0;
  Check(used == header.size());
  Check(parser.is_header_done());
  const auto& req = parser.get();
  bool te = req.count(http::field::transfer_encoding) > 0;
  bool cl = req.count(http::field::content_length) > 0;
  Check(!(te && cl));
  Check(parser.chunked() == te);
  Check(parser.content_length().has_value() == cl);
  if (te) Check(req.version() >= 11);
  return 0;
}
