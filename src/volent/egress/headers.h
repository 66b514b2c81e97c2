// What of a caller's request line and headers the egress gate sends
// (docs/egress.md, "Headers").
//
// A header name or value holding CR, LF or NUL is a denial, not something to
// repair: it is an attempt to write a second header or request. Names must be
// RFC 9110 tokens, values printable (tab allowed). Dropped silently, because
// the gate decides them: hop-by-hop headers (Connection, Keep-Alive, TE,
// Trailer, Transfer-Encoding, Upgrade), proxy headers (Proxy-*, Forwarded,
// X-Forwarded-*), Host (the gate writes the URL's authority) and
// Content-Length (the gate writes the body's length).
//
// Thread-safe: pure functions. Never throws but std::bad_alloc.
#pragma once

#include <string>
#include <string_view>

#include "core/result.h"
#include "volent/egress/gate.h"

namespace volent::egress {

// An RFC 9110 token (method names, header names).
bool IsToken(std::string_view text);

// What may be sent, in the caller's order, or why the request is denied
// (kInvalidArgument).
core::Result<Headers> FilterHeaders(const Headers& headers);

// True for the headers FilterHeaders drops (case-insensitive).
bool IsDroppedHeader(std::string_view name);

}  // namespace volent::egress
