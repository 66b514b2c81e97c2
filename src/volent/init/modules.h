// Loading the kernel modules the image needs (virtio, squashfs, dm-verity,
// ext4, the network), from the initramfs, in the order the image build
// wrote: scripts/image/kernel.sh lists them dependencies first in
// modules/load-order. There is no modprobe: finit_module(2) on each file,
// with the MODULE.KEY=VALUE parameters the kernel command line gave it.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/result.h"

namespace volent::init {

// The folder of the initramfs that holds the .ko files and load-order.
inline constexpr char kModulesDir[] = "/modules";

// Loads every module `dir`/load-order names, in order; a module already
// loaded (or built in) counts as loaded, and one whose init says ENODEV
// (no such device on this machine: efivarfs without UEFI) is added to
// `skipped`. Stops at any other failure, naming the module and the kernel's
// errno text. `parameters` maps a module name (dashes as underscores) to
// its "KEY=VALUE ..." string.
core::Status LoadModules(const std::string& dir, const std::map<std::string, std::string>& parameters,
                         std::vector<std::string>* skipped);

// Turns module loading off for the rest of this boot
// (/proc/sys/kernel/modules_disabled = 1, which no one can set back): once
// the root's modules are in, nothing, root or not, can load another.
core::Status TurnOffModuleLoading();

// Waits up to `timeout_ms` for `path` (a device node or a /sys entry) to
// exist: a driver's probe may finish after its module's init returns.
core::Status WaitForPath(const std::string& path, long timeout_ms);

}  // namespace volent::init
