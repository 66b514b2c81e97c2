// Where a redirect leads: the Location of a 3xx answer resolved against the
// URL that answered (RFC 3986 section 5.2), as text for ParseUrl (url.h) to
// read strictly, like any URL the gate is asked to send to.
//
// Forms understood:
//   - an absolute URL ("https://other.example/x"): returned as written (after
//     the fragment is cut), so the strict reader judges exactly what the
//     server sent; dot segments in it are refused there, not removed here;
//   - a network-path reference ("//other.example/x"): the current scheme;
//   - an absolute path ("/login?next=1"): the current scheme, host and port;
//   - a query ("?page=2"): the current path;
//   - a relative path ("next", "../up"): merged with the current path's
//     folder. In relative references (absolute or relative paths) literal
//     "." and ".." segments are resolved as RFC 3986 says; percent-encoded
//     dots are not (the strict reader refuses them: servers disagree on them).
// A fragment ("#part") is cut: it is never sent, so it cannot change where
// the request goes. Refused with a reason: an empty Location, one longer
// than kMaxUrlBytes, one with spaces, control characters, bytes over 0x7F or
// a backslash (which browsers read as "/", so "/\evil.example" would be a
// network path to them), and text before a ':' that is not a scheme.
//
// Thread-safe: pure functions. Never throws but std::bad_alloc.
#pragma once

#include <string>
#include <string_view>

#include "core/result.h"
#include "volent/egress/url.h"

namespace volent::egress {

// The absolute URL the Location names, or what is wrong with the Location,
// for a person (kInvalidArgument).
core::Result<std::string> ResolveLocation(const Url& base, std::string_view location);

// RFC 3986 section 5.2.4 on a path ("/a/b/../c" -> "/a/c"); a ".." above
// the root stays at the root.
std::string RemoveDotSegments(std::string_view path);

}  // namespace volent::egress
