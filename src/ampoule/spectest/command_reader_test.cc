#include "ampoule/spectest/command_reader.h"

#include <gtest/gtest.h>

namespace ampoule::spectest {
namespace {

// As wast2json 1.0.32 writes it (abridged).
constexpr const char* kScript = R"({"source_filename": "t.wast",
 "commands": [
  {"type": "module", "line": 1, "name": "$M", "filename": "t.0.wasm"},
  {"type": "register", "line": 5, "name": "$M", "as": "m"},
  {"type": "module", "line": 6, "filename": "t.1.wasm"},
  {"type": "assert_return", "line": 9, "action": {"type": "invoke", "field": "add",
     "args": [{"type": "i32", "value": "1"}, {"type": "i32", "value": "4294967295"}]},
     "expected": [{"type": "i32", "value": "0"}]},
  {"type": "assert_return", "line": 10, "action": {"type": "invoke", "module": "$M", "field": "f",
     "args": [{"type": "externref", "value": "2"}]},
     "expected": [{"type": "f32", "value": "nan:canonical"}, {"type": "funcref", "value": "null"}]},
  {"type": "assert_return", "line": 11, "action": {"type": "get", "field": "g"},
     "expected": [{"type": "i64", "value": "666"}]},
  {"type": "assert_trap", "line": 12, "action": {"type": "invoke", "field": "div", "args": []},
     "text": "integer divide by zero", "expected": [{"type": "i32"}]},
  {"type": "assert_exhaustion", "line": 13, "action": {"type": "invoke", "field": "loop", "args": []},
     "text": "call stack exhausted", "expected": []},
  {"type": "action", "line": 14, "action": {"type": "invoke", "field": "init", "args": []}, "expected": []},
  {"type": "assert_invalid", "line": 15, "filename": "t.2.wasm", "text": "type mismatch", "module_type": "binary"},
  {"type": "assert_malformed", "line": 16, "filename": "t.3.wat", "text": "unexpected token", "module_type": "text"},
  {"type": "assert_unlinkable", "line": 17, "filename": "t.4.wasm", "text": "unknown import", "module_type": "binary"},
  {"type": "assert_uninstantiable", "line": 18, "filename": "t.5.wasm", "text": "unreachable", "module_type": "binary"},
  {"type": "assert_return", "line": 19, "action": {"type": "invoke", "field": "v", "args": []},
     "expected": [{"type": "v128", "lane_type": "i32", "value": ["1", "2", "3", "4"]}]}
 ]}
)";

TEST(CommandReaderTest, ReadsEveryCommandKind) {
  core::Result<CommandFile> file = ReadCommandFile(kScript);
  ASSERT_TRUE(file.ok()) << file.message();
  EXPECT_EQ(file->source_filename, "t.wast");
  const std::vector<Command>& c = file->commands;
  ASSERT_EQ(c.size(), 14u);

  EXPECT_EQ(c[0].kind, CommandKind::kModule);
  EXPECT_EQ(c[0].line, 1u);
  EXPECT_EQ(c[0].name, "$M");
  EXPECT_EQ(c[0].filename, "t.0.wasm");

  EXPECT_EQ(c[1].kind, CommandKind::kRegister);
  EXPECT_EQ(c[1].name, "$M");
  EXPECT_EQ(c[1].as, "m");
  EXPECT_TRUE(c[2].name.empty());

  ASSERT_TRUE(c[3].action.has_value());
  EXPECT_EQ(c[3].action->kind, Action::Kind::kInvoke);
  EXPECT_TRUE(c[3].action->module.empty());
  EXPECT_EQ(c[3].action->field, "add");
  ASSERT_EQ(c[3].action->args.size(), 2u);
  EXPECT_EQ(c[3].action->args[1].bits, 0xffffffffu);
  ASSERT_EQ(c[3].expected.size(), 1u);

  EXPECT_EQ(c[4].action->module, "$M");
  EXPECT_EQ(c[4].action->args[0].bits, 3u);  // ref.extern 2
  EXPECT_EQ(c[4].expected[0].kind, SpecValue::Kind::kNanCanonical);
  EXPECT_EQ(c[4].expected[1].type, wasm::ValType::FuncRef);

  EXPECT_EQ(c[5].action->kind, Action::Kind::kGet);
  EXPECT_EQ(c[6].kind, CommandKind::kAssertTrap);
  EXPECT_EQ(c[6].text, "integer divide by zero");
  EXPECT_EQ(c[6].expected[0].kind, SpecValue::Kind::kTypeOnly);
  EXPECT_EQ(c[7].kind, CommandKind::kAssertExhaustion);
  EXPECT_EQ(c[8].kind, CommandKind::kAction);
  EXPECT_EQ(c[9].kind, CommandKind::kAssertInvalid);
  EXPECT_EQ(c[9].module_type, "binary");
  EXPECT_EQ(c[10].kind, CommandKind::kAssertMalformed);
  EXPECT_EQ(c[10].module_type, "text");
  EXPECT_EQ(c[11].kind, CommandKind::kAssertUnlinkable);
  EXPECT_EQ(c[12].kind, CommandKind::kAssertUninstantiable);
  EXPECT_EQ(c[13].expected[0].kind, SpecValue::Kind::kV128);
}

TEST(CommandReaderTest, NamesEachKindAsTheScriptDoes) {
  EXPECT_STREQ(CommandKindName(CommandKind::kAssertReturn), "assert_return");
  EXPECT_STREQ(CommandKindName(CommandKind::kAssertUninstantiable), "assert_uninstantiable");
  EXPECT_STREQ(CommandKindName(CommandKind::kModule), "module");
}

// The error for `json`, which must not parse.
std::string ErrorFor(std::string_view json) {
  core::Result<CommandFile> file = ReadCommandFile(json);
  EXPECT_FALSE(file.ok()) << json;
  return file.ok() ? "" : file.message();
}

TEST(CommandReaderTest, RejectsDocumentsThatAreNotCommandLists) {
  EXPECT_EQ(ErrorFor("{\"commands\": ["), "not valid JSON");
  EXPECT_EQ(ErrorFor(""), "not valid JSON");
  EXPECT_EQ(ErrorFor("[]"), "the top level is not a JSON object");
  EXPECT_NE(ErrorFor("{}").find("\"commands\""), std::string::npos);
  EXPECT_NE(ErrorFor(R"({"commands": {}})").find("\"commands\""), std::string::npos);
  EXPECT_NE(ErrorFor(R"({"commands": [1]})").find("not a JSON object"), std::string::npos);
}

TEST(CommandReaderTest, ErrorsNameTheCommandLine) {
  EXPECT_EQ(ErrorFor(R"({"commands": [{"type": "assert_everything", "line": 7}]})"),
            "command at line 7: unknown command type \"assert_everything\"");
  EXPECT_EQ(ErrorFor(R"({"commands": [{"type": "module", "line": 3}]})"),
            "command at line 3: \"filename\" is missing");
  EXPECT_EQ(ErrorFor(R"({"commands": [{"type": "register", "line": 4}]})"),
            "command at line 4: \"as\" is missing");
  EXPECT_EQ(ErrorFor(R"({"commands": [{"type": "assert_return", "line": 5}]})"),
            "command at line 5: \"action\" is missing");
  EXPECT_EQ(ErrorFor(R"({"commands": [{"type": "module", "line": 6, "filename": 12}]})"),
            "command at line 6: \"filename\" is not a string");
}

TEST(CommandReaderTest, RejectsBadValuesAndActions) {
  std::string bad_arg = ErrorFor(R"({"commands": [{"type": "action", "line": 2,
      "action": {"type": "invoke", "field": "f", "args": [{"type": "i32", "value": "x"}]}}]})");
  EXPECT_NE(bad_arg.find("line 2"), std::string::npos);
  EXPECT_NE(bad_arg.find("\"x\""), std::string::npos);
  // An argument must be a concrete value, never a NaN class.
  EXPECT_NE(ErrorFor(R"({"commands": [{"type": "action", "line": 2, "action": {"type": "invoke",
      "field": "f", "args": [{"type": "f32", "value": "nan:canonical"}]}}]})")
                .find("not a concrete value"),
            std::string::npos);
  EXPECT_NE(ErrorFor(R"({"commands": [{"type": "action", "line": 2,
      "action": {"type": "call", "field": "f"}}]})")
                .find("unknown action type \"call\""),
            std::string::npos);
  EXPECT_NE(ErrorFor(R"({"commands": [{"type": "action", "line": 2,
      "action": {"type": "invoke", "args": []}}]})")
                .find("\"field\" is missing"),
            std::string::npos);
  EXPECT_NE(ErrorFor(R"({"commands": [{"type": "assert_return", "line": 2,
      "action": {"type": "get", "field": "g"}, "expected": [{"type": "i32", "value": ["1"]}]}]})")
                .find("array"),
            std::string::npos);
  EXPECT_NE(ErrorFor(R"({"commands": [{"type": "module", "line": -1, "filename": "a.wasm"}]})")
                .find("line"),
            std::string::npos);
}

TEST(CommandReaderTest, KeepsUtf8ExportNames) {
  core::Result<CommandFile> file = ReadCommandFile(R"({"commands": [{"type": "action", "line": 1,
      "action": {"type": "invoke", "field": "\u00e9\ud83d\ude00", "args": []}}]})");
  ASSERT_TRUE(file.ok()) << file.message();
  EXPECT_EQ(file->commands[0].action->field, "\xc3\xa9\xf0\x9f\x98\x80");
}

}  // namespace
}  // namespace ampoule::spectest
