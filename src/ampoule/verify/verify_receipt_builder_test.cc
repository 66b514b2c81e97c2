// MakeReceipt: what a receipt of a run holds, that it reads back, and that
// an independent DSSE verifier (PyNaCl, src/ampoule/receipt/testdata/dsse_nacl.py)
// accepts it.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>

#include "ampoule/receipt/envelope.h"
#include "ampoule/receipt/key_file.h"
#include "ampoule/receipt/statement.h"
#include "ampoule/receipt/verify.h"
#include "ampoule/verify/run_receipt.h"
#include "ampoule/verify/verify_testing.h"

namespace ampoule::verify {
namespace {

using testing::Scene;

TEST(ReceiptBuilder, StatementHoldsTheRecord) {
  Scene s;
  receipt::Statement st = run::StatementForRecord(s.record);
  ASSERT_EQ(st.subject.size(), 2u);
  EXPECT_EQ(st.subject[0].name, "stdout");
  EXPECT_EQ(st.subject[0].sha256(), testing::Sha(s.stdout_bytes));
  EXPECT_EQ(st.subject[1].name, "stderr");
  EXPECT_EQ(st.subject[1].sha256(), testing::Sha(""));
  EXPECT_EQ(st.predicate_type, run::kRunPredicateType);
  EXPECT_EQ(st.predicate, run::RecordToJson(s.record));
}

TEST(ReceiptBuilder, EachOutputFileIsASubject) {
  Scene s;
  s.record.outputs = {{"report.json", testing::Sha("{}"), 2}, {"t/a.csv", testing::Sha("x"), 1}};
  receipt::Statement st = run::StatementForRecord(s.record);
  ASSERT_EQ(st.subject.size(), 4u);
  EXPECT_EQ(st.subject[2].name, "output/report.json");
  EXPECT_EQ(st.subject[3].name, "output/t/a.csv");
  EXPECT_EQ(st.subject[3].sha256(), testing::Sha("x"));
  std::vector<core::ed25519::PublicKey> keys{s.key.public_key()};
  core::Result<RunReceipt> back = ReadSignedRunReceipt(run::MakeReceipt(s.record, s.key), keys);
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(back->record.outputs.size(), 2u);
}

// A statement that vouches for more or other than its predicate says is
// refused, even when signed: the subjects and the record must agree.
TEST(ReceiptBuilder, SubjectsAndOutputFilesMustAgree) {
  Scene s;
  s.record.outputs = {{"report.json", testing::Sha("{}"), 2}};
  std::vector<core::ed25519::PublicKey> keys{s.key.public_key()};
  auto sign = [&](const receipt::Statement& st) {
    return receipt::SerializeEnvelope(receipt::SignEnvelope(
        receipt::kInTotoPayloadType, receipt::SerializeStatement(st), s.key));
  };
  receipt::Statement extra = run::StatementForRecord(s.record);
  extra.subject.push_back({"output/secret.txt", {{"sha256", testing::Sha("y")}}});
  EXPECT_FALSE(ReadSignedRunReceipt(sign(extra), keys).ok());
  receipt::Statement wrong = run::StatementForRecord(s.record);
  wrong.subject[2].digest["sha256"] = testing::Sha("other");
  EXPECT_FALSE(ReadSignedRunReceipt(sign(wrong), keys).ok());
  receipt::Statement missing = run::StatementForRecord(s.record);
  missing.subject.pop_back();
  EXPECT_FALSE(ReadSignedRunReceipt(sign(missing), keys).ok());
}

// Receipts of version 2 (before output files) still verify.
TEST(ReceiptBuilder, VersionTwoReceiptsStillVerify) {
  Scene s;
  s.record.predicate_version = 2;
  std::string text = run::MakeReceipt(s.record, s.key);
  receipt::Envelope e = receipt::ParseEnvelope(text).value();
  EXPECT_NE(e.payload.find("attestations/run/v2"), std::string::npos);
  EXPECT_EQ(e.payload.find("outputs"), std::string::npos);
  std::vector<core::ed25519::PublicKey> keys{s.key.public_key()};
  core::Result<RunReceipt> back = ReadSignedRunReceipt(text, keys);
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(back->record.predicate_version, 2u);
}

TEST(ReceiptBuilder, EnvelopeIsStandardDsse) {
  Scene s;
  std::string text = run::MakeReceipt(s.record, s.key);
  EXPECT_EQ(text.back(), '\n');
  receipt::Envelope e = receipt::ParseEnvelope(text).value();
  EXPECT_EQ(e.payload_type, receipt::kInTotoPayloadType);
  ASSERT_EQ(e.signatures.size(), 1u);
  EXPECT_EQ(e.signatures[0].keyid, s.key.public_key().KeyId());
  EXPECT_EQ(e.payload, receipt::SerializeStatement(run::StatementForRecord(s.record)));
  // Standard padded base64 only.
  nlohmann::json j = nlohmann::json::parse(text);
  std::string payload = j["payload"];
  EXPECT_EQ(payload.find_first_of("-_"), std::string::npos);
  EXPECT_EQ(payload.size() % 4, 0u);
}

TEST(ReceiptBuilder, ReadsBackAsTheSameRecord) {
  Scene s;
  for (run::Stop stop : {run::Stop::kExit, run::Stop::kTrap, run::Stop::kFuel, run::Stop::kMemory,
                         run::Stop::kTimeout}) {
    run::RunRecord r = s.record;
    r.result.stop = stop;
    r.result.status = run::StatusFor(stop, 0);
    r.result.terminated = stop == run::Stop::kTimeout;
    if (stop == run::Stop::kTrap) r.result.trap = "integer divide by zero";
    std::vector<core::ed25519::PublicKey> keys{s.key.public_key()};
    core::Result<RunReceipt> back = ReadSignedRunReceipt(run::MakeReceipt(r, s.key), keys);
    ASSERT_TRUE(back.ok()) << back.message();
    EXPECT_EQ(run::RecordToJson(back->record), run::RecordToJson(r));
    EXPECT_EQ(back->signer, s.key.public_key());
    std::string detail;
    EXPECT_EQ(FirstDifference(r, back->record, &detail), std::nullopt) << detail;
  }
}

TEST(ReceiptBuilder, DeterministicBytes) {
  Scene s;
  EXPECT_EQ(run::MakeReceipt(s.record, s.key), run::MakeReceipt(s.record, s.key)) << "Ed25519 is deterministic";
}

int RunShell(const std::string& command) {
  int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// The independent checker, written from the DSSE spec over PyNaCl.
TEST(ReceiptBuilder, IndependentVerifierAccepts) {
  const char* source = std::getenv("AMPOULE_SOURCE_DIR");
  if (source == nullptr) GTEST_SKIP() << "AMPOULE_SOURCE_DIR is not set (ctest sets it)";
  if (RunShell("/usr/bin/python3 -c 'import nacl.signing' 2>/dev/null") != 0) {
    GTEST_SKIP() << "python3-nacl is not installed (apt-get install python3-nacl)";
  }
  Scene s;
  std::string script = std::string(source) + "/src/ampoule/receipt/testdata/dsse_nacl.py";
  auto python_verify = [&](const std::string& receipt, const std::string& key) {
    return RunShell("/usr/bin/python3 '" + script + "' verify '" + receipt + "' '" + s.Path(key) +
                    "' >/dev/null");
  };
  EXPECT_EQ(python_verify(s.SignedReceipt(s.record), "key.pub"), 0);
  EXPECT_EQ(python_verify(s.SignedReceipt(s.record), "other.pub"), 1);
  run::RunRecord r = s.record;
  r.result.terminated = true;
  receipt::Envelope e = receipt::ParseEnvelope(run::MakeReceipt(s.record, s.key)).value();
  e.payload = receipt::SerializeStatement(run::StatementForRecord(r));
  EXPECT_EQ(python_verify(s.WriteReceipt(receipt::SerializeEnvelope(e)), "key.pub"), 1);
}

}  // namespace
}  // namespace ampoule::verify
