// Lowercase hexadecimal: digests, key ids, random ids, log ids.
//
// Namespace ampoule::core: the core layer lives under the project's top
// namespace, beside ampoule::Status and ampoule::Result (core/result.h),
// which both products already name; a bare global `core` is a generic name
// a library could also take. Code in namespace ampoule::X names these
// `core::HexEncode`; Volent names them `ampoule::core::HexEncode`.
//
// Thread-safe: no state. No libsodium initialisation is needed (nor done).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "core/result.h"

namespace ampoule::core {

// Returns the lowercase hex spelling of `bytes` (two characters a byte).
std::string HexEncode(std::string_view bytes);
std::string HexEncode(std::span<const uint8_t> bytes);

// Decodes lowercase or uppercase hex with no separators. Returns an error
// (kInvalidArgument) naming `what` for odd lengths or non-hex characters.
Result<std::string> HexDecode(std::string_view text, std::string_view what);

// True if `text` is exactly `bytes * 2` lowercase hex digits (the in-toto
// DigestSet spelling).
bool IsLowerHex(std::string_view text, size_t bytes);

}  // namespace ampoule::core
