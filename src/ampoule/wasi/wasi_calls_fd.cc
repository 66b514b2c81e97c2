// Descriptor calls that do not move data: stat, flags, rights, seek,
// close/renumber, prestat, size and times.
#include "ampoule/wasi/wasi_calls.h"

namespace ampoule::wasi {

uint8_t FiletypeOf(const VfsNode& node) {
  switch (node.kind) {
    case VfsNode::Kind::kDirectory: return abi::kFiletypeDirectory;
    case VfsNode::Kind::kFile: return abi::kFiletypeRegularFile;
    case VfsNode::Kind::kSymlink: return abi::kFiletypeSymbolicLink;
  }
  return abi::kFiletypeUnknown;
}

namespace {

using Kind = FdEntry::Kind;

uint8_t Filetype(const FdEntry& e) {
  // stdin/stdout/stderr are streams captured by the host, not terminals:
  // reporting them as character devices would make guests think they talk
  // to a tty (line buffering, colour codes in captured output).
  return e.is_stdio() ? abi::kFiletypeUnknown : FiletypeOf(*e.node);
}

Errno Need(const FdEntry& e, uint64_t right) {
  return (e.rights_base & right) == right ? Errno::kSuccess : Errno::kNotCapable;
}

// The file descriptor `fd` if it may change its file: kBadf for an unknown
// one or one not opened for writing (as POSIX), kSpipe for a stream,
// kIsDir for a directory.
Errno WritableFile(WasiContext& ctx, u32 fd, uint64_t right, FdEntry** out) {
  FdEntry* e = ctx.fds().Get(fd);
  if (e == nullptr) return Errno::kBadf;
  if (e->is_stdio()) return Errno::kSpipe;
  if (e->kind == FdEntry::Kind::kDirectory) return Errno::kIsDir;
  if ((e->rights_base & right) != right) return Errno::kBadf;
  *out = e;
  return Errno::kSuccess;
}

}  // namespace

Errno CheckFstflags(u32 fst_flags) {
  if (fst_flags & ~u32(abi::kFstflagsAll)) return Errno::kInval;
  bool both_a = (fst_flags & abi::kFstflagAtim) && (fst_flags & abi::kFstflagAtimNow);
  bool both_m = (fst_flags & abi::kFstflagMtim) && (fst_flags & abi::kFstflagMtimNow);
  return both_a || both_m ? Errno::kInval : Errno::kSuccess;
}

Errno WriteFilestat(GuestMemory& mem, u32 out, const FdEntry* entry, const VfsNode* node) {
  if (!mem.InBounds(out, abi::kFilestatSize)) return Errno::kFault;
  AMP_WASI_TRY(mem.Zero(out, abi::kFilestatSize));
  if (node == nullptr) {  // a stdio stream: no device, inode, size or times
    return mem.Write8(out + 16, entry != nullptr ? Filetype(*entry) : abi::kFiletypeUnknown);
  }
  AMP_WASI_TRY(mem.Write64(out + 0, 1));  // dev: the run's filesystem
  AMP_WASI_TRY(mem.Write64(out + 8, node->inode));
  AMP_WASI_TRY(mem.Write8(out + 16, FiletypeOf(*node)));
  AMP_WASI_TRY(mem.Write64(out + 24, node->nlink));
  AMP_WASI_TRY(mem.Write64(out + 32, node->size()));
  AMP_WASI_TRY(mem.Write64(out + 40, node->atim));
  AMP_WASI_TRY(mem.Write64(out + 48, node->mtim));
  return mem.Write64(out + 56, node->ctim);
}

Errno FdAdvise(WasiContext& ctx, GuestMemory&, u32 fd, u64, u64, u32 advice) {
  FdEntry* e = ctx.fds().Get(fd);
  if (e == nullptr) return Errno::kBadf;
  if (advice > abi::kAdviceMax) return Errno::kInval;
  if (e->is_stdio()) return Errno::kSpipe;
  return Need(*e, abi::kRightFdAdvise);  // advice is a hint: accepted, nothing to do
}

Errno FdAllocate(WasiContext& ctx, GuestMemory&, u32 fd, u64 offset, u64 len) {
  FdEntry* e;
  AMP_WASI_TRY(WritableFile(ctx, fd, abi::kRightFdAllocate, &e));
  if (len == 0) return Errno::kInval;  // as posix_fallocate
  if (offset > uint64_t(INT64_MAX) || len > uint64_t(INT64_MAX) - offset) return Errno::kFbig;
  if (offset + len <= e->node->size()) return Errno::kSuccess;
  return ctx.vfs().Resize(e->node, offset + len);
}

Errno FdClose(WasiContext& ctx, GuestMemory&, u32 fd) { return ctx.fds().Close(fd); }

Errno FdDatasync(WasiContext& ctx, GuestMemory& mem, u32 fd) { return FdSync(ctx, mem, fd); }

Errno FdSync(WasiContext& ctx, GuestMemory&, u32 fd) {
  FdEntry* e = ctx.fds().Get(fd);
  if (e == nullptr) return Errno::kBadf;
  // Streams cannot be synced (as with a pipe); in-memory files have
  // nothing unwritten.
  return e->is_stdio() ? Errno::kInval : Errno::kSuccess;
}

Errno FdFdstatGet(WasiContext& ctx, GuestMemory& mem, u32 fd, u32 out) {
  FdEntry* e = ctx.fds().Get(fd);
  if (e == nullptr) return Errno::kBadf;
  if (!mem.InBounds(out, abi::kFdstatSize)) return Errno::kFault;
  AMP_WASI_TRY(mem.Zero(out, abi::kFdstatSize));
  AMP_WASI_TRY(mem.Write8(out + 0, Filetype(*e)));
  AMP_WASI_TRY(mem.Write16(out + 2, e->fdflags));
  AMP_WASI_TRY(mem.Write64(out + 8, e->rights_base));
  return mem.Write64(out + 16, e->rights_inheriting);
}

Errno FdFdstatSetFlags(WasiContext& ctx, GuestMemory&, u32 fd, u32 flags) {
  FdEntry* e = ctx.fds().Get(fd);
  if (e == nullptr) return Errno::kBadf;
  if (flags & ~u32(abi::kFdflagsAll)) return Errno::kInval;
  AMP_WASI_TRY(Need(*e, abi::kRightFdFdstatSetFlags));
  // Nothing here blocks or buffers, so the flags change no behaviour; they
  // are kept so fd_fdstat_get reports what the guest set.
  e->fdflags = uint16_t(flags);
  return Errno::kSuccess;
}

Errno FdFdstatSetRights(WasiContext& ctx, GuestMemory&, u32 fd, u64 base, u64 inheriting) {
  FdEntry* e = ctx.fds().Get(fd);
  if (e == nullptr) return Errno::kBadf;
  // Rights can only be dropped, never gained.
  if ((base & ~e->rights_base) != 0 || (inheriting & ~e->rights_inheriting) != 0)
    return Errno::kNotCapable;
  e->rights_base = base;
  e->rights_inheriting = inheriting;
  return Errno::kSuccess;
}

Errno FdFilestatGet(WasiContext& ctx, GuestMemory& mem, u32 fd, u32 out) {
  FdEntry* e = ctx.fds().Get(fd);
  if (e == nullptr) return Errno::kBadf;
  AMP_WASI_TRY(Need(*e, abi::kRightFdFilestatGet));
  return WriteFilestat(mem, out, e, e->node.get());
}

Errno FdFilestatSetSize(WasiContext& ctx, GuestMemory&, u32 fd, u64 size) {
  FdEntry* e;
  Errno err = WritableFile(ctx, fd, abi::kRightFdFilestatSetSize, &e);
  if (err == Errno::kSpipe) return Errno::kInval;  // ftruncate on a stream
  AMP_WASI_TRY(err);
  return ctx.vfs().Resize(e->node, size);
}

Errno FdFilestatSetTimes(WasiContext& ctx, GuestMemory&, u32 fd, u64 atim, u64 mtim,
                         u32 fst_flags) {
  FdEntry* e = ctx.fds().Get(fd);
  if (e == nullptr) return Errno::kBadf;
  AMP_WASI_TRY(CheckFstflags(fst_flags));
  if (e->is_stdio()) return Errno::kNotSup;
  AMP_WASI_TRY(Need(*e, abi::kRightFdFilestatSetTimes));
  return ctx.vfs().SetTimes(e->node, atim, mtim, fst_flags);
}

Errno FdPrestatGet(WasiContext& ctx, GuestMemory& mem, u32 fd, u32 out) {
  FdEntry* e = ctx.fds().Get(fd);
  if (e == nullptr || !e->preopen) return Errno::kBadf;
  if (!mem.InBounds(out, abi::kPrestatSize)) return Errno::kFault;
  AMP_WASI_TRY(mem.Zero(out, abi::kPrestatSize));
  AMP_WASI_TRY(mem.Write8(out, abi::kPreopenDir));
  return mem.Write32(out + 4, u32(e->preopen_name.size()));
}

Errno FdPrestatDirName(WasiContext& ctx, GuestMemory& mem, u32 fd, u32 path, u32 path_len) {
  FdEntry* e = ctx.fds().Get(fd);
  if (e == nullptr || !e->preopen) return Errno::kBadf;
  std::span<uint8_t> buf;
  AMP_WASI_TRY(mem.Bytes(path, path_len, &buf));
  if (path_len < e->preopen_name.size()) return Errno::kNameTooLong;
  return mem.WriteString(path, e->preopen_name);
}

Errno FdRenumber(WasiContext& ctx, GuestMemory&, u32 fd, u32 to) {
  return ctx.fds().Renumber(fd, to);
}

Errno FdSeek(WasiContext& ctx, GuestMemory& mem, u32 fd, u64 offset, u32 whence, u32 out) {
  FdEntry* e = ctx.fds().Get(fd);
  if (e == nullptr) return Errno::kBadf;
  if (e->is_stdio()) return Errno::kSpipe;
  bool tell_only = whence == abi::kWhenceCur && offset == 0;
  AMP_WASI_TRY(Need(*e, tell_only ? abi::kRightFdTell : abi::kRightFdSeek));
  int64_t delta = int64_t(offset);
  int64_t base = 0;
  switch (whence) {
    case abi::kWhenceSet: base = 0; break;
    case abi::kWhenceCur: base = int64_t(e->offset); break;
    case abi::kWhenceEnd: base = int64_t(e->node->size()); break;
    default: return Errno::kInval;
  }
  int64_t target = 0;
  if (__builtin_add_overflow(base, delta, &target) || target < 0) return Errno::kInval;
  if (!mem.InBounds(out, 8)) return Errno::kFault;  // checked before the move
  e->offset = uint64_t(target);
  return mem.Write64(out, e->offset);
}

Errno FdTell(WasiContext& ctx, GuestMemory& mem, u32 fd, u32 out) {
  FdEntry* e = ctx.fds().Get(fd);
  if (e == nullptr) return Errno::kBadf;
  if (e->is_stdio()) return Errno::kSpipe;
  AMP_WASI_TRY(Need(*e, abi::kRightFdTell));
  return mem.Write64(out, e->offset);
}

}  // namespace ampoule::wasi
