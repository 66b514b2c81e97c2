// The filesystems PID 1 mounts before anything else: /proc (the kernel
// command line, later the node's process view), /sys (later: block devices
// and dm-verity) and /dev as devtmpfs (the console and, later, the disks;
// the kernel makes the device nodes, so the image ships none).
#pragma once

#include <span>

#include "core/result.h"

namespace volent::init {

struct MountPoint {
  const char* target;  // created (mode 0755) if missing
  const char* fstype;  // also the mount's source name
  unsigned long flags;
};

// /proc, /sys and /dev, in the order they are mounted.
std::span<const MountPoint> EarlyMounts();

// securityfs (the TPM's event log, /sys/kernel/security/tpm0) and, once
// the efivarfs module is loaded, the UEFI variables (SecureBoot): both
// read-only, mounted after the modules. efivarfs only exists on a machine
// booted through UEFI (/sys/firmware/efi): elsewhere it is not mounted.
std::span<const MountPoint> FirmwareMounts();

// Mounts `m`. A target already mounted with that type counts as done
// (EBUSY: a kernel with CONFIG_DEVTMPFS_MOUNT may have mounted /dev).
// The error names the target, the type and the errno text.
core::Status Mount(const MountPoint& m);

}  // namespace volent::init
