// core::ParseHostPort: the forms every address option accepts, and the ones
// it refuses whatever the caller's port rule.
#include "core/host_port.h"

#include <gtest/gtest.h>

namespace core {
namespace {

TEST(HostPortTest, AcceptsNamesIpv4AndBracketedIpv6) {
  auto a = ParseHostPort("127.0.0.1:8470");
  ASSERT_TRUE(a.ok()) << a.message();
  EXPECT_EQ(a->host, "127.0.0.1");
  EXPECT_EQ(a->port, 8470);
  EXPECT_FALSE(a->ipv6);
  auto b = ParseHostPort("[::1]:65535");
  ASSERT_TRUE(b.ok()) << b.message();
  EXPECT_EQ(b->host, "::1");
  EXPECT_EQ(b->port, 65535);
  EXPECT_TRUE(b->ipv6);
  auto c = ParseHostPort("model.example:443");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->host, "model.example");
}

TEST(HostPortTest, PortRules) {
  EXPECT_FALSE(ParseHostPort("127.0.0.1:0").ok());
  auto any = ParseHostPort("127.0.0.1:0", PortRule::kRequiredOrAny);
  ASSERT_TRUE(any.ok());
  EXPECT_EQ(any->port, 0);
  EXPECT_EQ(ParseHostPort("localhost").message(), "must be HOST:PORT");
  EXPECT_EQ(ParseHostPort("[::1]").message(), "must be HOST:PORT");
  auto bare = ParseHostPort("192.0.2.53", PortRule::kOptional);
  ASSERT_TRUE(bare.ok());
  EXPECT_FALSE(bare->has_port);
  EXPECT_EQ(bare->port, 0);
  auto v6 = ParseHostPort("[2001:db8::53]", PortRule::kOptional);
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(v6->host, "2001:db8::53");
  EXPECT_FALSE(ParseHostPort("192.0.2.53:0", PortRule::kOptional).ok());
}

TEST(HostPortTest, RefusesWhatCouldBeReadTwoWays) {
  const struct {
    const char* text;
    const char* why;
  } cases[] = {
      {"::1:53", "must put an IPv6 address in brackets"},
      {"2001:db8::1", "must put an IPv6 address in brackets"},
      {"[::1", "does not close it"},
      {"[::1]53", "only \":PORT\" after ]"},
      {"[::1]x:53", "only \":PORT\" after ]"},
      {"[fe80::1%eth0]:53", "has a zone"},
      {"[127.0.0.1]:53", "IPv6 address that does not parse"},
      {"[]:53", "IPv6 address that does not parse"},
      {":8470", "has no host"},
      {"host:", "not 1 to 65535"},
      {"host:08470", "not 1 to 65535"},
      {"host:+80", "not 1 to 65535"},
      {"host:-1", "not 1 to 65535"},
      {"host:65536", "not 1 to 65535"},
      {"host:123456", "not 1 to 65535"},
      {"host:80 ", "not 1 to 65535"},
      {"host:0x50", "not 1 to 65535"},
  };
  for (const auto& c : cases) {
    for (PortRule rule : {PortRule::kRequired, PortRule::kRequiredOrAny, PortRule::kOptional}) {
      auto parsed = ParseHostPort(c.text, rule);
      ASSERT_FALSE(parsed.ok()) << c.text;
      EXPECT_EQ(parsed.kind(), ErrorKind::kInvalidArgument);
      if (std::string_view(c.why).starts_with("not 1 to") && rule == PortRule::kRequiredOrAny) continue;
      EXPECT_NE(parsed.message().find(c.why), std::string::npos) << c.text << ": " << parsed.message();
    }
  }
}

TEST(HostPortTest, FormatsWhatItParses) {
  EXPECT_EQ(FormatHostPort("127.0.0.1", 8470), "127.0.0.1:8470");
  EXPECT_EQ(FormatHostPort("example.com", 443), "example.com:443");
  EXPECT_EQ(FormatHostPort("::1", 53), "[::1]:53");
  for (const char* text : {"127.0.0.1:8470", "[::1]:53", "[2001:db8::1]:443"}) {
    Result<HostPort> parsed = ParseHostPort(text);
    ASSERT_TRUE(parsed.ok()) << text;
    EXPECT_EQ(FormatHostPort(parsed->host, parsed->port), text);
  }
}

}  // namespace
}  // namespace core
