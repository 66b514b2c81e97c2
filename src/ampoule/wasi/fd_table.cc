#include "ampoule/wasi/fd_table.h"

namespace ampoule::wasi {

FdEntry* FdTable::Get(uint32_t fd) {
  if (fd >= slots_.size() || !slots_[fd]) return nullptr;
  return &*slots_[fd];
}

Errno FdTable::Insert(FdEntry entry, uint32_t* fd) {
  for (uint32_t i = 0; i < slots_.size(); ++i) {
    if (!slots_[i]) {
      slots_[i] = std::move(entry);
      *fd = i;
      return Errno::kSuccess;
    }
  }
  if (slots_.size() >= kMaxOpenFds) return Errno::kMfile;
  slots_.push_back(std::move(entry));
  *fd = uint32_t(slots_.size() - 1);
  return Errno::kSuccess;
}

Errno FdTable::Close(uint32_t fd) {
  if (Get(fd) == nullptr) return Errno::kBadf;
  slots_[fd].reset();
  while (!slots_.empty() && !slots_.back()) slots_.pop_back();
  return Errno::kSuccess;
}

Errno FdTable::Renumber(uint32_t from, uint32_t to) {
  if (Get(from) == nullptr || Get(to) == nullptr) return Errno::kBadf;
  if (from == to) return Errno::kSuccess;
  slots_[to] = std::move(slots_[from]);
  return Close(from);
}

}  // namespace ampoule::wasi
