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
//   program, each input, stdin. Engines ignore header fields they do not
//   know, so fields added later (the filesystem caps) reach older engines
//   harmlessly.
// Result wire format: "AMPRES1\n", u32 header length, the header (JSON: the
//   fields below, each output file's name and length), then the output
//   files' bytes in order. A result that does not start with the magic is
//   an older engine's: one JSON object, no output files.
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
  // Caps on the guest's filesystem; 0 (absent from the header) means the
  // engine's defaults.
  uint64_t fs_bytes = 0;
  uint64_t fs_files = 0;
  uint64_t fs_depth = 0;
  // Stop the run at an HTTP request of the tool capability that the input
  // wasi::kHttpExchangesInput does not answer (wasi/http_capability.h).
  bool http_ask_host = false;
};

struct EngineOutputFile {
  std::string name;
  std::string bytes;
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
  // The files the guest left in /output (output_files.h), by name.
  std::vector<EngineOutputFile> outputs;
  // Files there whose names cannot leave the run, and links (not counted
  // as files: see output_files.h).
  uint64_t outputs_left_out = 0;
  // The request the run stopped at, when http_ask_host (canonical JSON).
  std::string http_pending;
  // Set when the engine could not run the request at all (bad module, bad
  // snapshot, ...): the run did not start and there is no guest outcome.
  std::string error;
};

std::string EncodeRequest(const EngineRequest& request);
Result<EngineRequest> DecodeRequest(std::string_view bytes);

std::string EncodeResult(const EngineResult& result);
// Errors: malformed framing or JSON, a field missing or of the wrong type,
// an output file name CheckOutputName refuses, names not in strictly
// increasing order, bytes past the declared lengths.
Result<EngineResult> DecodeResult(std::string_view bytes);

}  // namespace ampoule::run
