// Ending the machine from PID 1. PID 1 must never exit (the kernel panics
// when it does), so a power-off that fails says why and leaves the caller
// to go on living.
#pragma once

#include "core/result.h"

namespace volent::init {

// Flushes the filesystems and powers the machine off (reboot(2) with
// RB_POWER_OFF; under QEMU, through ACPI, which makes QEMU exit). Returns
// only on failure, with what failed (EPERM without CAP_SYS_BOOT).
core::Status PowerOff();

}  // namespace volent::init
