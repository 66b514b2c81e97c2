// What volent-init reads from the kernel command line (/proc/cmdline).
//
// Parameters with a dot in their name (volent.*) are never passed to PID 1
// as arguments or environment: the kernel keeps them for modules. So the
// init reads /proc/cmdline itself, once /proc is mounted.
//
//   volent.test=heartbeat   say one heartbeat, then power off (the boot test)
//
// Other parameters are the kernel's and are ignored here.
#pragma once

#include <string>
#include <string_view>

#include "core/result.h"

namespace volent::init {

enum class TestMode {
  kNone,       // the image's normal life: heartbeats until the machine stops
  kHeartbeat,  // one heartbeat, then power off
};

struct BootOptions {
  TestMode test = TestMode::kNone;
};

// Bounds /proc/cmdline: the kernel's own limit is 2048 bytes on x86 (COMMAND_LINE_SIZE).
inline constexpr size_t kMaxCmdline = 4096;

// Parses a command line (words separated by spaces, tabs or newlines; a
// quoted value "a b" is one word, as the kernel splits them). The last
// volent.test= wins, as the kernel does for repeated parameters. An unknown
// volent.test value is an error naming it and the known ones.
ampoule::Result<BootOptions> ParseCmdline(std::string_view cmdline);

// The contents of /proc/cmdline (at most kMaxCmdline bytes), or what failed.
// REQUIRES: /proc mounted.
ampoule::Result<std::string> ReadCmdline();

}  // namespace volent::init
