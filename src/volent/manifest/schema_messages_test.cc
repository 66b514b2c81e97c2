// Schema problems are said in our words: every keyword our schemas use is
// driven to a failure through the loaders, every draft-07 keyword through
// valijson itself, and every message valijson's validator can produce is
// given to SchemaMessage; none of valijson's phrases may come out.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "volent/manifest/document.h"
#include "volent/manifest/manifest.h"
#include "volent/manifest/schema_validation.h"

namespace volent::manifest {
namespace {

using nlohmann::json;

// Phrases of valijson's messages (validation_visitor.hpp of valijson 1.0).
const std::vector<std::string>& RawPhrases() {
  static const std::vector<std::string> phrases = {
      "constraint", "Object should", "Array should", "String should", "Expected number", "Failed to",
      "Value type", "Value should", "Value could", "Target ", "Missing required property", "Missing dependency",
      "Object contains", "Elements at indexes", "Cannot validate", "Array contains", "comparison value",
      "child schema", "subschema",
  };
  return phrases;
}

void ExpectOurWords(const std::string& message, const std::string& context) {
  EXPECT_FALSE(message.empty()) << context;
  for (const std::string& raw : RawPhrases()) {
    EXPECT_EQ(message.find(raw), std::string::npos) << context << ": " << message;
  }
}

std::string All(const Problems& problems) {
  std::string out;
  for (const Problem& p : problems) out += FormatProblem(p) + "\n";
  return out;
}

// Every problem of `problems` is ours and has a position; one of them
// contains `expected`.
void ExpectProblem(const Problems& problems, const std::string& expected, const std::string& context) {
  ASSERT_FALSE(problems.empty()) << context;
  bool found = false;
  for (const Problem& p : problems) {
    ExpectOurWords(p.message, context);
    EXPECT_GT(p.line, 0) << context << ": " << FormatProblem(p);
    EXPECT_GT(p.column, 0) << context << ": " << FormatProblem(p);
    found = found || FormatProblem(p).find(expected) != std::string::npos;
  }
  EXPECT_TRUE(found) << context << ": expected \"" << expected << "\" in\n" << All(problems);
}

constexpr char kAgentHead[] = "apiVersion: volent/v1\nkind: Agent\nmetadata: {name: a}\n";
constexpr char kModel[] = "  model: {provider: openai, name: m}\n";
constexpr char kConfigHead[] = "apiVersion: volent/v1\nkind: NodeConfig\n";

TEST(SchemaMessagesTest, EveryAgentSchemaKeywordFailsInOurWords) {
  struct Case {
    const char* keyword;
    std::string text;
    std::string expected;
  };
  std::string labels = "apiVersion: volent/v1\nkind: Agent\nmetadata:\n  name: a\n  labels:\n";
  for (int i = 0; i < 65; ++i) labels += "    l" + std::to_string(i) + ": x\n";
  labels += "spec:\n" + std::string(kModel);
  std::string tools = std::string(kAgentHead) + "spec:\n" + kModel + "  tools:\n";
  for (int i = 0; i < 65; ++i) tools += "    - {name: t" + std::to_string(i) + ", kind: wasm, component: sha256:" + std::string(64, 'a') + "}\n";
  std::string approvals = std::string(kAgentHead) + "spec:\n" + kModel + "  approval:\n    required_for: [";
  for (int i = 0; i < 65; ++i) approvals += std::string(i ? ", " : "") + "tool:t" + std::to_string(i);
  approvals += "]\n";
  const std::vector<Case> cases = {
      {"const", "apiVersion: volent/v2\nkind: Agent\nmetadata: {name: a}\nspec:\n" + std::string(kModel),
       "1:13: /apiVersion: must be \"volent/v1\"; found \"volent/v2\""},
      {"required", std::string(kAgentHead), "1:1: missing required field \"spec\""},
      {"additionalProperties", std::string(kAgentHead) + "spec:\n" + kModel + "colour: red\n", "/colour: unknown field \"colour\""},
      {"type (object)", std::string(kAgentHead) + "spec: [x]\n", "/spec: must be a mapping; found a list"},
      {"type (integer, 4.0)", std::string(kAgentHead) + "spec:\n  model: {provider: openai, name: m, budget: {max_concurrent: 4.0}}\n",
       "/spec/model/budget/max_concurrent: must be an integer; found 4.0"},
      {"type (string)", std::string(kAgentHead) + "spec:\n  model: {provider: openai, name: 12}\n",
       "/spec/model/name: must be a string; found 12"},
      {"enum", std::string(kAgentHead) + "spec:\n  model: {provider: mistral, name: m}\n",
       "/spec/model/provider: must be one of \"anthropic\", \"openai\", \"openai-compatible\"; found \"mistral\""},
      {"minLength", std::string(kAgentHead) + "spec:\n  model: {provider: openai, name: \"\"}\n", "/spec/model/name: must not be empty"},
      {"maxLength", std::string(kAgentHead) + "spec:\n  instructions: " + std::string(65537, 'x') + "\n" + kModel,
       "/spec/instructions: must be at most 65536 characters long; found 65537"},
      {"pattern", std::string(kAgentHead) + "spec:\n  model: {provider: openai, name: m, endpoint: ftp://x}\n",
       "/spec/model/endpoint: must be an http:// or https:// URL; found \"ftp://x\""},
      {"minimum", std::string(kAgentHead) + "spec:\n  model: {provider: openai, name: m, budget: {max_concurrent: 0}}\n",
       "/spec/model/budget/max_concurrent: must be at least 1; found 0"},
      {"maximum", std::string(kAgentHead) + "spec:\n  model: {provider: openai, name: m, budget: {max_concurrent: 10001}}\n",
       "/spec/model/budget/max_concurrent: must be at most 10000; found 10001"},
      {"maxProperties", labels, "/metadata/labels: must have at most 64 fields; found 65"},
      {"propertyNames", "apiVersion: volent/v1\nkind: Agent\nmetadata: {name: a, labels: {\"-x\": y}}\nspec:\n" + std::string(kModel),
       "/metadata/labels/-x: the key \"-x\" is not allowed; keys must be 1 to 63 letters"},
      {"maxItems (tools)", tools, "/spec/tools: must have at most 64 items; found 65"},
      {"maxItems (required_for)", approvals, "/spec/approval/required_for: must have at most 64 items; found 65"},
      {"uniqueItems", std::string(kAgentHead) + "spec:\n" + kModel +
                          "  tools: [{name: t, kind: wasm, component: sha256:" + std::string(64, 'a') +
                          "}]\n  approval: {required_for: [tool:t, tool:t]}\n",
       "/spec/approval/required_for/1: repeats item 0 (\"tool:t\")"},
      {"items + $ref", std::string(kAgentHead) + "spec:\n" + kModel + "  tools: [{name: t}]\n",
       "/spec/tools/0: missing required field \"kind\""},
      {"allOf + if/then", std::string(kAgentHead) + "spec:\n  model: {provider: openai-compatible, name: m}\n",
       "/spec/model: missing required field \"endpoint\" (an openai-compatible model names its endpoint)"},
      {"false schema", std::string(kAgentHead) + "spec:\n" + kModel +
                           "  tools: [{name: t, kind: wasm, component: sha256:" + std::string(64, 'a') +
                           ", http: {method: GET, url: \"http://x\"}}]\n",
       "/spec/tools/0/http: field \"http\" is not allowed here (a sealed tool (wasm, python, js) names its component by hash"},
      {"properties (nested false)", std::string(kAgentHead) + "spec:\n" + kModel +
                                        "  tools: [{name: t, kind: http, capability: c, http: {method: GET, url: \"http://x\"}, "
                                        "limits: {fuel: 5}}]\n",
       "/spec/tools/0/limits/fuel: field \"fuel\" is not allowed here (memory, files and fuel limits apply to sealed tools (wasm, python, js) only)"},
  };
  for (const Case& c : cases) {
    Checked<Agent> agent = LoadAgent(c.text, "a.agent.yaml");
    EXPECT_FALSE(agent.ok()) << c.keyword;
    ExpectProblem(agent.problems, c.expected, c.keyword);
  }
}

TEST(SchemaMessagesTest, EveryNodeConfigSchemaKeywordFailsInOurWords) {
  struct Case {
    const char* keyword;
    std::string text;
    std::string expected;
  };
  const std::string allow = std::string(kConfigHead) + "egress:\n  allow:\n";
  std::string many = allow;
  for (int i = 0; i < 1025; ++i) many += "    - {capability: c, scheme: https, host: h" + std::to_string(i) + ".example}\n";
  const std::vector<Case> cases = {
      {"const", "apiVersion: volent/v1\nkind: Agent\n", "/kind: must be \"NodeConfig\"; found \"Agent\""},
      {"required", "kind: NodeConfig\n", "missing required field \"apiVersion\""},
      {"additionalProperties", std::string(kConfigHead) + "colour: red\n", "/colour: unknown field \"colour\""},
      {"type", std::string(kConfigHead) + "listen: 8470\n", "/listen: must be a string; found 8470"},
      {"pattern", std::string(kConfigHead) + "listen: localhost\n", "/listen: must be HOST:PORT"},
      {"maxLength", std::string(kConfigHead) + "listen: " + std::string(301, 'a') + "\n", "/listen: must be at most 300 characters long"},
      {"minLength", std::string(kConfigHead) + "data_dir: \"\"\n", "/data_dir: must not be empty"},
      {"minimum", std::string(kConfigHead) + "egress: {max_redirects: -1}\n", "/egress/max_redirects: must be at least 0; found -1"},
      {"maximum", std::string(kConfigHead) + "egress: {max_redirects: 21}\n", "/egress/max_redirects: must be at most 20; found 21"},
      {"enum", allow + "    - {capability: c, scheme: ftp, host: h}\n", "/egress/allow/0/scheme: must be one of \"https\", \"http\"; found \"ftp\""},
      {"minItems", allow + "    - {capability: c, scheme: https, host: h, methods: []}\n", "/egress/allow/0/methods: must have at least 1 item"},
      {"maxItems", many, "/egress/allow: must have at most 1024 items; found 1025"},
      {"uniqueItems", allow + "    - {capability: c, scheme: https, host: h, methods: [GET, GET]}\n",
       "/egress/allow/0/methods/1: repeats item 0 (\"GET\")"},
      {"items + $ref + required", allow + "    - {scheme: https, host: h}\n", "/egress/allow/0: missing required field \"capability\""},
      {"allOf + if/then (false schema)", allow + "    - {capability: c, scheme: https, host: h, cidr: 10.0.0.0/8}\n",
       "/egress/allow/0/cidr: field \"cidr\" is not allowed here (an entry names exactly one of host and cidr)"},
      {"allOf + if/else", allow + "    - {capability: c, scheme: https}\n",
       "/egress/allow/0: missing required field \"cidr\" (an entry names exactly one of host and cidr)"},
  };
  for (const Case& c : cases) {
    Checked<NodeConfig> config = LoadNodeConfig(c.text, "volent.yaml");
    EXPECT_FALSE(config.ok()) << c.keyword;
    ExpectProblem(config.problems, c.expected, c.keyword);
  }
}

// valijson itself, for every draft-07 keyword it checks: each error it
// lists comes with a message in our words.
TEST(SchemaMessagesTest, EveryValijsonErrorHasOurWords) {
  struct Case {
    const char* schema;
    const char* document;
  };
  const std::vector<Case> cases = {
      {R"({"type": "integer"})", "4.5"},
      {R"({"type": ["string", "null"]})", "1"},
      {R"({"enum": [1, 2]})", "3"},
      {R"({"const": "x"})", R"("y")"},
      {R"({"minLength": 2})", R"("a")"},
      {R"({"maxLength": 1})", R"("ab")"},
      {R"({"pattern": "^a$"})", R"("b")"},
      {R"({"format": "date"})", R"("2026-13-45")"},
      {R"({"format": "time"})", R"("25:00")"},
      {R"({"format": "date-time"})", R"("yesterday")"},
      {R"({"minimum": 2})", "1"},
      {R"({"maximum": 2.5})", "3"},
      {R"({"exclusiveMinimum": 2})", "2"},
      {R"({"exclusiveMaximum": 2})", "2"},
      {R"({"multipleOf": 3})", "7"},
      {R"({"multipleOf": 0.5})", "0.7"},
      {R"({"minItems": 2})", "[1]"},
      {R"({"maxItems": 1})", "[1, 2]"},
      {R"({"uniqueItems": true})", "[1, 1, 1]"},
      {R"({"contains": {"const": 5}})", "[1, 2]"},
      {R"({"items": {"type": "string"}})", "[1]"},
      {R"({"items": [{"type": "string"}], "additionalItems": false})", R"(["a", 1])"},
      {R"({"items": [{"type": "string"}], "additionalItems": {"type": "string"}})", R"(["a", 1])"},
      {R"({"items": [{"type": "string"}]})", "[1]"},
      {R"({"required": ["a"]})", "{}"},
      {R"({"minProperties": 2})", R"({"a": 1})"},
      {R"({"maxProperties": 1})", R"({"a": 1, "b": 2})"},
      {R"({"properties": {"a": {"type": "string"}}})", R"({"a": 1})"},
      {R"({"additionalProperties": false})", R"({"a": 1})"},
      {R"({"additionalProperties": {"type": "string"}})", R"({"a": 1})"},
      {R"({"patternProperties": {"^x": {"type": "string"}}})", R"({"xa": 1})"},
      {R"({"propertyNames": {"maxLength": 1}})", R"({"ab": 1})"},
      {R"({"dependencies": {"a": ["b"]}})", R"({"a": 1})"},
      {R"({"dependencies": {"a": {"required": ["b"]}}})", R"({"a": 1})"},
      {R"({"allOf": [{"type": "string"}, {"minLength": 3}]})", R"("ab")"},
      {R"({"anyOf": [{"type": "string"}, {"type": "null"}]})", "1"},
      {R"({"oneOf": [{"type": "integer"}, {"minimum": 0}]})", "1"},
      {R"({"oneOf": [{"type": "string"}, {"type": "null"}]})", "1"},
      {R"({"not": {"type": "integer"}})", "1"},
      {R"({"if": {"type": "integer"}, "then": {"minimum": 5}, "else": {"type": "string"}})", "1"},
      {R"({"if": {"type": "integer"}, "then": {"minimum": 5}, "else": {"type": "string"}})", "true"},
      {R"({"definitions": {"s": {"type": "string"}}, "$ref": "#/definitions/s"})", "1"},
      {R"(false)", "1"},
      {R"({"properties": {"a": false}})", R"({"a": 1})"},
  };
  for (const Case& c : cases) {
    const std::string context = std::string(c.schema) + " against " + c.document;
    CompiledSchema schema(json::parse(c.schema));
    ASSERT_EQ(schema.error(), "") << context;
    std::vector<SchemaError> errors;
    EXPECT_FALSE(schema.Validate(json::parse(c.document), &errors)) << context;
    for (const SchemaError& e : errors) {
      EXPECT_NE(e.message, e.description) << context;
      ExpectOurWords(e.message, context + " (" + e.description + ")");
    }
  }
}

// Every message of valijson 1.0's validator (validation_visitor.hpp), with
// sample names and numbers, and the words it becomes.
TEST(SchemaMessagesTest, EveryValijsonMessageIsTranslated) {
  const std::vector<std::pair<std::string, std::string>> rows = {
      {"Failed to validate against any schemas allowed by anyOf constraint.", "matches none of the allowed forms"},
      {"Failed to validate against a conditional schema set by if-then-else constraints.", "does not meet a condition that applies here"},
      {"Failed to match expected value set by 'const' constraint.", "is not the value required here"},
      {"Failed to any values against subschema in 'contains' constraint.", "has no item of the required form"},
      {"Failed to match against any enum values.", "is not one of the allowed values"},
      {"String should be a valid date", "must be a date (YYYY-MM-DD)"},
      {"String should be a valid time", "must be a time of day (HH:MM:SS with a time zone)"},
      {"String should be a valid date-time", "must be a date and time (e.g. 2026-01-31T12:00:00Z)"},
      {"Array contains more items than allowed by items constraint.", "has more items than allowed here"},
      {"Failed to validate item #2 against additional items schema.", "item 2 is not valid"},
      {"Cannot validate item #1 or greater using 'items' constraint or 'additionalItems' constraint.",
       "has more items than allowed here (from item 1 on)"},
      {"Expected number less than 2.500000", "must be less than 2.5"},
      {"Expected number less than or equal to 10000.000000", "must be at most 10000"},
      {"Array should contain no more than 64 elements.", "must have at most 64 items"},
      {"String should be no more than 63 characters in length.", "must be at most 63 characters long"},
      {"Object should have no more than 64 properties.", "must have at most 64 fields"},
      {"Expected number greater than 0.000000", "must be greater than 0"},
      {"Expected number greater than or equal to 1.000000", "must be at least 1"},
      {"Array should contain no fewer than 1 elements.", "must have at least 1 item"},
      {"String should be no fewer than 1 characters in length.", "must be at least 1 character long"},
      {"Object should have no fewer than 2 properties.", "must have at least 2 fields"},
      {"Value could not be converted to a number to check if it is a multiple of 3.000000", "must be a multiple of 3"},
      {"Value should be a multiple of 0.500000", "must be a multiple of 0.5"},
      {"Value could not be converted to an integer for multipleOf check", "must be a number that can be checked for being a multiple"},
      {"Value could not be converted to a double for multipleOf check", "must be a number that can be checked for being a multiple"},
      {"Target should not validate against schema specified in 'not' constraint.", "is not allowed"},
      {"Failed to validate against any child schemas allowed by oneOf constraint.", "matches none of the allowed forms"},
      {"Failed to validate against exactly one child schema.", "matches more than one of the allowed forms"},
      {"Failed to match regex specified by 'pattern' constraint.", "is not in the required form (pattern)"},
      {"Object contains a property that could not be validated using 'properties' or 'additionalProperties' constraints: 'colour'.",
       "unknown field \"colour\""},
      {"Failed to validate against additional properties schema", "a field here is not valid"},
      {"Failed to validate item #0 in array.", "item 0 is not valid"},
      {"Value type not permitted by 'type' constraint.", "is not of a type allowed here"},
      {"Elements at indexes #0 and #3 violate uniqueness constraint.", "items 0 and 3 are the same (each item must be different)"},
      {"Target value and comparison value are not equal", "is not the value required here"},
      {"Missing required property 'name'.", "missing required field \"name\""},
      {"Missing dependency 'b'.", "missing field \"b\", which another field here needs"},
      {"Failed to validate item #4 against corresponding item schema.", "item 4 is not valid"},
      {"Failed to validate against schema associated with pattern '^x'.", "a field whose name matches \"^x\" is not valid"},
      {"Failed to validate against schema associated with property name 'spec'.", "field \"spec\" is not valid"},
      {"Failed to validate against dependent schema.", "does not meet what another field here needs"},
      {"Failed to validate against child schema #1.", "does not meet every rule that applies here"},
      {"Something a later valijson says.", "does not match the schema here"},
  };
  for (const auto& [raw, ours] : rows) {
    EXPECT_EQ(SchemaMessage(raw), ours) << raw;
    ExpectOurWords(SchemaMessage(raw), raw);
  }
  bool summary = false;
  SchemaMessage("Failed to validate item #0 in array.", &summary);
  EXPECT_TRUE(summary);
  SchemaMessage("Missing required property 'name'.", &summary);
  EXPECT_FALSE(summary);
}

// A list whose items must be unique, far over its maxItems and all equal:
// valijson listing every error would compare and record every pair (here
// 5e9, and as many recorded errors); it is refused with a bounded list of
// problems. No clock is read: done the quadratic way, the check would not
// finish within the test run's timeout, nor fit in memory.
TEST(SchemaMessagesTest, AnOverlongUniqueListIsCheap) {
  std::string text = std::string(kAgentHead) + "spec:\n" + kModel + "  approval:\n    required_for: [";
  for (int i = 0; i < 99000; ++i) text += i ? ", tool:t" : "tool:t";
  text += "]\n";
  Checked<Agent> agent = LoadAgent(text, "a.agent.yaml");
  EXPECT_FALSE(agent.ok());
  EXPECT_LE(agent.problems.size(), kMaxProblems);
  ExpectProblem(agent.problems, "/spec/approval/required_for: must have at most 64 items; found 99000", "overlong");
}

}  // namespace
}  // namespace volent::manifest
