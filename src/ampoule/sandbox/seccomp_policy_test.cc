// The seccomp table compiles for both stages on this machine's libseccomp,
// and the stages differ where they should. What the filters do to a running
// program is tested in jail_escape_test.cc and lockdown_test.cc.
#include "ampoule/sandbox/seccomp_policy.h"

#include <gtest/gtest.h>

namespace ampoule {
namespace {

bool SameCode(const SeccompProgram& a, const SeccompProgram& b) {
  if (a.code.size() != b.code.size()) return false;
  for (size_t i = 0; i < a.code.size(); ++i) {
    const sock_filter& x = a.code[i];
    const sock_filter& y = b.code[i];
    if (x.code != y.code || x.jt != y.jt || x.jf != y.jf || x.k != y.k) return false;
  }
  return true;
}

TEST(SeccompPolicyTest, BothStagesCompile) {
  for (SeccompStage stage : {SeccompStage::kLaunch, SeccompStage::kEngine}) {
    core::Result<SeccompProgram> program = CompileSeccompFilter(stage, 5);
    ASSERT_TRUE(program.ok()) << program.message();
    EXPECT_GT(program->code.size(), 50u);
    EXPECT_LT(program->code.size(), 4096u);  // BPF_MAXINSNS
  }
}

TEST(SeccompPolicyTest, TheLaunchFilterNamesItsExecutableDescriptor) {
  core::Result<SeccompProgram> three = CompileSeccompFilter(SeccompStage::kLaunch, 3);
  core::Result<SeccompProgram> four = CompileSeccompFilter(SeccompStage::kLaunch, 4);
  ASSERT_TRUE(three.ok() && four.ok());
  EXPECT_FALSE(SameCode(*three, *four));
}

TEST(SeccompPolicyTest, TheEngineFilterIgnoresTheDescriptorAndIsSmaller) {
  core::Result<SeccompProgram> engine3 = CompileSeccompFilter(SeccompStage::kEngine, 3);
  core::Result<SeccompProgram> engine4 = CompileSeccompFilter(SeccompStage::kEngine, 4);
  core::Result<SeccompProgram> launch = CompileSeccompFilter(SeccompStage::kLaunch, 3);
  ASSERT_TRUE(engine3.ok() && engine4.ok() && launch.ok());
  EXPECT_TRUE(SameCode(*engine3, *engine4));
  EXPECT_LT(engine3->code.size(), launch->code.size());
}

}  // namespace
}  // namespace ampoule
