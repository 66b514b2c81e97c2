// The interpreter's runtime state, shared by interpreter*.cc. Internal.
//
// Thread-safety: an ExecContext belongs to one Store and is used by the
// thread that uses the Store.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ampoule/wasm/compiled_function.h"
#include "ampoule/wasm/runtime.h"

namespace ampoule::wasm {

// What the interpreter needs of an instance, resolved once per instance so
// calls within an instance never look anything up.
struct InstanceView {
  Instance* instance = nullptr;
  MemoryInstance* memory = nullptr;  // memory 0, or an empty stand-in
  FunctionInstance* const* funcs = nullptr;
  GlobalInstance* const* globals = nullptr;
  TableInstance* const* tables = nullptr;
  std::vector<uint32_t> type_ids;    // store type id of each module type
};

// The caller's state saved by a call.
struct Frame {
  const int32_t* ret_pc;
  uint64_t* fp;
  const InstanceView* view;
};

// How a run stopped, filled by RunLoop.
struct RunResult {
  StopReason stop = StopReason::kReturned;
  TrapKind trap = TrapKind::kNone;
  int32_t exit_code = 0;
  std::string message;  // host traps
};

// Per-store execution state: the value stack and frame stack (reserved
// once, committed by the OS as they are touched) and the instance views.
struct ExecContext {
  explicit ExecContext(Store& s) : store(s) {}
  ~ExecContext();
  ExecContext(const ExecContext&) = delete;
  ExecContext& operator=(const ExecContext&) = delete;

  // Reserves the stacks. False if the address space is not available.
  bool Init();
  const InstanceView* View(Instance* instance);

  // Fuel lives in the Store; the interpreter keeps it in a local while it
  // runs and writes it back on every exit and around host calls.
  uint64_t& fuel() { return store.fuel_; }
  const StoreLimits& limits() const { return store.limits_; }

  Store& store;
  uint64_t* stack = nullptr;      // value stack slots
  uint64_t* stack_end = nullptr;
  Frame* frames = nullptr;        // one record per active wasm frame
  Frame* frames_end = nullptr;
  uint64_t* sp = nullptr;         // first slot free for a new activation
  Frame* frame_top = nullptr;     // first free frame record
  size_t stack_bytes = 0;
  size_t frame_bytes = 0;
  std::unordered_map<const Instance*, std::unique_ptr<InstanceView>> views;
  MemoryInstance no_memory;       // stand-in for instances without memory 0
};

// Runs from `pc` in a frame at `fp` until the activation whose frame record
// is just below `entry` returns. REQUIRES: ctx->frame_top == entry.
RunResult RunLoop(ExecContext& ctx, const InstanceView* view, const int32_t* pc, uint64_t* fp,
                  Frame* entry);

// Slow paths, out of line so the hot loop stays small. Each returns
// kNone on success or the trap to raise. Bulk operations take the fuel
// counter and report exhaustion through *out_of_fuel.
TrapKind MemoryFill(MemoryInstance& m, uint32_t d, uint8_t value, uint32_t n, int64_t& fuel,
                    bool* out_of_fuel);
TrapKind MemoryCopy(MemoryInstance& m, uint32_t d, uint32_t s, uint32_t n, int64_t& fuel,
                    bool* out_of_fuel);
TrapKind MemoryInit(const InstanceView& v, uint32_t seg, uint32_t d, uint32_t s, uint32_t n,
                    int64_t& fuel, bool* out_of_fuel);
TrapKind TableFill(TableInstance& t, uint32_t i, uint64_t value, uint32_t n, int64_t& fuel,
                   bool* out_of_fuel);
TrapKind TableCopy(TableInstance& dt, TableInstance& st, uint32_t d, uint32_t s, uint32_t n,
                   int64_t& fuel, bool* out_of_fuel);
TrapKind TableInit(const InstanceView& v, uint32_t table, uint32_t seg, uint32_t d, uint32_t s,
                   uint32_t n, int64_t& fuel, bool* out_of_fuel);
uint32_t TableGrow(TableInstance& t, uint64_t init, uint32_t delta, int64_t& fuel, bool* out_of_fuel);
void ElemDrop(const InstanceView& v, uint32_t seg);
void DataDrop(const InstanceView& v, uint32_t seg);

// Calls host function `f` with its arguments at `slots`, writing its
// results there. The store's fuel must be current.
// Sets f->code for a function of a lazily compiled module on its first call
// in this store (runtime.h, CompileOptions). Returns an error message, or
// an empty string on success.
std::string CompileOnFirstCall(FunctionInstance* f);

RunResult CallHost(ExecContext& ctx, FunctionInstance* f, uint64_t* slots, Instance* caller,
                   MemoryInstance* memory);

// Keeps 32-bit values zero-extended in their slots, whatever the embedder
// passed in.
inline uint64_t NormalizeBits(ValType t, uint64_t bits) {
  return (t == ValType::I32 || t == ValType::F32) ? uint64_t(uint32_t(bits)) : bits;
}

}  // namespace ampoule::wasm
