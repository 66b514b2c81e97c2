// bench/rusage_run: runs a command and reports what it used.
//
//   rusage_run REPORT_FILE COMMAND [ARGS...]
//
// Writes "PEAK_RSS_KIB USER_SECONDS SYSTEM_SECONDS SIGNAL" to REPORT_FILE
// (SIGNAL is 0 unless a signal ended COMMAND) and exits as COMMAND did
// (128 + N if signal N ended it). Exists because a process
// spawned from Python inherits Python's resident size as the floor of its
// peak RSS; this launcher is small, so what it reports is the command's own.
#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc < 3) {
    fputs("usage: rusage_run REPORT_FILE COMMAND [ARGS...]\n", stderr);
    return 125;
  }
  pid_t pid = fork();
  if (pid < 0) {
    perror("rusage_run: fork");
    return 125;
  }
  if (pid == 0) {
    execvp(argv[2], argv + 2);
    perror("rusage_run: exec");
    _exit(127);
  }
  int status;
  struct rusage usage;
  if (wait4(pid, &status, 0, &usage) < 0) {
    perror("rusage_run: wait4");
    return 125;
  }
  FILE* report = fopen(argv[1], "w");
  if (!report) {
    perror("rusage_run: report file");
    return 125;
  }
  fprintf(report, "%ld %ld.%06ld %ld.%06ld %d\n", usage.ru_maxrss, (long)usage.ru_utime.tv_sec,
          (long)usage.ru_utime.tv_usec, (long)usage.ru_stime.tv_sec, (long)usage.ru_stime.tv_usec,
          WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  fclose(report);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}
