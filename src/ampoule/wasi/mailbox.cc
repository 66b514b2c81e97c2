#include "ampoule/wasi/mailbox.h"

namespace ampoule::wasi {
namespace {

std::string Quote(std::string_view s) { return "\"" + std::string(s) + "\""; }

// Splits "a/b//c/" into {"a", "b", "c"}: empty components are skipped, as a
// host path's would be.
std::vector<std::string_view> SplitPath(std::string_view path) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    if (slash > start) parts.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  return parts;
}

}  // namespace

bool IsValidMailboxName(std::string_view name) {
  if (name.empty() || name.size() > kMaxNameBytes || name == "." || name == "..") return false;
  return name.find('/') == std::string_view::npos && name.find('\0') == std::string_view::npos;
}

core::Result<std::unique_ptr<MailboxNode>> Mailbox::NewNode(MailboxNode::Kind kind, MailboxNode* parent) {
  if (entry_count() >= kMaxMailboxEntries) {
    return core::Error{"the mailbox holds more than " + std::to_string(kMaxMailboxEntries) +
                 " files and directories; pass fewer inputs"};
  }
  auto node = std::make_unique<MailboxNode>();
  node->kind = kind;
  node->inode = next_inode_++;
  node->parent = parent;
  return node;
}

core::Status Mailbox::AddPreopen(std::string_view guest_path, bool read_only) {
  if (guest_path.empty()) return core::Error{"a preopened directory needs a non-empty guest path"};
  if (guest_path.size() > kMaxPathBytes || guest_path.find('\0') != std::string_view::npos) {
    return core::Error{"guest path " + Quote(guest_path) + " is too long or contains a NUL byte"};
  }
  for (const Preopen& p : preopens_) {
    if (p.guest_path == guest_path)
      return core::Error{"guest path " + Quote(guest_path) + " is given twice"};
  }
  core::Result<std::unique_ptr<MailboxNode>> root = NewNode(MailboxNode::Kind::kDirectory, nullptr);
  if (!root) return root.error();
  preopens_.push_back(Preopen{std::string(guest_path), std::move(*root), read_only});
  return core::Status::Ok();
}

core::Result<MailboxNode*> Mailbox::FindPreopen(std::string_view guest_path) {
  for (Preopen& p : preopens_) {
    if (p.guest_path == guest_path) return p.root.get();
  }
  return core::Error{"no preopened directory " + Quote(guest_path) + " was added"};
}

core::Result<MailboxNode*> Mailbox::MakeParents(MailboxNode* root, std::string_view relative_path,
                                          std::string_view* leaf) {
  if (relative_path.size() > kMaxPathBytes) {
    return core::Error{"mailbox path " + Quote(relative_path.substr(0, 64)) + "... is longer than " +
                 std::to_string(kMaxPathBytes) + " bytes"};
  }
  std::vector<std::string_view> parts = SplitPath(relative_path);
  if (parts.empty()) return core::Error{"mailbox path " + Quote(relative_path) + " names no file"};
  for (std::string_view part : parts) {
    if (!IsValidMailboxName(part)) {
      return core::Error{"mailbox path " + Quote(relative_path) + " has an invalid component " +
                   Quote(part) + " (names are 1-255 bytes, without NUL, and not \".\" or \"..\")"};
    }
  }
  MailboxNode* dir = root;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    auto it = dir->entries.find(parts[i]);
    if (it == dir->entries.end()) {
      core::Result<std::unique_ptr<MailboxNode>> made = NewNode(MailboxNode::Kind::kDirectory, dir);
      if (!made) return made.error();
      it = dir->entries.emplace(std::string(parts[i]), std::move(*made)).first;
    } else if (!it->second->is_dir()) {
      return core::Error{"mailbox path " + Quote(relative_path) + ": " + Quote(parts[i]) +
                   " is a file, not a directory"};
    }
    dir = it->second.get();
  }
  *leaf = parts.back();
  return dir;
}

core::Status Mailbox::AddFile(std::string_view guest_path, std::string_view relative_path,
                        std::vector<uint8_t> contents) {
  core::Result<MailboxNode*> root = FindPreopen(guest_path);
  if (!root) return root.error();
  if (contents.size() > kMaxMailboxFileBytes) {
    return core::Error{"input " + Quote(relative_path) + " is " + std::to_string(contents.size()) +
                 " bytes, over the mailbox limit of " + std::to_string(kMaxMailboxFileBytes) +
                 " bytes per file"};
  }
  if (total_bytes_ + contents.size() > kMaxMailboxTotalBytes) {
    return core::Error{"inputs add up to more than the mailbox limit of " +
                 std::to_string(kMaxMailboxTotalBytes) + " bytes"};
  }
  std::string_view leaf;
  core::Result<MailboxNode*> dir = MakeParents(*root, relative_path, &leaf);
  if (!dir) return dir.error();
  if ((*dir)->entries.count(leaf) != 0) {
    return core::Error{"mailbox path " + Quote(relative_path) + " is added twice"};
  }
  core::Result<std::unique_ptr<MailboxNode>> file = NewNode(MailboxNode::Kind::kFile, *dir);
  if (!file) return file.error();
  total_bytes_ += contents.size();
  (*file)->contents = std::move(contents);
  (*dir)->entries.emplace(std::string(leaf), std::move(*file));
  return core::Status::Ok();
}

core::Status Mailbox::AddDirectory(std::string_view guest_path, std::string_view relative_path) {
  core::Result<MailboxNode*> root = FindPreopen(guest_path);
  if (!root) return root.error();
  std::string_view leaf;
  core::Result<MailboxNode*> dir = MakeParents(*root, relative_path, &leaf);
  if (!dir) return dir.error();
  auto it = (*dir)->entries.find(leaf);
  if (it != (*dir)->entries.end()) {
    if (it->second->is_dir()) return core::Status::Ok();
    return core::Error{"mailbox path " + Quote(relative_path) + " is already a file"};
  }
  core::Result<std::unique_ptr<MailboxNode>> made = NewNode(MailboxNode::Kind::kDirectory, *dir);
  if (!made) return made.error();
  (*dir)->entries.emplace(std::string(leaf), std::move(*made));
  return core::Status::Ok();
}

}  // namespace ampoule::wasi
