// Supervising `volent node`, the one long-lived program of the image: PID 1
// starts it from the verified root, restarts it when it exits (after 1, 2,
// 4 ... up to 30 seconds; back to 1 once it has run for a minute), and
// stops it (SIGTERM, then SIGKILL after a grace period) before the machine
// powers off or reboots. Its output goes to the console.
//
// The node is the same program `volent node` is on any host (the same
// node library, boot/node.h), with the image's configuration
// (/etc/volent/volent.yaml, part of the verified root) and /data.
//
// Not thread-safe; PID 1 is one thread.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace volent::init {

class Supervisor {
 public:
  // `argv`: the program and its arguments; `env`: its whole environment.
  // `before_exec`, when given, runs in the child before execve (the node's
  // user taken, node_user.h); it must be async-signal-safe, and when it
  // returns false the child exits 126 without running the program.
  Supervisor(std::vector<std::string> argv, std::vector<std::string> env, bool (*before_exec)() = nullptr);

  // Starts the program if it is not running and its restart is due.
  // `now_ms`: CLOCK_BOOTTIME in milliseconds.
  void Tick(long now_ms);
  // When Tick next has something to do (a pending restart), or -1.
  long NextDueMs() const;
  // A reaped child: if it is the program, records the exit and schedules
  // the restart. Other pids are ignored.
  void Exited(pid_t pid, int status, long now_ms);
  // SIGTERM, then SIGKILL after `grace_ms`; reaps it. No restart after this.
  void Stop(long grace_ms);

  pid_t pid() const { return pid_; }
  int starts() const { return starts_; }

 private:
  std::vector<std::string> argv_;
  std::vector<std::string> env_;
  bool (*before_exec_)() = nullptr;
  pid_t pid_ = 0;
  long started_ms_ = 0;
  long due_ms_ = 0;  // the next start; -1 after Stop
  long backoff_ms_ = 1000;
  int starts_ = 0;
};

}  // namespace volent::init
