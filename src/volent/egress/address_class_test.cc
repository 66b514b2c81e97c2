// Address classes and CIDR ranges (address_class.h).
#include "volent/egress/address_class.h"

#include <gtest/gtest.h>

#include <cstdio>

namespace volent::egress {
namespace {

std::string ClassOf(std::string_view text) {
  boost::system::error_code ec;
  boost::asio::ip::address a = boost::asio::ip::make_address(std::string(text), ec);
  EXPECT_FALSE(ec) << text;
  return std::string(AddressClassName(ClassifyAddress(a).address_class));
}

struct Row {
  const char* address;
  const char* expected;
};

void ExpectAll(std::initializer_list<Row> rows) {
  for (const Row& r : rows) EXPECT_EQ(ClassOf(r.address), r.expected) << r.address;
}

TEST(AddressClass, Ipv4Ranges) {
  ExpectAll({
      {"8.8.8.8", "public"},           {"1.1.1.1", "public"},
      {"127.0.0.1", "loopback"},       {"127.255.255.254", "loopback"},
      {"0.0.0.0", "unspecified"},      {"0.1.2.3", "unspecified"},
      {"10.0.0.1", "private"},         {"10.255.255.255", "private"},
      {"172.16.0.1", "private"},       {"172.31.255.255", "private"},
      {"172.15.255.255", "public"},    {"172.32.0.0", "public"},
      {"192.168.1.1", "private"},      {"169.254.1.1", "link-local"},
      {"169.254.169.254", "cloud-metadata"},
      {"100.64.0.1", "cgnat"},         {"100.127.255.255", "cgnat"},
      {"100.63.255.255", "public"},    {"100.128.0.0", "public"},
      {"224.0.0.1", "multicast"},      {"239.255.255.255", "multicast"},
      {"255.255.255.255", "broadcast"},
      {"240.0.0.1", "reserved"},       {"255.255.255.254", "reserved"},
      {"192.0.2.1", "documentation"},  {"198.51.100.7", "documentation"},
      {"203.0.113.9", "documentation"},
      {"198.18.0.1", "benchmark"},     {"198.19.255.255", "benchmark"},
      {"198.20.0.0", "public"},        {"192.0.0.8", "ietf-protocol"},
      {"192.0.1.0", "public"},
  });
}

TEST(AddressClass, Ipv6Ranges) {
  ExpectAll({
      {"2606:4700::1111", "public"},   {"2a00:1450:4001::200e", "public"},
      {"::1", "loopback"},             {"::", "unspecified"},
      {"fe80::1", "link-local"},       {"febf::1", "link-local"},
      {"ff02::1", "multicast"},        {"ff0e::1", "multicast"},
      {"2001:db8::1", "documentation"},
      {"3fff::1", "documentation"},    {"3fff:fff:ffff:ffff::1", "documentation"},
      {"3ffe:ffff::1", "public"},      {"3fff:1000::1", "public"},  // either side of 3fff::/20
      {"64:ff9b::808:808", "nat64"},   {"64:ff9b:1::1", "nat64"},
      {"2002:0808:0808::1", "6to4"},   {"2002:7f00:1::1", "6to4"},
      {"2001::1", "teredo"},           {"2001:0:4136:e378::1", "teredo"},
      {"fc00::1", "unique-local"},     {"fd12:3456::1", "unique-local"},
      {"fd00:ec2::254", "cloud-metadata"},
      {"fec0::1", "site-local"},       {"100::1", "discard"},
      {"2001:2::1", "benchmark"},      {"2001:1::1", "ietf-protocol"},
      {"4000::1", "reserved"},         {"::ffff:0:7f00:1", "reserved"},
  });
}

TEST(AddressClass, Ipv4MappedTakesTheEmbeddedClass) {
  ExpectAll({
      {"::ffff:127.0.0.1", "loopback"},
      {"::ffff:10.1.2.3", "private"},
      {"::ffff:169.254.169.254", "cloud-metadata"},
      {"::ffff:0.0.0.0", "unspecified"},
      {"::ffff:100.64.0.1", "cgnat"},
      {"::ffff:8.8.8.8", "public"},  // reaches 8.8.8.8 over IPv4: the same as the v4 form
  });
  boost::asio::ip::address a = boost::asio::ip::make_address("::ffff:127.0.0.1");
  EXPECT_EQ(ClassifyAddress(a).Describe(), "loopback (embeds 127.0.0.1)");
}

TEST(AddressClass, EveryIpv4RangeKeepsItsClassInItsIpv6Forms) {
  for (const char* v4 : {"127.0.0.1", "0.0.0.0", "10.0.0.1", "172.16.0.1", "192.168.0.1", "169.254.1.1",
                         "169.254.169.254", "100.64.0.1", "224.0.0.1", "255.255.255.255", "240.0.0.1",
                         "192.0.2.1", "198.51.100.1", "203.0.113.1", "198.18.0.1", "192.0.0.1"}) {
    const std::string expected = ClassOf(v4);
    EXPECT_NE(expected, "public") << v4;
    EXPECT_EQ(ClassOf(std::string("::ffff:") + v4), expected) << "mapped " << v4;
    if (expected != "unspecified") {  // ::0.0.0.0 is :: itself, and ::0.0.0.1 is ::1
      EXPECT_EQ(ClassOf(std::string("::") + v4), expected) << "compatible " << v4;
    }
    boost::asio::ip::address_v4::bytes_type b = boost::asio::ip::make_address_v4(v4).to_bytes();
    char sixtofour[64];
    std::snprintf(sixtofour, sizeof sixtofour, "2002:%02x%02x:%02x%02x::1", b[0], b[1], b[2], b[3]);
    EXPECT_EQ(ClassOf(sixtofour), "6to4") << sixtofour;
    EXPECT_EQ(ClassOf(std::string("64:ff9b::") + v4), "nat64") << v4;
  }
}

TEST(AddressClass, Ipv4CompatibleIsNeverPublic) {
  ExpectAll({
      {"::127.0.0.1", "loopback"},
      {"::10.0.0.1", "private"},
      {"::169.254.169.254", "cloud-metadata"},
      {"::8.8.8.8", "ipv4-compatible"},
  });
}

TEST(AddressClass, EmbeddedAddressIsNamed) {
  EXPECT_EQ(ClassifyAddress(boost::asio::ip::make_address("2002:7f00:1::1")).Describe(), "6to4 (embeds 127.0.0.1)");
  EXPECT_EQ(ClassifyAddress(boost::asio::ip::make_address("64:ff9b::a00:1")).Describe(), "nat64 (embeds 10.0.0.1)");
  EXPECT_TRUE(ClassifyAddress(boost::asio::ip::make_address("64:ff9b::808:808")).forbidden());
  EXPECT_FALSE(ClassifyAddress(boost::asio::ip::make_address("8.8.8.8")).forbidden());
}

TEST(AddressClass, EveryClassHasAName) {
  for (int c = 0; c <= static_cast<int>(AddressClass::kDiscard); ++c) {
    EXPECT_NE(AddressClassName(static_cast<AddressClass>(c)), "unknown") << c;
  }
}

TEST(Cidr, ParsesAndContains) {
  core::Result<Cidr> c = ParseCidr("10.20.0.0/16");
  ASSERT_TRUE(c.ok()) << c.message();
  EXPECT_EQ(c->ToString(), "10.20.0.0/16");
  EXPECT_TRUE(CidrContains(*c, boost::asio::ip::make_address("10.20.255.1")));
  EXPECT_FALSE(CidrContains(*c, boost::asio::ip::make_address("10.21.0.1")));
  EXPECT_TRUE(CidrContains(*c, boost::asio::ip::make_address("::ffff:10.20.1.1")));  // reaches 10.20.1.1
  EXPECT_FALSE(CidrContains(*c, boost::asio::ip::make_address("::10.20.1.1")));

  core::Result<Cidr> v6 = ParseCidr("fd00:1234::/32");
  ASSERT_TRUE(v6.ok()) << v6.message();
  EXPECT_TRUE(CidrContains(*v6, boost::asio::ip::make_address("fd00:1234:5::1")));
  EXPECT_FALSE(CidrContains(*v6, boost::asio::ip::make_address("fd00:1235::1")));
  EXPECT_FALSE(CidrContains(*v6, boost::asio::ip::make_address("10.0.0.1")));

  core::Result<Cidr> all = ParseCidr("0.0.0.0/0");
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(CidrContains(*all, boost::asio::ip::make_address("203.0.113.1")));
  core::Result<Cidr> one = ParseCidr("127.0.0.1/32");
  ASSERT_TRUE(one.ok());
  EXPECT_TRUE(CidrContains(*one, boost::asio::ip::make_address("127.0.0.1")));
  EXPECT_FALSE(CidrContains(*one, boost::asio::ip::make_address("127.0.0.2")));
}

TEST(Cidr, RefusesMalformedRanges) {
  for (const char* bad : {"10.0.0.0", "10.0.0.0/", "10.0.0.0/33", "10.0.0.0/08", "10.0.0.1/8", "010.0.0.0/8",
                          "10.0/8", "0x0a.0.0.0/8", "10.0.0.0/-1", "10.0.0.0/8/8", "::1/129", "fe80::1%1/64",
                          "fd00::1/64", "/8", "", "10.0.0.0/ 8"}) {
    core::Result<Cidr> c = ParseCidr(bad);
    ASSERT_FALSE(c.ok()) << bad;
    EXPECT_FALSE(c.message().empty()) << bad;
  }
}

}  // namespace
}  // namespace volent::egress
