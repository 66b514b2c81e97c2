// Interpreter entry: the execution context and Execute.
#include "ampoule/wasm/interpreter.h"

#include <sys/mman.h>

#include <cstring>

#include "ampoule/wasm/interpreter_internal.h"

namespace ampoule::wasm {
namespace {

// Reserves address space that the OS commits page by page as it is
// touched: a 128 MiB value-stack limit costs nothing until a deep
// recursion uses it.
void* Reserve(size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
}

Outcome Stopped(StopReason stop, TrapKind trap = TrapKind::kNone, std::string message = {}) {
  Outcome o;
  o.stop = stop;
  o.trap = trap;
  if (stop == StopReason::kTrap) o.message = message.empty() ? TrapMessage(trap) : std::move(message);
  return o;
}

Outcome ToOutcome(RunResult r, const FuncType& type, const uint64_t* results) {
  Outcome o;
  o.stop = r.stop;
  o.trap = r.trap;
  o.exit_code = r.exit_code;
  switch (r.stop) {
    case StopReason::kReturned:
      for (size_t i = 0; i < type.results.size(); ++i) {
        o.results.push_back(Value{type.results[i], results[i]});
      }
      break;
    case StopReason::kTrap:
      o.message = r.trap == TrapKind::kHost ? std::move(r.message) : TrapMessage(r.trap);
      break;
    case StopReason::kOutOfFuel:
    case StopReason::kExit: break;
  }
  return o;
}

// A host function called directly by the embedder.
Outcome ExecuteHost(ExecContext& ctx, FunctionInstance* func, std::span<const Value> args) {
  const FuncType& type = *func->type;
  std::vector<uint64_t> slots(std::max(type.params.size(), type.results.size()));
  for (size_t i = 0; i < args.size(); ++i) slots[i] = NormalizeBits(type.params[i], args[i].bits);
  RunResult r = CallHost(ctx, func, slots.data(), nullptr, nullptr);
  return ToOutcome(std::move(r), type, slots.data());
}

}  // namespace

ExecContext::~ExecContext() {
  if (stack) munmap(stack, stack_bytes);
  if (frames) munmap(frames, frame_bytes);
}

bool ExecContext::Init() {
  const StoreLimits& l = limits();
  stack_bytes = std::max<size_t>(l.max_value_stack, 1) * sizeof(uint64_t);
  frame_bytes = std::max<size_t>(l.max_call_depth, 1) * sizeof(Frame);
  stack = static_cast<uint64_t*>(Reserve(stack_bytes));
  frames = static_cast<Frame*>(Reserve(frame_bytes));
  if (!stack || !frames) return false;
  stack_end = stack + l.max_value_stack;
  frames_end = frames + l.max_call_depth;
  sp = stack;
  frame_top = frames;
  return true;
}

const InstanceView* ExecContext::View(Instance* instance) {
  auto it = views.find(instance);
  if (it != views.end()) return it->second.get();
  auto v = std::make_unique<InstanceView>();
  v->instance = instance;
  v->memory = instance->memories.empty() ? &no_memory : instance->memories[0];
  v->funcs = instance->funcs.data();
  v->globals = instance->globals.data();
  v->tables = instance->tables.data();
  for (const FuncType& t : instance->module().types) v->type_ids.push_back(store.InternType(t));
  const InstanceView* out = v.get();
  views.emplace(instance, std::move(v));
  return out;
}

void ExecContextDeleter::operator()(ExecContext* c) const { delete c; }

Outcome Execute(Store& store, FunctionInstance* func, std::span<const Value> args) {
  if (!store.exec_) {
    std::unique_ptr<ExecContext, ExecContextDeleter> ctx(new ExecContext(store));
    if (!ctx->Init()) {
      return Stopped(StopReason::kTrap, TrapKind::kHost,
                     "cannot reserve the value stack: lower StoreLimits::max_value_stack or "
                     "raise the process's address-space limit");
    }
    store.exec_ = std::move(ctx);
  }
  ExecContext& ctx = *store.exec_;
  if (!func->code && func->instance != nullptr) {
    std::string error = CompileOnFirstCall(func);  // a lazily compiled module
    if (!error.empty()) return Stopped(StopReason::kTrap, TrapKind::kHost, std::move(error));
  }
  if (!func->code) return ExecuteHost(ctx, func, args);

  const CompiledFunction& cf = *func->code;
  const FuncType& type = *func->type;
  uint64_t* fp = ctx.sp;
  if (ctx.frame_top == ctx.frames_end) return Stopped(StopReason::kTrap, TrapKind::kCallStackExhausted);
  if (size_t(ctx.stack_end - fp) < cf.frame_slots) {
    return Stopped(StopReason::kTrap, TrapKind::kValueStackExhausted);
  }
  if (store.fuel_ < cf.entry_fuel) return Stopped(StopReason::kOutOfFuel);
  store.fuel_ -= cf.entry_fuel;

  for (size_t i = 0; i < args.size(); ++i) fp[i] = NormalizeBits(type.params[i], args[i].bits);
  std::memset(fp + cf.num_params, 0, size_t(cf.num_locals) * sizeof(uint64_t));

  // The entry activation occupies a frame record too, so nested runs (a host
  // function calling back into wasm) count against the same depth limit.
  Frame* marker = ctx.frame_top;
  *marker = Frame{nullptr, nullptr, nullptr};
  ctx.frame_top = marker + 1;
  RunResult r = RunLoop(ctx, ctx.View(func->instance), cf.code.data(), fp, marker + 1);
  ctx.frame_top = marker;
  ctx.sp = fp;
  return ToOutcome(std::move(r), type, fp);
}

}  // namespace ampoule::wasm
