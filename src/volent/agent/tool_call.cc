#include "core/json.h"
#include "volent/agent/step_outcome.h"
#include "volent/agent/tool_call.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <memory>

namespace volent::agent {
namespace {

constexpr int kAttempts = 3;
constexpr int kDefaultTimeoutMs = 10000;

std::string PercentEncode(const std::string& text) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

bool HasBody(const std::string& method) { return method == "POST" || method == "PUT" || method == "PATCH"; }

}  // namespace

nlohmann::json JournaledBody(const std::string& body, bool& truncated) {
  truncated = body.size() > kMaxJournaledBody;
  if (!truncated) {
    // The tool's server is outside the node: parsed within the one depth limit.
    auto parsed = core::ParseJsonBounded(body, "the tool's answer", {.max_bytes = kMaxJournaledBody});
    if (parsed.ok()) return std::move(*parsed);
  }
  // Not JSON (or too long, or nested too deep): kept as text, cut on a UTF-8
  // boundary so one chatty endpoint cannot bloat the journal, with invalid
  // UTF-8 replaced (the journal holds valid JSON text only).
  size_t n = std::min(body.size(), kMaxJournaledBody);
  while (n > 0 && n < body.size() && (static_cast<unsigned char>(body[n]) & 0xC0) == 0x80) --n;
  std::string text = core::DumpJson(nlohmann::json(body.substr(0, n)));
  return nlohmann::json::parse(text);
}

namespace {

egress::HttpRequest HttpFor(const ToolDef& tool, const nlohmann::json& request, const std::string& key) {
  egress::HttpRequest http;
  http.method = request.value("method", "GET");
  http.url = request.value("url", "");
  http.timeout_ms = tool.time_ms > 0 ? tool.time_ms : kDefaultTimeoutMs;
  http.headers = {{"Idempotency-Key", key}, {"Accept", "application/json"}, {"User-Agent", "volent"}};
  http.origin = key;
  if (HasBody(http.method)) {
    http.headers.emplace_back("Content-Type", "application/json");
    http.body = request.value("arguments", nlohmann::json::object()).dump();
  }
  return http;
}

nlohmann::json ResultOf(const std::string& tool, const egress::SendResult& sent) {
  nlohmann::json result = {{"type", "tool"}, {"tool", tool}};
  result["outcome"] = StepOutcomeName(StepOutcomeOf(sent.outcome));
  if (!sent.pinned_address.empty()) result["address"] = sent.pinned_address;
  if (!sent.credential.empty()) result["credential"] = sent.credential;  // its name; the gate added the value
  if (sent.outcome != egress::Outcome::kAnswered) {
    result["reason"] = sent.reason;
    return result;
  }
  result["status"] = sent.response.status;
  bool truncated = false;
  result["body"] = JournaledBody(sent.response.body, truncated);
  if (truncated) result["body_truncated"] = true;
  return result;
}

// One HTTP tool call and its attempts. Shared by the callbacks that carry
// it from one attempt to the next; gone when the last one returns.
struct HttpCall : std::enable_shared_from_this<HttpCall> {
  const egress::Gate& gate;
  Delays& delays;
  std::string tool;
  std::string capability;
  egress::HttpRequest http;
  StepDone done;
  int attempt = 0;

  HttpCall(const egress::Gate& g, Delays& d) : gate(g), delays(d) {}

  void Try() {
    ++attempt;
    // No lock is held here, and the gate may call back before SendAsync
    // returns: everything after the call is in the callback.
    gate.SendAsync(capability, http, [self = shared_from_this()](egress::SendResult sent) {
      self->Answered(std::move(sent));
    });
  }

  void Answered(egress::SendResult sent) {
    // Denied requests are not retried (the answer will not change);
    // unanswered ones are, with the same key, so the receiver can tell.
    const bool final = sent.outcome == egress::Outcome::kAnswered || sent.outcome == egress::Outcome::kDenied;
    if (final || attempt >= kAttempts) {
      done(ResultOf(tool, sent));
      return;
    }
    // A pause on the delays' thread, never a sleep on the gate's.
    delays.After(std::chrono::milliseconds(200 * attempt * attempt), [self = shared_from_this()] { self->Try(); });
  }
};

}  // namespace

nlohmann::json ToolResultForModel(const std::string& kind, const nlohmann::json& completion) {
  if (!completion.is_object()) {
    return {{"outcome", StepOutcomeName(StepOutcome::kFailed)}, {"reason", "the tool's result cannot be read"}};
  }
  auto text = [&](const char* name) {
    auto it = completion.find(name);
    return it != completion.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  const StepOutcome outcome = RecordedOutcome(completion).value_or(StepOutcome::kFailed);
  if (outcome == StepOutcome::kAnswered && !kind.empty()) {
    if (kind != "http") return completion.value("result", nlohmann::json());
    nlohmann::json shown = {{"status", completion.value("status", nlohmann::json())},
                            {"body", completion.value("body", nlohmann::json())}};
    if (auto cut = completion.find("body_truncated"); cut != completion.end() && *cut == true) {
      shown["body_truncated"] = true;
    }
    return shown;
  }
  return {{"outcome", StepOutcomeName(outcome)}, {"reason", text("reason")}};
}

nlohmann::json ToolRequest(const ToolDef& tool, const nlohmann::json& arguments) {
  nlohmann::json request = {{"type", "tool"}, {"tool", tool.name}, {"kind", tool.kind}};
  if (tool.kind == "http") {
    request["method"] = tool.method;
    request["url"] = ExpandUrl(tool.url, arguments);
  }
  request["arguments"] = arguments;
  return request;
}

ToolPerformer GateToolPerformer(const egress::Gate& gate, Delays& delays) {
  return [&gate, &delays](const ToolDef& tool, const nlohmann::json& request, const std::string& key,
                          StepDone done) {
    if (tool.kind != "http") {
      done({{"type", "tool"},
            {"tool", tool.name},
            {"outcome", StepOutcomeName(StepOutcome::kUnsupported)},
            {"reason", "tools of kind \"" + tool.kind + "\" are not run by this version of the node"}});
      return;
    }
    auto call = std::make_shared<HttpCall>(gate, delays);
    call->tool = tool.name;
    call->capability = tool.capability;
    call->http = HttpFor(tool, request, key);
    call->done = std::move(done);
    call->Try();
  };
}

std::string ExpandUrl(const std::string& url_template, const nlohmann::json& arguments) {
  std::string out;
  for (size_t i = 0; i < url_template.size();) {
    size_t close = url_template[i] == '{' ? url_template.find('}', i) : std::string::npos;
    if (close == std::string::npos) {
      out += url_template[i++];
      continue;
    }
    std::string name = url_template.substr(i + 1, close - i - 1);
    if (arguments.is_object() && arguments.contains(name)) {
      const auto& value = arguments[name];
      if (value.is_string()) out += PercentEncode(value.get<std::string>());
      else if (value.is_number()) out += value.dump();
    }
    i = close + 1;
  }
  return out;
}

}  // namespace volent::agent
