// GET /v1/egress/denials in process, on a real journal in a temporary folder
// written by the node's own denial sink (agent::JournalDenials): paging
// both ways, the agent and capability filters, bad queries, the items'
// fields, the documented schema, and the entries in GET /v1/journal.
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "volent/agent/denial_journal.h"
#include "volent/control/api.h"
#include "volent/control/json_api.h"
#include "volent/control/test_fixtures.h"
#include "volent/manifest/schema_validation.h"

namespace volent::control {
namespace {

using nlohmann::json;
using testing::kT0;

class EgressApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/control_egress_test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    auto store = store::AgentStore::Open("");
    ASSERT_TRUE(store.ok());
    store_ = std::move(*store);
    journal::OpenOptions options;
    options.clock = [this] { return now_ms_++; };
    auto j = journal::Journal::Open(dir_, options);
    ASSERT_TRUE(j.ok()) << j.message();
    journal_ = std::move(*j);
    sink_ = agent::JournalDenials(*journal_);
    Build(journal_.get());
  }
  void TearDown() override {
    api_.reset();
    journal_.reset();
    std::filesystem::remove_all(dir_);
  }
  void Build(journal::Journal* journal) {
    api_.reset();
    ApiContext ctx;
    ctx.store = store_.get();
    ctx.journal = journal;
    api_ = std::make_unique<ControlApi>(ctx);
  }

  // Six denials through the sink, seqs 1..6: agents a (steps 1, 3, 5) and
  // b (steps 2, 4) under capabilities web (odd steps) and erp, then one no
  // step asked for.
  void Deny() {
    for (uint64_t step = 1; step <= 5; ++step) {
      egress::Denial d;
      d.capability = step % 2 ? "web" : "erp";
      d.method = "GET";
      d.url = "http://169.254.169.254/latest/meta-data/" + std::to_string(step);
      d.reason = "a link-local address";
      d.origin = (step % 2 ? "a/r1/" : "b/r2/") + std::to_string(step);
      d.hop = step == 5 ? 1 : 0;
      sink_(d);
    }
    egress::Denial d;
    d.capability = "web";
    d.method = "POST";
    d.url = "https://10.0.0.1/";
    d.reason = "a private address";
    sink_(d);
  }

  Response Call(const std::string& target) {
    Request r;
    r.method = "GET";
    SplitTarget(target, r);
    Response response = api_->Dispatch(r);
    for (const char* word : {"nlohmann", "sqlite", "exception", "std::"}) {
      EXPECT_EQ(response.body.find(word), std::string::npos) << word << " in " << response.body;
    }
    return response;
  }
  json Ok(const std::string& target) {
    Response r = Call(target);
    EXPECT_EQ(r.status, 200) << target << ": " << r.body;
    EXPECT_EQ(r.content_type, "application/json");
    return json::parse(r.body, nullptr, false);
  }
  void Problem(const std::string& target, int status, const std::string& slug) {
    Response r = Call(target);
    EXPECT_EQ(r.status, status) << target << ": " << r.body;
    EXPECT_EQ(r.content_type, "application/problem+json");
    json j = json::parse(r.body, nullptr, false);
    EXPECT_EQ(j.value("type", ""), "urn:volent:problem:" + slug) << r.body;
    EXPECT_FALSE(j.value("detail", "").empty());
  }
  // The seqs of a page's denials.
  static std::vector<uint64_t> Seqs(const json& page) {
    std::vector<uint64_t> out;
    for (const auto& d : page.value("denials", json::array())) out.push_back(d.value("seq", 0u));
    return out;
  }

  std::string dir_;
  int64_t now_ms_ = kT0;
  std::unique_ptr<store::AgentStore> store_;
  std::unique_ptr<journal::Journal> journal_;
  egress::DenialSink sink_;
  std::unique_ptr<ControlApi> api_;
};

using Seq = std::vector<uint64_t>;

TEST_F(EgressApiTest, WithoutAJournalIs503) {
  Build(nullptr);
  Problem("/v1/egress/denials", 503, "unavailable");
}

TEST_F(EgressApiTest, EmptyJournalListsNothing) {
  EXPECT_EQ(Ok("/v1/egress/denials"), (json{{"denials", json::array()}, {"next", nullptr}}));
  EXPECT_EQ(Ok("/v1/egress/denials?order=oldest&limit=1"), (json{{"denials", json::array()}, {"next", nullptr}}));
}

TEST_F(EgressApiTest, ItemsCarryTheDenialAndItsStep) {
  Deny();
  json page = Ok("/v1/egress/denials");
  ASSERT_EQ(page["denials"].size(), 6u);
  EXPECT_EQ(page["next"], nullptr);
  EXPECT_EQ(page["denials"][1], (json{{"seq", 5},
                                      {"time", "2026-11-30T02:01:07.127Z"},
                                      {"agent", "a"},
                                      {"run", "r1"},
                                      {"step", 5},
                                      {"key", "a/r1/5"},
                                      {"capability", "web"},
                                      {"method", "GET"},
                                      {"url", "http://169.254.169.254/latest/meta-data/5"},
                                      {"reason", "a link-local address"},
                                      {"hop", 1},
                                      {"origin", "a/r1/5"}}));
  const json& own = page["denials"][0];
  EXPECT_EQ(own["seq"], 6);
  EXPECT_EQ(own["key"], "egress/~denied/6");
  EXPECT_EQ(own["agent"], "egress");
  EXPECT_EQ(own["origin"], "");
  EXPECT_EQ(own["method"], "POST");
}

TEST_F(EgressApiTest, PagesNewestFirstByDefaultAndOldestFirstOnRequest) {
  Deny();
  json first = Ok("/v1/egress/denials?limit=4");
  EXPECT_EQ(Seqs(first), (Seq{6, 5, 4, 3}));
  EXPECT_EQ(first["next"], 3);
  json second = Ok("/v1/egress/denials?limit=4&after=3");
  EXPECT_EQ(Seqs(second), (Seq{2, 1}));
  EXPECT_EQ(second["next"], nullptr);
  EXPECT_EQ(Seqs(Ok("/v1/egress/denials?order=newest&after=0")), (Seq{6, 5, 4, 3, 2, 1}));
  json oldest = Ok("/v1/egress/denials?order=oldest&limit=3");
  EXPECT_EQ(Seqs(oldest), (Seq{1, 2, 3}));
  EXPECT_EQ(oldest["next"], 3);
  json rest = Ok("/v1/egress/denials?order=oldest&limit=3&after=3");
  EXPECT_EQ(Seqs(rest), (Seq{4, 5, 6}));
  EXPECT_EQ(rest["next"], 6);  // a full page: the next one may be empty
  EXPECT_EQ(Seqs(Ok("/v1/egress/denials?order=oldest&after=6")), Seq{});
}

TEST_F(EgressApiTest, OtherEntriesAreNotDenials) {
  ASSERT_TRUE(journal_->BeginEffect({"a", "r1", 1}, {{"capability", "web"}}).ok());
  Deny();
  ASSERT_TRUE(journal_->Append(journal::EntryKind::kRunFinished, {"a", "r1", 0}, {{"capability", "web"}}).ok());
  EXPECT_EQ(Seqs(Ok("/v1/egress/denials?order=oldest")), (Seq{2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(Seqs(Ok("/v1/egress/denials?capability=web")), (Seq{7, 6, 4, 2}));
}

TEST_F(EgressApiTest, FiltersByAgentAndCapability) {
  Deny();
  EXPECT_EQ(Seqs(Ok("/v1/egress/denials?agent=a")), (Seq{5, 3, 1}));
  EXPECT_EQ(Seqs(Ok("/v1/egress/denials?agent=b&order=oldest")), (Seq{2, 4}));
  EXPECT_EQ(Seqs(Ok("/v1/egress/denials?agent=egress")), (Seq{6}));
  EXPECT_EQ(Seqs(Ok("/v1/egress/denials?capability=web")), (Seq{6, 5, 3, 1}));
  EXPECT_EQ(Seqs(Ok("/v1/egress/denials?capability=erp&agent=b")), (Seq{4, 2}));
  EXPECT_EQ(Seqs(Ok("/v1/egress/denials?capability=erp&agent=a")), Seq{});
  json page = Ok("/v1/egress/denials?capability=web&limit=2");
  EXPECT_EQ(Seqs(page), (Seq{6, 5}));
  EXPECT_EQ(Seqs(Ok("/v1/egress/denials?capability=web&limit=2&after=" + page["next"].dump())), (Seq{3, 1}));
  EXPECT_EQ(Seqs(Ok("/v1/egress/denials?agent=&capability=&order=&after=")),
            (Seq{6, 5, 4, 3, 2, 1}));  // empty: as absent
  EXPECT_EQ(Seqs(Ok("/v1/egress/denials?capability=nothing")), Seq{});
}

TEST_F(EgressApiTest, BadQueriesAre400) {
  for (const char* query : {"order=up", "order=Newest", "after=-1", "after=x", "after=1x", "after=99999999999999999999",
                            "limit=0", "limit=1001", "limit=x", "agent=Bad_Name", "agent=a%2Fb",
                            "capability=UPPER", "capability=-web", "capability=a%27%20OR%201=1"}) {
    Problem(std::string("/v1/egress/denials?") + query, 400, "bad-request");
  }
}

TEST_F(EgressApiTest, DenialsAreJournalEntriesOfTheirKind) {
  Deny();
  json journal = Ok("/v1/journal?after=3&limit=1");
  ASSERT_EQ(journal["entries"].size(), 1u);
  const json& entry = journal["entries"][0];
  EXPECT_EQ(entry["kind"], "egress-denied");
  EXPECT_EQ(entry["key"], "b/r2/4");
  EXPECT_EQ(entry["payload"], (json{{"capability", "erp"},
                                    {"method", "GET"},
                                    {"url", "http://169.254.169.254/latest/meta-data/4"},
                                    {"reason", "a link-local address"},
                                    {"hop", 0},
                                    {"origin", "b/r2/4"}}));
}

// Both routes' answers are valid against the schemas the OpenAPI document
// gives them, and the route documents its parameters (no longer a 501).
TEST_F(EgressApiTest, AnswersMatchTheDocument) {
  Deny();
  const json doc = json::parse(api_->openapi_json());
  const json& op = doc["paths"]["/v1/egress/denials"]["get"];
  EXPECT_EQ(op["operationId"], "listEgressDenials");
  EXPECT_FALSE(op["responses"].contains("501"));
  std::vector<std::string> params;
  for (const auto& p : op["parameters"]) params.push_back(p["name"]);
  EXPECT_EQ(params, (std::vector<std::string>{"order", "after", "limit", "agent", "capability"}));
  auto check = [&](const std::string& route, const std::string& target) {
    manifest::CompiledSchema schema(
        doc["paths"][route]["get"]["responses"]["200"]["content"]["application/json"]["schema"]);
    ASSERT_EQ(schema.error(), "") << route;
    std::vector<manifest::SchemaError> errors;
    EXPECT_TRUE(schema.Validate(Ok(target), &errors))
        << target << ": " << (errors.empty() ? "" : errors[0].pointer + " " + errors[0].description);
  };
  check("/v1/egress/denials", "/v1/egress/denials");
  check("/v1/egress/denials", "/v1/egress/denials?order=oldest&limit=2");
  check("/v1/journal", "/v1/journal");
}

}  // namespace
}  // namespace volent::control
