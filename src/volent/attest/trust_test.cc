// The trust configuration: the DNS server as a policy compares it, and the
// TLS roots digested so that a certificate added, changed or linked to
// another file changes what is measured.
#include "volent/attest/trust.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "volent/attest/node_pcr.h"

namespace volent::attest {
namespace {

TEST(TrustTest, TheDnsServerWithItsPortMadeExplicit) {
  EXPECT_EQ(DnsServerName(""), "system");
  EXPECT_EQ(DnsServerName("192.0.2.53"), "192.0.2.53:53");
  EXPECT_EQ(DnsServerName("192.0.2.53:5353"), "192.0.2.53:5353");
  EXPECT_EQ(DnsServerName("[2001:db8::53]"), "[2001:db8::53]:53");
  EXPECT_EQ(DnsServerName("[2001:db8::53]:53"), "[2001:db8::53]:53");
  TrustSettings a, b;
  a.dns_server = "192.0.2.53";
  b.dns_server = "198.51.100.53";
  EXPECT_EQ(TrustDocument(a)["egress"]["dns_server"], "192.0.2.53:53");
  EXPECT_NE(DocumentDigest(TrustDocument(a)), DocumentDigest(TrustDocument(b)));
  EXPECT_EQ(TrustDocument(a)["egress"]["proxy"], "none");
}

TEST(TrustTest, EveryRootCertificateCounts) {
  char tmpl[] = "/tmp/tls-roots-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  std::filesystem::create_directories(dir + "/certs");
  std::ofstream(dir + "/bundle.pem") << "bundle";
  std::ofstream(dir + "/certs/a.pem") << "a";
  const TlsRoots before = ReadTlsRoots(dir + "/bundle.pem", dir + "/certs");
  EXPECT_EQ(before.file_sha256.size(), 64u);
  EXPECT_EQ(before.dir_sha256.size(), 64u);
  std::ofstream(dir + "/certs/b.pem") << "b";  // a root added
  const TlsRoots added = ReadTlsRoots(dir + "/bundle.pem", dir + "/certs");
  EXPECT_NE(added.dir_sha256, before.dir_sha256);
  std::filesystem::create_symlink(dir + "/certs/b.pem", dir + "/certs/1234abcd.0");  // OpenSSL's hashed name
  const TlsRoots linked = ReadTlsRoots(dir + "/bundle.pem", dir + "/certs");
  EXPECT_NE(linked.dir_sha256, added.dir_sha256);
  std::ofstream(dir + "/certs/b.pem") << "B";  // the file a link leads to changed
  EXPECT_NE(ReadTlsRoots(dir + "/bundle.pem", dir + "/certs").dir_sha256, linked.dir_sha256);
  std::ofstream(dir + "/bundle.pem") << "other";
  EXPECT_NE(ReadTlsRoots(dir + "/bundle.pem", dir + "/certs").file_sha256, before.file_sha256);
  EXPECT_EQ(ReadTlsRoots(dir + "/missing.pem", dir + "/none").file_sha256, "");
  std::filesystem::remove_all(dir);
  // The machine's own: named, whatever they hold.
  const TlsRoots own = DefaultTlsRoots();
  EXPECT_NE(own.file, "");
  EXPECT_NE(own.dir, "");
}

}  // namespace
}  // namespace volent::attest
