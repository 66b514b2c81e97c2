// Fuzz target for the control API of `volent node` (control/api.h): raw
// bytes as they would arrive on a connection, judged by the server's
// framing check (httpd/framing.h) and parsed by its own HTTP parser and
// limits (control/wire.h), and every complete request
// dispatched into the route table, with an in-memory agent store, a node
// configuration that allows one capability, a fake agent::Runs (the runs
// and approvals routes' bodies and parameters are what is fuzzed here; the
// loop has its own tests) and a real, empty journal.
//
// Several requests may follow one another in the input (keep-alive), so a
// mutation can apply an agent and then read, list or delete it.
//
// What must hold, beyond no crash, hang or sanitizer report:
//   - every answer has a status the API uses; every error (>= 400) is a
//     problem document (application/problem+json) whose body is JSON with
//     the same status;
//   - a 2xx body, when there is one, is JSON (or the metrics text).
//
// Seeds: fuzz/corpus/control_http_fuzz (requests of each route, good and bad).
#include <cstddef>
#include <cstdint>
#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <nlohmann/json.hpp>

#include "core/http/framing.h"
#include "volent/control/api.h"
#include "volent/control/test_fixtures.h"
#include "volent/control/wire.h"
#include "volent/journal/journal.h"

namespace {

namespace http = boost::beast::http;
using namespace volent;

// Bounds the in-memory state across runs.
constexpr size_t kMaxAgents = 256;
constexpr size_t kInputsPerReset = 1000;

void Check(bool ok) {
  if (!ok) std::abort();
}

struct Node {
  manifest::NodeConfig config;
  std::unique_ptr<store::AgentStore> store;
  std::unique_ptr<control::testing::FakeRuns> runs;
  std::unique_ptr<journal::Journal> journal;
  std::unique_ptr<control::ControlApi> api;
  size_t inputs = 0;
  std::string journal_dir;

  Node() {
    auto loaded = manifest::LoadNodeConfig(control::testing::kNodeConfig, "volent.yaml");
    Check(loaded.ok());
    config = std::move(*loaded.value);
    char dir[] = "/tmp/control_http_fuzz.XXXXXX";
    Check(mkdtemp(dir) != nullptr);
    journal_dir = dir;
    auto opened = journal::Journal::Open(journal_dir);
    Check(opened.ok());
    journal = std::move(*opened);
    Reset();
  }
  ~Node() {
    api.reset();
    journal.reset();
    std::error_code ignored;
    std::filesystem::remove_all(journal_dir, ignored);
  }
  void Reset() {
    api.reset();
    auto opened = store::AgentStore::Open("");
    Check(opened.ok());
    store = std::move(*opened);
    runs = std::make_unique<control::testing::FakeRuns>();
    runs->AddApproval(1, "r1", "refund");
    inputs = 0;
    control::ApiContext ctx;
    ctx.store = store.get();
    ctx.runs = runs.get();
    ctx.journal = journal.get();
    ctx.config = &config;
    api = std::make_unique<control::ControlApi>(ctx);
  }
};

void CheckResponse(const control::Response& r) {
  Check(r.status >= 200 && r.status <= 599);
  if (r.status >= 400) {
    Check(r.content_type == "application/problem+json");
    auto j = nlohmann::json::parse(r.body, nullptr, false);
    Check(j.is_object() && j.value("status", 0) == r.status);
  } else if (r.content_type == "application/json") {
    Check(!nlohmann::json::parse(r.body, nullptr, false).is_discarded());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Node node;
  if (node.store->size() > kMaxAgents || ++node.inputs > kInputsPerReset) node.Reset();

  boost::beast::string_view input(reinterpret_cast<const char*>(data), size);
  while (!input.empty()) {
    // A header the check refuses is answered 400 and the connection closes.
    core::httpd::HeaderScanner scanner;
    if (scanner.Scan(std::string_view(input.data(), input.size())) !=
        core::httpd::HeaderScanner::State::kComplete) {
      return 0;
    }
    control::WireParser parser;
    control::ConfigureParser(parser);
    parser.eager(true);
    boost::beast::error_code ec;
    size_t used = parser.put(boost::asio::buffer(input.data(), input.size()), ec);
    if (ec == http::error::need_more) {
      // The input ended mid-message; a body may end with the stream.
      parser.put_eof(ec);
      if (ec || !parser.is_done()) return 0;
    } else if (ec || !parser.is_done() || used == 0) {
      return 0;  // the server answers 400/413/431 and closes
    }
    Check(used >= scanner.length());  // the parser read the header the check judged
    control::Response r = node.api->Dispatch(control::FromWire(parser.get()));
    CheckResponse(r);
    // The wire form must serialize too.
    auto wire = control::ToWire(r, parser.get().version(), parser.get().keep_alive());
    Check(wire.result_int() == static_cast<unsigned>(r.status));
    input.remove_prefix(used);
  }
  return 0;
}
