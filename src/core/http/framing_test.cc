// The framing check (framing.h) on its own: every case of the smuggling
// suite is refused while valid headers pass, byte by byte as well as whole;
// and, for the record, what Beast's parser alone makes of each case (the
// check exists for the cases it would let through).
#include "core/http/framing.h"

#include <gtest/gtest.h>

#include <iostream>
#include <string>

#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "core/http/smuggling_suite.h"

namespace core::httpd {
namespace {

namespace http = boost::beast::http;

const testing::SmugglingTarget kTarget{"/x", "DELETE /smuggled HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
                                       "GET /x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"};

HeaderScanner::State ScanWhole(std::string_view bytes, HeaderScanner& scanner) { return scanner.Scan(bytes); }

HeaderScanner::State ScanByteByByte(std::string_view bytes, HeaderScanner& scanner) {
  HeaderScanner::State state = HeaderScanner::State::kNeedMore;
  for (size_t n = 1; n <= bytes.size() && state == HeaderScanner::State::kNeedMore; ++n) {
    state = scanner.Scan(bytes.substr(0, n));
  }
  return state;
}

// What Beast's parser alone does with `bytes`: refuses them, waits for
// more, or reads one request and leaves the rest as the next one.
std::string BeastAlone(std::string_view bytes) {
  http::request_parser<http::string_body> parser;
  parser.eager(true);
  boost::beast::error_code ec;
  size_t used = parser.put(boost::asio::buffer(bytes.data(), bytes.size()), ec);
  if (ec == http::error::need_more) return "waits for more";
  if (ec && !parser.is_header_done()) return "refuses the header (" + ec.message() + ")";
  if (ec) {
    return std::string("reads the header (") + (parser.chunked() ? "chunked" : "not chunked") +
           "), then fails on the body (" + ec.message() + ")";
  }
  std::string_view rest = bytes.substr(used);
  if (rest.rfind(kTarget.smuggled, 0) == 0) return "LETS THROUGH: the smuggled request comes next";
  if (rest.empty()) return "reads one request";
  return "reads one request, then garbage";
}

TEST(Framing, EverySmugglingCaseIsRefusedAndValidOnesPass) {
  int beast_lets_through = 0;
  auto cases = testing::SmugglingCases(kTarget);
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    HeaderScanner whole, bytewise;
    auto expected = c.valid ? HeaderScanner::State::kComplete : HeaderScanner::State::kBad;
    EXPECT_EQ(ScanWhole(c.bytes, whole), expected) << whole.reason();
    EXPECT_EQ(ScanByteByByte(c.bytes, bytewise), expected) << bytewise.reason();
    EXPECT_EQ(whole.reason(), bytewise.reason());
    std::string beast = BeastAlone(c.bytes);
    if (beast.rfind("LETS", 0) == 0) ++beast_lets_through;
    std::cout << "  " << c.name << ": " << (c.valid ? "passes" : "refused: " + whole.reason())
              << "; Beast alone " << beast << "\n";
  }
  std::cout << cases.size() << " cases; Beast alone lets " << beast_lets_through
            << " smuggle the next request\n";
}

TEST(Framing, ValidHeadersPass) {
  const char* valid[] = {
      "GET / HTTP/1.1\r\nHost: x\r\n\r\n",
      "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n",
      "POST / HTTP/1.1\r\nHost: x\r\ntransfer-encoding:CHUNKED\r\n\r\n",
      "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 12\r\n\r\n",
      "POST / HTTP/1.1\r\nHost: x\r\ncontent-length:0\r\n\r\n",
      "POST / HTTP/1.0\r\nHost: x\r\nContent-Length: 3\r\n\r\n",
      "GET / HTTP/1.1\r\nHost: x\r\nX-Note: a\tb  c\r\nX-Empty:\r\n\r\n",
      "GET / HTTP/1.1\r\nHost: x\r\nX-Text: caf\xc3\xa9\r\n\r\n",  // obs-text is not a control byte
      "GET / HTTP/1.1\r\nX-Transfer-Encoding: identity\r\nContent-Lengthy: -1\r\n\r\n",
  };
  for (const char* header : valid) {
    Status s = CheckFraming(header);
    EXPECT_TRUE(s.ok()) << header << ": " << s.message();
  }
}

TEST(Framing, ReasonsNameTheRule) {
  auto reason = [](std::string_view header) {
    Status s = CheckFraming(header);
    return s.ok() ? std::string("ok") : s.message();
  };
  EXPECT_EQ(reason("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n"),
            "the request has both Transfer-Encoding and Content-Length, so its length is ambiguous");
  EXPECT_EQ(reason("POST / HTTP/1.1\r\nContent-Length: 3\r\ncontent-length: 3\r\n\r\n"),
            "Content-Length appears more than once");
  EXPECT_EQ(reason("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n"),
            "an HTTP/1.0 request cannot have a Transfer-Encoding");
  EXPECT_EQ(reason("GET / HTTP/1.1\r\nA: b\r\n c\r\n\r\n"),
            "a header line starts with a blank (obsolete line folding)");
  EXPECT_EQ(reason("GET / HTTP/1.1\r\nHost x\r\n\r\n"), "a header line has no colon");
  EXPECT_EQ(reason("GET / HTTP/1.1\r\n: x\r\n\r\n"), "a header line has no field name");
  EXPECT_EQ(reason("GET / HTTP/1.1\r\nHost: x\r\n"), "the header does not end with an empty line");
  EXPECT_EQ(reason("GET / HTTP/1.1\r\nHost: x\r\n\r\nGET"), "there are bytes after the header's empty line");
}

TEST(Framing, BadBytesAreRefusedBeforeTheHeaderEnds) {
  HeaderScanner scanner;
  EXPECT_EQ(scanner.Scan("GET / HTTP/1.1\r\nHost: x\r"), HeaderScanner::State::kNeedMore);
  EXPECT_EQ(scanner.Scan("GET / HTTP/1.1\r\nHost: x\r\nA: b\n"), HeaderScanner::State::kBad);
  EXPECT_EQ(scanner.reason(), "a header line ends in LF without CR");
  // Once decided, the scanner keeps its answer.
  EXPECT_EQ(scanner.Scan("GET / HTTP/1.1\r\n\r\n"), HeaderScanner::State::kBad);

  HeaderScanner complete;
  std::string request = "GET / HTTP/1.1\r\nHost: x\r\n\r\nbody bytes are not the header's";
  ASSERT_EQ(complete.Scan(request), HeaderScanner::State::kComplete);
  EXPECT_EQ(complete.length(), request.find("body"));
}

}  // namespace
}  // namespace core::httpd
