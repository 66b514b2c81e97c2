// fd_read, fd_pread, fd_write, fd_pwrite, fd_readdir: the calls that move
// bytes between the guest and its descriptors.
#include <algorithm>
#include <array>
#include <cstring>

#include "ampoule/wasi/wasi_calls.h"

namespace ampoule::wasi {
namespace {

using Kind = FdEntry::Kind;

Errno Need(const FdEntry& e, uint64_t right) {
  return (e.rights_base & right) == right ? Errno::kSuccess : Errno::kNotCapable;
}

// Reads the iovec array and checks that the sum of lengths fits the u32
// result (POSIX: EINVAL when it would overflow ssize_t).
Errno LoadIovecs(GuestMemory& mem, u32 iovs, u32 count, std::vector<GuestBuffer>& storage,
                 std::span<GuestBuffer>* out) {
  if (count > kMaxIovecs) return Errno::kInval;
  storage.resize(count);
  AMP_WASI_TRY(ReadIovecs(mem, iovs, count, storage, out));
  uint64_t total = 0;
  for (const GuestBuffer& b : *out) total += b.size();
  return total > UINT32_MAX ? Errno::kInval : Errno::kSuccess;
}

// Copies from `source` starting at `offset` into the buffers; returns the
// number of bytes copied.
uint64_t Scatter(std::span<const uint8_t> source, uint64_t offset, std::span<GuestBuffer> buffers) {
  uint64_t done = 0;
  for (GuestBuffer& b : buffers) {
    if (offset >= source.size()) break;
    size_t n = size_t(std::min<uint64_t>(b.size(), source.size() - offset));
    if (n != 0) memmove(b.data(), source.data() + offset, n);
    offset += n;
    done += n;
    if (n < b.size()) break;
  }
  return done;
}

// Where a readable descriptor's bytes come from. kBadf/kIsDir otherwise;
// kNotCapable for stdin whose read right the guest dropped.
Errno ReadSource(WasiContext& ctx, const FdEntry& e, std::span<const uint8_t>* source) {
  switch (e.kind) {
    case Kind::kStdin: *source = ctx.stdin_bytes(); break;
    case Kind::kFile: *source = e.node->bytes(); break;
    case Kind::kDirectory: return Errno::kIsDir;
    case Kind::kStdout:
    case Kind::kStderr: return Errno::kBadf;
  }
  // A file opened without read access: EBADF, as POSIX says (and as fd_write
  // says of one opened without write access), not WASI's ENOTCAPABLE.
  if (e.kind == Kind::kFile && (e.rights_base & abi::kRightFdRead) == 0) return Errno::kBadf;
  return Need(e, abi::kRightFdRead);
}

// Writes the buffers to the file of `e` at `offset` (all or nothing).
Errno WriteFile(WasiContext& ctx, FdEntry& e, uint64_t offset, std::span<GuestBuffer> buffers,
                uint64_t* written) {
  std::vector<std::span<const uint8_t>> parts(buffers.begin(), buffers.end());
  return ctx.vfs().Write(e.node, offset, parts, written);
}

}  // namespace


Errno FdRead(WasiContext& ctx, GuestMemory& mem, u32 fd, u32 iovs, u32 iovs_len, u32 nread_out) {
  FdEntry* e = ctx.fds().Get(fd);
  if (e == nullptr) return Errno::kBadf;
  std::span<const uint8_t> source;
  AMP_WASI_TRY(ReadSource(ctx, *e, &source));
  std::vector<GuestBuffer> storage;
  std::span<GuestBuffer> buffers;
  AMP_WASI_TRY(LoadIovecs(mem, iovs, iovs_len, storage, &buffers));
  if (!mem.InBounds(nread_out, 4)) return Errno::kFault;
  uint64_t& offset = e->kind == Kind::kStdin ? ctx.stdin_offset() : e->offset;
  uint64_t n = Scatter(source, offset, buffers);
  offset += n;
  return mem.Write32(nread_out, u32(n));
}

Errno FdPread(WasiContext& ctx, GuestMemory& mem, u32 fd, u32 iovs, u32 iovs_len, u64 offset,
              u32 nread_out) {
  FdEntry* e = ctx.fds().Get(fd);
  if (e == nullptr) return Errno::kBadf;
  if (e->is_stdio()) return Errno::kSpipe;
  std::span<const uint8_t> source;
  AMP_WASI_TRY(ReadSource(ctx, *e, &source));
  AMP_WASI_TRY(Need(*e, abi::kRightFdSeek));
  std::vector<GuestBuffer> storage;
  std::span<GuestBuffer> buffers;
  AMP_WASI_TRY(LoadIovecs(mem, iovs, iovs_len, storage, &buffers));
  if (!mem.InBounds(nread_out, 4)) return Errno::kFault;
  return mem.Write32(nread_out, u32(Scatter(source, offset, buffers)));
}

Errno FdWrite(WasiContext& ctx, GuestMemory& mem, u32 fd, u32 iovs, u32 iovs_len,
              u32 nwritten_out) {
  FdEntry* e = ctx.fds().Get(fd);
  if (e == nullptr) return Errno::kBadf;
  if (e->kind == Kind::kStdin || e->kind == Kind::kDirectory) return Errno::kBadf;
  if (e->kind == Kind::kFile && (e->rights_base & abi::kRightFdWrite) == 0)
    return Errno::kBadf;  // not open for writing, as POSIX says
  AMP_WASI_TRY(Need(*e, abi::kRightFdWrite));
  std::vector<GuestBuffer> storage;
  std::span<GuestBuffer> buffers;
  AMP_WASI_TRY(LoadIovecs(mem, iovs, iovs_len, storage, &buffers));
  if (!mem.InBounds(nwritten_out, 4)) return Errno::kFault;
  uint64_t n = 0;
  if (e->kind == Kind::kFile) {
    uint64_t at = (e->fdflags & abi::kFdflagAppend) ? e->node->size() : e->offset;
    AMP_WASI_TRY(WriteFile(ctx, *e, at, buffers, &n));
    e->offset = at + n;
    return mem.Write32(nwritten_out, u32(n));
  }
  OutputCapture& sink = e->kind == Kind::kStdout ? ctx.stdout_capture() : ctx.stderr_capture();
  for (const GuestBuffer& b : buffers) {
    sink.Write(b);
    n += b.size();
  }
  // The whole write is reported done even past the cap: see OutputCapture.
  return mem.Write32(nwritten_out, u32(n));
}

Errno FdPwrite(WasiContext& ctx, GuestMemory& mem, u32 fd, u32 iovs, u32 iovs_len, u64 offset,
               u32 nwritten_out) {
  FdEntry* e = ctx.fds().Get(fd);
  if (e == nullptr) return Errno::kBadf;
  if (e->is_stdio()) return Errno::kSpipe;
  if (e->kind == Kind::kDirectory) return Errno::kIsDir;
  if ((e->rights_base & abi::kRightFdWrite) == 0) return Errno::kBadf;
  AMP_WASI_TRY(Need(*e, abi::kRightFdSeek));
  std::vector<GuestBuffer> storage;
  std::span<GuestBuffer> buffers;
  AMP_WASI_TRY(LoadIovecs(mem, iovs, iovs_len, storage, &buffers));
  if (!mem.InBounds(nwritten_out, 4)) return Errno::kFault;
  // The position does not move. With O_APPEND the bytes still go at the
  // given offset: POSIX asks for that, and so do wasmtime and WasmEdge
  // (Linux alone appends).
  uint64_t n = 0;
  AMP_WASI_TRY(WriteFile(ctx, *e, offset, buffers, &n));
  return mem.Write32(nwritten_out, u32(n));
}

namespace {

// Appends one dirent (24-byte header, then the name without NUL).
void AppendDirent(std::vector<uint8_t>& out, uint64_t next, uint64_t ino, std::string_view name,
                  uint8_t type) {
  std::array<uint8_t, abi::kDirentSize> h{};
  for (int i = 0; i < 8; ++i) h[i] = uint8_t(next >> (8 * i));
  for (int i = 0; i < 8; ++i) h[8 + i] = uint8_t(ino >> (8 * i));
  for (int i = 0; i < 4; ++i) h[16 + i] = uint8_t(uint32_t(name.size()) >> (8 * i));
  h[20] = type;
  out.insert(out.end(), h.begin(), h.end());
  out.insert(out.end(), name.begin(), name.end());
}

}  // namespace

Errno FdReaddir(WasiContext& ctx, GuestMemory& mem, u32 fd, u32 buf, u32 buf_len, u64 cookie,
                u32 bufused_out) {
  FdEntry* e = ctx.fds().Get(fd);
  if (e == nullptr) return Errno::kBadf;
  if (e->kind != Kind::kDirectory) return Errno::kNotDir;
  AMP_WASI_TRY(Need(*e, abi::kRightFdReaddir));
  if (!mem.InBounds(buf, buf_len) || !mem.InBounds(bufused_out, 4)) return Errno::kFault;

  // "." and ".." have cookies 0 and 1, the entries theirs (vfs.h); each
  // dirent's d_next is its cookie + 1, where the next call resumes. The
  // last entry may be cut off at buf_len: a full buffer tells the guest to
  // call again from the last whole entry's d_next.
  const VfsNode& dir = *e->node;
  const VfsNode& parent = dir.parent != nullptr ? *dir.parent : dir;
  std::vector<uint8_t> out;
  auto emit = [&](uint64_t at, std::string_view name, const VfsNode& node) {
    AppendDirent(out, at + 1, node.inode, name, FiletypeOf(node));
  };
  if (cookie == 0) emit(0, ".", dir);
  if (cookie <= 1 && out.size() < buf_len) emit(1, "..", parent);
  for (auto it = dir.names_by_cookie.lower_bound(cookie);
       it != dir.names_by_cookie.end() && out.size() < buf_len; ++it) {
    emit(it->first, it->second, *dir.entries.find(it->second)->second.node);
  }
  if (out.size() > buf_len) out.resize(buf_len);
  AMP_WASI_TRY(mem.WriteBytes(buf, out));
  return mem.Write32(bufused_out, u32(out.size()));
}

}  // namespace ampoule::wasi
