// The model client end to end: through a real egress::Gate to a small HTTP
// server on 127.0.0.1 started here (reachable only through an allowlist
// entry with cidr 127.0.0.0/8 for the model capability), checking what
// arrives (auth headers, Idempotency-Key, body) and how every outcome
// becomes an error; and that the API key is never in an error or in the
// journal-safe form of a request.
#include "volent/model/client.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "volent/model/anthropic.h"
#include "volent/model/test_conversation.h"

namespace volent::model {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;
using nlohmann::json;

constexpr char kKey[] = "sk-test-SECRET-0123456789";

struct Reply {
  int status = 200;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
};

// Answers each request with `handler`, one connection after another, until
// destroyed; keeps every request it read.
class ModelServer {
 public:
  using Handler = std::function<Reply(const http::request<http::string_body>&)>;

  explicit ModelServer(Handler handler) : handler_(std::move(handler)), acceptor_(ioc_) {
    tcp::endpoint endpoint(net::ip::make_address("127.0.0.1"), 0);
    acceptor_.open(endpoint.protocol());
    acceptor_.bind(endpoint);
    acceptor_.listen();
    port_ = acceptor_.local_endpoint().port();
    thread_ = std::thread([this] { Serve(); });
  }

  ~ModelServer() {
    stopping_ = true;
    net::io_context ioc;  // knock, so the accepting thread wakes and ends
    tcp::socket knock(ioc);
    boost::system::error_code ec;
    knock.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port_), ec);
    knock.close(ec);
    thread_.join();
  }

  int port() const { return port_; }
  std::string Endpoint(std::string_view path = "") const {
    return "http://127.0.0.1:" + std::to_string(port_) + std::string(path);
  }
  std::vector<http::request<http::string_body>> Received() {
    std::lock_guard<std::mutex> lock(mutex_);
    return received_;
  }

 private:
  void Serve() {
    while (!stopping_) {
      boost::system::error_code ec;
      tcp::socket socket = acceptor_.accept(ec);
      if (ec || stopping_) return;
      beast::flat_buffer buffer;
      http::request<http::string_body> request;
      http::read(socket, buffer, request, ec);
      if (ec) continue;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        received_.push_back(request);
      }
      Reply reply = handler_(request);
      http::response<http::string_body> response(static_cast<http::status>(reply.status), 11);
      response.set(http::field::content_type, "application/json");
      for (const auto& [name, value] : reply.headers) response.set(name, value);
      response.body() = reply.body;
      response.prepare_payload();
      http::write(socket, response, ec);
      socket.shutdown(tcp::socket::shutdown_both, ec);
    }
  }

  Handler handler_;
  net::io_context ioc_;
  tcp::acceptor acceptor_;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::mutex mutex_;
  std::vector<http::request<http::string_body>> received_;
  std::thread thread_;
};

// An entry's port 0 means the scheme's default: each test names its server's.
egress::Gate LocalGate(int port) {
  return egress::Gate({{"model.local", "http", "", "127.0.0.0/8", port, "", {"POST"}}});
}

ModelKeys Keys() { return ModelKeys(std::map<std::string, std::string>{{"model.local", kKey}}); }

ModelCall CallFor(const std::string& provider, const std::string& endpoint) {
  ModelCall call;
  call.model = {provider, provider == "anthropic" ? "claude-sonnet-4-5" : "gpt-4o", endpoint, "model.local", 0};
  call.conversation = testing::WholeConversation();
  call.idempotency_key = "refund-agent/run-1/3";
  call.timeout_ms = 10000;
  return call;
}

constexpr char kAnthropicAnswer[] = R"({"id":"msg_1","type":"message","role":"assistant","content":[
    {"type":"text","text":"Refunding half."},
    {"type":"tool_use","id":"toolu_9","name":"issue_refund","input":{"amount":5}}],
    "stop_reason":"tool_use","usage":{"input_tokens":200,"output_tokens":20}})";

constexpr char kOpenAiAnswer[] = R"({"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,
    "message":{"role":"assistant","content":"All done."},"finish_reason":"stop"}],
    "usage":{"prompt_tokens":90,"completion_tokens":3}})";

void ExpectNoKey(const CallResult& r) {
  EXPECT_EQ(r.error.message.find(kKey), std::string::npos) << r.error.message;
  EXPECT_EQ(r.error.message.find("SECRET"), std::string::npos) << r.error.message;
}

TEST(ModelClient, AnthropicEndToEnd) {
  ModelServer server([](const auto&) { return Reply{200, kAnthropicAnswer, {}}; });
  egress::Gate gate = LocalGate(server.port());
  Client client(gate, Keys());
  CallResult r = client.Call(CallFor("anthropic", server.Endpoint("/")));
  ASSERT_TRUE(r.ok()) << r.error.message;
  EXPECT_EQ(r.answer->text, "Refunding half.");
  ASSERT_EQ(r.answer->tool_calls.size(), 1u);
  EXPECT_EQ(r.answer->tool_calls[0].id, "toolu_9");
  EXPECT_EQ(r.answer->tool_calls[0].arguments, json({{"amount", 5}}));
  EXPECT_EQ(r.answer->stop, StopReason::kToolUse);
  EXPECT_EQ(r.answer->usage.input_tokens, 200);
  EXPECT_EQ(r.pinned_address, "127.0.0.1:" + std::to_string(server.port()));

  auto got = server.Received();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].method_string(), "POST");
  EXPECT_EQ(got[0].target(), "/v1/messages");
  EXPECT_EQ(got[0]["x-api-key"], kKey);
  EXPECT_EQ(got[0]["anthropic-version"], "2023-06-01");
  EXPECT_EQ(got[0]["content-type"], "application/json");
  EXPECT_EQ(got[0]["Idempotency-Key"], "refund-agent/run-1/3");
  EXPECT_EQ(got[0].count(http::field::authorization), 0u);
  json body = json::parse(got[0].body());
  EXPECT_EQ(body["model"], "claude-sonnet-4-5");
  EXPECT_EQ(body["messages"].size(), 4u);
}

TEST(ModelClient, OpenAiEndToEnd) {
  ModelServer server([](const auto&) { return Reply{200, kOpenAiAnswer, {}}; });
  egress::Gate gate = LocalGate(server.port());
  Client client(gate, Keys());
  CallResult r = client.Call(CallFor("openai", server.Endpoint("/v1")));
  ASSERT_TRUE(r.ok()) << r.error.message;
  EXPECT_EQ(r.answer->text, "All done.");
  EXPECT_TRUE(r.answer->tool_calls.empty());
  EXPECT_EQ(r.answer->stop, StopReason::kEnd);
  EXPECT_EQ(r.answer->usage.output_tokens, 3);

  auto got = server.Received();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].target(), "/v1/chat/completions");
  EXPECT_EQ(got[0][http::field::authorization], std::string("Bearer ") + kKey);
  EXPECT_EQ(got[0]["Idempotency-Key"], "refund-agent/run-1/3");
  EXPECT_EQ(got[0].count("x-api-key"), 0u);
  EXPECT_EQ(json::parse(got[0].body())["max_completion_tokens"], 512);
}

// SendAsync gives what Send gives, once, and answers a request that cannot
// be sent at once, without going to the gate.
TEST(ModelClient, SendAsyncAnswersLikeSendExactlyOnce) {
  ModelServer server([](const auto&) { return Reply{200, kAnthropicAnswer, {}}; });
  egress::Gate gate = LocalGate(server.port());
  Client client(gate, Keys());
  const json request = JournalSafeRequest(CallFor("anthropic", server.Endpoint()));

  std::mutex mu;
  std::condition_variable cv;
  std::vector<CallResult> results;
  auto collect = [&](CallResult r) {
    std::lock_guard lock(mu);
    results.push_back(std::move(r));
    cv.notify_all();
  };
  client.SendAsync(request, collect);
  json no_key = request;
  no_key["capability"] = "model.other";
  client.SendAsync(no_key, collect);
  client.SendAsync(json{{"type", "model"}, {"error", "no endpoint"}}, collect);
  {
    std::unique_lock lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(30), [&] { return results.size() >= 3; }));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // a second call of a callback would show now
  std::lock_guard lock(mu);
  ASSERT_EQ(results.size(), 3u);
  int answered = 0, config = 0;
  for (const CallResult& r : results) {
    if (r.ok()) {
      ++answered;
      EXPECT_EQ(r.answer->tool_calls.at(0).id, "toolu_9");
      EXPECT_EQ(r.pinned_address, "127.0.0.1:" + std::to_string(server.port()));
    } else {
      EXPECT_EQ(r.error.kind, ErrorKind::kConfig) << r.error.message;
      ++config;
    }
  }
  EXPECT_EQ(answered, 1);
  EXPECT_EQ(config, 2);
  auto got = server.Received();
  ASSERT_EQ(got.size(), 1u);  // the two that could not be sent never reached the gate's server
  EXPECT_EQ(got[0]["x-api-key"], kKey);
  EXPECT_EQ(got[0]["Idempotency-Key"], "refund-agent/run-1/3");
  EXPECT_EQ(json::parse(got[0].body()), request["body"]);
}

TEST(ModelClient, CompatibleEndpointWithAndWithoutKey) {
  ModelServer server([](const auto&) { return Reply{200, kOpenAiAnswer, {}}; });
  egress::Gate gate = LocalGate(server.port());
  ModelCall call = CallFor("openai-compatible", server.Endpoint("/v1/"));
  call.model.max_tokens_per_call = 100;  // the budget caps the conversation's 512
  CallResult r = Client(gate, Keys()).Call(call);
  ASSERT_TRUE(r.ok()) << r.error.message;
  r = Client(gate, ModelKeys()).Call(call);  // a local server that needs no key
  ASSERT_TRUE(r.ok()) << r.error.message;
  auto got = server.Received();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].target(), "/v1/chat/completions");
  EXPECT_EQ(got[0][http::field::authorization], std::string("Bearer ") + kKey);
  EXPECT_EQ(json::parse(got[0].body())["max_tokens"], 100);
  EXPECT_EQ(got[1].count(http::field::authorization), 0u);
}

TEST(ModelClient, HttpErrorsCarryTheProvidersWordsButNotTheKey) {
  Reply reply;
  ModelServer server([&reply](const auto&) { return reply; });
  egress::Gate gate = LocalGate(server.port());
  Client client(gate, Keys());

  reply = {401, R"({"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key )" +
                    std::string(kKey) + "\"}}", {}};
  CallResult r = client.Call(CallFor("anthropic", server.Endpoint()));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error.kind, ErrorKind::kRejected);
  EXPECT_EQ(r.error.http_status, 401);
  EXPECT_FALSE(r.error.retryable());
  EXPECT_NE(r.error.message.find("HTTP 401: authentication_error: invalid x-api-key [redacted]"), std::string::npos)
      << r.error.message;
  EXPECT_NE(r.error.message.find("model_keys"), std::string::npos) << r.error.message;
  ExpectNoKey(r);

  // An echo of the key where the excerpt of the provider's words is cut:
  // no piece of it is left either.
  reply = {400, R"({"error":{"message":")" + std::string(285, 'x') + kKey + "\"}}", {}};
  r = client.Call(CallFor("openai", server.Endpoint()));
  EXPECT_EQ(r.error.kind, ErrorKind::kRejected);
  EXPECT_EQ(r.error.message.find("sk-test"), std::string::npos) << r.error.message;
  ExpectNoKey(r);

  reply = {429, R"({"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}})", {}};
  r = client.Call(CallFor("openai", server.Endpoint()));
  EXPECT_EQ(r.error.kind, ErrorKind::kUnavailable);
  EXPECT_TRUE(r.error.retryable());
  EXPECT_NE(r.error.message.find("HTTP 429: requests: Rate limit reached"), std::string::npos) << r.error.message;

  reply = {529, R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})", {}};
  r = client.Call(CallFor("anthropic", server.Endpoint()));
  EXPECT_EQ(r.error.kind, ErrorKind::kUnavailable);
  EXPECT_NE(r.error.message.find("overloaded_error: Overloaded"), std::string::npos) << r.error.message;

  reply = {404, "<html>no such model</html>", {}};
  r = client.Call(CallFor("openai", server.Endpoint()));
  EXPECT_EQ(r.error.kind, ErrorKind::kRejected);
  EXPECT_NE(r.error.message.find("HTTP 404: <html>no such model</html>"), std::string::npos) << r.error.message;
  EXPECT_NE(r.error.message.find("spec.model.name"), std::string::npos) << r.error.message;

  reply = {302, "", {{"Location", "https://elsewhere.example/"}}};
  r = client.Call(CallFor("openai", server.Endpoint()));
  EXPECT_EQ(r.error.kind, ErrorKind::kRejected);
  EXPECT_NE(r.error.message.find("redirect (HTTP 302 to \"https://elsewhere.example/\")"), std::string::npos)
      << r.error.message;

  reply = {200, R"({"choices":[{"message":{"tool_calls":[{"id":"c1","type":"function",
                    "function":{"name":"f","arguments":"{oops"}}]},"finish_reason":"tool_calls"}]})", {}};
  r = client.Call(CallFor("openai", server.Endpoint()));
  EXPECT_EQ(r.error.kind, ErrorKind::kMalformed);
  EXPECT_NE(r.error.message.find("tool call \"c1\" (f) has arguments that are not valid JSON"), std::string::npos)
      << r.error.message;
  ExpectNoKey(r);
}

TEST(ModelClient, EgressOutcomesBecomeErrors) {
  egress::Gate gate = LocalGate(1);
  Client client(gate, Keys());

  // Denied: the capability has no entry for this host (nothing is sent).
  ModelCall call = CallFor("anthropic", "");  // api.anthropic.com: not on this allowlist
  CallResult r = client.Call(call);
  EXPECT_EQ(r.error.kind, ErrorKind::kDenied);
  EXPECT_NE(r.error.message.find("egress gate denied the model call under capability model.local"),
            std::string::npos) << r.error.message;
  ExpectNoKey(r);

  // Not sent: nothing listens on the port.
  int closed_port;
  {
    net::io_context ioc;
    tcp::acceptor a(ioc, tcp::endpoint(net::ip::make_address("127.0.0.1"), 0));
    closed_port = a.local_endpoint().port();
  }
  egress::Gate closed_gate = LocalGate(closed_port);
  r = Client(closed_gate, Keys()).Call(CallFor("openai", "http://127.0.0.1:" + std::to_string(closed_port)));
  EXPECT_EQ(r.error.kind, ErrorKind::kNotSent);
  EXPECT_TRUE(r.error.retryable());
  EXPECT_NE(r.error.message.find("could not be reached"), std::string::npos) << r.error.message;

  // Failed: the server hangs up without an answer.
  {
    net::io_context ioc;
    tcp::acceptor a(ioc, tcp::endpoint(net::ip::make_address("127.0.0.1"), 0));
    const int port = a.local_endpoint().port();
    std::thread t([&a] {
      boost::system::error_code ec;
      tcp::socket s = a.accept(ec);
      char buf[4096];
      s.read_some(net::buffer(buf), ec);
      s.close(ec);
    });
    egress::Gate hangup_gate = LocalGate(port);
    r = Client(hangup_gate, Keys()).Call(CallFor("openai", "http://127.0.0.1:" + std::to_string(port)));
    t.join();
  }
  EXPECT_EQ(r.error.kind, ErrorKind::kFailed);
  EXPECT_NE(r.error.message.find("may have reached the provider"), std::string::npos) << r.error.message;
  ExpectNoKey(r);
}

TEST(ModelClient, ConfigurationErrors) {
  egress::Gate gate = LocalGate(1);
  Client client(gate, ModelKeys());
  CallResult r = client.Call(CallFor("anthropic", "http://127.0.0.1:1"));
  EXPECT_EQ(r.error.kind, ErrorKind::kConfig);
  EXPECT_NE(r.error.message.find("no API key is configured for capability model.local"), std::string::npos)
      << r.error.message;

  ModelCall call = CallFor("anthropic", "http://127.0.0.1:1");
  call.model.capability = "";
  r = client.Call(call);
  EXPECT_EQ(r.error.kind, ErrorKind::kConfig);
  EXPECT_NE(r.error.message.find("spec.model.capability"), std::string::npos) << r.error.message;

  call = CallFor("openai-compatible", "");
  r = client.Call(call);
  EXPECT_NE(r.error.message.find("spec.model.endpoint"), std::string::npos) << r.error.message;

  call = CallFor("gemini", "http://127.0.0.1:1");
  r = client.Call(call);
  EXPECT_NE(r.error.message.find("unknown model provider \"gemini\""), std::string::npos) << r.error.message;

  r = client.Send(json::array());
  EXPECT_EQ(r.error.kind, ErrorKind::kConfig);
  r = client.Send(json{{"type", "model"}, {"provider", "openai"}});
  EXPECT_NE(r.error.message.find("incomplete"), std::string::npos) << r.error.message;
}

TEST(ModelClient, JournalSafeFormHoldsNoKeyAndIsWhatIsSent) {
  ModelServer server([](const auto&) { return Reply{200, kAnthropicAnswer, {}}; });
  egress::Gate gate = LocalGate(server.port());
  Client client(gate, Keys());
  ModelCall call = CallFor("anthropic", server.Endpoint());
  json journaled = JournalSafeRequest(call);
  EXPECT_EQ(journaled.dump().find("SECRET"), std::string::npos);
  EXPECT_EQ(journaled["type"], "model");
  EXPECT_EQ(journaled["url"], server.Endpoint("/v1/messages"));
  EXPECT_EQ(journaled["capability"], "model.local");
  EXPECT_EQ(journaled["headers"],
            json({{"content-type", "application/json"}, {"accept", "application/json"}, {"user-agent", "volent"},
                  {"Idempotency-Key", "refund-agent/run-1/3"}, {"anthropic-version", "2023-06-01"}}));
  EXPECT_EQ(journaled["body"], AnthropicRequestBody("claude-sonnet-4-5", testing::WholeConversation()));
  EXPECT_EQ(journaled["timeout_ms"], 10000);

  // A journaled request that (wrongly) carries a key header: it is not sent
  // as written; the configured key is.
  json tampered = journaled;
  tampered["headers"]["X-Api-Key"] = "something-else";
  CallResult r = client.Send(tampered);
  ASSERT_TRUE(r.ok()) << r.error.message;
  CallResult again = client.Send(journaled);  // a replay after a crash: the same request
  ASSERT_TRUE(again.ok()) << again.error.message;
  auto got = server.Received();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0]["x-api-key"], kKey);
  EXPECT_EQ(got[0].body(), got[1].body());
  EXPECT_EQ(json::parse(got[1].body()), journaled["body"]);
  EXPECT_EQ(got[1]["Idempotency-Key"], "refund-agent/run-1/3");

  json failed = JournalSafeRequest(CallFor("nope", ""));
  EXPECT_EQ(failed["type"], "model");
  EXPECT_TRUE(failed["error"].is_string());
}

TEST(ModelClient, ReadsTheModelSpecOfAManifest) {
  json manifest = json::parse(R"({"apiVersion":"volent/v1","kind":"Agent","metadata":{"name":"a"},
      "spec":{"model":{"provider":"openai-compatible","name":"llama","endpoint":"http://10.0.0.5:8000/v1",
      "capability":"model.local","budget":{"max_tokens_per_call":2048}}}})");
  ModelSpec spec = ReadModelSpec(manifest);
  EXPECT_EQ(spec.provider, "openai-compatible");
  EXPECT_EQ(spec.name, "llama");
  EXPECT_EQ(spec.endpoint, "http://10.0.0.5:8000/v1");
  EXPECT_EQ(spec.capability, "model.local");
  EXPECT_EQ(spec.max_tokens_per_call, 2048);
  EXPECT_EQ(ReadModelSpec(json::array()).provider, "");
}

}  // namespace
}  // namespace volent::model
