// DSSE pre-authentication encoding (PAE), protocol v1.
//
//   PAE(type, body) = "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body
//
// where SP is one ASCII space and LEN is the byte length in ASCII decimal
// with no leading zeros. Signatures in a receipt are over these bytes, never
// over the base64 text or the JSON around it, so the payload type is
// authenticated along with the payload.
//
// Thread-safe: no state.
#pragma once

#include <string>
#include <string_view>

namespace ampoule::receipt {

// Returns PAE(payload_type, payload). Both are byte strings; payload_type
// is used as its UTF-8 bytes.
std::string Pae(std::string_view payload_type, std::string_view payload);

}  // namespace ampoule::receipt
