// volent-init's reading of the kernel command line: the test switch found
// among the kernel's own parameters, quoting as the kernel splits words, and
// an unknown test named in the error.
#include "volent/init/cmdline.h"

#include <gtest/gtest.h>

namespace volent::init {
namespace {

TEST(InitCmdlineTest, NoSwitchIsNormalLife) {
  auto o = ParseCmdline("console=ttyS0 panic=-1 quiet\n");
  ASSERT_TRUE(o.ok()) << o.message();
  EXPECT_EQ(o->test, TestMode::kNone);
  EXPECT_EQ(ParseCmdline("")->test, TestMode::kNone);
}

TEST(InitCmdlineTest, HeartbeatSwitchAmongKernelParameters) {
  auto o = ParseCmdline("console=ttyS0 volent.test=heartbeat panic=-1\n");
  ASSERT_TRUE(o.ok()) << o.message();
  EXPECT_EQ(o->test, TestMode::kHeartbeat);
  EXPECT_EQ(ParseCmdline("\tvolent.test=heartbeat")->test, TestMode::kHeartbeat);
  EXPECT_EQ(ParseCmdline("volent.test=checks")->test, TestMode::kChecks);
  EXPECT_EQ(ParseCmdline("volent.test=stop")->test, TestMode::kStop);
}

TEST(InitCmdlineTest, QuotedValuesAreOneWord) {
  // The switch inside another parameter's quoted value is not the switch.
  auto o = ParseCmdline("dyndbg=\"x volent.test=heartbeat\" quiet");
  ASSERT_TRUE(o.ok()) << o.message();
  EXPECT_EQ(o->test, TestMode::kNone);
  EXPECT_EQ(ParseCmdline("volent.test=\"heartbeat\"")->test, TestMode::kHeartbeat);
}

TEST(InitCmdlineTest, SimilarNamesAreNotTheSwitch) {
  auto o = ParseCmdline("xvolent.test=heartbeat");
  ASSERT_TRUE(o.ok()) << o.message();
  EXPECT_EQ(o->test, TestMode::kNone);
  EXPECT_EQ(o->module_parameters["xvolent"], "test=heartbeat");
  // An unknown volent.* parameter is refused, not ignored: it may be a typo
  // of one that decides what the root is.
  EXPECT_FALSE(ParseCmdline("volent.testing=1").ok());
  EXPECT_FALSE(ParseCmdline("volent.roothsh=00").ok());
}

constexpr char kHash[] = "56f6100ab1c91b8f98d84ef3cdb66451c630ce4e025d37c57d3e103d7c86f566";

std::string VerityLine(const std::string& extra = "") {
  return std::string("console=ttyS0 volent.roothash=") + kHash +
         " volent.salt=bdec volent.data_blocks=4215 volent.hash_start=4215 " + extra;
}

TEST(InitCmdlineTest, VerityRootFromTheCommandLine) {
  auto o = ParseCmdline(VerityLine("volent.ip=10.0.2.15/24 volent.gateway=10.0.2.2 volent.test=checks"));
  ASSERT_TRUE(o.ok()) << o.message();
  ASSERT_TRUE(o->root.has_value());
  EXPECT_EQ(o->root->roothash, kHash);
  EXPECT_EQ(o->root->salt, "bdec");
  EXPECT_EQ(o->root->data_blocks, 4215u);
  EXPECT_EQ(o->root->hash_start, 4215u);
  EXPECT_EQ(o->root->device, "/dev/vda");
  EXPECT_EQ(o->data_device, "/dev/vdb");
  EXPECT_EQ(o->test, TestMode::kChecks);
  ASSERT_TRUE(o->network.has_value());
  EXPECT_EQ(o->network->address, "10.0.2.15");
  EXPECT_EQ(o->network->prefix, 24);
  EXPECT_EQ(o->network->gateway, "10.0.2.2");
  EXPECT_FALSE(ParseCmdline("console=ttyS0")->root.has_value());
}

TEST(InitCmdlineTest, AMalformedRootIsRefusedNotGuessed) {
  const std::string bad[] = {
      VerityLine("volent.roothash=" + std::string(63, 'a')),  // short
      VerityLine("volent.roothash=" + std::string(64, 'A')),  // upper case
      VerityLine("volent.salt=xyz"),
      VerityLine("volent.salt=abc"),  // odd digits
      VerityLine("volent.data_blocks=0"),
      VerityLine("volent.data_blocks=-1"),
      VerityLine("volent.hash_start=12"),  // inside the data
      VerityLine("volent.data_blocks=0042"),
      VerityLine("volent.root=/dev/../etc/x"),
      VerityLine("volent.root=vda"),
      VerityLine("volent.data=/dev/vd/b"),
      VerityLine("volent.ip=10.0.2.300/24"),
      VerityLine("volent.ip=10.0.2.15/31"),
      VerityLine("volent.gateway=host"),
      std::string("volent.roothash=") + kHash,  // no salt, blocks, start
      "volent.salt=00 volent.data_blocks=1 volent.hash_start=1",  // no root hash
      "volent.gateway=10.0.2.2",  // a route without an address
  };
  for (const std::string& line : bad) EXPECT_FALSE(ParseCmdline(line).ok()) << line;
}

TEST(InitCmdlineTest, ModuleParametersCollectedForTheLoader) {
  auto o = ParseCmdline("virtio_mmio.device=512@0xfeb00e00:12 virtio-mmio.device=512@0xfeb00c00:11 quiet");
  ASSERT_TRUE(o.ok()) << o.message();
  EXPECT_EQ(o->module_parameters["virtio_mmio"], "device=512@0xfeb00e00:12 device=512@0xfeb00c00:11");
}

TEST(InitCmdlineTest, UnknownTestIsNamed) {
  auto o = ParseCmdline("volent.test=reboot");
  ASSERT_FALSE(o.ok());
  EXPECT_NE(o.message().find("volent.test=reboot"), std::string::npos) << o.message();
  EXPECT_NE(o.message().find("heartbeat"), std::string::npos) << o.message();
  EXPECT_FALSE(ParseCmdline("volent.test=").ok());
}

TEST(InitCmdlineTest, KeyProvenanceIsOneOfTwoWords) {
  auto o = ParseCmdline("volent.keys=dev-only");
  ASSERT_TRUE(o.ok()) << o.message();
  EXPECT_EQ(o->keys, "dev-only");
  EXPECT_EQ(ParseCmdline("volent.keys=production")->keys, "production");
  EXPECT_EQ(ParseCmdline("quiet")->keys, "");
  auto bad = ParseCmdline("volent.keys=trusted");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("dev-only, production"), std::string::npos) << bad.message();
}

}  // namespace
}  // namespace volent::init
