// The record of one run: what ran, on what, with which limits, and how it
// ended. It is the predicate of a receipt (predicate type kRunPredicateType,
// docs/receipt-spec.md section 4) and what `ampoule run --record` writes.
//
// Everything in it except started_at/finished_at is decided by the kernel,
// the program, the inputs, the seed and the limits, so a replay on the same
// kernel must reproduce it (times are informative; a terminated run cannot
// be replayed).
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

// Version 3 added the filesystem caps (limits.fs_*) and the output files
// (outputs, outputs_left_out); receipts of version 2 still read and verify.
inline constexpr std::string_view kRunPredicateType = "https://ampoule.dev/attestations/run/v3";
inline constexpr std::string_view kRunPredicateTypeV2 = "https://ampoule.dev/attestations/run/v2";
inline constexpr uint32_t kRunPredicateVersion = 3;

// The predicate type of `version` (2 or 3), or "" for another.
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
  uint32_t predicate_version = kRunPredicateVersion;
};

// The predicate JSON of the record's version (keys as in
// docs/receipt-spec.md).
nlohmann::json RecordToJson(const RunRecord& record);

// Reads a predicate of `version` (2 or 3). Every field of that version is
// required with its type (times may be absent); unknown fields are ignored.
// Errors name the field.
Result<RunRecord> RecordFromJson(const nlohmann::json& json, uint32_t version = kRunPredicateVersion);

// How a run that the engine finished (not terminated) is classified: a guest
// that failed (trapped or exited non-zero) after the memory cap refused a
// memory.grow stopped on memory; otherwise the engine's own stop reason.
Stop ClassifyStop(Stop engine_stop, int exit_code, bool memory_cap_hit);

// The status (ampoule run exit code) for a stop reason and guest exit code.
int StatusFor(Stop stop, int exit_code);

}  // namespace ampoule::run
