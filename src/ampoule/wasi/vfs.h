// The guest's filesystem: a writable, in-memory tree built over the mailbox.
//
// Every preopen of the mailbox becomes a root here. Files start out sharing
// the mailbox's bytes and get their own copy on the first change
// (copy-on-write), so a run costs no copying until it writes, and the
// mailbox itself (the bytes the receipt pins) never changes. Nothing here
// touches the host: the tree lives and dies with the run.
//
// Every effect is a function of the calls made and of the times the caller
// passes in (set_now), so a run replays to the same tree, inode numbers,
// directory order and timestamps on every host:
//   - inodes: mailbox nodes keep their mailbox numbers; new nodes count on
//     from there, in creation order;
//   - directory listings: entries in insertion order (the mailbox's entries
//     first, sorted by name), each with a cookie that never changes while
//     the entry exists, so a listing interrupted by changes neither repeats
//     nor skips the entries that stayed;
//   - timestamps: the mailbox's files report the epoch; a change stamps the
//     virtual time the caller set.
//
// Caps (FsLimits) bound what a guest can make the host hold. Going over one
// is an errno for the guest, never a host failure: ENOSPC for bytes, EDQUOT
// for the number of nodes, ENAMETOOLONG for depth.
//
// Paths resolve as WASI's capability rules require: relative to a directory
// descriptor, never above it (".." past the base, an absolute path, or a
// symbolic link to an absolute path is EPERM, as wasmtime says; such a link
// is refused when made, and a lookup would refuse one all the same); at most
// kMaxSymlinkFollows links per resolution (then ELOOP). Hard links share
// one node (its inode, bytes and times), counted once against the caps.
//
// Thread safety: one run, one thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ampoule/wasi/errno.h"
#include "ampoule/wasi/mailbox.h"
#include "core/result.h"

namespace ampoule::wasi {

// Defaults of the caps; a run request may set others (docs/receipt-spec.md).
constexpr uint64_t kDefaultFsMaxBytes = uint64_t(512) << 20;  // inputs included
constexpr uint64_t kDefaultFsMaxNodes = 200'000;               // inputs included
constexpr uint32_t kDefaultFsMaxDepth = 128;
constexpr int kMaxSymlinkFollows = 40;  // as Linux's

struct FsLimits {
  uint64_t max_bytes = kDefaultFsMaxBytes;  // sum of the sizes of all files
  uint64_t max_nodes = kDefaultFsMaxNodes;  // files, directories and symbolic links
  uint32_t max_depth = kDefaultFsMaxDepth;  // directories from a preopen down to a node

  bool operator==(const FsLimits&) const = default;
};

// Checks that a mailbox fits the caps (its bytes, nodes and depth count
// toward them) and that the caps are not zero. Errors name the cap.
core::Status ValidateFsLimits(const Mailbox* mailbox, const FsLimits& limits);

// What the tree holds now; shared with its nodes, which count themselves
// out when they die (an unlinked file stays counted while it is open).
struct FsUsage {
  uint64_t bytes = 0;
  uint64_t nodes = 0;
};

struct VfsNode;
using NodeRef = std::shared_ptr<VfsNode>;

struct VfsNode {
  enum class Kind : uint8_t { kDirectory, kFile, kSymlink };
  struct Entry {
    NodeRef node;
    uint64_t cookie = 0;
  };

  VfsNode(Kind kind, uint64_t inode, std::shared_ptr<FsUsage> usage);
  ~VfsNode();
  VfsNode(const VfsNode&) = delete;
  VfsNode& operator=(const VfsNode&) = delete;

  bool is_dir() const { return kind == Kind::kDirectory; }
  bool is_file() const { return kind == Kind::kFile; }
  bool is_symlink() const { return kind == Kind::kSymlink; }
  // A file's bytes (the mailbox's until the first change).
  std::span<const uint8_t> bytes() const { return owns_bytes ? std::span<const uint8_t>(own) : shared; }
  uint64_t size() const { return is_file() ? bytes().size() : is_symlink() ? target.size() : 0; }

  const Kind kind;
  const uint64_t inode;
  bool read_only = false;  // under a read-only preopen: every change is EROFS
  uint64_t nlink = 1;      // directory entries naming it (directories: 1)
  uint64_t atim = 0, mtim = 0, ctim = 0;

  // kFile: copy-on-write contents.
  std::span<const uint8_t> shared;
  std::vector<uint8_t> own;
  bool owns_bytes = false;

  // kSymlink
  std::string target;

  // kDirectory. `parent` is null for a preopen root and for a removed
  // directory (which stays usable through open descriptors, empty).
  VfsNode* parent = nullptr;
  bool removed = false;
  std::map<std::string, Entry, std::less<>> entries;
  std::map<uint64_t, std::string> names_by_cookie;
  uint64_t next_cookie = kFirstEntryCookie;

  // Cookies 0 and 1 are "." and ".."; entries count on from here.
  static constexpr uint64_t kFirstEntryCookie = 2;

 private:
  std::shared_ptr<FsUsage> usage_;
};

// Where a path led (see Vfs::Resolve).
struct Resolution {
  NodeRef node;         // kFollow / kNoFollow: what the path names
  NodeRef dir;          // kParent: the directory that holds (or would hold) the last component
  std::string leaf;     // kParent: the last component ("." and ".." included, for callers to refuse)
  bool trailing_slash = false;  // the path ended in '/': it must name a directory
  bool leaf_missing = false;    // on kNoEnt: only the last component was missing
};

class Vfs {
 public:
  struct Root {
    std::string guest_path;
    NodeRef node;
  };

  // Builds the tree over `mailbox` (which must outlive it; may be null:
  // no preopens). Mailbox timestamps are `epoch_ns`. The caps do not apply
  // to what the mailbox brings: a request whose inputs exceed them is
  // refused before the run (ValidateFsLimits).
  Vfs(const Mailbox* mailbox, const FsLimits& limits, uint64_t epoch_ns);

  const std::vector<Root>& roots() const { return roots_; }
  const FsLimits& limits() const { return limits_; }
  const FsUsage& usage() const { return *usage_; }
  // How many changes the guest made (the snapshot check: start-up makes none).
  uint64_t change_count() const { return changes_; }
  // The virtual time stamped on what changes next.
  void set_now(uint64_t ns) { now_ns_ = ns; }

  enum class Mode { kFollow, kNoFollow, kParent };
  // Resolves `path` relative to directory `base`. kFollow follows a final
  // symbolic link, kNoFollow does not, kParent stops before the last
  // component and fills dir/leaf. Errors: kNoEnt (empty path, missing
  // component), kNotDir, kPerm (absolute, escaping `base`), kLoop,
  // kNameTooLong (path over kMaxPathBytes, component over kMaxNameBytes),
  // kInval (NUL byte).
  Errno Resolve(const NodeRef& base, std::string_view path, Mode mode, Resolution* out) const;

  // Changes. `dir` is a directory from Resolve(kParent) and `name` a plain
  // component ("." and ".." are refused with kInval, kExist where POSIX
  // says so, by the callers). Each checks the caps and read-only trees.
  Errno CreateFile(const NodeRef& dir, std::string_view name, NodeRef* out);
  Errno CreateDirectory(const NodeRef& dir, std::string_view name);
  // A symbolic link's target may not be absolute (kPerm) or empty (kNoEnt).
  Errno CreateSymlink(const NodeRef& dir, std::string_view name, std::string_view target);
  Errno Link(const NodeRef& node, const NodeRef& dir, std::string_view name);
  // Removes a non-directory entry (kIsDir for a directory; kNotDir when
  // `trailing_slash` says the path named a directory and it is not one).
  Errno Unlink(const NodeRef& dir, std::string_view name, bool trailing_slash);
  // Removes an empty directory (kNotDir, kNotEmpty).
  Errno RemoveDirectory(const NodeRef& dir, std::string_view name);
  // POSIX rename, replacing an existing target of a compatible kind.
  // `trailing_slash`: either path ended in '/', so the source must be a
  // directory (kNotDir).
  Errno Rename(const NodeRef& old_dir, std::string_view old_name, const NodeRef& new_dir,
               std::string_view new_name, bool trailing_slash);

  // File contents. Write grows the file as needed (zero-filling a gap);
  // Resize truncates or extends with zeros. kNoSpc over the byte cap,
  // kFbig past the largest offset.
  Errno Write(const NodeRef& file, uint64_t offset, std::span<const std::span<const uint8_t>> data,
              uint64_t* written);
  Errno Resize(const NodeRef& file, uint64_t size);
  // Sets times: `atim`/`mtim` when the matching flag bit is set, or now.
  Errno SetTimes(const NodeRef& node, uint64_t atim, uint64_t mtim, uint32_t fst_flags);

 private:
  NodeRef NewNode(VfsNode::Kind kind, const NodeRef& dir);
  Errno CheckCreate(const NodeRef& dir, std::string_view name) const;
  uint32_t Depth(const VfsNode* dir) const;
  void Attach(const NodeRef& dir, std::string_view name, const NodeRef& node);
  NodeRef Detach(const NodeRef& dir, std::string_view name);
  void Touch(VfsNode& node);  // mtim = ctim = now
  NodeRef Copy(const MailboxNode& from, VfsNode* parent, bool read_only);

  FsLimits limits_;
  std::shared_ptr<FsUsage> usage_ = std::make_shared<FsUsage>();
  std::vector<Root> roots_;
  uint64_t next_inode_ = 1;
  uint64_t now_ns_ = 0;
  uint64_t epoch_ns_ = 0;
  uint64_t changes_ = 0;
};

}  // namespace ampoule::wasi
