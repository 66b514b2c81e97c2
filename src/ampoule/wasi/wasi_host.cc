#include "ampoule/wasi/wasi_host.h"

#include <algorithm>

#include "ampoule/wasi/wasi_calls.h"

namespace ampoule::wasi {
namespace {

using wasm::HostContext;
using wasm::HostResult;
using wasm::ValType;

// One host call's arguments, as the table below reads them.
struct Call {
  WasiContext& ctx;
  GuestMemory& mem;
  std::span<const uint64_t> args;
  uint64_t fuel_used;
  u32 i(size_t k) const { return u32(args[k]); }  // i32: the low 32 bits of the slot
  u64 l(size_t k) const { return args[k]; }
};

struct WasiFunction {
  std::string_view name;
  std::string_view params;  // 'i' = i32, 'I' = i64; every call but proc_exit returns an i32 errno
  Errno (*call)(Call&);
};

// Every wasi_snapshot_preview1 function, alphabetically. proc_exit has no
// entry function: the host turns it into HostResult::Exit.
constexpr WasiFunction kFunctions[] = {
    {"args_get", "ii", [](Call& c) { return ArgsGet(c.ctx, c.mem, c.i(0), c.i(1)); }},
    {"args_sizes_get", "ii", [](Call& c) { return ArgsSizesGet(c.ctx, c.mem, c.i(0), c.i(1)); }},
    {"clock_res_get", "ii", [](Call& c) { return ClockResGet(c.ctx, c.mem, c.i(0), c.i(1)); }},
    {"clock_time_get", "iIi",
     [](Call& c) { return ClockTimeGet(c.ctx, c.mem, c.i(0), c.l(1), c.i(2), c.fuel_used); }},
    {"environ_get", "ii", [](Call& c) { return EnvironGet(c.ctx, c.mem, c.i(0), c.i(1)); }},
    {"environ_sizes_get", "ii",
     [](Call& c) { return EnvironSizesGet(c.ctx, c.mem, c.i(0), c.i(1)); }},
    {"fd_advise", "iIIi",
     [](Call& c) { return FdAdvise(c.ctx, c.mem, c.i(0), c.l(1), c.l(2), c.i(3)); }},
    {"fd_allocate", "iII",
     [](Call& c) { return FdAllocate(c.ctx, c.mem, c.i(0), c.l(1), c.l(2)); }},
    {"fd_close", "i", [](Call& c) { return FdClose(c.ctx, c.mem, c.i(0)); }},
    {"fd_datasync", "i", [](Call& c) { return FdDatasync(c.ctx, c.mem, c.i(0)); }},
    {"fd_fdstat_get", "ii", [](Call& c) { return FdFdstatGet(c.ctx, c.mem, c.i(0), c.i(1)); }},
    {"fd_fdstat_set_flags", "ii",
     [](Call& c) { return FdFdstatSetFlags(c.ctx, c.mem, c.i(0), c.i(1)); }},
    {"fd_fdstat_set_rights", "iII",
     [](Call& c) { return FdFdstatSetRights(c.ctx, c.mem, c.i(0), c.l(1), c.l(2)); }},
    {"fd_filestat_get", "ii", [](Call& c) { return FdFilestatGet(c.ctx, c.mem, c.i(0), c.i(1)); }},
    {"fd_filestat_set_size", "iI",
     [](Call& c) { return FdFilestatSetSize(c.ctx, c.mem, c.i(0), c.l(1)); }},
    {"fd_filestat_set_times", "iIIi",
     [](Call& c) { return FdFilestatSetTimes(c.ctx, c.mem, c.i(0), c.l(1), c.l(2), c.i(3)); }},
    {"fd_pread", "iiiIi",
     [](Call& c) { return FdPread(c.ctx, c.mem, c.i(0), c.i(1), c.i(2), c.l(3), c.i(4)); }},
    {"fd_prestat_dir_name", "iii",
     [](Call& c) { return FdPrestatDirName(c.ctx, c.mem, c.i(0), c.i(1), c.i(2)); }},
    {"fd_prestat_get", "ii", [](Call& c) { return FdPrestatGet(c.ctx, c.mem, c.i(0), c.i(1)); }},
    {"fd_pwrite", "iiiIi",
     [](Call& c) { return FdPwrite(c.ctx, c.mem, c.i(0), c.i(1), c.i(2), c.l(3), c.i(4)); }},
    {"fd_read", "iiii",
     [](Call& c) { return FdRead(c.ctx, c.mem, c.i(0), c.i(1), c.i(2), c.i(3)); }},
    {"fd_readdir", "iiiIi",
     [](Call& c) { return FdReaddir(c.ctx, c.mem, c.i(0), c.i(1), c.i(2), c.l(3), c.i(4)); }},
    {"fd_renumber", "ii", [](Call& c) { return FdRenumber(c.ctx, c.mem, c.i(0), c.i(1)); }},
    {"fd_seek", "iIii",
     [](Call& c) { return FdSeek(c.ctx, c.mem, c.i(0), c.l(1), c.i(2), c.i(3)); }},
    {"fd_sync", "i", [](Call& c) { return FdSync(c.ctx, c.mem, c.i(0)); }},
    {"fd_tell", "ii", [](Call& c) { return FdTell(c.ctx, c.mem, c.i(0), c.i(1)); }},
    {"fd_write", "iiii",
     [](Call& c) { return FdWrite(c.ctx, c.mem, c.i(0), c.i(1), c.i(2), c.i(3)); }},
    {"path_create_directory", "iii",
     [](Call& c) { return PathCreateDirectory(c.ctx, c.mem, c.i(0), c.i(1), c.i(2)); }},
    {"path_filestat_get", "iiiii",
     [](Call& c) { return PathFilestatGet(c.ctx, c.mem, c.i(0), c.i(1), c.i(2), c.i(3), c.i(4)); }},
    {"path_filestat_set_times", "iiiiIIi",
     [](Call& c) {
       return PathFilestatSetTimes(c.ctx, c.mem, c.i(0), c.i(1), c.i(2), c.i(3), c.l(4), c.l(5),
                                   c.i(6));
     }},
    {"path_link", "iiiiiii",
     [](Call& c) {
       return PathLink(c.ctx, c.mem, c.i(0), c.i(1), c.i(2), c.i(3), c.i(4), c.i(5), c.i(6));
     }},
    {"path_open", "iiiiiIIii",
     [](Call& c) {
       return PathOpen(c.ctx, c.mem, c.i(0), c.i(1), c.i(2), c.i(3), c.i(4), c.l(5), c.l(6), c.i(7),
                       c.i(8));
     }},
    {"path_readlink", "iiiiii",
     [](Call& c) {
       return PathReadlink(c.ctx, c.mem, c.i(0), c.i(1), c.i(2), c.i(3), c.i(4), c.i(5));
     }},
    {"path_remove_directory", "iii",
     [](Call& c) { return PathRemoveDirectory(c.ctx, c.mem, c.i(0), c.i(1), c.i(2)); }},
    {"path_rename", "iiiiii",
     [](Call& c) {
       return PathRename(c.ctx, c.mem, c.i(0), c.i(1), c.i(2), c.i(3), c.i(4), c.i(5));
     }},
    {"path_symlink", "iiiii",
     [](Call& c) { return PathSymlink(c.ctx, c.mem, c.i(0), c.i(1), c.i(2), c.i(3), c.i(4)); }},
    {"path_unlink_file", "iii",
     [](Call& c) { return PathUnlinkFile(c.ctx, c.mem, c.i(0), c.i(1), c.i(2)); }},
    {"poll_oneoff", "iiii",
     [](Call& c) { return PollOneoff(c.ctx, c.mem, c.i(0), c.i(1), c.i(2), c.i(3), c.fuel_used); }},
    {"proc_exit", "i", nullptr},
    {"proc_raise", "i", [](Call& c) { return ProcRaise(c.ctx, c.mem, c.i(0)); }},
    {"random_get", "ii", [](Call& c) { return RandomGet(c.ctx, c.mem, c.i(0), c.i(1)); }},
    {"sched_yield", "", [](Call& c) { return SchedYield(c.ctx, c.mem); }},
    {"sock_accept", "iii",
     [](Call& c) { return SockAccept(c.ctx, c.mem, c.i(0), c.i(1), c.i(2)); }},
    {"sock_recv", "iiiiii",
     [](Call& c) {
       return SockRecv(c.ctx, c.mem, c.i(0), c.i(1), c.i(2), c.i(3), c.i(4), c.i(5));
     }},
    {"sock_send", "iiiii",
     [](Call& c) { return SockSend(c.ctx, c.mem, c.i(0), c.i(1), c.i(2), c.i(3), c.i(4)); }},
    {"sock_shutdown", "ii", [](Call& c) { return SockShutdown(c.ctx, c.mem, c.i(0), c.i(1)); }},
};

wasm::FuncType TypeOf(const WasiFunction& f) {
  wasm::FuncType t;
  for (char p : f.params) t.params.push_back(p == 'I' ? ValType::I64 : ValType::I32);
  if (f.call != nullptr) t.results.push_back(ValType::I32);
  return t;
}

wasm::HostFunction Bind(const WasiFunction& f, WasiContext* ctx) {
  if (f.call == nullptr) {  // proc_exit: the exit code is a u32; kept as its bit pattern
    return [](HostContext&, std::span<const uint64_t> args, std::span<uint64_t>) {
      return HostResult::Exit(int32_t(uint32_t(args[0])));
    };
  }
  auto call = f.call;
  return [ctx, call](HostContext& hc, std::span<const uint64_t> args, std::span<uint64_t> results) {
    GuestMemory mem(hc.memory);
    ctx->set_call_fuel(hc.store.fuel_used());
    Call c{*ctx, mem, args, hc.store.fuel_used()};
    results[0] = uint32_t(uint16_t(call(c)));
    return HostResult::Ok();
  };
}

const char* KindName(wasm::ExternKind k) {
  switch (k) {
    case wasm::ExternKind::Func: return "a function";
    case wasm::ExternKind::Table: return "a table";
    case wasm::ExternKind::Memory: return "a memory";
    case wasm::ExternKind::Global: return "a global";
  }
  return "an import";
}

}  // namespace

std::vector<std::string_view> WasiFunctionNames() {
  std::vector<std::string_view> names;
  for (const WasiFunction& f : kFunctions) names.push_back(f.name);
  return names;
}

WasiHost::WasiHost(wasm::Store& store, WasiContext& ctx) {
  for (const WasiFunction& f : kFunctions) {
    funcs_.emplace_back(f.name, store.AddHostFunction(TypeOf(f), Bind(f, &ctx)));
  }
}

wasm::FunctionInstance* WasiHost::Find(std::string_view name) const {
  auto it = std::lower_bound(funcs_.begin(), funcs_.end(), name,
                             [](const auto& entry, std::string_view n) { return entry.first < n; });
  return it != funcs_.end() && it->first == name ? it->second : nullptr;
}

core::Result<std::vector<wasm::Extern>> WasiHost::LinkImports(const wasm::Module& module,
                                                        const HttpCapability* http) const {
  std::vector<wasm::Extern> externs;
  for (const wasm::Import& imp : module.imports) {
    wasm::FunctionInstance* f = nullptr;
    if (imp.kind == wasm::ExternKind::Func) {
      if (imp.module == kWasiModuleName) f = Find(imp.name);
      if (imp.module == kHttpModuleName && http != nullptr) f = http->Find(imp.name);
    }
    if (f == nullptr) {
      std::string hint =
          imp.module == "wasi_unstable"
              ? " (\"wasi_unstable\" is the older WASI snapshot; rebuild the module for "
                "wasi_snapshot_preview1)"
              : " (a WASI command may import only wasi_snapshot_preview1 functions and the tool "
                "capability's " + std::string(kHttpModuleName) + " request and answer)";
      return core::Error{"unknown import \"" + imp.module + "\" \"" + imp.name +
                   "\": the module asks for " + KindName(imp.kind) +
                   " that the WASI host does not provide" + hint};
    }
    wasm::Extern ext;
    ext.kind = wasm::ExternKind::Func;
    ext.func = f;
    externs.push_back(ext);
  }
  return externs;
}

}  // namespace ampoule::wasi
