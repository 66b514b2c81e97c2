// Replays one spec test script's commands against the engine.
//
// Each script runs in a fresh Store with limits chosen so that runaway
// recursion traps quickly (kSpectestLimits). Every command yields exactly one
// verdict: pass, fail (with a message saying what was expected and what the
// engine did) or skip (with a reason). Commands are never silently dropped.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "ampoule/spectest/command.h"
#include "ampoule/wasm/runtime.h"

namespace ampoule::spectest {

// Skip reasons, exactly as reported.
inline constexpr const char* kSimdSkipReason = "simd: not supported yet";
inline constexpr const char* kTextSkipReason = "text format: not a binary-engine test";

// Store limits for spec tests: deep enough for every legitimate recursion in
// the suite, shallow enough that assert_exhaustion traps in milliseconds;
// a memory cap that keeps memory_grow tests from committing gigabytes.
inline constexpr wasm::StoreLimits kSpectestLimits = {
    .max_memory_bytes = uint64_t(1) << 30,
    .max_table_elements = 10'000'000,
    .max_call_depth = 10'000,
    .max_value_stack = 4 * 1024 * 1024,
};

// Fuel given to each invocation and each instantiation: twice what the most
// expensive command needs (table_grow.wast asks for 2^32 - 16 elements,
// charged per element requested, and expects a refusal). It turns an engine
// bug that loops into a failure within about a minute; the per-script
// timeout of the suite catches what fuel does not.
inline constexpr uint64_t kSpectestFuelPerCall = uint64_t(1) << 33;

struct Verdict {
  enum class Kind : uint8_t { kPass, kFail, kSkip };
  Kind kind = Kind::kPass;
  CommandKind command = CommandKind::kModule;
  uint32_t line = 0;     // the command's line in the .wast script
  std::string message;   // kFail: expected vs got; kSkip: the reason;
                         // kPass: empty, or a note (e.g. a failure message
                         // that differs from the script's wording)
};

using VerdictSink = std::function<void(const Verdict&)>;

// Replays `file`'s commands in order, calling `sink` once per command, in
// order. Module files are read relative to `dir`. A SIMD script (see
// IsSimdScript; `script_name` is the .wast's file name) is not run: every
// command is skipped with kSimdSkipReason.
void RunCommandFile(const CommandFile& file, std::string_view script_name,
                    const std::filesystem::path& dir, const VerdictSink& sink);

// Whether a script (by its file name, e.g. "simd_lane.wast") is a SIMD test file.
bool IsSimdScript(std::string_view file_name);

}  // namespace ampoule::spectest
