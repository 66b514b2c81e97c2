#include "volent/mockmodel/service.h"

#include <gtest/gtest.h>

#include <set>

namespace volent::mockmodel {
namespace {

using json = nlohmann::json;

ServiceRequest Anthropic(const json& body) {
  ServiceRequest r;
  r.method = "POST";
  r.target = "/v1/messages";
  r.body = body.dump();
  r.x_api_key = "sk-ant-test";
  r.anthropic_version = "2023-06-01";
  return r;
}

ServiceRequest OpenAi(const json& body) {
  ServiceRequest r;
  r.method = "POST";
  r.target = "/v1/chat/completions";
  r.body = body.dump();
  r.authorization = "Bearer sk-test";
  return r;
}

ServiceRequest Get(const std::string& target) {
  ServiceRequest r;
  r.method = "GET";
  r.target = target;
  return r;
}

json Body(const ServiceResponse& r) { return json::parse(r.body); }

struct Transcript {
  std::vector<std::string> called;  // tool names, in order
  std::vector<json> arguments;      // their arguments, as objects
  std::string text;                 // the final text
};

// Answers with `service` until the final text, feeding each tool call back
// as its result, the way an agent loop does.
Transcript AnthropicLoop(Service& service, const json& tools,
                                                               const std::string& first) {
  json request = {{"model", "claude-mock"}, {"max_tokens", 256}, {"tools", tools},
                  {"messages", json::array({{{"role", "user"}, {"content", first}}})}};
  Transcript t;
  for (int round = 0; round < 20; ++round) {
    ServiceResponse r = service.Handle(Anthropic(request));
    service.Finished(r);
    EXPECT_EQ(r.status, 200) << r.body;
    json answer = Body(r);
    if (answer["stop_reason"] == "end_turn") {
      t.text = answer["content"][0]["text"].get<std::string>();
      return t;
    }
    EXPECT_EQ(answer["stop_reason"], "tool_use");
    request["messages"].push_back({{"role", "assistant"}, {"content", answer["content"]}});
    json results = json::array();
    for (const auto& block : answer["content"]) {
      t.called.push_back(block["name"].get<std::string>());
      t.arguments.push_back(block["input"]);
      results.push_back({{"type", "tool_result"}, {"tool_use_id", block["id"]}, {"content", "ok"}});
    }
    request["messages"].push_back({{"role", "user"}, {"content", results}});
  }
  ADD_FAILURE() << "no final answer after 20 rounds";
  return t;
}

Transcript OpenAiLoop(Service& service, const json& tools,
                                                            const std::string& first) {
  json request = {{"model", "gpt-mock"}, {"tools", tools},
                  {"messages", json::array({{{"role", "system"}, {"content", "be useful"}},
                                            {{"role", "user"}, {"content", first}}})}};
  Transcript t;
  for (int round = 0; round < 20; ++round) {
    ServiceResponse r = service.Handle(OpenAi(request));
    service.Finished(r);
    EXPECT_EQ(r.status, 200) << r.body;
    json choice = Body(r)["choices"][0];
    if (choice["finish_reason"] == "stop") {
      t.text = choice["message"]["content"].get<std::string>();
      return t;
    }
    EXPECT_EQ(choice["finish_reason"], "tool_calls");
    request["messages"].push_back(choice["message"]);
    for (const auto& call : choice["message"]["tool_calls"]) {
      t.called.push_back(call["function"]["name"].get<std::string>());
      t.arguments.push_back(json::parse(call["function"]["arguments"].get<std::string>()));
      request["messages"].push_back({{"role", "tool"}, {"tool_call_id", call["id"]}, {"content", "ok"}});
    }
  }
  ADD_FAILURE() << "no final answer after 20 rounds";
  return t;
}

json AnthropicTools(std::vector<std::string> names) {
  json out = json::array();
  for (const auto& n : names) out.push_back({{"name", n}, {"description", n}, {"input_schema", {{"type", "object"}}}});
  return out;
}

json OpenAiTools(std::vector<std::string> names) {
  json out = json::array();
  for (const auto& n : names) out.push_back({{"type", "function"}, {"function", {{"name", n}, {"parameters", {{"type", "object"}}}}}});
  return out;
}

TEST(Service, WholeToolConversationThroughBothApis) {
  Service service(ServiceOptions{});
  Transcript a = AnthropicLoop(service, AnthropicTools({"lookup", "refund", "notify"}), R"({"order": 42})");
  EXPECT_EQ(a.called, (std::vector<std::string>{"lookup", "refund", "notify"}));
  EXPECT_EQ(a.arguments, std::vector<json>(3, json::parse(R"({"order": 42})")));
  EXPECT_EQ(a.text, "done: 3 tool call(s)");
  Transcript o = OpenAiLoop(service, OpenAiTools({"lookup", "refund"}), "plain text");
  EXPECT_EQ(o.called, (std::vector<std::string>{"lookup", "refund"}));
  EXPECT_EQ(o.arguments, std::vector<json>(2, json::object()));
  EXPECT_EQ(o.text, "done: 2 tool call(s)");
  json stats = service.Stats();
  EXPECT_EQ(stats["requests"], 7);
  EXPECT_EQ(stats["by_api"], json::parse(R"({"anthropic": 4, "openai": 3})"));
  EXPECT_EQ(stats["answers"], json::parse(R"({"tool_calls": 5, "text": 2})"));
  EXPECT_EQ(stats["errors"], 0);
  EXPECT_EQ(stats["in_flight"], 0);
  EXPECT_EQ(stats["peak_in_flight"], 1);
}

TEST(Service, ScriptReplacesThePlan) {
  ServiceOptions options;
  options.script = Script{};
  Answer two;
  two.tool_calls = {ToolCall{"refund", {{"amount", 5}}}, ToolCall{"notify", json::object()}};
  Answer text;
  text.text = "scripted end";
  options.script->push_back(two);
  options.script->push_back(text);
  Service service(std::move(options));
  Transcript o = OpenAiLoop(service, OpenAiTools({"lookup"}), "hi");
  EXPECT_EQ(o.called, (std::vector<std::string>{"refund", "notify"}));
  EXPECT_EQ(o.arguments, (std::vector<json>{json{{"amount", 5}}, json::object()}));
  EXPECT_EQ(o.text, "scripted end");
  Transcript a = AnthropicLoop(service, AnthropicTools({}), "hi");
  EXPECT_EQ(a.called, (std::vector<std::string>{"refund", "notify"}));
  EXPECT_EQ(a.text, "scripted end");
}

TEST(Service, AuthIsCheckedBeforeTheBodyInEachApisFormat) {
  ServiceOptions options;
  options.api_key = "sk-right";
  Service service(std::move(options));
  ServiceRequest a = Anthropic(json::object());
  a.body = "not even json";
  ServiceResponse r = service.Handle(a);
  service.Finished(r);
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(Body(r), json::parse(R"({"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}})"));
  a.x_api_key.reset();
  r = service.Handle(a);
  service.Finished(r);
  EXPECT_EQ(r.status, 401);
  a.x_api_key = "sk-right";
  r = service.Handle(a);
  service.Finished(r);
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(Body(r)["error"]["type"], "invalid_request_error");

  ServiceRequest o = OpenAi(json::object());
  r = service.Handle(o);
  service.Finished(r);
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(Body(r), json::parse(R"({"error": {"message": "Incorrect API key provided.", "type": "invalid_request_error",
                                              "param": null, "code": "invalid_api_key"}})"));
  o.authorization = "Bearer sk-right";
  r = service.Handle(o);
  service.Finished(r);
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(Body(r)["error"]["message"], "model: missing required parameter (a non-empty string)");
  EXPECT_TRUE(Body(r)["error"]["code"].is_null());
  EXPECT_EQ(service.Stats()["errors"], 5);
  EXPECT_EQ(service.Stats()["requests"], 5);
}

TEST(Service, AnyKeyWithoutTheOptionButAKeyIsNeeded) {
  Service service(ServiceOptions{});
  json body = {{"model", "m"}, {"max_tokens", 1}, {"messages", json::array({{{"role", "user"}, {"content", "x"}}})}};
  ServiceRequest a = Anthropic(body);
  a.x_api_key = "whatever";
  EXPECT_EQ(service.Handle(a).status, 200);
  a.x_api_key.reset();
  EXPECT_EQ(service.Handle(a).status, 401);
  ServiceRequest o = OpenAi({{"model", "m"}, {"messages", json::array({{{"role", "user"}, {"content", "x"}}})}});
  EXPECT_EQ(service.Handle(o).status, 200);
  o.authorization.reset();
  ServiceResponse r = service.Handle(o);
  EXPECT_EQ(r.status, 401);
  EXPECT_TRUE(Body(r)["error"]["code"].is_null());
}

TEST(Service, RecordsTheRequestsItWasSentOnlyWhenAsked) {
  // Without --record nothing is kept, and the route says how to get it.
  Service plain(ServiceOptions{});
  ServiceResponse none = plain.Handle(Get("/requests"));
  EXPECT_EQ(none.status, 404);
  EXPECT_NE(Body(none)["error"]["message"].get<std::string>().find("--record"), std::string::npos);

  ServiceOptions options;
  options.record = 2;
  Service service(options);
  const json first = {{"model", "m"}, {"max_tokens", 16},
                      {"messages", json::array({{{"role", "user"}, {"content", "secret 4111"}}})}};
  ServiceRequest a = Anthropic(first);
  a.idempotency_key = "agent/run/1";
  service.Finished(service.Handle(a));
  ServiceRequest refused = OpenAi({{"model", "m"}});
  refused.authorization.reset();
  refused.body = "\xff not json";
  EXPECT_EQ(service.Handle(refused).status, 401);
  service.Finished(service.Handle(OpenAi(first)));  // the third: past the two kept

  ServiceResponse got = service.Handle(Get("/requests"));
  ASSERT_EQ(got.status, 200);
  json recorded = Body(got);
  ASSERT_EQ(recorded["requests"].size(), 2u);
  EXPECT_EQ(recorded["dropped"], 1);
  EXPECT_EQ(recorded["requests"][0]["api"], "anthropic");
  EXPECT_EQ(recorded["requests"][0]["idempotency_key"], "agent/run/1");
  EXPECT_EQ(json::parse(recorded["requests"][0]["body"].get<std::string>()), first);
  // Refused requests are kept too, their bytes made valid UTF-8.
  EXPECT_EQ(recorded["requests"][1]["api"], "openai");
  EXPECT_TRUE(recorded["requests"][1]["idempotency_key"].is_null());
  EXPECT_EQ(recorded["requests"][1]["body"], "\xef\xbf\xbd not json");
  EXPECT_EQ(service.Handle(ServiceRequest{"POST", "/requests", "", {}, {}, {}, {}}).status, 405);
}

TEST(Service, RoutesAndMethods) {
  Service service(ServiceOptions{});
  ServiceResponse health = service.Handle(Get("/healthz"));
  EXPECT_EQ(health.status, 200);
  EXPECT_EQ(Body(health), json::parse(R"({"status": "ok"})"));
  EXPECT_FALSE(health.in_flight);
  EXPECT_EQ(health.delay.count(), 0);
  EXPECT_EQ(service.Handle(Get("/stats?x=1")).status, 200);

  ServiceResponse missing = service.Handle(Get("/v2/other"));
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(Body(missing)["type"], "error");
  EXPECT_EQ(Body(missing)["error"]["type"], "not_found_error");
  EXPECT_EQ(Body(missing)["error"]["code"], "not_found");
  EXPECT_NE(Body(missing)["error"]["message"].get<std::string>().find("POST /v1/messages"), std::string::npos);
  // Wrong prefix, right API: the error in that API's format.
  ServiceResponse openai_404 = service.Handle(Get("/openai/v1/chat/completions"));
  EXPECT_EQ(openai_404.status, 404);
  EXPECT_FALSE(Body(openai_404).contains("type"));
  EXPECT_EQ(Body(openai_404)["error"]["code"], "not_found");

  ServiceResponse get_model = service.Handle(Get("/v1/messages"));
  EXPECT_EQ(get_model.status, 405);
  EXPECT_EQ(Body(get_model)["error"]["type"], "invalid_request_error");
  ASSERT_EQ(get_model.headers.size(), 1u);
  EXPECT_EQ(get_model.headers[0], (std::pair<std::string, std::string>("Allow", "POST")));
  ServiceRequest post_stats = Get("/stats");
  post_stats.method = "POST";
  EXPECT_EQ(service.Handle(post_stats).status, 405);
  // None of these are model calls.
  EXPECT_EQ(service.Stats()["requests"], 0);
}

TEST(Service, InFlightAndPeak) {
  Service service(ServiceOptions{});
  json body = {{"model", "m"}, {"messages", json::array({{{"role", "user"}, {"content", "x"}}})}};
  std::vector<ServiceResponse> held;
  for (int i = 0; i < 5; ++i) held.push_back(service.Handle(OpenAi(body)));
  EXPECT_EQ(service.Stats()["in_flight"], 5);
  for (int i = 0; i < 3; ++i) service.Finished(held[i]);
  EXPECT_EQ(service.Stats()["in_flight"], 2);
  held.push_back(service.Handle(OpenAi(body)));
  EXPECT_EQ(service.Stats()["in_flight"], 3);
  EXPECT_EQ(service.Stats()["peak_in_flight"], 5);
  service.Finished(service.Handle(Get("/healthz")));  // not a model call: no effect
  EXPECT_EQ(service.Stats()["in_flight"], 3);
}

TEST(Service, IdempotencyKeysSeenBeforeAreCountedAsDuplicates) {
  Service service(ServiceOptions{});
  json body = {{"model", "m"}, {"messages", json::array({{{"role", "user"}, {"content", "x"}}})}};
  for (const char* key : {"agent-1/run-1/1", "agent-1/run-1/2", "agent-1/run-1/1", "agent-2/run-1/1", "agent-1/run-1/1"}) {
    ServiceRequest r = OpenAi(body);
    r.idempotency_key = key;
    service.Finished(service.Handle(r));
  }
  service.Finished(service.Handle(OpenAi(body)));  // no key: not counted
  json stats = service.Stats();
  EXPECT_EQ(stats["idempotency_keys"], 3);
  EXPECT_EQ(stats["duplicates"], 2);
  EXPECT_EQ(stats["requests"], 6);
}

TEST(Service, LatencyAndDeterministicJitter) {
  ServiceOptions options;
  options.latency = std::chrono::milliseconds(100);
  options.jitter = std::chrono::milliseconds(50);
  Service first(options), second(options);
  json body = {{"model", "m"}, {"messages", json::array({{{"role", "user"}, {"content", "x"}}})}};
  std::set<long> seen;
  for (int i = 0; i < 200; ++i) {
    ServiceRequest request = OpenAi(body);
    if (i % 7 == 0) request.authorization.reset();  // errors are held too
    ServiceResponse a = first.Handle(request), b = second.Handle(request);
    EXPECT_GE(a.delay.count(), 100);
    EXPECT_LE(a.delay.count(), 150);
    EXPECT_EQ(a.delay, b.delay) << "request " << i;
    seen.insert(a.delay.count());
  }
  EXPECT_GT(seen.size(), 20u);  // spread over the range, not one value
  EXPECT_EQ(first.Handle(Get("/healthz")).delay.count(), 0);
}

TEST(Service, TooLargeInTheApisFormat) {
  Service service(ServiceOptions{});
  ServiceResponse a = service.TooLarge("/v1/messages");
  EXPECT_EQ(a.status, 413);
  EXPECT_EQ(Body(a)["error"]["type"], "request_too_large");
  ServiceResponse o = service.TooLarge("/v1/chat/completions?x");
  EXPECT_EQ(o.status, 413);
  EXPECT_EQ(Body(o)["error"]["code"], "request_too_large");
  EXPECT_FALSE(Body(o).contains("type"));
  EXPECT_EQ(service.TooLarge("/elsewhere").status, 413);
  EXPECT_EQ(service.Stats()["requests"], 2);
  EXPECT_EQ(service.Stats()["errors"], 2);
  EXPECT_EQ(service.Stats()["in_flight"], 0);
}

}  // namespace
}  // namespace volent::mockmodel
