// Packing and parsing the kernel file layout (see kernel_format.h).
#include "ampoule/kernel/kernel_format.h"

#include <algorithm>
#include <cstring>

#include "core/sha256.h"

namespace ampoule::kernel {
namespace {

uint64_t AlignUp(uint64_t n) { return (n + kKernelAlignment - 1) / kKernelAlignment * kKernelAlignment; }

void PutU32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = uint8_t(v >> (8 * i));
}
void PutU64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = uint8_t(v >> (8 * i));
}
uint32_t GetU32(const uint8_t* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
uint64_t GetU64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

bool AllZero(const uint8_t* p, size_t n) {
  return std::all_of(p, p + n, [](uint8_t b) { return b == 0; });
}

core::Error LayoutError(const std::string& what) { return core::Error{"malformed kernel file: " + what}; }

// Where the first entry's data starts for a table of `count` records.
uint64_t DataStart(uint64_t count) { return AlignUp(kKernelHeaderBytes + count * kKernelRecordBytes); }

// Reads record `i` of the table, checking its name and that its data lies in
// canonical position after `expected_offset` (updated to the end of its data).
core::Result<EntryRecord> ReadRecord(std::span<const uint8_t> file, uint32_t i, const std::string& previous,
                               uint64_t* expected_offset) {
  const uint8_t* r = file.data() + kKernelHeaderBytes + size_t(i) * kKernelRecordBytes;
  std::string at = "entry " + std::to_string(i);
  const uint8_t* nul = std::find(r, r + kKernelNameField, uint8_t{0});
  if (nul == r + kKernelNameField) return LayoutError(at + ": name is not NUL-terminated");
  EntryRecord e;
  e.name.assign(reinterpret_cast<const char*>(r), nul - r);
  if (!AllZero(nul, r + kKernelNameField - nul)) return LayoutError(at + ": bytes after the name are not zero");
  if (!IsValidEntryName(e.name)) return LayoutError(at + ": invalid name");
  at += " '" + e.name + "'";
  if (i > 0 && e.name <= previous) {
    return LayoutError(at + (e.name == previous ? ": duplicate name" : ": names are not sorted"));
  }
  e.offset = GetU64(r + kKernelNameField);
  e.size = GetU64(r + kKernelNameField + 8);
  std::memcpy(e.sha256.data(), r + kKernelNameField + 16, 32);
  const uint64_t file_size = file.size();
  if (e.offset % kKernelAlignment != 0) {
    return LayoutError(at + ": offset " + std::to_string(e.offset) + " is not a multiple of 4096");
  }
  if (e.offset < *expected_offset) {
    return LayoutError(at + ": offset " + std::to_string(e.offset) +
                       " overlaps the table or the previous entry (expected " +
                       std::to_string(*expected_offset) + ")");
  }
  if (e.offset > file_size || e.size > file_size - e.offset) {
    return LayoutError(at + ": data at " + std::to_string(e.offset) + " of " + std::to_string(e.size) +
                       " bytes runs past the end of the " + std::to_string(file_size) + "-byte file");
  }
  if (e.offset != *expected_offset) {
    return LayoutError(at + ": offset " + std::to_string(e.offset) + " leaves a gap (expected " +
                       std::to_string(*expected_offset) + ")");
  }
  *expected_offset = e.offset + e.size;
  return e;
}

}  // namespace

bool IsValidEntryName(std::string_view name) {
  if (name.empty() || name.size() >= kKernelNameField) return false;
  size_t start = 0;
  while (start <= name.size()) {
    size_t end = name.find('/', start);
    if (end == std::string_view::npos) end = name.size();
    std::string_view part = name.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") return false;
    for (char c : part) {
      bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                c == '_' || c == '-';
      if (!ok) return false;
    }
    start = end + 1;
  }
  return true;
}

core::Result<std::vector<uint8_t>> PackKernel(std::span<const PackEntry> entries) {
  if (entries.size() > kMaxKernelEntries) {
    return core::Error{"a kernel holds at most " + std::to_string(kMaxKernelEntries) + " entries, not " +
                 std::to_string(entries.size())};
  }
  std::vector<const PackEntry*> sorted;
  for (const PackEntry& e : entries) {
    if (!IsValidEntryName(e.name)) return core::Error{"invalid kernel entry name '" + e.name + "'"};
    sorted.push_back(&e);
  }
  std::sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->name < b->name; });
  uint64_t end = DataStart(sorted.size());
  std::vector<uint64_t> offsets;
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (i > 0 && sorted[i]->name == sorted[i - 1]->name) {
      return core::Error{"kernel entry '" + sorted[i]->name + "' given twice"};
    }
    uint64_t offset = i == 0 ? end : AlignUp(end);
    if (sorted[i]->data.size() > kMaxKernelFileBytes || offset + sorted[i]->data.size() > kMaxKernelFileBytes) {
      return core::Error{"kernel would exceed " + std::to_string(kMaxKernelFileBytes) + " bytes"};
    }
    offsets.push_back(offset);
    end = offset + sorted[i]->data.size();
  }
  if (sorted.empty()) end = kKernelHeaderBytes;  // no table, no data
  std::vector<uint8_t> out(end, 0);
  std::memcpy(out.data(), kKernelMagic.data(), kKernelMagic.size());
  PutU32(&out[8], kKernelFormatVersion);
  PutU32(&out[12], uint32_t(sorted.size()));
  PutU64(&out[16], end);
  for (size_t i = 0; i < sorted.size(); ++i) {
    uint8_t* r = &out[kKernelHeaderBytes + i * kKernelRecordBytes];
    std::memcpy(r, sorted[i]->name.data(), sorted[i]->name.size());
    PutU64(r + kKernelNameField, offsets[i]);
    PutU64(r + kKernelNameField + 8, sorted[i]->data.size());
    auto digest = core::Sha256(sorted[i]->data);
    std::memcpy(r + kKernelNameField + 16, digest.data(), 32);
    if (!sorted[i]->data.empty()) std::memcpy(&out[offsets[i]], sorted[i]->data.data(), sorted[i]->data.size());
  }
  return out;
}

core::Result<std::vector<EntryRecord>> ParseKernelLayout(std::span<const uint8_t> file) {
  if (file.size() < kKernelHeaderBytes) {
    return LayoutError("truncated: " + std::to_string(file.size()) +
                       " bytes, shorter than the 64-byte header");
  }
  if (std::memcmp(file.data(), kKernelMagic.data(), kKernelMagic.size()) != 0) {
    return core::Error{"not an ampoule kernel file (no 'AMPKERNL' magic at the start)"};
  }
  uint32_t version = GetU32(&file[8]);
  if (version != kKernelFormatVersion) {
    return core::Error{"kernel file format version " + std::to_string(version) + "; this ampoule reads version " +
                 std::to_string(kKernelFormatVersion)};
  }
  uint32_t count = GetU32(&file[12]);
  uint64_t declared = GetU64(&file[16]);
  if (!AllZero(&file[24], kKernelHeaderBytes - 24)) return LayoutError("reserved header bytes are not zero");
  if (count > kMaxKernelEntries) {
    return LayoutError("header claims " + std::to_string(count) + " entries; at most " +
                       std::to_string(kMaxKernelEntries) + " are allowed");
  }
  if (file.size() > kMaxKernelFileBytes) {
    return LayoutError(std::to_string(file.size()) + " bytes; a kernel file has at most " +
                       std::to_string(kMaxKernelFileBytes));
  }
  if (declared != file.size()) {
    return LayoutError("header says the file has " + std::to_string(declared) + " bytes but it has " +
                       std::to_string(file.size()) + (declared > file.size() ? " (truncated)" : ""));
  }
  if (count == 0) {
    if (file.size() != kKernelHeaderBytes) return LayoutError("bytes after the header of an empty kernel");
    return std::vector<EntryRecord>{};
  }
  uint64_t table_end = kKernelHeaderBytes + uint64_t(count) * kKernelRecordBytes;
  if (table_end > file.size()) {
    return LayoutError("truncated: the table of " + std::to_string(count) + " entries needs " +
                       std::to_string(table_end) + " bytes, the file has " + std::to_string(file.size()));
  }
  std::vector<EntryRecord> records;
  uint64_t expected = DataStart(count);
  uint64_t padding_from = table_end;
  for (uint32_t i = 0; i < count; ++i) {
    auto record = ReadRecord(file, i, i > 0 ? records.back().name : std::string(), &expected);
    if (!record.ok()) return record.error();
    if (!AllZero(&file[padding_from], record->offset - padding_from)) {
      return LayoutError("padding before entry '" + record->name + "' is not zero");
    }
    padding_from = record->offset + record->size;
    records.push_back(std::move(*record));
    if (i + 1 < count) expected = AlignUp(expected);
  }
  if (expected != file.size()) {
    return LayoutError(std::to_string(file.size() - expected) + " bytes after the last entry");
  }
  return records;
}

}  // namespace ampoule::kernel
