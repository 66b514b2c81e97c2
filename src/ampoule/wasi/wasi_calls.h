// The wasi_snapshot_preview1 functions, one C++ function each, taking the
// raw ABI arguments (i32 as uint32_t, i64 as uint64_t; pointers are guest
// addresses) and returning the errno the guest receives.
//
// Contract shared by all of them:
//   - every guest pointer is checked through GuestMemory; a range outside
//     memory is kFault and nothing is written;
//   - a call either succeeds completely or changes no guest-visible state,
//     except where noted (a fault while writing results after reading
//     stdin or a file leaves the read position advanced, as POSIX read
//     into a bad buffer may);
//   - nothing here aborts, throws, or touches the host: files live in the
//     run's in-memory filesystem (ctx.vfs()), time and randomness come
//     from ctx.env().
// proc_exit is not here: it does not return, so the glue (wasi_host.cc)
// turns it into HostResult::Exit directly.
//
// The implementations live in wasi_calls_*.cc, grouped by area.
#pragma once

#include <cstdint>

#include "ampoule/wasi/errno.h"
#include "ampoule/wasi/guest_memory.h"
#include "ampoule/wasi/wasi_context.h"

namespace ampoule::wasi {

using u32 = uint32_t;
using u64 = uint64_t;

// wasi_calls_process.cc: args, environment, clocks, random, scheduling,
// signals.
Errno ArgsGet(WasiContext& ctx, GuestMemory& mem, u32 argv, u32 argv_buf);
Errno ArgsSizesGet(WasiContext& ctx, GuestMemory& mem, u32 argc_out, u32 buf_size_out);
Errno EnvironGet(WasiContext& ctx, GuestMemory& mem, u32 environ, u32 environ_buf);
Errno EnvironSizesGet(WasiContext& ctx, GuestMemory& mem, u32 count_out, u32 buf_size_out);
Errno ClockResGet(WasiContext& ctx, GuestMemory& mem, u32 clock_id, u32 res_out);
Errno ClockTimeGet(WasiContext& ctx, GuestMemory& mem, u32 clock_id, u64 precision, u32 time_out,
                   u64 fuel_used);
Errno RandomGet(WasiContext& ctx, GuestMemory& mem, u32 buf, u32 buf_len);
Errno SchedYield(WasiContext& ctx, GuestMemory& mem);
Errno ProcRaise(WasiContext& ctx, GuestMemory& mem, u32 sig);

// wasi_calls_poll.cc
Errno PollOneoff(WasiContext& ctx, GuestMemory& mem, u32 in, u32 out, u32 nsubscriptions,
                 u32 nevents_out, u64 fuel_used);

// wasi_calls_fd.cc: descriptors.
Errno FdAdvise(WasiContext& ctx, GuestMemory& mem, u32 fd, u64 offset, u64 len, u32 advice);
Errno FdAllocate(WasiContext& ctx, GuestMemory& mem, u32 fd, u64 offset, u64 len);
Errno FdClose(WasiContext& ctx, GuestMemory& mem, u32 fd);
Errno FdDatasync(WasiContext& ctx, GuestMemory& mem, u32 fd);
Errno FdFdstatGet(WasiContext& ctx, GuestMemory& mem, u32 fd, u32 stat_out);
Errno FdFdstatSetFlags(WasiContext& ctx, GuestMemory& mem, u32 fd, u32 flags);
Errno FdFdstatSetRights(WasiContext& ctx, GuestMemory& mem, u32 fd, u64 base, u64 inheriting);
Errno FdFilestatGet(WasiContext& ctx, GuestMemory& mem, u32 fd, u32 stat_out);
Errno FdFilestatSetSize(WasiContext& ctx, GuestMemory& mem, u32 fd, u64 size);
Errno FdFilestatSetTimes(WasiContext& ctx, GuestMemory& mem, u32 fd, u64 atim, u64 mtim,
                         u32 fst_flags);
Errno FdPrestatGet(WasiContext& ctx, GuestMemory& mem, u32 fd, u32 prestat_out);
Errno FdPrestatDirName(WasiContext& ctx, GuestMemory& mem, u32 fd, u32 path, u32 path_len);
Errno FdRenumber(WasiContext& ctx, GuestMemory& mem, u32 fd, u32 to);
Errno FdSeek(WasiContext& ctx, GuestMemory& mem, u32 fd, u64 offset, u32 whence, u32 newoffset_out);
Errno FdSync(WasiContext& ctx, GuestMemory& mem, u32 fd);
Errno FdTell(WasiContext& ctx, GuestMemory& mem, u32 fd, u32 offset_out);

// wasi_calls_io.cc: reading, writing, listing.
Errno FdRead(WasiContext& ctx, GuestMemory& mem, u32 fd, u32 iovs, u32 iovs_len, u32 nread_out);
Errno FdPread(WasiContext& ctx, GuestMemory& mem, u32 fd, u32 iovs, u32 iovs_len, u64 offset,
              u32 nread_out);
Errno FdWrite(WasiContext& ctx, GuestMemory& mem, u32 fd, u32 iovs, u32 iovs_len, u32 nwritten_out);
Errno FdPwrite(WasiContext& ctx, GuestMemory& mem, u32 fd, u32 iovs, u32 iovs_len, u64 offset,
               u32 nwritten_out);
Errno FdReaddir(WasiContext& ctx, GuestMemory& mem, u32 fd, u32 buf, u32 buf_len, u64 cookie,
                u32 bufused_out);

// wasi_calls_path.cc: paths.
Errno PathCreateDirectory(WasiContext& ctx, GuestMemory& mem, u32 fd, u32 path, u32 path_len);
Errno PathFilestatGet(WasiContext& ctx, GuestMemory& mem, u32 fd, u32 flags, u32 path, u32 path_len,
                      u32 stat_out);
Errno PathFilestatSetTimes(WasiContext& ctx, GuestMemory& mem, u32 fd, u32 flags, u32 path,
                           u32 path_len, u64 atim, u64 mtim, u32 fst_flags);
Errno PathLink(WasiContext& ctx, GuestMemory& mem, u32 old_fd, u32 old_flags, u32 old_path,
               u32 old_path_len, u32 new_fd, u32 new_path, u32 new_path_len);
Errno PathOpen(WasiContext& ctx, GuestMemory& mem, u32 fd, u32 dirflags, u32 path, u32 path_len,
               u32 oflags, u64 rights_base, u64 rights_inheriting, u32 fdflags, u32 fd_out);
Errno PathReadlink(WasiContext& ctx, GuestMemory& mem, u32 fd, u32 path, u32 path_len, u32 buf,
                   u32 buf_len, u32 bufused_out);
Errno PathRemoveDirectory(WasiContext& ctx, GuestMemory& mem, u32 fd, u32 path, u32 path_len);
Errno PathRename(WasiContext& ctx, GuestMemory& mem, u32 fd, u32 old_path, u32 old_path_len,
                 u32 new_fd, u32 new_path, u32 new_path_len);
Errno PathSymlink(WasiContext& ctx, GuestMemory& mem, u32 old_path, u32 old_path_len, u32 fd,
                  u32 new_path, u32 new_path_len);
Errno PathUnlinkFile(WasiContext& ctx, GuestMemory& mem, u32 fd, u32 path, u32 path_len);

// wasi_calls_sock.cc: there is no network; every descriptor is not a
// socket (kNotSock), an unknown one is kBadf.
Errno SockAccept(WasiContext& ctx, GuestMemory& mem, u32 fd, u32 flags, u32 fd_out);
Errno SockRecv(WasiContext& ctx, GuestMemory& mem, u32 fd, u32 ri_data, u32 ri_data_len,
               u32 ri_flags, u32 ro_datalen_out, u32 ro_flags_out);
Errno SockSend(WasiContext& ctx, GuestMemory& mem, u32 fd, u32 si_data, u32 si_data_len,
               u32 si_flags, u32 so_datalen_out);
Errno SockShutdown(WasiContext& ctx, GuestMemory& mem, u32 fd, u32 how);

// Shared helpers (wasi_calls_fd.cc).
// Writes the 64-byte filestat of `node`, or of the stdio stream `entry`
// when node is null.
Errno WriteFilestat(GuestMemory& mem, u32 out, const FdEntry* entry, const VfsNode* node);
// The filetype the guest sees for a node.
uint8_t FiletypeOf(const VfsNode& node);
// kInval for unknown fstflags bits or a time given both as a value and "now".
Errno CheckFstflags(u32 fst_flags);

}  // namespace ampoule::wasi
