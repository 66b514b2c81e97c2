// Fuzz target for the kernel's ustar reader (src/ampoule/kernel/tar_archive.h):
// a kernel file may come from anyone (`--kernel K`). Every file it returns
// must lie inside the input and have a clean relative path. Any crash,
// sanitizer report or abort is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "ampoule/kernel/tar_archive.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> bytes(data, size);
  auto files = ampoule::kernel::ReadTar(bytes);
  if (!files) return 0;
  for (const auto& f : *files) {
    if (f.bytes.data() < data || f.bytes.data() + f.bytes.size() > data + size) abort();
    if (f.path.empty() || f.path.front() == '/' || f.path.find("..") == 0 ||
        f.path.find("/../") != std::string::npos || f.path.find("//") != std::string::npos)
      abort();
  }
  return 0;
}
