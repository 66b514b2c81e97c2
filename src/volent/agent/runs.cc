#include "volent/agent/runs.h"

namespace volent::agent {

std::string_view RunStatusName(RunStatus status) {
  switch (status) {
    case RunStatus::kRunning: return "running";
    case RunStatus::kWaitingApproval: return "waiting-approval";
    case RunStatus::kFinished: return "finished";
    case RunStatus::kFailed: return "failed";
  }
  return "failed";  // not reached: every status is named above
}

std::optional<RunStatus> RunStatusFromName(std::string_view name) {
  for (RunStatus status : kAllRunStatuses) {
    if (RunStatusName(status) == name) return status;
  }
  return std::nullopt;
}

}  // namespace volent::agent
