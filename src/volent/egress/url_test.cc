// The strict URL reader (url.h).
#include "volent/egress/url.h"

#include <gtest/gtest.h>

namespace volent::egress {
namespace {

Url Ok(std::string_view text) {
  core::Result<Url> parsed = ParseUrl(text);
  EXPECT_TRUE(parsed.ok()) << text << ": " << (parsed.ok() ? "" : parsed.message());
  return parsed.ok() ? *parsed : Url{};
}

std::string Refused(std::string_view text) {
  core::Result<Url> parsed = ParseUrl(text);
  EXPECT_FALSE(parsed.ok()) << text << " was accepted";
  if (parsed.ok()) return "";
  EXPECT_FALSE(parsed.message().empty()) << text;
  return parsed.message();
}

TEST(Url, PlainHttpsNameWithDefaults) {
  Url u = Ok("https://api.example.com");
  EXPECT_EQ(u.scheme, "https");
  EXPECT_EQ(u.host, "api.example.com");
  EXPECT_EQ(u.host_kind, HostKind::kName);
  EXPECT_EQ(u.port, 443);
  EXPECT_FALSE(u.explicit_port);
  EXPECT_EQ(u.target, "/");
  EXPECT_EQ(u.Authority(), "api.example.com");
}

TEST(Url, SchemeAndHostAreLowercased) {
  Url u = Ok("HTTP://API.Example.COM/Path/Keeps/Case?Q=1");
  EXPECT_EQ(u.scheme, "http");
  EXPECT_EQ(u.host, "api.example.com");
  EXPECT_EQ(u.port, 80);
  EXPECT_EQ(u.target, "/Path/Keeps/Case?Q=1");
  EXPECT_EQ(u.Path(), "/Path/Keeps/Case");
}

TEST(Url, ExplicitPortAndQueryWithoutPath) {
  Url u = Ok("http://example.com:8080?x=1");
  EXPECT_EQ(u.port, 8080);
  EXPECT_TRUE(u.explicit_port);
  EXPECT_EQ(u.target, "/?x=1");
  EXPECT_EQ(u.Authority(), "example.com:8080");
  EXPECT_EQ(Ok("https://example.com:443/").Authority(), "example.com");
}

TEST(Url, CanonicalIpv4) {
  Url u = Ok("http://127.0.0.1:8080/a");
  EXPECT_EQ(u.host_kind, HostKind::kIpv4);
  ASSERT_TRUE(u.ip.has_value());
  EXPECT_EQ(u.ip->to_string(), "127.0.0.1");
  EXPECT_EQ(Ok("http://0.0.0.0/").host, "0.0.0.0");
  EXPECT_EQ(Ok("http://255.255.255.255/").host, "255.255.255.255");
}

TEST(Url, Ipv6Literal) {
  Url u = Ok("https://[2001:DB8::1]:8443/x");
  EXPECT_EQ(u.host_kind, HostKind::kIpv6);
  EXPECT_EQ(u.host, "2001:db8::1");
  EXPECT_EQ(u.port, 8443);
  EXPECT_EQ(u.Authority(), "[2001:db8::1]:8443");
  EXPECT_EQ(Ok("http://[::ffff:127.0.0.1]/").host, "::ffff:127.0.0.1");
}

TEST(Url, PercentEncodingInPathIsKept) {
  EXPECT_EQ(Ok("https://example.com/a%20b/c").target, "/a%20b/c");
}

TEST(Url, RefusesOtherSchemes) {
  Refused("ftp://example.com/");
  Refused("file:///etc/passwd");
  Refused("gopher://example.com/");
  Refused("javascript:alert(1)");
  Refused("example.com/path");
  Refused("//example.com/path");
  Refused("https:example.com");
  Refused("");
}

TEST(Url, RefusesOctalHosts) {
  Refused("http://0177.0.0.1/");
  Refused("http://0177.0000.0000.0001/");
  Refused("http://017700000001/");
}

TEST(Url, RefusesHexHosts) {
  Refused("http://0x7f.0.0.1/");
  Refused("http://0x7f.1/");
  Refused("http://0x7f000001/");
  Refused("http://0X7F000001/");
  Refused("http://127.0.0.0x1/");
}

TEST(Url, RefusesShortForms) {
  Refused("http://127.1/");
  Refused("http://127.0.1/");
  Refused("http://10.1/");
}

TEST(Url, RefusesDecimalIntegerHosts) {
  std::string why = Refused("http://2130706433/");
  EXPECT_NE(why.find("canonical"), std::string::npos) << why;
  Refused("http://0/");
  Refused("http://3232235521:80/");
}

TEST(Url, RefusesLeadingZerosAndOutOfRangeOctets) {
  Refused("http://127.0.0.01/");
  Refused("http://127.000.0.1/");
  Refused("http://010.0.0.1/");
  Refused("http://256.0.0.1/");
  Refused("http://1.2.3.4.5/");
  Refused("http://1.2.3.-4/");
}

TEST(Url, RefusesNumericLastLabelOfName) {
  Refused("http://example.123/");
  Refused("http://foo.0x10/");
}

TEST(Url, RefusesUserinfo) {
  std::string why = Refused("http://user:pass@example.com/");
  EXPECT_NE(why.find("user information"), std::string::npos) << why;
  Refused("http://example.com@127.0.0.1/");
  Refused("http://@example.com/");
}

TEST(Url, RefusesEmptyHost) {
  Refused("http:///path");
  Refused("http://:80/");
  Refused("http://");
  Refused("http://[]/");
}

TEST(Url, RefusesPercentEncodedHost) {
  Refused("http://%31%32%37.0.0.1/");
  Refused("http://exa%6dple.com/");
}

TEST(Url, RefusesBackslashes) {
  Refused("http://example.com\\@evil.com/");
  Refused("http://example.com/a\\b");
}

TEST(Url, RefusesWhitespaceAndControls) {
  Refused("http://example.com/a b");
  Refused(" http://example.com/");
  Refused("http://example.com/\t");
  Refused(std::string_view("http://exam\0ple.com/", 20));
  Refused(std::string_view("http://example.com/\0", 20));
  Refused("http://example.com/\x7f");
  Refused("http://ex\xc3\xa4mple.com/");
}

TEST(Url, RefusesCrLf) {
  Refused("http://example.com/\r\nHost: evil.com");
  Refused("http://example.com/%0d%0a\n");
  Refused("http://example.com\r/");
}

TEST(Url, RefusesFragments) {
  Refused("http://example.com/#top");
  Refused("http://example.com#@evil.com/");
}

TEST(Url, RefusesBadPorts) {
  Refused("http://example.com:0/");
  Refused("http://example.com:65536/");
  Refused("http://example.com:080/");
  Refused("http://example.com:+80/");
  Refused("http://example.com:-1/");
  Refused("http://example.com:8a/");
  Refused("http://example.com:/");
  Refused("http://example.com:1:2/");
  Refused("http://example.com:999999/");
  EXPECT_EQ(Ok("http://example.com:65535/").port, 65535);
  EXPECT_EQ(Ok("http://example.com:1/").port, 1);
}

TEST(Url, RefusesTrailingDotAndBadLabels) {
  std::string why = Refused("http://example.com./");
  EXPECT_NE(why.find("trailing dot"), std::string::npos) << why;
  Refused("http://.example.com/");
  Refused("http://a..b/");
  Refused("http://-a.example.com/");
  Refused("http://a-.example.com/");
  Refused("http://under_score.example.com/");
  Refused("http://" + std::string(64, 'a') + ".com/");
  Ok("http://" + std::string(63, 'a') + ".com/");
}

TEST(Url, RefusesBadIpv6Literals) {
  Refused("http://[fe80::1%25eth0]/");
  Refused("http://[fe80::1%eth0]/");
  Refused("http://[::1/");
  Refused("http://[::1]x/");
  Refused("http://[not-v6]/");
  Refused("http://::1/");
  Refused("http://[127.0.0.1]/");
  Refused("http://[::ffff:0177.0.0.1]/");
}

TEST(Url, RefusesDotSegments) {
  Refused("http://example.com/api/../admin");
  Refused("http://example.com/api/./x");
  Refused("http://example.com/api/%2e%2e/admin");
  Refused("http://example.com/api/.%2E/admin");
  Refused("http://example.com/..");
  Ok("http://example.com/a..b/.c/...");
  Ok("http://example.com/x?../y");
}

TEST(Url, RefusesMalformedPercentEncoding) {
  Refused("http://example.com/a%2");
  Refused("http://example.com/a%zz");
}

TEST(Url, RefusesOverlongUrl) {
  Refused("http://example.com/" + std::string(kMaxUrlBytes, 'a'));
}

}  // namespace
}  // namespace volent::egress
