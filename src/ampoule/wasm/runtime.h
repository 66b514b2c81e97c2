// Runtime: the store, instances, and the objects they own (core spec 2.0, 4.2).
//
// A Store owns every function, table, memory and global created in it, and
// every instance. Pointers handed out stay valid until the Store is
// destroyed. A Store and everything in it is used by one thread at a time.
//
// The engine core does no I/O. Everything outside the module (WASI, the
// spectest module, the clock) reaches it only through host functions the
// embedder creates with Store::AddHostFunction.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ampoule/wasm/module.h"
#include "ampoule/wasm/value.h"
#include "core/result.h"

namespace ampoule::wasm {

class Instance;
class Store;
struct CompiledFunction;  // translator.cc: the translated form, opaque elsewhere
struct CompiledFunctionDeleter { void operator()(CompiledFunction*) const; };  // translator.cc
using CompiledFunctionPtr = std::unique_ptr<CompiledFunction, CompiledFunctionDeleter>;
struct ExecContext;       // interpreter.cc
struct ExecContextDeleter { void operator()(ExecContext*) const; };  // interpreter.cc

// Limits that bound a store's resource use. They are part of a run's
// definition (recorded in receipts), so they decide results deterministically:
// a memory.grow beyond max_memory_bytes returns -1, a call beyond
// max_call_depth traps with kCallStackExhausted.
struct StoreLimits {
  uint64_t max_memory_bytes = uint64_t(4) << 30;  // per memory
  uint32_t max_table_elements = 10'000'000;       // per table
  uint32_t max_call_depth = 100'000;              // wasm frames
  uint32_t max_value_stack = 16 * 1024 * 1024;    // 64-bit slots (locals + operands)
};

// What a host function sees of its caller.
struct HostContext {
  Store& store;
  Instance* caller;                 // the instance whose code made the call; may be null
  struct MemoryInstance* memory;    // caller's memory 0, or null
};

// What a host function asks the engine to do next.
struct HostResult {
  enum class Kind : uint8_t { kOk, kTrap, kExit } kind = Kind::kOk;
  int32_t exit_code = 0;  // kExit
  std::string message;    // kTrap
  static HostResult Ok() { return {}; }
  static HostResult Trap(std::string msg) { return {Kind::kTrap, 0, std::move(msg)}; }
  static HostResult Exit(int32_t code) { return {Kind::kExit, code, {}}; }
};

// A host function reads its arguments and writes its results as raw 64-bit
// slots, in the bit layout of Value::bits.
using HostFunction =
    std::function<HostResult(HostContext&, std::span<const uint64_t> args, std::span<uint64_t> results)>;

struct FunctionInstance {
  const FuncType* type = nullptr;  // owned by the store (interned)
  uint32_t type_id = 0;            // equal ids <=> structurally equal types
  Instance* instance = nullptr;    // defining instance; null for host functions
  uint32_t defined_index = 0;      // index among the module's defined functions
  const CompiledFunction* code = nullptr;  // null for host functions
  HostFunction host;               // set for host functions only
};

struct TableInstance {
  TableType type;
  uint32_t max_elements = 0;  // effective maximum: min(type max, StoreLimits)
  std::vector<Ref> elements;
  uint32_t size() const { return uint32_t(elements.size()); }
  // Grows by `delta` elements set to `init`; returns the old size, or -1 (as
  // uint32_t) if that would pass max_elements.
  uint32_t Grow(uint32_t delta, Ref init);
};

struct MemoryInstance {
  MemoryType type;
  uint32_t max_pages = 0;     // effective maximum: min(type max, StoreLimits)
  bool cap_hit = false;       // a memory.grow was refused by the store's cap
  std::vector<uint8_t> data;  // size is always a multiple of kPageSize
  uint32_t pages() const { return uint32_t(data.size() / kPageSize); }
  // Grows by `delta` pages; returns the old size in pages, or -1 (as
  // uint32_t) if that would pass max_pages.
  uint32_t Grow(uint32_t delta);
};

struct GlobalInstance {
  GlobalType type;
  uint64_t bits = 0;  // as Value::bits
};

// One reference to something a module can import or export.
struct Extern {
  ExternKind kind = ExternKind::Func;
  FunctionInstance* func = nullptr;
  TableInstance* table = nullptr;
  MemoryInstance* memory = nullptr;
  GlobalInstance* global = nullptr;
};

// A module decoded, validated and translated once; instantiate it any number
// of times, in any store.
struct CompiledModule {
  Module module;
  // One per defined function. In a lazy module (CompileOptions) an entry
  // stays null until FunctionCode() translates it; read it through there.
  mutable std::vector<CompiledFunctionPtr> functions;

  // The translated code of defined function `index`, translating it first
  // in a lazy module (once, thread-safe). Errors: a lazy function body that
  // fails to decode, validate or translate.
  core::Result<const CompiledFunction*> FunctionCode(uint32_t index) const;

  // Lazy modules only: one flag and one error message per function.
  mutable std::unique_ptr<std::once_flag[]> lazy_once;
  mutable std::vector<std::string> lazy_errors;
};

struct CompileOptions {
  // Decode, validate and translate each function body on its first call
  // rather than up front: a run then pays only for the functions it uses,
  // which for a large runtime (python.wasm: 7,670 functions) is most of the
  // start-up time. The module's sections are still decoded and checked at
  // once; a body that turns out invalid traps its first call instead of
  // failing the compile. So this is only for modules already validated in
  // full whose bytes cannot have changed since: a kernel's runtimes,
  // validated when the kernel was packed and pinned by its digest. Fuel and
  // results do not depend on this option.
  bool lazy_functions = false;
};

// Decodes, validates and translates. Errors read "malformed module at byte
// 0x..: ..." or "invalid module: ...".
core::Result<std::shared_ptr<const CompiledModule>> CompileModule(std::span<const uint8_t> bytes,
                                                            const CompileOptions& options = {});

class Instance {
 public:
  const Module& module() const { return compiled_->module; }
  const CompiledModule& compiled() const { return *compiled_; }
  std::optional<Extern> GetExport(std::string_view name) const;

  // Index spaces, imports first.
  std::vector<FunctionInstance*> funcs;
  std::vector<TableInstance*> tables;
  std::vector<MemoryInstance*> memories;
  std::vector<GlobalInstance*> globals;
  // Element segments as evaluated references; emptied by elem.drop (and for
  // active and declarative segments after instantiation).
  std::vector<std::vector<Ref>> elem_segments;
  // Data segments as byte ranges of module().bytes; size 0 once dropped.
  std::vector<std::span<const uint8_t>> data_segments;

 private:
  friend class Store;
  std::shared_ptr<const CompiledModule> compiled_;
};

struct InstantiateResult {
  enum class Kind : uint8_t {
    kOk,         // instance is set
    kLinkError,  // imports did not match (unknown import / incompatible import type)
    kTrap,       // a segment or the start function trapped/stopped; see outcome
  } kind = Kind::kOk;
  Instance* instance = nullptr;  // kOk only
  std::string message;           // kLinkError
  Outcome outcome;               // kTrap
};

class Store {
 public:
  explicit Store(StoreLimits limits = {});
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  const StoreLimits& limits() const { return limits_; }

  FunctionInstance* AddHostFunction(const FuncType& type, HostFunction fn);
  TableInstance* AddTable(const TableType& type, Ref init);
  MemoryInstance* AddMemory(const MemoryType& type);
  GlobalInstance* AddGlobal(const GlobalType& type, Value init);

  // Links `imports` (one per module import, in order), allocates the
  // module's own objects, initialises segments and runs the start function.
  // As in the spec, effects of segments applied before a trap remain.
  InstantiateResult Instantiate(std::shared_ptr<const CompiledModule> module,
                                std::span<const Extern> imports);

  // Calls `func` with `args` (checked against its type; a mismatch is a
  // kTrap outcome with kHost and a message). Consumes fuel.
  Outcome Invoke(FunctionInstance* func, std::span<const Value> args);

  // Fuel: a budget consumed by execution. Out of fuel stops with kOutOfFuel.
  void set_fuel(uint64_t fuel) { fuel_ = fuel; fuel_budget_ = fuel; }
  uint64_t fuel_remaining() const { return fuel_; }
  uint64_t fuel_used() const { return fuel_budget_ - fuel_; }

  // Interns a function type; equal types get equal ids.
  uint32_t InternType(const FuncType& type);
  const FuncType* type_for_id(uint32_t id) const { return types_[id].get(); }

 private:
  friend struct ExecContext;
  friend Outcome Execute(Store&, FunctionInstance*, std::span<const Value>);

  StoreLimits limits_;
  uint64_t fuel_ = UINT64_MAX;
  uint64_t fuel_budget_ = UINT64_MAX;
  std::vector<std::unique_ptr<FuncType>> types_;
  std::vector<std::unique_ptr<FunctionInstance>> funcs_;
  std::vector<std::unique_ptr<TableInstance>> tables_;
  std::vector<std::unique_ptr<MemoryInstance>> memories_;
  std::vector<std::unique_ptr<GlobalInstance>> globals_;
  std::vector<std::unique_ptr<Instance>> instances_;
  std::unique_ptr<ExecContext, ExecContextDeleter> exec_;  // value and frame stacks, made on first use
};

}  // namespace ampoule::wasm
