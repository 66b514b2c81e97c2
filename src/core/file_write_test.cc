// The durable write, with each of its steps made to fail in turn
// (core/fault_injection.h): every failure names its step, leaves the old
// file whole, removes the temporary file and closes every descriptor.
#include <gtest/gtest.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

#include "core/fault_injection.h"
#include "core/file_write.h"
#include "core/write_all.h"

namespace core {
namespace {

using fault::Op;

// How many descriptors the process has open.
int OpenDescriptors() {
  DIR* d = opendir("/proc/self/fd");
  int n = 0;
  while (readdir(d) != nullptr) ++n;
  closedir(d);
  return n;
}

class FileWriteTest : public ::testing::Test {
 protected:
  FileWriteTest() {
    std::string tmpl = "/tmp/ampoule-file-write-XXXXXX";
    dir_ = mkdtemp(tmpl.data());
    fds_before_ = OpenDescriptors();
  }
  ~FileWriteTest() override {
    fault::DisarmAll();
    std::system(("rm -rf '" + dir_ + "'").c_str());
  }
  void TearDown() override { EXPECT_EQ(OpenDescriptors(), fds_before_) << "a descriptor leaked"; }

  std::string Path(const std::string& name) const { return dir_ + "/" + name; }
  std::string Read(const std::string& name) const {
    std::ifstream in(Path(name), std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  // The names in the folder: a left-behind temporary file shows here.
  std::vector<std::string> Names(const std::string& folder = "") const {
    std::vector<std::string> names;
    DIR* d = opendir((folder.empty() ? dir_ : folder).c_str());
    for (dirent* e; (e = readdir(d)) != nullptr;) {
      if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") names.push_back(e->d_name);
    }
    closedir(d);
    std::sort(names.begin(), names.end());
    return names;
  }
  mode_t Mode(const std::string& name) const {
    struct stat st {};
    stat(Path(name).c_str(), &st);
    return st.st_mode & 07777;
  }
  // The old file, then a write of `next` with `op`'s `nth` call failing
  // (after a first write cut short, if `short_first`).
  Status ReplaceFailing(Op op, int nth, int error = EIO, bool short_first = false) {
    EXPECT_TRUE(WriteFileAtomically(Path("f"), "old contents\n").ok());
    if (short_first) fault::Arm(Op::kShortWrite, 1);
    fault::Arm(op, nth, error);
    Status s = WriteFileAtomically(Path("f"), std::string(100000, 'n'));
    EXPECT_FALSE(fault::Pending(op)) << "the armed call was never made";
    fault::DisarmAll();
    return s;
  }
  std::string dir_;
  int fds_before_ = 0;
};

TEST_F(FileWriteTest, WritesAndReplacesAFileLeavingNothingElse) {
  ASSERT_TRUE(WriteFileAtomically(Path("f"), "one", 0600).ok());
  EXPECT_EQ(Read("f"), "one");
  EXPECT_EQ(Mode("f") & 0077, 0u);
  ASSERT_TRUE(WriteFileAtomically(Path("f"), "two").ok());
  EXPECT_EQ(Read("f"), "two");
  EXPECT_EQ(Names(), std::vector<std::string>{"f"});
}

TEST_F(FileWriteTest, TheFirstWriteFailing) {
  Status s = ReplaceFailing(Op::kWrite, 1, ENOSPC);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "cannot write '" + Path("f") + "' (write): No space left on device");
  EXPECT_EQ(Read("f"), "old contents\n");
  EXPECT_EQ(Names(), std::vector<std::string>{"f"});
}

TEST_F(FileWriteTest, TheSecondWriteFailingAfterAShortOne) {
  Status s = ReplaceFailing(Op::kWrite, 2, EIO, /*short_first=*/true);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("(write): Input/output error"), std::string::npos) << s.message();
  EXPECT_EQ(Read("f"), "old contents\n");
  EXPECT_EQ(Names(), std::vector<std::string>{"f"});
}

TEST_F(FileWriteTest, AShortWriteAndAnInterruptedOneAreCarriedOn) {
  fault::Arm(Op::kShortWrite, 1);
  fault::Arm(Op::kWrite, 2, EINTR);
  ASSERT_TRUE(WriteFileAtomically(Path("f"), "all of it").ok());
  EXPECT_FALSE(fault::Pending(Op::kWrite));
  EXPECT_EQ(Read("f"), "all of it");
}

TEST_F(FileWriteTest, TheFileSyncFailing) {
  Status s = ReplaceFailing(Op::kFsync, 1);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("(sync the file): Input/output error"), std::string::npos) << s.message();
  EXPECT_EQ(Read("f"), "old contents\n");
  EXPECT_EQ(Names(), std::vector<std::string>{"f"});
}

TEST_F(FileWriteTest, TheCloseFailing) {
  Status s = ReplaceFailing(Op::kClose, 1);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("(close the file)"), std::string::npos) << s.message();
  EXPECT_EQ(Read("f"), "old contents\n");
  EXPECT_EQ(Names(), std::vector<std::string>{"f"});
}

TEST_F(FileWriteTest, TheRenameFailing) {
  Status s = ReplaceFailing(Op::kRename, 1);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("(rename over the old file)"), std::string::npos) << s.message();
  EXPECT_EQ(Read("f"), "old contents\n");
  EXPECT_EQ(Names(), std::vector<std::string>{"f"});
}

TEST_F(FileWriteTest, TheFolderSyncFailingIsAFailure) {
  // The rename is done and cannot be taken back; what matters is that the
  // caller is not told the change is durable.
  Status s = ReplaceFailing(Op::kFolderSync, 1);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("(sync the folder; the new file is in place but may not survive a power cut)"),
            std::string::npos)
      << s.message();
  EXPECT_EQ(Names(), std::vector<std::string>{"f"});
}

// The countdown loop: the Nth call of each kind fails, for every N the
// write makes; each time the result is success or one clean failure.
TEST_F(FileWriteTest, EveryCallOfEveryKindFailingInTurn) {
  for (Op op : {Op::kWrite, Op::kFsync, Op::kClose, Op::kRename, Op::kFolderSync}) {
    for (int n = 1;; ++n) {
      ASSERT_TRUE(WriteFileAtomically(Path("f"), "old").ok());
      fault::Arm(op, n);
      Status s = WriteFileAtomically(Path("f"), "new");
      const bool fired = !fault::Pending(op);
      fault::DisarmAll();
      if (!fired) {
        EXPECT_TRUE(s.ok()) << s.message();
        EXPECT_GT(n, 1) << "op " << static_cast<int>(op) << " is never called";
        break;
      }
      ASSERT_FALSE(s.ok()) << "op " << static_cast<int>(op) << " call " << n;
      if (op != Op::kFolderSync) {
        EXPECT_EQ(Read("f"), "old");
      }
      EXPECT_EQ(Names(), std::vector<std::string>{"f"});
      EXPECT_EQ(OpenDescriptors(), fds_before_);
    }
  }
}

TEST_F(FileWriteTest, CreateOnlyNeverReplaces) {
  const WriteOptions once{.mode = 0640, .exact_mode = true, .create_only = true};
  const mode_t old_umask = umask(0077);
  Status made = WriteFileAtomically(Path("key"), "secret", once);
  umask(old_umask);
  ASSERT_TRUE(made.ok()) << made.message();
  EXPECT_EQ(Mode("key"), 0640u);
  Status again = WriteFileAtomically(Path("key"), "other", once);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.kind(), ErrorKind::kConflict);
  EXPECT_EQ(again.message(), "cannot write '" + Path("key") + "': it already exists");
  EXPECT_EQ(Read("key"), "secret");
  ASSERT_EQ(symlink("/nonexistent", Path("link").c_str()), 0);
  EXPECT_EQ(WriteFileAtomically(Path("link"), "x", once).kind(), ErrorKind::kConflict);
  EXPECT_EQ(Names(), (std::vector<std::string>{"key", "link"}));
}

TEST_F(FileWriteTest, CreateOnlyWithTheLinkFailing) {
  fault::Arm(Op::kRename, 1);
  Status s = WriteFileAtomically(Path("key"), "secret", WriteOptions{.create_only = true});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("(link the new file)"), std::string::npos) << s.message();
  EXPECT_TRUE(Names().empty());
}

TEST_F(FileWriteTest, AStaleTemporaryFileIsSteppedOver) {
  // A crash's temporary file, under the name this thread picks first.
  ASSERT_TRUE(WriteFileAtomically(Path("f"), "old").ok());
  fault::Arm(Op::kRename, 1);
  ASSERT_FALSE(WriteFileAtomically(Path("f"), "new").ok());
  // (The failed write removed its own; make one by hand under the same name.)
  const std::string stale = "." + std::string("f") + ".tmp" + std::to_string(getpid()) + "." + std::to_string(gettid());
  std::ofstream(Path(stale)) << "stale";
  ASSERT_TRUE(WriteFileAtomically(Path("f"), "new").ok());
  EXPECT_EQ(Read("f"), "new");
  EXPECT_EQ(Names(), (std::vector<std::string>{stale, "f"}));
}

TEST_F(FileWriteTest, ErrorsNameTheFolderThatIsMissing) {
  Status s = WriteFileAtomically(Path("no/f"), "x");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "cannot write '" + Path("no/f") + "' (open its folder): No such file or directory");
}

TEST_F(FileWriteTest, RenameDurablyMovesAFolder) {
  ASSERT_EQ(mkdir(Path("staging").c_str(), 0755), 0);
  ASSERT_TRUE(WriteFileAtomically(Path("staging/tool"), "bytes").ok());
  ASSERT_TRUE(RenameDurably(Path("staging"), Path("final")).ok());
  EXPECT_EQ(Read("final/tool"), "bytes");
  ASSERT_EQ(mkdir(Path("again").c_str(), 0755), 0);
  fault::Arm(Op::kRename, 1);
  Status s = RenameDurably(Path("again"), Path("moved"));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "cannot move '" + Path("again") + "' to '" + Path("moved") + "': Input/output error");
  fault::Arm(Op::kFolderSync, 1);
  s = RenameDurably(Path("again"), Path("moved"));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("may not survive a power cut"), std::string::npos) << s.message();
  EXPECT_EQ(Names(), (std::vector<std::string>{"final", "moved"}));
}

TEST_F(FileWriteTest, WriteAllCarriesOnThroughAPipe) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  fault::Arm(Op::kShortWrite, 1);
  EXPECT_TRUE(WriteAll(fds[1], "abc"));
  char got[4] = {};
  EXPECT_EQ(read(fds[0], got, 3), 3);
  EXPECT_STREQ(got, "abc");
  close(fds[0]);
  close(fds[1]);
  const int read_only = open("/dev/null", O_RDONLY | O_CLOEXEC);
  errno = 0;
  EXPECT_FALSE(WriteAll(read_only, "x"));
  EXPECT_EQ(errno, EBADF);
  close(read_only);
}

}  // namespace
}  // namespace core
