// The OpenAPI document and the route table cannot disagree: every route is
// documented, and every documented operation is answered by a route.
#include "volent/control/openapi.h"

#include <set>

#include <gtest/gtest.h>

#include "volent/control/api.h"
#include "volent/control/test_fixtures.h"

namespace volent::control {
namespace {

using nlohmann::json;

class OpenApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto config = manifest::LoadNodeConfig(testing::kNodeConfig, "volent.yaml");
    ASSERT_TRUE(config.ok());
    config_ = std::move(*config.value);
    auto store = store::AgentStore::Open("");
    ASSERT_TRUE(store.ok());
    store_ = std::move(*store);
    ApiContext ctx;
    ctx.store = store_.get();
    ctx.config = &config_;
    api_ = std::make_unique<ControlApi>(ctx);
    doc_ = json::parse(api_->openapi_json());
  }

  // A concrete path for a template: every {param} becomes "x".
  static std::string Concrete(const std::string& path) {
    std::string out;
    for (size_t i = 0; i < path.size(); ++i) {
      if (path[i] == '{') {
        out += "x";
        i = path.find('}', i);
      } else {
        out += path[i];
      }
    }
    return out;
  }

  Response Send(const std::string& method, const std::string& path) {
    // The agent "x" exists, so a route that names it answers for it.
    Request apply;
    apply.method = "POST";
    apply.path = "/v1/agents";
    apply.content_type = "application/yaml";
    apply.body = testing::AgentYaml("x");
    EXPECT_LT(api_->Dispatch(apply).status, 300);
    Request r;
    r.method = method;
    SplitTarget(Concrete(path), r);
    if (method == "POST" && path == "/v1/agents") {
      r.content_type = apply.content_type;
      r.body = apply.body;
    }
    return api_->Dispatch(r);
  }

  manifest::NodeConfig config_;
  std::unique_ptr<store::AgentStore> store_;
  std::unique_ptr<ControlApi> api_;
  json doc_;
};

TEST_F(OpenApiTest, IsOpenApi31) {
  EXPECT_EQ(doc_["openapi"], "3.1.0");
  EXPECT_TRUE(doc_["info"].contains("title"));
  EXPECT_TRUE(doc_["components"]["schemas"].contains("Problem"));
}

TEST_F(OpenApiTest, EveryRouteIsDocumented) {
  std::set<std::string> ids;
  for (const Route& route : api_->routes().routes()) {
    std::string method = route.method;
    for (char& c : method) c = static_cast<char>(std::tolower(c));
    ASSERT_TRUE(doc_["paths"].contains(route.path)) << route.path;
    ASSERT_TRUE(doc_["paths"][route.path].contains(method)) << route.method << " " << route.path;
    const json& op = doc_["paths"][route.path][method];
    EXPECT_EQ(op["operationId"], route.operation_id);
    EXPECT_FALSE(op["summary"].get<std::string>().empty());
    EXPECT_TRUE(op["responses"].contains("default"));
    EXPECT_TRUE(ids.insert(route.operation_id).second) << "duplicate operationId " << route.operation_id;
    // Every {param} of the path is a documented path parameter.
    for (size_t open = route.path.find('{'); open != std::string::npos; open = route.path.find('{', open + 1)) {
      std::string name = route.path.substr(open + 1, route.path.find('}', open) - open - 1);
      bool found = false;
      for (const auto& p : op.value("parameters", json::array())) {
        found |= p["name"] == name && p["in"] == "path" && p["required"] == true;
      }
      EXPECT_TRUE(found) << name << " of " << route.path;
    }
  }
}

TEST_F(OpenApiTest, EveryDocumentedOperationAnswers) {
  size_t operations = 0;
  for (const auto& [path, item] : doc_["paths"].items()) {
    for (const auto& [method, op] : item.items()) {
      std::string upper = method;
      for (char& c : upper) c = static_cast<char>(std::toupper(c));
      Response r = Send(upper, path);
      ++operations;
      EXPECT_NE(r.status, 405) << upper << " " << path;
      EXPECT_NE(r.status, 404) << upper << " " << path << ": " << r.body;
      // The answer is one the document lists (or an error, the default).
      if (r.status < 400) {
        EXPECT_TRUE(op["responses"].contains(std::to_string(r.status))) << upper << " " << path;
      }
    }
  }
  EXPECT_EQ(operations, api_->routes().routes().size());
}

TEST_F(OpenApiTest, AgentBodiesReferenceTheServedSchema) {
  const json& body = doc_["paths"]["/v1/agents"]["post"]["requestBody"]["content"];
  for (const char* type : {"application/yaml", "application/x-yaml", "text/yaml", "application/json"}) {
    ASSERT_TRUE(body.contains(type)) << type;
    EXPECT_EQ(body[type]["schema"]["$ref"], "/v1/schemas/agent");
  }
  EXPECT_TRUE(doc_["paths"].contains("/v1/schemas/agent"));
}

TEST(RouteTableTest, MediaTypes) {
  std::vector<std::string> yaml = {"application/yaml", "text/yaml"};
  EXPECT_TRUE(MediaTypeIn("application/yaml", yaml));
  EXPECT_TRUE(MediaTypeIn(" Text/YAML ; charset=utf-8", yaml));
  EXPECT_FALSE(MediaTypeIn("", yaml));
  EXPECT_FALSE(MediaTypeIn("application/yamlx", yaml));
}

TEST(RouteTableTest, PathParamsAndTrailingSlashes) {
  RouteTable table;
  std::string seen;
  table.Add({"GET", "/a/{id}/b", "op", "s", {}, {}, {}, {},
             [&](const Request&, const PathParams& p) {
               seen = p.at("id");
               return Response{};
             }});
  Request r;
  r.method = "GET";
  r.path = "/a/42/b";
  EXPECT_EQ(table.Dispatch(r).status, 200);
  EXPECT_EQ(seen, "42");
  r.path = "/a//b";
  EXPECT_EQ(table.Dispatch(r).status, 404);
  r.path = "/a/42/b/";
  EXPECT_EQ(table.Dispatch(r).status, 404);
  r.path = "a/42/b";
  EXPECT_EQ(table.Dispatch(r).status, 404);
}

TEST(RouteTableTest, AHandlerThatThrowsIsA500WithoutDetail) {
  RouteTable table;
  table.Add({"GET", "/x", "op", "s", {}, {}, {}, {},
             [](const Request&, const PathParams&) -> Response { throw std::runtime_error("secret boom"); }});
  Request r;
  r.method = "GET";
  r.path = "/x";
  Response out = table.Dispatch(r);
  EXPECT_EQ(out.status, 500);
  EXPECT_EQ(out.body.find("secret"), std::string::npos);
  EXPECT_NE(out.body.find("urn:volent:problem:internal"), std::string::npos);
}

}  // namespace
}  // namespace volent::control
