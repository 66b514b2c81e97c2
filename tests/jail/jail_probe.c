/* A static program run inside the jail by src/ampoule/sandbox/jail_test.cc.
 *
 * argv[1] names what to do. Behaviours: hello, exit N, crash, spin,
 * spin-family, echo, fd-kinds, info, write-file. Escape attempts: everything in
 * kAttempts below. An attempt prints "ATTEMPT <name>" before it tries (so a
 * seccomp kill still leaves a trace) and then "RESULT <name> blocked: ..."
 * or "RESULT <name> ALLOWED: ..." and exits 0 or 1. Output goes through
 * write(2) directly: a process killed by SIGSYS has no stdio buffers to
 * flush. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

extern char** environ;

static void say(const char* format, ...) __attribute__((format(printf, 1, 2)));
static void say(const char* format, ...) {
  char line[512];
  va_list args;
  va_start(args, format);
  int n = vsnprintf(line, sizeof line, format, args);
  va_end(args);
  if (n > (int)sizeof line - 1) n = sizeof line - 1;
  if (write(1, line, n) < 0) _exit(3);
}

/* Reports a call that returned: failure (rc < 0) is "blocked". */
static int verdict(const char* name, long rc) {
  if (rc < 0) {
    say("RESULT %s blocked: errno %d (%s)\n", name, errno, strerror(errno));
    return 0;
  }
  say("RESULT %s ALLOWED: returned %ld\n", name, rc);
  return 1;
}

static int try_socket(void) { return verdict("socket", socket(AF_INET, SOCK_STREAM, 0)); }

static int try_connect(void) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return verdict("connect", fd);
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(22)};
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return verdict("connect", connect(fd, (struct sockaddr*)&addr, sizeof addr));
}

static int try_open_passwd(void) { return verdict("open-passwd", open("/etc/passwd", O_RDONLY)); }

static int try_open_host(void) {
  /* Anything of the host: the test binary's own directory, /proc, /tmp. */
  const char* paths[] = {"/proc/self/status", "/tmp", "/usr/bin", "/bin/sh", "/dev/null"};
  for (size_t i = 0; i < sizeof paths / sizeof *paths; ++i) {
    int fd = open(paths[i], O_RDONLY);
    if (fd >= 0) {
      say("RESULT open-host ALLOWED: opened %s\n", paths[i]);
      return 1;
    }
  }
  say("RESULT open-host blocked: errno %d (%s)\n", errno, strerror(errno));
  return 0;
}

static int try_list_root(void) {
  DIR* dir = opendir("/");
  if (!dir) return verdict("list-root", -1);
  int entries = 0;
  for (struct dirent* e; (e = readdir(dir));)
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) ++entries;
  if (entries == 0) {
    say("RESULT list-root blocked: the root is empty\n");
    return 0;
  }
  say("RESULT list-root ALLOWED: %d entries\n", entries);
  return 1;
}

static int try_kill(const char* name, pid_t target) {
  long rc = kill(target, SIGKILL);
  /* Reaching here, the call did not kill this process; a 0 for pid 0 or 1
   * (its own group, itself) reached nothing outside. */
  if (rc == 0 && (target == 0 || target == 1)) {
    say("RESULT %s blocked: pid %d is this process itself\n", name, target);
    return 0;
  }
  return verdict(name, rc);
}

static int try_fork(void) {
  pid_t pid = fork();
  if (pid == 0) _exit(0);
  return verdict("fork", pid);
}

static int try_fork_bomb(void) {
  int made = 0;
  for (int i = 0; i < 1000; ++i) {
    pid_t pid = fork();
    if (pid == 0) pause();
    if (pid > 0) ++made;
  }
  if (made == 0) return verdict("fork-bomb", -1);
  say("RESULT fork-bomb ALLOWED: %d processes\n", made);
  return 1;
}

static int try_exec_sh(void) {
  char* argv[] = {"/bin/sh", "-c", "echo escaped", NULL};
  return verdict("exec-sh", execve("/bin/sh", argv, environ));
}

static int try_memfd_exec(void) {
  return verdict("memfd-exec", memfd_create("x", 0));
}

static int try_mount(void) { return verdict("mount", mount("none", "/", "tmpfs", 0, NULL)); }
static int try_unshare(void) { return verdict("unshare", unshare(CLONE_NEWUSER | CLONE_NEWNET)); }
static int try_ptrace(void) { return verdict("ptrace", ptrace(PTRACE_TRACEME, 0, NULL, NULL)); }
static int try_setns(void) { return verdict("setns", setns(0, 0)); }
static int try_bpf(void) { return verdict("bpf", syscall(SYS_bpf, 0, NULL, 0)); }
static int try_keyctl(void) { return verdict("keyctl", syscall(SYS_keyctl, 0, 0, 0, 0, 0)); }
static int try_io_uring(void) { return verdict("io_uring", syscall(SYS_io_uring_setup, 1, NULL)); }
static int try_userfaultfd(void) { return verdict("userfaultfd", syscall(SYS_userfaultfd, 0)); }
static int try_perf(void) {
  return verdict("perf_event_open", syscall(SYS_perf_event_open, NULL, 0, -1, -1, 0));
}
static int try_chroot(void) { return verdict("chroot", chroot("/")); }

static int try_env(void) {
  int count = 0;
  while (environ && environ[count]) ++count;
  if (count == 0) {
    say("RESULT env blocked: the environment is empty\n");
    return 0;
  }
  say("RESULT env ALLOWED: %d variables, first %s\n", count, environ[0]);
  return 1;
}

static int try_fds(void) {
  /* Descriptors 0, 1 and 2 are the mapped ones; anything else leaked. */
  int leaked = 0;
  for (int fd = 3; fd < 1024; ++fd)
    if (fcntl(fd, F_GETFD) >= 0) {
      say("leaked descriptor %d\n", fd);
      ++leaked;
    }
  if (leaked == 0) {
    say("RESULT fds blocked: only the mapped descriptors are open\n");
    return 0;
  }
  say("RESULT fds ALLOWED: %d extra descriptors\n", leaked);
  return 1;
}

struct attempt {
  const char* name;
  int (*run)(void);
};

static int try_kill_all(void) { return try_kill("kill-all", -1); }
static int try_kill_init(void) { return try_kill("kill-init", 1); }
static int try_kill_parent(void) { return try_kill("kill-parent", getppid()); }
static int try_kill_group(void) { return try_kill("kill-group", 0); }

static const struct attempt kAttempts[] = {
    {"socket", try_socket},         {"connect", try_connect},
    {"open-passwd", try_open_passwd}, {"open-host", try_open_host},
    {"list-root", try_list_root},   {"kill-all", try_kill_all},
    {"kill-init", try_kill_init},   {"kill-parent", try_kill_parent},
    {"kill-group", try_kill_group}, {"fork", try_fork},
    {"fork-bomb", try_fork_bomb},   {"exec-sh", try_exec_sh},
    {"memfd-exec", try_memfd_exec}, {"mount", try_mount},
    {"unshare", try_unshare},       {"ptrace", try_ptrace},
    {"setns", try_setns},           {"bpf", try_bpf},
    {"keyctl", try_keyctl},         {"io_uring", try_io_uring},
    {"userfaultfd", try_userfaultfd}, {"perf_event_open", try_perf},
    {"chroot", try_chroot},         {"env", try_env},
    {"fds", try_fds},
};

static int info(void) {
  struct utsname u;
  uname(&u);
  int env = 0;
  while (environ && environ[env]) ++env;
  say("uid=%d gid=%d euid=%d pid=%d ppid=%d hostname=%s env=%d\n", (int)getuid(), (int)getgid(),
      (int)geteuid(), (int)getpid(), (int)getppid(), u.nodename, env);
  return 0;
}

/* Three children and itself spinning, all holding descriptor 1: the test
 * sees end-of-file on the pipe only when every one of them is dead. */
static int spin_family(void) {
  for (int i = 0; i < 3; ++i) {
    pid_t pid = fork();
    if (pid < 0) {
      say("fork failed: %s\n", strerror(errno));
      return 2;
    }
    if (pid == 0) break;
  }
  say("spinning\n");
  for (;;) {
  }
}

/* "0:r 1:w ...": the access mode of every open descriptor below 64. */
static int fd_kinds(void) {
  for (int fd = 0; fd < 64; ++fd) {
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0) say("%d:%c ", fd, (flags & O_ACCMODE) == O_RDONLY ? 'r' : 'w');
  }
  say("\n");
  return 0;
}

static int echo(void) {
  char buffer[4096];
  ssize_t n;
  while ((n = read(0, buffer, sizeof buffer)) > 0)
    if (write(1, buffer, n) != n) return 2;
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 2) return 64;
  const char* mode = argv[1];
  if (!strcmp(mode, "hello")) {
    say("hello from the jail");
    for (int i = 2; i < argc; ++i) say(" %s", argv[i]);
    say("\n");
    return 0;
  }
  if (!strcmp(mode, "exit") && argc > 2) return atoi(argv[2]);
  if (!strcmp(mode, "crash")) {
    *(volatile int*)0 = 1;
    return 0;
  }
  if (!strcmp(mode, "spin"))
    for (;;) {
    }
  if (!strcmp(mode, "spin-family")) return spin_family();
  if (!strcmp(mode, "echo")) return echo();
  if (!strcmp(mode, "fd-kinds")) return fd_kinds();
  if (!strcmp(mode, "info")) return info();
  if (!strcmp(mode, "write-file")) return write(3, "x", 1) == 1 ? 0 : 2;
  for (size_t i = 0; i < sizeof kAttempts / sizeof *kAttempts; ++i) {
    if (!strcmp(mode, kAttempts[i].name)) {
      say("ATTEMPT %s\n", mode);
      return kAttempts[i].run();
    }
  }
  say("unknown mode %s\n", mode);
  return 64;
}
