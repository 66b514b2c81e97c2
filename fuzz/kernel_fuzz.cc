// Fuzz target for the kernel file reader: a kernel file's bytes.
//
// Each input is parsed as a kernel layout; a layout that parses must be in
// canonical form, so packing its entries again must give back exactly the
// input (the format has one encoding per set of entries). The input is also
// opened as a Kernel (layout, manifest, cross-checks) and, when that works,
// every entry is read and checked; and it is parsed as a manifest on its
// own. Any crash, sanitizer report, hang or abort is a bug: every input must
// give a value or a clean error.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "ampoule/kernel/kernel.h"
#include "ampoule/kernel/kernel_format.h"
#include "ampoule/kernel/kernel_manifest.h"

namespace {

using namespace ampoule::kernel;

void Check(bool condition) {
  if (!condition) std::abort();
}

void CheckCanonical(std::span<const uint8_t> file, const std::vector<EntryRecord>& records) {
  std::vector<PackEntry> entries;
  for (const EntryRecord& r : records) entries.push_back({r.name, file.subspan(r.offset, r.size)});
  auto again = PackKernel(entries);
  Check(again.ok());
  // The table's SHA-256 fields are not checked by the layout parser, so
  // compare everything but them.
  Check(again->size() == file.size());
  for (size_t i = 0; i < file.size(); ++i) {
    size_t in_table = i - kKernelHeaderBytes;
    bool sha_field = i >= kKernelHeaderBytes && in_table < records.size() * kKernelRecordBytes &&
                     in_table % kKernelRecordBytes >= kKernelNameField + 16;
    Check(sha_field || (*again)[i] == file[i]);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> file(data, size);
  auto records = ParseKernelLayout(file);
  if (records.ok()) CheckCanonical(file, *records);
  auto kernel = Kernel::FromBytes(std::vector<uint8_t>(data, data + size));
  if (kernel.ok()) {
    Check(records.ok());
    for (const EntryRecord& r : (*kernel)->entries()) {
      auto entry = (*kernel)->Entry(r.name);
      if (entry.ok()) Check(entry->size() == r.size);
    }
    (void)(*kernel)->VerifyAll();
    Check((*kernel)->digest().size() == 64);
  }
  (void)ParseManifest(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
