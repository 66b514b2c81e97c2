// The gate's rule order (decision.h), over every combination of facts.
#include "ampoule/gate/decision.h"

#include <gtest/gtest.h>

namespace ampoule::gate {
namespace {

GateFacts Clean() {
  GateFacts f;
  f.replay_attempted = true;
  f.fuel_used = 10;
  f.fuel_ceiling = 100;
  f.data_age_seconds = 5;
  f.max_data_age_seconds = 60;
  f.isolation = run::Isolation::kJail;
  f.predicate_version = 4;
  return f;
}

TEST(GateDecision, CleanActionIsSent) {
  GateVerdict v = Decide(Clean());
  EXPECT_EQ(v.decision, Decision::kSend);
  EXPECT_EQ(v.reasons.size(), 1u);
}

TEST(GateDecision, AFieldFromAnUnpinnedSourceIsHeldNotRefused) {
  // The output is signed; the draft pairs values the policy does not let
  // it pair. A person can fix the draft, so it waits.
  GateFacts f = Clean();
  f.source_violations.push_back("draft field 'amount' comes from /orders/1/amount, outside /orders/0");
  GateVerdict v = Decide(f);
  EXPECT_EQ(v.decision, Decision::kHold);
  ASSERT_EQ(v.reasons.size(), 1u);
  EXPECT_EQ(v.reasons[0], f.source_violations[0]);
  // A forged receipt still refuses, a duplicate still escalates; the
  // violation is listed after them.
  f.already_sent = true;
  v = Decide(f);
  EXPECT_EQ(v.decision, Decision::kEscalate);
  EXPECT_EQ(v.reasons.back(), f.source_violations[0]);
  f.verify_failure = "FAILED";
  EXPECT_EQ(Decide(f).decision, Decision::kRefuse);
}

TEST(GateDecision, EachRuleAlone) {
  GateFacts f = Clean();
  f.verify_failure = "FAILED";
  EXPECT_EQ(Decide(f).decision, Decision::kRefuse);
  f = Clean();
  f.replay_failure = "stdout differs";
  EXPECT_EQ(Decide(f).decision, Decision::kRefuse);
  f = Clean();
  f.already_sent = true;
  EXPECT_EQ(Decide(f).decision, Decision::kEscalate);
  f = Clean();
  f.mismatches.push_back({"amount", "\"49.50\"", "\"49.25\""});
  GateVerdict v = Decide(f);
  EXPECT_EQ(v.decision, Decision::kHold);
  EXPECT_NE(v.reasons[0].find("amount"), std::string::npos);
  EXPECT_NE(v.reasons[0].find("49.25"), std::string::npos);
  f = Clean();
  f.data_age_seconds = 61;
  EXPECT_EQ(Decide(f).decision, Decision::kHold);
  f = Clean();
  f.replay_attempted = false;
  EXPECT_EQ(Decide(f).decision, Decision::kEscalate);
}

// Every combination: the decision is that of the most serious rule present,
// and every applying rule is listed among the reasons.
TEST(GateDecision, DataDatedInTheFutureIsHeld) {
  GateFacts f = Clean();
  f.data_age_seconds = -kMaxClockSkewSeconds;  // within the skew: fine
  EXPECT_EQ(Decide(f).decision, Decision::kSend);
  f.data_age_seconds = -kMaxClockSkewSeconds - 1;
  GateVerdict v = Decide(f);
  EXPECT_EQ(v.decision, Decision::kHold);
  EXPECT_NE(v.reasons[0].find("in the future"), std::string::npos) << v.reasons[0];
}

TEST(GateDecision, PrecedenceOverAllCombinations) {
  for (int mask = 0; mask < 64; ++mask) {
    GateFacts f = Clean();
    bool verify_bad = mask & 1, replay_bad = mask & 2, sent = mask & 4, mismatch = mask & 8,
         stale = mask & 16, costly = mask & 32;
    if (verify_bad) f.verify_failure = "FAILED";
    if (costly) f.replay_attempted = false;
    if (replay_bad) f.replay_failure = "fuel differs";
    f.already_sent = sent;
    if (mismatch) f.mismatches.push_back({"amount", "1", "2"});
    if (stale) f.data_age_seconds = 1000;

    bool replay_failed = replay_bad && !costly;  // a failure only counts if replay ran
    Decision expected = verify_bad || replay_failed ? Decision::kRefuse
                        : sent                      ? Decision::kEscalate
                        : mismatch || stale         ? Decision::kHold
                        : costly                    ? Decision::kEscalate
                                                    : Decision::kSend;
    GateVerdict v = Decide(f);
    EXPECT_EQ(v.decision, expected) << "mask " << mask;
    // "Too costly to replay" is only a reason once the receipt verified.
    size_t applying = verify_bad + replay_failed + sent + mismatch + stale + (costly && !verify_bad);
    EXPECT_EQ(v.reasons.size(), std::max<size_t>(applying, 1)) << "mask " << mask;
  }
}

TEST(GateDecision, ARunSealedBelowThePolicysMinimumIsRefusedNamingBoth) {
  GateFacts f = Clean();
  f.isolation = run::Isolation::kNone;
  GateVerdict v = Decide(f);
  EXPECT_EQ(v.decision, Decision::kRefuse);
  ASSERT_EQ(v.reasons.size(), 1u);
  EXPECT_EQ(v.reasons[0], "isolation: the run was sealed with none, below the policy's minimum, jail (min_isolation)");
  // The policy decides: none is enough for a policy asking for none.
  f.min_isolation = run::Isolation::kNone;
  EXPECT_EQ(Decide(f).decision, Decision::kSend);
  // vm asked, jail given.
  f = Clean();
  f.min_isolation = run::Isolation::kVm;
  v = Decide(f);
  EXPECT_EQ(v.decision, Decision::kRefuse);
  EXPECT_EQ(v.reasons[0], "isolation: the run was sealed with jail, below the policy's minimum, vm (min_isolation)");
  f.isolation = run::Isolation::kVm;
  EXPECT_EQ(Decide(f).decision, Decision::kSend);
  // Refuse outranks a duplicate; a failed receipt gives no isolation
  // reason (nothing signed was read).
  f = Clean();
  f.isolation = run::Isolation::kNone;
  f.already_sent = true;
  EXPECT_EQ(Decide(f).decision, Decision::kRefuse);
  f.verify_failure = "FAILED";
  v = Decide(f);
  EXPECT_EQ(v.decision, Decision::kRefuse);
  for (const std::string& reason : v.reasons) EXPECT_EQ(reason.find("isolation"), std::string::npos) << reason;
}

TEST(GateDecision, AReceiptThatDoesNotSayIsUnknownNotJail) {
  GateFacts f = Clean();
  f.isolation = run::Isolation::kUnknown;
  f.predicate_version = 3;
  GateVerdict v = Decide(f);
  EXPECT_EQ(v.decision, Decision::kRefuse);
  EXPECT_EQ(v.reasons[0],
            "isolation: unknown (a version 3 receipt does not say how its run was sealed), below the policy's "
            "minimum, jail (min_isolation)");
  f.min_isolation = run::Isolation::kNone;
  EXPECT_EQ(Decide(f).decision, Decision::kSend);
  // GateFacts left as made (nothing read) is unknown too: fails closed.
  GateFacts unread = Clean();
  unread.isolation = GateFacts{}.isolation;
  EXPECT_EQ(Decide(unread).decision, Decision::kRefuse);
}

TEST(GateDecision, Names) {
  EXPECT_EQ(DecisionName(Decision::kSend), "send");
  EXPECT_EQ(DecisionName(Decision::kHold), "hold");
  EXPECT_EQ(DecisionName(Decision::kEscalate), "escalate");
  EXPECT_EQ(DecisionName(Decision::kRefuse), "refuse");
}

}  // namespace
}  // namespace ampoule::gate
