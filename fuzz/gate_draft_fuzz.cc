// Fuzz target for the trust gate's documents (docs/gate.md): the action
// draft and policy parsers (gate/action.h, gate/policy.h) and the RFC 3339
// time stamps a draft carries.
//
// The input is read four ways:
//   1. as a draft and as a policy, whole;
//   2. spliced as a JSON string into an otherwise valid draft (as
//      data_as_of, a field's pointer, the key, the kind, an evidence path, an
//      input's name) and policy (as kernel_sha256, a key path), so that
//      mutations reach the checks behind the first error a mutated whole
//      document usually stops at;
//   3. spliced raw as a field's value, so values of every JSON shape are
//      compared and carried;
//   4. as a time stamp.
// What must hold, beyond no crash, hang or sanitizer report:
//   - a draft that parses has a key without control characters (it is
//     printed in log lines), a key and a kind that normalising again leaves
//     as they are (names.h), at least one field, pointers that start with '/',
//     and paths that are absolute under an absolute base; written back out
//     as JSON it parses again to the same draft;
//   - a policy that parses has a 64-hex-digit kernel pin and counts below
//     2^63, and round-trips the same way;
//   - a time stamp that parses is after 1970 and prints back as its first 19
//     characters and 'Z' (the fraction is dropped), which parse to the same
//     second.
//
// Seeds: fuzz/corpus/gate_draft_fuzz (the drafts and policy of
// docs/gate.md, a few variants, and time stamps).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "ampoule/gate/action.h"
#include "ampoule/gate/names.h"
#include "ampoule/gate/policy.h"
#include "core/json.h"
#include "core/json_strict.h"
#include "core/rfc3339.h"

namespace {

using namespace ampoule;
namespace fs = std::filesystem;

const fs::path kBase = "/fuzz/base";

void Check(bool condition) {
  if (!condition) std::abort();
}

// `bytes` as the body of a JSON string literal. Bytes that are not valid
// UTF-8 are kept as they are, for the parser to judge.
std::string Quote(std::string_view bytes) {
  std::string out = "\"";
  for (unsigned char c : bytes) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      static const char* kHex = "0123456789abcdef";
      out += "\\u00";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

nlohmann::json DraftToJson(const gate::ActionDraft& d) {
  nlohmann::json fields = nlohmann::json::object();
  for (const auto& [name, f] : d.fields) fields[name] = {{"value", f.value}, {"from", f.from}};
  nlohmann::json inputs = nlohmann::json::object();
  for (const auto& [name, path] : d.evidence.inputs) inputs[name] = path;
  nlohmann::json evidence = {{"program", d.evidence.program}, {"output", d.evidence.output}, {"inputs", inputs}};
  if (!d.evidence.receipt.empty()) evidence["receipt"] = d.evidence.receipt;
  if (d.evidence.stdin_path) evidence["stdin"] = *d.evidence.stdin_path;
  return {{"kind", d.kind},
          {"idempotency_key", d.idempotency_key},
          {"fields", fields},
          {"data_as_of", core::Rfc3339Seconds(d.data_as_of)},
          {"evidence", evidence}};
}

bool UnderBase(const std::string& path) { return !path.empty() && path[0] == '/'; }

void CheckDraft(std::string_view text) {
  core::Result<gate::ActionDraft> draft = gate::ParseActionDraft(text, kBase);
  if (!draft.ok()) {
    Check(!draft.message().empty());
    return;
  }
  for (unsigned char c : draft->idempotency_key) Check(c >= 0x20 && c != 0x7f);
  // Keys and kinds are already in their one spelling: normalising again changes nothing.
  for (const std::string* name : {&draft->idempotency_key, &draft->kind}) {
    core::Result<std::string> again = gate::NormaliseName(*name, "name");
    Check(again.ok() && *again == *name);
  }
  Check(!draft->fields.empty());
  for (const auto& [name, f] : draft->fields) Check(!f.from.empty() && f.from[0] == '/');
  Check(draft->evidence.receipt.empty() || UnderBase(draft->evidence.receipt));
  Check(UnderBase(draft->evidence.program) && UnderBase(draft->evidence.output));
  for (const auto& [name, path] : draft->evidence.inputs) Check(UnderBase(path));
  Check(draft->data_as_of >= 0);

  const std::string again_text = core::DumpJson(DraftToJson(*draft));
  core::Result<gate::ActionDraft> again = gate::ParseActionDraft(again_text, kBase);
  Check(again.ok());
  Check(core::DumpJson(DraftToJson(*again)) == again_text);
  Check(again->data_as_of == draft->data_as_of);
}

nlohmann::json PolicyToJson(const gate::Policy& p) {
  return {{"trusted_keys", p.trusted_keys},
          {"kernel_sha256", p.kernel_sha256},
          {"max_data_age_seconds", p.max_data_age_seconds},
          {"replay_fuel_ceiling", p.replay_fuel_ceiling},
          {"decision_log", p.decision_log},
          {"outbox", p.outbox}};
}

void CheckPolicy(std::string_view text) {
  core::Result<gate::Policy> policy = gate::ParsePolicy(text, kBase);
  if (!policy.ok()) {
    Check(!policy.message().empty());
    return;
  }
  Check(policy->kernel_sha256.size() == 64);
  for (char c : policy->kernel_sha256) Check((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
  Check(policy->max_data_age_seconds < (uint64_t{1} << 63));
  Check(policy->replay_fuel_ceiling < (uint64_t{1} << 63));
  Check(!policy->trusted_keys.empty());
  for (const std::string& k : policy->trusted_keys) Check(UnderBase(k));
  Check(UnderBase(policy->decision_log) && UnderBase(policy->outbox));

  const std::string again_text = core::DumpJson(PolicyToJson(*policy));
  core::Result<gate::Policy> again = gate::ParsePolicy(again_text, kBase);
  Check(again.ok());
  Check(core::DumpJson(PolicyToJson(*again)) == again_text);
}

void CheckTimestamp(std::string_view text) {
  core::Result<int64_t> t = gate::ParseUtcTimestamp(text);
  if (!t.ok()) return;
  Check(*t >= 0);
  const std::string printed = core::Rfc3339Seconds(*t);
  Check(printed == std::string(text.substr(0, 19)) + "Z");
  core::Result<int64_t> back = gate::ParseUtcTimestamp(printed);
  Check(back.ok() && *back == *t);
}

// A valid draft with one spot replaced by `slot` (JSON text).
std::string DraftWith(std::string_view where, const std::string& slot) {
  auto pick = [&](std::string_view name, const char* fallback) {
    return where == name ? slot : std::string(fallback);
  };
  return "{\"kind\": " + pick("kind", "\"refund\"") +
         ", \"idempotency_key\": " + pick("key", "\"refund:A-1002\"") +
         ", \"fields\": {\"amount\": {\"value\": " + pick("value", "\"42.00\"") +
         ", \"from\": " + pick("from", "\"/refunds/0/amount\"") + "}}" +
         ", \"data_as_of\": " + pick("as_of", "\"2026-11-29T08:00:00Z\"") +
         ", \"evidence\": {\"receipt\": " + pick("receipt", "\"refund.receipt.json\"") +
         ", \"program\": \"refund.py\", \"inputs\": {" + pick("input_name", "\"orders.csv\"") +
         ": \"orders.csv\"}, \"output\": \"refund.out\"}}";
}

std::string PolicyWith(std::string_view where, const std::string& slot) {
  auto pick = [&](std::string_view name, const char* fallback) {
    return where == name ? slot : std::string(fallback);
  };
  return "{\"trusted_keys\": [" + pick("key", "\"agent.key.pub\"") + "], \"kernel_sha256\": " +
         pick("kernel", "\"32ac6d3b00000000000000000000000000000000000000000000000000000000\"") +
         ", \"max_data_age_seconds\": " + pick("age", "86400") +
         ", \"replay_fuel_ceiling\": 20000000000, \"decision_log\": \"gate.db\", \"outbox\": \"outbox\"}";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  CheckDraft(text);
  CheckPolicy(text);
  CheckTimestamp(text);

  const std::string quoted = Quote(text);
  for (const char* where : {"kind", "key", "from", "as_of", "receipt", "input_name"}) {
    CheckDraft(DraftWith(where, quoted));
  }
  CheckDraft(DraftWith("value", std::string(text)));
  CheckPolicy(PolicyWith("key", quoted));
  CheckPolicy(PolicyWith("kernel", quoted));
  CheckPolicy(PolicyWith("age", std::string(text)));
  return 0;
}
