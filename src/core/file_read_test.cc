// The one safe reader, tried as an attacker would: FIFOs with and without a
// writer, endless devices, directories, files others may write.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "core/file_read.h"
#include "core/sha256.h"

namespace core {
namespace {

class FileReadTest : public ::testing::Test {
 protected:
  FileReadTest() {
    std::string tmpl = "/tmp/ampoule-file-read-XXXXXX";
    dir_ = mkdtemp(tmpl.data());
  }
  ~FileReadTest() override { std::system(("rm -rf '" + dir_ + "'").c_str()); }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }
  void Write(const std::string& name, const std::string& bytes, mode_t mode = 0644) {
    std::ofstream(Path(name), std::ios::binary) << bytes;
    chmod(Path(name).c_str(), mode);
  }
  static ReadRules Rules(PathFrom from, int idle_ms = 300) {
    ReadRules r;
    r.from = from;
    r.pipe_idle_ms = idle_ms;
    return r;
  }
  std::string dir_;
};

TEST_F(FileReadTest, ARegularFileIsReadWhole) {
  Write("f", "hello");
  for (PathFrom from : {PathFrom::kUser, PathFrom::kUntrusted}) {
    Result<std::string> text = ReadFileCapped(Path("f"), 100, nullptr, Rules(from));
    ASSERT_TRUE(text.ok()) << text.message();
    EXPECT_EQ(*text, "hello");
  }
}

TEST_F(FileReadTest, AFifoWithNoWriterNeitherHangsNorReadsAsEmpty) {
  ASSERT_EQ(mkfifo(Path("fifo").c_str(), 0600), 0);
  auto start = std::chrono::steady_clock::now();
  Result<std::string> text = ReadFileCapped(Path("fifo"), 100, nullptr, Rules(PathFrom::kUser));
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.message().find("nothing came from it"), std::string::npos) << text.message();
  // Not a timing assertion: only that the call returned at all, well
  // before a test runner's time limit.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(60));
}

TEST_F(FileReadTest, AFifoWithAWriterIsReadToItsEnd) {
  ASSERT_EQ(mkfifo(Path("fifo").c_str(), 0600), 0);
  std::thread writer([&] {
    int fd = open(Path("fifo").c_str(), O_WRONLY);
    ASSERT_GE(fd, 0);
    for (int i = 0; i < 3; ++i) {
      ASSERT_EQ(write(fd, "abc", 3), 3);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    close(fd);
  });
  Result<std::string> text = ReadFileCapped(Path("fifo"), 100, nullptr, Rules(PathFrom::kUser, 10'000));
  writer.join();
  ASSERT_TRUE(text.ok()) << text.message();
  EXPECT_EQ(*text, "abcabcabc");
}

TEST_F(FileReadTest, AStreamOverTheCapStopsAtTheCap) {
  bool over = false;
  Result<std::string> text = ReadFileCapped("/dev/zero", 1000, &over, Rules(PathFrom::kUser));
  EXPECT_FALSE(text.ok());
  EXPECT_TRUE(over);
}

TEST_F(FileReadTest, AnUntrustedPathMustNameARegularFile) {
  ASSERT_EQ(mkfifo(Path("fifo").c_str(), 0600), 0);
  for (std::string path : {Path("fifo"), std::string("/dev/zero"), std::string("/dev/null")}) {
    bool over = true;
    Result<std::string> text = ReadFileCapped(path, 100, &over, Rules(PathFrom::kUntrusted, 60'000));
    ASSERT_FALSE(text.ok()) << path;
    EXPECT_FALSE(over);
    EXPECT_NE(text.message().find("must be a regular file"), std::string::npos) << text.message();
  }
}

TEST_F(FileReadTest, ADirectoryIsRefused) {
  Result<std::string> text = ReadFileCapped(dir_, 100);
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.message().find("directory"), std::string::npos);
}

TEST_F(FileReadTest, FilesOthersMayWriteAreRefusedWhenTheyDecideTrust) {
  ReadRules strict;
  strict.refuse_writable_by_others = true;
  Write("ok", "k", 0644);
  EXPECT_TRUE(ReadFileCapped(Path("ok"), 100, nullptr, strict).ok());
  Write("world", "k", 0666);
  Write("group", "k", 0664);
  for (const char* name : {"world", "group"}) {
    Result<std::string> text = ReadFileCapped(Path(name), 100, nullptr, strict);
    ASSERT_FALSE(text.ok()) << name;
    EXPECT_NE(text.message().find("chmod go-w"), std::string::npos) << text.message();
    EXPECT_TRUE(ReadFileCapped(Path(name), 100).ok()) << "only when asked";
  }
}

TEST_F(FileReadTest, TrustFilesOfAnotherOwnerOrBehindALinkAreRefused) {
  Write("mine", "k", 0600);
  EXPECT_TRUE(ReadFileCapped(Path("mine"), 100, nullptr, kTrustFileRules).ok());
  Write("loose", "k", 0666);
  EXPECT_FALSE(ReadFileCapped(Path("loose"), 100, nullptr, kTrustFileRules).ok());
  // A link to a file that passes every other rule.
  ASSERT_EQ(symlink(Path("mine").c_str(), Path("link").c_str()), 0);
  Result<std::string> linked = ReadFileCapped(Path("link"), 100, nullptr, kTrustFileRules);
  ASSERT_FALSE(linked.ok());
  EXPECT_NE(linked.message().find("symbolic link"), std::string::npos) << linked.message();
  EXPECT_TRUE(ReadFileCapped(Path("link"), 100).ok()) << "only when asked";
  if (geteuid() != 0) GTEST_SKIP() << "giving a file to another user needs root";
  Write("theirs", "k", 0600);
  ASSERT_EQ(chown(Path("theirs").c_str(), 65534, 65534), 0);
  Result<std::string> theirs = ReadFileCapped(Path("theirs"), 100, nullptr, kTrustFileRules);
  ASSERT_FALSE(theirs.ok());
  EXPECT_NE(theirs.message().find("owned by uid 65534"), std::string::npos) << theirs.message();
  EXPECT_NE(theirs.message().find("chown"), std::string::npos) << theirs.message();
}

TEST_F(FileReadTest, ATrustFolderOthersMayWriteOrOwnIsRefused) {
  ASSERT_TRUE(CheckTrustFolder(dir_).ok());
  ASSERT_EQ(chmod(dir_.c_str(), 0775), 0);
  Status group = CheckTrustFolder(dir_);
  ASSERT_FALSE(group.ok());
  EXPECT_NE(group.message().find("mode 0775"), std::string::npos) << group.message();
  EXPECT_NE(group.message().find("chmod go-w " + dir_), std::string::npos) << group.message();
  ASSERT_EQ(chmod(dir_.c_str(), 0700), 0);
  Write("file", "k");
  EXPECT_FALSE(CheckTrustFolder(Path("file")).ok()) << "not a directory";
  if (geteuid() != 0) GTEST_SKIP() << "giving a folder to another user needs root";
  ASSERT_EQ(chown(dir_.c_str(), 65534, 65534), 0);
  Status foreign = CheckTrustFolder(dir_);
  ASSERT_FALSE(foreign.ok());
  EXPECT_NE(foreign.message().find("owned by uid 65534"), std::string::npos) << foreign.message();
}

TEST_F(FileReadTest, OpenRegularFileRefusesFifosAndDevicesAtOnce) {
  ASSERT_EQ(mkfifo(Path("fifo").c_str(), 0600), 0);
  for (std::string path : {Path("fifo"), std::string("/dev/zero")}) {
    Result<int> fd = OpenRegularFile(path, 1 << 20, "kernel");
    ASSERT_FALSE(fd.ok()) << path;
    EXPECT_NE(fd.message().find("give a regular file"), std::string::npos) << fd.message();
  }
  Write("big", std::string(2000, 'x'));
  Result<int> fd = OpenRegularFile(Path("big"), 1000, "kernel");
  ASSERT_FALSE(fd.ok());
  EXPECT_NE(fd.message().find("over the 1000-byte limit"), std::string::npos) << fd.message();
  fd = OpenRegularFile(Path("big"), 4000, "kernel");
  ASSERT_TRUE(fd.ok()) << fd.message();
  close(*fd);
}

// Hashed in chunks, the digest is the whole file's: a file over several
// chunks, one of none, and the refusals OpenRegularFile makes, unchanged.
TEST_F(FileReadTest, AStreamedDigestIsTheWholeFilesAndKeepsTheRefusals) {
  std::string big;
  for (int i = 0; i < 300000; ++i) big += static_cast<char>(i * 7);
  Write("big", big);
  Write("empty", "");
  Result<std::string> digest = Sha256OfRegularFile(Path("big"), big.size(), "kernel");
  ASSERT_TRUE(digest.ok()) << digest.message();
  EXPECT_EQ(*digest, Sha256Hex(big));
  digest = Sha256OfRegularFile(Path("empty"), 10, "kernel");
  ASSERT_TRUE(digest.ok()) << digest.message();
  EXPECT_EQ(*digest, Sha256Hex(std::string_view()));
  digest = Sha256OfRegularFile(Path("big"), big.size() - 1, "kernel");
  ASSERT_FALSE(digest.ok());
  EXPECT_NE(digest.message().find("-byte limit"), std::string::npos) << digest.message();
  ASSERT_EQ(mkfifo(Path("fifo").c_str(), 0600), 0);
  digest = Sha256OfRegularFile(Path("fifo"), 1 << 20, "kernel");
  ASSERT_FALSE(digest.ok());
  EXPECT_NE(digest.message().find("give a regular file"), std::string::npos) << digest.message();
}

}  // namespace
}  // namespace core
