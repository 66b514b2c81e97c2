// Runs one script's commands in a child process, so that a crash or a hang
// in the engine costs that file's remaining commands and not the whole run.
//
// The child reports each verdict to the parent through a pipe as soon as it
// has it; whatever the child did not report (because it died or was killed)
// is counted as failed, and the first unreported command is named as the
// one it died on.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "ampoule/spectest/report.h"
#include "ampoule/spectest/runner.h"

namespace ampoule::spectest {

// The work to run in the child: call the sink once per command, in order.
using ScriptWork = std::function<void(const VerdictSink&)>;

// Forks, runs `work` in the child, and collects its verdicts into a report
// named `name`. `commands` lists the script's commands (kind and line) in
// order, so unreported ones can be accounted for. The child is killed if it
// runs longer than `timeout`. If fork or pipe fail, the work runs in this
// process instead (and the report's error says so only if that matters).
// REQUIRES: no other threads are running (fork).
FileReport RunIsolated(std::string name, std::span<const Command> commands, const ScriptWork& work,
                       std::chrono::seconds timeout);

// Runs `work` in this process: a crash ends the whole program. For debugging.
FileReport RunInProcess(std::string name, const ScriptWork& work);

// The pipe encoding of one verdict (a single line ending in '\n'), and back.
// Exposed for tests.
std::string EncodeVerdict(const Verdict& v);
bool DecodeVerdict(std::string_view line, Verdict* out);

}  // namespace ampoule::spectest
