// sock_*: a run has no network, and no descriptor is a socket.
#include "ampoule/wasi/wasi_calls.h"

namespace ampoule::wasi {
namespace {

Errno NotASocket(WasiContext& ctx, u32 fd) {
  return ctx.fds().Get(fd) == nullptr ? Errno::kBadf : Errno::kNotSock;
}

}  // namespace

Errno SockAccept(WasiContext& ctx, GuestMemory&, u32 fd, u32, u32) { return NotASocket(ctx, fd); }
Errno SockRecv(WasiContext& ctx, GuestMemory&, u32 fd, u32, u32, u32, u32, u32) {
  return NotASocket(ctx, fd);
}
Errno SockSend(WasiContext& ctx, GuestMemory&, u32 fd, u32, u32, u32, u32) {
  return NotASocket(ctx, fd);
}
Errno SockShutdown(WasiContext& ctx, GuestMemory&, u32 fd, u32) { return NotASocket(ctx, fd); }

}  // namespace ampoule::wasi
