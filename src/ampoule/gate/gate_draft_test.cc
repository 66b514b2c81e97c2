// Parsing action drafts and policies: what is accepted, and that every kind
// of malformed document is an error naming the field.
#include <gtest/gtest.h>

#include "ampoule/gate/action.h"
#include "ampoule/gate/policy.h"
#include "core/rfc3339.h"

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
  core::Result<ActionDraft> d = ParseActionDraft(kDraft, "/work/drafts");
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
      {"\"kind\": \"refund\"", "\"kind\": \"refund\\n#9 send\"", "kind holds U+000A, a control character"},
      {"\"idempotency_key\": \"refund:A-1002\"", "\"idempotency_key\": \"refund:A-1002 \"", "ends with a space"},
      {"\"idempotency_key\": \"refund:A-1002\"", "\"idempotency_key\": \"refund:A\\u200b-1002\"", "U+200B"},
      {"\"idempotency_key\": \"refund:A-1002\"", "\"idempotency_key\": \"refund:A-1002\\u0085\"", "U+0085"},
      {"\"idempotency_key\": \"refund:A-1002\"", "\"idempotency_key\": \"refund:A-1002\\u2028\"", "U+2028"},
      {"\"idempotency_key\": \"refund:A-1002\"", "\"idempotency_key\": \"refund:\\u202e2001-A\"", "U+202E"},
      {"\"idempotency_key\": \"refund:A-1002\"", "\"idempotency_key\": \"refund:A-1002\\ud800\"", "not valid JSON"},
      {"\"value\": \"42.00\"", "\"value\": 18446744073709551617", "fields.amount' 'value' holds the number"},
      {"\"value\": \"42.00\"", "\"value\": 1e400", "carry it as a string"},
      {"\"value\": \"42.00\"", "\"value\": 1e999999999", "carry it as a string"},
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
    core::Result<ActionDraft> d = ParseActionDraft(Replace(kDraft, c.from, c.to), "/d");
    ASSERT_FALSE(d.ok()) << c.to;
    EXPECT_NE(d.message().find(c.error), std::string::npos) << c.to << " -> " << d.message();
  }
  EXPECT_FALSE(ParseActionDraft("[]", "/d").ok());
  EXPECT_FALSE(ParseActionDraft("", "/d").ok());
  EXPECT_FALSE(ParseActionDraft(Replace(kDraft, "\"fields\"", "\"fieldz\""), "/d").ok());
}

TEST(GateDraft, FieldsFromOutputFilesNeedThoseFilesAsEvidence) {
  std::string with_file = Replace(Replace(kDraft, "\"from\": \"/refunds/0/amount\"",
                                          "\"from\": \"output/report.json#/amount\""),
                                  "\"output\": \"/abs/refund.out\"",
                                  "\"output\": \"/abs/refund.out\", \"output_files\": {\"report.json\": \"out/r.json\"}");
  core::Result<ActionDraft> d = ParseActionDraft(with_file, "/work/drafts");
  ASSERT_TRUE(d.ok()) << d.message();
  EXPECT_EQ(d->evidence.output_files.at("report.json"), "/work/drafts/out/r.json");
  EXPECT_EQ(d->fields.at("amount").from, "output/report.json#/amount");
  core::Result<ActionDraft> missing = ParseActionDraft(
      Replace(kDraft, "\"from\": \"/refunds/0/amount\"", "\"from\": \"output/report.json#/amount\""), "/d");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("'evidence.output_files' does not give"), std::string::npos) << missing.message();
  core::Result<ActionDraft> climbing = ParseActionDraft(
      Replace(kDraft, "\"output\": \"/abs/refund.out\"",
              "\"output\": \"/abs/refund.out\", \"output_files\": {\"../x\": \"x\"}"),
      "/d");
  EXPECT_FALSE(climbing.ok());
}

TEST(GateDraft, KeysAndKindsAreReadInNfc) {
  // "café" with a combining accent is recorded precomposed, so that it is
  // one key with "café" typed precomposed.
  std::string nfd = Replace(Replace(kDraft, "refund:A-1002", "refund:cafe\u0301"), "\"kind\": \"refund\"",
                            "\"kind\": \"re\u0301fund\"");
  core::Result<ActionDraft> d = ParseActionDraft(nfd, "/d");
  ASSERT_TRUE(d.ok()) << d.message();
  EXPECT_EQ(d->idempotency_key, "refund:caf\xC3\xA9");
  EXPECT_EQ(d->kind, "r\xC3\xA9" "fund");
  std::string too_long = Replace(kDraft, "refund:A-1002", std::string(257, 'k'));
  core::Result<ActionDraft> long_key = ParseActionDraft(too_long, "/d");
  ASSERT_FALSE(long_key.ok());
  EXPECT_NE(long_key.message().find("at most 256 code points"), std::string::npos) << long_key.message();
}

TEST(GateDraft, NumbersAreKeptExactly) {
  for (const char* value : {"10000000000000001", "9007199254740993", "18446744073709551615", "1e16", "0.1", "-0"}) {
    core::Result<ActionDraft> d = ParseActionDraft(Replace(kDraft, "\"42.00\"", value), "/d");
    ASSERT_TRUE(d.ok()) << value << ": " << d.message();
  }
  EXPECT_EQ(ParseActionDraft(Replace(kDraft, "\"42.00\"", "10000000000000001"), "/d")->fields.at("amount").value,
            nlohmann::json(10000000000000001u));
}

TEST(GateDraft, Timestamps) {
  EXPECT_EQ(*ParseUtcTimestamp("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(*ParseUtcTimestamp("2026-11-29T08:00:00.123Z"), 1795939200);
  EXPECT_EQ(core::Rfc3339Seconds(1795939200), "2026-11-29T08:00:00Z");
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
  core::Result<Policy> p = ParsePolicy(kPolicy, "/etc/gate");
  ASSERT_TRUE(p.ok()) << p.message();
  EXPECT_EQ(p->trusted_keys, std::vector<std::string>{"/etc/gate/keys/agent.pub"});
  EXPECT_EQ(p->max_data_age_seconds, 86400u);
  EXPECT_EQ(p->replay_fuel_ceiling, 20000000000u);
  EXPECT_EQ(p->decision_log, "/etc/gate/gate.db");
  EXPECT_EQ(p->outbox, "/var/outbox");
  // No minimum named: jail, not none.
  EXPECT_EQ(p->min_isolation, run::Isolation::kJail);
}

TEST(GatePolicy, MinIsolationNamesExactly) {
  auto with = [](const std::string& value) {
    return ParsePolicy(Replace(kPolicy, "\"outbox\": \"/var/outbox\"",
                               "\"outbox\": \"/var/outbox\", \"min_isolation\": " + value),
                       "/d");
  };
  EXPECT_EQ(with("\"none\"")->min_isolation, run::Isolation::kNone);
  EXPECT_EQ(with("\"jail\"")->min_isolation, run::Isolation::kJail);
  EXPECT_EQ(with("\"vm\"")->min_isolation, run::Isolation::kVm);
  for (const char* bad : {"\"Jail\"", "\"jail \"", "\"unknown\"", "\"\"", "\"microvm\"", "1", "null", "[\"jail\"]"}) {
    core::Result<Policy> p = with(bad);
    ASSERT_FALSE(p.ok()) << bad;
    EXPECT_NE(p.message().find("'min_isolation' must be \"none\", \"jail\" or \"vm\""), std::string::npos)
        << bad << " -> " << p.message();
  }
}

TEST(GatePolicy, PinsSourcesPerKind) {
  std::string text = Replace(kPolicy, "\"outbox\": \"/var/outbox\"",
                             "\"outbox\": \"/var/outbox\", \"kinds\": {"
                             "\"refund\": {\"from\": {\"amount\": \"/orders/*/amount\", \"to\": \"/orders/*/customer\"},"
                             "             \"same_record\": \"/orders/*\"},"
                             "\"re\\u0301bate\": {\"same_record\": \"/rebates/*\"},"
                             "\"note\": {\"same_record\": false}}");
  core::Result<Policy> p = ParsePolicy(text, "/d");
  ASSERT_TRUE(p.ok()) << p.message();
  ASSERT_EQ(p->kinds.size(), 3u);
  EXPECT_FALSE(p->kinds.at("refund").records_may_differ);
  EXPECT_TRUE(p->kinds.at("note").records_may_differ);
  EXPECT_FALSE(p->kinds.at("note").same_record);
  const SourceRule& refund = p->kinds.at("refund");
  EXPECT_EQ(refund.from.at("amount"), "/orders/*/amount");
  EXPECT_EQ(refund.from.at("to"), "/orders/*/customer");
  EXPECT_EQ(refund.same_record, "/orders/*");
  // Kinds are compared in NFC, as drafts' kinds are.
  ASSERT_TRUE(p->kinds.count("r\xC3\xA9" "bate"));
  EXPECT_TRUE(p->kinds.at("r\xC3\xA9" "bate").from.empty());
  EXPECT_TRUE(ParsePolicy(kPolicy, "/d")->kinds.empty());

  struct Case {
    std::string kinds, error;
  } cases[] = {
      {R"({"refund": {"from": {"amount": "/a"}, "same": "/a"}})", "unknown field 'same'"},
      {R"({"refund": {}})", "needs 'from'"},
      {R"({"refund": {"from": {}}})", "at least one field"},
      {R"({"refund": {"from": {"amount": "orders/*/amount"}}})", "JSON Pointer"},
      {R"({"refund": {"from": {"amount": 3}}})", "JSON Pointer"},
      {R"({"refund": {"same_record": "/orders/~2"}})", "JSON Pointer"},
      {R"({"refund": {"same_record": ""}})", "JSON Pointer"},
      {R"({"refund": {"same_record": true}})", "true is the default"},
      {R"({"refund": {"same_record": 0}})", "JSON Pointer"},
      {R"({"refund": {"same_record": "output/../r.json#/a"}})", "JSON Pointer"},
      {R"({"refund ": {"same_record": "/a"}})", "ends with a space"},
      {R"({"caf\u00e9": {"same_record": "/a"}, "cafe\u0301": {"same_record": "/b"}})", "same kind as another"},
      {R"(["refund"])", "must be an object"},
  };
  for (const Case& c : cases) {
    core::Result<Policy> bad = ParsePolicy(Replace(kPolicy, "\"outbox\": \"/var/outbox\"",
                                             "\"outbox\": \"/var/outbox\", \"kinds\": " + c.kinds),
                                     "/d");
    ASSERT_FALSE(bad.ok()) << c.kinds;
    EXPECT_NE(bad.message().find(c.error), std::string::npos) << c.kinds << " -> " << bad.message();
  }
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
    core::Result<Policy> p = ParsePolicy(Replace(kPolicy, c.from, c.to), "/d");
    ASSERT_FALSE(p.ok()) << c.to;
    EXPECT_NE(p.message().find(c.error), std::string::npos) << c.to << " -> " << p.message();
  }
}

}  // namespace
}  // namespace ampoule::gate
