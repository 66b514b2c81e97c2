// Redirect targets resolved against the current URL (location.h).
#include "volent/egress/location.h"

#include <gtest/gtest.h>

namespace volent::egress {
namespace {

Url Base(std::string_view text) {
  core::Result<Url> parsed = ParseUrl(text);
  EXPECT_TRUE(parsed.ok()) << (parsed.ok() ? "" : parsed.message());
  return parsed.ok() ? *parsed : Url{};
}

std::string Resolve(std::string_view base, std::string_view location) {
  core::Result<std::string> target = ResolveLocation(Base(base), location);
  return target.ok() ? *target : "error: " + target.message();
}

TEST(Location, AbsoluteUrlsAreKeptAsWritten) {
  EXPECT_EQ(Resolve("http://a.example/x", "https://b.example:8443/y?z=1"), "https://b.example:8443/y?z=1");
  EXPECT_EQ(Resolve("http://a.example/x", "HTTP://B.example/"), "HTTP://B.example/");
  // Judged later by the strict reader, not repaired here:
  EXPECT_EQ(Resolve("http://a.example/x", "http://0x7f.1/"), "http://0x7f.1/");
  EXPECT_EQ(Resolve("http://a.example/x", "http://b.example/a/../admin"), "http://b.example/a/../admin");
  EXPECT_EQ(Resolve("http://a.example/x", "file:///etc/passwd"), "file:///etc/passwd");
  EXPECT_EQ(Resolve("http://a.example/x", "gopher://b.example/"), "gopher://b.example/");
}

TEST(Location, NetworkPathTakesTheCurrentScheme) {
  EXPECT_EQ(Resolve("https://a.example/x", "//b.example/y"), "https://b.example/y");
  EXPECT_EQ(Resolve("http://a.example/x", "//127.0.0.1:8080"), "http://127.0.0.1:8080");
}

TEST(Location, AbsolutePathKeepsTheOrigin) {
  EXPECT_EQ(Resolve("http://a.example:8080/x/y?q", "/login?next=%2F"), "http://a.example:8080/login?next=%2F");
  EXPECT_EQ(Resolve("https://a.example/x", "/"), "https://a.example/");
  EXPECT_EQ(Resolve("http://[2001:db8::1]:81/x", "/y"), "http://[2001:db8::1]:81/y");
  EXPECT_EQ(Resolve("http://127.0.0.1:80/x", "/y"), "http://127.0.0.1/y");
  EXPECT_EQ(Resolve("http://a.example/x", "/a/./b/../c"), "http://a.example/a/c");
  EXPECT_EQ(Resolve("http://a.example/x", "/../../etc"), "http://a.example/etc");
}

TEST(Location, QueryAndEmptyReferences) {
  EXPECT_EQ(Resolve("http://a.example/x/y?old", "?page=2"), "http://a.example/x/y?page=2");
  EXPECT_EQ(Resolve("http://a.example/x/y?old", "#top"), "http://a.example/x/y?old");
}

TEST(Location, RelativePathsMergeWithTheFolder) {
  EXPECT_EQ(Resolve("http://a.example/x/y", "z"), "http://a.example/x/z");
  EXPECT_EQ(Resolve("http://a.example/x/y/", "z?q=1"), "http://a.example/x/y/z?q=1");
  EXPECT_EQ(Resolve("http://a.example/x/y", "../z"), "http://a.example/z");
  EXPECT_EQ(Resolve("http://a.example/x/y", "./"), "http://a.example/x/");
  EXPECT_EQ(Resolve("http://a.example/x/y", ".."), "http://a.example/");
  EXPECT_EQ(Resolve("http://a.example/", "../../../z"), "http://a.example/z");
  EXPECT_EQ(Resolve("http://a.example/x", "b:c/d"), "b:c/d");  // a scheme "b": refused later
  // Percent-encoded dots are not resolved here; the strict reader refuses them.
  EXPECT_EQ(Resolve("http://a.example/x/y", "%2e%2e/z"), "http://a.example/x/%2e%2e/z");
}

TEST(Location, FragmentsAreCut) {
  EXPECT_EQ(Resolve("http://a.example/x", "https://b.example/y#frag"), "https://b.example/y");
  EXPECT_EQ(Resolve("http://a.example/x", "/y#@evil.example"), "http://a.example/y");
}

TEST(Location, OddLocationsAreRefused) {
  for (std::string_view bad : std::initializer_list<std::string_view>{"", "/\\evil.example", "\\\\evil.example/", "/a b", "/a\tb", "/caf\xc3\xa9",
                               std::string_view("/a\0b", 4), "/a\r\nSet-Cookie: x", "1http://b.example/",
                               ":foo", "-x:y"}) {
    EXPECT_EQ(Resolve("http://a.example/x", bad).substr(0, 7), "error: ") << bad;
  }
  EXPECT_NE(Resolve("http://a.example/x", "/\\evil.example").find("backslash"), std::string::npos);
  EXPECT_NE(Resolve("http://a.example/x", "").find("empty"), std::string::npos);
  EXPECT_NE(Resolve("http://a.example/x", "/" + std::string(kMaxUrlBytes, 'a')).find("longer"), std::string::npos);
}

TEST(Location, RemoveDotSegmentsFollowsRfc3986) {
  // RFC 3986 section 5.2.4 and 5.4's examples.
  EXPECT_EQ(RemoveDotSegments("/a/b/c/./../../g"), "/a/g");
  EXPECT_EQ(RemoveDotSegments("mid/content=5/../6"), "mid/6");
  EXPECT_EQ(RemoveDotSegments("/b/c/."), "/b/c/");
  EXPECT_EQ(RemoveDotSegments("/b/c/.."), "/b/");
  EXPECT_EQ(RemoveDotSegments("/b/c/../.."), "/");
  EXPECT_EQ(RemoveDotSegments("/.."), "/");
  EXPECT_EQ(RemoveDotSegments("/b/c/g."), "/b/c/g.");
  EXPECT_EQ(RemoveDotSegments("/b/c/..g"), "/b/c/..g");
  EXPECT_EQ(RemoveDotSegments("/b/c/./g/."), "/b/c/g/");
  EXPECT_EQ(RemoveDotSegments("/b/c/g/../h"), "/b/c/h");
  EXPECT_EQ(RemoveDotSegments(""), "");
}

TEST(Url, ToStringIsWhatTheGateRead) {
  EXPECT_EQ(Base("HTTP://A.Example:80/x?y").ToString(), "http://a.example/x?y");
  EXPECT_EQ(Base("https://[2001:DB8::1]:8443").ToString(), "https://[2001:db8::1]:8443/");
}

}  // namespace
}  // namespace volent::egress
