// The machine's filesystems once the root is verified, and the move into it.
//
//   /        the verity device, squashfs, read-only, nodev
//   /data    the one writable filesystem: ext4, noexec, nosuid, nodev
//   /run     tmpfs (the boot record, runtime state), noexec, nosuid, nodev
//   /tmp     tmpfs, noexec, nosuid, nodev
//
// SwitchRoot moves /dev, /proc and /sys into the new root, makes it / and
// chroots into it, as switch_root(8) does; the initramfs's files are
// removed first, so nothing of it stays reachable or holds memory.
#pragma once

#include <string>

#include "core/result.h"

namespace volent::init {

// Where the new root is assembled before the switch.
inline constexpr char kNewRoot[] = "/sysroot";

// Mounts `verity_device` at kNewRoot, then `data_device` on its /data and
// the tmpfs mounts. The errors name the mount and the errno text.
core::Status MountRoot(const std::string& verity_device, const std::string& data_device);

// Makes kNewRoot the root. REQUIRES: MountRoot succeeded; PID 1.
core::Status SwitchRoot();

}  // namespace volent::init
