#include "ampoule/wasi/http_capability.h"

#include <algorithm>

#include "ampoule/wasi/guest_memory.h"
#include "core/json.h"
#include "core/json_strict.h"

namespace ampoule::wasi {
namespace {

// A recorded line holds one answer, whose body the node caps well below this.
constexpr size_t kMaxLineBytes = size_t{4} << 20;

std::string ErrorAnswer(std::string_view kind, const std::string& reason) {
  return core::DumpJson(nlohmann::json{{"error", kind}, {"reason", reason}});
}

// Requests and the record are compared as canonical JSON, so both are read
// the one way that leaves no doubt about that form: no duplicate keys, no
// number that two readers could round differently.
core::Result<nlohmann::json> Strict(std::string_view text, const std::string& what) {
  return core::ParseJsonStrict(text, what, core::JsonNumbers::kExact);
}

const wasm::FuncType& TwoI32ToI32() {
  static const wasm::FuncType kType{{wasm::ValType::I32, wasm::ValType::I32}, {wasm::ValType::I32}};
  return kType;
}

}  // namespace

core::Result<std::vector<HttpExchange>> ParseHttpExchanges(std::string_view text) {
  std::vector<HttpExchange> out;
  size_t line_no = 0;
  while (!text.empty()) {
    ++line_no;
    const std::string where = std::string(kHttpExchangesInput) + " line " + std::to_string(line_no);
    size_t end = text.find('\n');
    if (end == std::string_view::npos) return core::Error{where + " does not end with a newline"};
    if (out.size() == kMaxHttpRequests) {
      return core::Error{std::string(kHttpExchangesInput) + " holds more than " + std::to_string(kMaxHttpRequests) +
                   " exchanges, the most a call makes"};
    }
    if (end > kMaxLineBytes) return core::Error{where + " is longer than " + std::to_string(kMaxLineBytes) + " bytes"};
    core::Result<nlohmann::json> line = Strict(text.substr(0, end), where);
    if (!line) return line.error();
    if (!line->is_object() || line->size() != 2 || !line->contains("request") || !line->contains("answer") ||
        !(*line)["request"].is_object() || !(*line)["answer"].is_object()) {
      return core::Error{where + " is not an object of exactly a \"request\" object and an \"answer\" object"};
    }
    out.push_back({core::DumpJson((*line)["request"]), core::DumpJson((*line)["answer"])});
    text.remove_prefix(end + 1);
  }
  return out;
}

std::string HttpExchangeLine(const nlohmann::json& request, const nlohmann::json& answer) {
  return core::DumpJson(nlohmann::json{{"request", request}, {"answer", answer}}) + "\n";
}

core::Result<std::string> CanonicalHttpRequest(std::string_view text) {
  if (text.size() > kMaxHttpRequestBytes) {
    return core::Error{"the request is " + std::to_string(text.size()) + " bytes, more than the " +
                 std::to_string(kMaxHttpRequestBytes) + " allowed"};
  }
  core::Result<nlohmann::json> parsed = Strict(text, "the request");
  if (!parsed) return parsed.error();
  if (!parsed->is_object()) return core::Error{"the request is not a JSON object"};
  return core::DumpJson(*parsed);
}

HttpCapability::HttpCapability(wasm::Store& store, HttpCapabilityConfig config) : config_(std::move(config)) {
  request_ = store.AddHostFunction(TwoI32ToI32(), [this](wasm::HostContext& hc, std::span<const uint64_t> args,
                                                         std::span<uint64_t> results) {
    return Request(hc, args, results);
  });
  answer_ = store.AddHostFunction(TwoI32ToI32(), [this](wasm::HostContext& hc, std::span<const uint64_t> args,
                                                        std::span<uint64_t> results) {
    return Answer(hc, args, results);
  });
}

wasm::FunctionInstance* HttpCapability::Find(std::string_view name) const {
  if (name == "request") return request_;
  if (name == "answer") return answer_;
  return nullptr;
}

wasm::HostResult HttpCapability::Request(wasm::HostContext& hc, std::span<const uint64_t> args,
                                         std::span<uint64_t> results) {
  GuestMemory mem(hc.memory);
  std::span<uint8_t> bytes;
  if (mem.Bytes(uint32_t(args[0]), uint32_t(args[1]), &bytes) != Errno::kSuccess) {
    return wasm::HostResult::Trap("volent:tool/http request: the request lies outside the memory");
  }
  if (!recorded_) {
    core::Result<std::vector<HttpExchange>> parsed = ParseHttpExchanges(
        std::string_view(reinterpret_cast<const char*>(config_.exchanges.data()), config_.exchanges.size()));
    if (!parsed) return wasm::HostResult::Trap("volent:tool/http request: " + parsed.message());
    recorded_ = std::move(*parsed);
  }
  core::Result<std::string> request =
      CanonicalHttpRequest(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  const std::string number = std::to_string(next_ + 1);
  if (!request) {
    last_answer_ = ErrorAnswer("invalid", request.message());
  } else if (next_ < recorded_->size()) {
    const HttpExchange& exchange = (*recorded_)[next_];
    if (exchange.request != *request) {
      return wasm::HostResult::Trap("volent:tool/http request " + number + " is not the one recorded in " +
                                    std::string(kHttpExchangesInput) + ": this is not the recorded run");
    }
    last_answer_ = exchange.answer;
    ++next_;
  } else if (next_ >= kMaxHttpRequests) {
    last_answer_ = ErrorAnswer("limit", "a tool call makes at most " + std::to_string(kMaxHttpRequests) +
                                            " HTTP requests; this one was not sent");
  } else if (config_.ask_host) {
    pending_ = *request;
    return wasm::HostResult::Trap("volent:tool/http request " + number + " waits for the node's answer");
  } else {
    last_answer_ = ErrorAnswer("unavailable",
                               "no answer is recorded for HTTP request " + number +
                                   ": requests are sent only by a Volent node's tool calls, and replayed from "
                                   "the input " + std::string(kHttpExchangesInput));
  }
  results[0] = uint32_t(last_answer_.size());
  return wasm::HostResult::Ok();
}

wasm::HostResult HttpCapability::Answer(wasm::HostContext& hc, std::span<const uint64_t> args,
                                        std::span<uint64_t> results) {
  GuestMemory mem(hc.memory);
  const uint32_t n = uint32_t(std::min<uint64_t>(uint32_t(args[1]), last_answer_.size()));
  if (mem.WriteString(uint32_t(args[0]), std::string_view(last_answer_).substr(0, n)) != Errno::kSuccess) {
    return wasm::HostResult::Trap("volent:tool/http answer: the buffer lies outside the memory");
  }
  results[0] = n;
  return wasm::HostResult::Ok();
}

}  // namespace ampoule::wasi
