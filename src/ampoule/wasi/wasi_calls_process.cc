// args_*, environ_*, clock_*, random_get, sched_yield, proc_raise.
#include "ampoule/wasi/wasi_calls.h"

namespace ampoule::wasi {
namespace {

uint64_t StringBytes(const std::vector<std::string>& list) {
  uint64_t n = 0;
  for (const std::string& s : list) n += s.size() + 1;
  return n;
}

// Lays out `list` as the guest expects: an array of pointers at `ptrs` and
// the NUL-terminated strings back to back at `buf`. Checks both ranges
// before writing anything.
Errno WriteStringList(GuestMemory& mem, const std::vector<std::string>& list, u32 ptrs, u32 buf) {
  uint64_t total = StringBytes(list);
  if (!mem.InBounds(ptrs, uint64_t(list.size()) * 4) || !mem.InBounds(buf, total))
    return Errno::kFault;
  uint64_t at = buf;
  for (size_t i = 0; i < list.size(); ++i) {
    AMP_WASI_TRY(mem.Write32(ptrs + u32(i) * 4, u32(at)));
    AMP_WASI_TRY(mem.WriteString(at, list[i]));
    AMP_WASI_TRY(mem.Write8(u32(at + list[i].size()), 0));
    at += list[i].size() + 1;
  }
  return Errno::kSuccess;
}

Errno WriteSizes(GuestMemory& mem, const std::vector<std::string>& list, u32 count_out,
                 u32 size_out) {
  uint64_t total = StringBytes(list);
  // Validation keeps both far below 2^32.
  if (!mem.InBounds(count_out, 4) || !mem.InBounds(size_out, 4)) return Errno::kFault;
  AMP_WASI_TRY(mem.Write32(count_out, u32(list.size())));
  return mem.Write32(size_out, u32(total));
}

}  // namespace

Errno ArgsGet(WasiContext& ctx, GuestMemory& mem, u32 argv, u32 argv_buf) {
  return WriteStringList(mem, ctx.args(), argv, argv_buf);
}

Errno ArgsSizesGet(WasiContext& ctx, GuestMemory& mem, u32 argc_out, u32 buf_size_out) {
  return WriteSizes(mem, ctx.args(), argc_out, buf_size_out);
}

Errno EnvironGet(WasiContext& ctx, GuestMemory& mem, u32 environ, u32 environ_buf) {
  return WriteStringList(mem, ctx.environ(), environ, environ_buf);
}

Errno EnvironSizesGet(WasiContext& ctx, GuestMemory& mem, u32 count_out, u32 buf_size_out) {
  return WriteSizes(mem, ctx.environ(), count_out, buf_size_out);
}

Errno ClockResGet(WasiContext& ctx, GuestMemory& mem, u32 clock_id, u32 res_out) {
  uint64_t res = 0;
  AMP_WASI_TRY(ctx.env().Resolution(clock_id, &res));
  return mem.Write64(res_out, res);
}

Errno ClockTimeGet(WasiContext& ctx, GuestMemory& mem, u32 clock_id, u64 precision, u32 time_out,
                   u64 fuel_used) {
  // `precision` is a hint the virtual clocks have no use for: they are exact.
  uint64_t now = 0;
  AMP_WASI_TRY(ctx.env().Now(clock_id, fuel_used, &now));
  return mem.Write64(time_out, now);
}

Errno RandomGet(WasiContext& ctx, GuestMemory& mem, u32 buf, u32 buf_len) {
  std::span<uint8_t> bytes;
  AMP_WASI_TRY(mem.Bytes(buf, buf_len, &bytes));
  ctx.env().Random(bytes);
  return Errno::kSuccess;
}

// There is one thread and nothing else to run.
Errno SchedYield(WasiContext&, GuestMemory&) { return Errno::kSuccess; }

// Signals do not exist here; the call was dropped from later WASI versions.
Errno ProcRaise(WasiContext&, GuestMemory&, u32) { return Errno::kNoSys; }

}  // namespace ampoule::wasi
