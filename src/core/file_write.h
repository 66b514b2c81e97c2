// Replacing a file whole: the bytes go to a temporary file beside it, are
// synced, and the temporary file is renamed over the target, so a reader
// (or a crash) sees the old file or the new one, never a part of either.
//
// Thread-safe: no state (the temporary name carries the process and thread).
#pragma once

#include <string>
#include <string_view>

#include <sys/types.h>

#include "core/result.h"

namespace ampoule::core {

// Writes `bytes` to `path` as above, with permission bits `mode` (before
// the umask). Errors name the path and the reason; the temporary file is
// removed on failure.
Status WriteFileAtomically(const std::string& path, std::string_view bytes, mode_t mode = 0644);

}  // namespace ampoule::core
