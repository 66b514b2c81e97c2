// Fuzz target for the MCP endpoint of `ampoule mcp --http` (mcp/http.h):
// raw bytes as they would arrive on a connection, judged by the server's
// framing check (httpd/framing.h), parsed by Beast's HTTP parser (the
// server's own limits: 16 KiB of headers, a body limit), and
// every complete request handed to the endpoint's rules
// (mcp/http_handler.h) with a stand-in server core, as the server would.
//
// Several requests may follow one another in the input (keep-alive). The
// text "@SID@" anywhere in the input is replaced by the id of a live
// session before parsing, so mutations reach the rules behind the session
// check (protocol version, message kinds, tools/call streams, DELETE).
//
// What must hold, beyond no crash, hang or sanitizer report:
//   - every response has a status the endpoint uses and, when it has a
//     body, the body is JSON or one server-sent event carrying JSON;
//   - 202 responses have no body; Mcp-Session-Id appears only on the answer
//     to an initialize and is 32 hex digits.
//
// Seeds: fuzz/corpus/mcp_http_fuzz (requests of each kind, good and bad).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <nlohmann/json.hpp>

#include "ampoule/mcp/http_handler.h"
#include "ampoule/mcp/http_test_fakes.h"
#include "core/http/framing.h"

namespace {

namespace http = boost::beast::http;
using ampoule::mcp::HttpResponse;
using nlohmann::json;

void Check(bool ok) {
  if (!ok) std::abort();
}

void CheckResponse(const HttpResponse& res) {
  unsigned code = res.result_int();
  Check(code == 200 || code == 202 || code == 204 || code == 400 || code == 403 || code == 404 ||
        code == 405 || code == 406 || code == 415 || code == 500 || code == 503);
  const std::string& body = res.body();
  if (code == 202 || code == 204) Check(body.empty());
  if (!body.empty()) {
    std::string_view type(res[http::field::content_type].data(), res[http::field::content_type].size());
    if (type == "text/event-stream") {
      const std::string prefix = "event: message\ndata: ";
      Check(body.rfind(prefix, 0) == 0 && body.size() >= prefix.size() + 2 &&
            body.compare(body.size() - 2, 2, "\n\n") == 0);
      std::string data = body.substr(prefix.size(), body.size() - prefix.size() - 2);
      Check(data.find('\n') == std::string::npos);
      Check(json::accept(data));
    } else {
      Check(type == "application/json");
      Check(json::accept(body));
    }
  }
  auto id = res.find("Mcp-Session-Id");
  if (id != res.end()) {
    Check(id->value().size() == 32);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ampoule::mcp;
  static testing::FakeServer server;
  static HttpSessionTable sessions(8);
  static HttpHandlerConfig config = [] {
    HttpHandlerConfig c;
    c.port = 8808;
    c.loopback_only = true;
    c.allowed_origins = {"https://app.example.com"};
    return c;
  }();

  // A live session for "@SID@".
  HttpRequest init{http::verb::post, "/mcp", 11};
  init.set(http::field::host, "127.0.0.1:8808");
  init.set(http::field::accept, "application/json, text/event-stream");
  init.set(http::field::content_type, "application/json");
  init.body() = R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{}})";
  init.prepare_payload();
  HttpResponse opened = HandleNow(init, server, sessions, config);
  std::string sid(opened["Mcp-Session-Id"]);
  Check(sid.size() == 32);

  std::string input(reinterpret_cast<const char*>(data), size);
  for (size_t at; (at = input.find("@SID@")) != std::string::npos;) input.replace(at, 5, sid);

  boost::beast::string_view rest(input.data(), input.size());
  for (int requests = 0; !rest.empty() && requests < 16; ++requests) {
    // A header the check refuses is answered 400 and the connection closes.
    core::httpd::HeaderScanner scanner;
    if (scanner.Scan(std::string_view(rest.data(), rest.size())) !=
        core::httpd::HeaderScanner::State::kComplete) {
      break;
    }
    http::request_parser<http::string_body> parser;
    parser.eager(true);
    parser.header_limit(16 * 1024);
    parser.body_limit(1 << 20);
    boost::beast::error_code ec;
    size_t used = parser.put(boost::asio::buffer(rest.data(), rest.size()), ec);
    if (!ec && !parser.is_done()) {
      parser.put_eof(ec);  // the connection ends here
    }
    if (ec || !parser.is_done()) break;
    CheckResponse(HandleNow(parser.get(), server, sessions, config));
    if (used == 0) break;
    rest.remove_prefix(used);
  }
  return 0;
}
