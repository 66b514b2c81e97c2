#include "ampoule/wasi/snapshot_format.h"

#include <cstring>
#include <string_view>

#include "ampoule/wasm/types.h"

namespace ampoule::wasi {
namespace {

constexpr char kMagic[8] = {'A', 'M', 'P', 'S', 'N', 'A', 'P', '\0'};

class Writer {
 public:
  explicit Writer(size_t reserve) { out_.reserve(reserve); }
  void U8(uint8_t v) { out_.push_back(v); }
  void U32(uint32_t v) {
    for (int i = 0; i < 4; ++i) out_.push_back(uint8_t(v >> (8 * i)));
  }
  void U64(uint64_t v) {
    for (int i = 0; i < 8; ++i) out_.push_back(uint8_t(v >> (8 * i)));
  }
  void Bytes(std::span<const uint8_t> b) { out_.insert(out_.end(), b.begin(), b.end()); }
  void String(std::string_view s) {
    U32(uint32_t(s.size()));
    out_.insert(out_.end(), s.begin(), s.end());
  }
  void Strings(const std::vector<std::string>& v) {
    U32(uint32_t(v.size()));
    for (const std::string& s : v) String(s);
  }
  std::vector<uint8_t> Take() { return std::move(out_); }

 private:
  std::vector<uint8_t> out_;
};

class Reader {
 public:
  explicit Reader(std::span<const uint8_t> in) : in_(in) {}

  size_t offset() const { return pos_; }
  size_t remaining() const { return in_.size() - pos_; }

  core::Status Need(size_t n, std::string_view what) const {
    if (remaining() < n) {
      return core::Error{"the snapshot is truncated: " + std::string(what) + " at byte " +
                   std::to_string(pos_) + " needs " + std::to_string(n) + " bytes, " +
                   std::to_string(remaining()) + " are left"};
    }
    return core::Status::Ok();
  }
  core::Result<uint8_t> U8(std::string_view what) {
    CORE_RETURN_IF_ERROR(Need(1, what));
    return in_[pos_++];
  }
  core::Result<uint32_t> U32(std::string_view what) {
    CORE_RETURN_IF_ERROR(Need(4, what));
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= uint32_t(in_[pos_ + i]) << (8 * i);
    pos_ += 4;
    return v;
  }
  core::Result<uint64_t> U64(std::string_view what) {
    CORE_RETURN_IF_ERROR(Need(8, what));
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= uint64_t(in_[pos_ + i]) << (8 * i);
    pos_ += 8;
    return v;
  }
  core::Result<std::span<const uint8_t>> Bytes(uint64_t n, std::string_view what) {
    if (n > remaining()) {
      return core::Error{"the snapshot is truncated: " + std::string(what) + " at byte " +
                   std::to_string(pos_) + " says " + std::to_string(n) + " bytes, " +
                   std::to_string(remaining()) + " are left"};
    }
    std::span<const uint8_t> s = in_.subspan(pos_, size_t(n));
    pos_ += size_t(n);
    return s;
  }
  // A count of items each at least `min_item_bytes` long: more than the
  // remaining bytes could hold is a corrupt snapshot, caught before anything
  // is allocated for them.
  core::Result<uint32_t> Count(size_t min_item_bytes, std::string_view what) {
    core::Result<uint32_t> n = U32(what);
    if (!n) return n;
    if (uint64_t(*n) * min_item_bytes > remaining()) {
      return core::Error{"the snapshot is corrupt: " + std::string(what) + " at byte " +
                   std::to_string(pos_ - 4) + " is " + std::to_string(*n) +
                   ", more than the remaining " + std::to_string(remaining()) +
                   " bytes can hold"};
    }
    return n;
  }
  core::Result<std::vector<std::string>> Strings(std::string_view what) {
    core::Result<uint32_t> n = Count(4, what);
    if (!n) return n.error();
    std::vector<std::string> out;
    out.reserve(*n);
    for (uint32_t i = 0; i < *n; ++i) {
      core::Result<uint32_t> len = U32(what);
      if (!len) return len.error();
      core::Result<std::span<const uint8_t>> b = Bytes(*len, what);
      if (!b) return b.error();
      out.emplace_back(b->begin(), b->end());
    }
    return out;
  }
  core::Result<std::vector<uint8_t>> Flags(std::string_view what) {
    core::Result<uint32_t> n = Count(1, what);
    if (!n) return n.error();
    core::Result<std::span<const uint8_t>> b = Bytes(*n, what);
    if (!b) return b.error();
    for (uint8_t f : *b) {
      if (f > 1) return core::Error{"the snapshot is corrupt: " + std::string(what) + " holds a " +
                              std::to_string(f) + " (only 0 and 1 are allowed)"};
    }
    return std::vector<uint8_t>(b->begin(), b->end());
  }

 private:
  std::span<const uint8_t> in_;
  size_t pos_ = 0;
};

core::Result<SnapshotMemory> ReadMemory(Reader& r) {
  SnapshotMemory m;
  core::Result<uint32_t> pages = r.U32("memory pages");
  if (!pages) return pages.error();
  if (*pages > wasm::kMaxPages) {
    return core::Error{"the snapshot is corrupt: a memory of " + std::to_string(*pages) +
                 " pages, more than the 65536 a 32-bit memory can have"};
  }
  m.pages = *pages;
  const uint64_t size = uint64_t(m.pages) * wasm::kPageSize;
  core::Result<uint32_t> runs = r.Count(16, "memory run count");
  if (!runs) return runs.error();
  m.runs.reserve(*runs);
  uint64_t end_of_last = 0;
  for (uint32_t i = 0; i < *runs; ++i) {
    core::Result<uint64_t> offset = r.U64("memory run offset");
    if (!offset) return offset.error();
    core::Result<uint64_t> length = r.U64("memory run length");
    if (!length) return length.error();
    if (*length == 0 || *offset > size || *length > size - *offset ||
        (i > 0 && *offset <= end_of_last)) {
      return core::Error{"the snapshot is corrupt: memory run " + std::to_string(i) + " (offset " +
                   std::to_string(*offset) + ", length " + std::to_string(*length) +
                   ") is empty, out of order, or outside the memory of " + std::to_string(size) +
                   " bytes"};
    }
    core::Result<std::span<const uint8_t>> bytes = r.Bytes(*length, "memory run");
    if (!bytes) return bytes.error();
    m.runs.push_back({*offset, *bytes});
    end_of_last = *offset + *length;
  }
  return m;
}

}  // namespace

std::vector<uint8_t> SerializeSnapshot(const SnapshotImage& image) {
  size_t size = 128;
  for (const std::string& s : image.env) size += 4 + s.size();
  for (const std::string& s : image.preopens) size += 4 + s.size();
  for (const SnapshotMemory& m : image.memories) {
    size += 8;
    for (const SnapshotMemoryRun& run : m.runs) size += 16 + run.bytes.size();
  }
  size += image.globals.size() * 12;
  for (const std::vector<uint32_t>& t : image.tables) size += 4 + 4 * t.size();
  size += image.elem_dropped.size() + image.data_dropped.size();

  Writer w(size);
  w.Bytes(std::span(reinterpret_cast<const uint8_t*>(kMagic), sizeof kMagic));
  w.U32(kSnapshotFormatVersion);
  w.Bytes(image.module_sha256);
  w.U64(image.fuel);
  w.U64(image.slept_ns);
  w.Strings(image.env);
  w.Strings(image.preopens);
  w.U32(uint32_t(image.memories.size()));
  for (const SnapshotMemory& m : image.memories) {
    w.U32(m.pages);
    w.U32(uint32_t(m.runs.size()));
    for (const SnapshotMemoryRun& run : m.runs) {
      w.U64(run.offset);
      w.U64(run.bytes.size());
      w.Bytes(run.bytes);
    }
  }
  w.U32(uint32_t(image.globals.size()));
  for (const SnapshotGlobal& g : image.globals) {
    w.U32(g.index);
    w.U64(g.bits);
  }
  w.U32(uint32_t(image.tables.size()));
  for (const std::vector<uint32_t>& t : image.tables) {
    w.U32(uint32_t(t.size()));
    for (uint32_t e : t) w.U32(e);
  }
  w.U32(uint32_t(image.elem_dropped.size()));
  w.Bytes(image.elem_dropped);
  w.U32(uint32_t(image.data_dropped.size()));
  w.Bytes(image.data_dropped);
  return w.Take();
}

core::Result<SnapshotImage> ParseSnapshot(std::span<const uint8_t> bytes) {
  if (bytes.size() < sizeof kMagic || memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) {
    return core::Error{"not a snapshot: the bytes do not start with the snapshot magic \"AMPSNAP\""};
  }
  Reader r(bytes.subspan(sizeof kMagic));
  SnapshotImage image;
  core::Result<uint32_t> version = r.U32("format version");
  if (!version) return version.error();
  if (*version != kSnapshotFormatVersion) {
    return core::Error{"the snapshot has format version " + std::to_string(*version) +
                 "; this engine reads version " + std::to_string(kSnapshotFormatVersion) +
                 " (make the snapshot again with this engine)"};
  }
  core::Result<std::span<const uint8_t>> digest = r.Bytes(32, "module digest");
  if (!digest) return digest.error();
  memcpy(image.module_sha256.data(), digest->data(), 32);
  core::Result<uint64_t> fuel = r.U64("clock fuel");
  if (!fuel) return fuel.error();
  core::Result<uint64_t> slept = r.U64("clock slept_ns");
  if (!slept) return slept.error();
  image.fuel = *fuel;
  image.slept_ns = *slept;

  core::Result<std::vector<std::string>> env = r.Strings("environment");
  if (!env) return env.error();
  image.env = std::move(*env);
  core::Result<std::vector<std::string>> preopens = r.Strings("preopens");
  if (!preopens) return preopens.error();
  image.preopens = std::move(*preopens);

  core::Result<uint32_t> memories = r.Count(8, "memory count");
  if (!memories) return memories.error();
  for (uint32_t i = 0; i < *memories; ++i) {
    core::Result<SnapshotMemory> m = ReadMemory(r);
    if (!m) return m.error();
    image.memories.push_back(std::move(*m));
  }

  core::Result<uint32_t> globals = r.Count(12, "global count");
  if (!globals) return globals.error();
  image.globals.reserve(*globals);
  for (uint32_t i = 0; i < *globals; ++i) {
    core::Result<uint32_t> index = r.U32("global index");
    if (!index) return index.error();
    core::Result<uint64_t> bits = r.U64("global value");
    if (!bits) return bits.error();
    if (i > 0 && *index <= image.globals.back().index) {
      return core::Error{"the snapshot is corrupt: global indices are not in increasing order"};
    }
    image.globals.push_back({*index, *bits});
  }

  core::Result<uint32_t> tables = r.Count(4, "table count");
  if (!tables) return tables.error();
  for (uint32_t i = 0; i < *tables; ++i) {
    core::Result<uint32_t> size = r.Count(4, "table size");
    if (!size) return size.error();
    std::vector<uint32_t> elements(*size);
    for (uint32_t& e : elements) {
      core::Result<uint32_t> v = r.U32("table element");
      if (!v) return v.error();
      e = *v;
    }
    image.tables.push_back(std::move(elements));
  }

  core::Result<std::vector<uint8_t>> elem = r.Flags("element segment flags");
  if (!elem) return elem.error();
  image.elem_dropped = std::move(*elem);
  core::Result<std::vector<uint8_t>> data = r.Flags("data segment flags");
  if (!data) return data.error();
  image.data_dropped = std::move(*data);
  if (r.remaining() != 0) {
    return core::Error{"the snapshot is corrupt: " + std::to_string(r.remaining()) +
                 " unexpected bytes after the end at byte " +
                 std::to_string(r.offset() + sizeof kMagic)};
  }
  return image;
}

}  // namespace ampoule::wasi
