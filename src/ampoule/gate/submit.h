// Submitting an action to the trust gate: the whole of `ampoule gate
// submit` as a library call (docs/gate.md).
//
//   1. read the policy and the draft; open the decision log and finish any
//      send a process died before delivering
//   2. check that the kernel is the policy's pin
//   3. verify the receipt with the draft's evidence (verify::RunCheck), and
//      replay it unless its fuel is over the policy's ceiling
//   4. compare the asserted fields with the signed output and their pointers
//      with the policy's pinning for the kind; age the data
//   5. decide (decision.h) and record, atomically with the duplicate check
//   6. for a send, deliver to the outbox, then mark it delivered
//
// An error means nothing was decided, except when a send was recorded but
// its delivery failed (SubmitOutcome::delivery_error): it stays pending and
// the next gate command on the log delivers it.
//
// Thread-safe if `runner` is; each call opens its own connection to the log.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ampoule/gate/decision.h"
#include "ampoule/gate/decision_log.h"
#include "ampoule/verify/replay.h"
#include "core/result.h"

namespace ampoule::gate {

struct SubmitRequest {
  std::string draft_path;
  std::string policy_path;
  std::optional<std::string> receipt_path;  // replaces the draft's evidence.receipt
  std::string kernel_path;                  // empty: the installed kernel
  std::optional<std::string> db_path;       // replaces the policy's decision_log
  std::optional<std::string> outbox_path;   // replaces the policy's outbox
};

struct SubmitOutcome {
  Decision decision = Decision::kRefuse;
  DecisionRow row;                  // as recorded: id, reasons, receipt digest, ...
  std::vector<std::string> notes;   // what checking the receipt found, for stderr
  std::string delivery_error;       // a send that could not be delivered yet
};

core::Result<SubmitOutcome> Submit(const SubmitRequest& request, const verify::Runner& runner = nullptr);

// Delivers the sends in `log` that were recorded but never marked delivered
// (their process died), and marks them. Appends a line per delivery, and
// per send that still cannot be delivered, to `notes`; an error only when
// the log cannot be read. Safe to run concurrently with submissions and
// with itself.
core::Status FinishPendingSends(DecisionLog& log, std::vector<std::string>& notes);

}  // namespace ampoule::gate
