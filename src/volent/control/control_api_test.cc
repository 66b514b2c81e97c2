// Every route of the control API, in process: answers, problem documents,
// and that no answer reveals the implementation.
#include "volent/control/api.h"

#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "volent/control/test_fixtures.h"

namespace volent::control {
namespace {

using nlohmann::json;
using testing::AgentJson;
using testing::AgentYaml;

// Words no answer may contain, whatever the request.
constexpr const char* kForbidden[] = {"boost", "beast", "exception", "what()", "std::",
                                      "nlohmann", "yaml-cpp", "sqlite", "valijson", "asio"};

void ExpectNoLeak(const Response& r) {
  std::string lower = r.body;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* word : kForbidden) EXPECT_EQ(lower.find(word), std::string::npos) << word << " in " << r.body;
}

class ApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/control_api_test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    auto config = manifest::LoadNodeConfig(testing::kNodeConfig, "volent.yaml");
    ASSERT_TRUE(config.ok()) << (config.problems.empty() ? "" : manifest::FormatProblem(config.problems[0]));
    config_ = std::move(*config.value);
    Reopen();
  }
  void TearDown() override {
    api_.reset();
    store_.reset();
    std::filesystem::remove_all(dir_);
  }
  void Reopen() {
    api_.reset();
    store_.reset();
    auto store = store::AgentStore::Open(dir_);
    ASSERT_TRUE(store.ok());
    store_ = std::move(*store);
    ApiContext ctx;
    ctx.store = store_.get();
    ctx.config = &config_;
    ctx.metrics = &metrics_;
    api_ = std::make_unique<ControlApi>(ctx);
  }

  Response Call(std::string method, std::string target, std::string body = "",
                std::string content_type = "") {
    Request r;
    r.method = std::move(method);
    SplitTarget(target, r);
    r.body = std::move(body);
    r.content_type = std::move(content_type);
    Response response = api_->Dispatch(r);
    ExpectNoLeak(response);
    return response;
  }
  Response Apply(const std::string& body, const std::string& type = "application/yaml") {
    return Call("POST", "/v1/agents", body, type);
  }
  // A problem answer: its status, type and instance, as RFC 9457 says.
  json Problem(const Response& r, int status, const std::string& slug) {
    EXPECT_EQ(r.status, status) << r.body;
    EXPECT_EQ(r.content_type, "application/problem+json");
    json j = json::parse(r.body, nullptr, false);
    EXPECT_FALSE(j.is_discarded());
    EXPECT_EQ(j.value("type", ""), "urn:volent:problem:" + slug);
    EXPECT_EQ(j.value("status", 0), status);
    EXPECT_FALSE(j.value("title", "").empty());
    EXPECT_TRUE(j.contains("detail"));
    EXPECT_TRUE(j.contains("instance"));
    return j;
  }
  static std::string Header(const Response& r, const std::string& name) {
    for (const auto& [n, v] : r.headers) {
      if (n == name) return v;
    }
    return "";
  }

  std::string dir_;
  manifest::NodeConfig config_;
  Metrics metrics_;
  std::unique_ptr<store::AgentStore> store_;
  std::unique_ptr<ControlApi> api_;
};

TEST_F(ApiTest, ApplyYamlCreatesThenReplaces) {
  Response created = Apply(AgentYaml("refund-bot"));
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(created.content_type, "application/json");
  EXPECT_EQ(Header(created, "Location"), "/v1/agents/refund-bot");
  json a = json::parse(created.body);
  EXPECT_EQ(a["name"], "refund-bot");
  EXPECT_EQ(a["generation"], 1);
  EXPECT_EQ(a["status"], "idle");
  EXPECT_EQ(a["manifest"]["metadata"]["name"], "refund-bot");
  EXPECT_EQ(a["applied_at"].get<std::string>().size(), 20u);

  Response replaced = Apply(AgentYaml("refund-bot"));
  ASSERT_EQ(replaced.status, 200);
  EXPECT_EQ(json::parse(replaced.body)["generation"], 2);
}

TEST_F(ApiTest, ApplyJsonAndContentTypeParameters) {
  EXPECT_EQ(Apply(AgentJson("j1"), "application/json").status, 201);
  EXPECT_EQ(Apply(AgentJson("j2"), "Application/JSON; charset=utf-8").status, 201);
  EXPECT_EQ(Apply(AgentYaml("y1"), "text/yaml").status, 201);
  EXPECT_EQ(Apply(AgentYaml("y2"), "application/x-yaml").status, 201);
}

TEST_F(ApiTest, GetListDelete) {
  ASSERT_EQ(Apply(AgentYaml("b")).status, 201);
  ASSERT_EQ(Apply(AgentYaml("a")).status, 201);
  Response got = Call("GET", "/v1/agents/a");
  ASSERT_EQ(got.status, 200);
  json a = json::parse(got.body);
  EXPECT_EQ(a["manifest"]["spec"]["tools"][0]["capability"], "refunds");

  Response list = Call("GET", "/v1/agents");
  ASSERT_EQ(list.status, 200);
  json l = json::parse(list.body);
  ASSERT_EQ(l["agents"].size(), 2u);
  EXPECT_EQ(l["agents"][0]["name"], "a");
  EXPECT_FALSE(l["agents"][0].contains("manifest"));
  EXPECT_TRUE(l["next"].is_null());

  json page = json::parse(Call("GET", "/v1/agents?limit=1").body);
  ASSERT_EQ(page["agents"].size(), 1u);
  EXPECT_EQ(page["next"], "a");
  json rest = json::parse(Call("GET", "/v1/agents?limit=1&after=a").body);
  ASSERT_EQ(rest["agents"].size(), 1u);
  EXPECT_EQ(rest["agents"][0]["name"], "b");
  EXPECT_TRUE(rest["next"].is_null());
  EXPECT_EQ(json::parse(Call("GET", "/v1/agents?after=").body)["agents"].size(), 2u);
  EXPECT_EQ(json::parse(Call("GET", "/v1/agents?after=aa").body)["agents"][0]["name"], "b");

  Response deleted = Call("DELETE", "/v1/agents/a");
  EXPECT_EQ(deleted.status, 204);
  EXPECT_TRUE(deleted.body.empty());
  Problem(Call("DELETE", "/v1/agents/a"), 404, "not-found");
  Problem(Call("GET", "/v1/agents/a"), 404, "not-found");
}

TEST_F(ApiTest, StateSurvivesReopen) {
  ASSERT_EQ(Apply(AgentYaml("keep")).status, 201);
  ASSERT_EQ(Apply(AgentYaml("keep")).status, 200);
  Reopen();
  json a = json::parse(Call("GET", "/v1/agents/keep").body);
  EXPECT_EQ(a["generation"], 2);
  EXPECT_EQ(json::parse(Call("GET", "/healthz").body)["agents"], 1);
}

TEST_F(ApiTest, BadQueryParameters) {
  for (const char* q : {"limit=0", "limit=1001", "limit=x", "limit=", "limit=-1", "limit=1.5", "after=Not_A_Name"}) {
    Problem(Call("GET", std::string("/v1/agents?") + q), 400, "bad-request");
  }
}

TEST_F(ApiTest, InvalidNamesInPaths) {
  // Strings, not pointers: a temporary's c_str() in the list would dangle
  // before the loop body runs.
  const std::vector<std::string> names = {"UPPER", "-lead", "trail-", "a_b", "a%2Fb", "..",
                                          std::string(64, 'a')};
  for (const std::string& name : names) {
    Problem(Call("GET", "/v1/agents/" + name), 400, "bad-request");
    Problem(Call("DELETE", "/v1/agents/" + name), 400, "bad-request");
  }
}

TEST_F(ApiTest, MalformedYamlHasAPosition) {
  json p = Problem(Apply("apiVersion: volent/v1\nkind: [Agent\nmetadata: {name: x}\n"), 400, "malformed-body");
  ASSERT_TRUE(p.contains("errors"));
  EXPECT_GT(p["errors"][0].value("line", 0), 0);
  EXPECT_GT(p["errors"][0].value("column", 0), 0);
}

TEST_F(ApiTest, MalformedJsonHasAPosition) {
  json p = Problem(Apply("{\"apiVersion\": \"volent/v1\",\n  \"kind\": }", "application/json"), 400,
                   "malformed-body");
  ASSERT_TRUE(p.contains("errors"));
  EXPECT_EQ(p["errors"][0]["line"], 2);
  EXPECT_GT(p["errors"][0].value("column", 0), 0);
  Problem(Apply("", "application/json"), 400, "malformed-body");
  Problem(Apply("[1,2", "application/json"), 400, "malformed-body");
  Problem(Apply("{\"a\":1} x", "application/json"), 400, "malformed-body");
}

TEST_F(ApiTest, InvalidManifestListsEveryFieldError) {
  std::string bad = AgentYaml("x");
  bad.replace(bad.find("kind: http"), 10, "kind: grpc");
  json p = Problem(Apply(bad), 422, "invalid-manifest");
  ASSERT_TRUE(p.contains("errors"));
  bool found = false;
  for (const auto& e : p["errors"]) {
    if (e.value("pointer", "") == "/spec/tools/0/kind") {
      found = true;
      EXPECT_GT(e.value("line", 0), 0);
    }
  }
  EXPECT_TRUE(found) << p.dump();
}

TEST_F(ApiTest, CapabilityWithoutAllowlistEntryIsRejected) {
  json p = Problem(Apply(AgentYaml("x", "payments")), 422, "invalid-manifest");
  ASSERT_TRUE(p.contains("errors"));
  EXPECT_EQ(p["errors"][0]["pointer"], "/spec/tools/0/capability");
  Problem(Call("GET", "/v1/agents/x"), 404, "not-found");
}

TEST_F(ApiTest, NotAManifestIs422) {
  Problem(Apply("just a string"), 422, "invalid-manifest");
  Problem(Apply("[1, 2]", "application/json"), 422, "invalid-manifest");
  Problem(Apply(AgentJson("UPPER"), "application/json"), 422, "invalid-manifest");
}

TEST_F(ApiTest, DeepNestingIsAProblemNotACrash) {
  // Nesting beyond the manifest reader's limit cannot be read as a manifest.
  std::string deep = std::string(100000, '[') + std::string(100000, ']');
  Problem(Apply(deep, "application/json"), 400, "malformed-body");
  Problem(Apply("a: " + deep), 400, "malformed-body");
  Problem(Apply(std::string(100000, '[')), 400, "malformed-body");
  Problem(Apply(std::string(100000, '{'), "application/json"), 400, "malformed-body");
}

TEST_F(ApiTest, YamlAndJsonReadAlike) {
  // The body is read by the manifest reader itself: a JSON surrogate pair is
  // one character in YAML and JSON alike, and a syntax error is placed where
  // the reader found it.
  const std::string body =
      R"({"apiVersion":"volent/v1","kind":"Agent","metadata":{"name":"emoji"},)"
      R"("spec":{"instructions":"\ud83d\ude00","model":{"provider":"openai","name":"gpt-test"}}})";
  auto created = Apply(body, "application/json");
  EXPECT_EQ(created.status, 201) << created.body;
  json bad = Problem(Apply("apiVersion: volent/v1\nkind: [Agent\n"), 400, "malformed-body");
  ASSERT_TRUE(bad.contains("errors")) << bad;
  EXPECT_GE(bad["errors"][0]["line"], 2) << bad;
}

TEST_F(ApiTest, WrongContentType) {
  Problem(Apply(AgentYaml("x"), "text/plain"), 415, "unsupported-media-type");
  Problem(Apply(AgentYaml("x"), ""), 415, "unsupported-media-type");
  Problem(Apply(AgentYaml("x"), "application/yaml-ish"), 415, "unsupported-media-type");
}

TEST_F(ApiTest, HugeBody) {
  std::string huge = AgentYaml("x") + "#" + std::string(kMaxBodyBytes, 'x') + "\n";
  Problem(Apply(huge), 413, "body-too-large");
}

TEST_F(ApiTest, UnknownPathsAndMethods) {
  Problem(Call("GET", "/nope"), 404, "not-found");
  Problem(Call("GET", "/v1/agents/a/b"), 404, "not-found");
  Problem(Call("GET", "/"), 404, "not-found");
  Problem(Call("GET", ""), 404, "not-found");
  Response r = Call("PUT", "/v1/agents");
  Problem(r, 405, "method-not-allowed");
  EXPECT_EQ(Header(r, "Allow"), "POST, GET");
  Response d = Call("POST", "/v1/agents/x");
  Problem(d, 405, "method-not-allowed");
  EXPECT_EQ(Header(d, "Allow"), "GET, DELETE");
  Problem(Call("DELETE", "/healthz"), 405, "method-not-allowed");
}

TEST_F(ApiTest, AttestationNeedsANonceAndMapsRefusals) {
  Problem(Call("GET", "/v1/attestation?nonce=00ff"), 503, "unavailable");  // no attestor: never a 501
  Problem(Call("POST", "/v1/attestation/credential", R"({"credential":"AAAA"})", "application/json"), 503,
          "unavailable");
  ApiContext ctx;
  ctx.store = store_.get();
  ctx.config = &config_;
  std::string asked;
  ctx.attest = [&asked](const std::string& nonce) -> core::Result<std::string> {
    asked = nonce;
    if (nonce == "dead") return core::Error{"refusing to sign", core::ErrorKind::kConflict};
    if (nonce == "zz") return core::Error{"not hex", core::ErrorKind::kInvalidArgument};
    return std::string(R"({"payload":"e30=","payloadType":"application/vnd.in-toto+json","signatures":[]})");
  };
  api_ = std::make_unique<ControlApi>(ctx);
  Response ok = Call("GET", "/v1/attestation?nonce=00ff");
  ASSERT_EQ(ok.status, 200);
  EXPECT_EQ(ok.content_type.rfind("application/json", 0), 0u);
  EXPECT_EQ(asked, "00ff");
  EXPECT_EQ(json::parse(ok.body)["payloadType"], "application/vnd.in-toto+json");
  Problem(Call("GET", "/v1/attestation"), 400, "bad-request");
  Problem(Call("GET", "/v1/attestation?nonce="), 400, "bad-request");
  Problem(Call("GET", "/v1/attestation?nonce=zz"), 400, "bad-request");
  Problem(Call("GET", "/v1/attestation?nonce=dead"), 409, "conflict");

  ctx.activate_credential = [](std::string_view credential) -> core::Result<std::string> {
    if (credential == "other") return core::Error{"refused", core::ErrorKind::kConflict};
    return std::string("secret of ") + std::string(credential);
  };
  api_ = std::make_unique<ControlApi>(ctx);
  Response opened = Call("POST", "/v1/attestation/credential", R"({"credential":"Y3JlZA=="})", "application/json");
  ASSERT_EQ(opened.status, 200);
  EXPECT_EQ(json::parse(opened.body)["secret"], "c2VjcmV0IG9mIGNyZWQ=");  // "secret of cred"
  Problem(Call("POST", "/v1/attestation/credential", R"({"credential":"b3RoZXI="})", "application/json"), 409,
          "conflict");
  Problem(Call("POST", "/v1/attestation/credential", R"({"credential":"not base64!"})", "application/json"), 422,
          "invalid-body");
  Problem(Call("POST", "/v1/attestation/credential", R"({"credential":"Y3JlZA==","x":1})", "application/json"), 422,
          "invalid-body");
}

TEST_F(ApiTest, SystemRoutes) {
  ASSERT_EQ(Apply(AgentYaml("m")).status, 201);
  Response health = Call("GET", "/healthz");
  ASSERT_EQ(health.status, 200);
  json h = json::parse(health.body);
  EXPECT_EQ(h["status"], "ok");
  EXPECT_EQ(h["agents"], 1);
  EXPECT_TRUE(h["uptime_seconds"].is_number_integer());

  Response schema = Call("GET", "/v1/schemas/agent");
  EXPECT_EQ(schema.status, 200);
  EXPECT_EQ(schema.content_type, "application/schema+json");
  EXPECT_EQ(schema.body, std::string(manifest::AgentSchemaText()));
  EXPECT_EQ(Call("GET", "/v1/schemas/node-config").body, std::string(manifest::NodeConfigSchemaText()));

  Response metrics = Call("GET", "/metrics");
  ASSERT_EQ(metrics.status, 200);
  EXPECT_EQ(metrics.content_type.rfind("text/plain; version=0.0.4", 0), 0u);
  EXPECT_NE(metrics.body.find("volent_agents 1\n"), std::string::npos);
  EXPECT_NE(metrics.body.find("volent_http_requests_total{route=\"/v1/agents\",method=\"POST\",code=\"201\"} 1"),
            std::string::npos)
      << metrics.body;
  EXPECT_NE(metrics.body.find("volent_http_handler_seconds{route=\"/v1/agents\",quantile=\"0.99\"}"),
            std::string::npos);
  EXPECT_NE(metrics.body.find("volent_http_handler_seconds{route=\"/healthz\",quantile=\"0.5\"}"),
            std::string::npos);
  EXPECT_NE(metrics.body.find("process_resident_memory_bytes "), std::string::npos);
}

TEST_F(ApiTest, RejectedAtReopenWhenTheConfigChanged) {
  ASSERT_EQ(Apply(AgentYaml("old")).status, 201);
  api_.reset();
  store_.reset();
  auto stricter = manifest::LoadNodeConfig("apiVersion: volent/v1\nkind: NodeConfig\n", "volent.yaml");
  ASSERT_TRUE(stricter.ok());
  manifest::NodeConfig config = *stricter.value;
  auto store = store::AgentStore::Open(dir_, [&](std::string_view name, std::string_view json) {
    return manifest::LoadAgent(json, std::string(name), &config).ok();
  });
  ASSERT_TRUE(store.ok());
  EXPECT_EQ((*store)->Get("old")->summary.status, store::AgentStatus::kRejected);
  ApiContext ctx;
  ctx.store = store->get();
  ctx.config = &config;
  ControlApi api(ctx);
  Request r;
  r.method = "GET";
  r.path = "/v1/agents";
  EXPECT_EQ(json::parse(api.Dispatch(r).body)["agents"][0]["status"], "rejected");
}

}  // namespace
}  // namespace volent::control
