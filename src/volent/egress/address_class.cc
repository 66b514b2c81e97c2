// Address classes and CIDR ranges (address_class.h).
#include "volent/egress/address_class.h"

#include "volent/egress/ip_literal.h"

namespace volent::egress {
namespace {

using V4 = std::array<uint8_t, 4>;
using V6 = std::array<uint8_t, 16>;

// True when the first `bits` bits of `a` equal those of `b` (sizes equal).
template <size_t N>
bool PrefixEquals(const std::array<uint8_t, N>& a, const std::array<uint8_t, N>& b, unsigned bits) {
  for (unsigned i = 0; i < bits; ++i) {
    const uint8_t mask = static_cast<uint8_t>(0x80 >> (i % 8));
    if ((a[i / 8] & mask) != (b[i / 8] & mask)) return false;
  }
  return true;
}

bool In4(const V4& a, V4 base, unsigned bits) { return PrefixEquals(a, base, bits); }

bool In6(const V6& a, std::initializer_list<uint8_t> head, unsigned bits) {
  V6 base{};
  size_t i = 0;
  for (uint8_t b : head) base[i++] = b;
  return PrefixEquals(a, base, bits);
}

Classification Of(AddressClass c, std::string embedded = "") {
  Classification out;
  out.address_class = c;
  out.embedded_ipv4 = std::move(embedded);
  return out;
}

std::string V4Text(const uint8_t* p) {
  return boost::asio::ip::address_v4(V4{p[0], p[1], p[2], p[3]}).to_string();
}

V4 V4At(const V6& a, size_t at) { return V4{a[at], a[at + 1], a[at + 2], a[at + 3]}; }

}  // namespace

std::string_view AddressClassName(AddressClass c) {
  switch (c) {
    case AddressClass::kPublic: return "public";
    case AddressClass::kLoopback: return "loopback";
    case AddressClass::kUnspecified: return "unspecified";
    case AddressClass::kPrivate: return "private";
    case AddressClass::kLinkLocal: return "link-local";
    case AddressClass::kCloudMetadata: return "cloud-metadata";
    case AddressClass::kCgnat: return "cgnat";
    case AddressClass::kMulticast: return "multicast";
    case AddressClass::kBroadcast: return "broadcast";
    case AddressClass::kReserved: return "reserved";
    case AddressClass::kDocumentation: return "documentation";
    case AddressClass::kBenchmark: return "benchmark";
    case AddressClass::kIetfProtocol: return "ietf-protocol";
    case AddressClass::kIpv4Compatible: return "ipv4-compatible";
    case AddressClass::kNat64: return "nat64";
    case AddressClass::kSixToFour: return "6to4";
    case AddressClass::kTeredo: return "teredo";
    case AddressClass::kUniqueLocal: return "unique-local";
    case AddressClass::kSiteLocal: return "site-local";
    case AddressClass::kDiscard: return "discard";
  }
  return "unknown";
}

std::string Classification::Describe() const {
  std::string out(AddressClassName(address_class));
  if (!embedded_ipv4.empty()) out += " (embeds " + embedded_ipv4 + ")";
  return out;
}

Classification ClassifyV4(const V4& a) {
  if (In4(a, {0, 0, 0, 0}, 8)) return Of(AddressClass::kUnspecified);
  if (In4(a, {10, 0, 0, 0}, 8)) return Of(AddressClass::kPrivate);
  if (In4(a, {100, 64, 0, 0}, 10)) return Of(AddressClass::kCgnat);
  if (In4(a, {127, 0, 0, 0}, 8)) return Of(AddressClass::kLoopback);
  if (In4(a, {169, 254, 169, 254}, 32)) return Of(AddressClass::kCloudMetadata);
  if (In4(a, {169, 254, 0, 0}, 16)) return Of(AddressClass::kLinkLocal);
  if (In4(a, {172, 16, 0, 0}, 12)) return Of(AddressClass::kPrivate);
  if (In4(a, {192, 0, 0, 0}, 24)) return Of(AddressClass::kIetfProtocol);
  if (In4(a, {192, 0, 2, 0}, 24)) return Of(AddressClass::kDocumentation);
  if (In4(a, {192, 88, 99, 0}, 24)) return Of(AddressClass::kReserved);  // 6to4 relay anycast, deprecated
  if (In4(a, {192, 168, 0, 0}, 16)) return Of(AddressClass::kPrivate);
  if (In4(a, {198, 18, 0, 0}, 15)) return Of(AddressClass::kBenchmark);
  if (In4(a, {198, 51, 100, 0}, 24)) return Of(AddressClass::kDocumentation);
  if (In4(a, {203, 0, 113, 0}, 24)) return Of(AddressClass::kDocumentation);
  if (In4(a, {224, 0, 0, 0}, 4)) return Of(AddressClass::kMulticast);
  if (In4(a, {255, 255, 255, 255}, 32)) return Of(AddressClass::kBroadcast);
  if (In4(a, {240, 0, 0, 0}, 4)) return Of(AddressClass::kReserved);
  return Of(AddressClass::kPublic);
}

Classification ClassifyV6(const V6& a) {
  if (In6(a, {}, 128)) return Of(AddressClass::kUnspecified);
  if (In6(a, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, 128)) return Of(AddressClass::kLoopback);
  if (In6(a, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff}, 96)) {
    Classification inner = ClassifyV4(V4At(a, 12));
    inner.embedded_ipv4 = V4Text(&a[12]);
    return inner;
  }
  if (In6(a, {}, 96)) {
    Classification inner = ClassifyV4(V4At(a, 12));
    if (!inner.forbidden()) inner.address_class = AddressClass::kIpv4Compatible;
    inner.embedded_ipv4 = V4Text(&a[12]);
    return inner;
  }
  if (In6(a, {0x00, 0x64, 0xff, 0x9b}, 96)) return Of(AddressClass::kNat64, V4Text(&a[12]));
  if (In6(a, {0x00, 0x64, 0xff, 0x9b, 0x00, 0x01}, 48)) return Of(AddressClass::kNat64);
  if (In6(a, {0x01, 0x00}, 64)) return Of(AddressClass::kDiscard);
  if (In6(a, {0x20, 0x01, 0x00, 0x00}, 32)) return Of(AddressClass::kTeredo);
  if (In6(a, {0x20, 0x01, 0x00, 0x02, 0x00, 0x00}, 48)) return Of(AddressClass::kBenchmark);
  if (In6(a, {0x20, 0x01, 0x00, 0x00}, 23)) return Of(AddressClass::kIetfProtocol);
  if (In6(a, {0x20, 0x01, 0x0d, 0xb8}, 32)) return Of(AddressClass::kDocumentation);
  // RFC 9637: the second documentation prefix, 3fff::/20 (inside 2000::/3, so
  // it would otherwise be classed public).
  if (In6(a, {0x3f, 0xff, 0x00}, 20)) return Of(AddressClass::kDocumentation);
  if (In6(a, {0x20, 0x02}, 16)) return Of(AddressClass::kSixToFour, V4Text(&a[2]));
  if (In6(a, {0xfd, 0x00, 0x0e, 0xc2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x54}, 128)) {
    return Of(AddressClass::kCloudMetadata);
  }
  if (In6(a, {0xfc}, 7)) return Of(AddressClass::kUniqueLocal);
  if (In6(a, {0xfe, 0x80}, 10)) return Of(AddressClass::kLinkLocal);
  if (In6(a, {0xfe, 0xc0}, 10)) return Of(AddressClass::kSiteLocal);
  if (In6(a, {0xff}, 8)) return Of(AddressClass::kMulticast);
  if (!In6(a, {0x20}, 3)) return Of(AddressClass::kReserved);
  return Of(AddressClass::kPublic);
}

Classification ClassifyAddress(const boost::asio::ip::address& address) {
  if (address.is_v4()) return ClassifyV4(address.to_v4().to_bytes());
  return ClassifyV6(address.to_v6().to_bytes());
}

std::string Cidr::ToString() const { return base.to_string() + "/" + std::to_string(prefix); }

core::Result<Cidr> ParseCidr(std::string_view text) {
  auto invalid = [&](std::string_view why) {
    return core::Error{"\"" + std::string(text) + "\" " + std::string(why), core::ErrorKind::kInvalidArgument};
  };
  const size_t slash = text.find('/');
  if (slash == std::string_view::npos) {
    return invalid("must be ADDRESS/PREFIX, e.g. 10.20.0.0/16");
  }
  std::string_view address = text.substr(0, slash), prefix_text = text.substr(slash + 1);
  Cidr cidr;
  unsigned bits = 0;
  if (address.find(':') != std::string_view::npos) {
    std::optional<boost::asio::ip::address_v6> v6 = ParseIpv6(address);
    if (!v6) {
      return invalid("has an IPv6 address that does not parse");
    }
    cidr.base = *v6;
    bits = 128;
  } else {
    std::optional<boost::asio::ip::address_v4> v4 = ParseCanonicalIpv4(address);
    if (!v4) {
      return invalid("has an IPv4 address that is not a canonical dotted quad");
    }
    cidr.base = *v4;
    bits = 32;
  }
  unsigned prefix = 0;
  bool ok = !prefix_text.empty() && prefix_text.size() <= 3 && (prefix_text.size() == 1 || prefix_text[0] != '0');
  for (char c : prefix_text) {
    if (c < '0' || c > '9') ok = false;
    else prefix = prefix * 10 + static_cast<unsigned>(c - '0');
  }
  if (!ok || prefix > bits) {
    return invalid("has a prefix length that is not 0 to " + std::to_string(bits));
  }
  cidr.prefix = prefix;
  auto host_bits_set = [&](const auto& bytes) {
    for (unsigned bit = prefix; bit < bits; ++bit) {
      if (bytes[bit / 8] & (0x80 >> (bit % 8))) return true;
    }
    return false;
  };
  const bool stray = cidr.base.is_v4() ? host_bits_set(cidr.base.to_v4().to_bytes())
                                       : host_bits_set(cidr.base.to_v6().to_bytes());
  if (stray) {
    return invalid("has address bits set beyond the prefix length");
  }
  return cidr;
}

bool CidrContains(const Cidr& cidr, const boost::asio::ip::address& address) {
  boost::asio::ip::address a = address;
  if (a.is_v6() && a.to_v6().is_v4_mapped()) {
    a = boost::asio::ip::make_address_v4(boost::asio::ip::v4_mapped, a.to_v6());
  }
  if (a.is_v4() != cidr.base.is_v4()) return false;
  if (a.is_v4()) return PrefixEquals(a.to_v4().to_bytes(), cidr.base.to_v4().to_bytes(), cidr.prefix);
  return PrefixEquals(a.to_v6().to_bytes(), cidr.base.to_v6().to_bytes(), cidr.prefix);
}

}  // namespace volent::egress
