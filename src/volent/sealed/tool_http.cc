#include "volent/sealed/tool_http.h"

#include <strings.h>

#include <set>

#include "core/base64.h"
#include "core/utf8.h"

namespace volent::sealed {
namespace {

nlohmann::json Invalid(const std::string& reason) { return {{"error", "invalid"}, {"reason", reason}}; }

// The gate's request for the tool's, or the reason it is not one.
core::Result<egress::HttpRequest> ReadRequest(const nlohmann::json& request) {
  static const std::set<std::string> kFields = {"method", "url", "headers", "body"};
  static const std::set<std::string> kMethods = {"GET", "POST", "PUT", "PATCH", "DELETE"};
  for (const auto& [key, value] : request.items()) {
    if (!kFields.count(key)) return core::Error{"unknown field \"" + key + "\" (method, url, headers, body)"};
  }
  egress::HttpRequest http;
  if (!request.contains("url") || !request["url"].is_string()) return core::Error{"\"url\" must be a string"};
  http.url = request["url"].get<std::string>();
  if (request.contains("method")) {
    if (!request["method"].is_string() || !kMethods.count(request["method"].get<std::string>())) {
      return core::Error{"\"method\" must be one of GET, POST, PUT, PATCH, DELETE"};
    }
    http.method = request["method"].get<std::string>();
  }
  if (request.contains("headers")) {
    if (!request["headers"].is_object()) return core::Error{"\"headers\" must be an object of strings"};
    for (const auto& [name, value] : request["headers"].items()) {
      if (!value.is_string()) return core::Error{"header \"" + name + "\" must be a string"};
      if (strcasecmp(name.c_str(), "Idempotency-Key") == 0) {
        return core::Error{"Idempotency-Key is the node's to set (the step's key and the request's number)"};
      }
      http.headers.emplace_back(name, value.get<std::string>());
    }
  }
  if (request.contains("body")) {
    if (!request["body"].is_string()) return core::Error{"\"body\" must be a string"};
    if (http.method == "GET") return core::Error{"a GET request has no body"};
    http.body = request["body"].get<std::string>();
  }
  return http;
}

}  // namespace

nlohmann::json AnswerFor(const egress::SendResult& sent) {
  // The name of a credential the gate added, never its value (the gate
  // wrote it; the tool never held it): the record says the request was
  // authenticated, and a replay needs neither.
  if (sent.outcome != egress::Outcome::kAnswered) {
    nlohmann::json failed = {{"error", std::string(egress::OutcomeName(sent.outcome))}, {"reason", sent.reason}};
    if (!sent.credential.empty()) failed["credential"] = sent.credential;
    return failed;
  }
  // Header bytes that are not UTF-8 become U+FFFD when the exchange is
  // written (core::DumpJson), before the tool or the record sees them.
  nlohmann::json headers = nlohmann::json::array();
  for (const auto& [name, value] : sent.response.headers) headers.push_back({name, value});
  nlohmann::json answer = {{"status", sent.response.status}, {"headers", std::move(headers)}};
  const std::string& body = sent.response.body;
  if (core::IsValidUtf8(body)) {
    answer["body"] = body;
  } else {
    answer["body_base64"] = core::Base64Encode(body);
  }
  if (!sent.credential.empty()) answer["credential"] = sent.credential;
  return answer;
}

nlohmann::json RecordedRequest(const std::string& canonical_request) {
  nlohmann::json request = nlohmann::json::parse(canonical_request, nullptr, /*allow_exceptions=*/false);
  return request.is_object() ? request : nlohmann::json::object();
}

ToolHttpExchange SendToolRequest(const egress::Gate* gate, const agent::ToolDef& tool,
                                 const std::string& canonical_request, const std::string& step_key, int number,
                                 int timeout_ms) {
  ToolHttpExchange exchange;
  exchange.request = nlohmann::json::parse(canonical_request, nullptr, /*allow_exceptions=*/false);
  if (!exchange.request.is_object()) {  // the engine sends only objects; a broken engine gets nothing sent
    exchange.request = nlohmann::json::object();
    exchange.answer = Invalid("the request is not a JSON object");
    return exchange;
  }
  core::Result<egress::HttpRequest> http = ReadRequest(exchange.request);
  if (!http) {
    exchange.answer = Invalid(http.message());
    return exchange;
  }
  const std::string key = step_key + "/http/" + std::to_string(number);
  http->headers.emplace_back("Idempotency-Key", key);
  http->origin = step_key;
  http->timeout_ms = timeout_ms;
  http->max_response_bytes = kToolResponseCap;
  if (gate == nullptr) {
    exchange.answer = {{"error", "denied"}, {"reason", "this node has no egress gate"}};
    return exchange;
  }
  exchange.answer = AnswerFor(gate->Send(tool.capability, *http));
  return exchange;
}

}  // namespace volent::sealed
