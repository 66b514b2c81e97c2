#include "ampoule/wasi/path_resolve.h"

#include <vector>

namespace ampoule::wasi {
namespace {

Resolved Fail(Errno e, bool only_leaf_missing = false) {
  return Resolved{e, nullptr, only_leaf_missing};
}

}  // namespace

Resolved ResolvePath(const MailboxNode* base, std::string_view path) {
  if (path.empty()) return Fail(Errno::kNoEnt);
  if (path.size() > kMaxPathBytes) return Fail(Errno::kNameTooLong);
  if (path.find('\0') != std::string_view::npos) return Fail(Errno::kInval);
  if (path.front() == '/') return Fail(Errno::kNotCapable);

  // The stack holds the directories walked from base, so ".." can only
  // return to a directory the walk came through.
  std::vector<const MailboxNode*> stack{base};
  size_t start = 0;
  while (start < path.size()) {
    size_t slash = path.find('/', start);
    bool last = slash == std::string_view::npos;
    if (last) slash = path.size();
    std::string_view part = path.substr(start, slash - start);
    start = slash + 1;
    const MailboxNode* cur = stack.back();
    if (part.empty() || part == ".") {
      if (!cur->is_dir()) return Fail(Errno::kNotDir);
      continue;
    }
    if (!cur->is_dir()) return Fail(Errno::kNotDir);
    if (part == "..") {
      if (stack.size() == 1) return Fail(Errno::kNotCapable);
      stack.pop_back();
      continue;
    }
    if (part.size() > kMaxNameBytes) return Fail(Errno::kNameTooLong);
    auto it = cur->entries.find(part);
    if (it == cur->entries.end()) {
      bool leaf = last || path.find_first_not_of('/', slash) == std::string_view::npos;
      return Fail(Errno::kNoEnt, leaf);
    }
    stack.push_back(it->second.get());
  }
  // "file/" names a directory that is not one; "file/." was caught above.
  if (path.back() == '/' && !stack.back()->is_dir()) return Fail(Errno::kNotDir);
  return Resolved{Errno::kSuccess, stack.back(), false};
}

}  // namespace ampoule::wasi
