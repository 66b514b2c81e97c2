#include "ampoule/wasi/snapshot_state.h"

#include <cstring>
#include <unordered_map>

namespace ampoule::wasi {
namespace {

// Memory is captured in blocks of this size: a block with any non-zero byte
// is kept, and adjacent kept blocks form one run. Smaller than a Wasm page
// because a heap's pages are often only partly used.
constexpr size_t kBlockBytes = 4096;

bool IsZero(const uint8_t* p) {
  uint64_t acc = 0;
  for (size_t i = 0; i < kBlockBytes; i += 8) {
    uint64_t w;
    memcpy(&w, p + i, 8);
    acc |= w;
  }
  return acc == 0;
}

void CaptureMemory(const wasm::MemoryInstance& memory, SnapshotMemory& out) {
  out.pages = memory.pages();
  const uint8_t* data = memory.data.data();
  const size_t size = memory.data.size();  // a multiple of kBlockBytes
  size_t run_start = SIZE_MAX;
  for (size_t pos = 0; pos <= size; pos += kBlockBytes) {
    bool keep = pos < size && !IsZero(data + pos);
    if (keep && run_start == SIZE_MAX) run_start = pos;
    if (!keep && run_start != SIZE_MAX) {
      out.runs.push_back({run_start, std::span(data + run_start, pos - run_start)});
      run_start = SIZE_MAX;
    }
  }
}

// Function references are stored as index + 1 in the instance's function
// index space, 0 for null.
class FuncIndex {
 public:
  explicit FuncIndex(const wasm::Instance& instance) {
    for (uint32_t i = 0; i < instance.funcs.size(); ++i) index_.emplace(instance.funcs[i], i);
  }
  core::Result<uint32_t> Encode(wasm::Ref ref, const std::string& where) const {
    if (ref == wasm::kNullRef) return 0u;
    auto it = index_.find(reinterpret_cast<const wasm::FunctionInstance*>(ref));
    if (it == index_.end()) {
      return core::Error{where + " holds a function that is not in the instance's function index "
                           "space, which a snapshot cannot name"};
    }
    return it->second + 1;
  }

 private:
  std::unordered_map<const wasm::FunctionInstance*, uint32_t> index_;
};

core::Result<wasm::Ref> DecodeFuncRef(const wasm::Instance& instance, uint64_t encoded,
                                const std::string& where) {
  if (encoded == 0) return wasm::kNullRef;
  if (encoded - 1 >= instance.funcs.size()) {
    return core::Error{"the snapshot does not fit the module: " + where + " refers to function " +
                 std::to_string(encoded - 1) + " of " + std::to_string(instance.funcs.size())};
  }
  return reinterpret_cast<wasm::Ref>(instance.funcs[size_t(encoded - 1)]);
}

core::Error Mismatch(const std::string& what) {
  return core::Error{"the snapshot does not fit the module: " + what};
}

core::Status RestoreMemory(const SnapshotMemory& image, wasm::MemoryInstance& memory, size_t i) {
  const std::string name = "memory " + std::to_string(i);
  if (image.pages < memory.pages()) {
    return Mismatch(name + " has " + std::to_string(image.pages) +
                    " pages, fewer than the module's minimum of " + std::to_string(memory.pages()));
  }
  if (image.pages > memory.type.limits.max.value_or(wasm::kMaxPages)) {
    return Mismatch(name + " has " + std::to_string(image.pages) +
                    " pages, more than the module's maximum");
  }
  const uint64_t size = uint64_t(image.pages) * wasm::kPageSize;
  if (image.pages > memory.max_pages) {
    return core::Error{"memory limit below the runtime's start-up size of " + std::to_string(size) +
                 " bytes"};
  }
  // Instantiation wrote the data segments into the first `written` bytes;
  // whatever of that the runs do not cover must become zero again. The rest
  // is zero from the resize.
  const size_t written = memory.data.size();
  memory.data.resize(size_t(size));
  uint8_t* data = memory.data.data();
  size_t pos = 0;
  for (const SnapshotMemoryRun& run : image.runs) {
    if (pos < written && run.offset > pos) {
      memset(data + pos, 0, std::min<size_t>(run.offset, written) - pos);
    }
    memcpy(data + run.offset, run.bytes.data(), run.bytes.size());
    pos = size_t(run.offset + run.bytes.size());
  }
  if (pos < written) memset(data + pos, 0, written - pos);
  return core::Status::Ok();
}

core::Status RestoreTable(const std::vector<uint32_t>& image, wasm::TableInstance& table,
                    const wasm::Instance& instance, size_t i) {
  const std::string name = "table " + std::to_string(i);
  if (image.size() < table.size()) {
    return Mismatch(name + " has " + std::to_string(image.size()) +
                    " elements, fewer than the module's minimum of " +
                    std::to_string(table.size()));
  }
  if (image.size() > table.type.limits.max.value_or(UINT32_MAX)) {
    return Mismatch(name + " has more elements than the module's maximum");
  }
  if (image.size() > table.max_elements) {
    return core::Error{"table limit below the runtime's start-up table size of " +
                 std::to_string(image.size()) + " elements"};
  }
  table.elements.resize(image.size());
  for (size_t e = 0; e < image.size(); ++e) {
    if (table.type.elem == wasm::ValType::ExternRef) {
      if (image[e] != 0) return Mismatch(name + " is an externref table with a non-null element");
      table.elements[e] = wasm::kNullRef;
      continue;
    }
    core::Result<wasm::Ref> ref = DecodeFuncRef(instance, image[e], name);
    if (!ref) return ref.error();
    table.elements[e] = *ref;
  }
  return core::Status::Ok();
}

}  // namespace

core::Status CaptureInstance(const wasm::Instance& instance, SnapshotImage& image) {
  FuncIndex funcs(instance);
  image.memories.resize(instance.memories.size());
  for (size_t i = 0; i < instance.memories.size(); ++i) {
    CaptureMemory(*instance.memories[i], image.memories[i]);
  }
  for (uint32_t i = 0; i < instance.globals.size(); ++i) {
    const wasm::GlobalInstance& g = *instance.globals[i];
    if (!g.type.mutable_) continue;
    uint64_t bits = g.bits;
    const std::string where = "global " + std::to_string(i);
    if (g.type.type == wasm::ValType::FuncRef) {
      core::Result<uint32_t> index = funcs.Encode(g.bits, where);
      if (!index) return index.error();
      bits = *index;
    } else if (g.type.type == wasm::ValType::ExternRef && g.bits != wasm::kNullRef) {
      return core::Error{where + " holds a host reference (externref), which a snapshot cannot hold"};
    }
    image.globals.push_back({i, bits});
  }
  image.tables.resize(instance.tables.size());
  for (size_t i = 0; i < instance.tables.size(); ++i) {
    const wasm::TableInstance& t = *instance.tables[i];
    const std::string where = "table " + std::to_string(i);
    std::vector<uint32_t>& out = image.tables[i];
    out.reserve(t.size());
    for (wasm::Ref ref : t.elements) {
      if (t.type.elem == wasm::ValType::ExternRef) {
        if (ref != wasm::kNullRef) {
          return core::Error{where + " holds a host reference (externref), which a snapshot cannot hold"};
        }
        out.push_back(0);
        continue;
      }
      core::Result<uint32_t> index = funcs.Encode(ref, where);
      if (!index) return index.error();
      out.push_back(*index);
    }
  }
  for (const std::vector<wasm::Ref>& seg : instance.elem_segments) {
    image.elem_dropped.push_back(seg.empty() ? 1 : 0);
  }
  for (std::span<const uint8_t> seg : instance.data_segments) {
    image.data_dropped.push_back(seg.empty() ? 1 : 0);
  }
  return core::Status::Ok();
}

core::Status RestoreInstance(const SnapshotImage& image, wasm::Instance& instance) {
  if (image.memories.size() != instance.memories.size() ||
      image.tables.size() != instance.tables.size() ||
      image.elem_dropped.size() != instance.elem_segments.size() ||
      image.data_dropped.size() != instance.data_segments.size()) {
    return Mismatch("it has " + std::to_string(image.memories.size()) + " memories, " +
                    std::to_string(image.tables.size()) + " tables, " +
                    std::to_string(image.elem_dropped.size()) + " element and " +
                    std::to_string(image.data_dropped.size()) + " data segments; the module " +
                    std::to_string(instance.memories.size()) + ", " +
                    std::to_string(instance.tables.size()) + ", " +
                    std::to_string(instance.elem_segments.size()) + " and " +
                    std::to_string(instance.data_segments.size()));
  }
  // Globals first: they are checked completely (every mutable global, and
  // nothing else) before any memory is touched.
  size_t next = 0;
  for (uint32_t i = 0; i < instance.globals.size(); ++i) {
    if (!instance.globals[i]->type.mutable_) continue;
    if (next >= image.globals.size() || image.globals[next].index != i) {
      return Mismatch("mutable global " + std::to_string(i) + " is missing from it");
    }
    ++next;
  }
  if (next != image.globals.size()) {
    return Mismatch("it sets global " + std::to_string(image.globals[next].index) +
                    ", which is not a mutable global of the module");
  }
  for (const SnapshotGlobal& sg : image.globals) {
    wasm::GlobalInstance& g = *instance.globals[sg.index];
    const std::string where = "global " + std::to_string(sg.index);
    if (g.type.type == wasm::ValType::FuncRef) {
      core::Result<wasm::Ref> ref = DecodeFuncRef(instance, sg.bits, where);
      if (!ref) return ref.error();
      g.bits = *ref;
    } else if (g.type.type == wasm::ValType::ExternRef) {
      if (sg.bits != 0) return Mismatch(where + " is an externref with a non-null value");
      g.bits = wasm::kNullRef;
    } else {
      g.bits = sg.bits;
    }
  }
  for (size_t i = 0; i < image.tables.size(); ++i) {
    CORE_RETURN_IF_ERROR(RestoreTable(image.tables[i], *instance.tables[i], instance, i));
  }
  for (size_t i = 0; i < image.memories.size(); ++i) {
    CORE_RETURN_IF_ERROR(RestoreMemory(image.memories[i], *instance.memories[i], i));
  }
  for (size_t i = 0; i < image.elem_dropped.size(); ++i) {
    if (image.elem_dropped[i]) instance.elem_segments[i].clear();
  }
  for (size_t i = 0; i < image.data_dropped.size(); ++i) {
    if (image.data_dropped[i]) instance.data_segments[i] = {};
  }
  return core::Status::Ok();
}

}  // namespace ampoule::wasi
