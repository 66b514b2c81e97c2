// The schemas themselves: they compile with the validator as configured,
// every mapping they describe is closed, and the agent name pattern says
// what store::IsValidAgentName says.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "volent/manifest/manifest.h"
#include "volent/manifest/schema_validation.h"
#include "volent/store/agent_name.h"

namespace volent::manifest {
namespace {

using nlohmann::json;

// Paths of object schemas that accept fields they do not name.
void FindOpenObjects(const json& schema, const std::string& path, std::vector<std::string>& open) {
  if (schema.is_array()) {
    for (size_t i = 0; i < schema.size(); ++i) FindOpenObjects(schema[i], path + "/" + std::to_string(i), open);
    return;
  }
  if (!schema.is_object()) return;
  const bool object = schema.value("type", "") == "object";
  if (object && !schema.contains("additionalProperties")) open.push_back(path);
  for (const auto& [key, sub] : schema.items()) {
    if (key == "enum" || key == "const" || key == "required") continue;
    // then/else branches and if conditions refine an object described elsewhere.
    if (key == "if" || key == "then" || key == "else") continue;
    FindOpenObjects(sub, path + "/" + key, open);
  }
}

TEST(SchemaTest, SchemasCompile) {
  for (std::string_view text : {AgentSchemaText(), NodeConfigSchemaText()}) {
    json schema = json::parse(text);
    CompiledSchema compiled(schema);
    EXPECT_EQ(compiled.error(), "");
    EXPECT_EQ(schema["$schema"], "http://json-schema.org/draft-07/schema#");
    EXPECT_EQ(schema["$id"].get<std::string>().rfind("urn:volent:schema:", 0), 0u);
  }
}

TEST(SchemaTest, EveryMappingIsClosed) {
  std::vector<std::string> open;
  FindOpenObjects(json::parse(AgentSchemaText()), "agent", open);
  FindOpenObjects(json::parse(NodeConfigSchemaText()), "volent", open);
  // The one deliberate exception: a tool's input schema is passed to the
  // model as written (docs/manifests.md).
  EXPECT_EQ(open, std::vector<std::string>{"agent/definitions/tool/properties/input_schema"});
}

// Paths of array schemas with uniqueItems but no maxItems: valijson compares
// every pair of such a list (document.cc validates first without listing
// errors, which stops at maxItems before uniqueItems).
void FindUnboundedUniqueLists(const json& schema, const std::string& path, std::vector<std::string>& found) {
  if (schema.is_array()) {
    for (size_t i = 0; i < schema.size(); ++i) FindUnboundedUniqueLists(schema[i], path + "/" + std::to_string(i), found);
    return;
  }
  if (!schema.is_object()) return;
  if (schema.value("uniqueItems", false) && !schema.contains("maxItems")) found.push_back(path);
  for (const auto& [key, sub] : schema.items()) {
    if (key == "enum" || key == "const") continue;
    FindUnboundedUniqueLists(sub, path + "/" + key, found);
  }
}

TEST(SchemaTest, EveryUniqueListIsBounded) {
  std::vector<std::string> found;
  FindUnboundedUniqueLists(json::parse(AgentSchemaText()), "agent", found);
  FindUnboundedUniqueLists(json::parse(NodeConfigSchemaText()), "volent", found);
  EXPECT_EQ(found, std::vector<std::string>{});
}

TEST(SchemaTest, AgentNamePatternMatchesTheNodeRule) {
  const std::string base = "apiVersion: volent/v1\nkind: Agent\nspec: {model: {provider: openai, name: m}}\nmetadata: {name: ";
  const std::vector<std::string> names = {"a",   "0",   "a-b", "refund-agent-2", std::string(63, 'x'),
                                          std::string(64, 'x'), "", "-a", "a-", "A", "a_b", "a.b", "a b",
                                          "\xc3\xa9", "a--b", "9-9"};
  for (const std::string& name : names) {
    const bool valid = LoadAgent(base + json(name).dump() + "}\n", "n.agent.yaml").ok();
    EXPECT_EQ(valid, store::IsValidAgentName(name)) << json(name).dump();
  }
}

}  // namespace
}  // namespace volent::manifest
