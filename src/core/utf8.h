// UTF-8 validation: the one check, for Wasm names (the spec's rule), the
// JSON text a tool's bytes become, and output file names.
#pragma once

#include <string_view>

namespace core {

// True if `text` is well-formed UTF-8: no overlong forms, no surrogates,
// nothing above U+10FFFF, no truncated sequence (RFC 3629).
bool IsValidUtf8(std::string_view text);

}  // namespace core
