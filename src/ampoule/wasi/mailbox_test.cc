#include "ampoule/wasi/mailbox.h"

#include <gtest/gtest.h>

namespace ampoule::wasi {
namespace {

std::vector<uint8_t> Bytes(std::string_view s) { return std::vector<uint8_t>(s.begin(), s.end()); }

class MailboxTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(box.AddPreopen("/input").ok());
    ASSERT_TRUE(box.AddFile("/input", "a.txt", Bytes("alpha")).ok());
    ASSERT_TRUE(box.AddFile("/input", "sub/b.txt", Bytes("beta")).ok());
    ASSERT_TRUE(box.AddDirectory("/input", "empty").ok());
    root = box.preopens()[0].root.get();
  }
  Mailbox box;
  const MailboxNode* root = nullptr;
};

TEST_F(MailboxTest, BuildsSortedTreeWithParents) {
  ASSERT_EQ(root->entries.size(), 3u);
  auto it = root->entries.begin();
  EXPECT_EQ(it->first, "a.txt");
  EXPECT_EQ((++it)->first, "empty");
  EXPECT_EQ((++it)->first, "sub");
  EXPECT_TRUE(it->second->is_dir());
  EXPECT_EQ(box.total_file_bytes(), 9u);
  EXPECT_EQ(box.entry_count(), 5u);  // the root, a.txt, sub, sub/b.txt, empty
}

TEST_F(MailboxTest, RejectsBadNamesDuplicatesAndUnknownPreopens) {
  EXPECT_FALSE(box.AddFile("/input", "a.txt", {}).ok());
  EXPECT_FALSE(box.AddFile("/input", "../x", {}).ok());
  EXPECT_FALSE(box.AddFile("/input", "./x", {}).ok());
  EXPECT_FALSE(box.AddFile("/input", "", {}).ok());
  EXPECT_FALSE(box.AddFile("/input", std::string(256, 'n'), {}).ok());
  EXPECT_FALSE(box.AddFile("/input", "a.txt/c", {}).ok());
  EXPECT_FALSE(box.AddFile("/other", "x", {}).ok());
  EXPECT_FALSE(box.AddPreopen("/input").ok());
  EXPECT_FALSE(box.AddPreopen("").ok());
  EXPECT_FALSE(box.AddFile("/input", std::string_view("y\0z", 3), {}).ok());
}

TEST_F(MailboxTest, RejectsOversizedFile) {
  std::vector<uint8_t> big(kMaxMailboxFileBytes + 1);
  core::Status s = box.AddFile("/input", "big", std::move(big));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("mailbox limit"), std::string::npos);
}

}  // namespace
}  // namespace ampoule::wasi
