// Runs, approvals and the journal through the control API, in process: a
// fake agent::Runs (so every refusal can be provoked) and a real journal in
// a temporary folder.
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/rfc3339.h"
#include "volent/control/api.h"
#include "volent/control/json_api.h"
#include "volent/control/test_fixtures.h"
#include "volent/manifest/schema_validation.h"

namespace volent::control {
namespace {

using nlohmann::json;

using testing::FakeRuns;
using testing::kT0;

class RunsApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/control_runs_test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    auto store = store::AgentStore::Open("");
    ASSERT_TRUE(store.ok());
    store_ = std::move(*store);
    journal::OpenOptions options;
    options.clock = [this] { return now_ms_; };
    auto j = journal::Journal::Open(dir_, options);
    ASSERT_TRUE(j.ok()) << j.message();
    journal_ = std::move(*j);
    Build(&runs_, journal_.get());
  }
  void TearDown() override {
    api_.reset();
    journal_.reset();
    std::filesystem::remove_all(dir_);
  }
  void Build(agent::Runs* runs, journal::Journal* journal) {
    api_.reset();
    ApiContext ctx;
    ctx.store = store_.get();
    ctx.runs = runs;
    ctx.journal = journal;
    api_ = std::make_unique<ControlApi>(ctx);
  }

  Response Call(std::string method, std::string target, std::string body = "",
                std::string content_type = "application/json") {
    Request r;
    r.method = std::move(method);
    SplitTarget(target, r);
    r.body = std::move(body);
    if (r.method == "POST") r.content_type = std::move(content_type);
    Response response = api_->Dispatch(r);
    for (const char* word : {"nlohmann", "sqlite", "exception", "std::"}) {
      EXPECT_EQ(response.body.find(word), std::string::npos) << word << " in " << response.body;
    }
    return response;
  }
  json Ok(const Response& r, int status = 200) {
    EXPECT_EQ(r.status, status) << r.body;
    EXPECT_EQ(r.content_type, "application/json");
    return json::parse(r.body, nullptr, false);
  }
  json Problem(const Response& r, int status, const std::string& slug) {
    EXPECT_EQ(r.status, status) << r.body;
    EXPECT_EQ(r.content_type, "application/problem+json");
    json j = json::parse(r.body, nullptr, false);
    EXPECT_EQ(j.value("type", ""), "urn:volent:problem:" + slug) << r.body;
    EXPECT_EQ(j.value("status", 0), status);
    EXPECT_FALSE(j.value("title", "").empty());
    EXPECT_FALSE(j.value("detail", "").empty());
    return j;
  }
  // The pointers of a validation problem's errors.
  static std::vector<std::string> Pointers(const json& problem) {
    std::vector<std::string> out;
    for (const auto& e : problem.value("errors", json::array())) out.push_back(e.value("pointer", "?"));
    return out;
  }
  static std::string Header(const Response& r, const std::string& name) {
    for (const auto& [n, v] : r.headers) {
      if (n == name) return v;
    }
    return "";
  }

  std::string dir_;
  int64_t now_ms_ = kT0;
  FakeRuns runs_;
  std::unique_ptr<store::AgentStore> store_;
  std::unique_ptr<journal::Journal> journal_;
  std::unique_ptr<ControlApi> api_;
};

// --- the time format ------------------------------------------------------------------------

TEST(TimeFormat, TimeOrNull) {
  EXPECT_TRUE(TimeOrNull(0).is_null());
  EXPECT_EQ(TimeOrNull(kT0), "2026-11-30T02:01:07.123Z");
}

// --- runs -----------------------------------------------------------------------------------------

TEST_F(RunsApiTest, StartWithAnIdIsIdempotent) {
  Response created = Call("POST", "/v1/agents/bot/runs", R"({"id":"order-17","input":{"order":17}})");
  json run = Ok(created, 201);
  EXPECT_EQ(Header(created, "Location"), "/v1/agents/bot/runs/order-17");
  EXPECT_EQ(run, json::parse(R"({"agent":"bot","id":"order-17","status":"running","input":{"order":17},
      "output":null,"error":null,"steps_done":0,"started_at":"2026-11-30T02:01:07.123Z","finished_at":null})"));

  Response again = Call("POST", "/v1/agents/bot/runs", R"({"id":"order-17","input":{"order":99}})");
  json same = Ok(again, 200);
  EXPECT_EQ(Header(again, "Location"), "/v1/agents/bot/runs/order-17");
  EXPECT_EQ(same["input"], json({{"order", 17}}));  // the existing run, as it is
  EXPECT_EQ(runs_.ListRuns("", 10).size(), 1u);
}

TEST_F(RunsApiTest, StartWithoutIdOrInput) {
  json run = Ok(Call("POST", "/v1/agents/bot/runs", "{}"), 201);
  EXPECT_EQ(run["id"], "r1");
  EXPECT_EQ(run["input"], json::object());
  json scalar = Ok(Call("POST", "/v1/agents/bot/runs", R"({"input":"refund order 17"})"), 201);
  EXPECT_EQ(scalar["input"], "refund order 17");
  json null_input = Ok(Call("POST", "/v1/agents/bot/runs", R"({"input":null})"), 201);
  EXPECT_TRUE(null_input["input"].is_null());
}

TEST_F(RunsApiTest, StartBodyProblems) {
  json p = Problem(Call("POST", "/v1/agents/bot/runs", "{\"id\":\n  }"), 400, "malformed-body");
  ASSERT_EQ(p["errors"].size(), 1u);
  EXPECT_EQ(p["errors"][0]["line"], 2);
  Problem(Call("POST", "/v1/agents/bot/runs", ""), 400, "malformed-body");
  Problem(Call("POST", "/v1/agents/bot/runs", "{} {}"), 400, "malformed-body");
  Problem(Call("POST", "/v1/agents/bot/runs", "{\"id\":\"\xff\"}"), 400, "malformed-body");
  Problem(Call("POST", "/v1/agents/bot/runs", std::string(100000, '[') + std::string(100000, ']')), 400,
          "malformed-body");
  std::string deep_input = R"({"input":)" + std::string(63, '[') + std::string(63, ']') + "}";
  Ok(Call("POST", "/v1/agents/bot/runs", deep_input), 201);  // 64 levels in all: the limit
  Problem(Call("POST", "/v1/agents/bot/runs", R"({"input":[)" + std::string(63, '[') + std::string(64, ']') + "}"),
          400, "malformed-body");

  EXPECT_EQ(Pointers(Problem(Call("POST", "/v1/agents/bot/runs", "[]"), 422, "invalid-body")),
            std::vector<std::string>{""});
  EXPECT_EQ(Pointers(Problem(Call("POST", "/v1/agents/bot/runs", R"({"inptu":{},"a/b~":1})"), 422, "invalid-body")),
            (std::vector<std::string>{"/a~1b~0", "/inptu"}));
  for (const char* id : {R"("")", R"("has space")", R"("a/b")", "17", "null", R"(["x"])"}) {
    json bad = Problem(Call("POST", "/v1/agents/bot/runs", std::string(R"({"id":)") + id + "}"), 422, "invalid-body");
    EXPECT_EQ(Pointers(bad), std::vector<std::string>{"/id"}) << id;
  }
  Problem(Call("POST", "/v1/agents/bot/runs", R"({"id":")" + std::string(65, 'a') + "\"}"), 422, "invalid-body");
  Ok(Call("POST", "/v1/agents/bot/runs", R"({"id":")" + std::string(64, 'a') + "\"}"), 201);
  // Both at once: every field error in one answer.
  EXPECT_EQ(Pointers(Problem(Call("POST", "/v1/agents/bot/runs", R"({"id":1,"x":2})"), 422, "invalid-body")).size(),
            2u);

  Problem(Call("POST", "/v1/agents/bot/runs", "{}", "text/plain"), 415, "unsupported-media-type");
  Problem(Call("POST", "/v1/agents/bot/runs", "{}", ""), 415, "unsupported-media-type");
  Problem(Call("POST", "/v1/agents/Bad_Name/runs", "{}"), 400, "bad-request");
  EXPECT_EQ(runs_.ListRuns("", 100).size(), 2u);  // only the two accepted above
}

TEST_F(RunsApiTest, StartRefusals) {
  EXPECT_EQ(Problem(Call("POST", "/v1/agents/missing/runs", "{}"), 404, "not-found")["detail"],
            "no agent named missing");
  Problem(Call("POST", "/v1/agents/rejected/runs", "{}"), 409, "conflict");
  Problem(Call("POST", "/v1/agents/down/runs", "{}"), 503, "unavailable");
  Problem(Call("POST", "/v1/agents/bot/runs", R"({"input":{"invalid":true}})"), 400, "bad-request");
}

TEST_F(RunsApiTest, GetRun) {
  Ok(Call("POST", "/v1/agents/bot/runs", R"({"id":"a1"})"), 201);
  runs_.Finish(0, {{"answer", "refunded"}});
  json run = Ok(Call("GET", "/v1/agents/bot/runs/a1"));
  EXPECT_EQ(run["status"], "finished");
  EXPECT_EQ(run["output"]["answer"], "refunded");
  EXPECT_EQ(run["steps_done"], 5);
  EXPECT_EQ(run["finished_at"], "2026-11-30T02:01:12.123Z");
  EXPECT_TRUE(run["error"].is_null());

  Ok(Call("POST", "/v1/agents/bot/runs", R"({"id":"a2"})"), 201);
  runs_.Finish(1, nullptr, "the model provider answered 401: check the key");
  json failed = Ok(Call("GET", "/v1/agents/bot/runs/a2"));
  EXPECT_EQ(failed["status"], "failed");
  EXPECT_EQ(failed["error"], "the model provider answered 401: check the key");

  Problem(Call("GET", "/v1/agents/bot/runs/nope"), 404, "not-found");
  Problem(Call("GET", "/v1/agents/other/runs/a1"), 404, "not-found");
  Problem(Call("GET", "/v1/agents/bot/runs/" + std::string(65, 'a')), 400, "bad-request");
  Problem(Call("GET", "/v1/agents/bot/runs/a.b"), 400, "bad-request");
  Problem(Call("GET", "/v1/agents/BOT/runs/a1"), 400, "bad-request");
  Problem(Call("DELETE", "/v1/agents/bot/runs/a1"), 405, "method-not-allowed");
}

TEST_F(RunsApiTest, GetRunByIdAlone) {
  Ok(Call("POST", "/v1/agents/bot/runs", R"({"id":"order-17"})"), 201);
  json run = Ok(Call("GET", "/v1/runs/order-17"));
  EXPECT_EQ(run["agent"], "bot");
  EXPECT_EQ(run["id"], "order-17");
  EXPECT_TRUE(run["tool_calls"].is_array());
  EXPECT_EQ(run, Ok(Call("GET", "/v1/agents/bot/runs/order-17")));
  // Ids are unique per agent: an id two agents use names both, never picks one.
  Ok(Call("POST", "/v1/agents/clerk/runs", R"({"id":"order-17"})"), 201);
  json both = Problem(Call("GET", "/v1/runs/order-17"), 409, "conflict");
  EXPECT_NE(both["detail"].get<std::string>().find("/v1/agents/bot/runs/order-17, /v1/agents/clerk/runs/order-17"),
            std::string::npos)
      << both;
  Problem(Call("GET", "/v1/runs/nope"), 404, "not-found");
  Problem(Call("GET", "/v1/runs/a.b"), 400, "bad-request");
}

// A sealed call's requests are listed from their journal entries, each as
// soon as it is journaled (before it is sent): a call under way, and one
// that failed out of time, list them all the same.
TEST_F(RunsApiTest, GetRunListsASealedCallsRequestsAsJournaled) {
  Ok(Call("POST", "/v1/agents/bot/runs", R"({"id":"x1"})"), 201);
  const journal::EffectKey step{"bot", "x1", 1};
  ASSERT_TRUE(journal_->BeginEffect(step, {{"type", "tool"}, {"tool", "move"}, {"kind", "python"}}).ok());
  using journal::EntryKind;
  ASSERT_TRUE(journal_->AppendForRequest(EntryKind::kToolHttpRequest, step, 1,
                                         {{"number", 1}, {"request", {{"url", "http://internal/payroll"}}}})
                  .ok());
  now_ms_ += 5;
  ASSERT_TRUE(journal_->AppendForRequest(EntryKind::kToolHttpAnswer, step, 1,
                                         {{"number", 1}, {"answer", {{"status", 200}, {"body", "{}"}}}})
                  .ok());
  ASSERT_TRUE(journal_->AppendForRequest(EntryKind::kToolHttpRequest, step, 2,
                                         {{"number", 2},
                                          {"request", {{"method", "POST"}, {"url", "http://elsewhere/"}, {"body", "x"}}}})
                  .ok());
  json run = Ok(Call("GET", "/v1/agents/bot/runs/x1"));
  ASSERT_EQ(run["tool_calls"].size(), 1u) << run;
  const json& call = run["tool_calls"][0];
  EXPECT_EQ(call["step"], 1);
  EXPECT_EQ(call["tool"], "move");
  EXPECT_EQ(call["outcome"], "in-progress");
  ASSERT_EQ(call["http_requests"].size(), 2u) << call;
  EXPECT_EQ(call["http_requests"][0], json({{"number", 1},
                                            {"method", "GET"},
                                            {"url", "http://internal/payroll"},
                                            {"requested_at", core::Rfc3339Millis(kT0)},
                                            {"answered_at", core::Rfc3339Millis(kT0 + 5)},
                                            {"status", 200},
                                            {"error", nullptr}}));
  EXPECT_EQ(call["http_requests"][1]["method"], "POST");
  EXPECT_TRUE(call["http_requests"][1]["answered_at"].is_null());
  EXPECT_TRUE(call["http_requests"][1]["status"].is_null());

  // Out of time: the completion has no receipt, but its stdin and exchanges.
  ASSERT_TRUE(journal_->AppendForRequest(EntryKind::kToolHttpAnswer, step, 2,
                                         {{"number", 2}, {"answer", {{"error", "failed"}, {"reason", "timed out"}}}})
                  .ok());
  ASSERT_TRUE(journal_->CompleteEffect(step, {{"type", "tool"}, {"tool", "move"}, {"outcome", "failed"},
                                              {"reason", "the tool ran out of time"}, {"stdin", "{}"},
                                              {"http_exchanges", "{...}\n{...}\n"}})
                  .ok());
  run = Ok(Call("GET", "/v1/agents/bot/runs/x1"));
  const json& done = run["tool_calls"][0];
  EXPECT_EQ(done["outcome"], "failed");
  EXPECT_EQ(done["stdin"], "{}");
  EXPECT_EQ(done["http_exchanges"], "{...}\n{...}\n");
  EXPECT_FALSE(done.contains("receipt"));
  EXPECT_EQ(done["http_requests"][1]["error"], "failed");
  EXPECT_TRUE(done["http_requests"][1]["status"].is_null());

  // The body is the documented one.
  const json doc = json::parse(api_->openapi_json());
  manifest::CompiledSchema schema(
      doc["paths"]["/v1/agents/{name}/runs/{id}"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]);
  ASSERT_EQ(schema.error(), "");
  std::vector<manifest::SchemaError> errors;
  EXPECT_TRUE(schema.Validate(run, &errors)) << (errors.empty() ? "" : errors[0].pointer + " " + errors[0].description);
  const json& items = doc["paths"]["/v1/agents/{name}/runs/{id}"]["get"]["responses"]["200"]["content"]
                         ["application/json"]["schema"]["properties"]["tool_calls"]["items"]["properties"];
  EXPECT_TRUE(items.contains("http_requests")) << items;
}

// A tool call's outcome is named through the one mapping: a completion whose
// outcome is not one of them (another version's, or text of any kind) is
// listed as "unknown", not passed on.
TEST_F(RunsApiTest, AToolCallsUnknownOutcomeIsNotPassedOn) {
  Ok(Call("POST", "/v1/agents/bot/runs", R"({"id":"x1"})"), 201);
  const journal::EffectKey step{"bot", "x1", 1};
  ASSERT_TRUE(journal_->BeginEffect(step, {{"type", "tool"}, {"tool", "move"}, {"kind", "python"}}).ok());
  ASSERT_TRUE(journal_->CompleteEffect(step, {{"type", "tool"}, {"tool", "move"}, {"outcome", "<b>answered</b>"}}).ok());
  json run = Ok(Call("GET", "/v1/agents/bot/runs/x1"));
  ASSERT_EQ(run["tool_calls"].size(), 1u) << run;
  EXPECT_EQ(run["tool_calls"][0]["outcome"], "unknown");
}

TEST_F(RunsApiTest, ListRuns) {
  for (const char* agent : {"a", "b", "a", "b", "a"}) Ok(Call("POST", std::string("/v1/agents/") + agent + "/runs", "{}"), 201);
  json all = Ok(Call("GET", "/v1/runs"));
  ASSERT_EQ(all["runs"].size(), 5u);
  EXPECT_EQ(all["runs"][0]["id"], "r5");  // newest first
  EXPECT_EQ(all["runs"][4]["id"], "r1");
  json of_a = Ok(Call("GET", "/v1/runs?agent=a&limit=2"));
  ASSERT_EQ(of_a["runs"].size(), 2u);
  EXPECT_EQ(of_a["runs"][0]["id"], "r5");
  EXPECT_EQ(of_a["runs"][1]["id"], "r3");
  EXPECT_EQ(Ok(Call("GET", "/v1/runs?agent=nobody"))["runs"], json::array());
  EXPECT_EQ(Ok(Call("GET", "/v1/runs?limit=1000"))["runs"].size(), 5u);
  for (const char* q : {"limit=0", "limit=1001", "limit=x", "limit=", "limit=-1", "agent=Not_A_Name"}) {
    Problem(Call("GET", std::string("/v1/runs?") + q), 400, "bad-request");
  }
}

// --- approvals -------------------------------------------------------------------------------------

TEST_F(RunsApiTest, ListAndGetApprovals) {
  EXPECT_EQ(Ok(Call("GET", "/v1/approvals"))["approvals"], json::array());
  runs_.AddApproval(1, "r1", "refund");
  runs_.AddApproval(2, "r2", "refund");
  json list = Ok(Call("GET", "/v1/approvals"));
  ASSERT_EQ(list["approvals"].size(), 2u);
  EXPECT_EQ(list["approvals"][0], json::parse(R"({"id":"1","agent":"bot","run":"r1","step":3,"tool":"refund",
      "arguments":{"amount":42},"requested_at":"2026-11-30T02:01:07.124Z","state":"pending",
      "decided_by":null,"decided_by_identity":null,"reason":null,"decided_at":null,"signature":null,
      "call_digest":"sha256:0000000000000000000000000000000000000000000000000000000000000001"})"));
  EXPECT_EQ(list["approvals"][1]["id"], "2");
  EXPECT_EQ(Ok(Call("GET", "/v1/approvals/2"))["run"], "r2");

  Ok(Call("POST", "/v1/approvals/1/deny", "{}"));
  EXPECT_EQ(Ok(Call("GET", "/v1/approvals"))["approvals"].size(), 1u);
  EXPECT_EQ(Ok(Call("GET", "/v1/approvals?state=pending"))["approvals"].size(), 1u);
  json all = Ok(Call("GET", "/v1/approvals?state=all"));
  ASSERT_EQ(all["approvals"].size(), 2u);
  EXPECT_EQ(all["approvals"][0]["state"], "denied");
  EXPECT_TRUE(all["approvals"][0]["reason"].is_null());

  for (const char* q : {"state=done", "state=", "state=ALL"}) {
    Problem(Call("GET", std::string("/v1/approvals?") + q), 400, "bad-request");
  }
  Problem(Call("GET", "/v1/approvals/99"), 404, "not-found");
  Problem(Call("GET", "/v1/approvals/ap-1"), 400, "bad-request");
  Problem(Call("GET", "/v1/approvals/" + std::string(21, '1')), 400, "bad-request");
  Problem(Call("POST", "/v1/approvals", "{}"), 405, "method-not-allowed");
}

TEST_F(RunsApiTest, ApproveThenTheDecisionIsFinal) {
  runs_.AddApproval(7, "r1", "refund");
  // Without authentication (no Authenticator), the decider is the
  // development principal; control_auth_test covers real identities.
  json a = Ok(Call("POST", "/v1/approvals/7/approve", R"({"reason":"verified by phone"})"));
  EXPECT_EQ(a["state"], "approved");
  EXPECT_EQ(a["decided_by"], "development (no authentication)");
  EXPECT_EQ(a["decided_by_identity"], json::parse(R"({"kind":"development"})"));
  EXPECT_EQ(a["reason"], "verified by phone");
  EXPECT_EQ(a["decided_at"], "2026-11-30T02:02:07.123Z");
  EXPECT_EQ(Ok(Call("GET", "/v1/approvals/7"))["state"], "approved");

  json again = Problem(Call("POST", "/v1/approvals/7/deny", "{}"), 409, "conflict");
  std::string detail = again["detail"];
  EXPECT_NE(detail.find("already approved by development (no authentication) at 2026-11-30T02:02:07.123Z"),
            std::string::npos)
      << detail;
  Problem(Call("POST", "/v1/approvals/7/approve", "{}"), 409, "conflict");
  EXPECT_EQ(Ok(Call("GET", "/v1/approvals/7"))["decided_by"], "development (no authentication)");
}

TEST_F(RunsApiTest, Deny) {
  runs_.AddApproval(8, "r1", "refund");
  json d = Ok(Call("POST", "/v1/approvals/8/deny", "{\"reason\":\"amount too high; Zoë Ñ, see ticket 4\"}"));
  EXPECT_EQ(d["state"], "denied");
  EXPECT_EQ(d["reason"], "amount too high; Zoë Ñ, see ticket 4");
  EXPECT_EQ(Problem(Call("POST", "/v1/approvals/8/approve", "{}"), 409, "conflict")["detail"],
            "approval 8 was already denied by development (no authentication) at 2026-11-30T02:02:07.123Z; a "
            "decision is final");
}

TEST_F(RunsApiTest, DecisionBodyProblems) {
  runs_.AddApproval(9, "r1", "refund");
  for (const char* verb : {"approve", "deny"}) {
    const std::string path = std::string("/v1/approvals/9/") + verb;
    Problem(Call("POST", path, "{\"by\":"), 400, "malformed-body");
    Problem(Call("POST", path, ""), 400, "malformed-body");
    EXPECT_EQ(Pointers(Problem(Call("POST", path, R"("alice")"), 422, "invalid-body")), std::vector<std::string>{""});
    // Who decides is the credential's business, never the body's.
    EXPECT_EQ(Pointers(Problem(Call("POST", path, R"({"by":"alice"})"), 422, "invalid-body")),
              std::vector<std::string>{"/by"});
    EXPECT_EQ(Pointers(Problem(Call("POST", path, R"({"note":"x"})"), 422, "invalid-body")),
              std::vector<std::string>{"/note"});
    EXPECT_EQ(Pointers(Problem(Call("POST", path, R"({"signature":"x"})"), 422, "invalid-body")),
              std::vector<std::string>{"/signature"});
    for (const std::string& by : {std::string(R"("")"), std::string(R"("   ")"), std::string("null"),
                                  std::string("42"), "\"" + std::string(201, 'a') + "\"",
                                  std::string(R"("a\nb")"), std::string(R"("a\u0000b")"),
                                  std::string(R"("a\u0085b")"), std::string(R"("a\u007fb")")}) {
      EXPECT_EQ(Pointers(Problem(Call("POST", path, "{\"by\":" + by + "}"), 422, "invalid-body")),
                std::vector<std::string>{"/by"})
          << by;
    }
    for (const std::string& reason : {"\"" + std::string(1001, 'r') + "\"", std::string("7"),
                                      std::string(R"("a\u0007")"), std::string(R"("two\nlines")"),
                                      std::string(R"("a\u0085")")}) {
      EXPECT_EQ(Pointers(Problem(Call("POST", path, R"({"reason":)" + reason + "}"), 422, "invalid-body")),
                std::vector<std::string>{"/reason"})
          << reason;
    }
    Problem(Call("POST", path, "{}", "text/plain"), 415, "unsupported-media-type");
  }
  // 1,000 bytes of UTF-8 is the limit of a reason.
  EXPECT_EQ(Ok(Call("POST", "/v1/approvals/9/approve", "{\"reason\":\"" + std::string(1000, 'r') + "\"}"))["state"],
            "approved");
}

TEST_F(RunsApiTest, DecisionOnUnknownOrBadIds) {
  Problem(Call("POST", "/v1/approvals/12345/approve", "{}"), 404, "not-found");
  Problem(Call("POST", "/v1/approvals/12345/deny", "{}"), 404, "not-found");
  Problem(Call("POST", "/v1/approvals/abc/approve", "{}"), 400, "bad-request");
  Problem(Call("POST", "/v1/approvals/-1/deny", "{}"), 400, "bad-request");
  Problem(Call("GET", "/v1/approvals/1/approve"), 405, "method-not-allowed");
}

// --- the journal -------------------------------------------------------------------------------------

TEST_F(RunsApiTest, EmptyJournal) {
  json page = Ok(Call("GET", "/v1/journal"));
  EXPECT_EQ(page["digest"]["entries"], 0);
  EXPECT_EQ(page["digest"]["head"], "sha256:" + std::string(journal::kGenesisHash));
  EXPECT_EQ(page["entries"], json::array());
  EXPECT_TRUE(page["next"].is_null());
}

TEST_F(RunsApiTest, JournalPages) {
  journal::EffectKey start{"bot", "r1", 0};
  ASSERT_TRUE(journal_->Append(journal::EntryKind::kRunStarted, start, {{"input", {{"order", 17}}}}).ok());
  for (uint64_t step = 1; step <= 3; ++step) {
    now_ms_ += 1000;
    journal::EffectKey key{"bot", "r1", step};
    ASSERT_TRUE(journal_->BeginEffect(key, {{"tool", "refund"}, {"step", step}}).ok());
    ASSERT_TRUE(journal_->CompleteEffect(key, {{"status", 200}}).ok());
  }
  auto digest = journal_->GetDigest();
  ASSERT_TRUE(digest.ok());

  json first = Ok(Call("GET", "/v1/journal?limit=3"));
  EXPECT_EQ(first["digest"]["entries"], 7);
  EXPECT_EQ(first["digest"]["head"], digest->ToString());
  ASSERT_EQ(first["entries"].size(), 3u);
  EXPECT_EQ(first["next"], 3);
  const json& e1 = first["entries"][0];
  EXPECT_EQ(e1["seq"], 1);
  EXPECT_EQ(e1["kind"], "run-started");
  EXPECT_EQ(e1["agent"], "bot");
  EXPECT_EQ(e1["run"], "r1");
  EXPECT_EQ(e1["step"], 0);
  EXPECT_EQ(e1["key"], "bot/r1/0");
  EXPECT_EQ(e1["payload"], json({{"input", {{"order", 17}}}}));  // JSON, not a string
  EXPECT_EQ(e1["time"], "2026-11-30T02:01:07.123Z");
  EXPECT_EQ(e1["time_ms"], kT0);
  EXPECT_EQ(e1["prev_hash"], std::string(journal::kGenesisHash));
  EXPECT_EQ(first["entries"][1]["prev_hash"], e1["hash"]);
  EXPECT_EQ(first["entries"][1]["kind"], "intent");
  EXPECT_EQ(first["entries"][2]["kind"], "completion");
  EXPECT_EQ(first["entries"][2]["time"], "2026-11-30T02:01:08.123Z");

  json second = Ok(Call("GET", "/v1/journal?limit=3&after=3"));
  EXPECT_EQ(second["entries"][0]["seq"], 4);
  EXPECT_EQ(second["next"], 6);
  json last = Ok(Call("GET", "/v1/journal?limit=3&after=6"));
  ASSERT_EQ(last["entries"].size(), 1u);
  EXPECT_EQ(last["entries"][0]["hash"], digest->head);
  EXPECT_TRUE(last["next"].is_null());
  EXPECT_EQ(Ok(Call("GET", "/v1/journal?after=7"))["entries"], json::array());
  EXPECT_EQ(Ok(Call("GET", "/v1/journal?after=18446744073709551615"))["entries"], json::array());
  json all = Ok(Call("GET", "/v1/journal"));
  EXPECT_EQ(all["entries"].size(), 7u);
  EXPECT_TRUE(all["next"].is_null());
  // A full last page says next; the page after it is empty.
  json exact = Ok(Call("GET", "/v1/journal?limit=7"));
  EXPECT_EQ(exact["next"], 7);
}

TEST_F(RunsApiTest, JournalBadQueries) {
  for (const char* q : {"limit=0", "limit=1001", "limit=abc", "after=-1", "after=x", "after=", "after=1.5",
                        "after=18446744073709551616"}) {
    Problem(Call("GET", std::string("/v1/journal?") + q), 400, "bad-request");
  }
}

// --- without runs or a journal ---------------------------------------------------------------------------

TEST_F(RunsApiTest, WithoutRunsOrJournalTheRoutesAre503) {
  Build(nullptr, nullptr);
  for (auto [method, path] : std::vector<std::pair<std::string, std::string>>{
           {"POST", "/v1/agents/bot/runs"},
           {"GET", "/v1/agents/bot/runs/r1"},
           {"GET", "/v1/runs"},
           {"GET", "/v1/approvals"},
           {"GET", "/v1/approvals/1"},
           {"POST", "/v1/approvals/1/approve"},
           {"POST", "/v1/approvals/1/deny"},
           {"GET", "/v1/journal"}}) {
    Problem(Call(method, path, R"({"by":"a"})"), 503, "unavailable");
  }
  Build(&runs_, nullptr);
  Ok(Call("GET", "/v1/runs"));
  Problem(Call("GET", "/v1/journal"), 503, "unavailable");
  Build(nullptr, journal_.get());
  Ok(Call("GET", "/v1/journal"));
  Problem(Call("GET", "/v1/runs"), 503, "unavailable");
}

// Every success answered here is one the OpenAPI document lists for its
// route, and the document says each route's body is application/json.
TEST_F(RunsApiTest, AnswersAreDocumented) {
  json doc = json::parse(api_->openapi_json());
  const json& paths = doc["paths"];
  EXPECT_TRUE(paths["/v1/agents/{name}/runs"]["post"]["responses"].contains("201"));
  EXPECT_TRUE(paths["/v1/agents/{name}/runs"]["post"]["responses"].contains("200"));
  EXPECT_TRUE(paths["/v1/agents/{name}/runs"]["post"]["requestBody"]["content"].contains("application/json"));
  EXPECT_TRUE(paths["/v1/agents/{name}/runs/{id}"]["get"]["responses"].contains("200"));
  EXPECT_TRUE(paths["/v1/approvals/{id}"]["get"]["responses"].contains("200"));
  EXPECT_FALSE(paths["/v1/approvals/{id}/approve"]["post"]["requestBody"]["content"]["application/json"]["schema"]
                  ["properties"]
                      .contains("by"));
  EXPECT_EQ(paths["/v1/runs"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]["required"],
            json::array({"runs"}));
  EXPECT_EQ(paths["/v1/journal"]["get"]["parameters"].size(), 2u);
  EXPECT_FALSE(paths["/v1/journal"]["get"]["responses"].contains("501"));
}

// Every success body of these routes is valid against the schema the
// OpenAPI document gives for that route and status.
TEST_F(RunsApiTest, SuccessBodiesMatchTheirDocumentedSchemas) {
  const json doc = json::parse(api_->openapi_json());
  size_t checked = 0;
  auto expect_documented = [&](const std::string& method, const std::string& route, const Response& r) {
    std::string lower = method;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const json& responses = doc["paths"][route][lower]["responses"];
    ASSERT_TRUE(responses.contains(std::to_string(r.status))) << method << " " << route << " " << r.status;
    manifest::CompiledSchema schema(responses[std::to_string(r.status)]["content"]["application/json"]["schema"]);
    ASSERT_EQ(schema.error(), "") << route;
    std::vector<manifest::SchemaError> errors;
    EXPECT_TRUE(schema.Validate(json::parse(r.body), &errors))
        << method << " " << route << ": " << (errors.empty() ? "" : errors[0].pointer + " " + errors[0].description)
        << "\n" << r.body;
    ++checked;
  };
  expect_documented("POST", "/v1/agents/{name}/runs", Call("POST", "/v1/agents/bot/runs", R"({"id":"s1"})"));
  expect_documented("POST", "/v1/agents/{name}/runs", Call("POST", "/v1/agents/bot/runs", R"({"id":"s1"})"));
  Ok(Call("POST", "/v1/agents/bot/runs", R"({"id":"s2","input":[1,"two",null]})"), 201);
  runs_.Finish(1, "done", "");
  expect_documented("GET", "/v1/agents/{name}/runs/{id}", Call("GET", "/v1/agents/bot/runs/s1"));
  expect_documented("GET", "/v1/agents/{name}/runs/{id}", Call("GET", "/v1/agents/bot/runs/s2"));
  expect_documented("GET", "/v1/runs", Call("GET", "/v1/runs"));
  runs_.AddApproval(1, "s1", "refund");
  runs_.AddApproval(2, "s1", "refund");
  expect_documented("GET", "/v1/approvals", Call("GET", "/v1/approvals"));
  expect_documented("GET", "/v1/approvals/{id}", Call("GET", "/v1/approvals/1"));
  expect_documented("POST", "/v1/approvals/{id}/approve",
                    Call("POST", "/v1/approvals/1/approve", R"({"reason":"fine"})"));
  expect_documented("POST", "/v1/approvals/{id}/deny", Call("POST", "/v1/approvals/2/deny", "{}"));
  expect_documented("GET", "/v1/approvals", Call("GET", "/v1/approvals?state=all"));
  expect_documented("GET", "/v1/journal", Call("GET", "/v1/journal"));
  journal::EffectKey key{"bot", "s1", 1};
  ASSERT_TRUE(journal_->BeginEffect(key, {{"tool", "refund"}}).ok());
  ASSERT_TRUE(journal_->CompleteEffect(key, "a string result").ok());
  ASSERT_TRUE(journal_->Append(journal::EntryKind::kApprovalRequested, key, {{"tool", "refund"}}).ok());
  expect_documented("GET", "/v1/journal", Call("GET", "/v1/journal"));
  expect_documented("GET", "/v1/journal", Call("GET", "/v1/journal?limit=1"));
  EXPECT_EQ(checked, 13u);
}

}  // namespace
}  // namespace volent::control
