// volent-init: the sealed image's PID 1 (docs/image.md).
//
// From the initramfs, in this order, before anything of the disk runs:
//   1. mounts /proc, /sys, /dev; reads the kernel command line (cmdline.h)
//   2. loads the image's modules (modules.h), then turns module loading off
//      for the rest of the boot, and mounts securityfs and efivarfs read-only
//   3. makes the dm-verity device from the command line's root hash and
//      reads every block through it (verity.h): a wrong hash or any
//      corrupted block panics the kernel there, before anything of the disk
//      runs, and any other failure here halts the machine
//   4. mounts the verified root read-only and /data noexec (root.h),
//      switches into it, writes the boot record (boot_record.h)
//   5. brings the network up (network.h)
//   6. gives /data and the TPM's device to the node's user, starts
//      `volent node --lock-down` as that user with no capability
//      (node_user.h) and supervises it (supervisor.h); a heartbeat
//      on the console every kHeartbeatSeconds; reaps every child; SIGTERM
//      powers off, SIGINT (Ctrl-Alt-Del) reboots, the node stopped first
//
// Without volent.roothash there is no root: the init says its heartbeat
// and lives (the bare boot test). volent.test=heartbeat powers off after
// the first heartbeat (without starting the node), volent.test=checks
// after the checks from inside (selfcheck.h); volent.test=stop takes the
// SIGTERM path on its own once the node has run a few seconds.
//
// Every line goes to the console as "volent-init: ...". A failure that
// leaves no verified root is "volent-init: halt: WHY", then power-off.
//
// Static, libc only: the initramfs holds this file, the modules and no loader.
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <string_view>
#include <vector>

#include "volent/init/boot_record.h"
#include "volent/init/children.h"
#include "volent/init/cmdline.h"
#include "volent/init/console.h"
#include "volent/init/heartbeat.h"
#include "volent/init/modules.h"
#include "volent/init/mounts.h"
#include "volent/init/network.h"
#include "volent/init/node_user.h"
#include "volent/init/power.h"
#include "volent/init/root.h"
#include "volent/init/selfcheck.h"
#include "volent/init/supervisor.h"
#include "volent/init/verity.h"

namespace volent::init {
namespace {

constexpr char kNode[] = "/usr/bin/volent";
constexpr long kDiskWaitMs = 5000;
constexpr long kNodeStopGraceMs = 20000;

void SayIfError(const core::Status& s) {
  if (!s.ok()) Say("error: " + s.message());
}

void Heartbeat() {
  auto now = SinceBoot();
  if (!now.ok()) return Say("error: " + now.message());
  Say(HeartbeatLine(*now));
}

// Powers off, or, when that fails, says so and sleeps forever: a machine
// that cannot end itself must still never go on.
[[noreturn]] void PowerOffOrSleep() {
  ReapChildren();
  Say("powering off");
  SayIfError(PowerOff());
  for (;;) pause();
}

// The root cannot be trusted or used: nothing from the disk may run.
[[noreturn]] void Halt(const std::string& why) {
  Say("halt: " + why);
  PowerOffOrSleep();
}

// The options on the kernel command line. A command line the init cannot
// read or understand halts: it may name a root the init would not verify.
BootOptions ReadOptions() {
  auto text = ReadCmdline();
  if (!text.ok()) Halt(text.message());
  auto options = ParseCmdline(*text);
  if (!options.ok()) Halt(options.message());
  return *options;
}

// Stops the node, flushes /data and powers off (or reboots).
[[noreturn]] void Shutdown(Supervisor* node, bool reboot_after) {
  Say(reboot_after ? "rebooting" : "shutting down");
  if (node) node->Stop(kNodeStopGraceMs);
  ReapChildren();
  sync();
  if (mount(nullptr, "/data", nullptr, MS_REMOUNT | MS_RDONLY, nullptr) != 0 && errno != EINVAL) {
    SayError("remount /data read-only", errno);
  }
  if (!reboot_after) PowerOffOrSleep();
  reboot(RB_AUTOBOOT);
  SayError("reboot", errno);
  PowerOffOrSleep();
}

// Heartbeats, the node's restarts and the signals, forever. `stop_at_ms`
// (volent.test=stop): when to take the SIGTERM path without a signal; -1 never.
[[noreturn]] void Live(Supervisor* node, long stop_at_ms = -1) {
  long next_beat = NowMs() + kHeartbeatSeconds * 1000L;
  for (;;) {
    long now = NowMs();
    if (stop_at_ms >= 0 && now >= stop_at_ms) Shutdown(node, false);
    if (now >= next_beat) {
      Heartbeat();
      next_beat = now + kHeartbeatSeconds * 1000L;
    }
    if (node) node->Tick(now);
    long due = next_beat;
    if (node && node->NextDueMs() >= 0) due = std::min(due, node->NextDueMs());
    if (stop_at_ms >= 0) due = std::min(due, stop_at_ms);
    int signal = WaitForSignal(due - NowMs());
    ReapChildren([&](pid_t pid, int status) {
      if (node) node->Exited(pid, status, NowMs());
    });
    if (signal == SIGTERM || signal == SIGINT) Shutdown(node, signal == SIGINT);
  }
}

// securityfs always; efivarfs only where the firmware is UEFI. A failure is
// said, not fatal: the node's report then says what it could not read.
void MountFirmwareFileSystems() {
  struct stat st;
  const bool efi = stat("/sys/firmware/efi", &st) == 0;
  for (const MountPoint& m : FirmwareMounts()) {
    if (std::string_view(m.fstype) == "efivarfs" && !efi) continue;
    SayIfError(Mount(m));
  }
}

// Steps 2 to 5. Returns the verity device's node.
std::string BringUp(const BootOptions& options) {
  const VerityRoot& root = *options.root;
  std::vector<std::string> skipped;
  if (auto s = LoadModules(kModulesDir, options.module_parameters, &skipped); !s.ok()) Halt(s.message());
  for (const std::string& module : skipped) Say("module " + module + ": no such device on this machine; not loaded");
  if (auto s = TurnOffModuleLoading(); !s.ok()) Halt(s.message());
  Say("module loading turned off (kernel.modules_disabled = 1)");
  MountFirmwareFileSystems();
  if (auto s = WaitForPath(root.device, kDiskWaitMs); !s.ok()) Halt("no root disk: " + s.message());
  auto device = CreateVerityDevice(root);
  if (!device.ok()) Halt(device.message());
  const long read_from = NowMs();
  if (auto s = ReadEveryBlock(*device); !s.ok()) Halt(s.message());
  Say("root " + root.device + " verified by dm-verity as " + *device + " (every block read in " +
      std::to_string(NowMs() - read_from) + " ms), root hash " + root.roothash);
  if (auto s = WaitForPath(options.data_device, kDiskWaitMs); !s.ok()) Halt("no data disk: " + s.message());
  if (auto s = MountRoot(*device, options.data_device); !s.ok()) Halt(s.message());
  if (auto s = SwitchRoot(); !s.ok()) Halt(s.message());
  auto status = ReadVerityStatus();
  if (!status.ok()) Halt(status.message());
  SayIfError(WriteBootRecord(root, *status));
  SayIfError(CopyEventLog());
  SayIfError(BringUpLoopback());
  if (options.network) SayIfError(ConfigureEthernet(*options.network));
  return *device;
}

[[noreturn]] void Run() {
  for (const MountPoint& m : EarlyMounts()) SayIfError(Mount(m));
  AttachConsole();  // if it fails there is no one to tell
  SayIfError(BlockSignals());
  const BootOptions options = ReadOptions();
  if (options.keys == "dev-only") {
    Say("DEV-ONLY KEYS: this image was signed with development Secure Boot keys made by its build; "
        "anyone holding them can sign what boots here: not for production");
  }
  if (!options.root) {
    Heartbeat();
    if (options.test != TestMode::kNone) PowerOffOrSleep();
    Live(nullptr);
  }
  const std::string device = BringUp(options);
  if (options.test == TestMode::kChecks) {
    RunSelfChecks(*options.root, device, kNode);
    PowerOffOrSleep();
  }
  if (options.test == TestMode::kHeartbeat) {
    Heartbeat();
    PowerOffOrSleep();
  }
  // The node runs as its own user with no capability (node_user.h) and
  // locks itself down further (--lock-down: no_new_privs checked, seccomp).
  if (auto s = PrepareNodeData(); !s.ok()) Halt("/data cannot be given to the node: " + s.message());
  PrepareTpmDevices();
  Supervisor node({kNode, "node", "--config", "/etc/volent/volent.yaml", "--data-dir", "/data", "--lock-down"},
                  {"PATH=/usr/bin", "HOME=/data", "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"}, BecomeNodeUser);
  node.Tick(NowMs());
  Heartbeat();
  Live(&node, options.test == TestMode::kStop ? NowMs() + kStopTestSeconds * 1000L : -1);
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
