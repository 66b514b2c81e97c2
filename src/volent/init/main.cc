// volent-init: the sealed image's PID 1 (docs/image.md, SPEC B8).
//
// This slice: mount /proc, /sys and /dev; say a heartbeat on the console;
// reap children. With volent.test=heartbeat on the kernel command line it
// says one heartbeat and powers the machine off, which ends the boot test
// (tests/image/boot_test.sh). Without it, a heartbeat every
// kHeartbeatSeconds, forever: PID 1 never exits.
//
// Every failure goes to the console as "volent-init: error: WHAT: WHY" and
// the init goes on as far as it can: a heartbeat after a failed mount still
// tells more than a kernel panic.
//
// Static, libc only: the initramfs holds this one file and no loader.
#include <unistd.h>

#include <cstdio>

#include "volent/init/children.h"
#include "volent/init/cmdline.h"
#include "volent/init/console.h"
#include "volent/init/heartbeat.h"
#include "volent/init/mounts.h"
#include "volent/init/power.h"

namespace volent::init {
namespace {

void SayIfError(const ampoule::Status& s) {
  if (!s.ok()) Say("error: " + s.message());
}

void Heartbeat() {
  auto now = SinceBoot();
  if (!now.ok()) return Say("error: " + now.message());
  Say(HeartbeatLine(*now));
}

// The options on the kernel command line; the defaults when it cannot be read.
// `*ok` is false when the command line named something the init cannot do.
BootOptions ReadOptions(bool* ok) {
  *ok = true;
  auto text = ReadCmdline();
  if (!text.ok()) {
    Say("error: " + text.message());
    return {};
  }
  auto options = ParseCmdline(*text);
  if (!options.ok()) {
    Say("error: " + options.message());
    *ok = false;
    return {};
  }
  return *options;
}

// Heartbeats every kHeartbeatSeconds and reaps children in between, forever.
[[noreturn]] void Live() {
  auto ms = [] {
    auto now = SinceBoot();
    return now.ok() ? now->tv_sec * 1000L + now->tv_nsec / 1000000 : 0L;
  };
  long next = ms() + kHeartbeatSeconds * 1000L;
  for (;;) {
    long now = ms();
    if (now >= next) {
      Heartbeat();
      next = now + kHeartbeatSeconds * 1000L;
    }
    WaitForChild(next - now);  // > 0: a due heartbeat moved `next` on
    ReapChildren();
  }
}

// Powers off, or, when that fails, says so and lives on.
[[noreturn]] void PowerOffOrLive() {
  ReapChildren();
  Say("powering off");
  SayIfError(PowerOff());
  Live();
}

[[noreturn]] void Run() {
  for (const MountPoint& m : EarlyMounts()) SayIfError(Mount(m));
  AttachConsole();  // if it fails there is no one to tell
  SayIfError(BlockChildSignal());
  bool options_ok = true;
  BootOptions options = ReadOptions(&options_ok);
  Heartbeat();
  // A test was asked for that this init does not know: end the machine
  // rather than leave the test waiting for its timeout.
  if (!options_ok || options.test == TestMode::kHeartbeat) PowerOffOrLive();
  Live();
}

}  // namespace
}  // namespace volent::init

int main() {
  // Run anywhere but as PID 1 it would mount over the host's /proc and
  // power the host off.
  if (getpid() != 1) {
    std::fprintf(stderr, "volent-init: refusing to run: this is the sealed image's PID 1, not a command\n");
    return 2;
  }
  volent::init::Run();
}
