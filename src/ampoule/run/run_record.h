// The record of one run: what ran, on what, with which limits, and how it
// ended. It is the predicate of a receipt (predicate type kRunPredicateType,
// docs/receipt-spec.md section 4) and what `ampoule run --record` writes.
//
// Everything in it except started_at/finished_at and the isolation is
// decided by the kernel, the program, the inputs, the seed and the limits,
// so a replay on the same kernel must reproduce it (times are informative;
// the isolation says how the host sealed this run, which a replay in its own
// sandbox need not repeat; a terminated run cannot be replayed).
//
// Thread-safe: values only.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace ampoule::run {

// Version 4 added the isolation; version 3 the filesystem caps (limits.fs_*)
// and the output files (outputs, outputs_left_out). Receipts of versions 2
// and 3 still read and verify; their isolation is unknown.
inline constexpr std::string_view kRunPredicateType = "https://ampoule.dev/attestations/run/v4";
inline constexpr std::string_view kRunPredicateTypeV3 = "https://ampoule.dev/attestations/run/v3";
inline constexpr std::string_view kRunPredicateTypeV2 = "https://ampoule.dev/attestations/run/v2";
inline constexpr uint32_t kRunPredicateVersion = 4;

// The predicate type of `version` (2, 3 or 4), or "" for another.
std::string_view RunPredicateType(uint32_t version);
// The version of `predicate_type`, or 0 if it is not a run predicate.
uint32_t RunPredicateVersion(std::string_view predicate_type);

// `ampoule run` exit codes (result.status). A guest's own exit status
// 0..kMaxGuestStatus passes through unchanged.
inline constexpr int kMaxGuestStatus = 119;
inline constexpr int kStatusGuestHigh = 120;      // guest exit status >= 120 (see exit_code)
inline constexpr int kStatusMemoryCap = 121;      // failed after the memory cap refused a grow
inline constexpr int kStatusTerminated = 124;     // stopped by the wall-clock safety net
inline constexpr int kStatusCannotRun = 125;      // ampoule could not run it (no record)
inline constexpr int kStatusTrap = 126;           // the guest trapped
inline constexpr int kStatusOutOfFuel = 127;      // the fuel budget ran out

// How the host sealed the run's engine from itself, weakest first:
//   kNone  run without the jail (--insecure-no-jail: rlimits, descriptors and
//          an empty environment only; no namespaces, no seccomp)
//   kJail  the jail of sandbox/jail.h
//   kVm    a micro-VM (reserved for that backend; nothing writes it yet)
// kUnknown is not a value a record states: it is what a version 2 or 3
// record, which does not say, reads as, and what a record nobody set holds.
// It meets no minimum but kNone and is never taken for another value.
enum class Isolation { kUnknown, kNone, kJail, kVm };

// "none", "jail", "vm" (the predicate's values), or "unknown".
std::string_view IsolationName(Isolation isolation);
// The isolation named exactly `name` ("none", "jail" or "vm": byte for
// byte, no case folding or trimming); an error naming the three otherwise,
// "unknown" included. The one reader of these names (records, policies).
core::Result<Isolation> ParseIsolation(std::string_view name);
// Whether `have` satisfies a required `minimum` (none < jail < vm). A
// minimum of kNone (or kUnknown) requires nothing; otherwise kUnknown fails.
bool IsolationAtLeast(Isolation have, Isolation minimum);

struct Digest {
  std::string sha256;  // lowercase hex
  uint64_t bytes = 0;
};

struct NamedDigest {
  std::string name;
  std::string sha256;
  uint64_t bytes = 0;
};

struct OutputDigest {
  std::string sha256;        // of the kept bytes
  uint64_t bytes = 0;        // kept (at most limits.output_cap_bytes)
  uint64_t total_bytes = 0;  // written by the guest, kept or not
  bool truncated = false;
};

struct RunLimits {
  uint64_t fuel = 0;
  uint64_t memory_bytes = 0;
  double timeout_seconds = 0;
  uint64_t output_cap_bytes = 0;  // per stream
  // The guest filesystem's caps (wasi/vfs.h), inputs included; 0 in a
  // version 2 record, which had none (its files were read-only).
  uint64_t fs_bytes = 0;
  uint64_t fs_files = 0;
  uint64_t fs_depth = 0;
};

// Why a run ended: exit (returned or proc_exit), trap, fuel, memory, timeout.
enum class Stop { kExit, kTrap, kFuel, kMemory, kTimeout };
std::string_view StopName(Stop stop);

struct RunOutcome {
  int status = 0;     // the ampoule run exit code (see above)
  int exit_code = 0;  // the guest's own exit status (kExit only)
  Stop stop = Stop::kExit;
  uint64_t fuel_used = 0;  // meaningless (0) when terminated
  bool terminated = false;
  bool memory_cap_hit = false;
  std::string trap;  // kTrap only: the trap message
};

struct RunRecord {
  std::string kernel_sha256;
  uint32_t cost_table_version = 0;
  std::string runtime;  // python, js or wasm
  NamedDigest program;
  std::vector<NamedDigest> inputs;  // sorted by name
  Digest stdin_digest;
  uint64_t seed = 0;
  RunLimits limits;
  RunOutcome result;
  OutputDigest stdout_digest;
  OutputDigest stderr_digest;
  // The files the guest left in /output, sorted by name (output_files.h),
  // and how many files there could not leave the run (a name no receipt or
  // host folder can hold). Version 3 only.
  std::vector<NamedDigest> outputs;
  uint64_t outputs_left_out = 0;
  std::string started_at;  // RFC 3339 UTC, informative
  std::string finished_at;
  // Set by whoever ran it (RunProgram, from RunSpec::insecure_no_jail);
  // kUnknown in a record read from version 2 or 3. Version 4 only.
  Isolation isolation = Isolation::kUnknown;
  uint32_t predicate_version = kRunPredicateVersion;
};

// The predicate JSON of the record's version (keys as in
// docs/receipt-spec.md). A version 4 record whose isolation is kUnknown is
// written without the field, which no reader accepts: never as a guess.
nlohmann::json RecordToJson(const RunRecord& record);

// Reads a predicate of `version` (2, 3 or 4). Every field of that version
// is required with its type (times may be absent), `isolation` with one of
// its three names exactly; unknown fields are ignored (so is an `isolation`
// in versions 2 and 3, which do not define it). Errors name the field.
core::Result<RunRecord> RecordFromJson(const nlohmann::json& json, uint32_t version = kRunPredicateVersion);

// How a run that the engine finished (not terminated) is classified: a guest
// that failed (trapped or exited non-zero) after the memory cap refused a
// memory.grow stopped on memory; otherwise the engine's own stop reason.
Stop ClassifyStop(Stop engine_stop, int exit_code, bool memory_cap_hit);

// The status (ampoule run exit code) for a stop reason and guest exit code.
int StatusFor(Stop stop, int exit_code);

}  // namespace ampoule::run
