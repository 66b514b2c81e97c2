// Redirect targets resolved against the current URL (location.h).
#include "volent/egress/location.h"

namespace volent::egress {
namespace {

bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// True when `text` is an RFC 3986 scheme: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ).
bool IsScheme(std::string_view text) {
  if (text.empty() || !IsAlpha(text.front())) return false;
  for (char c : text) {
    if (!IsAlpha(c) && !IsDigit(c) && c != '+' && c != '-' && c != '.') return false;
  }
  return true;
}

core::Error Fail(std::string error) { return {std::move(error), core::ErrorKind::kInvalidArgument}; }

// Removes the last segment of `out` and the '/' before it.
void PopSegment(std::string& out) {
  const size_t slash = out.rfind('/');
  out.erase(slash == std::string::npos ? 0 : slash);
}

}  // namespace

std::string RemoveDotSegments(std::string_view in) {
  std::string out;
  size_t i = 0;
  auto rest = [&] { return in.substr(i); };
  auto starts = [&](std::string_view prefix) { return rest().substr(0, prefix.size()) == prefix; };
  while (i < in.size()) {
    if (starts("../")) {
      i += 3;
    } else if (starts("./")) {
      i += 2;
    } else if (starts("/./")) {
      i += 2;  // "/./x" -> "/x"
    } else if (rest() == "/.") {
      out += '/';
      i = in.size();
    } else if (starts("/../")) {
      i += 3;  // "/../x" -> "/x", dropping the last output segment
      PopSegment(out);
    } else if (rest() == "/..") {
      PopSegment(out);
      out += '/';
      i = in.size();
    } else if (rest() == "." || rest() == "..") {
      i = in.size();
    } else {
      const size_t end = in.find('/', i + 1);
      const size_t stop = end == std::string_view::npos ? in.size() : end;
      out.append(in.substr(i, stop - i));
      i = stop;
    }
  }
  return out;
}

core::Result<std::string> ResolveLocation(const Url& base, std::string_view location) {
  if (location.empty()) return Fail("the Location is empty");
  if (location.size() > kMaxUrlBytes) {
    return Fail("the Location is longer than " + std::to_string(kMaxUrlBytes) + " bytes");
  }
  for (unsigned char c : location) {
    if (c < 0x21 || c == 0x7f) return Fail("the Location contains a space, tab, CR, LF or other control character");
    if (c >= 0x80) return Fail("the Location contains non-ASCII bytes");
    if (c == '\\') return Fail("the Location contains a backslash (some readers take it for '/')");
  }
  std::string_view ref = location.substr(0, location.find('#'));  // never sent

  const size_t first = ref.find_first_of(":/?");
  if (first != std::string_view::npos && ref[first] == ':') {
    if (!IsScheme(ref.substr(0, first))) {
      return Fail("the Location \"" + std::string(location) +
                  "\" is neither an absolute URL (SCHEME://HOST/...) nor a relative reference");
    }
    return std::string(ref);
  }

  const std::string origin = base.scheme + "://" + base.Authority();
  if (ref.substr(0, 2) == "//") return base.scheme + ":" + std::string(ref);
  const size_t query_at = ref.find('?');
  const std::string_view path = ref.substr(0, query_at);
  const std::string_view query = query_at == std::string_view::npos ? std::string_view() : ref.substr(query_at);
  if (path.empty()) {  // "" or "?query": the current path
    const std::string_view base_query = std::string_view(base.target).substr(base.Path().size());
    return origin + base.Path() + std::string(query.empty() ? base_query : query);
  }
  std::string merged;
  if (path.front() == '/') {
    merged = std::string(path);
  } else {
    const std::string base_path = base.Path();  // starts with '/'
    merged = base_path.substr(0, base_path.rfind('/') + 1) + std::string(path);
  }
  return origin + RemoveDotSegments(merged) + std::string(query);
}

}  // namespace volent::egress
