// Fuzz target for the tool capability's untrusted text
// (ampoule/wasi/http_capability.h, volent/sealed/tool_http.h): a record of
// HTTP exchanges (the input http-exchanges.jsonl of a receipt), a guest's
// request, and the node's reading of that request.
//
// Each must give a value or a clean error, never a crash. Canonical JSON
// must be a fixed point (canonical of canonical is itself), and a record
// written back line by line must read as the same exchanges: the engine
// compares requests by that form, so two readings of one text must agree.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "ampoule/wasi/http_capability.h"
#include "volent/sealed/tool_http.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ampoule::wasi;
  const std::string input(reinterpret_cast<const char*>(data), size);

  auto record = ParseHttpExchanges(input);
  if (record) {
    std::string again;
    for (const HttpExchange& e : *record) {
      again += HttpExchangeLine(nlohmann::json::parse(e.request), nlohmann::json::parse(e.answer));
    }
    auto reread = ParseHttpExchanges(again);
    if (!reread || reread->size() != record->size()) std::abort();
    for (size_t i = 0; i < record->size(); ++i) {
      if ((*reread)[i].request != (*record)[i].request || (*reread)[i].answer != (*record)[i].answer) std::abort();
    }
  }

  auto canonical = CanonicalHttpRequest(input);
  if (canonical) {
    auto twice = CanonicalHttpRequest(*canonical);
    if (!twice || *twice != *canonical) std::abort();
    volent::agent::ToolDef tool;
    tool.name = "fuzz";
    // No gate: whatever the request, nothing is sent; the answer is
    // "invalid" or "denied", and the request recorded is the one read.
    auto exchange = volent::sealed::SendToolRequest(nullptr, tool, *canonical, "a/r/1", 1, 1000);
    if (!exchange.answer.contains("error")) std::abort();
  }
  return 0;
}
