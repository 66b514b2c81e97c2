// What volent-init reads from the kernel command line (/proc/cmdline).
//
// Parameters with a dot in their name (volent.*) are never passed to PID 1
// as arguments or environment: the kernel keeps them for modules. So the
// init reads /proc/cmdline itself, once /proc is mounted.
//
//   volent.test=heartbeat     bring the machine up, one heartbeat, power off
//   volent.test=checks        bring it up, check the root from inside
//                             (selfcheck.h), power off
//   volent.test=stop          bring it up, start the node, and after
//                             kStopTestSeconds stop the machine as SIGTERM
//                             would (the node stopped first)
//   volent.keys=dev-only      the Secure Boot keys that signed this boot's
//   volent.keys=production    unified kernel image (set by the image build
//                             inside the signed command line): dev-only is
//                             said on the console at every boot
//   volent.roothash=HEX       the root is dm-verity: the SHA-256 root of its
//   volent.salt=HEX|-         hash tree, the tree's salt, the data blocks
//   volent.data_blocks=N      (4096 bytes) and the block where the tree
//   volent.hash_start=N       starts, all on volent.root (default /dev/vda)
//   volent.root=/dev/NAME
//   volent.data=/dev/NAME     the writable /data (ext4; default /dev/vdb)
//   volent.ip=A.B.C.D/N       eth0's address; volent.gateway=A.B.C.D its
//                             default route (no address: no network)
//   MODULE.KEY=VALUE          a parameter for a module the init loads
//                             (modprobe's convention, kept since the image
//                             has no modprobe)
//
// Without volent.roothash there is no root to verify and the init only says
// its heartbeat (the bare boot test). Other parameters are the kernel's and
// are ignored here. The last of a repeated parameter wins, as in the kernel.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"

namespace volent::init {

enum class TestMode {
  kNone,       // the image's normal life: the node, heartbeats until the machine stops
  kHeartbeat,  // up, one heartbeat, then power off
  kChecks,     // up, the checks from inside, then power off
  kStop,       // up, the node started, then the SIGTERM path after kStopTestSeconds
};

inline constexpr int kStopTestSeconds = 8;

// The dm-verity root, as `veritysetup format --no-superblock` made it.
struct VerityRoot {
  std::string device = "/dev/vda";  // data and hash tree on one disk
  std::string roothash;             // 64 lowercase hex digits
  std::string salt = "-";           // lowercase hex, or "-" for none
  uint64_t data_blocks = 0;         // 4096-byte blocks of the squashfs
  uint64_t hash_start = 0;          // the tree's first 4096-byte block
};

struct Network {
  std::string address;  // dotted quad
  int prefix = 24;
  std::string gateway;  // empty: no default route
};

struct BootOptions {
  TestMode test = TestMode::kNone;
  std::optional<VerityRoot> root;
  std::string data_device = "/dev/vdb";
  std::optional<Network> network;
  std::string keys;  // "", dev-only or production (volent.keys)
  // Module name (dashes as underscores) -> "KEY=VALUE KEY=VALUE".
  std::map<std::string, std::string> module_parameters;
};

// Bounds /proc/cmdline: the kernel's own limit is 2048 bytes on x86 (COMMAND_LINE_SIZE).
inline constexpr size_t kMaxCmdline = 4096;

// Parses a command line (words separated by spaces, tabs or newlines; a
// quoted value "a b" is one word, as the kernel splits them). An unknown
// volent.* parameter or value, a malformed hash, number or address is an
// error naming it: the init must not guess what the root is.
core::Result<BootOptions> ParseCmdline(std::string_view cmdline);

// The contents of /proc/cmdline (at most kMaxCmdline bytes), or what failed.
// REQUIRES: /proc mounted.
core::Result<std::string> ReadCmdline();

}  // namespace volent::init
