// Runner semantics on small hand-assembled modules. These use the decoder,
// validator and instantiation only (globals, imports, registration), not the
// interpreter.
#include "ampoule/spectest/runner.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "ampoule/spectest/command_reader.h"

namespace ampoule::spectest {
namespace {
namespace fs = std::filesystem;

// (module)
const std::string kEmpty("\0asm\1\0\0\0", 8);
// (module (import "spectest" "print_i32" (func (param i32))))
const std::string kImportsPrint = kEmpty + std::string(
    "\x01\x05\x01\x60\x01\x7f\x00"
    "\x02\x16\x01\x08spectest\x09print_i32\x00\x00", 7 + 24);
// (module (import "nowhere" "f" (func)))
const std::string kImportsNowhere = kEmpty + std::string(
    "\x01\x04\x01\x60\x00\x00"
    "\x02\x0d\x01\x07nowhere\x01" "f\x00\x00", 6 + 15);
// (module (global (export "g") i32 (i32.const 42)))
const std::string kExportsGlobal = kEmpty + std::string(
    "\x06\x06\x01\x7f\x00\x41\x2a\x0b"
    "\x07\x05\x01\x01g\x03\x00", 8 + 7);
// (module (import "m" "g" (global i32)) (export "h" (global 0)))
const std::string kReexportsGlobal = kEmpty + std::string(
    "\x02\x08\x01\x01m\x01g\x03\x7f\x00"
    "\x07\x05\x01\x01h\x03\x00", 10 + 7);

// (module (type (func (param v128)))): needs SIMD.
const std::string kDeclaresV128 = kEmpty + std::string("\x01\x05\x01\x60\x01\x7b\x00", 7);
// (module (func (drop (v128.const i64x2 0 0)))): needs SIMD.
const std::string kUsesSimdOpcode = kEmpty + std::string(
    "\x01\x04\x01\x60\x00\x00"
    "\x03\x02\x01\x00"
    "\x0a\x17\x01\x15\x00\xfd\x0c" "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0" "\x1a\x0b", 6 + 4 + 25);

class RunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ampoule-runner-test-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    Write("empty.wasm", kEmpty);
    Write("print.wasm", kImportsPrint);
    Write("nowhere.wasm", kImportsNowhere);
    Write("global.wasm", kExportsGlobal);
    Write("reexport.wasm", kReexportsGlobal);
    Write("garbage.wasm", "this is not wasm");
    Write("v128.wasm", kDeclaresV128);
    Write("simd_op.wasm", kUsesSimdOpcode);
  }
  void TearDown() override { fs::remove_all(dir_); }

  void Write(const std::string& name, const std::string& bytes) {
    std::ofstream(dir_ / name, std::ios::binary) << bytes;
  }

  // Runs the commands (a JSON array body) as script `name`; returns the verdicts.
  std::vector<Verdict> Run(const std::string& commands, std::string_view name = "t.wast") {
    core::Result<CommandFile> file = ReadCommandFile("{\"commands\": [" + commands + "]}");
    EXPECT_TRUE(file.ok()) << file.message();
    std::vector<Verdict> out;
    if (!file.ok()) return out;
    RunCommandFile(*file, name, dir_, [&](const Verdict& v) { out.push_back(v); });
    EXPECT_EQ(out.size(), file->commands.size());
    return out;
  }

  fs::path dir_;
};

std::string Module(int line, const std::string& file, const std::string& name = "") {
  return R"({"type": "module", "line": )" + std::to_string(line) + R"(, "filename": ")" + file + "\"" +
         (name.empty() ? "" : R"(, "name": ")" + name + "\"") + "}";
}

std::string GetReturns(int line, const std::string& field, int value, const std::string& module = "") {
  return R"({"type": "assert_return", "line": )" + std::to_string(line) +
         R"(, "action": {"type": "get", "field": ")" + field + "\"" +
         (module.empty() ? "" : R"(, "module": ")" + module + "\"") +
         R"(}, "expected": [{"type": "i32", "value": ")" + std::to_string(value) + "\"}]}";
}

TEST_F(RunnerTest, ModulesLoadAndGlobalsCanBeRead) {
  std::vector<Verdict> v = Run(Module(1, "empty.wasm") + "," + Module(2, "global.wasm") + "," +
                               GetReturns(3, "g", 42) + "," + GetReturns(4, "g", 43));
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(v[0].kind, Verdict::Kind::kPass) << v[0].message;
  EXPECT_EQ(v[1].kind, Verdict::Kind::kPass) << v[1].message;
  EXPECT_EQ(v[2].kind, Verdict::Kind::kPass) << v[2].message;
  EXPECT_EQ(v[3].kind, Verdict::Kind::kFail);
  EXPECT_EQ(v[3].line, 4u);
  EXPECT_EQ(v[3].command, CommandKind::kAssertReturn);
  EXPECT_EQ(v[3].message, "get \"g\": expected [i32:43 (0x2b)], got [i32:42 (0x2a)]");
}

TEST_F(RunnerTest, SpectestImportsResolve) {
  std::vector<Verdict> v = Run(Module(1, "print.wasm"));
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].kind, Verdict::Kind::kPass) << v[0].message;
}

TEST_F(RunnerTest, RegisteredModulesAreImportableAndNamedModulesAddressable) {
  std::vector<Verdict> v = Run(
      Module(1, "global.wasm", "$A") + R"(, {"type": "register", "line": 2, "name": "$A", "as": "m"},)" +
      Module(3, "reexport.wasm") + "," + GetReturns(4, "h", 42) + "," + GetReturns(5, "g", 42, "$A") + "," +
      GetReturns(6, "g", 42));
  ASSERT_EQ(v.size(), 6u);
  for (size_t i = 0; i < 5; ++i) EXPECT_EQ(v[i].kind, Verdict::Kind::kPass) << i << ": " << v[i].message;
  // The latest module exports "h", not "g".
  EXPECT_EQ(v[5].kind, Verdict::Kind::kFail);
  EXPECT_EQ(v[5].message, "no global export named \"g\"");
}

TEST_F(RunnerTest, UnlinkableNeedsALinkFailure) {
  std::vector<Verdict> v = Run(
      R"({"type": "assert_unlinkable", "line": 1, "filename": "nowhere.wasm", "text": "unknown import", "module_type": "binary"},
         {"type": "assert_unlinkable", "line": 2, "filename": "empty.wasm", "text": "unknown import", "module_type": "binary"},
         {"type": "module", "line": 3, "filename": "nowhere.wasm"})");
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0].kind, Verdict::Kind::kPass) << v[0].message;
  EXPECT_EQ(v[1].kind, Verdict::Kind::kFail);
  EXPECT_EQ(v[2].kind, Verdict::Kind::kFail);
  EXPECT_NE(v[2].message.find("unknown import \"nowhere\" \"f\""), std::string::npos) << v[2].message;
}

TEST_F(RunnerTest, MalformedBinariesMustBeRejectedAndTextOnesAreSkipped) {
  std::vector<Verdict> v = Run(
      R"({"type": "assert_malformed", "line": 1, "filename": "garbage.wasm", "text": "magic header not detected", "module_type": "binary"},
         {"type": "assert_malformed", "line": 2, "filename": "empty.wasm", "text": "unexpected end", "module_type": "binary"},
         {"type": "assert_malformed", "line": 3, "filename": "t.3.wat", "text": "unexpected token", "module_type": "text"},
         {"type": "assert_invalid", "line": 4, "filename": "missing.wasm", "text": "type mismatch", "module_type": "binary"})");
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(v[0].kind, Verdict::Kind::kPass) << v[0].message;
  EXPECT_EQ(v[1].kind, Verdict::Kind::kFail);
  EXPECT_NE(v[1].message.find("but it compiled"), std::string::npos) << v[1].message;
  EXPECT_EQ(v[2].kind, Verdict::Kind::kSkip);
  EXPECT_EQ(v[2].message, kTextSkipReason);
  EXPECT_EQ(v[3].kind, Verdict::Kind::kFail);  // an unreadable file is not a rejection
  EXPECT_NE(v[3].message.find("cannot open"), std::string::npos) << v[3].message;
}

TEST_F(RunnerTest, ActionsNeedAModule) {
  std::vector<Verdict> v = Run(
      R"({"type": "action", "line": 1, "action": {"type": "invoke", "field": "f", "args": []}},
         {"type": "register", "line": 2, "name": "$X", "as": "x"})");
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].kind, Verdict::Kind::kFail);
  EXPECT_EQ(v[0].message, "no module has been defined yet");
  EXPECT_EQ(v[1].kind, Verdict::Kind::kFail);
  EXPECT_EQ(v[1].message, "no module named $X");
}

TEST_F(RunnerTest, CommandsOnAModuleThatDidNotLoadFail) {
  std::vector<Verdict> v = Run(Module(1, "global.wasm") + "," + Module(2, "garbage.wasm") + "," +
                               GetReturns(3, "g", 42));
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[1].kind, Verdict::Kind::kFail);
  EXPECT_EQ(v[2].kind, Verdict::Kind::kFail);
  EXPECT_EQ(v[2].message, "the module from line 2 did not load");
}

TEST_F(RunnerTest, V128CommandsAreSkipped) {
  std::vector<Verdict> v = Run(Module(1, "empty.wasm") + R"(,
      {"type": "assert_return", "line": 2, "action": {"type": "invoke", "field": "f",
        "args": [{"type": "v128", "lane_type": "i32", "value": ["0", "0", "0", "0"]}]}, "expected": []})");
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[1].kind, Verdict::Kind::kSkip);
  EXPECT_EQ(v[1].message, kSimdSkipReason);
}

TEST_F(RunnerTest, ModulesThatNeedSimdSkipWhatDependsOnThem) {
  std::vector<Verdict> v = Run(
      Module(1, "v128.wasm", "$S") + R"(, {"type": "register", "line": 2, "name": "$S", "as": "s"},
      {"type": "assert_unlinkable", "line": 3, "filename": "v128.wasm", "text": "x", "module_type": "binary"},
      {"type": "assert_invalid", "line": 4, "filename": "simd_op.wasm", "text": "x", "module_type": "binary"},
      {"type": "module", "line": 5, "filename": "simd_op.wasm"},
      {"type": "action", "line": 6, "action": {"type": "invoke", "field": "f", "args": []}},
      {"type": "action", "line": 7, "action": {"type": "invoke", "module": "$S", "field": "f", "args": []}})");
  ASSERT_EQ(v.size(), 7u);
  for (const Verdict& x : v) {
    EXPECT_EQ(x.kind, Verdict::Kind::kSkip) << x.line << ": " << x.message;
    EXPECT_EQ(x.message, kSimdSkipReason) << x.line;
  }
  // A module importing from a registered module that needed SIMD is skipped too.
  Write("imports_s.wasm", kEmpty + std::string("\x02\x08\x01\x01s\x01g\x03\x7f\x00", 10));
  v = Run(Module(1, "v128.wasm") + R"(, {"type": "register", "line": 2, "as": "s"},)" +
          Module(3, "imports_s.wasm"));
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[2].kind, Verdict::Kind::kSkip) << v[2].message;
}

TEST_F(RunnerTest, SimdScriptsAreSkippedWhole) {
  EXPECT_TRUE(IsSimdScript("simd_lane.wast"));
  EXPECT_FALSE(IsSimdScript("i32.wast"));
  std::vector<Verdict> v = Run(Module(1, "garbage.wasm") + "," + GetReturns(2, "g", 1), "simd_lane.wast");
  ASSERT_EQ(v.size(), 2u);
  for (const Verdict& x : v) {
    EXPECT_EQ(x.kind, Verdict::Kind::kSkip);
    EXPECT_EQ(x.message, kSimdSkipReason);
  }
}

}  // namespace
}  // namespace ampoule::spectest
