// Agent manifests: valid ones load; each kind of invalid one is reported at
// its exact line, column and pointer with a message that says what was
// expected. The examples in examples/node pass.
#include "volent/manifest/manifest.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace volent::manifest {
namespace {

// Line numbers in the tests below refer to this text (1-based).
constexpr char kValid[] =
    "apiVersion: volent/v1\n"        // 1
    "kind: Agent\n"                  // 2
    "metadata:\n"                    // 3
    "  name: refund-agent\n"         // 4
    "  labels: {team: support}\n"    // 5
    "spec:\n"                        // 6
    "  instructions: Be careful.\n"  // 7
    "  model:\n"                     // 8
    "    provider: anthropic\n"      // 9
    "    name: claude-sonnet-4-5\n"  // 10
    "    budget:\n"                  // 11
    "      max_concurrent: 4\n"      // 12
    "  tools:\n"                     // 13
    "    - name: lookup_order\n"     // 14
    "      kind: http\n"             // 15
    "      capability: erp.orders\n"  // 16
    "      http: {method: GET, url: \"http://erp.internal/orders\"}\n"  // 17
    "    - name: refund_policy\n"    // 18
    "      kind: wasm\n"             // 19
    "      component: sha256:9f2c4b7e1a0d3c5f6e8b2a4d7c9e1f3a5b7d9c2e4f6a8b0d1c3e5f7a9b2d4c6e\n"  // 20
    "      limits: {memory_mb: 64, fuel: 1000000, time_ms: 2000}\n"  // 21
    "  approval:\n"                  // 22
    "    required_for: [tool:lookup_order]\n";  // 23

// kValid with line `line` (1-based) replaced by `text` (which may be
// several lines, or "" to drop the line).
std::string Edit(int line, const std::string& text) {
  std::istringstream in(kValid);
  std::string out, l;
  for (int n = 1; std::getline(in, l); ++n) {
    if (n != line) {
      out += l + "\n";
    } else if (!text.empty()) {
      out += text + "\n";
    }
  }
  return out;
}

NodeConfig ConfigWith(std::vector<std::string> capabilities) {
  NodeConfig config;
  for (std::string& c : capabilities) config.egress.push_back({std::move(c), "https", "*", "", 0, "", {}});
  return config;
}

Problems Check(const std::string& text, const NodeConfig* config = nullptr) {
  Checked<Agent> agent = LoadAgent(text, "a.agent.yaml", config);
  EXPECT_EQ(agent.ok(), agent.problems.empty());
  return agent.problems;
}

void ExpectOne(const Problems& problems, int line, int column, const std::string& pointer, const std::string& message) {
  std::string all;
  for (const Problem& p : problems) all += FormatProblem(p) + "\n";
  ASSERT_EQ(problems.size(), 1u) << all;
  EXPECT_EQ(FormatProblem(problems[0]), "a.agent.yaml:" + std::to_string(line) + ":" + std::to_string(column) + ": " +
                                            (pointer.empty() ? "" : pointer + ": ") + message);
}

TEST(ManifestTest, ValidManifestLoads) {
  NodeConfig config = ConfigWith({"erp.orders"});
  Checked<Agent> agent = LoadAgent(kValid, "a.agent.yaml", &config);
  ASSERT_TRUE(agent.ok()) << FormatProblem(agent.problems.at(0));
  EXPECT_EQ(agent.value->name, "refund-agent");
  EXPECT_EQ(agent.value->model_provider, "anthropic");
  EXPECT_EQ(agent.value->model_name, "claude-sonnet-4-5");
  ASSERT_EQ(agent.value->tools.size(), 2u);
  EXPECT_EQ(agent.value->tools[0].name, "lookup_order");
  EXPECT_EQ(agent.value->tools[0].kind, "http");
  EXPECT_EQ(agent.value->tools[0].capability, "erp.orders");
  EXPECT_EQ(agent.value->tools[1].capability, "");
  EXPECT_EQ(agent.value->approval_required_for, std::vector<std::string>{"lookup_order"});
  EXPECT_EQ(agent.value->document["spec"]["model"]["budget"]["max_concurrent"], 4);
  EXPECT_EQ(agent.value->document["metadata"]["labels"]["team"], "support");
}

TEST(ManifestTest, MinimalManifestLoads) {
  EXPECT_TRUE(Check("apiVersion: volent/v1\nkind: Agent\nmetadata: {name: a}\n"
                    "spec: {model: {provider: openai, name: gpt-4.1}}\n")
                  .empty());
}

TEST(ManifestTest, JsonManifestLoadsWithEscapesAndUnicode) {
  const std::string text =
      "{\"apiVersion\": \"volent/v1\", \"kind\": \"Agent\", \"metadata\": {\"name\": \"j\"},\n"
      " \"spec\": {\"instructions\": \"tab\\tquote\\\" slash\\/ \\u00e9 \\ud83d\\ude00 caf\xc3\xa9\",\n"
      "          \"model\": {\"provider\": \"openai\", \"name\": \"gpt\", \"budget\": {\"max_concurrent\": 2}}}}\n";
  Checked<Agent> agent = LoadAgent(text, "j.json");
  ASSERT_TRUE(agent.ok()) << FormatProblem(agent.problems.at(0));
  EXPECT_EQ(agent.value->document["spec"]["instructions"], "tab\tquote\" slash/ \xc3\xa9 \xf0\x9f\x98\x80 caf\xc3\xa9");
  EXPECT_TRUE(agent.value->document["spec"]["model"]["budget"]["max_concurrent"].is_number_integer());
}

TEST(ManifestTest, PositionsAfterASurrogatePairStayRight) {
  const std::string text =
      "{\"apiVersion\": \"volent/v1\", \"kind\": \"Agent\", \"metadata\": {\"name\": \"\\ud83d\\ude00\"}, \"x\": 1}";
  Problems p = Check(text);
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(FormatProblem(p[0]), "a.agent.yaml:1:1: missing required field \"spec\"");
  EXPECT_EQ(p[1].pointer, "/metadata/name");
  EXPECT_EQ(p[1].column, 67);
  EXPECT_EQ(FormatProblem(p[2]), "a.agent.yaml:1:84: /x: unknown field \"x\"");
}

TEST(ManifestTest, UnknownFieldPointsAtTheKey) {
  ExpectOne(Check(Edit(12, "      max_concurrent: 4\n      colour: blue")), 13, 7, "/spec/model/budget/colour",
            "unknown field \"colour\"");
}

TEST(ManifestTest, WrongType) {
  ExpectOne(Check(Edit(12, "      max_concurrent: \"4\"")), 12, 23, "/spec/model/budget/max_concurrent",
            "must be an integer; found \"4\"");
  ExpectOne(Check(Edit(23, "    required_for: tool:lookup_order")), 23, 19, "/spec/approval/required_for",
            "must be a list; found \"tool:lookup_order\"");
  ExpectOne(Check(Edit(5, "  labels: {team: [support]}")), 5, 18, "/metadata/labels/team",
            "must be a string; found a list");
}

TEST(ManifestTest, BadEnum) {
  ExpectOne(Check(Edit(15, "      kind: grpc")), 15, 13, "/spec/tools/0/kind", "must be one of \"http\", \"wasm\", \"python\", \"js\"; found \"grpc\"");
}

TEST(ManifestTest, ASealedToolsCapabilityMustBeOnTheAllowlistLikeAnHttpTools) {
  const std::string text =
      Edit(21, "      limits: {memory_mb: 64, fuel: 1000000, time_ms: 2000}\n      capability: erp.refunds");
  NodeConfig config = ConfigWith({"erp.orders"});
  ExpectOne(Check(text, &config), 22, 19, "/spec/tools/1/capability",
            "capability \"erp.refunds\" has no entry in the node's egress allowlist");
  config = ConfigWith({"erp.orders", "erp.refunds"});
  Checked<Agent> agent = LoadAgent(text, "a.agent.yaml", &config);
  ASSERT_TRUE(agent.ok()) << FormatProblem(agent.problems.at(0));
  EXPECT_EQ(agent.value->tools[1].kind, "wasm");
  EXPECT_EQ(agent.value->tools[1].capability, "erp.refunds");
}

TEST(ManifestTest, MissingRequiredPointsAtTheObject) {
  ExpectOne(Check(Edit(10, "")), 9, 5, "/spec/model", "missing required field \"name\"");
  ExpectOne(Check(Edit(18, "    - description: policy")), 18, 7, "/spec/tools/1", "missing required field \"name\"");
}

TEST(ManifestTest, BadNamePattern) {
  ExpectOne(Check(Edit(4, "  name: Refund_Agent")), 4, 9, "/metadata/name",
            "must be 1 to 63 lowercase letters, digits and \"-\", starting and ending with a letter or digit; "
            "found \"Refund_Agent\"");
  ExpectOne(Check(Edit(4, "  name: -a")), 4, 9, "/metadata/name",
            "must be 1 to 63 lowercase letters, digits and \"-\", starting and ending with a letter or digit; found \"-a\"");
  ExpectOne(Check(Edit(4, "  name: " + std::string(64, 'a'))), 4, 9, "/metadata/name",
            "must be at most 63 characters long; found 64");
}

TEST(ManifestTest, BadSha256) {
  ExpectOne(Check(Edit(20, "      component: sha256:9F2C")), 20, 18, "/spec/tools/1/component",
            "must be \"sha256:\" and 64 lowercase hexadecimal digits; found \"sha256:9F2C\"");
}

TEST(ManifestTest, DuplicateKey) {
  ExpectOne(Check(Edit(10, "    name: claude-sonnet-4-5\n    name: other")), 11, 5, "/spec/model/name",
            "duplicate key \"name\" (first at line 10, column 5)");
}

TEST(ManifestTest, MalformedYamlHasItsPosition) {
  Problems p = Check(Edit(17, "      http: {method: GET, url: \"http://erp.internal/orders\""));
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].line, 18);  // the flow mapping is found unclosed at the next line
  EXPECT_EQ(p[0].message.rfind("not well-formed YAML: ", 0), 0u) << p[0].message;
  ExpectOne(Check(Edit(5, "  labels: [a\n   b: c")), 6, 5, "",
            "not well-formed YAML: a flow list \"[\" is not closed with \"]\" (or an item in it is malformed)");
  ExpectOne(Check(Edit(7, "\tinstructions: x")), 7, 14, "",
            "not well-formed YAML: a \":\" where no mapping value can begin (check the indentation, or quote the text); "
            "line 7 is indented with a tab (YAML indents with spaces only)");
}

TEST(ManifestTest, UnclosedQuoteIsNotApplied) {
  // yaml-cpp alone would read the rest of the file into the string.
  ExpectOne(Check(Edit(23, "    required_for: [\"tool:lookup_order]")), 23, 20, "/spec/approval/required_for/0",
            "this double-quoted string is never closed (no \" before the end of the file)");
  ExpectOne(Check(Edit(10, "    name: 'claude-sonnet-4-5")), 10, 11, "/spec/model/name",
            "this single-quoted string is never closed (no ' before the end of the file)");
  // With a quote further on, the string ends there and the text after it
  // does not parse: refused where the parse fails.
  Checked<Agent> agent = LoadAgent(Edit(7, "  instructions: \"Be careful."), "a.agent.yaml");
  EXPECT_FALSE(agent.ok());
  EXPECT_FALSE(agent.readable);
  ASSERT_EQ(agent.problems.size(), 1u);
  EXPECT_EQ(agent.problems[0].line, 17);
}

TEST(ManifestTest, CrOnlyLineBreaks) {
  std::string text = kValid;
  for (char& c : text) c = c == '\n' ? '\r' : c;
  NodeConfig config = ConfigWith({"erp.orders"});
  Checked<Agent> agent = LoadAgent(text, "a.agent.yaml", &config);
  ASSERT_TRUE(agent.ok()) << FormatProblem(agent.problems.at(0));
  EXPECT_EQ(agent.value->tools.size(), 2u);
  std::string bad = Edit(15, "      kind: grpc");
  for (char& c : bad) c = c == '\n' ? '\r' : c;
  ExpectOne(Check(bad), 15, 13, "/spec/tools/0/kind", "must be one of \"http\", \"wasm\", \"python\", \"js\"; found \"grpc\"");
}

TEST(ManifestTest, AFloatIsNotAnInteger) {
  ExpectOne(Check(Edit(12, "      max_concurrent: 4.0")), 12, 23, "/spec/model/budget/max_concurrent",
            "must be an integer; found 4.0");
}

TEST(ManifestTest, WasmToolWithoutComponent) {
  ExpectOne(Check(Edit(20, "")), 18, 7, "/spec/tools/1",
            "missing required field \"component\" (a sealed tool (wasm, python, js) names its component by hash; its requests go through its capability import, under its capability (docs/tools.md))");
}

TEST(ManifestTest, HttpToolWithComponent) {
  ExpectOne(Check(Edit(16, "      capability: erp.orders\n      component: "
                           "sha256:9f2c4b7e1a0d3c5f6e8b2a4d7c9e1f3a5b7d9c2e4f6a8b0d1c3e5f7a9b2d4c6e")),
            17, 7, "/spec/tools/0/component", "field \"component\" is not allowed here (only sealed tools (wasm, python, js) have a component)");
}

TEST(ManifestTest, OpenAiCompatibleWithoutEndpoint) {
  ExpectOne(Check(Edit(9, "    provider: openai-compatible")), 9, 5, "/spec/model",
            "missing required field \"endpoint\" (an openai-compatible model names its endpoint)");
  EXPECT_TRUE(Check(Edit(9, "    provider: openai-compatible\n    endpoint: https://llm.example.com/v1")).empty());
}

TEST(ManifestTest, UnknownApprovalTool) {
  ExpectOne(Check(Edit(23, "    required_for: [tool:lookup_order, tool:refund]")), 23, 39,
            "/spec/approval/required_for/1", "no tool named \"refund\" in spec.tools");
}

TEST(ManifestTest, DuplicateToolName) {
  ExpectOne(Check(Edit(18, "    - name: lookup_order")), 18, 13, "/spec/tools/1/name",
            "duplicate tool name \"lookup_order\" (also tool 0)");
}

TEST(ManifestTest, CapabilityNotOnAllowlist) {
  NodeConfig config = ConfigWith({"payments"});
  ExpectOne(Check(kValid, &config), 16, 19, "/spec/tools/0/capability",
            "capability \"erp.orders\" has no entry in the node's egress allowlist");
  NodeConfig allowed = ConfigWith({"payments", "erp.orders"});
  EXPECT_TRUE(Check(kValid, &allowed).empty());
  EXPECT_TRUE(Check(kValid).empty());  // no configuration: not checked
}

TEST(ManifestTest, SeveralErrorsAllReported) {
  std::string text = Edit(15, "      kind: grpc");
  text = text.substr(0, text.find("  approval")) + "  colour: red\n";
  text.replace(text.find("refund-agent"), 12, "Refund");
  Problems p = Check(text);
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(FormatProblem(p[0]).substr(0, 35), "a.agent.yaml:4:9: /metadata/name: m");
  EXPECT_EQ(FormatProblem(p[1]), "a.agent.yaml:15:13: /spec/tools/0/kind: must be one of \"http\", \"wasm\", \"python\", \"js\"; found \"grpc\"");
  EXPECT_EQ(FormatProblem(p[2]), "a.agent.yaml:22:3: /spec/colour: unknown field \"colour\"");
}

TEST(ManifestTest, WrongApiVersionAndKind) {
  Problems p = Check(Edit(1, "apiVersion: volent/v2"));
  ExpectOne(p, 1, 13, "/apiVersion", "must be \"volent/v1\"; found \"volent/v2\"");
  ExpectOne(Check(Edit(2, "kind: NodeConfig")), 2, 7, "/kind", "must be \"Agent\"; found \"NodeConfig\"");
}

}  // namespace
}  // namespace volent::manifest
