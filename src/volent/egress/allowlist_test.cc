// Allowlist matching and the address rule (allowlist.h).
#include "volent/egress/allowlist.h"

#include <gtest/gtest.h>

namespace volent::egress {
namespace {

using manifest::AllowEntry;
using boost::asio::ip::make_address;

Url U(std::string_view text) {
  core::Result<Url> p = ParseUrl(text);
  EXPECT_TRUE(p.ok()) << text << ": " << (p.ok() ? "" : p.message());
  return p.ok() ? *p : Url{};
}

const std::vector<AllowEntry>& List() {
  static const std::vector<AllowEntry> list = {
      {"payments", "https", "api.stripe.com", "", 0, "/v1/", {"GET", "POST"}},
      {"search", "https", "*.example.com", "", 0, "", {}},
      {"any", "https", "*", "", 0, "", {}},
      {"erp", "http", "", "10.20.0.0/16", 8080, "/api/", {"GET"}},
      {"mixed", "https", "*", "", 0, "", {}},
      {"mixed", "https", "", "10.0.0.0/8", 0, "", {}},
  };
  return list;
}

std::string Denied(std::string_view capability, std::string_view url, std::string_view method = "GET") {
  Candidates c = MatchRequest(List(), capability, U(url), method);
  EXPECT_TRUE(c.entries.empty()) << url;
  return c.deny_reason;
}

TEST(Allowlist, ExactHostMatches) {
  Candidates c = MatchRequest(List(), "payments", U("https://api.stripe.com/v1/charges"), "POST");
  ASSERT_EQ(c.entries.size(), 1u) << c.deny_reason;
  EXPECT_EQ(c.entries[0]->host, "api.stripe.com");
}

TEST(Allowlist, EachMismatchIsNamed) {
  EXPECT_NE(Denied("nope", "https://api.stripe.com/v1/").find("no egress allowlist entry for capability \"nope\""),
            std::string::npos);
  EXPECT_NE(Denied("payments", "http://api.stripe.com/v1/").find("scheme http"), std::string::npos);
  EXPECT_NE(Denied("payments", "https://evil.com/v1/").find("host evil.com"), std::string::npos);
  EXPECT_NE(Denied("payments", "https://api.stripe.com:8443/v1/").find("port 8443"), std::string::npos);
  EXPECT_NE(Denied("payments", "https://api.stripe.com/v2/x").find("path /v2/x"), std::string::npos);
  EXPECT_NE(Denied("payments", "https://api.stripe.com/v1/x", "DELETE").find("method DELETE"), std::string::npos);
  EXPECT_NE(Denied("payments", "https://api.stripe.com/v1/x", "get").find("method get"), std::string::npos);
}

TEST(Allowlist, PathPrefixIgnoresQuery) {
  EXPECT_FALSE(MatchRequest(List(), "payments", U("https://api.stripe.com/v1/x?a=/v2/"), "GET").entries.empty());
  Denied("payments", "https://api.stripe.com/?/v1/");
}

TEST(Allowlist, WildcardSubdomains) {
  Url sub = U("https://a.example.com/");
  Url deep = U("https://a.b.example.com/");
  Url apex = U("https://example.com/");
  Url lookalike = U("https://badexample.com/");
  EXPECT_TRUE(HostPatternMatches("*.example.com", sub));
  EXPECT_TRUE(HostPatternMatches("*.example.com", deep));
  EXPECT_FALSE(HostPatternMatches("*.example.com", apex));
  EXPECT_FALSE(HostPatternMatches("*.example.com", lookalike));
  EXPECT_FALSE(HostPatternMatches("*.example.com", U("https://example.com.evil.net/")));
  EXPECT_TRUE(HostPatternMatches("*", apex));
  EXPECT_TRUE(HostPatternMatches("*", U("https://8.8.8.8/")));
  EXPECT_FALSE(HostPatternMatches("8.8.8.8", U("https://8.8.8.8/")));
  EXPECT_TRUE(HostPatternMatches("example.com", U("https://EXAMPLE.com/")));
}

TEST(Allowlist, CidrEntryMatchesLiteralsInsideAndAnyName) {
  EXPECT_EQ(MatchRequest(List(), "erp", U("http://10.20.1.2:8080/api/orders"), "GET").entries.size(), 1u);
  EXPECT_NE(Denied("erp", "http://10.21.1.2:8080/api/orders").find("host 10.21.1.2"), std::string::npos);
  EXPECT_EQ(MatchRequest(List(), "erp", U("http://erp.internal:8080/api/orders"), "GET").entries.size(), 1u);
  EXPECT_NE(Denied("erp", "http://10.20.1.2/api/orders").find("port 80"), std::string::npos);
}

TEST(Allowlist, HostEntryRefusesAnyForbiddenAddress) {
  const AllowEntry& any = List()[2];
  EXPECT_EQ(JudgeAddresses(any, {make_address("93.184.216.34")}), "");
  std::string why = JudgeAddresses(any, {make_address("93.184.216.34"), make_address("127.0.0.1")});
  EXPECT_NE(why.find("127.0.0.1 is loopback"), std::string::npos) << why;
  why = JudgeAddresses(any, {make_address("169.254.169.254")});
  EXPECT_NE(why.find("cloud-metadata"), std::string::npos) << why;
  why = JudgeAddresses(any, {make_address("::ffff:10.0.0.1")});
  EXPECT_NE(why.find("private (embeds 10.0.0.1)"), std::string::npos) << why;
  EXPECT_NE(JudgeAddresses(any, {}), "");
}

TEST(Allowlist, CidrEntryNeedsEveryAddressInside) {
  const AllowEntry& erp = List()[3];
  EXPECT_EQ(JudgeAddresses(erp, {make_address("10.20.0.5")}), "");
  EXPECT_EQ(JudgeAddresses(erp, {make_address("10.20.0.5"), make_address("::ffff:10.20.0.6")}), "");
  std::string why = JudgeAddresses(erp, {make_address("10.20.0.5"), make_address("10.30.0.5")});
  EXPECT_NE(why.find("10.30.0.5 is outside cidr entry 10.20.0.0/16"), std::string::npos) << why;
  AllowEntry everything{"all", "http", "", "0.0.0.0/0", 0, "", {}};
  EXPECT_NE(JudgeAddresses(everything, {make_address("255.255.255.255")}), "");
  EXPECT_NE(JudgeAddresses(everything, {make_address("0.0.0.0")}), "");
  EXPECT_NE(JudgeAddresses(everything, {make_address("224.0.0.1")}), "");
  EXPECT_EQ(JudgeAddresses(everything, {make_address("127.0.0.1")}), "");
}

TEST(Allowlist, CidrOpensWhatAWildcardMayNot) {
  Candidates c = MatchRequest(List(), "mixed", U("https://erp.internal/"), "GET");
  ASSERT_EQ(c.entries.size(), 2u);
  Judgement inside = JudgeCandidates(c, {make_address("10.1.2.3")});
  ASSERT_NE(inside.entry, nullptr) << inside.deny_reason;
  EXPECT_EQ(inside.entry->cidr, "10.0.0.0/8");
  Judgement outside = JudgeCandidates(c, {make_address("192.168.1.1")});
  EXPECT_EQ(outside.entry, nullptr);
  EXPECT_NE(outside.deny_reason.find("192.168.1.1 is private"), std::string::npos) << outside.deny_reason;
  EXPECT_NE(outside.deny_reason.find("outside cidr entry 10.0.0.0/8"), std::string::npos) << outside.deny_reason;
  Judgement public_address = JudgeCandidates(c, {make_address("93.184.216.34")});
  ASSERT_NE(public_address.entry, nullptr);
  EXPECT_EQ(public_address.entry->host, "*");
}

}  // namespace
}  // namespace volent::egress
