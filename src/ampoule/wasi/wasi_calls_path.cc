// path_* calls: names inside the guest's filesystem (vfs.h), relative to a
// directory descriptor that must hold the right each call names.
#include "ampoule/wasi/wasi_calls.h"

namespace ampoule::wasi {
namespace {

using Kind = FdEntry::Kind;
using Mode = Vfs::Mode;

// The directory descriptor `fd` and the guest's path string. kBadf for an
// unknown descriptor, kNotDir for one that is not a directory, kFault for a
// path outside memory, kNotCapable if the descriptor lacks `right`. That is
// WASI's own errno for a descriptor's rights, kept as preview 1 specifies
// it: a POSIX program never drops rights, so it never meets it (a file
// opened without write access gets EBADF from the fd_* calls instead).
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

// The new name of a link may not end in '/' (it would have to be a
// directory): EEXIST when the name exists, else ENOENT, as Linux and
// wasmtime say (the public WASI test suite's path_link and
// path_symlink_trailing_slashes).
Errno NewNameWithSlash(const Resolution& r) {
  if (!r.trailing_slash) return Errno::kSuccess;
  return r.dir->entries.count(r.leaf) ? Errno::kExist : Errno::kNoEnt;
}

Mode FollowMode(u32 lookupflags) {
  return (lookupflags & abi::kLookupSymlinkFollow) ? Mode::kFollow : Mode::kNoFollow;
}

// Finds or creates the file path_open names. kExist for O_CREAT|O_EXCL on
// an existing name.
Errno OpenOrCreate(Vfs& vfs, const FdEntry& dir, std::string_view path, u32 dirflags, u32 oflags,
                   NodeRef* node) {
  Resolution r;
  Errno found = vfs.Resolve(dir.node, path, FollowMode(dirflags), &r);
  bool creat = oflags & abi::kOflagCreat;
  if (found == Errno::kSuccess) {
    if (creat && (oflags & abi::kOflagExcl)) return Errno::kExist;
    *node = r.node;
    return Errno::kSuccess;
  }
  if (found != Errno::kNoEnt || !r.leaf_missing || !creat) return found;
  if (oflags & abi::kOflagDirectory) return Errno::kInval;  // O_CREAT makes files only
  if (r.trailing_slash) return Errno::kIsDir;
  if ((dir.rights_base & abi::kRightPathCreateFile) == 0) return Errno::kNotCapable;
  Resolution parent;
  AMP_WASI_TRY(vfs.Resolve(dir.node, path, Mode::kParent, &parent));
  return vfs.CreateFile(parent.dir, parent.leaf, node);
}

}  // namespace

Errno PathCreateDirectory(WasiContext& ctx, GuestMemory& mem, u32 fd, u32 path, u32 path_len) {
  FdEntry* dir;
  std::string_view p;
  AMP_WASI_TRY(
      DirAndPath(ctx, mem, fd, path, path_len, abi::kRightPathCreateDirectory, &dir, &p));
  Resolution r;
  AMP_WASI_TRY(ctx.vfs().Resolve(dir->node, p, Mode::kParent, &r));
  return ctx.vfs().CreateDirectory(r.dir, r.leaf);
}

Errno PathFilestatGet(WasiContext& ctx, GuestMemory& mem, u32 fd, u32 flags, u32 path, u32 path_len,
                      u32 out) {
  FdEntry* dir;
  std::string_view p;
  AMP_WASI_TRY(DirAndPath(ctx, mem, fd, path, path_len, abi::kRightPathFilestatGet, &dir, &p));
  Resolution r;
  AMP_WASI_TRY(ctx.vfs().Resolve(dir->node, p, FollowMode(flags), &r));
  return WriteFilestat(mem, out, nullptr, r.node.get());
}

Errno PathFilestatSetTimes(WasiContext& ctx, GuestMemory& mem, u32 fd, u32 flags, u32 path,
                           u32 path_len, u64 atim, u64 mtim, u32 fst_flags) {
  FdEntry* dir;
  std::string_view p;
  AMP_WASI_TRY(
      DirAndPath(ctx, mem, fd, path, path_len, abi::kRightPathFilestatSetTimes, &dir, &p));
  AMP_WASI_TRY(CheckFstflags(fst_flags));
  Resolution r;
  AMP_WASI_TRY(ctx.vfs().Resolve(dir->node, p, FollowMode(flags), &r));
  return ctx.vfs().SetTimes(r.node, atim, mtim, fst_flags);
}

Errno PathLink(WasiContext& ctx, GuestMemory& mem, u32 old_fd, u32 old_flags, u32 old_path,
               u32 old_path_len, u32 new_fd, u32 new_path, u32 new_path_len) {
  FdEntry *old_dir, *new_dir;
  std::string_view oldp, newp;
  AMP_WASI_TRY(DirAndPath(ctx, mem, old_fd, old_path, old_path_len, abi::kRightPathLinkSource,
                          &old_dir, &oldp));
  AMP_WASI_TRY(DirAndPath(ctx, mem, new_fd, new_path, new_path_len, abi::kRightPathLinkTarget,
                          &new_dir, &newp));
  Resolution source, target;
  AMP_WASI_TRY(ctx.vfs().Resolve(old_dir->node, oldp, FollowMode(old_flags), &source));
  if (source.node->is_dir()) return Errno::kPerm;  // hard links to directories are never allowed
  AMP_WASI_TRY(ctx.vfs().Resolve(new_dir->node, newp, Mode::kParent, &target));
  AMP_WASI_TRY(NewNameWithSlash(target));
  return ctx.vfs().Link(source.node, target.dir, target.leaf);
}

Errno PathOpen(WasiContext& ctx, GuestMemory& mem, u32 fd, u32 dirflags, u32 path, u32 path_len,
               u32 oflags, u64 rights_base, u64 rights_inheriting, u32 fdflags, u32 fd_out) {
  FdEntry* dir;
  std::string_view p;
  AMP_WASI_TRY(DirAndPath(ctx, mem, fd, path, path_len, abi::kRightPathOpen, &dir, &p));
  if ((oflags & ~u32(abi::kOflagsAll)) != 0 || (fdflags & ~u32(abi::kFdflagsAll)) != 0)
    return Errno::kInval;
  if (!mem.InBounds(fd_out, 4)) return Errno::kFault;
  bool trunc = oflags & abi::kOflagTrunc;
  if (trunc && (dir->rights_base & abi::kRightPathFilestatSetSize) == 0)
    return Errno::kNotCapable;

  NodeRef node;
  AMP_WASI_TRY(OpenOrCreate(ctx.vfs(), *dir, p, dirflags, oflags, &node));
  if (node->is_symlink()) return Errno::kLoop;  // a final link, not followed (O_NOFOLLOW)
  bool is_dir = node->is_dir();
  if ((oflags & abi::kOflagDirectory) && !is_dir) return Errno::kNotDir;
  bool wants_write = (rights_base & rights::kFileWrite) != 0 || trunc;
  if (wants_write && is_dir) return Errno::kIsDir;
  if (wants_write && node->read_only) return Errno::kRofs;
  if (trunc) AMP_WASI_TRY(ctx.vfs().Resize(node, 0));

  // The new descriptor gets what was asked for, limited to what the
  // directory passes on and to what makes sense for its kind.
  uint64_t kind_rights = is_dir ? rights::kDirectory : rights::kFile;
  FdEntry entry;
  entry.kind = is_dir ? Kind::kDirectory : Kind::kFile;
  entry.node = std::move(node);
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
  Resolution r;
  AMP_WASI_TRY(ctx.vfs().Resolve(dir->node, p, Mode::kNoFollow, &r));
  if (!r.node->is_symlink()) return Errno::kInval;
  // Like readlink(2): as much of the target as fits, without a NUL.
  std::string_view target = r.node->target;
  target = target.substr(0, buf_len);
  AMP_WASI_TRY(mem.WriteString(buf, target));
  return mem.Write32(bufused_out, u32(target.size()));
}

Errno PathRemoveDirectory(WasiContext& ctx, GuestMemory& mem, u32 fd, u32 path, u32 path_len) {
  FdEntry* dir;
  std::string_view p;
  AMP_WASI_TRY(
      DirAndPath(ctx, mem, fd, path, path_len, abi::kRightPathRemoveDirectory, &dir, &p));
  Resolution r;
  AMP_WASI_TRY(ctx.vfs().Resolve(dir->node, p, Mode::kParent, &r));
  return ctx.vfs().RemoveDirectory(r.dir, r.leaf);
}

Errno PathRename(WasiContext& ctx, GuestMemory& mem, u32 fd, u32 old_path, u32 old_path_len,
                 u32 new_fd, u32 new_path, u32 new_path_len) {
  FdEntry *old_dir, *new_dir;
  std::string_view oldp, newp;
  AMP_WASI_TRY(DirAndPath(ctx, mem, fd, old_path, old_path_len, abi::kRightPathRenameSource,
                          &old_dir, &oldp));
  AMP_WASI_TRY(DirAndPath(ctx, mem, new_fd, new_path, new_path_len, abi::kRightPathRenameTarget,
                          &new_dir, &newp));
  Resolution from, to;
  AMP_WASI_TRY(ctx.vfs().Resolve(old_dir->node, oldp, Mode::kParent, &from));
  AMP_WASI_TRY(ctx.vfs().Resolve(new_dir->node, newp, Mode::kParent, &to));
  return ctx.vfs().Rename(from.dir, from.leaf, to.dir, to.leaf,
                          from.trailing_slash || to.trailing_slash);
}

Errno PathSymlink(WasiContext& ctx, GuestMemory& mem, u32 old_path, u32 old_path_len, u32 fd,
                  u32 new_path, u32 new_path_len) {
  std::span<uint8_t> target;
  AMP_WASI_TRY(mem.Bytes(old_path, old_path_len, &target));
  FdEntry* dir;
  std::string_view p;
  AMP_WASI_TRY(DirAndPath(ctx, mem, fd, new_path, new_path_len, abi::kRightPathSymlink, &dir, &p));
  Resolution r;
  AMP_WASI_TRY(ctx.vfs().Resolve(dir->node, p, Mode::kParent, &r));
  AMP_WASI_TRY(NewNameWithSlash(r));
  std::string_view text(reinterpret_cast<const char*>(target.data()), target.size());
  return ctx.vfs().CreateSymlink(r.dir, r.leaf, text);
}

Errno PathUnlinkFile(WasiContext& ctx, GuestMemory& mem, u32 fd, u32 path, u32 path_len) {
  FdEntry* dir;
  std::string_view p;
  AMP_WASI_TRY(DirAndPath(ctx, mem, fd, path, path_len, abi::kRightPathUnlinkFile, &dir, &p));
  Resolution r;
  AMP_WASI_TRY(ctx.vfs().Resolve(dir->node, p, Mode::kParent, &r));
  return ctx.vfs().Unlink(r.dir, r.leaf, r.trailing_slash);
}

}  // namespace ampoule::wasi
