// Interpreter slow paths: bulk memory and table operations, segment drops,
// host calls. Bounds are checked in 64-bit arithmetic before anything is
// charged or changed: a trapping bulk operation does no work and costs only
// its instruction. The per-length fuel is charged before the work.
#include <cstring>
#include <exception>

#include "ampoule/wasm/fuel.h"
#include "ampoule/wasm/interpreter_internal.h"

namespace ampoule::wasm {
namespace {

bool Charge(int64_t& fuel, uint64_t cost) {
  if (cost > uint64_t(fuel)) return false;
  fuel -= int64_t(cost);
  return true;
}

bool InBounds(uint64_t start, uint64_t n, uint64_t size) { return start + n <= size; }

}  // namespace

TrapKind MemoryFill(MemoryInstance& m, uint32_t d, uint8_t value, uint32_t n, int64_t& fuel,
                    bool* out_of_fuel) {
  if (!InBounds(d, n, m.data.size())) return TrapKind::kMemoryOutOfBounds;
  if (!Charge(fuel, BulkMemoryFuel(n))) {
    *out_of_fuel = true;
    return TrapKind::kNone;
  }
  if (n > 0) std::memset(m.data.data() + d, value, n);
  return TrapKind::kNone;
}

TrapKind MemoryCopy(MemoryInstance& m, uint32_t d, uint32_t s, uint32_t n, int64_t& fuel,
                    bool* out_of_fuel) {
  if (!InBounds(d, n, m.data.size()) || !InBounds(s, n, m.data.size())) {
    return TrapKind::kMemoryOutOfBounds;
  }
  if (!Charge(fuel, BulkMemoryFuel(n))) {
    *out_of_fuel = true;
    return TrapKind::kNone;
  }
  if (n > 0) std::memmove(m.data.data() + d, m.data.data() + s, n);
  return TrapKind::kNone;
}

TrapKind MemoryInit(const InstanceView& v, uint32_t seg, uint32_t d, uint32_t s, uint32_t n,
                    int64_t& fuel, bool* out_of_fuel) {
  std::span<const uint8_t> bytes = v.instance->data_segments[seg];
  MemoryInstance& m = *v.memory;
  if (!InBounds(s, n, bytes.size()) || !InBounds(d, n, m.data.size())) {
    return TrapKind::kMemoryOutOfBounds;
  }
  if (!Charge(fuel, BulkMemoryFuel(n))) {
    *out_of_fuel = true;
    return TrapKind::kNone;
  }
  if (n > 0) std::memcpy(m.data.data() + d, bytes.data() + s, n);
  return TrapKind::kNone;
}

TrapKind TableFill(TableInstance& t, uint32_t i, uint64_t value, uint32_t n, int64_t& fuel,
                   bool* out_of_fuel) {
  if (!InBounds(i, n, t.size())) return TrapKind::kTableOutOfBounds;
  if (!Charge(fuel, BulkTableFuel(n))) {
    *out_of_fuel = true;
    return TrapKind::kNone;
  }
  std::fill_n(t.elements.begin() + i, n, value);
  return TrapKind::kNone;
}

TrapKind TableCopy(TableInstance& dt, TableInstance& st, uint32_t d, uint32_t s, uint32_t n,
                   int64_t& fuel, bool* out_of_fuel) {
  if (!InBounds(d, n, dt.size()) || !InBounds(s, n, st.size())) return TrapKind::kTableOutOfBounds;
  if (!Charge(fuel, BulkTableFuel(n))) {
    *out_of_fuel = true;
    return TrapKind::kNone;
  }
  if (n > 0) std::memmove(dt.elements.data() + d, st.elements.data() + s, size_t(n) * sizeof(Ref));
  return TrapKind::kNone;
}

TrapKind TableInit(const InstanceView& v, uint32_t table, uint32_t seg, uint32_t d, uint32_t s,
                   uint32_t n, int64_t& fuel, bool* out_of_fuel) {
  const std::vector<Ref>& refs = v.instance->elem_segments[seg];
  TableInstance& t = *v.tables[table];
  if (!InBounds(s, n, refs.size()) || !InBounds(d, n, t.size())) return TrapKind::kTableOutOfBounds;
  if (!Charge(fuel, BulkTableFuel(n))) {
    *out_of_fuel = true;
    return TrapKind::kNone;
  }
  std::copy_n(refs.begin() + s, n, t.elements.begin() + d);
  return TrapKind::kNone;
}

// The per-element fuel is charged only for a growth the cap allows (a
// refused grow does no work), before the elements are added.
uint32_t TableGrow(TableInstance& t, uint64_t init, uint32_t delta, int64_t& fuel, bool* out_of_fuel) {
  if (uint64_t(t.size()) + delta > t.max_elements) return UINT32_MAX;
  if (!Charge(fuel, BulkTableFuel(delta))) {
    *out_of_fuel = true;
    return 0;
  }
  return t.Grow(delta, init);
}

void ElemDrop(const InstanceView& v, uint32_t seg) {
  std::vector<Ref>().swap(v.instance->elem_segments[seg]);
}

void DataDrop(const InstanceView& v, uint32_t seg) { v.instance->data_segments[seg] = {}; }

std::string CompileOnFirstCall(FunctionInstance* f) {
  core::Result<const CompiledFunction*> code = f->instance->compiled().FunctionCode(f->defined_index);
  if (!code) return code.message();
  f->code = *code;
  return {};
}

RunResult CallHost(ExecContext& ctx, FunctionInstance* f, uint64_t* slots, Instance* caller,
                   MemoryInstance* memory) {
  const FuncType& ft = *f->type;
  size_t np = ft.params.size(), nr = ft.results.size();
  // The host sees copies: its argument and result spans never alias.
  uint64_t inline_buf[16];
  std::vector<uint64_t> heap;
  uint64_t* buf = inline_buf;
  if (np + nr > 16) {
    heap.resize(np + nr);
    buf = heap.data();
  }
  if (np > 0) std::memcpy(buf, slots, np * sizeof(uint64_t));
  std::fill_n(buf + np, nr, 0);
  HostContext hc{ctx.store, caller, memory == &ctx.no_memory ? nullptr : memory};
  RunResult out;
  HostResult r;
  try {
    r = f->host(hc, std::span<const uint64_t>(buf, np), std::span<uint64_t>(buf + np, nr));
  } catch (const std::exception& e) {
    r = HostResult::Trap(std::string("host function failed: ") + e.what());
  } catch (...) {
    r = HostResult::Trap("host function failed");
  }
  switch (r.kind) {
    case HostResult::Kind::kOk:
      for (size_t i = 0; i < nr; ++i) slots[i] = NormalizeBits(ft.results[i], buf[np + i]);
      break;
    case HostResult::Kind::kTrap:
      out.stop = StopReason::kTrap;
      out.trap = TrapKind::kHost;
      out.message = std::move(r.message);
      break;
    case HostResult::Kind::kExit:
      out.stop = StopReason::kExit;
      out.exit_code = r.exit_code;
      break;
  }
  return out;
}

}  // namespace ampoule::wasm
