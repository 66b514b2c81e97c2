// Running ampoule as a child with captured output (see spawn.h).
#include "ampoule/demo/spawn.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include "core/errno_text.h"

namespace ampoule::demo {
namespace {

void CloseBoth(int fds[2]) {
  close(fds[0]);
  close(fds[1]);
}

}  // namespace

core::Result<Captured> RunSelf(const std::vector<std::string>& args, const std::string& cwd) {
  // Everything the child needs is prepared before fork: after it, only
  // async-signal-safe calls.
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>("ampoule"));
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);

  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) return core::Errno("pipe");
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    CloseBoth(out_pipe);
    return core::Errno("pipe");
  }
  const pid_t pid = fork();
  if (pid < 0) {
    CloseBoth(out_pipe);
    CloseBoth(err_pipe);
    return core::Errno("fork");
  }
  if (pid == 0) {
    int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null_fd < 0 || dup2(null_fd, 0) < 0 || dup2(out_pipe[1], 1) < 0 ||
        dup2(err_pipe[1], 2) < 0 || chdir(cwd.c_str()) != 0) {
      _exit(127);
    }
    execv("/proc/self/exe", argv.data());
    const char msg[] = "ampoule demo: cannot run /proc/self/exe\n";
    (void)!write(2, msg, sizeof msg - 1);
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);

  Captured c;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&c.out, &c.err};
  int open_fds = 2;
  core::Status read_error;
  while (open_fds > 0) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      read_error = core::Errno("poll");
      break;
    }
    for (int k = 0; k < 2; ++k) {
      if (fds[k].fd < 0 || fds[k].revents == 0) continue;
      char buf[65536];
      ssize_t n = read(fds[k].fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        close(fds[k].fd);
        fds[k].fd = -1;  // poll ignores negative descriptors
        --open_fds;
        continue;
      }
      sinks[k]->append(buf, n);
    }
  }
  for (pollfd& p : fds) {
    if (p.fd >= 0) close(p.fd);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return core::Errno("waitpid");
  }
  if (!read_error.ok()) return read_error.error();
  c.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return c;
}

}  // namespace ampoule::demo
