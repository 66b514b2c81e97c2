// WASI preview 1 error numbers (the `errno` every call returns).
//
// The table is errno.def; this header turns it into an enum and names.
#pragma once

#include <cstdint>

namespace ampoule::wasi {

enum class Errno : uint16_t {
#define AMP_WASI_ERRNO(id, code, name, text) id = code,
#include "ampoule/wasi/errno.def"
#undef AMP_WASI_ERRNO
};

// "EBADF" for Errno::kBadf; "E?" for a number outside the table.
const char* ErrnoName(Errno e);
// A short description, "bad file descriptor" for Errno::kBadf.
const char* ErrnoText(Errno e);

// Propagates a non-success Errno from `expr` out of the enclosing function.
#define AMP_WASI_TRY(expr)                                                 \
  do {                                                                     \
    ::ampoule::wasi::Errno amp_errno_ = (expr);                            \
    if (amp_errno_ != ::ampoule::wasi::Errno::kSuccess) return amp_errno_; \
  } while (0)

}  // namespace ampoule::wasi
