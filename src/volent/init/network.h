// The image's network, set by PID 1 without a DHCP client: loopback up, and
// eth0 (virtio-net) with the address and default route the kernel command
// line gave (volent.ip, volent.gateway). Under QEMU's user networking that is
// 10.0.2.15/24 via 10.0.2.2, the host. Everything the node may reach beyond
// that is still decided by its egress gate.
#pragma once

#include "core/result.h"
#include "volent/init/cmdline.h"

namespace volent::init {

// Brings `lo` up (the kernel gives it 127.0.0.1/8).
core::Status BringUpLoopback();

// Waits for eth0, gives it `network`'s address and prefix, brings it up and,
// with a gateway, adds the default route.
core::Status ConfigureEthernet(const Network& network);

}  // namespace volent::init
