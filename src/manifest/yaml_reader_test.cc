// The YAML reader: core schema types, positions of values and keys, and
// the refusals (anchors, aliases, tags, duplicate keys, several documents,
// bad UTF-8, control characters, depth, size).
#include "manifest/yaml_reader.h"

#include <gtest/gtest.h>

namespace volent::manifest {
namespace {

using nlohmann::json;

json Read(const std::string& text) {
  ReadDocument doc = ReadYaml(text, "f");
  EXPECT_TRUE(doc.readable);
  EXPECT_TRUE(doc.problems.empty()) << FormatProblem(doc.problems.at(0));
  return doc.value;
}

std::string OnlyProblem(const std::string& text) {
  ReadDocument doc = ReadYaml(text, "f");
  if (doc.problems.size() != 1) return "problems: " + std::to_string(doc.problems.size());
  return FormatProblem(doc.problems[0]);
}

TEST(YamlReaderTest, CoreSchemaPlainScalars) {
  json v = Read("a: [null, Null, NULL, ~, true, False, 12, -3, +4, 0o17, 0x1F, 1.5, -.5, 1e3, 2.]\nb:\n");
  EXPECT_EQ(v["a"], json::parse("[null, null, null, null, true, false, 12, -3, 4, 15, 31, 1.5, -0.5, 1000.0, 2.0]"));
  EXPECT_TRUE(v["a"][6].is_number_integer());
  EXPECT_TRUE(v["a"][11].is_number_float());
  EXPECT_TRUE(v["b"].is_null());
}

TEST(YamlReaderTest, OtherPlainScalarsAndQuotedScalarsAreStrings) {
  json v = Read("a: [yes, no, on, 'true', \"12\", '', 1.2.3, 0b1, 012x, 1_000, sha256:ab]\n");
  EXPECT_EQ(v["a"], json::parse(R"(["yes", "no", "on", "true", "12", "", "1.2.3", "0b1", "012x", "1_000", "sha256:ab"])"));
}

TEST(YamlReaderTest, KeysAreTheirText) {
  json v = Read("1: a\ntrue: b\nnull: c\n~: d\n\"x/y~z\": e\n");
  EXPECT_EQ(v, json::parse(R"({"1": "a", "true": "b", "null": "c", "~": "d", "x/y~z": "e"})"));
}

TEST(YamlReaderTest, PositionsOfValuesAndKeys) {
  ReadDocument doc = ReadYaml("a:\n  b: [1, {c: x}]\n\"x/y~z\": 2\n", "f");
  ASSERT_TRUE(doc.readable);
  auto at = [](Position p) { return std::to_string(p.line) + ":" + std::to_string(p.column); };
  EXPECT_EQ(at(doc.positions.Of("")), "1:1");
  EXPECT_EQ(at(doc.positions.Of("/a")), "2:3");
  EXPECT_EQ(at(doc.positions.KeyOf("/a")), "1:1");
  EXPECT_EQ(at(doc.positions.Of("/a/b")), "2:6");
  EXPECT_EQ(at(doc.positions.Of("/a/b/1/c")), "2:14");
  EXPECT_EQ(at(doc.positions.KeyOf("/a/b/1/c")), "2:11");
  EXPECT_EQ(at(doc.positions.KeyOf("/x~1y~0z")), "3:1");
  EXPECT_EQ(at(doc.positions.Of("/a/b/1/nothing")), "2:10");  // nearest ancestor
}

TEST(YamlReaderTest, ColumnsCountCharacters) {
  ReadDocument doc = ReadYaml("\xef\xbb\xbf" "\xc3\xa9t\xc3\xa9: [x, \"\xe2\x82\xac\", y]\n", "f");
  ASSERT_TRUE(doc.readable);
  EXPECT_EQ(doc.positions.Of("/\xc3\xa9t\xc3\xa9/2").column, 15);
}

TEST(YamlReaderTest, Refusals) {
  EXPECT_EQ(OnlyProblem("a: &x 1\n"), "f:1:4: /a: anchors (&name) are not supported; write the value out");
  EXPECT_EQ(OnlyProblem("a: !!str 1\n"), "f:1:4: /a: tags (\"!\" or \"!!\") are not supported");
  EXPECT_EQ(OnlyProblem("a: 1\na: 2\n"), "f:2:1: /a: duplicate key \"a\" (first at line 1, column 1)");
  EXPECT_EQ(OnlyProblem("a: 1\n---\nb: 2\n"), "f:2:1: only one document is allowed in a file");
  EXPECT_EQ(OnlyProblem("? [a]\n: b\n"), "f:1:3: a key must be a string, not a list or mapping");
  EXPECT_EQ(OnlyProblem("a: .nan\n"), "f:1:4: /a: infinity and NaN are not JSON numbers; quote .nan for a string");
  EXPECT_EQ(OnlyProblem("a: 1e999\n"), "f:1:4: /a: the number 1e999 is out of range");
  EXPECT_EQ(OnlyProblem("a: 18446744073709551616\n"), "f:1:4: /a: the integer 18446744073709551616 is out of range (64 bits)");
  EXPECT_EQ(OnlyProblem("a: x\nb: \xff\n"), "f:2:4: the text is not UTF-8 (byte 0xff)");
  EXPECT_EQ(OnlyProblem("a: x\x01y\n"), "f:1:5: control character U+0001 is not allowed (escape it in a double-quoted string)");
  EXPECT_EQ(OnlyProblem(""), "f:1:1: the document is empty");
  EXPECT_EQ(OnlyProblem("# only a comment\n"), "f:1:1: the document is empty");
  EXPECT_EQ(OnlyProblem("a: \"\\ud800\"\n"), "f:1:11: invalid unicode escape (a lone UTF-16 surrogate, or beyond U+10FFFF)");
}

TEST(YamlReaderTest, AliasesAreNeverExpanded) {
  // The "billion laughs": each alias is one refused value, nothing more.
  std::string text = "a: &a [x, x, x, x, x, x, x, x, x]\n";
  for (char c = 'b'; c <= 'j'; ++c) {
    text += std::string(1, c) + ": &" + c + " [*" + static_cast<char>(c - 1) + ", *" + static_cast<char>(c - 1) +
            ", *" + static_cast<char>(c - 1) + "]\n";
  }
  ReadDocument doc = ReadYaml(text, "f");
  EXPECT_EQ(doc.problems.size(), 10u + 27u);
  EXPECT_LT(doc.value.dump().size(), 1000u);
}

TEST(YamlReaderTest, ProblemsAreCapped) {
  std::string text = "{";
  for (int i = 0; i < 500; ++i) text += "a: 1, ";
  text += "a: 1}";
  Checked<Agent> agent = LoadAgent(text, "f");
  // 4 missing fields, "a" unknown, 500 duplicates: 99 shown, then the count.
  ASSERT_EQ(agent.problems.size(), 100u);
  EXPECT_EQ(agent.problems[98].message, "duplicate key \"a\" (first at line 1, column 2)");
  EXPECT_EQ(FormatProblem(agent.problems[99]), "f:1:572: 406 more problems not shown");
}

TEST(YamlReaderTest, Limits) {
  EXPECT_EQ(OnlyProblem(std::string(kMaxDepth + 1, '[') + std::string(kMaxDepth + 1, ']')),
            "f:1:65: /0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0: "
            "nested too deeply (more than 64 levels)");
  EXPECT_EQ(OnlyProblem(std::string(kMaxDocumentBytes + 1, ' ')), "f:1:1: the document is larger than 1048576 bytes");
  std::string many = "[";
  for (size_t i = 0; i <= kMaxNodes; ++i) many += "0,";
  many += "0]";
  EXPECT_EQ(OnlyProblem(many), "f:1:200000: /99999: too many values (more than 100000)");
  // Far deeper than yaml-cpp's own guard, unbalanced: one clean problem.
  ReadDocument deep = ReadYaml(std::string(100000, '['), "f");
  EXPECT_FALSE(deep.readable);
  EXPECT_EQ(deep.problems.size(), 1u);
}

}  // namespace
}  // namespace volent::manifest
