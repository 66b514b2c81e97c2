#include "ampoule/spectest/isolate.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>

namespace ampoule::spectest {
namespace {

std::vector<Command> FiveCommands() {
  std::vector<Command> commands(5);
  for (size_t i = 0; i < commands.size(); ++i) {
    commands[i].kind = CommandKind::kAssertReturn;
    commands[i].line = uint32_t(10 * (i + 1));
  }
  return commands;
}

Verdict Make(Verdict::Kind kind, uint32_t line, std::string message = {}) {
  Verdict v;
  v.kind = kind;
  v.command = CommandKind::kAssertTrap;
  v.line = line;
  v.message = std::move(message);
  return v;
}

TEST(IsolateTest, VerdictEncodingRoundTrips) {
  Verdict v = Make(Verdict::Kind::kFail, 123, "two\nlines and a \\ backslash\\n");
  std::string line = EncodeVerdict(v);
  ASSERT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1);  // one line on the wire
  Verdict back;
  ASSERT_TRUE(DecodeVerdict(std::string_view(line).substr(0, line.size() - 1), &back));
  EXPECT_EQ(back.kind, v.kind);
  EXPECT_EQ(back.command, v.command);
  EXPECT_EQ(back.line, v.line);
  EXPECT_EQ(back.message, v.message);
}

TEST(IsolateTest, DecodeRejectsGarbage) {
  Verdict v;
  EXPECT_FALSE(DecodeVerdict("", &v));
  EXPECT_FALSE(DecodeVerdict("X 1 2 m", &v));
  EXPECT_FALSE(DecodeVerdict("P x 2 m", &v));
  EXPECT_FALSE(DecodeVerdict("P 99 2 m", &v));  // no such command kind
  EXPECT_FALSE(DecodeVerdict("P 1 2", &v));
  EXPECT_TRUE(DecodeVerdict("S 1 2 ", &v));
}

TEST(IsolateTest, CollectsEveryVerdictFromTheChild) {
  std::vector<Command> commands = FiveCommands();
  FileReport r = RunIsolated("ok.wast", commands, [](const VerdictSink& sink) {
    sink(Make(Verdict::Kind::kPass, 10));
    sink(Make(Verdict::Kind::kPass, 20, "a note"));
    sink(Make(Verdict::Kind::kFail, 30, "expected 1, got 2"));
    sink(Make(Verdict::Kind::kSkip, 40, "simd: not supported yet"));
    sink(Make(Verdict::Kind::kSkip, 50, "simd: not supported yet"));
  }, std::chrono::seconds(60));
  EXPECT_EQ(r.name, "ok.wast");
  EXPECT_EQ(r.passed, 2u);
  EXPECT_EQ(r.failed, 1u);
  EXPECT_EQ(r.skipped, 2u);
  EXPECT_TRUE(r.error.empty()) << r.error;
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_EQ(r.failures[0].line, 30u);
  EXPECT_EQ(r.failures[0].message, "expected 1, got 2");
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_EQ(r.skip_reasons["simd: not supported yet"], 2u);
}

TEST(IsolateTest, ACrashCountsTheRestAsFailedAndNamesTheLine) {
  std::vector<Command> commands = FiveCommands();
  FileReport r = RunIsolated("crash.wast", commands, [](const VerdictSink& sink) {
    sink(Make(Verdict::Kind::kPass, 10));
    sink(Make(Verdict::Kind::kPass, 20));
    raise(SIGSEGV);
  }, std::chrono::seconds(60));
  EXPECT_EQ(r.passed, 2u);
  EXPECT_EQ(r.failed, 3u);
  EXPECT_EQ(r.passed + r.failed + r.skipped, commands.size());
  // Under AddressSanitizer the signal is caught and the child exits with a status instead.
  bool crashed = r.error.starts_with("crashed: signal ") || r.error.starts_with("exited with status ");
  EXPECT_TRUE(crashed) << r.error;
  EXPECT_NE(r.error.find("at line 30; 2 later commands not run"), std::string::npos) << r.error;
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_EQ(r.failures[0].line, 30u);
  EXPECT_EQ(r.failures[0].command, CommandKind::kAssertReturn);
}

TEST(IsolateTest, AChildThatExitsEarlyIsAccountedFor) {
  std::vector<Command> commands = FiveCommands();
  FileReport r = RunIsolated("exit.wast", commands, [](const VerdictSink& sink) {
    sink(Make(Verdict::Kind::kPass, 10));
    _exit(7);
  }, std::chrono::seconds(60));
  EXPECT_EQ(r.passed, 1u);
  EXPECT_EQ(r.failed, 4u);
  EXPECT_NE(r.error.find("exited with status 7"), std::string::npos) << r.error;
}

TEST(IsolateTest, AHungChildIsKilledAtTheTimeout) {
  std::vector<Command> commands = FiveCommands();
  FileReport r = RunIsolated("hang.wast", commands, [](const VerdictSink& sink) {
    sink(Make(Verdict::Kind::kPass, 10));
    for (;;) pause();
  }, std::chrono::seconds(1));
  EXPECT_EQ(r.passed, 1u);
  EXPECT_EQ(r.failed, 4u);
  EXPECT_NE(r.error.find("timed out"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("line 20"), std::string::npos) << r.error;
}

TEST(IsolateTest, InProcessRunCountsTheSame) {
  FileReport r = RunInProcess("here.wast", [](const VerdictSink& sink) {
    sink(Make(Verdict::Kind::kPass, 1));
    sink(Make(Verdict::Kind::kFail, 2, "no"));
  });
  EXPECT_EQ(r.passed, 1u);
  EXPECT_EQ(r.failed, 1u);
  EXPECT_EQ(r.skipped, 0u);
}

}  // namespace
}  // namespace ampoule::spectest
