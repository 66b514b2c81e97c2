// ampoule gate submit|log: the trust gate's front end (docs/gate.md). The
// rules, the checks and the log live in src/ampoule/gate; this file parses and
// prints.
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

#include "ampoule/cli/commands.h"
#include "ampoule/gate/decision_log.h"
#include "ampoule/gate/names.h"
#include "ampoule/gate/policy.h"
#include "ampoule/gate/submit.h"
#include "core/json.h"
#include "core/json_strict.h"

namespace ampoule::cli {
namespace {

constexpr const char* kSubmitHelp =
    "usage: ampoule gate submit ACTION.json --policy POLICY.json [options]\n"
    "\n"
    "Checks the receipt behind an action draft and decides send, hold, escalate or\n"
    "refuse; records the decision; delivers a send to the outbox, once per\n"
    "idempotency key. Formats: docs/gate.md.\n"
    "\n"
    "options:\n"
    "  --policy FILE    the gate's policy (trusted keys, kernel pin, limits, log, outbox)\n"
    "  --receipt FILE   the receipt (default: the draft's evidence.receipt)\n"
    "  --kernel K       the kernel file (default: 'ampoule kernel path'); must be the pin\n"
    "  --db FILE        the decision log (default: the policy's decision_log)\n"
    "  --outbox DIR     where a send lands (default: the policy's outbox)\n"
    "  --json           print one JSON object instead of reason lines\n"
    "  -h, --help       show this help\n"
    "\n"
    "exit status (the last line of output):\n"
    "  0  SEND      the action was delivered\n"
    "  1  REFUSE    the receipt does not check out, or replay does not match\n"
    "  2  ERROR     nothing decided (usage, unreadable files, kernel not the pin),\n"
    "               or a send was recorded but not delivered yet\n"
    "  3  HOLD      a draft field differs from the signed output, or the data is stale\n"
    "  4  ESCALATE  a duplicate of a sent action, or too costly to replay\n";

constexpr const char* kLogHelp =
    "usage: ampoule gate log (--policy POLICY.json | --db FILE) [--idempotency-key KEY] [--json]\n"
    "\n"
    "Lists the gate's decisions, oldest first, with their reasons. Delivers any\n"
    "send an interrupted submission left pending first.\n";

constexpr int kExitError = 2;

int ExitCodeFor(gate::Decision d) {
  switch (d) {
    case gate::Decision::kSend: return 0;
    case gate::Decision::kRefuse: return 1;
    case gate::Decision::kHold: return 3;
    case gate::Decision::kEscalate: return 4;
  }
  return 1;
}

std::string Upper(std::string_view word) {
  std::string s(word);
  for (char& c : s) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 32 : c);
  return s;
}

std::string OneLine(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

int Fail(const char* command, const std::string& message, bool json) {
  if (json) {
    printf("%s\n", core::DumpJson({{"error", message}}).c_str());
  } else {
    fprintf(stderr, "ampoule gate %s: %s\n", command, OneLine(message).c_str());
    printf("ERROR: %s\n", OneLine(message).c_str());
  }
  return kExitError;
}

nlohmann::json RowJson(const gate::DecisionRow& row) {
  nlohmann::json j = {{"id", row.id},
                      {"decided_at", row.decided_at},
                      {"decision", row.decision},
                      {"kind", row.kind},
                      {"idempotency_key", row.idempotency_key},
                      {"reasons", row.reasons},
                      {"receipt_sha256", row.receipt_sha256},
                      {"fields", row.fields}};
  if (!row.delivery.empty()) {
    j["delivery"] = row.delivery;
    j["outbox"] = row.outbox;
    if (!row.outbox_file.empty()) j["outbox_file"] = row.outbox_file;
  }
  return j;
}

// Reads the value after option `a`, or reports it missing.
struct ArgReader {
  Args args;
  size_t i = 0;
  std::optional<std::string> Value(std::string_view a, std::string* error) {
    if (i + 1 >= args.size()) {
      *error = std::string(a) + " needs a value";
      return std::nullopt;
    }
    return std::string(args[++i]);
  }
};

}  // namespace

int GateSubmitCommand(Args args) {
  gate::SubmitRequest request;
  bool json = false;
  std::string error;
  ArgReader r{args};
  for (; r.i < args.size() && error.empty(); ++r.i) {
    std::string_view a = args[r.i];
    std::optional<std::string> v;
    if (a == "-h" || a == "--help") {
      fputs(kSubmitHelp, stdout);
      return 0;
    } else if (a == "--json") {
      json = true;
    } else if (a == "--policy" || a == "--receipt" || a == "--kernel" || a == "--db" || a == "--outbox") {
      if (!(v = r.Value(a, &error))) break;
      if (a == "--policy") request.policy_path = *v;
      if (a == "--receipt") request.receipt_path = *v;
      if (a == "--kernel") request.kernel_path = *v;
      if (a == "--db") request.db_path = *v;
      if (a == "--outbox") request.outbox_path = *v;
    } else if (a.size() > 1 && a.front() == '-') {
      error = "unknown option '" + std::string(a) + "'";
    } else if (request.draft_path.empty()) {
      request.draft_path = std::string(a);
    } else {
      error = "unexpected argument '" + std::string(a) + "' (one action per submission)";
    }
  }
  if (error.empty() && request.draft_path.empty()) error = "no action draft given";
  if (error.empty() && request.policy_path.empty()) error = "no --policy given";
  if (!error.empty()) {
    fprintf(stderr, "%s\n", kSubmitHelp);
    return Fail("submit", error, json);
  }

  core::Result<gate::SubmitOutcome> outcome = gate::Submit(request);
  if (!outcome.ok()) return Fail("submit", outcome.message(), json);
  for (const std::string& note : outcome->notes) fprintf(stderr, "ampoule gate submit: %s\n", OneLine(note).c_str());
  fflush(stderr);
  const gate::DecisionRow& row = outcome->row;
  if (!outcome->delivery_error.empty()) {
    return Fail("submit",
                "send #" + std::to_string(row.id) + " was recorded but not delivered (" +
                    outcome->delivery_error + "); the next 'ampoule gate' command on this log delivers it",
                json);
  }
  if (json) {
    printf("%s\n", core::DumpJson(RowJson(row)).c_str());
  } else {
    for (const std::string& reason : row.reasons) printf("reason: %s\n", OneLine(reason).c_str());
    printf("decision #%lld: %s %s\n", static_cast<long long>(row.id), row.decision.c_str(),
           row.idempotency_key.c_str());
    if (!row.outbox_file.empty()) printf("delivered: %s\n", row.outbox_file.c_str());
    printf("%s\n", Upper(row.decision).c_str());
  }
  return ExitCodeFor(outcome->decision);
}

int GateLogCommand(Args args) {
  std::optional<std::string> policy_path, db_path, key;
  bool json = false;
  std::string error;
  ArgReader r{args};
  for (; r.i < args.size() && error.empty(); ++r.i) {
    std::string_view a = args[r.i];
    if (a == "-h" || a == "--help") {
      fputs(kLogHelp, stdout);
      return 0;
    } else if (a == "--json") {
      json = true;
    } else if (a == "--policy") {
      policy_path = r.Value(a, &error);
    } else if (a == "--db") {
      db_path = r.Value(a, &error);
    } else if (a == "--idempotency-key") {
      key = r.Value(a, &error);
    } else {
      error = "unexpected argument '" + std::string(a) + "'";
    }
  }
  if (error.empty() && !policy_path && !db_path) error = "give --policy or --db";
  if (!error.empty()) {
    fprintf(stderr, "%s\n", kLogHelp);
    return Fail("log", error, json);
  }
  if (!db_path) {
    core::Result<gate::Policy> policy = gate::LoadPolicy(*policy_path);
    if (!policy.ok()) return Fail("log", policy.message(), json);
    db_path = policy->decision_log;
  }
  core::Result<std::unique_ptr<gate::DecisionLog>> log = gate::DecisionLog::Open(*db_path);
  if (!log.ok()) return Fail("log", log.message(), json);
  std::vector<std::string> notes;
  core::Status finished = gate::FinishPendingSends(**log, notes);
  for (const std::string& note : notes) fprintf(stderr, "ampoule gate log: %s\n", note.c_str());
  if (!finished.ok()) fprintf(stderr, "ampoule gate log: %s\n", finished.message().c_str());
  if (key) {
    // Keys are recorded in NFC (gate/names.h); one that does not normalise
    // can only match a row recorded before that rule, so it is kept as given.
    core::Result<std::string> nfc = gate::NormaliseName(*key, "--idempotency-key");
    if (nfc.ok()) key = *nfc;
  }
  core::Result<std::vector<gate::DecisionRow>> rows = (*log)->List(key);
  if (!rows.ok()) return Fail("log", rows.message(), json);
  for (const gate::DecisionRow& row : *rows) {
    if (json) {
      printf("%s\n", core::DumpJson(RowJson(row)).c_str());
      continue;
    }
    printf("#%lld %s %-8s %s %s receipt:%.12s%s\n", static_cast<long long>(row.id), row.decided_at.c_str(),
           row.decision.c_str(), OneLine(row.kind).c_str(), OneLine(row.idempotency_key).c_str(),
           row.receipt_sha256.empty() ? "-" : row.receipt_sha256.c_str(),
           row.delivery.empty() ? "" : (" " + row.delivery).c_str());
    for (const std::string& reason : row.reasons) printf("    %s\n", OneLine(reason).c_str());
  }
  return finished.ok() ? 0 : kExitError;
}

}  // namespace ampoule::cli
