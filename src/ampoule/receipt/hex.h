// Lowercase hexadecimal, as used for digests and key ids in receipts.
//
// Thread-safe: no state.
#pragma once

#include <string>
#include <string_view>

#include "core/result.h"

namespace ampoule::receipt {

// Returns the lowercase hex spelling of `bytes` (two characters a byte).
std::string HexEncode(std::string_view bytes);

// Decodes lowercase or uppercase hex with no separators. Returns an error
// naming `what` for odd lengths or non-hex characters.
Result<std::string> HexDecode(std::string_view text, std::string_view what);

// True if `text` is exactly `bytes * 2` lowercase hex digits (the in-toto
// DigestSet spelling).
bool IsLowerHex(std::string_view text, size_t bytes);

// Returns the lowercase hex SHA-256 of `bytes`.
std::string Sha256Hex(std::string_view bytes);

}  // namespace ampoule::receipt
