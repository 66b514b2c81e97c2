#include "ampoule/spectest/isolate.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstring>

#include "core/write_all.h"

namespace ampoule::spectest {
namespace {

constexpr char kKindChars[] = {'P', 'F', 'S'};  // indexed by Verdict::Kind

void WriteOrExit(int fd, const std::string& data) {
  if (!core::WriteAll(fd, data)) _exit(3);  // the parent is gone; nobody is left to report to
}

// The child process: run the work, stream verdicts, never return.
[[noreturn]] void ChildMain(int fd, const ScriptWork& work) {
  struct rlimit no_core = {0, 0};
  setrlimit(RLIMIT_CORE, &no_core);  // a crash is reported by the parent; no core files
  work([fd](const Verdict& v) { WriteOrExit(fd, EncodeVerdict(v)); });
  _exit(0);  // skip atexit handlers and stdio buffers that belong to the parent
}

std::string DescribeExit(int status, bool timed_out, std::chrono::seconds timeout) {
  if (timed_out) return "timed out after " + std::to_string(timeout.count()) + " s";
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    return "crashed: signal " + std::to_string(sig) + " (" + strsignal(sig) + ")";
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
    return "exited with status " + std::to_string(WEXITSTATUS(status));
  }
  return {};
}

// Reads verdict lines from `fd` into `report` until EOF or `timeout`.
// Returns false on timeout.
bool Collect(int fd, FileReport& report, size_t* reported, std::chrono::seconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string buf;
  char chunk[16384];
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    struct pollfd p = {fd, POLLIN, 0};
    int r = poll(&p, 1, int(std::min<int64_t>(left.count(), INT_MAX)));
    if (r < 0 && errno != EINTR) return true;
    if (r <= 0) continue;
    ssize_t n = read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return true;
    buf.append(chunk, size_t(n));
    size_t start = 0;
    for (size_t nl; (nl = buf.find('\n', start)) != std::string::npos; start = nl + 1) {
      Verdict v;
      if (!DecodeVerdict(std::string_view(buf).substr(start, nl - start), &v)) continue;
      report.Add(v);
      ++*reported;
    }
    buf.erase(0, start);
  }
}

// Counts what the child did not report, naming the command it stopped on.
void AccountForEarlyStop(FileReport& report, std::span<const Command> commands, size_t reported,
                         const std::string& how) {
  if (reported >= commands.size()) {
    Verdict v;
    v.kind = Verdict::Kind::kFail;
    if (!commands.empty()) {
      v.command = commands.back().kind;
      v.line = commands.back().line;
    }
    v.message = "the engine " + how + " after the last command";
    report.Add(v);
    report.error = how + " after the last command";
    return;
  }
  const Command& at = commands[reported];
  Verdict v;
  v.kind = Verdict::Kind::kFail;
  v.command = at.kind;
  v.line = at.line;
  v.message = "the engine " + how + " on this command";
  report.Add(v);
  uint64_t rest = commands.size() - reported - 1;
  report.failed += rest;  // not run; counted, not listed one by one
  report.error = how + " at line " + std::to_string(at.line) + "; " + std::to_string(rest) +
                 " later commands not run";
}

}  // namespace

std::string EncodeVerdict(const Verdict& v) {
  std::string s;
  s += kKindChars[static_cast<int>(v.kind)];
  s += ' ' + std::to_string(static_cast<int>(v.command)) + ' ' + std::to_string(v.line) + ' ';
  for (char c : v.message) {
    if (c == '\\') {
      s += "\\\\";
    } else if (c == '\n') {
      s += "\\n";
    } else {
      s += c;
    }
  }
  s += '\n';
  return s;
}

bool DecodeVerdict(std::string_view line, Verdict* out) {
  if (line.size() < 2 || line[1] != ' ') return false;
  Verdict v;
  switch (line[0]) {
    case 'P': v.kind = Verdict::Kind::kPass; break;
    case 'F': v.kind = Verdict::Kind::kFail; break;
    case 'S': v.kind = Verdict::Kind::kSkip; break;
    default: return false;
  }
  const char* p = line.data() + 2;
  const char* end = line.data() + line.size();
  unsigned command = 0;
  auto r1 = std::from_chars(p, end, command);
  if (r1.ec != std::errc() || r1.ptr == end || *r1.ptr != ' ') return false;
  if (command > static_cast<unsigned>(CommandKind::kAssertUninstantiable)) return false;
  v.command = static_cast<CommandKind>(command);
  auto r2 = std::from_chars(r1.ptr + 1, end, v.line);
  if (r2.ec != std::errc() || r2.ptr == end || *r2.ptr != ' ') return false;
  for (const char* q = r2.ptr + 1; q < end; ++q) {
    if (*q == '\\' && q + 1 < end) {
      ++q;
      v.message += *q == 'n' ? '\n' : *q;
    } else {
      v.message += *q;
    }
  }
  *out = std::move(v);
  return true;
}

FileReport RunInProcess(std::string name, const ScriptWork& work) {
  FileReport report;
  report.name = std::move(name);
  work([&report](const Verdict& v) { report.Add(v); });
  return report;
}

FileReport RunIsolated(std::string name, std::span<const Command> commands, const ScriptWork& work,
                       std::chrono::seconds timeout) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return RunInProcess(std::move(name), work);
  fflush(stdout);  // or the child would inherit, and later flush, our buffered output
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return RunInProcess(std::move(name), work);
  }
  if (pid == 0) {
    close(fds[0]);
    ChildMain(fds[1], work);
  }
  close(fds[1]);

  FileReport report;
  report.name = std::move(name);
  size_t reported = 0;
  bool finished = Collect(fds[0], report, &reported, timeout);
  if (!finished) kill(pid, SIGKILL);
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  std::string how = DescribeExit(status, !finished, timeout);
  if (how.empty() && reported < commands.size()) how = "stopped early";
  if (!how.empty()) AccountForEarlyStop(report, commands, reported, how);
  return report;
}

}  // namespace ampoule::spectest
