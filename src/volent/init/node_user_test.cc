// The node's user, as PID 1 makes it (needs root, as PID 1 is): /data given
// to the node without following a link out of it, and a child that took the
// node's user holds no capability in any set and has no_new_privs.
#include "volent/init/node_user.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

namespace volent::init {
namespace {

uid_t OwnerOf(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0 ? st.st_uid : static_cast<uid_t>(-1);
}

TEST(NodeUserTest, DataIsGivenToTheNodeAndNoLinkIsFollowed) {
  if (geteuid() != 0) GTEST_SKIP() << "chown needs root";
  char tmpl[] = "/tmp/node-data-XXXXXX";
  const std::string base = mkdtemp(tmpl);
  const std::string data = base + "/data", outside = base + "/outside";
  std::filesystem::create_directories(data + "/agents/a");
  std::ofstream(data + "/agents/a/store.db") << "x";
  std::ofstream(outside) << "root's";
  symlink(outside.c_str(), (data + "/link").c_str());
  ASSERT_TRUE(PrepareNodeData(data.c_str()).ok());
  for (const char* p : {"", "/agents", "/agents/a", "/agents/a/store.db", "/link"}) {
    EXPECT_EQ(OwnerOf(data + p), kNodeUid) << p;
  }
  EXPECT_EQ(OwnerOf(outside), 0u);  // the link's target is not the node's
  struct stat st;
  ASSERT_EQ(stat(data.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0700u);
  std::filesystem::remove_all(base);
}

TEST(NodeUserTest, TheChildHoldsNoCapabilityAndNoNewPrivs) {
  if (geteuid() != 0) GTEST_SKIP() << "taking another user needs root";
  int pipefd[2];
  ASSERT_EQ(pipe(pipefd), 0);
  pid_t pid = fork();
  if (pid == 0) {
    close(pipefd[0]);
    if (!BecomeNodeUser()) _exit(3);
    int fd = open("/proc/self/status", O_RDONLY);
    char buf[8192];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n > 0) (void)!write(pipefd[1], buf, n);
    _exit(0);
  }
  close(pipefd[1]);
  std::string status;
  char buf[8192];
  for (ssize_t n; (n = read(pipefd[0], buf, sizeof buf)) > 0;) status.append(buf, n);
  close(pipefd[0]);
  int wstatus = 0;
  waitpid(pid, &wstatus, 0);
  ASSERT_TRUE(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0) << wstatus;
  for (const char* line : {"Uid:\t470\t470\t470\t470", "Gid:\t470\t470\t470\t470", "CapPrm:\t0000000000000000",
                           "CapEff:\t0000000000000000", "CapBnd:\t0000000000000000", "CapAmb:\t0000000000000000",
                           "NoNewPrivs:\t1"}) {
    EXPECT_NE(status.find(line), std::string::npos) << line << "\n" << status;
  }
  // No supplementary group: the kernel writes "Groups:" and a tab, then nothing but spaces.
  const size_t groups = status.find("Groups:\t");
  ASSERT_NE(groups, std::string::npos) << status;
  const std::string list = status.substr(groups + 8, status.find('\n', groups) - groups - 8);
  EXPECT_EQ(list.find_first_not_of(' '), std::string::npos) << list;
}

}  // namespace
}  // namespace volent::init
