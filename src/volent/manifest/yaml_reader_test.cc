// The YAML reader: core schema types, positions of values and keys, and
// the refusals (anchors, aliases, tags, duplicate keys, several documents,
// bad UTF-8, control characters, depth, size).
#include "volent/manifest/yaml_reader.h"

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

// Hostile text (docs/threat-model.md, "Manifests (hostile YAML)").

TEST(YamlReaderTest, UnclosedQuotedStringsAreRefused) {
  // yaml-cpp accepts these when a line break ends the file (the string runs
  // to the end); without one it says so itself.
  EXPECT_EQ(OnlyProblem("a: \"abc\n"), "f:1:4: /a: this double-quoted string is never closed (no \" before the end of the file)");
  EXPECT_EQ(OnlyProblem("a: 'abc\n"), "f:1:4: /a: this single-quoted string is never closed (no ' before the end of the file)");
  EXPECT_EQ(OnlyProblem("a: 1\nb: \"abc\nc: 2\nd: 3\n"),
            "f:2:4: /b: this double-quoted string is never closed (no \" before the end of the file)");
  EXPECT_EQ(OnlyProblem("a: 1\nb: 'it''s\nc: 2\n"),
            "f:2:4: /b: this single-quoted string is never closed (no ' before the end of the file)");
  EXPECT_EQ(OnlyProblem("a: \"escaped \\\"\n"),
            "f:1:4: /a: this double-quoted string is never closed (no \" before the end of the file)");
  EXPECT_EQ(OnlyProblem("\"key: 1\n"), "f:1:1: this double-quoted string is never closed (no \" before the end of the file)");
  EXPECT_EQ(OnlyProblem("a: \"abc"), "f:1:8: not well-formed YAML: the file ends inside a quoted string (its closing quote is missing)");
  EXPECT_EQ(OnlyProblem("a: 'abc"), "f:1:8: not well-formed YAML: the file ends inside a quoted string (its closing quote is missing)");
  // Closed ones, with escapes, '' and line breaks inside, are read.
  EXPECT_EQ(Read("a: \"x\\\"y\"\nb: 'it''s'\nc: \"two\n  lines\"\nd: it's\ne: x 'y\n"),
            json::parse(R"({"a": "x\"y", "b": "it's", "c": "two lines", "d": "it's", "e": "x 'y"})"));
}

TEST(YamlReaderTest, UnclosedFlowCollectionsAreRefused) {
  const std::string list = "not well-formed YAML: a flow list \"[\" is not closed with \"]\" (or an item in it is malformed)";
  const std::string map = "not well-formed YAML: a flow mapping \"{\" is not closed with \"}\" (or an entry in it is malformed)";
  EXPECT_EQ(OnlyProblem("[a, b"), "f:1:6: " + list);
  EXPECT_EQ(OnlyProblem("[a, b\n"), "f:2:1: " + list);
  EXPECT_EQ(OnlyProblem("{a: b"), "f:1:6: " + map);
  EXPECT_EQ(OnlyProblem("x: [a, b\n"), "f:2:1: " + list);
  EXPECT_EQ(OnlyProblem("x: {a: b\n"), "f:2:1: " + map);
  EXPECT_EQ(OnlyProblem("x: [a, [b, c]\n"), "f:2:1: " + list);
  // A key that is a collection, in a text that parses, is still said as such.
  EXPECT_EQ(OnlyProblem("? {a: b}\n: c\n"), "f:1:3: a key must be a string, not a list or mapping");
}

TEST(YamlReaderTest, CarriageReturnsAreLineBreaks) {
  // YAML 1.2: LF, CR LF and CR alone each end a line.
  EXPECT_EQ(Read("a: 1\rb: [x,\r  y]\r# note\rc: \"p\rq\"\r"), json::parse(R"({"a": 1, "b": ["x", "y"], "c": "p q"})"));
  EXPECT_EQ(Read("a: 1\r\nb: 2\rc: 3\n"), json::parse(R"({"a": 1, "b": 2, "c": 3})"));
  EXPECT_EQ(Read("a: |\r  one\r  two\r"), json::parse(R"({"a": "one\ntwo\n"})"));
  EXPECT_EQ(OnlyProblem("a:\r  b: 1\r  b: 2\r"), "f:3:3: /a/b: duplicate key \"b\" (first at line 2, column 3)");
  EXPECT_EQ(OnlyProblem("a: 1\r\nb: 2\rc: &x 3\r"), "f:3:4: /c: anchors (&name) are not supported; write the value out");
  ReadDocument doc = ReadYaml("a: 1\rb:\r  c: x\r", "f");
  ASSERT_TRUE(doc.readable);
  EXPECT_EQ(doc.positions.Of("/b/c").line, 3);
  EXPECT_EQ(doc.positions.Of("/b/c").column, 6);
}

TEST(YamlReaderTest, ControlCharactersAndEncodings) {
  EXPECT_EQ(OnlyProblem(std::string("a: x\0y\n", 7)),
            "f:1:5: control character U+0000 (a NUL byte) is not allowed (escape it in a double-quoted string)");
  EXPECT_EQ(OnlyProblem(std::string("a: 1\nb: \"\0\"\n", 11)),
            "f:2:5: control character U+0000 (a NUL byte) is not allowed (escape it in a double-quoted string)");
  EXPECT_EQ(OnlyProblem("a: x\x1b[0m\n"), "f:1:5: control character U+001B is not allowed (escape it in a double-quoted string)");
  // DEL and C1 controls are text (YAML 1.2 escapes them only in its output):
  // the node stores manifests as JSON that holds them unescaped.
  EXPECT_EQ(Read("a: \"x\x7f\xc2\x85y\"\n"), json::parse("{\"a\": \"x\x7f\xc2\x85y\"}"));
  EXPECT_EQ(OnlyProblem("a: \xc3\x28\n"), "f:1:4: the text is not UTF-8 (byte 0xc3)");
  EXPECT_EQ(OnlyProblem("a: \xc0\xaf\n"), "f:1:4: the text is not UTF-8 (byte 0xc0)");      // overlong "/"
  EXPECT_EQ(OnlyProblem("a: \xed\xa0\x80\n"), "f:1:4: the text is not UTF-8 (byte 0xed)");  // a surrogate
  EXPECT_EQ(OnlyProblem("a: \xf4\x90\x80\x80\n"), "f:1:4: the text is not UTF-8 (byte 0xf4)");  // beyond U+10FFFF
  EXPECT_EQ(OnlyProblem("a: \xe2\x82\n"), "f:1:4: the text is not UTF-8 (byte 0xe2)");  // cut short
  // Byte order marks: a UTF-8 one first is dropped; a UTF-16/UTF-32 one is
  // refused; U+FEFF further on is a character of the text (YAML 1.2), and
  // one that ends up in a name is refused by the name's pattern.
  EXPECT_EQ(Read("\xef\xbb\xbf" "a: 1\n"), json::parse(R"({"a": 1})"));
  EXPECT_EQ(Read("a: \"\xef\xbb\xbf" "b\"\n"), json::parse("{\"a\": \"\xef\xbb\xbf" "b\"}"));
  EXPECT_EQ(OnlyProblem(std::string("\xff\xfe" "a\0:\0 \0" "1\0", 10)),
            "f:1:1: the text is UTF-16 or UTF-32 (it starts with that byte order mark); save it as UTF-8");
  EXPECT_EQ(OnlyProblem(std::string("\0\0\xfe\xff\0\0\0a", 8)),
            "f:1:1: the text is UTF-16 or UTF-32 (it starts with that byte order mark); save it as UTF-8");
}

TEST(YamlReaderTest, TabsInTheIndentation) {
  EXPECT_EQ(OnlyProblem("a:\n\tb: 1\n"),
            "f:2:3: not well-formed YAML: a \":\" where no mapping value can begin (check the indentation, or quote the "
            "text); line 2 is indented with a tab (YAML indents with spaces only)");
  EXPECT_EQ(OnlyProblem("a:\n  b: 1\n\tc: 2\n"), "f:3:1: not well-formed YAML: a tab in the indentation (YAML indents with spaces only)");
  EXPECT_EQ(OnlyProblem("a: |\n  x\n\ty\n"), "f:3:1: not well-formed YAML: a tab in the indentation (YAML indents with spaces only)");
  // Tabs between tokens, and a JSON file indented with tabs, are well-formed.
  EXPECT_EQ(Read("{\n\t\"a\": [\n\t\t1\n\t]\n}\n"), json::parse(R"({"a": [1]})"));
  EXPECT_EQ(Read("a:\t1\n"), json::parse(R"({"a": 1})"));
}

TEST(YamlReaderTest, DeepBlockNestingIsBounded) {
  std::string list;
  for (int i = 0; i <= kMaxDepth; ++i) list += "- ";
  EXPECT_EQ(OnlyProblem(list + "x\n").substr(0, 8), "f:1:129:");  // the 65th "- "
  EXPECT_NE(OnlyProblem(list + "x\n").find("nested too deeply (more than 64 levels)"), std::string::npos);
  std::string map;
  for (int i = 0; i <= kMaxDepth; ++i) map += std::string(i, ' ') + "k:\n";
  EXPECT_NE(OnlyProblem(map).find("nested too deeply (more than 64 levels)"), std::string::npos);
  // Within the limit, read.
  std::string ok;
  for (int i = 0; i < kMaxDepth - 1; ++i) ok += "- ";
  EXPECT_TRUE(ReadYaml(ok + "x\n", "f").readable);
}

TEST(YamlReaderTest, ParserMessagesAreOurs) {
  // Each of these makes yaml-cpp throw; none of its words may reach a person.
  const std::vector<std::string> malformed = {
      "a: [1, 2\n", "a: {b: 1\n", "a: ]\n", "a: }\n", "a: b: c\n", "- a\nb: c\n", "a:\n  - b\n  c: d\n",
      "a: \"\\q\"\n", "a: \"\\xZZ\"\n", "a: |0\n x\n", "a: |x\n x\n", "a: &\n", "a: *\n", "a: !<x\n",
      "a: !!str !!int 1\n", "a: &x &y 1\n", "%YAML 1.2 1.3\n---\na: 1\n", "%YAML 2.0\n---\na: 1\n",
      "%YAML 1.2\n%YAML 1.2\n---\na: 1\n", "%TAG !\n---\na: 1\n", "a: \"x\n---\ny\"\n", "a: *x\n",
      "? a\n? b\n: c\n- d\n", "[a]: b\n", "a: 'x\n",
  };
  for (const std::string& text : malformed) {
    ReadDocument doc = ReadYaml(text, "f");
    EXPECT_FALSE(doc.readable && doc.problems.empty()) << text;
    for (const Problem& p : doc.problems) {
      EXPECT_GT(p.line, 0) << text;
      EXPECT_GT(p.column, 0) << text;
      for (const char* raw : {"illegal", "not found", "scanning", "token", "invalid node", "unknown escape character",
                              "cannot assign", "the referenced anchor", "directives must", "bad YAML version"}) {
        EXPECT_EQ(p.message.find(raw), std::string::npos) << FormatProblem(p);
      }
    }
  }
}

}  // namespace
}  // namespace volent::manifest
