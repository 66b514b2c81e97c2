// Fuzz target for the guest filesystem (src/ampoule/wasi/vfs.h), whose
// every call takes paths and sizes straight from an untrusted guest.
//
// Each input is a sequence of operations on paths built from a few short
// names (so that they collide), "." , ".." and a symbolic link, with small
// caps so that they are hit. After each operation: the caps hold, the
// mailbox is unchanged, no directory is reachable twice (no cycle), and the
// usage counters equal what is reachable from the roots or still held open.
// Any crash, sanitizer report, hang or abort is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "ampoule/wasi/vfs.h"

namespace {

using namespace ampoule::wasi;

class Input {
 public:
  Input(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  bool done() const { return pos_ >= size_; }
  uint8_t Byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  // A path of one to three components, maybe with a trailing slash.
  std::string Path() {
    static const char* const kParts[] = {"a", "b", "d", "l", ".", "..", "a/b", ""};
    uint8_t b = Byte();
    std::string path;
    for (int i = 0; i <= (b >> 6) % 3; ++i) {
      if (i) path += '/';
      path += kParts[(b >> (i * 2)) & 7];
    }
    if (b & 0x20) path += '/';
    return path;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// Counts the nodes and bytes reachable from `node`; aborts on a directory
// seen twice.
void Walk(const VfsNode* node, std::set<const VfsNode*>& seen, uint64_t* bytes) {
  if (!seen.insert(node).second) {
    if (node->is_dir()) abort();  // a directory in two places: a cycle or a lost unlink
    return;                       // a hard link: counted once
  }
  *bytes += node->size();
  for (const auto& [name, entry] : node->entries) Walk(entry.node.get(), seen, bytes);
}

void Check(const Vfs& vfs, const std::vector<NodeRef>& held, const FsLimits& limits) {
  std::set<const VfsNode*> seen;
  uint64_t bytes = 0;
  for (const Vfs::Root& root : vfs.roots()) Walk(root.node.get(), seen, &bytes);
  for (const NodeRef& n : held) {
    if (seen.insert(n.get()).second) bytes += n->size();
  }
  if (vfs.usage().nodes != seen.size() || vfs.usage().bytes != bytes) abort();
  if (vfs.usage().bytes > limits.max_bytes || vfs.usage().nodes > limits.max_nodes) abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const Mailbox* const mailbox = [] {
    auto* box = new Mailbox;
    if (!box->AddPreopen("/in").ok() || !box->AddFile("/in", "a", {'x'}).ok() ||
        !box->AddFile("/in", "d/b", {'y', 'z'}).ok() || !box->AddPreopen("/ro", true).ok() ||
        !box->AddFile("/ro", "a", {'r'}).ok()) {
      abort();
    }
    return box;
  }();
  const FsLimits limits{512, 24, 4};
  Vfs vfs(mailbox, limits, 0);
  std::vector<NodeRef> held;
  Input in(data, size);
  for (int steps = 0; !in.done() && steps < 256; ++steps) {
    uint8_t op = in.Byte();
    const NodeRef& base = vfs.roots()[op >> 7].node;  // mostly /in, sometimes /ro
    std::string p = in.Path();
    Resolution r;
    Vfs::Mode mode = (op & 0x40) ? Vfs::Mode::kNoFollow : Vfs::Mode::kFollow;
    vfs.set_now(steps);
    switch (op % 13) {
      case 0:
        if (vfs.Resolve(base, p, Vfs::Mode::kParent, &r) == Errno::kSuccess) {
          NodeRef file;
          (void)vfs.CreateFile(r.dir, r.leaf, &file);
        }
        break;
      case 1:
        if (vfs.Resolve(base, p, Vfs::Mode::kParent, &r) == Errno::kSuccess)
          (void)vfs.CreateDirectory(r.dir, r.leaf);
        break;
      case 2:
        if (vfs.Resolve(base, p, Vfs::Mode::kParent, &r) == Errno::kSuccess)
          (void)vfs.CreateSymlink(r.dir, r.leaf, in.Path());
        break;
      case 3: {
        Resolution to;
        if (vfs.Resolve(base, p, mode, &r) == Errno::kSuccess &&
            vfs.Resolve(base, in.Path(), Vfs::Mode::kParent, &to) == Errno::kSuccess)
          (void)vfs.Link(r.node, to.dir, to.leaf);
        break;
      }
      case 4:
        if (vfs.Resolve(base, p, Vfs::Mode::kParent, &r) == Errno::kSuccess)
          (void)vfs.Unlink(r.dir, r.leaf, r.trailing_slash);
        break;
      case 5:
        if (vfs.Resolve(base, p, Vfs::Mode::kParent, &r) == Errno::kSuccess)
          (void)vfs.RemoveDirectory(r.dir, r.leaf);
        break;
      case 6: {
        Resolution to;
        if (vfs.Resolve(base, p, Vfs::Mode::kParent, &r) == Errno::kSuccess &&
            vfs.Resolve(vfs.roots()[0].node, in.Path(), Vfs::Mode::kParent, &to) == Errno::kSuccess)
          (void)vfs.Rename(r.dir, r.leaf, to.dir, to.leaf, r.trailing_slash || to.trailing_slash);
        break;
      }
      case 7:
        if (vfs.Resolve(base, p, mode, &r) == Errno::kSuccess) {
          uint8_t bytes[3] = {in.Byte(), in.Byte(), in.Byte()};
          std::span<const uint8_t> part(bytes, in.Byte() % 4);
          uint64_t written = 0;
          (void)vfs.Write(r.node, uint64_t(in.Byte()) * 8, std::span(&part, 1), &written);
        }
        break;
      case 8:
        if (vfs.Resolve(base, p, mode, &r) == Errno::kSuccess)
          (void)vfs.Resize(r.node, uint64_t(in.Byte()) * 4);
        break;
      case 9:
        if (vfs.Resolve(base, p, mode, &r) == Errno::kSuccess && held.size() < 8)
          held.push_back(r.node);
        break;
      case 10:
        if (!held.empty()) held.erase(held.begin() + in.Byte() % held.size());
        break;
      case 11:
        if (vfs.Resolve(base, p, mode, &r) == Errno::kSuccess)
          (void)vfs.SetTimes(r.node, 1, 2, in.Byte() & 0x0F);
        break;
      case 12:
        // A held directory as the base, as a descriptor opened below a
        // preopen (or removed since) would be.
        for (const NodeRef& h : held) {
          if (h->is_dir()) {
            NodeRef file;
            if (vfs.Resolve(h, p, Vfs::Mode::kParent, &r) == Errno::kSuccess)
              (void)vfs.CreateFile(r.dir, r.leaf, &file);
            break;
          }
        }
        break;
    }
    Check(vfs, held, limits);
  }
  const MailboxNode& a = *mailbox->preopens()[0].root->entries.at("a");
  if (a.contents.size() != 1 || a.contents[0] != 'x') abort();  // the mailbox never changes
  return 0;
}
