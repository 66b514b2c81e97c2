// JournalSafeRequest and Client (client.h): the journaled form, the key
// added on the way out, and egress outcomes and HTTP statuses turned into
// errors an operator can act on.
#include "volent/model/client.h"

#include <algorithm>
#include <memory>

#include "core/json.h"
#include "volent/model/anthropic.h"
#include "volent/model/openai.h"
#include "volent/model/text.h"

namespace volent::model {
namespace {

using nlohmann::json;

// Model answers are larger than most tool answers (long texts, many calls).

// Headers that carry a key: never in the journaled form, whatever it says.
bool IsSecretHeader(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  return lower == "authorization" || lower == "x-api-key" || lower == "api-key" || lower == "proxy-authorization";
}

std::string TrimSlash(std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

std::string Redact(std::string text, const std::string* key) {
  if (key == nullptr || key->empty()) return text;
  for (size_t at = text.find(*key); at != std::string::npos; at = text.find(*key, at)) {
    text.replace(at, key->size(), "[redacted]");
    at += 10;
  }
  return text;
}

CallResult Failure(ErrorKind kind, std::string message, int status = 0) {
  CallResult r;
  r.error = {kind, std::move(message), status};
  return r;
}

CallResult FromStatus(const std::string& provider, const std::string& capability,
                      const egress::HttpResponse& response) {
  const int status = response.status;
  std::string said = provider == "anthropic" ? AnthropicErrorMessage(response.body) : OpenAiErrorMessage(response.body);
  if (said.empty() && !response.body.empty()) said = Excerpt(response.body, 200);
  const std::string http = "HTTP " + std::to_string(status) + (said.empty() ? "" : ": " + said);
  if (status == 401 || status == 403) {
    return Failure(ErrorKind::kRejected,
                   "the model provider refused the API key sent under capability " + capability + " (" + http +
                       "): check the key file of that capability in volent.yaml's model_keys",
                   status);
  }
  if (status == 429) {
    return Failure(ErrorKind::kUnavailable, "the model provider is limiting requests (" + http + "): try again later",
                   status);
  }
  if (status >= 500) {
    return Failure(ErrorKind::kUnavailable, "the model provider failed (" + http + "): try again later", status);
  }
  if (status >= 300 && status < 400) {
    std::string location;
    for (const auto& [name, value] : response.headers) {
      if (name.size() == 8 && std::equal(name.begin(), name.end(), "location", [](char a, char b) {
            return std::tolower(static_cast<unsigned char>(a)) == b;
          })) {
        location = " to " + Quoted(value, 200);
      }
    }
    return Failure(ErrorKind::kRejected,
                   "the model endpoint answered with a redirect (HTTP " + std::to_string(status) + location +
                       "), which is not followed: check spec.model.endpoint",
                   status);
  }
  std::string hint = status == 404 ? ": check spec.model.name and spec.model.endpoint" : "";
  return Failure(ErrorKind::kRejected, "the model provider rejected the request (" + http + ")" + hint, status);
}

}  // namespace

std::string_view ErrorKindName(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kConfig: return "config";
    case ErrorKind::kDenied: return "denied";
    case ErrorKind::kNotSent: return "not-sent";
    case ErrorKind::kFailed: return "failed";
    case ErrorKind::kRejected: return "rejected";
    case ErrorKind::kUnavailable: return "unavailable";
    case ErrorKind::kMalformed: break;
  }
  return "malformed";
}

bool ModelError::retryable() const {
  return kind == ErrorKind::kNotSent || kind == ErrorKind::kFailed || kind == ErrorKind::kUnavailable;
}

json JournalSafeRequest(const ModelCall& call) {
  const ModelSpec& m = call.model;
  auto fail = [](std::string message) { return json{{"type", "model"}, {"error", std::move(message)}}; };
  if (m.name.empty()) return fail("the agent's model has no name (spec.model.name)");
  if (m.capability.empty()) {
    return fail("the agent's model names no egress capability (spec.model.capability), so it cannot be called: "
                "name one that has an egress.allow entry for the provider, e.g. model." +
                (m.provider.empty() ? std::string("anthropic") : m.provider));
  }
  Conversation conversation = call.conversation;
  if (m.max_tokens_per_call > 0) conversation.max_tokens = std::min(conversation.max_tokens, m.max_tokens_per_call);
  if (conversation.max_tokens <= 0) return fail("the model call asks for no tokens (max_tokens must be > 0)");

  json headers = {{"content-type", "application/json"}, {"accept", "application/json"}, {"user-agent", "volent"}};
  if (!call.idempotency_key.empty()) headers["Idempotency-Key"] = call.idempotency_key;
  std::string url;
  json body;
  if (m.provider == "anthropic") {
    url = TrimSlash(m.endpoint.empty() ? kAnthropicDefaultEndpoint : m.endpoint) + "/v1/messages";
    headers["anthropic-version"] = kAnthropicVersion;
    body = AnthropicRequestBody(m.name, conversation);
  } else if (m.provider == "openai" || m.provider == "openai-compatible") {
    const bool compatible = m.provider == "openai-compatible";
    if (compatible && m.endpoint.empty()) {
      return fail("an openai-compatible model needs its endpoint (spec.model.endpoint), e.g. http://10.0.0.5:8000/v1");
    }
    url = TrimSlash(m.endpoint.empty() ? kOpenAiDefaultEndpoint : m.endpoint) + "/chat/completions";
    body = OpenAiRequestBody(m.name, conversation, compatible ? OpenAiDialect::kCompatible : OpenAiDialect::kOpenAi);
  } else {
    return fail("unknown model provider " + Quoted(m.provider, 64) + ": use anthropic, openai or openai-compatible");
  }
  return {{"type", "model"},         {"provider", m.provider}, {"model", m.name},
          {"capability", m.capability}, {"method", "POST"},     {"url", url},
          {"headers", std::move(headers)}, {"body", std::move(body)}, {"timeout_ms", call.timeout_ms}};
}

CallResult Client::Call(const ModelCall& call) const { return Send(JournalSafeRequest(call)); }

// A journaled request made ready for the gate, or the error that stops it
// before anything is sent.
struct Client::Prepared {
  std::string provider;
  std::string capability;
  egress::HttpRequest http;
  const std::string* key = nullptr;  // into keys_: lives as long as the client
  std::optional<CallResult> error;
};

Client::Prepared Client::Prepare(const json& request) const {
  Prepared p;
  if (!request.is_object()) {
    p.error = Failure(ErrorKind::kConfig, "the model request is not a JSON object");
    return p;
  }
  if (auto e = request.find("error"); e != request.end() && e->is_string()) {
    p.error = Failure(ErrorKind::kConfig, e->get<std::string>());
    return p;
  }
  auto text = [&](const char* key) {
    auto it = request.find(key);
    return it != request.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  p.provider = text("provider");
  p.capability = text("capability");
  auto body = request.find("body");
  auto headers = request.find("headers");
  if ((p.provider != "anthropic" && p.provider != "openai" && p.provider != "openai-compatible") ||
      p.capability.empty() || text("url").empty() || body == request.end() || !body->is_object() ||
      headers == request.end() || !headers->is_object()) {
    p.error = Failure(ErrorKind::kConfig,
                      "the model request is incomplete (provider, capability, url, headers and body are needed)");
    return p;
  }

  egress::HttpRequest& http = p.http;
  http.method = text("method").empty() ? "POST" : text("method");
  http.url = text("url");
  http.timeout_ms = request.value("timeout_ms", 120000);
  if (http.timeout_ms <= 0) http.timeout_ms = 120000;
  http.max_response_bytes = kMaxAnswerBytes;
  // A provider's redirect is an error to report (FromStatus), not a hop to
  // follow: the key would go along to wherever it points.
  http.max_redirects = 0;
  for (const auto& [name, value] : headers->items()) {
    if (!value.is_string() || IsSecretHeader(name)) continue;
    http.headers.emplace_back(name, value.get<std::string>());
    // The step's key names who asks: a denial is journaled beside the step.
    if (name == "Idempotency-Key") http.origin = value.get<std::string>();
  }
  p.key = keys_.Find(p.capability);
  if (p.key == nullptr && p.provider != "openai-compatible") {
    p.error = Failure(ErrorKind::kConfig, "no API key is configured for capability " + p.capability +
                                              ": add {capability: " + p.capability +
                                              ", key_file: FILE} to model_keys in volent.yaml and restart the node");
    return p;
  }
  // A compatible server without a key (a local one) is called without one.
  if (p.key != nullptr) {
    if (p.provider == "anthropic") {
      http.headers.emplace_back("x-api-key", *p.key);
    } else {
      http.headers.emplace_back("Authorization", "Bearer " + *p.key);
    }
  }
  http.body = core::DumpJson(*body);
  return p;
}

CallResult Client::Read(const Prepared& p, egress::SendResult sent) {
  const std::string& capability = p.capability;
  CallResult result;
  switch (sent.outcome) {
    case egress::Outcome::kDenied:
      result = Failure(ErrorKind::kDenied, "the egress gate denied the model call under capability " + capability +
                                               " (nothing was sent): " + sent.reason);
      break;
    case egress::Outcome::kNotSent:
      result = Failure(ErrorKind::kNotSent,
                       "the model provider could not be reached (nothing was sent): " + sent.reason);
      break;
    case egress::Outcome::kFailed:
      result = Failure(ErrorKind::kFailed,
                       "the model call got no whole answer (it may have reached the provider): " + sent.reason);
      break;
    case egress::Outcome::kAnswered:
      // Redacted before any excerpt is cut from it, so no piece of an
      // echoed key survives at a cut.
      sent.response.body = Redact(std::move(sent.response.body), p.key);
      if (sent.response.status < 200 || sent.response.status >= 300) {
        result = FromStatus(p.provider, capability, sent.response);
        break;
      }
      {
        core::Result<Answer> parsed = p.provider == "anthropic" ? ParseAnthropicAnswer(sent.response.body)
                                                                   : ParseOpenAiAnswer(sent.response.body);
        if (parsed.ok()) {
          result.answer = std::move(*parsed);
        } else {
          result = Failure(ErrorKind::kMalformed, "the model provider's answer could not be read: " + parsed.message(),
                           sent.response.status);
        }
      }
      break;
  }
  result.pinned_address = sent.pinned_address;
  result.error.message = Redact(std::move(result.error.message), p.key);
  return result;
}

CallResult Client::Send(const json& request) const {
  Prepared p = Prepare(request);
  if (p.error) return std::move(*p.error);
  egress::SendResult sent = gate_.Send(p.capability, p.http);
  return Read(p, std::move(sent));
}

void Client::SendAsync(const json& request, std::function<void(CallResult)> done) const {
  auto p = std::make_shared<Prepared>(Prepare(request));
  if (p->error) {
    done(std::move(*p->error));
    return;
  }
  // What reading the answer needs (provider, capability, the key to
  // redact) travels with the callback; the request itself is not kept.
  const std::string capability = p->capability;
  egress::HttpRequest http = std::move(p->http);
  p->http = {};
  gate_.SendAsync(capability, std::move(http), [p, done = std::move(done)](egress::SendResult sent) {
    done(Read(*p, std::move(sent)));
  });
}

}  // namespace volent::model
