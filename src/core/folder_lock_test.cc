// The data folder's lock (folder_lock.h): a second taker is refused while
// the first holds it, naming the holder; the lock is free again once the
// holder lets go; a link swapped in for the lock file is refused.
#include "core/folder_lock.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>

namespace core {
namespace {

class FolderLockTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/folder_lock_test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(FolderLockTest, ASecondTakerIsRefusedNamingTheHolderUntilItLetsGo) {
  auto first = FolderLock::Take(dir_, "node.lock", "volent node, pid 4711");
  ASSERT_TRUE(first.ok()) << first.message();
  auto second = FolderLock::Take(dir_, "node.lock", "volent credential create");
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.kind(), ErrorKind::kConflict);
  EXPECT_NE(second.message().find("in use by volent node, pid 4711"), std::string::npos) << second.message();
  first->reset();
  auto third = FolderLock::Take(dir_, "node.lock", "volent credential create");
  EXPECT_TRUE(third.ok()) << third.message();
}

TEST_F(FolderLockTest, ALinkSwappedInForTheLockFileIsRefused) {
  std::filesystem::create_symlink(dir_ + "/elsewhere", dir_ + "/node.lock");
  auto lock = FolderLock::Take(dir_, "node.lock", "volent node");
  ASSERT_FALSE(lock.ok());
  EXPECT_NE(lock.message().find("symbolic link"), std::string::npos) << lock.message();
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/elsewhere")) << "nothing made through the link";
}

}  // namespace
}  // namespace core
