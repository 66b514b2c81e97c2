// What PID 1 hands the kernel and what it records: the verity table (the
// device, the block counts, the hash and the salt in the kernel's order,
// panic_on_corruption always), the boot record's JSON, and the names the
// in-image check refuses.
#include "volent/init/verity.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "volent/init/boot_record.h"
#include "volent/init/selfcheck.h"

namespace volent::init {
namespace {

VerityRoot Root() {
  VerityRoot root;
  root.roothash = std::string(64, 'a');
  root.salt = "bdec";
  root.data_blocks = 4215;
  root.hash_start = 4216;
  return root;
}

TEST(InitVerityTest, TableInTheKernelsOrder) {
  EXPECT_EQ(VerityTable(Root()), "1 /dev/vda /dev/vda 4096 4096 4215 4216 sha256 " + std::string(64, 'a') +
                                     " bdec 1 panic_on_corruption");
}

TEST(InitVerityTest, BootRecordIsJsonAndEscapesTheKernelsText) {
  VerityStatus status{"1 254:0 254:0 \"x\\y\n", "V", 254, 0};
  auto record = nlohmann::json::parse(BootRecordJson(Root(), status));
  EXPECT_EQ(record["profile"], "verity-only");
  EXPECT_EQ(record["roothash"], std::string(64, 'a'));
  EXPECT_EQ(record["verity_table"], status.table);
  EXPECT_EQ(record["verity_status"], "V");
  EXPECT_EQ(record["verity_device"], "254:0");
}

TEST(InitSelfCheckTest, ShellAndInterpreterNames) {
  for (const char* name : {"sh", "bash", "busybox", "python3", "python3.11", "perl5.36.0", "lua5.4", "ssh", "apt"}) {
    EXPECT_TRUE(IsShellOrInterpreterName(name)) << name;
  }
  for (const char* name : {"volent", "libpython.so", "shasum", "ca-certificates.crt", "pythonic", "bashrc"}) {
    EXPECT_FALSE(IsShellOrInterpreterName(name)) << name;
  }
}

}  // namespace
}  // namespace volent::init
