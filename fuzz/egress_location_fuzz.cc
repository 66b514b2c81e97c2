// Fuzz target for the Location of a redirect, which the server chooses
// (egress/location.h; docs/egress.md, "Redirects"). No socket is opened.
//
// The input is a base URL, a newline, and a Location. What must hold,
// beyond no crash, hang or sanitizer report, when the base URL parses:
//   - a Location is resolved exactly when no error is reported, and the
//     result has no byte outside printable ASCII, no '\\' and no '#';
//   - a relative reference (no scheme, not starting with "//") never leaves
//     the base's origin: when the result parses, its scheme, host and port
//     are the base's;
//   - a resolved relative path has no "." or ".." segment left;
//   - RemoveDotSegments never grows its input and, on a path starting with
//     '/', returns one starting with '/' without "." or ".." segments.
//
// Seeds: fuzz/corpus/egress_location_fuzz.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "volent/egress/location.h"
#include "volent/egress/url.h"

namespace {

using namespace volent::egress;

void Check(bool ok) {
  if (!ok) std::abort();
}

bool HasDotSegment(std::string_view path) {
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    const std::string_view segment = path.substr(start, slash - start);
    if (segment == "." || segment == "..") return true;
    start = slash + 1;
  }
  return false;
}

bool IsSchemeStart(std::string_view ref) {
  const size_t first = ref.find_first_of(":/?#");
  return first != std::string_view::npos && ref[first] == ':';
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t newline = input.find('\n');
  const std::string_view location = newline == std::string_view::npos ? input : input.substr(newline + 1);

  const std::string dots = RemoveDotSegments(location);
  Check(dots.size() <= location.size());
  if (!location.empty() && location.front() == '/') {
    Check(!dots.empty() && dots.front() == '/');
    Check(!HasDotSegment(dots));
  }

  const std::string_view base_text = newline == std::string_view::npos ? "http://a.example/x/y?q" : input.substr(0, newline);
  core::Result<Url> base = ParseUrl(base_text);
  if (!base.ok()) return 0;
  core::Result<std::string> target = ResolveLocation(*base, location);
  Check(target.ok() ? !target->empty() : !target.message().empty());
  if (!target.ok()) return 0;
  for (unsigned char c : *target) Check(c > 0x20 && c < 0x7f && c != '\\' && c != '#');

  const std::string_view ref = location.substr(0, location.find('#'));
  const bool relative = !IsSchemeStart(ref) && ref.substr(0, 2) != "//";
  if (!relative) return 0;
  core::Result<Url> resolved = ParseUrl(*target);
  if (!resolved.ok()) return 0;
  Check(resolved->scheme == base->scheme);
  Check(resolved->host == base->host);
  Check(resolved->port == base->port);
  if (!ref.empty() && ref.front() != '?') Check(!HasDotSegment(resolved->Path()));
  return 0;
}
