// What the host and the jailed engine say to each other.
//
// The host writes one EngineRequest to the engine's descriptor 0 and closes
// it; the engine streams the guest's kept stdout and stderr on descriptors 1
// and 2, and when the guest has stopped writes one EngineResult to
// descriptor 4. The kernel file itself is descriptor 3 (src/ampoule/kernel).
//
// Request wire format (little-endian):
//   "AMPREQ1\n", u32 header length, the header (JSON: every field below
//   except the byte blobs, plus each blob's length), then the blobs in order:
//   program, each input, stdin.
// Result wire format: one JSON object.
//
// Both sides parse defensively (lengths checked against what arrived, JSON
// without duplicate keys); an error message names what was wrong.
//
// Thread-safe: values only.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ampoule/run/run_program.h"
#include "ampoule/run/run_record.h"
#include "core/result.h"

namespace ampoule::run {

// Descriptors of the engine process.
inline constexpr int kEngineRequestFd = 0;
inline constexpr int kEngineStdoutFd = 1;
inline constexpr int kEngineStderrFd = 2;
inline constexpr int kEngineKernelFd = 3;
inline constexpr int kEngineResultFd = 4;

struct EngineRequest {
  // The kernel's digest as the host verified it; the engine then takes the
  // kernel's entries as they are instead of hashing them again.
  std::string kernel_sha256;
  std::string runtime;  // python, js or wasm
  std::string program_name;
  std::vector<uint8_t> program;
  std::vector<ProgramInput> inputs;
  std::vector<uint8_t> stdin_bytes;
  uint64_t seed = 0;
  uint64_t fuel = 0;
  uint64_t memory_bytes = 0;
  uint64_t output_cap_bytes = 0;
};

// How the engine saw the run end. `stop` is kExit, kTrap or kFuel (memory
// and timeout are decided on the host).
struct EngineResult {
  Stop stop = Stop::kExit;
  int exit_code = 0;
  std::string trap;
  uint64_t fuel_used = 0;
  bool memory_cap_hit = false;
  uint64_t stdout_total_bytes = 0;
  uint64_t stderr_total_bytes = 0;
  // Set when the engine could not run the request at all (bad module, bad
  // snapshot, ...): the run did not start and there is no guest outcome.
  std::string error;
};

std::string EncodeRequest(const EngineRequest& request);
Result<EngineRequest> DecodeRequest(std::string_view bytes);

std::string EncodeResult(const EngineResult& result);
Result<EngineResult> DecodeResult(std::string_view bytes);

}  // namespace ampoule::run
