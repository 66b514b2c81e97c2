// How a run was sealed, as the verifier reads and prints it: the isolation
// line on stderr (docs/cli.md), the exact names (a value re-signed with the
// signing key itself in another spelling is FAILED), older receipts read as
// unknown, and replay, which runs in its own sandbox, not comparing it.
#include <gtest/gtest.h>

#include "ampoule/receipt/envelope.h"
#include "ampoule/receipt/statement.h"
#include "ampoule/verify/verify_testing.h"

namespace ampoule::verify {
namespace {

using testing::CommandOutput;
using testing::RunCommand;
using testing::Scene;

// The receipt of `r` with its predicate changed by `edit`, signed by `key`:
// what only the key holder can make.
template <class Edit>
std::string Resigned(const run::RunRecord& r, const core::ed25519::SecretKey& key, Edit edit) {
  receipt::Statement st = run::StatementForRecord(r);
  edit(st);
  return receipt::SerializeEnvelope(
      receipt::SignEnvelope(receipt::kInTotoPayloadType, receipt::SerializeStatement(st), key));
}

// The value of the verifier's `isolation:` line on stderr ("" if none), and
// how many such lines there are.
std::string IsolationSaid(const CommandOutput& r, int* lines = nullptr) {
  const std::string prefix = "ampoule-verify: isolation: ";
  std::string value;
  int n = 0;
  for (size_t at = 0; (at = r.err.find(prefix, at)) != std::string::npos; at += prefix.size()) {
    if (at != 0 && r.err[at - 1] != '\n') continue;
    ++n;
    size_t start = at + prefix.size();
    value = r.err.substr(start, r.err.find_first_of(" \n", start) - start);
  }
  if (lines) *lines = n;
  return value;
}

TEST(VerifyIsolation, TheVerifierPrintsTheSignedIsolation) {
  for (run::Isolation isolation : {run::Isolation::kNone, run::Isolation::kJail, run::Isolation::kVm}) {
    Scene s;
    s.record.isolation = isolation;
    CommandOutput r = RunCommand(s.FullVerify(s.SignedReceipt(s.record)));
    // The contract is untouched: one result line, VERIFIED, exit 0.
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "VERIFIED\n");
    int lines = 0;
    EXPECT_EQ(IsolationSaid(r, &lines), run::IsolationName(isolation)) << r.err;
    EXPECT_EQ(lines, 1) << r.err;
  }
  Scene s;
  s.record.isolation = run::Isolation::kNone;
  CommandOutput r = RunCommand(s.FullVerify(s.SignedReceipt(s.record)));
  EXPECT_NE(r.err.find("ampoule-verify: isolation: none (the run was not jailed (--insecure-no-jail)"),
            std::string::npos)
      << r.err;
  // Also when the verdict is not a pass: the receipt was accepted.
  s.record.result = {3, 3, run::Stop::kExit, 50, false, false, ""};
  r = RunCommand(s.FullVerify(s.SignedReceipt(s.record)));
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_EQ(IsolationSaid(r), "none") << r.err;
}

TEST(VerifyIsolation, AValueInAnotherSpellingIsFailedEvenSignedByTheKey) {
  Scene s;
  s.record.isolation = run::Isolation::kNone;
  for (nlohmann::json bad : std::vector<nlohmann::json>{"jail ", "Jail", "JAIL", " jail", "", "unknown", "sandbox",
                                                        nullptr, 2, nlohmann::json::array({"jail"})}) {
    std::string text = Resigned(s.record, s.key, [&](receipt::Statement& st) { st.predicate["isolation"] = bad; });
    CommandOutput r = RunCommand(s.FullVerify(s.WriteReceipt(text)));
    EXPECT_EQ(r.exit_code, 1) << bad.dump() << "\n" << r.err;
    EXPECT_EQ(r.out, "FAILED\n") << bad.dump();
    EXPECT_NE(r.err.find("'isolation'"), std::string::npos) << r.err;
    EXPECT_EQ(IsolationSaid(r), "") << "no isolation line for a receipt that was not accepted";
  }
  // Removed from a version 4 predicate: FAILED too, never a default.
  std::string text = Resigned(s.record, s.key, [](receipt::Statement& st) { st.predicate.erase("isolation"); });
  CommandOutput r = RunCommand(s.FullVerify(s.WriteReceipt(text)));
  EXPECT_EQ(r.out, "FAILED\n") << r.err;
  EXPECT_NE(r.err.find("'isolation' is missing"), std::string::npos) << r.err;
  // A record nobody set the isolation of makes a receipt that fails.
  run::RunRecord unset = s.record;
  unset.isolation = run::Isolation::kUnknown;
  r = RunCommand(s.FullVerify(s.SignedReceipt(unset)));
  EXPECT_EQ(r.out, "FAILED\n") << r.err;
}

TEST(VerifyIsolation, OnlyTheKeyHolderCanRelabelNoneAsJail) {
  Scene s;
  s.record.isolation = run::Isolation::kNone;
  auto relabel = [](receipt::Statement& st) { st.predicate["isolation"] = "jail"; };
  // Without the key: the payload changed under the old signature, or
  // signed by another key. FAILED.
  receipt::Envelope e = receipt::ParseEnvelope(run::MakeReceipt(s.record, s.key)).value();
  receipt::Statement st = run::StatementForRecord(s.record);
  relabel(st);
  e.payload = receipt::SerializeStatement(st);
  CommandOutput r = RunCommand(s.FullVerify(s.WriteReceipt(receipt::SerializeEnvelope(e))));
  EXPECT_EQ(r.out, "FAILED\n") << r.err;
  r = RunCommand(s.FullVerify(s.WriteReceipt(Resigned(s.record, s.other, relabel))));
  EXPECT_EQ(r.out, "FAILED\n") << r.err;
  // The key holder can: the value is its word (docs/receipt-spec.md).
  r = RunCommand(s.FullVerify(s.WriteReceipt(Resigned(s.record, s.key, relabel))));
  EXPECT_EQ(r.out, "VERIFIED\n") << r.err;
  EXPECT_EQ(IsolationSaid(r), "jail");
}

TEST(VerifyIsolation, AnOlderReceiptIsUnknownNeverJail) {
  Scene s;
  run::RunRecord v3 = s.record;
  v3.predicate_version = 3;
  CommandOutput r = RunCommand(s.FullVerify(s.SignedReceipt(v3)));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "VERIFIED\n");
  EXPECT_EQ(IsolationSaid(r), "unknown") << r.err;
  EXPECT_NE(r.err.find("a version 3 receipt does not say how its run was sealed"), std::string::npos) << r.err;
  // An `isolation` in a version 3 predicate is not that version's: ignored.
  std::string text = Resigned(v3, s.key, [](receipt::Statement& st) { st.predicate["isolation"] = "jail"; });
  r = RunCommand(s.FullVerify(s.WriteReceipt(text)));
  EXPECT_EQ(r.out, "VERIFIED\n") << r.err;
  EXPECT_EQ(IsolationSaid(r), "unknown") << r.err;
}

// The receipt of an unjailed run, replayed (in the jail): the isolation is
// not a difference, and a note says the replay's own.
TEST(VerifyIsolation, ReplayDoesNotCompareTheIsolation) {
  Scene s;
  s.record.isolation = run::Isolation::kNone;
  run::RunRecord replayed = s.record;
  replayed.isolation = run::Isolation::kJail;
  Runner runner = [&](const run::RunSpec& spec) -> core::Result<run::ProgramRun> {
    EXPECT_FALSE(spec.insecure_no_jail) << "a replay runs jailed unless the verifier is told otherwise";
    run::ProgramRun run;
    run.record = replayed;
    run.record.limits.timeout_seconds = spec.limits.timeout_seconds;
    return run;
  };
  std::vector<std::string> args = {"--replay", s.SignedReceipt(s.record), "--kernel", s.Path("kernel"),
                                   "--program", s.Path("prog.py"), "--input", "a.csv=" + s.Path("a.csv"),
                                   "--input", "b.txt=" + s.Path("b.txt"), "--key", s.Path("key.pub")};
  CommandOutput r = RunCommand(args, runner);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "REPLAY OK\n");
  EXPECT_EQ(IsolationSaid(r), "none") << r.err;
  EXPECT_NE(r.err.find("replay: ran with isolation jail; the receipt's isolation (none)"), std::string::npos) << r.err;
  std::string detail;
  EXPECT_FALSE(FirstDifference(s.record, replayed, &detail)) << detail;
  // Anything else still differs.
  replayed.seed = 8;
  EXPECT_TRUE(FirstDifference(s.record, replayed, &detail));
}

}  // namespace
}  // namespace ampoule::verify
