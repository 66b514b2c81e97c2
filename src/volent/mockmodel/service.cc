#include "volent/mockmodel/service.h"

#include <ctime>
#include <cstdio>

#include "core/json.h"
#include "volent/mockmodel/anthropic_format.h"
#include "volent/mockmodel/openai_format.h"

namespace volent::mockmodel {
namespace {

constexpr std::string_view kAnthropicPath = "/v1/messages";
constexpr std::string_view kOpenAiPath = "/v1/chat/completions";
constexpr char kRoutes[] =
    "the mock model serves POST /v1/messages, POST /v1/chat/completions, GET /stats, GET /requests and GET "
    "/healthz";

// splitmix64: a well-mixed, reproducible spread of jitter over requests.
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::string Hex(uint64_t n) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(n));
  return buf;
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string_view PathOf(std::string_view target) { return target.substr(0, target.find('?')); }

ServiceResponse Json(int status, const nlohmann::json& body) { return ServiceResponse{status, core::DumpJson(body), {}}; }

// For paths of neither API: a body both kinds of client can read
// (Anthropic's type/error.type/error.message, OpenAI's error.message/code).
ServiceResponse GenericError(int status, const char* type, const char* code, const std::string& message) {
  nlohmann::json body;
  body["type"] = "error";
  body["error"] = {{"type", type}, {"message", message}, {"param", nullptr}, {"code", code}};
  return Json(status, body);
}

}  // namespace

Service::Service(ServiceOptions options) : options_(std::move(options)) {}

ServiceResponse Service::Error(Api api, const ApiError& error) const {
  ServiceResponse out;
  out.status = error.status();
  out.body = api == Api::kAnthropic ? RenderAnthropicError(error) : RenderOpenAiError(error);
  return out;
}

ServiceResponse Service::Handle(const ServiceRequest& request) {
  std::string_view path = PathOf(request.target);
  std::optional<Api> api;
  if (path == kAnthropicPath) api = Api::kAnthropic;
  if (path == kOpenAiPath) api = Api::kOpenAi;
  if (api) {
    if (request.method == "POST") return ModelCall(*api, request);
    ServiceResponse out = Error(*api, ApiError{ErrorKind::kMethodNotAllowed,
                                               request.method + " is not allowed on " + std::string(path) + "; use POST"});
    out.headers.emplace_back("Allow", "POST");
    return out;
  }
  if (path == "/healthz" || path == "/stats" || path == "/requests") {
    if (request.method != "GET") {
      ServiceResponse out = GenericError(405, "invalid_request_error", "method_not_allowed",
                                         request.method + " is not allowed on " + std::string(path) + "; use GET");
      out.headers.emplace_back("Allow", "GET");
      return out;
    }
    if (path == "/requests") {
      if (options_.record == 0) {
        return GenericError(404, "not_found_error", "not_found",
                            "this mock model keeps no requests; start it with --record N to read them here");
      }
      return Json(200, Recorded());
    }
    return path == "/stats" ? Json(200, Stats()) : Json(200, {{"status", "ok"}});
  }
  std::string message = "no route " + request.method + " " + std::string(path) + "; " + kRoutes;
  // A client of one API that got the prefix wrong still reads the error.
  if (EndsWith(path, "/messages")) return Error(Api::kAnthropic, ApiError{ErrorKind::kNotFound, message});
  if (EndsWith(path, "/chat/completions")) {
    return Error(Api::kOpenAi, ApiError{ErrorKind::kNotFound, message, "not_found"});
  }
  return GenericError(404, "not_found_error", "not_found", message);
}

ServiceResponse Service::ModelCall(Api api, const ServiceRequest& request) {
  uint64_t seq = requests_++;
  (api == Api::kAnthropic ? anthropic_ : openai_)++;
  int64_t now = ++in_flight_;
  for (int64_t peak = peak_in_flight_.load(); now > peak && !peak_in_flight_.compare_exchange_weak(peak, now);) {
  }
  CountIdempotencyKey(request.idempotency_key);
  Record(api, request);

  ServiceResponse out = [&] {
    std::optional<ApiError> refused =
        api == Api::kAnthropic ? CheckAnthropicHeaders(request.x_api_key, request.anthropic_version, options_.api_key)
                               : CheckOpenAiHeaders(request.authorization, options_.api_key);
    if (refused) return Error(api, *refused);
    auto conversation =
        api == Api::kAnthropic ? ParseAnthropicRequest(request.body) : ParseOpenAiRequest(request.body);
    if (!conversation.ok()) return Error(api, ApiError{ErrorKind::kInvalidRequest, conversation.message()});
    Answer answer = options_.script ? ScriptedAnswer(*options_.script, *conversation) : DefaultPlan(*conversation);
    (answer.tool_calls.empty() ? text_answers_ : tool_call_answers_)++;
    ServiceResponse ok;
    ok.body = api == Api::kAnthropic
                  ? RenderAnthropicAnswer(answer, *conversation, "msg_mock" + Hex(seq))
                  : RenderOpenAiAnswer(answer, *conversation, "chatcmpl-mock" + Hex(seq),
                                       static_cast<int64_t>(std::time(nullptr)));
    return ok;
  }();
  if (out.status != 200) ++errors_;
  out.in_flight = true;
  out.delay = options_.latency;
  if (options_.jitter.count() > 0) {
    out.delay += std::chrono::milliseconds(Mix(seq) % (static_cast<uint64_t>(options_.jitter.count()) + 1));
  }
  return out;
}

void Service::Finished(const ServiceResponse& response) {
  if (response.in_flight) --in_flight_;
}

ServiceResponse Service::TooLarge(std::string_view target) {
  std::string_view path = PathOf(target);
  std::string message = "the request body exceeds the mock model's limit of 4 MiB";
  if (path == kAnthropicPath || path == kOpenAiPath) {
    Api api = path == kAnthropicPath ? Api::kAnthropic : Api::kOpenAi;
    ++requests_;
    (api == Api::kAnthropic ? anthropic_ : openai_)++;
    ++errors_;
    return Error(api, ApiError{ErrorKind::kTooLarge, message, "request_too_large"});
  }
  return GenericError(413, "request_too_large", "request_too_large", message);
}

void Service::CountIdempotencyKey(const std::optional<std::string>& key) {
  if (!key) return;
  std::lock_guard lock(keys_mu_);
  if (keys_.count(*key)) {
    ++duplicates_;
    return;
  }
  ++distinct_keys_;
  if (keys_.size() < kMaxRememberedKeys) keys_.insert(*key);
}

void Service::Record(Api api, const ServiceRequest& request) {
  if (options_.record == 0) return;
  std::lock_guard lock(recorded_mu_);
  if (recorded_.size() >= options_.record) {
    ++dropped_;
    return;
  }
  nlohmann::json entry = {{"api", api == Api::kAnthropic ? "anthropic" : "openai"},
                          {"idempotency_key", request.idempotency_key ? nlohmann::json(*request.idempotency_key)
                                                                      : nlohmann::json(nullptr)},
                          {"body", request.body}};
  // Bytes that are not UTF-8 are replaced now: the answer is JSON text.
  recorded_.push_back(nlohmann::json::parse(core::DumpJson(entry)));
}

nlohmann::json Service::Recorded() const {
  std::lock_guard lock(recorded_mu_);
  return {{"requests", recorded_}, {"dropped", dropped_}};
}

nlohmann::json Service::Stats() const {
  nlohmann::json out;
  out["requests"] = requests_.load();
  out["by_api"] = {{"anthropic", anthropic_.load()}, {"openai", openai_.load()}};
  out["errors"] = errors_.load();
  out["answers"] = {{"tool_calls", tool_call_answers_.load()}, {"text", text_answers_.load()}};
  out["in_flight"] = in_flight_.load();
  out["peak_in_flight"] = peak_in_flight_.load();
  {
    std::lock_guard lock(keys_mu_);
    out["idempotency_keys"] = distinct_keys_;
  }
  out["duplicates"] = duplicates_.load();
  return out;
}

}  // namespace volent::mockmodel
