// The boot record is believed only when the machine agrees with it: a
// record alone (anyone root on an ordinary host can write one) or one the
// mounts contradict gives the unsealed profile.
#include "volent/attest/platform_facts.h"

#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace volent::attest {
namespace {

constexpr char kHash[] = "56f6100ab1c91b8f98d84ef3cdb66451c630ce4e025d37c57d3e103d7c86f566";

class BootFactsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/boot-facts-XXXXXX";
    dir_ = mkdtemp(tmpl);
    std::filesystem::create_directories(dir_ + "/block/254:0/dm");
    Write("block/254:0/dm/name", "volent-root\n");
    Write("record.json", Record(kHash, "V"));
    Write("mountinfo", "21 1 254:0 / / ro,nodev,relatime - squashfs /dev/dm-0 ro\n"
                       "22 21 253:16 / /data rw,nosuid,nodev,noexec - ext4 /dev/vdb rw\n");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  static std::string Record(const std::string& hash, const std::string& status) {
    return R"({"profile": "verity-only", "roothash": ")" + hash +
           R"(", "root_device": "/dev/vda", "verity_table": "1 254:0 254:0 4096 4096 10 10 sha256 )" + kHash +
           R"( - 1 panic_on_corruption", "verity_status": ")" + status + R"(", "init": "volent-init"})";
  }
  void Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ + "/" + name) << text;
    chmod((dir_ + "/" + name).c_str(), 0644);
  }
  BootFacts Read() { return ReadBootFacts(dir_ + "/record.json", dir_ + "/mountinfo", dir_ + "/block"); }

  std::string dir_;
};

TEST_F(BootFactsTest, VerityOnlyWhenRecordAndMountsAgree) {
  BootFacts f = Read();
  EXPECT_EQ(f.profile, "verity-only") << f.why;
  EXPECT_EQ(f.verity_roothash, kHash);
  EXPECT_EQ(f.why, "");
}

TEST_F(BootFactsTest, NoRecordIsAnOrdinaryHost) {
  std::filesystem::remove(dir_ + "/record.json");
  BootFacts f = Read();
  EXPECT_EQ(f.profile, "unsealed");
  EXPECT_TRUE(f.verity_roothash.is_null());
  EXPECT_EQ(f.why, "");
}

TEST_F(BootFactsTest, RecordContradictedByTheMachineIsNotBelieved) {
  struct Case {
    const char* file;
    std::string text;
    const char* why;
  } cases[] = {
      {"mountinfo", "21 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw\n", "not squashfs"},
      {"mountinfo", "21 1 254:0 / / rw,relatime - squashfs /dev/dm-0 rw\n", "read-only"},
      {"mountinfo", "", "no mount at /"},
      {"block/254:0/dm/name", "other\n", "volent-root"},
      {"record.json", Record(kHash, "C"), "status"},
      {"record.json", Record(std::string(64, 'a'), "V"), "table"},
      {"record.json", Record("abc", "V"), "root hash"},
      {"record.json", "{\"profile\": \"full-chain\"}", "verity-only"},
      {"record.json", "not json", "JSON"},
  };
  for (const Case& c : cases) {
    SetUp();
    Write(c.file, c.text);
    BootFacts f = Read();
    EXPECT_EQ(f.profile, "unsealed") << c.file << ": " << c.text;
    EXPECT_TRUE(f.verity_roothash.is_null());
    EXPECT_NE(f.why.find(c.why), std::string::npos) << f.why;
    TearDown();
  }
}

TEST_F(BootFactsTest, RecordWritableByOthersIsNotBelieved) {
  chmod((dir_ + "/record.json").c_str(), 0666);
  BootFacts f = Read();
  EXPECT_EQ(f.profile, "unsealed");
  EXPECT_NE(f.why, "");
}

}  // namespace
}  // namespace volent::attest
