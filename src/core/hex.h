// Lowercase hexadecimal: digests, key ids, random ids, log ids.
//
// Namespace core: the whole core layer is one namespace, `core` (errors
// as values, JSON, hex, SHA-256, SQLite as core::sqlite, the HTTP pieces
// as core::httpd), named so by both products: core::Result, core::HexEncode.
//
// Thread-safe: no state. No libsodium initialisation is needed (nor done).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "core/result.h"

namespace core {

// Returns the lowercase hex spelling of `bytes` (two characters a byte).
std::string HexEncode(std::string_view bytes);
std::string HexEncode(std::span<const uint8_t> bytes);

// Decodes lowercase or uppercase hex with no separators. Returns an error
// (kInvalidArgument) naming `what` for odd lengths or non-hex characters.
Result<std::string> HexDecode(std::string_view text, std::string_view what);

// True if `text` is exactly `bytes * 2` lowercase hex digits (the in-toto
// DigestSet spelling).
bool IsLowerHex(std::string_view text, size_t bytes);

}  // namespace core
