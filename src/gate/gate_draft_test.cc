// Parsing action drafts and policies: what is accepted, and that every kind
// of malformed document is an error naming the field.
#include <gtest/gtest.h>

#include "gate/action.h"
#include "gate/policy.h"

namespace ampoule::gate {
namespace {

const char* kDraft = R"({
  "kind": "refund",
  "idempotency_key": "refund:A-1002",
  "fields": {"amount": {"value": "42.00", "from": "/refunds/0/amount"},
             "recipient": {"value": "bo", "from": "/refunds/0/customer"}},
  "data_as_of": "2026-11-29T08:00:00Z",
  "evidence": {"receipt": "r.json", "program": "refund.py", "inputs": {"orders.csv": "data/orders.csv"},
               "output": "/abs/refund.out"}
})";

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

TEST(GateDraft, ParsesAndResolvesPathsAgainstTheDraftFolder) {
  Result<ActionDraft> d = ParseActionDraft(kDraft, "/work/drafts");
  ASSERT_TRUE(d.ok()) << d.message();
  EXPECT_EQ(d->kind, "refund");
  EXPECT_EQ(d->idempotency_key, "refund:A-1002");
  ASSERT_EQ(d->fields.size(), 2u);
  EXPECT_EQ(d->fields.at("amount").value, "42.00");
  EXPECT_EQ(d->fields.at("amount").from, "/refunds/0/amount");
  EXPECT_EQ(d->data_as_of, 1795939200);
  EXPECT_EQ(d->evidence.receipt, "/work/drafts/r.json");
  EXPECT_EQ(d->evidence.inputs.at("orders.csv"), "/work/drafts/data/orders.csv");
  EXPECT_EQ(d->evidence.output, "/abs/refund.out");
  EXPECT_FALSE(d->evidence.stdin_path);
}

TEST(GateDraft, RejectsWhatCouldCarryAnUncheckedClaim) {
  struct Case {
    std::string from, to, error;
  } cases[] = {
      {"\"kind\"", "\"kinds\"", "unknown field 'kinds'"},
      {"\"from\": \"/refunds/0/amount\"", "\"from\": \"/refunds/0/amount\", \"note\": 1", "unknown field 'note'"},
      {"\"receipt\": \"r.json\"", "\"receipt\": \"r.json\", \"signer\": \"x\"", "unknown field 'signer'"},
      {"\"idempotency_key\": \"refund:A-1002\"", "\"idempotency_key\": \"\"", "idempotency_key"},
      {"\"idempotency_key\": \"refund:A-1002\"", "\"idempotency_key\": \"a\\nb\"", "control character"},
      {"\"kind\": \"refund\"", "\"kind\": \"refund\\n#9 send\"", "kind holds a control character"},
      {"\"from\": \"/refunds/0/amount\"", "\"from\": \"refunds\"", "JSON Pointer"},
      {"\"from\": \"/refunds/0/amount\"", "\"from\": \"/refunds~2\"", "JSON Pointer"},
      {"{\"value\": \"42.00\", ", "{", "needs 'value'"},
      {"\"2026-11-29T08:00:00Z\"", "\"2026-11-29T08:00:00+01:00\"", "RFC 3339 UTC"},
      {"\"2026-11-29T08:00:00Z\"", "\"2026-02-30T08:00:00Z\"", "does not exist"},
      {"\"orders.csv\": \"data/orders.csv\"", "\"../orders.csv\": \"x\"", "plain file names"},
      {"\"output\": \"/abs/refund.out\"", "\"output\": 3", "non-empty string"},
      {"\"kind\": \"refund\"", "\"kind\": \"refund\", \"kind\": \"pay\"", "duplicate"},
  };
  for (const Case& c : cases) {
    Result<ActionDraft> d = ParseActionDraft(Replace(kDraft, c.from, c.to), "/d");
    ASSERT_FALSE(d.ok()) << c.to;
    EXPECT_NE(d.message().find(c.error), std::string::npos) << c.to << " -> " << d.message();
  }
  EXPECT_FALSE(ParseActionDraft("[]", "/d").ok());
  EXPECT_FALSE(ParseActionDraft("", "/d").ok());
  EXPECT_FALSE(ParseActionDraft(Replace(kDraft, "\"fields\"", "\"fieldz\""), "/d").ok());
}

TEST(GateDraft, Timestamps) {
  EXPECT_EQ(*ParseUtcTimestamp("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(*ParseUtcTimestamp("2026-11-29T08:00:00.123Z"), 1795939200);
  EXPECT_EQ(FormatUtcTimestamp(1795939200), "2026-11-29T08:00:00Z");
  for (const char* bad : {"2026-11-29", "2026-11-29T08:00:00", "2026-11-29 08:00:00Z", "2026-13-01T00:00:00Z",
                          "2026-11-29T24:00:00Z", "2026-11-29T08:00:00.Z", "1969-12-31T23:59:59Z"}) {
    EXPECT_FALSE(ParseUtcTimestamp(bad).ok()) << bad;
  }
}

const char* kPolicy = R"({
  "trusted_keys": ["keys/agent.pub"],
  "kernel_sha256": "32ac6d3b000000000000000000000000000000000000000000000000000000aa",
  "max_data_age_seconds": 86400,
  "replay_fuel_ceiling": 20000000000,
  "decision_log": "gate.db",
  "outbox": "/var/outbox"
})";

TEST(GatePolicy, Parses) {
  Result<Policy> p = ParsePolicy(kPolicy, "/etc/gate");
  ASSERT_TRUE(p.ok()) << p.message();
  EXPECT_EQ(p->trusted_keys, std::vector<std::string>{"/etc/gate/keys/agent.pub"});
  EXPECT_EQ(p->max_data_age_seconds, 86400u);
  EXPECT_EQ(p->replay_fuel_ceiling, 20000000000u);
  EXPECT_EQ(p->decision_log, "/etc/gate/gate.db");
  EXPECT_EQ(p->outbox, "/var/outbox");
}

TEST(GatePolicy, RejectsMalformedPolicies) {
  struct Case {
    std::string from, to, error;
  } cases[] = {
      {"\"outbox\"", "\"out_box\"", "unknown field 'out_box'"},
      {"[\"keys/agent.pub\"]", "[]", "trusted_keys"},
      {"[\"keys/agent.pub\"]", "\"keys/agent.pub\"", "trusted_keys"},
      {"32ac6d3b", "32AC6D3B", "lowercase hex"},
      {"000000aa\"", "00aa\"", "lowercase hex"},
      {"86400", "-1", "whole number"},
      {"86400", "1.5", "whole number"},
      {"20000000000", "\"lots\"", "whole number"},
      {"\"gate.db\"", "\"\"", "non-empty"},
  };
  for (const Case& c : cases) {
    Result<Policy> p = ParsePolicy(Replace(kPolicy, c.from, c.to), "/d");
    ASSERT_FALSE(p.ok()) << c.to;
    EXPECT_NE(p.message().find(c.error), std::string::npos) << c.to << " -> " << p.message();
  }
}

}  // namespace
}  // namespace ampoule::gate
