// SpawnJailed: checks the request, prepares everything the child needs (the
// child may not allocate), and launches it.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <string>
#include <vector>

#include "ampoule/sandbox/jail.h"
#include "ampoule/sandbox/jail_launch.h"
#include "ampoule/sandbox/seccomp_policy.h"

namespace ampoule {
namespace {

constexpr size_t kMaxChildFds = 64;  // as in jail_child.cc

// A directory would lead out of the empty root (openat relative to it), and
// a writable regular file could be overwritten (RLIMIT_FSIZE only stops
// growth): neither is handed to a jail.
core::Status CheckMappable(int fd, size_t index) {
  const std::string which =
      "jail: descriptor " + std::to_string(fd) + " (for child fd " + std::to_string(index) + ")";
  struct stat st;
  const int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || fstat(fd, &st) != 0) return core::Error{which + " is not open"};
  if (S_ISDIR(st.st_mode)) return core::Error{which + " is a directory; only files and pipes can be mapped"};
  if (S_ISREG(st.st_mode) && (flags & O_ACCMODE) != O_RDONLY)
    return core::Error{which + " is a regular file open for writing; map files read-only"};
  return core::Status::Ok();
}

core::Status CheckRequest(int exec_fd, std::span<const int> child_fds,
                    std::span<const std::string> argv, const JailOptions& options) {
  if (argv.empty()) return core::Error{"jail: argv must have at least the program name"};
  if (child_fds.size() > kMaxChildFds)
    return core::Error{"jail: at most " + std::to_string(kMaxChildFds) + " descriptors can be mapped"};
  if (options.max_open_files < child_fds.size() + 2)
    return core::Error{"jail: max_open_files (" + std::to_string(options.max_open_files) +
                 ") must exceed the number of mapped descriptors plus one"};
  if (fcntl(exec_fd, F_GETFD) < 0) return core::Error{"jail: the executable descriptor is not open"};
  for (size_t i = 0; i < child_fds.size(); ++i) CORE_RETURN_IF_ERROR(CheckMappable(child_fds[i], i));
  return core::Status::Ok();
}

std::vector<ChildLimit> Limits(const JailOptions& options) {
  return {
      {RLIMIT_AS, options.address_space_bytes},
      {RLIMIT_CPU, options.cpu_seconds},
      {RLIMIT_NOFILE, options.max_open_files},
      {RLIMIT_NPROC, options.max_processes},
      {RLIMIT_FSIZE, 0},      // no file grows
      {RLIMIT_CORE, 0},
      {RLIMIT_MEMLOCK, 0},
      {RLIMIT_MSGQUEUE, 0},
      {RLIMIT_LOCKS, 0},
  };
}

}  // namespace

core::Result<JailedProcess> SpawnJailed(int exec_fd, std::span<const int> child_fds,
                                  std::span<const std::string> argv, const JailOptions& options) {
  CORE_RETURN_IF_ERROR(CheckRequest(exec_fd, child_fds, argv, options));
  const bool jailed = !options.insecure_no_jail;
  std::optional<SeccompProgram> filter;
  sock_fprog fprog{};
  if (jailed && !options.skip_seccomp_for_testing) {
    // In the child the executable sits right after the mapped descriptors.
    core::Result<SeccompProgram> compiled =
        CompileSeccompFilter(SeccompStage::kLaunch, static_cast<int>(child_fds.size()));
    if (!compiled.ok()) return compiled.error();
    filter = std::move(compiled).value();
    fprog = filter->fprog();
  }
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  char* no_environment[] = {nullptr};
  const std::vector<ChildLimit> limits = Limits(options);

  ChildPlan plan;
  plan.jailed = jailed;
  plan.exec_fd = exec_fd;
  plan.child_fds = child_fds.data();
  plan.child_fd_count = child_fds.size();
  plan.argv = args.data();
  plan.envp = no_environment;
  plan.limits = limits.data();
  plan.limit_count = limits.size();
  plan.seccomp = filter ? &fprog : nullptr;
  core::Result<LaunchedChild> child = LaunchJailChild(plan);
  if (!child.ok()) return child.error();
  return JailedProcess(child->pid, std::move(child->pidfd), jailed, options.cpu_seconds);
}

}  // namespace ampoule
