// The console of the sealed image's PID 1: where every line volent-init says
// goes, the heartbeat and the errors alike, since the console (a serial port
// under QEMU) is the only thing a person or a test can read before the node
// runs.
//
// The kernel hands PID 1 its console as fds 0, 1 and 2 when the initramfs has
// /dev/console; AttachConsole covers the case where it had none.
//
// Not thread-safe; PID 1 is one thread.
#pragma once

#include <string_view>

namespace volent::init {

// Writes "volent-init: LINE\n" to fd 1 in one write(2), so the line is not
// interleaved with the kernel's own console output. Errors are ignored:
// there is nowhere else to report them.
void Say(std::string_view line);

// Says "error: WHAT: strerror(errnum)".
void SayError(std::string_view what, int errnum);

// If fd 1 is not open (the kernel found no /dev/console to give PID 1),
// opens /dev/console, which exists once devtmpfs is mounted on /dev, and
// makes it fds 0, 1 and 2. Returns false when no console could be opened.
bool AttachConsole();

}  // namespace volent::init
