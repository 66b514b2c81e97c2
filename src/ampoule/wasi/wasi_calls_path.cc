// path_* calls over the read-only mailbox.
#include "ampoule/wasi/path_resolve.h"
#include "ampoule/wasi/wasi_calls.h"

namespace ampoule::wasi {
namespace {

using Kind = FdEntry::Kind;

// The directory descriptor `fd` and the guest's path string. kBadf for an
// unknown descriptor, kNotDir for one that is not a directory, kFault for a
// path outside memory, kNotCapable if the descriptor lacks `right`.
Errno DirAndPath(WasiContext& ctx, GuestMemory& mem, u32 fd, u32 path, u32 path_len, uint64_t right,
                 FdEntry** dir, std::string_view* text) {
  FdEntry* e = ctx.fds().Get(fd);
  if (e == nullptr) return Errno::kBadf;
  if (e->kind != Kind::kDirectory) return Errno::kNotDir;
  std::span<uint8_t> bytes;
  AMP_WASI_TRY(mem.Bytes(path, path_len, &bytes));
  if ((e->rights_base & right) != right) return Errno::kNotCapable;
  *dir = e;
  *text = std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  return Errno::kSuccess;
}

// For calls that would create `path`: kExist if it exists, kRofs if it
// could have been created, else the lookup error.
Errno RefuseCreate(const FdEntry& dir, std::string_view path) {
  Resolved r = ResolvePath(dir.node, path);
  if (r.error == Errno::kSuccess) return Errno::kExist;
  if (r.error == Errno::kNoEnt && r.only_leaf_missing) return Errno::kRofs;
  return r.error;
}

// For calls that would change or remove an existing `path`: kRofs if it
// exists, else the lookup error.
Errno RefuseChange(const FdEntry& dir, std::string_view path) {
  Resolved r = ResolvePath(dir.node, path);
  return r.error == Errno::kSuccess ? Errno::kRofs : r.error;
}

}  // namespace

Errno PathCreateDirectory(WasiContext& ctx, GuestMemory& mem, u32 fd, u32 path, u32 path_len) {
  FdEntry* dir;
  std::string_view p;
  AMP_WASI_TRY(DirAndPath(ctx, mem, fd, path, path_len, 0, &dir, &p));
  return RefuseCreate(*dir, p);
}

Errno PathFilestatGet(WasiContext& ctx, GuestMemory& mem, u32 fd, u32 flags, u32 path, u32 path_len,
                      u32 out) {
  FdEntry* dir;
  std::string_view p;
  AMP_WASI_TRY(DirAndPath(ctx, mem, fd, path, path_len, abi::kRightPathFilestatGet, &dir, &p));
  Resolved r = ResolvePath(dir->node, p);
  AMP_WASI_TRY(r.error);
  return WriteFilestat(ctx, mem, out, nullptr, r.node);
}

Errno PathFilestatSetTimes(WasiContext& ctx, GuestMemory& mem, u32 fd, u32 flags, u32 path,
                           u32 path_len, u64, u64, u32 fst_flags) {
  FdEntry* dir;
  std::string_view p;
  AMP_WASI_TRY(DirAndPath(ctx, mem, fd, path, path_len, 0, &dir, &p));
  if (fst_flags & ~u32(abi::kFstflagsAll)) return Errno::kInval;
  if ((fst_flags & 0x3) == 0x3 || (fst_flags & 0xC) == 0xC) return Errno::kInval;
  return RefuseChange(*dir, p);
}

Errno PathLink(WasiContext& ctx, GuestMemory& mem, u32 old_fd, u32, u32 old_path, u32 old_path_len,
               u32 new_fd, u32 new_path, u32 new_path_len) {
  FdEntry *old_dir, *new_dir;
  std::string_view oldp, newp;
  AMP_WASI_TRY(DirAndPath(ctx, mem, old_fd, old_path, old_path_len, 0, &old_dir, &oldp));
  AMP_WASI_TRY(DirAndPath(ctx, mem, new_fd, new_path, new_path_len, 0, &new_dir, &newp));
  Resolved source = ResolvePath(old_dir->node, oldp);
  AMP_WASI_TRY(source.error);
  if (source.node->is_dir()) return Errno::kPerm;  // hard links to directories are never allowed
  return RefuseCreate(*new_dir, newp);
}

Errno PathOpen(WasiContext& ctx, GuestMemory& mem, u32 fd, u32 dirflags, u32 path, u32 path_len,
               u32 oflags, u64 rights_base, u64 rights_inheriting, u32 fdflags, u32 fd_out) {
  FdEntry* dir;
  std::string_view p;
  AMP_WASI_TRY(DirAndPath(ctx, mem, fd, path, path_len, abi::kRightPathOpen, &dir, &p));
  if ((oflags & ~u32(abi::kOflagsAll)) != 0 || (fdflags & ~u32(abi::kFdflagsAll)) != 0)
    return Errno::kInval;
  if (!mem.InBounds(fd_out, 4)) return Errno::kFault;

  Resolved r = ResolvePath(dir->node, p);
  if (r.error == Errno::kNoEnt && r.only_leaf_missing && (oflags & abi::kOflagCreat))
    return Errno::kRofs;
  AMP_WASI_TRY(r.error);
  if ((oflags & abi::kOflagCreat) && (oflags & abi::kOflagExcl)) return Errno::kExist;
  bool is_dir = r.node->is_dir();
  if ((oflags & abi::kOflagDirectory) && !is_dir) return Errno::kNotDir;
  bool wants_write = (rights_base & rights::kWriteIntent) != 0 || (oflags & abi::kOflagTrunc) != 0;
  if (wants_write) return is_dir ? Errno::kIsDir : Errno::kRofs;

  // The new descriptor gets what was asked for, limited to what the
  // directory passes on and to what makes sense for its kind.
  uint64_t kind_rights = is_dir ? rights::kDirectory : rights::kFile;
  FdEntry entry;
  entry.kind = is_dir ? Kind::kDirectory : Kind::kFile;
  entry.node = r.node;
  entry.fdflags = uint16_t(fdflags);
  entry.rights_base = rights_base & dir->rights_inheriting & kind_rights;
  entry.rights_inheriting = is_dir ? rights_inheriting & dir->rights_inheriting : 0;
  uint32_t new_fd = 0;
  AMP_WASI_TRY(ctx.fds().Insert(std::move(entry), &new_fd));
  return mem.Write32(fd_out, new_fd);
}

Errno PathReadlink(WasiContext& ctx, GuestMemory& mem, u32 fd, u32 path, u32 path_len, u32 buf,
                   u32 buf_len, u32 bufused_out) {
  FdEntry* dir;
  std::string_view p;
  AMP_WASI_TRY(DirAndPath(ctx, mem, fd, path, path_len, abi::kRightPathReadlink, &dir, &p));
  if (!mem.InBounds(buf, buf_len) || !mem.InBounds(bufused_out, 4)) return Errno::kFault;
  Resolved r = ResolvePath(dir->node, p);
  AMP_WASI_TRY(r.error);
  return Errno::kInval;  // exists, and is not a symbolic link: the mailbox has none
}

Errno PathRemoveDirectory(WasiContext& ctx, GuestMemory& mem, u32 fd, u32 path, u32 path_len) {
  FdEntry* dir;
  std::string_view p;
  AMP_WASI_TRY(DirAndPath(ctx, mem, fd, path, path_len, 0, &dir, &p));
  Resolved r = ResolvePath(dir->node, p);
  AMP_WASI_TRY(r.error);
  return r.node->is_dir() ? Errno::kRofs : Errno::kNotDir;
}

Errno PathRename(WasiContext& ctx, GuestMemory& mem, u32 fd, u32 old_path, u32 old_path_len,
                 u32 new_fd, u32 new_path, u32 new_path_len) {
  FdEntry *old_dir, *new_dir;
  std::string_view oldp, newp;
  AMP_WASI_TRY(DirAndPath(ctx, mem, fd, old_path, old_path_len, 0, &old_dir, &oldp));
  AMP_WASI_TRY(DirAndPath(ctx, mem, new_fd, new_path, new_path_len, 0, &new_dir, &newp));
  AMP_WASI_TRY(ResolvePath(old_dir->node, oldp).error);
  Errno target = RefuseCreate(*new_dir, newp);
  return target == Errno::kExist ? Errno::kRofs
                                 : target;  // renaming over an entry would replace it
}

Errno PathSymlink(WasiContext& ctx, GuestMemory& mem, u32 old_path, u32 old_path_len, u32 fd,
                  u32 new_path, u32 new_path_len) {
  std::span<uint8_t> target;
  AMP_WASI_TRY(mem.Bytes(old_path, old_path_len, &target));
  FdEntry* dir;
  std::string_view p;
  AMP_WASI_TRY(DirAndPath(ctx, mem, fd, new_path, new_path_len, 0, &dir, &p));
  return RefuseCreate(*dir, p);
}

Errno PathUnlinkFile(WasiContext& ctx, GuestMemory& mem, u32 fd, u32 path, u32 path_len) {
  FdEntry* dir;
  std::string_view p;
  AMP_WASI_TRY(DirAndPath(ctx, mem, fd, path, path_len, 0, &dir, &p));
  Resolved r = ResolvePath(dir->node, p);
  AMP_WASI_TRY(r.error);
  return r.node->is_dir() ? Errno::kIsDir : Errno::kRofs;
}

}  // namespace ampoule::wasi
