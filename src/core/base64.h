// Base64 (RFC 4648), as DSSE envelopes write it.
//
// DSSE lets signers use either the standard or the URL-safe alphabet, with or
// without padding, and requires verifiers to accept all of them. We always
// write the standard alphabet with padding (docs/receipt-spec.md, "Base64").
//
// Decoding is strict otherwise: no whitespace, no mixing of the two
// alphabets, padding only at the end and only as much as the length needs,
// and the unused low bits of the last character must be zero. So every byte
// string has exactly one accepted spelling per variant.
//
// Thread-safe: no state.
#pragma once

#include <string>
#include <string_view>

#include "core/result.h"

namespace core {

// Returns the standard-alphabet, padded encoding of `bytes`.
std::string Base64Encode(std::string_view bytes);

// Decodes `text` written in the standard or the URL-safe alphabet, padded or
// not (see the header comment). Returns the decoded bytes, or an error naming
// `what` (for example "payload") for malformed input.
core::Result<std::string> Base64Decode(std::string_view text, std::string_view what);

}  // namespace core
