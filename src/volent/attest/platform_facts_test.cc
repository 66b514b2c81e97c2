// The boot record is believed only when the kernel agrees with it: a record
// alone (anyone root on an ordinary host can write one, with fake names in
// /sys and a squashfs over / in a mount namespace of its own) or one the
// kernel's device-mapper contradicts gives the unsealed profile. The
// kernel's answers are injected here; the real ioctl path is tried last.
#include "volent/attest/platform_facts.h"

#include <stdlib.h>
#include <sys/stat.h>

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>

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
    Write("devices", "Character devices:\n  1 mem\n 10 misc\n\nBlock devices:\n  7 loop\n254 device-mapper\n"
                     "259 blkext\n");
    root_ = RootFs{254, 0, true, true};
    dm_ = DmDevice{254, 0, {{"verity", Table(kHash), "V"}}};
    dm_error_.clear();
    dm_calls_ = 0;
    process_ = ProcessFacts{.cap_eff = 1ull << 21};  // root with CAP_SYS_ADMIN: asks the kernel itself
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  static std::string Table(const std::string& hash) {
    return "1 254:0 254:0 4096 4096 10 10 sha256 " + hash + " - 1 panic_on_corruption";
  }
  static std::string Record(const std::string& hash, const std::string& status) {
    return R"({"profile": "verity-only", "roothash": ")" + hash +
           R"(", "root_device": "/dev/vda", "verity_table": "1 254:0 254:0 4096 4096 10 10 sha256 )" + kHash +
           R"( - 1 panic_on_corruption", "verity_status": ")" + status + R"(", "init": "volent-init"})";
  }
  void Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ + "/" + name) << text;
    chmod((dir_ + "/" + name).c_str(), 0644);
  }
  // With the kernel's answers injected.
  BootFacts Read() {
    BootSources sources;
    sources.record_path = dir_ + "/record.json";
    sources.proc_devices = dir_ + "/devices";
    sources.root = [this]() -> core::Result<RootFs> { return root_; };
    sources.dm = [this](const std::string& name) -> core::Result<DmDevice> {
      ++dm_calls_;
      if (name != "volent-root") return core::Error{"asked for " + name};
      if (!dm_error_.empty()) return core::Error{dm_error_};
      return dm_;
    };
    sources.process = [this]() -> core::Result<ProcessFacts> { return process_; };
    return ReadBootFacts(sources);
  }
  // As the image's node: its own user, no capability; PID 1's record.
  void AsTheImagesNode() {
    process_ = ProcessFacts{.uid = 470, .gid = 470};
    Write("record.json", UnprivilegedRecord(kHash, "V", "254:0"));
    chmod((dir_ + "/record.json").c_str(), 0444);
    chmod(dir_.c_str(), 0755);
  }
  static std::string UnprivilegedRecord(const std::string& hash, const std::string& status, const std::string& device) {
    return R"({"profile": "verity-only", "roothash": ")" + std::string(kHash) +
           R"(", "root_device": "/dev/vda", "verity_table": ")" + Table(hash) + R"(", "verity_status": ")" + status +
           R"(", "verity_device": ")" + device + R"(", "init": "volent-init"})";
  }
  // What the node reads on this machine, where only the files say verity.
  BootFacts ReadForged() {
    BootSources sources;
    sources.record_path = dir_ + "/record.json";
    return ReadBootFacts(sources);
  }

  std::string dir_;
  RootFs root_;
  DmDevice dm_;
  std::string dm_error_;
  int dm_calls_ = 0;
  ProcessFacts process_;
};

TEST_F(BootFactsTest, VerityOnlyWhenRecordAndKernelAgree) {
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
      {"record.json", Record(std::string(64, 'a'), "V"), "another root hash"},
      {"record.json", Record("abc", "V"), "root hash"},
      {"record.json", "{\"profile\": \"full-chain\"}", "verity-only"},
      {"record.json", "not json", "JSON"},
      {"devices", "Block devices:\n254 virtblk\n", "no device-mapper"},
      {"devices", "Character devices:\n254 device-mapper\n", "no device-mapper"},
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

TEST_F(BootFactsTest, WhatTheKernelSaysDecides) {
  struct Case {
    std::function<void(RootFs&, DmDevice&, std::string&)> edit;
    const char* why;
  } cases[] = {
      {[](RootFs& r, DmDevice&, std::string&) { r.squashfs = false; }, "not a squashfs"},
      {[](RootFs& r, DmDevice&, std::string&) { r.read_only = false; }, "read-only"},
      {[](RootFs& r, DmDevice&, std::string&) { r.major = 259; }, "not a device-mapper device"},
      {[](RootFs&, DmDevice& d, std::string&) { d.minor = 1; }, "not on volent-root"},
      {[](RootFs&, DmDevice&, std::string& e) { e = "No such device or address"; }, "does not describe"},
      {[](RootFs&, DmDevice& d, std::string&) { d.targets[0].type = "linear"; }, "verity target"},
      {[](RootFs&, DmDevice& d, std::string&) { d.targets.push_back(d.targets[0]); }, "verity target"},
      {[](RootFs&, DmDevice& d, std::string&) { d.targets[0].status = "C"; }, "not V"},
      {[](RootFs&, DmDevice& d, std::string&) { d.targets[0].table = Table(std::string(64, 'b')); }, "another root hash"},
      {[](RootFs&, DmDevice& d, std::string&) { d.targets[0].table = "1 254:0"; }, "no sha256 root hash"},
  };
  for (const Case& c : cases) {
    SetUp();
    c.edit(root_, dm_, dm_error_);
    BootFacts f = Read();
    EXPECT_EQ(f.profile, "unsealed") << c.why;
    EXPECT_TRUE(f.verity_roothash.is_null());
    EXPECT_NE(f.why.find(c.why), std::string::npos) << f.why;
    TearDown();
  }
}

// Root on an ordinary host, in a mount namespace of its own: a squashfs
// over /, a device-mapper name in a fake /sys, a boot record in /run. None
// of it is the kernel's own account of a verity device, so none of it is
// believed.
TEST_F(BootFactsTest, AForgedRecordWithFakeNamesIsNotBelieved) {
  BootFacts f = ReadForged();
  EXPECT_EQ(f.profile, "unsealed");
  EXPECT_TRUE(f.verity_roothash.is_null());
  EXPECT_NE(f.why, "");
}

// The image's node holds no CAP_SYS_ADMIN and cannot ask the kernel: PID 1
// asked it and wrote the answer into the record, which the node believes
// only when it cannot have written it itself, and only when the checks it
// can still make (/ on that very device-mapper device) agree.
TEST_F(BootFactsTest, WithoutCapSysAdminPid1sAnswerInTheRecordCounts) {
  if (geteuid() != 0) GTEST_SKIP() << "makes root-owned files: needs root";
  AsTheImagesNode();
  BootFacts f = Read();
  EXPECT_EQ(f.profile, "verity-only") << f.why;
  EXPECT_EQ(f.verity_roothash, kHash);
  EXPECT_EQ(dm_calls_, 0);  // the kernel is not asked: it would refuse
}

TEST_F(BootFactsTest, WithoutCapSysAdminARecordTheNodeCouldHaveWrittenIsNotBelieved) {
  if (geteuid() != 0) GTEST_SKIP() << "makes root-owned files: needs root";
  struct Case {
    std::function<void()> edit;
    const char* why;
  } cases[] = {
      {[this] { process_.uid = 0; }, "root without CAP_SYS_ADMIN"},
      {[this] { chown((dir_ + "/record.json").c_str(), 470, 470); }, "not owned by root"},
      {[this] { chmod((dir_ + "/record.json").c_str(), 0664); }, "its group or others may write it"},
      {[this] { chown(dir_.c_str(), 470, 470); }, "its folder"},
      {[this] { chmod(dir_.c_str(), 0775); }, "its folder"},
  };
  for (const Case& c : cases) {
    SetUp();
    AsTheImagesNode();
    c.edit();
    BootFacts f = Read();
    EXPECT_EQ(f.profile, "unsealed") << c.why;
    EXPECT_TRUE(f.verity_roothash.is_null());
    EXPECT_NE(f.why.find(c.why), std::string::npos) << f.why;
    TearDown();
  }
}

TEST_F(BootFactsTest, WithoutCapSysAdminTheRecordsKernelAnswerIsStillChecked) {
  if (geteuid() != 0) GTEST_SKIP() << "makes root-owned files: needs root";
  struct Case {
    std::string record;
    std::function<void(RootFs&)> root;
    const char* why;
  } cases[] = {
      {UnprivilegedRecord(kHash, "C", "254:0"), nullptr, "not V"},
      {UnprivilegedRecord(std::string(64, 'b'), "V", "254:0"), nullptr, "another root hash"},
      {UnprivilegedRecord(kHash, "V", "254:1"), nullptr, "not on volent-root"},
      {UnprivilegedRecord(kHash, "V", "254"), nullptr, "verity_device"},
      {UnprivilegedRecord(kHash, "V", "254:0x"), nullptr, "verity_device"},
      {R"({"profile": "verity-only", "roothash": ")" + std::string(kHash) + R"(", "verity_device": "254:0"})", nullptr,
       "verity_table"},
      {UnprivilegedRecord(kHash, "V", "254:0"), [](RootFs& r) { r.squashfs = false; }, "not a squashfs"},
      {UnprivilegedRecord(kHash, "V", "254:0"), [](RootFs& r) { r.major = 259; }, "not a device-mapper device"},
  };
  for (const Case& c : cases) {
    SetUp();
    AsTheImagesNode();
    Write("record.json", c.record);
    chmod((dir_ + "/record.json").c_str(), 0444);
    if (c.root) c.root(root_);
    BootFacts f = Read();
    EXPECT_EQ(f.profile, "unsealed") << c.why;
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

namespace volent::attest {
namespace {

// The ioctl path: only the device-mapper's control device is asked, and
// on a machine without a volent-root device (this one, unless it is the
// sealed image) the answer is an error, never a table.
TEST(DmDeviceTest, OnlyTheControlDeviceIsAsked) {
  auto null_device = ReadDmDevice("volent-root", "/dev/null");  // a character device, 1:3
  ASSERT_FALSE(null_device.ok());
  EXPECT_NE(null_device.message().find("not the device-mapper's control device"), std::string::npos)
      << null_device.message();
  char tmpl[] = "/tmp/dm-control-XXXXXX";
  const int fd = mkstemp(tmpl);
  ASSERT_GE(fd, 0);
  close(fd);
  auto file = ReadDmDevice("volent-root", tmpl);
  unlink(tmpl);
  ASSERT_FALSE(file.ok());
  EXPECT_NE(file.message().find("not the device-mapper's control device"), std::string::npos) << file.message();
}

TEST(DmDeviceTest, TheKernelsTableOfVolentRoot) {
  if (::access("/dev/mapper/control", R_OK | W_OK) != 0) {
    GTEST_SKIP() << "/dev/mapper/control is not usable here (" << std::strerror(errno)
                 << "): the device-mapper ioctl path is exercised by the image test in the VM";
  }
  auto device = ReadDmDevice("volent-root");
  if (!device.ok()) {
    // No such device on this machine: a clear error, and the node says unsealed.
    EXPECT_NE(device.message().find("volent-root"), std::string::npos) << device.message();
    GTEST_SKIP() << "no volent-root device here: " << device.message();
  }
  ASSERT_EQ(device->targets.size(), 1u);
  EXPECT_EQ(device->targets[0].type, "verity");
  EXPECT_TRUE(device->targets[0].status == "V" || device->targets[0].status == "C") << device->targets[0].status;
}

// The variable's name is EFI_GLOBAL_VARIABLE's GUID as the kernel's efivarfs
// spells it (8be4df61-93ca-11d2-aa0d-00e098032b8c); the value follows four
// bytes of attributes.
TEST(SecureBootStateTest, ReadsTheGlobalVariableByItsRealName) {
  char tmpl[] = "/tmp/secure-boot-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  std::filesystem::create_directories(dir + "/efi/efivars");
  const std::string var = dir + "/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c";
  auto write = [&](std::string_view value) { std::ofstream(var, std::ios::binary) << value; };
  write(std::string("\x06\0\0\0\x01", 5));
  EXPECT_EQ(SecureBootState(dir + "/efi", dir + "/efi/efivars"), "enabled");
  write(std::string("\x06\0\0\0\0", 5));
  EXPECT_EQ(SecureBootState(dir + "/efi", dir + "/efi/efivars"), "disabled");
  write(std::string("\x06\0\0\0\x01\x01", 6));
  EXPECT_EQ(SecureBootState(dir + "/efi", dir + "/efi/efivars"), "unknown");
  std::filesystem::remove(var);
  EXPECT_EQ(SecureBootState(dir + "/efi", dir + "/efi/efivars"), "unknown");
  EXPECT_EQ(SecureBootState(dir + "/no-efi", dir + "/efi/efivars"), "not-efi");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace volent::attest
