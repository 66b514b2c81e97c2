// Store: allocation of runtime objects, and calls into the interpreter.
#include <new>

#include "ampoule/wasm/interpreter.h"
#include "ampoule/wasm/runtime.h"

namespace ampoule::wasm {

Store::Store(StoreLimits limits) : limits_(limits) {}
Store::~Store() = default;

uint32_t Store::InternType(const FuncType& type) {
  for (uint32_t i = 0; i < types_.size(); ++i) {
    if (*types_[i] == type) return i;
  }
  types_.push_back(std::make_unique<FuncType>(type));
  return uint32_t(types_.size() - 1);
}

FunctionInstance* Store::AddHostFunction(const FuncType& type, HostFunction fn) {
  auto f = std::make_unique<FunctionInstance>();
  f->type_id = InternType(type);
  f->type = types_[f->type_id].get();
  f->host = std::move(fn);
  funcs_.push_back(std::move(f));
  return funcs_.back().get();
}

TableInstance* Store::AddTable(const TableType& type, Ref init) {
  auto t = std::make_unique<TableInstance>();
  t->type = type;
  uint32_t declared_max = type.limits.max.value_or(UINT32_MAX);
  t->max_elements = std::min(declared_max, limits_.max_table_elements);
  t->elements.assign(type.limits.min, init);
  tables_.push_back(std::move(t));
  return tables_.back().get();
}

MemoryInstance* Store::AddMemory(const MemoryType& type) {
  auto m = std::make_unique<MemoryInstance>();
  m->type = type;
  uint64_t cap_pages = limits_.max_memory_bytes / kPageSize;
  uint64_t declared_max = type.limits.max.value_or(kMaxPages);
  m->max_pages = uint32_t(std::min<uint64_t>(declared_max, cap_pages));
  m->data.assign(size_t(type.limits.min) * kPageSize, 0);
  memories_.push_back(std::move(m));
  return memories_.back().get();
}

GlobalInstance* Store::AddGlobal(const GlobalType& type, Value init) {
  auto g = std::make_unique<GlobalInstance>();
  g->type = type;
  g->bits = init.bits;
  globals_.push_back(std::move(g));
  return globals_.back().get();
}

Outcome Store::Invoke(FunctionInstance* func, std::span<const Value> args) {
  const FuncType& type = *func->type;
  bool ok = args.size() == type.params.size();
  for (size_t i = 0; ok && i < args.size(); ++i) ok = args[i].type == type.params[i];
  if (!ok) {
    Outcome o;
    o.stop = StopReason::kTrap;
    o.trap = TrapKind::kHost;
    o.message = "arguments do not match the function's type " + FuncTypeToString(type);
    return o;
  }
  return Execute(*this, func, args);
}

uint32_t MemoryInstance::Grow(uint32_t delta) {
  uint32_t old = pages();
  uint64_t wanted = uint64_t(old) + delta;
  if (wanted > max_pages) {
    // Refused by the store's cap rather than by the module's own maximum.
    if (wanted <= type.limits.max.value_or(kMaxPages)) cap_hit = true;
    return UINT32_MAX;
  }
  try {
    data.resize(size_t(wanted) * kPageSize, 0);
  } catch (const std::bad_alloc&) {
    cap_hit = true;
    return UINT32_MAX;
  }
  return old;
}

uint32_t TableInstance::Grow(uint32_t delta, Ref init) {
  uint32_t old = size();
  uint64_t wanted = uint64_t(old) + delta;
  if (wanted > max_elements) return UINT32_MAX;
  try {
    elements.resize(size_t(wanted), init);
  } catch (const std::bad_alloc&) {
    return UINT32_MAX;
  }
  return old;
}

}  // namespace ampoule::wasm
