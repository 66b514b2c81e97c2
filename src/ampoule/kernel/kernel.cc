// Opening, mapping and checking kernel files (see kernel.h).
#include "ampoule/kernel/kernel.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "ampoule/kernel/entry_names.h"
#include "core/errno_text.h"
#include "core/hex.h"
#include "core/sha256.h"

namespace ampoule::kernel {
namespace {


}  // namespace

core::Result<std::unique_ptr<Kernel>> Kernel::Open(const std::string& path) {
  // O_NONBLOCK: a FIFO named as the kernel must not hang the open; OpenFd
  // then refuses it as not a regular file.
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return core::Errno("cannot open kernel '" + path + "'");
  auto kernel = OpenFd(fd, "kernel '" + path + "'");
  close(fd);
  return kernel;
}

core::Result<std::unique_ptr<Kernel>> Kernel::OpenFd(int fd, std::string_view label) {
  std::string name(label);
  struct stat st;
  if (fstat(fd, &st) != 0) return core::Errno("cannot stat " + name);
  if (!S_ISREG(st.st_mode)) return core::Error{name + " is not a regular file"};
  if (st.st_size == 0) return core::Error{name + " is empty"};
  if (uint64_t(st.st_size) > kMaxKernelFileBytes) {
    return core::Error{name + " has " + std::to_string(st.st_size) + " bytes; a kernel has at most " +
                 std::to_string(kMaxKernelFileBytes)};
  }
  void* map = mmap(nullptr, size_t(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
  if (map == MAP_FAILED) return core::Errno("cannot map " + name);
  std::unique_ptr<Kernel> kernel(new Kernel());
  kernel->label_ = std::move(name);
  kernel->map_ = map;
  kernel->map_size_ = size_t(st.st_size);
  kernel->bytes_ = {static_cast<const uint8_t*>(map), size_t(st.st_size)};
  return Finish(std::move(kernel));
}

core::Result<std::unique_ptr<Kernel>> Kernel::FromBytes(std::vector<uint8_t> bytes, std::string_view label) {
  std::unique_ptr<Kernel> kernel(new Kernel());
  kernel->label_ = std::string(label);
  kernel->owned_ = std::move(bytes);
  kernel->bytes_ = kernel->owned_;
  return Finish(std::move(kernel));
}

Kernel::~Kernel() {
  if (map_ != nullptr) munmap(map_, map_size_);
}

// Parses the layout and the manifest, and checks that they agree.
core::Result<std::unique_ptr<Kernel>> Kernel::Finish(std::unique_ptr<Kernel> k) {
  auto fail = [&](const std::string& message) { return core::Error{k->label_ + ": " + message}; };
  auto records = ParseKernelLayout(k->bytes_);
  if (!records.ok()) return fail(records.message());
  k->records_ = std::move(*records);
  k->checked_ = std::make_unique<std::atomic<uint8_t>[]>(k->records_.size());
  auto text = k->Entry(kManifestEntry);
  if (!text.ok()) return fail(text.message());
  auto manifest = ParseManifest(std::string_view(reinterpret_cast<const char*>(text->data()), text->size()));
  if (!manifest.ok()) return fail(manifest.message());
  k->manifest_ = std::move(*manifest);
  const KernelManifest& m = k->manifest_;
  if (m.format_version != kKernelFormatVersion) {
    return fail("manifest says format version " + std::to_string(m.format_version) + ", the file is version " +
                std::to_string(kKernelFormatVersion));
  }
  if (m.entries.size() + 1 != k->records_.size()) {
    return fail("manifest lists " + std::to_string(m.entries.size()) + " entries besides itself, the table " +
                std::to_string(k->records_.size() - 1));
  }
  for (const EntryRecord& r : k->records_) {
    if (r.name == kManifestEntry) continue;
    auto it = m.entries.find(r.name);
    if (it == m.entries.end()) return fail("entry '" + r.name + "' is not in the manifest");
    if (it->second.sha256 != core::HexEncode(r.sha256) || it->second.bytes != r.size) {
      return fail("manifest and table disagree about entry '" + r.name + "'");
    }
  }
  if (!k->Has(kEngineEntry)) return fail("no 'engine' entry");
  if (m.engine.sha256 != m.entries.at(std::string(kEngineEntry)).sha256) {
    return fail("manifest's engine digest is not the 'engine' entry's");
  }
  return k;
}

const std::string& Kernel::digest() const {
  std::call_once(digest_once_, [this] { digest_ = core::Sha256Hex(bytes_); });
  return digest_;
}

void Kernel::AcceptDigest(std::string_view sha256_hex) {
  std::call_once(digest_once_, [&] { digest_ = std::string(sha256_hex); });
  for (size_t i = 0; i < records_.size(); ++i) checked_[i].store(1, std::memory_order_release);
}

int Kernel::Find(std::string_view name) const {
  auto it = std::lower_bound(records_.begin(), records_.end(), name,
                             [](const EntryRecord& r, std::string_view n) { return r.name < n; });
  if (it == records_.end() || it->name != name) return -1;
  return int(it - records_.begin());
}

core::Result<std::span<const uint8_t>> Kernel::Entry(std::string_view name) const {
  int index = Find(name);
  if (index < 0) return core::Error{"the kernel has no entry '" + std::string(name) + "'"};
  return EntryAt(size_t(index));
}

core::Result<std::span<const uint8_t>> Kernel::EntryAt(size_t index) const {
  const EntryRecord& r = records_[index];
  auto data = bytes_.subspan(r.offset, r.size);
  uint8_t state = checked_[index].load(std::memory_order_acquire);
  if (state == 0) {
    state = core::Sha256(data) == r.sha256 ? 1 : 2;
    checked_[index].store(state, std::memory_order_release);
  }
  if (state != 1) {
    return core::Error{"kernel entry '" + r.name + "' does not match its SHA-256 " + core::HexEncode(r.sha256) +
                 " (the kernel file is damaged)"};
  }
  return data;
}

core::Status Kernel::VerifyAll() const {
  for (size_t i = 0; i < records_.size(); ++i) {
    auto entry = EntryAt(i);
    if (!entry.ok()) return entry.error();
  }
  return core::Status::Ok();
}

}  // namespace ampoule::kernel
