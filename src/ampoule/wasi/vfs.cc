#include "ampoule/wasi/vfs.h"

#include <algorithm>
#include <cstring>

#include "ampoule/wasi/abi.h"

namespace ampoule::wasi {
namespace {

// The largest file offset: what a signed 64-bit off_t can hold.
constexpr uint64_t kMaxFileOffset = uint64_t(INT64_MAX);

bool IsDot(std::string_view name) { return name == "." || name == ".."; }

// Splits `path` into components, skipping empty ones ("a//b/" is a, b).
void Split(std::string_view path, std::vector<std::string>& out) {
  size_t start = 0;
  while (start < path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    if (slash > start) out.emplace_back(path.substr(start, slash - start));
    start = slash + 1;
  }
}

// Adds the nodes, bytes and depth of the tree at `node` (at `depth`).
void Measure(const MailboxNode& node, uint32_t depth, uint64_t* nodes, uint64_t* bytes,
             uint32_t* max_depth) {
  *nodes += 1;
  *bytes += node.contents.size();
  *max_depth = std::max(*max_depth, depth);
  for (const auto& [name, child] : node.entries) Measure(*child, depth + 1, nodes, bytes, max_depth);
}

}  // namespace

core::Status ValidateFsLimits(const Mailbox* mailbox, const FsLimits& limits) {
  if (limits.max_bytes == 0 || limits.max_nodes == 0 || limits.max_depth == 0) {
    return core::Error{"the filesystem caps must be above zero (bytes " +
                 std::to_string(limits.max_bytes) + ", files " +
                 std::to_string(limits.max_nodes) + ", depth " +
                 std::to_string(limits.max_depth) + ")"};
  }
  if (mailbox == nullptr) return core::Status::Ok();
  uint64_t nodes = 0, bytes = 0;
  uint32_t depth = 0;
  for (const Preopen& p : mailbox->preopens()) Measure(*p.root, 0, &nodes, &bytes, &depth);
  if (bytes > limits.max_bytes) {
    return core::Error{"the run's files hold " + std::to_string(bytes) +
                 " bytes, more than the filesystem cap of " + std::to_string(limits.max_bytes) +
                 " bytes; raise the cap or pass fewer inputs"};
  }
  if (nodes > limits.max_nodes) {
    return core::Error{"the run's files and directories number " + std::to_string(nodes) +
                 ", more than the filesystem cap of " + std::to_string(limits.max_nodes) +
                 "; raise the cap or pass fewer inputs"};
  }
  if (depth > limits.max_depth) {
    return core::Error{"the run's files are nested " + std::to_string(depth) +
                 " directories deep, more than the filesystem cap of " +
                 std::to_string(limits.max_depth) + "; raise the cap or flatten the inputs"};
  }
  return core::Status::Ok();
}

VfsNode::VfsNode(Kind k, uint64_t ino, std::shared_ptr<FsUsage> usage)
    : kind(k), inode(ino), usage_(std::move(usage)) {
  usage_->nodes += 1;
}

VfsNode::~VfsNode() {
  usage_->nodes -= 1;
  usage_->bytes -= size();
}

Vfs::Vfs(const Mailbox* mailbox, const FsLimits& limits, uint64_t epoch_ns)
    : limits_(limits), now_ns_(epoch_ns), epoch_ns_(epoch_ns) {
  if (mailbox == nullptr) return;
  next_inode_ = mailbox->entry_count() + 1;
  for (const Preopen& p : mailbox->preopens())
    roots_.push_back(Root{p.guest_path, Copy(*p.root, nullptr, p.read_only)});
}

NodeRef Vfs::Copy(const MailboxNode& from, VfsNode* parent, bool read_only) {
  auto node = std::make_shared<VfsNode>(
      from.is_dir() ? VfsNode::Kind::kDirectory : VfsNode::Kind::kFile, from.inode, usage_);
  node->read_only = read_only;
  node->atim = node->mtim = node->ctim = epoch_ns_;
  if (!from.is_dir()) {
    node->shared = from.contents;
    usage_->bytes += from.contents.size();
    return node;
  }
  node->parent = parent;
  for (const auto& [name, child] : from.entries)  // sorted by name: the listing order
    Attach(node, name, Copy(*child, node.get(), read_only));
  return node;
}

Errno Vfs::Resolve(const NodeRef& base, std::string_view path, Mode mode, Resolution* out) const {
  if (path.empty()) return Errno::kNoEnt;
  if (path.size() > kMaxPathBytes) return Errno::kNameTooLong;
  if (path.find('\0') != std::string_view::npos) return Errno::kInval;
  // An escape is EPERM, as wasmtime reports it (and as the public WASI test
  // suite accepts): a POSIX program reads "not permitted", never WASI's own
  // ENOTCAPABLE, which stays for the rights of a descriptor.
  if (path.front() == '/') return Errno::kPerm;
  out->trailing_slash = path.back() == '/';

  // Components still to walk, the next one last; a followed link's target
  // is pushed in place of the link. `dirs` is the walk from `base`, so ".."
  // goes back along it and never above base.
  std::vector<std::string> todo;
  Split(path, todo);
  std::reverse(todo.begin(), todo.end());
  std::vector<NodeRef> dirs{base};
  int follows = 0;
  while (!todo.empty()) {
    std::string part = std::move(todo.back());
    todo.pop_back();
    bool last = todo.empty();
    const NodeRef& cur = dirs.back();
    if (!cur->is_dir()) return Errno::kNotDir;
    if (part.size() > kMaxNameBytes) return Errno::kNameTooLong;
    if (last && mode == Mode::kParent) {
      if (cur->removed) return Errno::kNoEnt;
      out->dir = cur;
      out->leaf = std::move(part);
      return Errno::kSuccess;
    }
    if (part == ".") continue;
    if (part == "..") {
      if (dirs.size() == 1) return Errno::kPerm;
      dirs.pop_back();
      continue;
    }
    auto it = cur->entries.find(part);
    if (it == cur->entries.end()) {
      out->leaf_missing = last;
      return Errno::kNoEnt;
    }
    const NodeRef& node = it->second.node;
    bool follow = !last || mode == Mode::kFollow || out->trailing_slash;
    if (node->is_symlink() && follow) {
      if (++follows > kMaxSymlinkFollows) return Errno::kLoop;
      if (node->target.empty()) return Errno::kNoEnt;
      if (node->target.front() == '/') return Errno::kPerm;
      size_t before = todo.size();
      Split(node->target, todo);
      std::reverse(todo.begin() + before, todo.end());
      if (todo.size() == before) todo.emplace_back(".");  // a target of only slashes
      continue;
    }
    if (!last) {
      if (!node->is_dir()) return Errno::kNotDir;
      dirs.push_back(node);
      continue;
    }
    dirs.push_back(node);
  }
  // Everything walked ("a", "a/..", "."). kParent lands here only when the
  // path ended in "." or ".." expanded from a link: name the directory.
  NodeRef& node = dirs.back();
  if (out->trailing_slash && !node->is_dir()) return Errno::kNotDir;
  if (mode == Mode::kParent) {
    out->dir = node;
    out->leaf = ".";
    return Errno::kSuccess;
  }
  out->node = node;
  return Errno::kSuccess;
}

uint32_t Vfs::Depth(const VfsNode* dir) const {
  uint32_t depth = 0;
  for (const VfsNode* d = dir; d->parent != nullptr; d = d->parent) ++depth;
  return depth;
}

Errno Vfs::CheckCreate(const NodeRef& dir, std::string_view name) const {
  if (IsDot(name)) return Errno::kExist;
  if (!dir->is_dir()) return Errno::kNotDir;
  if (dir->removed) return Errno::kNoEnt;
  if (dir->entries.count(name) != 0) return Errno::kExist;
  if (dir->read_only) return Errno::kRofs;
  if (Depth(dir.get()) + 1 > limits_.max_depth) return Errno::kNameTooLong;
  return Errno::kSuccess;
}

NodeRef Vfs::NewNode(VfsNode::Kind kind, const NodeRef& dir) {
  if (usage_->nodes >= limits_.max_nodes) return nullptr;
  auto node = std::make_shared<VfsNode>(kind, next_inode_++, usage_);
  node->atim = node->mtim = node->ctim = now_ns_;
  if (kind == VfsNode::Kind::kDirectory) node->parent = dir.get();
  return node;
}

void Vfs::Touch(VfsNode& node) { node.mtim = node.ctim = now_ns_; }

void Vfs::Attach(const NodeRef& dir, std::string_view name, const NodeRef& node) {
  uint64_t cookie = dir->next_cookie++;
  dir->entries.emplace(std::string(name), VfsNode::Entry{node, cookie});
  dir->names_by_cookie.emplace(cookie, std::string(name));
}

NodeRef Vfs::Detach(const NodeRef& dir, std::string_view name) {
  auto it = dir->entries.find(name);
  NodeRef node = std::move(it->second.node);
  dir->names_by_cookie.erase(it->second.cookie);
  dir->entries.erase(it);
  return node;
}

Errno Vfs::CreateFile(const NodeRef& dir, std::string_view name, NodeRef* out) {
  AMP_WASI_TRY(CheckCreate(dir, name));
  NodeRef node = NewNode(VfsNode::Kind::kFile, dir);
  if (node == nullptr) return Errno::kDquot;
  Attach(dir, name, node);
  Touch(*dir);
  ++changes_;
  *out = std::move(node);
  return Errno::kSuccess;
}

Errno Vfs::CreateDirectory(const NodeRef& dir, std::string_view name) {
  AMP_WASI_TRY(CheckCreate(dir, name));
  NodeRef node = NewNode(VfsNode::Kind::kDirectory, dir);
  if (node == nullptr) return Errno::kDquot;
  Attach(dir, name, node);
  Touch(*dir);
  ++changes_;
  return Errno::kSuccess;
}

Errno Vfs::CreateSymlink(const NodeRef& dir, std::string_view name, std::string_view target) {
  if (target.size() > kMaxPathBytes) return Errno::kNameTooLong;
  if (target.find('\0') != std::string_view::npos) return Errno::kInval;
  AMP_WASI_TRY(CheckCreate(dir, name));
  // An empty target names nothing (ENOENT, as Linux says). An absolute one
  // could only lead out of the tree: refused as wasmtime refuses it (EPERM),
  // which the public WASI test suite (symlink_create) asks of a runtime.
  if (target.empty()) return Errno::kNoEnt;
  if (target.front() == '/') return Errno::kPerm;
  if (usage_->bytes + target.size() > limits_.max_bytes) return Errno::kNoSpc;
  NodeRef node = NewNode(VfsNode::Kind::kSymlink, dir);
  if (node == nullptr) return Errno::kDquot;
  node->target = std::string(target);
  usage_->bytes += target.size();
  Attach(dir, name, node);
  Touch(*dir);
  ++changes_;
  return Errno::kSuccess;
}

Errno Vfs::Link(const NodeRef& node, const NodeRef& dir, std::string_view name) {
  if (node->is_dir()) return Errno::kPerm;  // hard links to directories are never allowed
  AMP_WASI_TRY(CheckCreate(dir, name));
  if (node->read_only) return Errno::kRofs;
  Attach(dir, name, node);
  node->nlink += 1;
  node->ctim = now_ns_;
  Touch(*dir);
  ++changes_;
  return Errno::kSuccess;
}

Errno Vfs::Unlink(const NodeRef& dir, std::string_view name, bool trailing_slash) {
  if (IsDot(name)) return Errno::kIsDir;
  auto it = dir->entries.find(name);
  if (it == dir->entries.end()) return Errno::kNoEnt;
  if (it->second.node->is_dir()) return Errno::kIsDir;
  if (trailing_slash) return Errno::kNotDir;
  if (dir->read_only) return Errno::kRofs;
  NodeRef node = Detach(dir, name);
  node->nlink -= 1;
  node->ctim = now_ns_;
  Touch(*dir);
  ++changes_;
  return Errno::kSuccess;
}

Errno Vfs::RemoveDirectory(const NodeRef& dir, std::string_view name) {
  if (name == ".") return Errno::kInval;
  if (name == "..") return Errno::kNotEmpty;
  auto it = dir->entries.find(name);
  if (it == dir->entries.end()) return Errno::kNoEnt;
  const NodeRef& node = it->second.node;
  if (!node->is_dir()) return Errno::kNotDir;
  if (!node->entries.empty()) return Errno::kNotEmpty;
  if (dir->read_only) return Errno::kRofs;
  NodeRef gone = Detach(dir, name);
  gone->parent = nullptr;
  gone->removed = true;
  gone->nlink = 0;
  Touch(*dir);
  ++changes_;
  return Errno::kSuccess;
}

namespace {

// Levels of directories below `dir`, itself excluded (0 for an empty one).
uint32_t Height(const VfsNode& dir) {
  uint32_t h = 0;
  for (const auto& [name, entry] : dir.entries) {
    if (entry.node->is_dir()) h = std::max(h, 1 + Height(*entry.node));
  }
  return h;
}

}  // namespace

Errno Vfs::Rename(const NodeRef& old_dir, std::string_view old_name, const NodeRef& new_dir,
                  std::string_view new_name, bool trailing_slash) {
  if (IsDot(old_name) || IsDot(new_name)) return Errno::kInval;
  auto from = old_dir->entries.find(old_name);
  if (from == old_dir->entries.end()) return Errno::kNoEnt;
  if (new_dir->removed) return Errno::kNoEnt;
  NodeRef node = from->second.node;
  if (trailing_slash && !node->is_dir()) return Errno::kNotDir;
  auto to = new_dir->entries.find(new_name);
  NodeRef target = to == new_dir->entries.end() ? nullptr : to->second.node;
  if (target == node) return Errno::kSuccess;  // the same file: POSIX does nothing
  if (node->is_dir()) {
    // A directory cannot move into itself or below itself.
    for (const VfsNode* d = new_dir.get(); d != nullptr; d = d->parent) {
      if (d == node.get()) return Errno::kInval;
    }
    if (target != nullptr && !target->is_dir()) return Errno::kNotDir;
    if (target != nullptr && !target->entries.empty()) return Errno::kNotEmpty;
  } else if (target != nullptr && target->is_dir()) {
    return Errno::kIsDir;
  }
  if (old_dir->read_only || new_dir->read_only) return Errno::kRofs;
  uint32_t height = node->is_dir() ? 1 + Height(*node) : 1;
  if (Depth(new_dir.get()) + height > limits_.max_depth) return Errno::kNameTooLong;

  if (target != nullptr) {
    NodeRef replaced = Detach(new_dir, new_name);
    replaced->nlink -= 1;
    replaced->ctim = now_ns_;
    if (replaced->is_dir()) {
      replaced->parent = nullptr;
      replaced->removed = true;
      replaced->nlink = 0;
    }
  }
  Detach(old_dir, old_name);
  Attach(new_dir, new_name, node);
  if (node->is_dir()) node->parent = new_dir.get();
  node->ctim = now_ns_;
  Touch(*old_dir);
  Touch(*new_dir);
  ++changes_;
  return Errno::kSuccess;
}

Errno Vfs::Resize(const NodeRef& file, uint64_t size) {
  if (!file->is_file()) return file->is_dir() ? Errno::kIsDir : Errno::kInval;
  if (file->read_only) return Errno::kRofs;
  if (size > kMaxFileOffset) return Errno::kFbig;
  uint64_t old = file->size();
  if (size > old && usage_->bytes - old + size > limits_.max_bytes) return Errno::kNoSpc;
  if (!file->owns_bytes) {
    file->own.assign(file->shared.begin(), file->shared.begin() + std::min(old, size));
    file->shared = {};
    file->owns_bytes = true;
  }
  file->own.resize(size_t(size));
  usage_->bytes = usage_->bytes - old + size;
  Touch(*file);
  ++changes_;
  return Errno::kSuccess;
}

Errno Vfs::Write(const NodeRef& file, uint64_t offset,
                 std::span<const std::span<const uint8_t>> data, uint64_t* written) {
  uint64_t total = 0;
  for (const auto& d : data) total += d.size();
  *written = 0;
  if (!file->is_file()) return file->is_dir() ? Errno::kIsDir : Errno::kInval;
  if (file->read_only) return Errno::kRofs;
  if (total == 0) return Errno::kSuccess;
  if (offset > kMaxFileOffset || total > kMaxFileOffset - offset) return Errno::kFbig;
  uint64_t end = offset + total;
  if (end > file->size()) AMP_WASI_TRY(Resize(file, end));
  if (!file->owns_bytes) AMP_WASI_TRY(Resize(file, file->size()));  // take a private copy
  for (const auto& d : data) {
    if (!d.empty()) memmove(file->own.data() + offset, d.data(), d.size());
    offset += d.size();
  }
  *written = total;
  Touch(*file);
  ++changes_;
  return Errno::kSuccess;
}

Errno Vfs::SetTimes(const NodeRef& node, uint64_t atim, uint64_t mtim, uint32_t fst_flags) {
  if (node->read_only) return Errno::kRofs;
  if (fst_flags & abi::kFstflagAtim) node->atim = atim;
  if (fst_flags & abi::kFstflagAtimNow) node->atim = now_ns_;
  if (fst_flags & abi::kFstflagMtim) node->mtim = mtim;
  if (fst_flags & abi::kFstflagMtimNow) node->mtim = now_ns_;
  node->ctim = now_ns_;
  ++changes_;
  return Errno::kSuccess;
}

}  // namespace ampoule::wasi
