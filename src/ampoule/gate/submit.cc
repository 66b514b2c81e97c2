#include "ampoule/gate/submit.h"

#include <algorithm>
#include <cstdint>
#include <ctime>
#include <filesystem>

#include "ampoule/gate/action.h"
#include "ampoule/gate/crash_points.h"
#include "ampoule/gate/field_check.h"
#include "ampoule/gate/outbox.h"
#include "ampoule/gate/policy.h"
#include "ampoule/kernel/default_path.h"
#include "ampoule/verify/command.h"
#include "ampoule/verify/evidence.h"
#include "core/crash_point.h"

namespace ampoule::gate {
namespace {

namespace fs = std::filesystem;

// The check's result line and, when the line does not say, why: one short
// reason (the details are in the notes, on stderr).
std::string Explain(const verify::CheckOutcome& outcome) {
  const verify::Facts& f = outcome.facts;
  std::optional<std::string> why = f.usage ? f.usage : f.too_large ? f.too_large : f.failed;
  if (!why && f.terminated) why = "the host's safety net stopped the run";
  if (!why && f.run_failed && outcome.record) {
    why = "the run ended with status " + std::to_string(outcome.record->result.status);
  }
  const std::string& line = outcome.verdict.line;
  return !why || line.find(':') != std::string::npos ? line : line + ": " + *why;
}

// The draft names its evidence files: the agent chose those paths, so they
// must be regular files (a FIFO could serve one thing to the verifier and
// another to the field check); the replay may cost at most the policy's
// fuel ceiling.
verify::Options CheckOptions(const ActionDraft& draft, const Policy& policy, const std::string& receipt,
                             const std::string& kernel) {
  verify::Options o;
  o.receipt = receipt;
  o.keys = policy.trusted_keys;
  o.kernel = kernel;
  o.program = draft.evidence.program;
  o.outputs = {draft.evidence.output};
  for (const auto& [name, path] : draft.evidence.output_files) o.output_files.push_back({name, path});
  for (const auto& [name, path] : draft.evidence.inputs) o.inputs.push_back({name, path});
  o.stdin_path = draft.evidence.stdin_path;
  o.paths_from = core::PathFrom::kUntrusted;
  o.max_replay_fuel = policy.replay_fuel_ceiling == UINT64_MAX ? UINT64_MAX : policy.replay_fuel_ceiling + 1;
  return o;
}

// Steps 3 and 4: everything the decision needs except the log's answer,
// all judged on one snapshot of the evidence (`files`): the verification,
// the replay and the field comparison see the same bytes. Errors are
// problems of the gate's own setup (a trusted key it cannot read), not of
// the evidence, which become reasons to refuse.
core::Result<GateFacts> CheckEvidence(const ActionDraft& draft, const Policy& policy, verify::Options options,
                                const verify::Snapshot& files, const verify::Runner& runner,
                                std::vector<std::string>& notes) {
  GateFacts facts;
  facts.fuel_ceiling = policy.replay_fuel_ceiling;
  facts.max_data_age_seconds = policy.max_data_age_seconds;
  facts.min_isolation = policy.min_isolation;
  facts.data_age_seconds = static_cast<int64_t>(time(nullptr)) - draft.data_as_of;

  verify::CheckOutcome verified = verify::CheckSnapshot(options, files, runner);
  notes.insert(notes.end(), verified.notes.begin(), verified.notes.end());
  if (verified.verdict.conclusion == verify::Conclusion::kUnusable) {
    // Unreadable evidence or keys: nothing can be decided until it is fixed.
    return core::Error{"cannot check the receipt: " + Explain(verified)};
  }
  if (!verified.verdict.verified() || !verified.record) {
    facts.verify_failure = Explain(verified);
    return facts;
  }
  facts.fuel_used = verified.record->result.fuel_used;
  facts.isolation = verified.record->isolation;
  facts.predicate_version = verified.record->predicate_version;
  if (facts.fuel_used <= policy.replay_fuel_ceiling) {
    options.replay = true;
    verify::CheckOutcome replayed = verify::CheckSnapshot(options, files, runner);
    // The replay repeats the checks above; keep only what it adds.
    for (const std::string& n : replayed.notes) {
      if (std::find(verified.notes.begin(), verified.notes.end(), n) == verified.notes.end()) notes.push_back(n);
    }
    facts.replay_attempted = true;
    if (!replayed.verdict.verified()) facts.replay_failure = Explain(replayed);
  }
  // The outputs' digests were just checked against the receipt, on these
  // very bytes: they are the signed outputs, so their fields can be compared.
  if (files.outputs.empty() || !files.outputs.front()) return core::Error{"the output was not read"};
  SignedDocuments documents{{"", files.outputs.front()->bytes}};
  for (const auto& [name, file] : files.output_files) documents.emplace(name, file.bytes);
  facts.mismatches = CompareFields(draft.fields, documents);
  return facts;
}

// What the log stores and the outbox delivers: each field's value and the
// pointer it was checked at, so that a reader sees which record it came from.
nlohmann::json FieldValues(const ActionDraft& draft) {
  nlohmann::json values = nlohmann::json::object();
  for (const auto& [name, field] : draft.fields) values[name] = {{"value", field.value}, {"from", field.from}};
  return values;
}

// Delivers one recorded send and marks it delivered. An outbox that is
// another log's, or a file in the message's place that is not its message,
// leaves the send pending (outbox.h): never marked delivered unless its
// message is in the outbox.
core::Result<std::string> Deliver(DecisionLog& log, const DecisionRow& send) {
  core::Result<std::string> file = DeliverToOutbox(log, send);
  if (!file.ok()) return file;
  core::CrashPoint(kGateCrashEnv, "after-deliver");
  if (core::Status s = log.MarkDelivered(send.id, *file); !s.ok()) return s.error();
  return file;
}

}  // namespace

core::Status FinishPendingSends(DecisionLog& log, std::vector<std::string>& notes) {
  core::Result<std::vector<DecisionRow>> pending = log.PendingSends();
  if (!pending.ok()) return pending.status();
  for (const DecisionRow& send : *pending) {
    core::Result<std::string> file = Deliver(log, send);
    if (!file.ok()) {
      // One undeliverable send must not stop decisions on other actions.
      notes.push_back("send #" + std::to_string(send.id) + " (" + send.idempotency_key +
                      ") is still pending, retried by the next gate command: " + file.message());
      continue;
    }
    notes.push_back("delivered send #" + std::to_string(send.id) + " (" + send.idempotency_key +
                    "), left pending by an interrupted submission, to " + *file);
  }
  return core::Status::Ok();
}

core::Result<SubmitOutcome> Submit(const SubmitRequest& request, const verify::Runner& runner) {
  core::Result<Policy> policy = LoadPolicy(request.policy_path);
  if (!policy.ok()) return policy.status();
  core::Result<ActionDraft> draft = LoadActionDraft(request.draft_path);
  if (!draft.ok()) return draft.status();
  const std::string receipt = request.receipt_path.value_or(draft->evidence.receipt);
  if (receipt.empty()) return core::Error{"no receipt: give --receipt or name it in the draft's evidence"};

  SubmitOutcome outcome;
  core::Result<std::unique_ptr<DecisionLog>> log = DecisionLog::Open(request.db_path.value_or(policy->decision_log));
  if (!log.ok()) return log.status();
  if (core::Status s = FinishPendingSends(**log, outcome.notes); !s.ok()) return s.error();

  const std::string kernel = request.kernel_path.empty() ? kernel::DefaultKernelPath() : request.kernel_path;
  if (kernel.empty()) return core::Error{"no kernel: give --kernel or set AMPOULE_KERNEL"};

  // One snapshot: every evidence file is read here, once, and every check
  // below (the kernel pin, verify, replay, fields, the logged digest) uses
  // these bytes.
  const verify::Options options = CheckOptions(*draft, *policy, receipt, kernel);
  const verify::Snapshot files = verify::ReadSnapshot(options);
  if (!files.kernel_sha256) return core::Error{files.kernel_problem.value_or("the kernel " + kernel + " is unreadable")};
  if (*files.kernel_sha256 != policy->kernel_sha256) {
    return core::Error{"the kernel " + kernel + " has sha256 " + *files.kernel_sha256 + ", not the policy's pin " +
                 policy->kernel_sha256};
  }

  core::Result<GateFacts> facts = CheckEvidence(*draft, *policy, options, files, runner, outcome.notes);
  if (!facts.ok()) return facts.status();
  facts->source_violations = CheckSources(*draft, *policy);

  // A send must be deliverable before it is recorded: check the outbox now,
  // including that it is this log's (an outbox of another log refuses it).
  const std::string outbox = fs::absolute(request.outbox_path.value_or(policy->outbox)).lexically_normal().string();
  if (core::Status s = PrepareOutbox(outbox, **log); !s.ok()) return s.error();

  core::CrashPoint(kGateCrashEnv, "after-check");
  Submission submission;
  submission.idempotency_key = draft->idempotency_key;
  submission.kind = draft->kind;
  // The digest of the receipt bytes that were judged, not of another read.
  submission.receipt_sha256 = files.receipt ? files.receipt->sha256 : "";
  submission.fields = FieldValues(*draft);
  submission.outbox = outbox;
  GateVerdict verdict;
  core::Result<DecisionRow> row = (*log)->Record(submission, [&](bool already_sent) {
    facts->already_sent = already_sent;
    verdict = Decide(*facts);
    return verdict;
  });
  if (!row.ok()) return row.status();
  core::CrashPoint(kGateCrashEnv, "after-commit");
  outcome.row = std::move(*row);
  outcome.decision = verdict.decision;
  if (outcome.decision == Decision::kSend) {
    core::Result<std::string> file = Deliver(**log, outcome.row);
    if (file.ok()) {
      outcome.row.delivery = "delivered";
      outcome.row.outbox_file = *file;
    } else {
      outcome.delivery_error = file.message();
    }
  }
  return outcome;
}

}  // namespace ampoule::gate
