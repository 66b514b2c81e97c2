// The reason a system call failed, as text: the one place errno becomes words.
//
// Header-only (the static PID 1 uses it too); thread-safe (strerror_r, not
// strerror, whose buffer is shared).
#pragma once

#include <cerrno>
#include <cstring>
#include <string>
#include <string_view>

#include "core/result.h"

namespace core {

// The text for errno value `error`, e.g. "No such file or directory".
inline std::string ErrnoText(int error = errno) {
  char buffer[128];
  return strerror_r(error, buffer, sizeof buffer);  // the GNU strerror_r: returns the text
}

// An Error "WHAT: <the text of `error`>", e.g. Errno("cannot open " + path).
// The default `error` is errno as the call is made: call it right after the
// failing system call.
inline Error Errno(std::string_view what, int error = errno) {
  return Error{std::string(what) + ": " + ErrnoText(error)};
}

}  // namespace core
