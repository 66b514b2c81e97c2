// The fixed start-up request of a guest runtime (python.wasm, js.wasm).
//
// A runtime snapshot is taken right after the reactor's `ampoule_init`
// returns, and a run restores it and calls only `ampoule_main`. The snapshot
// is valid only if the run sees the same world `ampoule_init` saw: the same
// environment, the same preopened directories in the same order (so the same
// descriptor numbers), the same files under /usr/local. Both the packer
// (which makes the snapshot) and the engine (which restores it) therefore
// build that world with RuntimeInitRequest, and nothing else.
//
// The request (see docs/kernel.md):
//   python  argv ["python"]; env PYTHONHOME=/usr/local, PYTHONHASHSEED=0,
//           PYTHONDONTWRITEBYTECODE=1; preopens /usr/local (read-only,
//           holding lib/python311.zip from the kernel), /usr/share/zoneinfo
//           (read-only, the kernel's time-zone data), /input, /program,
//           /tmp, /output (both empty), / (empty: the working directory)
//   js      argv ["js"]; no env; preopens /input, /program, /tmp, /output, /
//   seed 0, the default epoch, fuel kRuntimeInitFuel, default limits and caps.
// Every directory but /usr/local and /usr/share/zoneinfo is writable: the
// guest changes its own in-memory copy (wasi/vfs.h); start-up must change
// nothing.
// The working directory: wasi-libc starts every program in "/" and sends a
// relative path, like any path, to the preopen with the longest matching
// prefix; with no preopen "/" a relative name matches none and libc itself
// fails with ENOTCAPABLE. So "/" is preopened last, an empty writable
// directory of the run's own (discarded with it, never an output), and
// `open("out.txt", "w")` works as on any POSIX system. The longer prefixes
// above still win for their own paths.
// A run then adds its files under /input and /program (the directories are
// empty at init, so nothing init looked at changes), sets argv to
// RuntimeMainArgs(...), and sets its own seed, fuel and limits.
//
// Thread-safe: no state.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ampoule/wasi/wasi_run.h"
#include "core/result.h"

namespace ampoule::kernel {

class Kernel;

enum class GuestRuntime { kPython, kJs };

inline constexpr std::string_view kRuntimeDir = "/usr/local";  // python only
inline constexpr std::string_view kInputDir = "/input";
inline constexpr std::string_view kProgramDir = "/program";
inline constexpr std::string_view kTmpDir = "/tmp";        // empty scratch space
inline constexpr std::string_view kOutputDir = "/output";  // its files are the run's outputs
inline constexpr std::string_view kZoneinfoDir = "/usr/share/zoneinfo";  // python only
// The working directory (see above): preopened last, so the other
// descriptors keep their numbers.
inline constexpr std::string_view kWorkDir = "/";
// Fuel for `ampoule_init`: far above what either runtime needs, so the
// budget never decides the outcome; it only stops a runaway pack.
inline constexpr uint64_t kRuntimeInitFuel = 200'000'000'000;

// "python" or "js".
std::string_view RuntimeName(GuestRuntime runtime);
// The kernel entries of a runtime's module and snapshot.
std::string_view RuntimeModuleEntry(GuestRuntime runtime);
std::string_view RuntimeSnapshotEntry(GuestRuntime runtime);

// Looks up a kernel entry by name (a Kernel's Entry, or a map while packing).
using EntryLookup = std::function<core::Result<std::span<const uint8_t>>(std::string_view name)>;

// The start-up request described above. The runtime's files are copied
// from the entries into the request's mailbox. Errors: a needed entry is
// missing (or fails its check).
core::Result<wasi::RunRequest> RuntimeInitRequest(GuestRuntime runtime, const EntryLookup& entries);
core::Result<wasi::RunRequest> RuntimeInitRequest(GuestRuntime runtime, const Kernel& kernel);

// argv for `ampoule_main`: {"python", "/program/<program_name>"} or
// {"js", "/program/<program_name>"}.
std::vector<std::string> RuntimeMainArgs(GuestRuntime runtime, std::string_view program_name);

}  // namespace ampoule::kernel
