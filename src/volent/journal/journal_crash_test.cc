// Concurrency and crashes: threads and processes racing on the same keys get
// exactly one fresh intent per key; a process killed with SIGKILL at a random
// moment in a tight append loop leaves a journal that verifies, with no
// partial entry, and a restart that replays it repeats nothing.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>
#include <vector>

#include "volent/journal/journal.h"

namespace volent::journal {
namespace {

constexpr uint64_t kKeys = 40;

std::string MakeDir() {
  char tmpl[] = "/tmp/journal_crash_test.XXXXXX";
  return mkdtemp(tmpl) ? std::string(tmpl) : std::string();
}

// BeginEffect on every key; returns how many were fresh (-1 on an error).
int BeginAll(Journal& j) {
  int fresh = 0;
  for (uint64_t step = 1; step <= kKeys; ++step) {
    auto begin = j.BeginEffect({"agent", "run", step}, {{"step", step}});
    if (!begin.ok()) return -1;
    if (begin->outcome == BeginOutcome::kFresh) ++fresh;
  }
  return fresh;
}

TEST(JournalCrashTest, ThreadsSharingOneJournal) {
  const std::string dir = MakeDir();
  ASSERT_FALSE(dir.empty());
  auto j = Journal::Open(dir);
  ASSERT_TRUE(j.ok()) << j.message();
  std::atomic<int> fresh = 0, errors = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&] {
      int n = BeginAll(**j);
      n < 0 ? ++errors : fresh += n;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(errors, 0);
  EXPECT_EQ(fresh, static_cast<int>(kKeys));
  EXPECT_EQ((*j)->GetDigest()->entries, kKeys);
  EXPECT_TRUE((*j)->Verify()->ok);
  std::filesystem::remove_all(dir);
}

TEST(JournalCrashTest, ThreadsWithOneJournalEach) {
  const std::string dir = MakeDir();
  ASSERT_FALSE(dir.empty());
  std::atomic<int> fresh = 0, errors = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&] {
      auto j = Journal::Open(dir);
      int n = j.ok() ? BeginAll(**j) : -1;
      n < 0 ? ++errors : fresh += n;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(errors, 0);
  EXPECT_EQ(fresh, static_cast<int>(kKeys));
  auto j = Journal::Open(dir);
  ASSERT_TRUE(j.ok());
  EXPECT_EQ((*j)->GetDigest()->entries, kKeys);
  EXPECT_TRUE((*j)->Verify()->ok);
  std::filesystem::remove_all(dir);
}

// Each child opens its own journal (never one inherited across fork) and
// reports its count of fresh intents as its exit status.
TEST(JournalCrashTest, ProcessesRacingOnTheSameKeys) {
  const std::string dir = MakeDir();
  ASSERT_FALSE(dir.empty());
  std::vector<pid_t> children;
  for (int p = 0; p < 6; ++p) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      auto j = Journal::Open(dir);
      if (!j.ok()) std::fprintf(stderr, "child: %s\n", j.message().c_str());
      int n = j.ok() ? BeginAll(**j) : -1;
      _exit(n < 0 ? 255 : n);
    }
    children.push_back(pid);
  }
  int fresh = 0;
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    ASSERT_NE(WEXITSTATUS(status), 255) << "a child could not journal";
    fresh += WEXITSTATUS(status);
  }
  EXPECT_EQ(fresh, static_cast<int>(kKeys));
  auto j = Journal::Open(dir);
  ASSERT_TRUE(j.ok());
  EXPECT_EQ((*j)->GetDigest()->entries, kKeys);
  EXPECT_TRUE((*j)->Verify()->ok);
  std::filesystem::remove_all(dir);
}

// The child is a node restarting: it first re-issues and completes every
// pending effect (as the agent loop does after a restart), then appends
// steps in a tight loop until it is killed. After each completion returns
// (committed), it writes the completion's seq to `report_fd`. Exit codes
// name what failed.
[[noreturn]] void AppendUntilKilled(const std::string& dir, int report_fd,
                                    const std::string& run = "run") {
  auto j = Journal::Open(dir);
  if (!j.ok()) _exit(3);
  auto pending = (*j)->PendingEffects();
  if (!pending.ok()) _exit(4);
  for (const Entry& intent : *pending) {
    if (!(*j)->CompleteEffect({intent.agent, intent.run, intent.step}, "reissued").ok()) _exit(5);
  }
  auto digest = (*j)->GetDigest();
  if (!digest.ok()) _exit(6);
  for (uint64_t step = digest->entries + 1;; ++step) {
    EffectKey key{"agent", run, step};
    auto begin = (*j)->BeginEffect(key, {{"step", step}});
    if (!begin.ok()) _exit(7);
    if (begin->outcome != BeginOutcome::kFresh) _exit(8);  // a step repeated
    auto done = (*j)->CompleteEffect(key, {{"done", step}});
    if (!done.ok()) _exit(9);
    const uint64_t seq = done->completion.seq;
    if (write(report_fd, &seq, sizeof seq) != sizeof seq) _exit(10);
  }
}

TEST(JournalCrashTest, KillNineInATightAppendLoop) {
  const std::string dir = MakeDir();
  ASSERT_FALSE(dir.empty());
  std::mt19937 rng(std::random_device{}());
  uint64_t last_entries = 0;
  for (int round = 0; round < 8; ++round) {
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      close(fds[0]);
      AppendUntilKilled(dir, fds[1]);
    }
    close(fds[1]);
    usleep(20000 + rng() % 180000);
    ASSERT_EQ(kill(pid, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    // The last entry the child saw committed (the pipe holds every report).
    uint64_t committed = 0, seq = 0;
    while (read(fds[0], &seq, sizeof seq) == sizeof seq) committed = std::max(committed, seq);
    close(fds[0]);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the child stopped by itself with status "
                                     << (WIFEXITED(status) ? WEXITSTATUS(status) : -1);

    auto j = Journal::Open(dir);
    ASSERT_TRUE(j.ok()) << j.message();
    auto report = (*j)->Verify();
    ASSERT_TRUE(report.ok()) << report.message();
    ASSERT_TRUE(report->ok) << "round " << round << ": entry #" << report->bad_entry << ": "
                            << report->problem;
    EXPECT_GE(report->digest.entries, last_entries);  // nothing committed was lost
    EXPECT_GE(report->digest.entries, committed);
    last_entries = report->digest.entries;
    auto pending = (*j)->PendingEffects();
    ASSERT_TRUE(pending.ok());
    EXPECT_LE(pending->size(), 1u);  // at most the step in flight
    auto entries = (*j)->Read(0, 1000000);
    ASSERT_TRUE(entries.ok());
    for (const Entry& e : *entries) ASSERT_EQ(e.hash, EntryHash(e));
  }
  EXPECT_GT(last_entries, 0u);
  std::filesystem::remove_all(dir);
}

// Three processes append at once (each its own run) and are all killed at
// random moments: the shared journal still verifies after every round.
TEST(JournalCrashTest, KillNineSeveralWriters) {
  const std::string dir = MakeDir();
  ASSERT_FALSE(dir.empty());
  std::mt19937 rng(std::random_device{}());
  for (int round = 0; round < 5; ++round) {
    std::vector<pid_t> children;
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    for (int c = 0; c < 3; ++c) {
      pid_t pid = fork();
      ASSERT_GE(pid, 0);
      if (pid == 0) {
        close(fds[0]);
        AppendUntilKilled(dir, fds[1], "run-" + std::to_string(c));
      }
      children.push_back(pid);
    }
    close(fds[1]);
    for (pid_t pid : children) {
      usleep(10000 + rng() % 60000);
      ASSERT_EQ(kill(pid, SIGKILL), 0);
    }
    for (pid_t pid : children) {
      int status = 0;
      ASSERT_EQ(waitpid(pid, &status, 0), pid);
      ASSERT_TRUE(WIFSIGNALED(status)) << "a writer stopped by itself with status "
                                       << (WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    }
    uint64_t committed = 0, seq = 0;
    while (read(fds[0], &seq, sizeof seq) == sizeof seq) committed = std::max(committed, seq);
    close(fds[0]);
    auto j = Journal::Open(dir);
    ASSERT_TRUE(j.ok()) << j.message();
    auto report = (*j)->Verify();
    ASSERT_TRUE(report.ok()) << report.message();
    ASSERT_TRUE(report->ok) << "round " << round << ": entry #" << report->bad_entry << ": "
                            << report->problem;
    EXPECT_GE(report->digest.entries, committed);
    auto pending = (*j)->PendingEffects();
    ASSERT_TRUE(pending.ok());
    EXPECT_LE(pending->size(), 3u);  // at most one step in flight per writer
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace volent::journal
