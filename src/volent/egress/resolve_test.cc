// Resolution through a chosen DNS server (resolve.h), against the test DNS
// server on loopback (test_dns_server.h): answers, CNAME chains, errors, a
// server that never answers, TCP after truncation, the dns_server syntax,
// and the asynchronous form.
#include "volent/egress/resolve.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>

#include "volent/egress/test_dns_server.h"

namespace volent::egress {
namespace {

using testing::DnsRecord;
using testing::TestDnsServer;
using Clock = std::chrono::steady_clock;

std::vector<std::string> Texts(const Resolved& r) {
  std::vector<std::string> out;
  for (const auto& a : r.addresses) out.push_back(a.to_string());
  return out;
}

Clock::time_point In(int ms) { return Clock::now() + std::chrono::milliseconds(ms); }

class ResolveWithServer : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(dns.ok()) << "the test DNS server could not bind a port"; }
  Resolved Resolve(const std::string& host, int ms = 5000) { return ResolveHost(host, In(ms), dns.address()); }
  TestDnsServer dns;
};

TEST_F(ResolveWithServer, ARecords) {
  dns.Set("one.test", {DnsRecord::A("192.0.2.10"), DnsRecord::A("192.0.2.11")});
  Resolved r = Resolve("one.test");
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(Texts(r), (std::vector<std::string>{"192.0.2.10", "192.0.2.11"}));
  EXPECT_EQ(dns.Queries("one.test", TestDnsServer::kTypeA), 1);
  EXPECT_EQ(dns.Queries("one.test", TestDnsServer::kTypeAaaa), 1);
}

TEST_F(ResolveWithServer, AaaaRecords) {
  dns.Set("six.test", {DnsRecord::Aaaa("2001:db8::1"), DnsRecord::Aaaa("::1")});
  Resolved r = Resolve("six.test");
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(Texts(r), (std::vector<std::string>{"2001:db8::1", "::1"}));
}

TEST_F(ResolveWithServer, BothFamiliesIPv4First) {
  dns.Set("both.test", {DnsRecord::Aaaa("2001:db8::2"), DnsRecord::A("198.51.100.7")});
  Resolved r = Resolve("both.test");
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(Texts(r), (std::vector<std::string>{"198.51.100.7", "2001:db8::2"}));
}

TEST_F(ResolveWithServer, DuplicatesRemoved) {
  dns.Set("dup.test", {DnsRecord::A("192.0.2.1"), DnsRecord::A("192.0.2.1")});
  Resolved r = Resolve("dup.test");
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(Texts(r), (std::vector<std::string>{"192.0.2.1"}));
}

TEST_F(ResolveWithServer, NamesAreCaseInsensitive) {
  dns.Set("case.test", {DnsRecord::A("192.0.2.5")});
  Resolved r = Resolve("CaSe.TEST");
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(Texts(r), (std::vector<std::string>{"192.0.2.5"}));
}

TEST_F(ResolveWithServer, CnameChainFollowedWithinTheAnswer) {
  dns.Set("a.test", {DnsRecord::Cname("b.test")});
  dns.Set("b.test", {DnsRecord::Cname("c.test")});
  dns.Set("c.test", {DnsRecord::A("10.0.0.5"), DnsRecord::Aaaa("fd00::5")});
  Resolved r = Resolve("a.test");
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(Texts(r), (std::vector<std::string>{"10.0.0.5", "fd00::5"}));
  // One query per type, for the name asked: the chain came in its answer.
  EXPECT_EQ(dns.Queries("a.test"), 2);
  EXPECT_EQ(dns.Queries("b.test"), 0);
  EXPECT_EQ(dns.Queries("c.test"), 0);
}

TEST_F(ResolveWithServer, CnameToNothingIsNoAddress) {
  dns.Set("dangling.test", {DnsRecord::Cname("gone.test")});
  Resolved r = Resolve("dangling.test");
  EXPECT_TRUE(r.addresses.empty());
  EXPECT_NE(r.error.find("no A or AAAA record"), std::string::npos) << r.error;
}

TEST_F(ResolveWithServer, CnameLoopEndsWithoutAddresses) {
  dns.Set("loop1.test", {DnsRecord::Cname("loop2.test")});
  dns.Set("loop2.test", {DnsRecord::Cname("loop1.test")});
  Resolved r = Resolve("loop1.test");
  EXPECT_TRUE(r.addresses.empty());
  EXPECT_NE(r.error, "");
}

TEST_F(ResolveWithServer, NxDomain) {
  Resolved r = Resolve("nowhere.test");
  EXPECT_TRUE(r.addresses.empty());
  EXPECT_NE(r.error.find("NXDOMAIN"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find(dns.address()), std::string::npos) << r.error;
}

TEST_F(ResolveWithServer, KnownNameWithoutRecordsOfEitherType) {
  dns.Set("empty.test", {});
  Resolved r = Resolve("empty.test");
  EXPECT_TRUE(r.addresses.empty());
  EXPECT_NE(r.error.find("no A or AAAA record"), std::string::npos) << r.error;
}

TEST_F(ResolveWithServer, ServFailIsAClearErrorAndNotRetried) {
  dns.SetRcode("broken.test", TestDnsServer::kServFail);
  Resolved r = Resolve("broken.test");
  EXPECT_TRUE(r.addresses.empty());
  EXPECT_NE(r.error.find("SERVFAIL"), std::string::npos) << r.error;
  EXPECT_EQ(dns.Queries("broken.test", TestDnsServer::kTypeA), 1);
}

TEST_F(ResolveWithServer, Refused) {
  dns.SetRcode("closed.test", TestDnsServer::kRefused);
  Resolved r = Resolve("closed.test");
  EXPECT_NE(r.error.find("REFUSED"), std::string::npos) << r.error;
}

TEST_F(ResolveWithServer, SilentNameEndsAtTheDeadline) {
  dns.SetSilent("silent.test");
  const auto deadline = In(300);
  Resolved r = ResolveHost("silent.test", deadline, dns.address());
  EXPECT_TRUE(r.addresses.empty());
  EXPECT_NE(r.error.find("time limit"), std::string::npos) << r.error;
  EXPECT_GE(Clock::now(), deadline);  // it waited for the answer until then, not less
  EXPECT_GE(dns.Queries("silent.test"), 1);
}

TEST_F(ResolveWithServer, TruncatedAnswerAskedAgainOverTcp) {
  dns.SetTruncateUdp(true);
  dns.Set("big.test", {DnsRecord::A("192.0.2.20"), DnsRecord::Aaaa("2001:db8::20")});
  Resolved r = Resolve("big.test");
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(Texts(r), (std::vector<std::string>{"192.0.2.20", "2001:db8::20"}));
  EXPECT_EQ(dns.TcpQueries(), 2);  // A and AAAA
}

TEST_F(ResolveWithServer, LargeAnswerOverTcp) {
  testing::DnsAnswer many;
  for (int i = 1; i <= 60; ++i) many.push_back(DnsRecord::A("192.0.2." + std::to_string(i)));
  dns.Set("many.test", many);
  Resolved r = Resolve("many.test");
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.addresses.size(), 60u);
  EXPECT_GE(dns.TcpQueries(), 1);  // 60 A records do not fit in 512 bytes
}

TEST_F(ResolveWithServer, SequenceChangesTheAnswerBetweenLookups) {
  dns.SetSequence("rebind.test", {{DnsRecord::A("192.0.2.1")}, {DnsRecord::A("127.0.0.1")}});
  EXPECT_EQ(Texts(Resolve("rebind.test")), (std::vector<std::string>{"192.0.2.1"}));
  EXPECT_EQ(Texts(Resolve("rebind.test")), (std::vector<std::string>{"127.0.0.1"}));
  EXPECT_EQ(Texts(Resolve("rebind.test")), (std::vector<std::string>{"127.0.0.1"}));
  EXPECT_EQ(dns.Queries("rebind.test", TestDnsServer::kTypeA), 3);
}

TEST_F(ResolveWithServer, HostsFileIsNotRead) {
  // "localhost" is in /etc/hosts; this server does not know it.
  Resolved r = Resolve("localhost");
  EXPECT_TRUE(r.addresses.empty());
  EXPECT_NE(r.error.find("NXDOMAIN"), std::string::npos) << r.error;
  EXPECT_EQ(dns.Queries("localhost", TestDnsServer::kTypeA), 1);
}

TEST_F(ResolveWithServer, IpLiteralIsNotAskedFor) {
  Resolved r = Resolve("192.0.2.9");
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(Texts(r), (std::vector<std::string>{"192.0.2.9"}));
  EXPECT_EQ(dns.Queries("192.0.2.9"), 0);
}

TEST_F(ResolveWithServer, ServerSurvivesMalformedQueries) {
  int fd = ::socket(AF_INET, SOCK_DGRAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<uint16_t>(dns.port()));
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const std::vector<std::string> junk = {
      "", "x", std::string(11, '\0'),
      std::string("\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00", 12),                // no question
      std::string("\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\xc0\x0c\x00\x01\x00\x01", 18),  // pointer
      std::string("\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x3f" "abc", 16),       // label past the end
      std::string("\x12\x34\x01\x00\x00\x05\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x01", 17),      // 5 questions
      std::string("\x12\x34\x81\x80\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x01", 17),      // a response
      std::string(600, '\xff')};
  for (const auto& j : junk) {
    ::sendto(fd, j.data(), j.size(), 0, reinterpret_cast<sockaddr*>(&to), sizeof(to));
  }
  ::close(fd);
  dns.Set("after.test", {DnsRecord::A("192.0.2.99")});
  Resolved r = Resolve("after.test");
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(Texts(r), (std::vector<std::string>{"192.0.2.99"}));
  EXPECT_GE(dns.Malformed(), 5);
}

TEST(ResolveIpv6Server, AskedOverIpv6) {
  TestDnsServer dns6(TestDnsServer::Family::kIpv6);
  if (!dns6.ok()) GTEST_SKIP() << "no IPv6 loopback on this machine";
  EXPECT_EQ(dns6.address().rfind("[::1]:", 0), 0u);
  EXPECT_EQ(CheckDnsServer(dns6.address()), "");
  dns6.Set("six-server.test", {DnsRecord::A("192.0.2.66"), DnsRecord::Aaaa("2001:db8::66")});
  Resolved r = ResolveHost("six-server.test", In(5000), dns6.address());
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(Texts(r), (std::vector<std::string>{"192.0.2.66", "2001:db8::66"}));
  dns6.SetTruncateUdp(true);  // and TCP over IPv6
  r = ResolveHost("six-server.test", In(5000), dns6.address());
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(dns6.TcpQueries(), 2);
}

TEST(ResolveUnreachable, NobodyListeningIsAnErrorByTheDeadline) {
  // A UDP port bound and never read: queries go nowhere.
  int fd = ::socket(AF_INET, SOCK_DGRAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  const std::string server = "127.0.0.1:" + std::to_string(ntohs(addr.sin_port));
  const auto deadline = In(300);
  Resolved r = ResolveHost("example.test", deadline, server);
  ::close(fd);
  EXPECT_TRUE(r.addresses.empty());
  EXPECT_NE(r.error.find("within the time limit"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find(server), std::string::npos) << r.error;
}

TEST(CheckDnsServer, Accepted) {
  for (const char* ok : {"", "192.0.2.53", "192.0.2.53:5353", "127.0.0.1:53", "[::1]", "[::1]:5353",
                         "[2001:db8::53]:53", "8.8.8.8:65535", "10.0.0.2:1"}) {
    EXPECT_EQ(CheckDnsServer(ok), "") << ok;
  }
}

TEST(CheckDnsServer, Refused) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"dns.example.com", "not an IP address"},
      {"dns.example.com:53", "not an IP address"},
      {"localhost", "would need a"},
      {"::1", "in brackets"},
      {"2001:db8::1:53", "in brackets"},
      {"[::1", "does not close"},
      {"[::1]53", "only \":PORT\""},
      {"[fe80::1%eth0]:53", "zone"},
      {"[::ffff:127.0.0.1]", "plain IPv4"},
      {"[nonsense]", "does not parse"},
      {"192.0.2.53:", "port"},
      {"192.0.2.53:0", "port"},
      {"192.0.2.53:053", "port"},
      {"192.0.2.53:65536", "port"},
      {"192.0.2.53:+53", "port"},
      {"192.0.2.53:5x", "port"},
      {"[::1]:99999", "port"},
      {"0177.0.0.1", "not an IP address"},
      {"127.1", "not an IP address"},
      {"0x7f000001", "not an IP address"},
      {"2130706433", "not an IP address"},
      {"0.0.0.0", "not a destination"},
      {"[::]:53", "not a destination"},
      {"224.0.0.251:5353", "not a destination"},
      {"[ff02::fb]", "not a destination"},
      {"255.255.255.255", "not a destination"},
      {" 192.0.2.53", "not an IP address"},
  };
  for (const auto& [value, phrase] : cases) {
    const std::string problem = CheckDnsServer(value);
    EXPECT_NE(problem.find(phrase), std::string::npos) << value << " -> " << problem;
  }
}

TEST(CheckDnsServer, ResolveRefusesABadServerWithTheSameReason) {
  Resolved r = ResolveHost("example.test", In(1000), "dns.example.com");
  EXPECT_TRUE(r.addresses.empty());
  EXPECT_EQ(r.error, CheckDnsServer("dns.example.com"));
}

struct Waiter {
  std::mutex mutex;
  std::condition_variable cv;
  int calls = 0;
  Resolved result;
  void Done(Resolved r) {
    std::lock_guard<std::mutex> lock(mutex);
    ++calls;
    result = std::move(r);
    cv.notify_all();
  }
  bool WaitFor(int count) {
    std::unique_lock<std::mutex> lock(mutex);
    return cv.wait_for(lock, std::chrono::seconds(30), [&] { return calls >= count; });
  }
};

TEST_F(ResolveWithServer, AsyncAnswersOnce) {
  dns.Set("async.test", {DnsRecord::A("192.0.2.77")});
  Waiter w;
  ResolveHostAsync("async.test", In(5000), dns.address(), [&w](Resolved r) { w.Done(std::move(r)); });
  ASSERT_TRUE(w.WaitFor(1));
  std::lock_guard<std::mutex> lock(w.mutex);
  EXPECT_EQ(w.calls, 1);
  EXPECT_EQ(w.result.error, "");
  EXPECT_EQ(Texts(w.result), (std::vector<std::string>{"192.0.2.77"}));
}

TEST_F(ResolveWithServer, AsyncDoesNotBlockTheCaller) {
  dns.SetSilent("slow.test");
  Waiter w;
  // The caller gets its thread back while the lookup waits for an answer
  // that never comes; `done` is called at the deadline with the error.
  ResolveHostAsync("slow.test", In(400), dns.address(), [&w](Resolved r) { w.Done(std::move(r)); });
  {
    std::lock_guard<std::mutex> lock(w.mutex);
    EXPECT_EQ(w.calls, 0);
  }
  ASSERT_TRUE(w.WaitFor(1));
  std::lock_guard<std::mutex> lock(w.mutex);
  EXPECT_EQ(w.calls, 1);
  EXPECT_NE(w.result.error.find("time limit"), std::string::npos) << w.result.error;
}

TEST(ResolveAsync, BadServerAnswersOnce) {
  Waiter w;
  ResolveHostAsync("example.test", In(1000), "not-an-address", [&w](Resolved r) { w.Done(std::move(r)); });
  ASSERT_TRUE(w.WaitFor(1));
  std::lock_guard<std::mutex> lock(w.mutex);
  EXPECT_EQ(w.calls, 1);
  EXPECT_NE(w.result.error.find("not an IP address"), std::string::npos) << w.result.error;
}

TEST_F(ResolveWithServer, ManyAsyncLookupsEachAnswerOnce) {
  dns.Set("many-async.test", {DnsRecord::A("192.0.2.88")});
  Waiter w;
  constexpr int kLookups = 32;
  for (int i = 0; i < kLookups; ++i) {
    ResolveHostAsync("many-async.test", In(10000), dns.address(), [&w](Resolved r) { w.Done(std::move(r)); });
  }
  ASSERT_TRUE(w.WaitFor(kLookups));
  std::lock_guard<std::mutex> lock(w.mutex);
  EXPECT_EQ(w.calls, kLookups);
  EXPECT_EQ(dns.Queries("many-async.test", TestDnsServer::kTypeA), kLookups);
}

TEST(ResolveSystem, IpLiteralWithTheSystemResolver) {
  Resolved r = ResolveHost("::1", In(1000));
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(Texts(r), (std::vector<std::string>{"::1"}));
}

}  // namespace
}  // namespace volent::egress
