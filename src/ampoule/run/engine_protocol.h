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
// The host reads a result as it arrives (ResultReader), never more of it
// than the caps allow: a header of at most kMaxResultHeaderBytes, and
// output files that together hold at most the run's filesystem cap (no
// more can exist in the guest's tree), refused as soon as the header
// declares more; the files' bytes are hashed as they pass and kept only
// when the caller asks (`ampoule run --outputs`).
//
// Thread-safe: values only; a ResultReader is used by one thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ampoule/run/run_program.h"
#include "ampoule/run/run_record.h"
#include "core/result.h"
#include "core/sha256.h"

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
  std::string bytes;  // the engine's side; the host's only when it keeps them
  // Set by ResultReader (the host): the size and digest of the bytes that
  // arrived, whether or not they were kept.
  uint64_t size = 0;
  std::string sha256{};  // lowercase hex
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
core::Result<EngineRequest> DecodeRequest(std::string_view bytes);

// The most a result's header may hold: far above what one needs (a few
// hundred bytes of JSON, the names of at most kMaxOutputFiles output files
// of at most kMaxOutputNameBytes each, a pending request).
inline constexpr size_t kMaxResultHeaderBytes = size_t(4) << 20;

// The magic, the length and the header: what precedes the output files'
// bytes (the engine writes each file's bytes after it, in order, without
// copying them into one buffer).
std::string EncodeResultHeader(const EngineResult& result);
// EncodeResultHeader, then every output file's bytes.
std::string EncodeResult(const EngineResult& result);

// Reads one result in pieces as they come from the engine's pipe.
//   ResultReader reader(cap, keep);
//   for each chunk read: reader.Feed(chunk);
//   Result<EngineResult> r = reader.Finish();   // once the pipe closed
// `max_files_bytes` bounds the output files' total size: a header that
// declares more is refused at once, before any of their bytes is kept.
// With `keep_files` the files' bytes are kept (EngineOutputFile::bytes);
// without, only their size and SHA-256, so the host holds none of them.
// After an error, Feed ignores what follows (the caller may drain the pipe)
// and Finish returns the first error.
// Errors: malformed framing or JSON, a header over kMaxResultHeaderBytes, a
// field missing or of the wrong type, an output file name CheckOutputName
// refuses, names not in strictly increasing order, files over the cap,
// bytes missing or past the declared lengths.
class ResultReader {
 public:
  ResultReader(uint64_t max_files_bytes, bool keep_files);

  void Feed(std::string_view bytes);
  core::Result<EngineResult> Finish();

 private:
  enum class State { kMagic, kLegacy, kLength, kHeader, kFiles, kFailed };
  void Fail(std::string message);
  void TakeHeader();
  void TakeFileBytes(std::string_view& bytes);
  void NextFile();
  bool Reserve(EngineOutputFile& f);

  const uint64_t max_files_bytes_;
  const bool keep_files_;
  State state_ = State::kMagic;
  std::string buf_;  // the magic, length and header (or an older engine's JSON) as they arrive
  uint32_t header_len_ = 0;
  EngineResult result_;
  size_t file_ = 0;              // the output file whose bytes come next
  uint64_t file_left_ = 0;       // its bytes still to come
  core::Sha256Hasher hasher_;    // of its bytes so far
  std::string error_;
};

// The whole of `bytes` through a ResultReader that keeps the files (no cap
// but the header's).
core::Result<EngineResult> DecodeResult(std::string_view bytes);

}  // namespace ampoule::run
