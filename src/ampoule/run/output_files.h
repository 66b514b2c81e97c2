// Output files: the files a guest leaves in /output, which leave the run as
// results (subjects of the receipt, written by `ampoule run --outputs DIR`).
//
// A guest may name a file with any bytes but '/' and NUL. What leaves the
// run must also survive a JSON receipt and a host folder, so an output's
// name must be a relative path of components that are valid UTF-8, without
// control characters, not empty, "." or "..", at most kMaxNameBytes each and
// kMaxOutputNameBytes in all; and there are at most kMaxOutputFiles. The
// engine leaves other files out (and counts them); the host checks every
// name again, since the engine's answer comes from a process that ran
// untrusted code.
//
// Thread-safe: no state.
#pragma once

#include <cstdint>
#include <string_view>

#include "core/result.h"

namespace ampoule::run {

inline constexpr size_t kMaxOutputNameBytes = 1024;
// A receipt holds at most 4096 subjects (docs/receipt-spec.md); the files
// past this many, in name order, are left out.
inline constexpr size_t kMaxOutputFiles = 1000;

// Ok, or why `name` cannot be an output file's name.
core::Status CheckOutputName(std::string_view name);

}  // namespace ampoule::run
