#include "ampoule/spectest/report.h"

#include <gtest/gtest.h>

namespace ampoule::spectest {
namespace {

TEST(ReportTest, FileLineNamesTheFileAndItsCounts) {
  FileReport r;
  r.name = "i32.wast";
  r.passed = 460;
  r.failed = 2;
  r.skipped = 1;
  EXPECT_EQ(FormatFileLine(r), "i32.wast: 460 passed, 2 failed, 1 skipped");
  r.error = "crashed: signal 11 (Segmentation fault) at line 40; 3 later commands not run";
  EXPECT_EQ(FormatFileLine(r),
            "i32.wast: 460 passed, 2 failed, 1 skipped (crashed: signal 11 (Segmentation fault) at "
            "line 40; 3 later commands not run)");
}

TEST(ReportTest, TotalsLineIsExact) {
  Totals t;
  FileReport a;
  a.passed = 3;
  a.failed = 1;
  FileReport b;
  b.passed = 2;
  b.skipped = 5;
  t.Add(a);
  t.Add(b);
  EXPECT_EQ(FormatTotals(t), "5 passed, 1 failed, 5 skipped");
}

TEST(ReportTest, VerdictLineHasFileLineAndCommand) {
  Verdict v;
  v.kind = Verdict::Kind::kFail;
  v.command = CommandKind::kAssertReturn;
  v.line = 77;
  v.message = "invoke \"add\": expected [i32:1 (0x1)], got [i32:2 (0x2)]";
  EXPECT_EQ(FormatVerdictLine("i32.wast", v),
            "  i32.wast:77: assert_return: invoke \"add\": expected [i32:1 (0x1)], got [i32:2 (0x2)]");
}

TEST(ReportTest, AddSortsVerdictsByKind) {
  FileReport r;
  Verdict pass;
  r.Add(pass);
  pass.message = "note";
  r.Add(pass);
  Verdict skip;
  skip.kind = Verdict::Kind::kSkip;
  skip.message = "text format: not a binary-engine test";
  r.Add(skip);
  r.Add(skip);
  Verdict fail;
  fail.kind = Verdict::Kind::kFail;
  r.Add(fail);
  EXPECT_EQ(r.passed, 2u);
  EXPECT_EQ(r.notes.size(), 1u);
  EXPECT_EQ(r.skipped, 2u);
  EXPECT_EQ(r.skip_reasons.at("text format: not a binary-engine test"), 2u);
  EXPECT_EQ(r.failed, 1u);
  EXPECT_EQ(r.failures.size(), 1u);
}

}  // namespace
}  // namespace ampoule::spectest
