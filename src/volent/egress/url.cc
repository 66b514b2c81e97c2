// The strict URL reader (url.h).
#include "volent/egress/url.h"

#include <vector>

#include "volent/egress/ip_literal.h"

namespace volent::egress {
namespace {

char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool IsHex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

std::string Lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = Lower(c);
  return out;
}

// "" when `name` is a host name of LDH labels; else what is wrong.
std::string CheckHostName(std::string_view name) {
  if (name.size() > 253) return "host name is longer than 253 characters";
  if (name.back() == '.') {
    return "host name ends with \".\"; write it without the trailing dot";
  }
  size_t start = 0;
  for (;;) {
    const size_t dot = name.find('.', start);
    std::string_view label = name.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (label.empty()) return "host name has an empty label (\"..\" or a leading \".\")";
    if (label.size() > 63) return "host name has a label longer than 63 characters";
    if (label.front() == '-' || label.back() == '-') return "host name has a label that starts or ends with \"-\"";
    for (char c : label) {
      const bool ldh = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
      if (!ldh) return "host name may hold only letters, digits, \"-\" and \".\"";
    }
    if (dot == std::string_view::npos) return "";
    start = dot + 1;
  }
}

// "" when the path and query are acceptable; else what is wrong.
std::string CheckTarget(std::string_view target) {
  for (size_t i = 0; i < target.size(); ++i) {
    if (target[i] == '%' && (i + 2 >= target.size() || !IsHex(target[i + 1]) || !IsHex(target[i + 2]))) {
      return "path or query has a '%' that is not followed by two hex digits";
    }
  }
  std::string_view path = target.substr(0, target.find('?'));
  size_t start = 1;  // path[0] == '/'
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    std::string decoded;
    std::string_view segment = path.substr(start, slash - start);
    for (size_t i = 0; i < segment.size(); ++i) {
      if (segment[i] == '%' && i + 2 < segment.size() && Lower(segment[i + 1]) == '2' &&
          Lower(segment[i + 2]) == 'e') {
        decoded += '.';
        i += 2;
      } else {
        decoded += segment[i];
      }
    }
    if (decoded == "." || decoded == "..") {
      return "path has a \".\" or \"..\" segment; write the path without it";
    }
    start = slash + 1;
  }
  return "";
}

core::Error Fail(std::string error) { return {std::move(error), core::ErrorKind::kInvalidArgument}; }

}  // namespace

int DefaultPort(std::string_view scheme) {
  if (scheme == "http") return 80;
  if (scheme == "https") return 443;
  return 0;
}

std::string Url::Path() const { return target.substr(0, target.find('?')); }

std::string Url::Authority() const {
  std::string out = host_kind == HostKind::kIpv6 ? "[" + host + "]" : host;
  if (port != DefaultPort(scheme)) out += ":" + std::to_string(port);
  return out;
}

std::string Url::ToString() const { return scheme + "://" + Authority() + target; }

core::Result<Url> ParseUrl(std::string_view text) {
  if (text.empty()) return Fail("URL is empty");
  if (text.size() > kMaxUrlBytes) return Fail("URL is longer than " + std::to_string(kMaxUrlBytes) + " bytes");
  for (unsigned char c : text) {
    if (c < 0x21 || c == 0x7f) return Fail("URL contains a space, tab, CR, LF or other control character");
    if (c >= 0x80) return Fail("URL contains non-ASCII bytes; percent-encode the path, use xn-- names");
    if (c == '\\') return Fail("URL contains a backslash");
  }
  if (text.find('#') != std::string_view::npos) return Fail("URL has a fragment ('#'); remove it");

  const size_t colon = text.find(':');
  if (colon == std::string_view::npos) return Fail("URL has no scheme; write http://HOST/... or https://HOST/...");
  Url url;
  url.scheme = Lowercase(text.substr(0, colon));
  if (url.scheme != "http" && url.scheme != "https") {
    return Fail("URL scheme \"" + url.scheme + "\" is not allowed; only http and https are");
  }
  std::string_view rest = text.substr(colon + 1);
  if (rest.substr(0, 2) != "//") return Fail("URL must be absolute: " + url.scheme + "://HOST/...");
  rest.remove_prefix(2);

  const size_t end = rest.find_first_of("/?");
  std::string_view authority = rest.substr(0, end);
  std::string_view target = end == std::string_view::npos ? std::string_view() : rest.substr(end);
  if (authority.find('@') != std::string_view::npos) {
    return Fail("URL has user information ('@' before the host); credentials go in headers");
  }
  if (authority.find('%') != std::string_view::npos) return Fail("URL host has percent-encoding");

  std::string_view host = authority, port;
  bool has_port = false;
  if (!authority.empty() && authority.front() == '[') {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return Fail("URL host has '[' without ']'");
    host = authority.substr(1, close - 1);
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return Fail("URL has characters after ']' that are not \":PORT\"");
      port = after.substr(1);
      has_port = true;
    }
    std::optional<boost::asio::ip::address_v6> v6 = ParseIpv6(host);
    if (!v6) return Fail("URL host [" + std::string(host) + "] is not an IPv6 address (zones are not allowed)");
    url.host_kind = HostKind::kIpv6;
    url.ip = boost::asio::ip::address(*v6);
    url.host = v6->to_string();
  } else {
    const size_t port_colon = authority.find(':');
    if (port_colon != std::string_view::npos) {
      host = authority.substr(0, port_colon);
      port = authority.substr(port_colon + 1);
      has_port = true;
    }
    if (host.empty()) return Fail("URL has an empty host");
    if (host.find('[') != std::string_view::npos || host.find(']') != std::string_view::npos) {
      return Fail("URL host has a bracket outside an [IPv6] literal");
    }
    if (LooksNumeric(host)) {
      std::optional<boost::asio::ip::address_v4> v4 = ParseCanonicalIpv4(host);
      if (!v4) {
        return Fail("URL host \"" + std::string(host) +
                    "\" is numeric but not a canonical dotted quad (octal, hex, short, integer and "
                    "zero-padded forms are refused); write the address as four decimals, e.g. 10.0.0.1");
      }
      url.host_kind = HostKind::kIpv4;
      url.ip = boost::asio::ip::address(*v4);
      url.host = std::string(host);
    } else {
      std::string problem = CheckHostName(host);
      if (!problem.empty()) return Fail("URL " + problem);
      url.host_kind = HostKind::kName;
      url.host = Lowercase(host);
    }
  }

  url.port = DefaultPort(url.scheme);
  if (has_port) {
    if (port.empty()) return Fail("URL has ':' but no port after it");
    if (port.size() > 5 || port.front() == '0') return Fail("URL port must be 1 to 65535 without leading zeros");
    int value = 0;
    for (char c : port) {
      if (c < '0' || c > '9') return Fail("URL port must be decimal digits only");
      value = value * 10 + (c - '0');
    }
    if (value < 1 || value > 65535) return Fail("URL port must be 1 to 65535");
    url.port = value;
    url.explicit_port = true;
  }

  if (target.empty() || target.front() == '?') {
    url.target = "/" + std::string(target);
  } else {
    url.target = std::string(target);
  }
  std::string problem = CheckTarget(url.target);
  if (!problem.empty()) return Fail("URL " + problem);
  return url;
}

}  // namespace volent::egress
