// The names a draft gives its action, its kind and its idempotency key, as
// the gate compares, stores and prints them (docs/gate.md).
//
// A key is compared to find duplicates, so two spellings that look and mean
// the same must be one key, and a key must not hide anything from the
// person who reads the log. NormaliseName puts a name in Unicode NFC (so
// "café" typed precomposed and "café" with a combining accent are one key)
// and refuses what a reader cannot see or would misread: invalid UTF-8,
// control characters (C0, DEL, C1), format characters (zero-width spaces
// and joiners, byte order marks, direction marks, embeddings, overrides and
// isolates), line and paragraph separators, spaces other than U+0020,
// a space at either end, private-use and unassigned code points (whose
// normalisation a later Unicode version could change). Names are refused
// rather than repaired, so that what the agent sent is what is recorded.
//
// Thread-safe: no state.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "core/result.h"

namespace ampoule::gate {

// The longest name, counted in Unicode code points after normalisation.
inline constexpr size_t kMaxNameCodePoints = 256;

// `text` in NFC, or an error naming `what` ("the draft's idempotency_key"),
// the offending code point (U+XXXX) and its position (code points, from 1).
core::Result<std::string> NormaliseName(std::string_view text, std::string_view what);

}  // namespace ampoule::gate
