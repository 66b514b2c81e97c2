// The trust gate decides on one snapshot of the evidence: an agent that
// swaps a file while the gate works (a rename over the output during the
// replay, a FIFO that serves other bytes on a later read) cannot get a field
// the signed output never held past the gate, and the receipt digest logged
// is the digest of the receipt that was judged.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <ctime>

#include "ampoule/gate/action.h"
#include "ampoule/gate/submit.h"
#include "ampoule/verify/verify_testing.h"

namespace ampoule::gate {
namespace {

using verify::testing::Scene;
using verify::testing::Sha;
using verify::testing::WriteFile;

class GateSnapshotTest : public ::testing::Test {
 protected:
  GateSnapshotTest() {
    s.stdout_bytes = R"({"amount": 6, "to": "ann"})";
    WriteFile(s.Path("stdout"), s.stdout_bytes);
    s.record = s.MakeRecord();
    receipt_text = run::MakeReceipt(s.record, s.key);
    receipt_path = s.WriteReceipt(receipt_text);
    WriteFile(s.Path("policy.json"), R"({"trusted_keys": ["key.pub"], "kernel_sha256": ")" + Sha(s.kernel) +
                                         R"(", "max_data_age_seconds": 86400, "replay_fuel_ceiling": 1000000000,
        "decision_log": "gate.db", "outbox": "outbox"})");
    chmod(s.Path("policy.json").c_str(), 0644);
  }

  // A draft asserting `amount`, whose evidence output is `output`.
  std::string Draft(const std::string& amount, const std::string& output, const std::string& name = "draft.json") {
    char now[32];
    time_t t = time(nullptr);
    strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
    WriteFile(s.Path(name), std::string(R"({"kind": "refund", "idempotency_key": "refund:1",
      "fields": {"amount": {"value": )") + amount + R"(, "from": "/amount"}},
      "data_as_of": ")" + now + R"(",
      "evidence": {"receipt": "receipt.json", "program": "prog.py", "output": ")" + output +
                                         R"(", "inputs": {"a.csv": "a.csv", "b.txt": "b.txt"}, "stdin": "stdin"}})");
    return s.Path(name);
  }

  SubmitRequest Request(const std::string& draft) {
    SubmitRequest r;
    r.draft_path = draft;
    r.policy_path = s.Path("policy.json");
    r.kernel_path = s.Path("kernel");
    return r;
  }

  // A replay that returns the signed record, after `during` ran.
  verify::Runner Replayer(std::function<void()> during) {
    return [this, during](const run::RunSpec&) -> core::Result<run::ProgramRun> {
      ++replays;
      if (during) during();
      run::ProgramRun run;
      run.record = s.record;
      return run;
    };
  }

  // Writes `bytes` to a new file and renames it over `path`, as an agent
  // holding the folder would.
  void RenameOver(const std::string& path, const std::string& bytes) {
    WriteFile(path + ".new", bytes);
    ASSERT_EQ(std::rename((path + ".new").c_str(), path.c_str()), 0);
  }

  Scene s;
  std::string receipt_text, receipt_path;
  int replays = 0;
};

TEST_F(GateSnapshotTest, GenuineEvidenceIsSent) {
  core::Result<SubmitOutcome> out = Submit(Request(Draft("6", "stdout")), Replayer(nullptr));
  ASSERT_TRUE(out.ok()) << out.message();
  EXPECT_EQ(out->decision, Decision::kSend);
  EXPECT_EQ(replays, 1);
  EXPECT_EQ(out->row.receipt_sha256, Sha(receipt_text));
}

TEST_F(GateSnapshotTest, AnOutputRenamedOverDuringTheReplayChangesNothing) {
  // The forged output says what the draft says; the signed one does not.
  core::Result<SubmitOutcome> out = Submit(Request(Draft("99", "stdout")), Replayer([&] {
    RenameOver(s.Path("stdout"), R"({"amount": 99, "to": "ann"})");
  }));
  ASSERT_TRUE(out.ok()) << out.message();
  EXPECT_EQ(replays, 1);
  EXPECT_EQ(out->decision, Decision::kHold) << "the field check read the forged output";
}

TEST_F(GateSnapshotTest, TheLoggedReceiptDigestIsOfTheReceiptJudged) {
  core::Result<SubmitOutcome> out = Submit(Request(Draft("6", "stdout")), Replayer([&] {
    RenameOver(receipt_path, "{\"not\": \"the receipt that was checked\"}");
  }));
  ASSERT_TRUE(out.ok()) << out.message();
  EXPECT_EQ(out->decision, Decision::kSend);
  EXPECT_EQ(out->row.receipt_sha256, Sha(receipt_text));
}

TEST_F(GateSnapshotTest, EvidenceThatIsNotARegularFileIsRefusedWithoutBlocking) {
  // A FIFO could serve the genuine bytes to the verifier and forged ones to
  // a later read; one with no writer would block an open() forever.
  ASSERT_EQ(mkfifo(s.Path("fifo").c_str(), 0600), 0);
  core::Result<SubmitOutcome> out = Submit(Request(Draft("6", "fifo")), Replayer(nullptr));
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.message().find("must be a regular file"), std::string::npos) << out.message();
  EXPECT_EQ(replays, 0);
  // A device, likewise.
  out = Submit(Request(Draft("6", "/dev/zero")), Replayer(nullptr));
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.message().find("must be a regular file"), std::string::npos) << out.message();
}

TEST_F(GateSnapshotTest, APolicyOthersMayWriteIsRefused) {
  chmod(s.Path("policy.json").c_str(), 0666);
  core::Result<SubmitOutcome> out = Submit(Request(Draft("6", "stdout")), Replayer(nullptr));
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.message().find("chmod go-w"), std::string::npos) << out.message();
  chmod(s.Path("policy.json").c_str(), 0620);
  out = Submit(Request(Draft("6", "stdout")), Replayer(nullptr));
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.message().find("group or others may write"), std::string::npos) << out.message();
}

TEST_F(GateSnapshotTest, ATrustedKeyFileOthersMayWriteIsRefused) {
  chmod(s.Path("key.pub").c_str(), 0646);
  core::Result<SubmitOutcome> out = Submit(Request(Draft("6", "stdout")), Replayer(nullptr));
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.message().find("group or others may write"), std::string::npos) << out.message();
}

TEST_F(GateSnapshotTest, TheReplayIsBoundedByThePolicysFuelCeiling) {
  // A receipt may ask for any fuel limit; the gate's replay never gets more
  // than the policy's ceiling (plus one), whatever the receipt says.
  s.record.limits.fuel = UINT64_MAX;
  receipt_text = run::MakeReceipt(s.record, s.key);
  receipt_path = s.WriteReceipt(receipt_text);
  uint64_t fuel_given = 0;
  verify::Runner runner = [&](const run::RunSpec& spec) -> core::Result<run::ProgramRun> {
    fuel_given = spec.limits.fuel;
    run::ProgramRun run;
    run.record = s.record;
    run.record.limits.fuel = spec.limits.fuel;
    return run;
  };
  core::Result<SubmitOutcome> out = Submit(Request(Draft("6", "stdout")), runner);
  ASSERT_TRUE(out.ok()) << out.message();
  EXPECT_EQ(out->decision, Decision::kSend);
  EXPECT_EQ(fuel_given, 1'000'000'001u);
}

}  // namespace
}  // namespace ampoule::gate
