// /proc/self/status read as the kernel writes it: the effective ids, the
// capability sets, no_new_privs and the seccomp mode; a missing or
// malformed line is an error, never a default that looks harmless.
#include "volent/attest/process_facts.h"

#include <unistd.h>

#include <gtest/gtest.h>

namespace volent::attest {
namespace {

constexpr char kStatus[] =
    "Name:\tvolent\nUmask:\t0022\nState:\tS (sleeping)\nUid:\t470\t471\t472\t473\nGid:\t480\t481\t482\t483\n"
    "Groups:\t\nCapInh:\t0000000000000000\nCapPrm:\t0000000000000000\nCapEff:\t0000000000200000\n"
    "CapBnd:\t000001ffffffffff\nCapAmb:\t0000000000000000\nNoNewPrivs:\t1\nSeccomp:\t2\nSeccomp_filters:\t2\n";

TEST(ProcessFactsTest, TheKernelsLines) {
  auto p = ParseProcessStatus(kStatus);
  ASSERT_TRUE(p.ok()) << p.message();
  EXPECT_EQ(p->uid, 471u);  // the effective uid
  EXPECT_EQ(p->gid, 481u);
  EXPECT_EQ(p->cap_eff, 1ull << 21);
  EXPECT_TRUE(HasEffective(*p, 21));
  EXPECT_FALSE(HasEffective(*p, 0));
  EXPECT_EQ(p->cap_bnd, 0x1ffffffffffull);
  EXPECT_EQ(p->no_new_privs, 1);
  EXPECT_EQ(p->seccomp, 2);
  auto json = ProcessFactsJson(*p);
  EXPECT_EQ(json["uid"], 471);
  EXPECT_EQ(json["cap_eff"], "0000000000200000");
  EXPECT_EQ(json["cap_bnd"], "000001ffffffffff");
  EXPECT_EQ(json["seccomp"], 2);
}

TEST(ProcessFactsTest, AMissingOrMalformedLineIsAnError) {
  const std::string good = kStatus;
  for (const char* line : {"NoNewPrivs:\t1\n", "Seccomp:\t2\n", "CapEff:\t0000000000200000\n", "Uid:\t470\t471\t472\t473\n"}) {
    std::string text = good;
    text.erase(text.find(line), std::string(line).size());
    EXPECT_FALSE(ParseProcessStatus(text).ok()) << line;
  }
  for (auto [from, to] : {std::pair{"CapEff:\t0000000000200000", "CapEff:\t-1"},
                          std::pair{"CapEff:\t0000000000200000", "CapEff:\t00000000002000001"},
                          std::pair{"Seccomp:\t2", "Seccomp:\t9"}, std::pair{"Uid:\t470\t471", "Uid:\t470\tx"}}) {
    std::string text = good;
    text.replace(text.find(from), std::string(from).size(), to);
    EXPECT_FALSE(ParseProcessStatus(text).ok()) << to;
  }
}

TEST(ProcessFactsTest, ThisProcess) {
  auto p = ReadProcessFacts();
  ASSERT_TRUE(p.ok()) << p.message();
  EXPECT_EQ(p->uid, geteuid());
  EXPECT_EQ(p->gid, getegid());
}

}  // namespace
}  // namespace volent::attest
