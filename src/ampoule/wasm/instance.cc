// Instantiation (core spec 2.0, 4.5.4): linking, allocation, segment
// initialisation and the start function.
#include <cstring>

#include "ampoule/wasm/runtime.h"

namespace ampoule::wasm {
namespace {

bool LimitsMatch(const Limits& actual, const Limits& wanted) {
  if (actual.min < wanted.min) return false;
  if (!wanted.max) return true;
  return actual.max && *actual.max <= *wanted.max;
}

// Checks one provided extern against the import's declared type.
core::Status CheckImport(const Module& module, const Import& imp, const Extern& ext, uint32_t actual_size) {
  auto incompatible = [&](const std::string& why) {
    return core::Error{"incompatible import type for \"" + imp.module + "\" \"" + imp.name + "\": " + why};
  };
  if (ext.kind != imp.kind) {
    return incompatible(std::string("expected a ") + ExternKindName(imp.kind) + ", got a " +
                        ExternKindName(ext.kind));
  }
  switch (imp.kind) {
    case ExternKind::Func:
      if (*ext.func->type != module.types[imp.func_type]) {
        return incompatible("expected " + FuncTypeToString(module.types[imp.func_type]) + ", got " +
                            FuncTypeToString(*ext.func->type));
      }
      return core::Status::Ok();
    case ExternKind::Table: {
      Limits actual{actual_size, ext.table->type.limits.max};
      if (ext.table->type.elem != imp.table.elem) return incompatible("element type differs");
      if (!LimitsMatch(actual, imp.table.limits)) return incompatible("table limits do not match");
      return core::Status::Ok();
    }
    case ExternKind::Memory: {
      Limits actual{actual_size, ext.memory->type.limits.max};
      if (!LimitsMatch(actual, imp.memory.limits)) return incompatible("memory limits do not match");
      return core::Status::Ok();
    }
    case ExternKind::Global:
      if (ext.global->type.type != imp.global.type || ext.global->type.mutable_ != imp.global.mutable_) {
        return incompatible("global type or mutability differs");
      }
      return core::Status::Ok();
  }
  return incompatible("unknown kind");
}

// Evaluates a validated constant expression.
Value EvalConst(const Instance& inst, const ConstExpr& expr) {
  Value v;
  for (const Instr& in : expr.instrs) {
    switch (in.op) {
      case Opcode::I32Const: v = Value::I32(uint32_t(in.imm)); break;
      case Opcode::I64Const: v = Value::I64(in.imm); break;
      case Opcode::F32Const: v = Value::F32Bits(uint32_t(in.imm)); break;
      case Opcode::F64Const: v = Value::F64Bits(in.imm); break;
      case Opcode::RefNull: v = Value{in.ref, kNullRef}; break;
      case Opcode::RefFunc: v = Value::FuncRef(reinterpret_cast<Ref>(inst.funcs[in.a])); break;
      case Opcode::GlobalGet: {
        const GlobalInstance* g = inst.globals[in.a];
        v = Value{g->type.type, g->bits};
        break;
      }
      default: break;  // the validator admits nothing else
    }
  }
  return v;
}

InstantiateResult Trapped(TrapKind kind) {
  InstantiateResult r;
  r.kind = InstantiateResult::Kind::kTrap;
  r.outcome.stop = StopReason::kTrap;
  r.outcome.trap = kind;
  r.outcome.message = TrapMessage(kind);
  return r;
}

}  // namespace

std::optional<Extern> Instance::GetExport(std::string_view name) const {
  for (const Export& e : module().exports) {
    if (e.name != name) continue;
    Extern ext;
    ext.kind = e.kind;
    switch (e.kind) {
      case ExternKind::Func: ext.func = funcs[e.index]; break;
      case ExternKind::Table: ext.table = tables[e.index]; break;
      case ExternKind::Memory: ext.memory = memories[e.index]; break;
      case ExternKind::Global: ext.global = globals[e.index]; break;
    }
    return ext;
  }
  return std::nullopt;
}

InstantiateResult Store::Instantiate(std::shared_ptr<const CompiledModule> compiled,
                                     std::span<const Extern> imports) {
  const Module& module = compiled->module;
  InstantiateResult result;
  auto link_error = [&](std::string message) {
    result.kind = InstantiateResult::Kind::kLinkError;
    result.message = std::move(message);
    return result;
  };
  if (imports.size() != module.imports.size()) {
    return link_error("unknown import: the module needs " + std::to_string(module.imports.size()) +
                      " imports, " + std::to_string(imports.size()) + " were given");
  }
  for (size_t i = 0; i < imports.size(); ++i) {
    const Extern& ext = imports[i];
    uint32_t size = 0;
    if (ext.kind == ExternKind::Table && ext.table) size = ext.table->size();
    if (ext.kind == ExternKind::Memory && ext.memory) size = ext.memory->pages();
    core::Status s = CheckImport(module, module.imports[i], ext, size);
    if (!s.ok()) return link_error(s.message());
  }

  auto owned = std::make_unique<Instance>();
  Instance& inst = *owned;
  inst.compiled_ = compiled;
  for (const Extern& ext : imports) {
    switch (ext.kind) {
      case ExternKind::Func: inst.funcs.push_back(ext.func); break;
      case ExternKind::Table: inst.tables.push_back(ext.table); break;
      case ExternKind::Memory: inst.memories.push_back(ext.memory); break;
      case ExternKind::Global: inst.globals.push_back(ext.global); break;
    }
  }
  for (uint32_t i = 0; i < module.functions.size(); ++i) {
    auto f = std::make_unique<FunctionInstance>();
    f->type_id = InternType(module.types[module.functions[i].type]);
    f->type = types_[f->type_id].get();
    f->instance = &inst;
    f->defined_index = i;
    f->code = compiled->functions[i].get();
    inst.funcs.push_back(f.get());
    funcs_.push_back(std::move(f));
  }
  for (size_t i = module.num_imported_memories; i < module.memories.size(); ++i) {
    const MemoryType& type = module.memories[i];
    if (uint64_t(type.limits.min) * kPageSize > limits_.max_memory_bytes) {
      return link_error("memory " + std::to_string(i) + " needs " + std::to_string(type.limits.min) +
                        " pages at start, more than the memory cap allows");
    }
    inst.memories.push_back(AddMemory(type));
  }
  for (size_t i = module.num_imported_tables; i < module.tables.size(); ++i) {
    const TableType& type = module.tables[i];
    if (type.limits.min > limits_.max_table_elements) {
      return link_error("table " + std::to_string(i) + " needs more elements at start than the table cap allows");
    }
    inst.tables.push_back(AddTable(type, kNullRef));
  }
  // Global initialisers may read imported globals (and, being evaluated in
  // order, nothing defined later).
  for (const Global& g : module.globals) {
    inst.globals.push_back(AddGlobal(g.type, EvalConst(inst, g.init)));
  }

  // Element segments are evaluated to references up front; data segments are
  // views of the module bytes.
  inst.elem_segments.resize(module.elems.size());
  for (size_t i = 0; i < module.elems.size(); ++i) {
    for (const ConstExpr& item : module.elems[i].items) {
      inst.elem_segments[i].push_back(EvalConst(inst, item).bits);
    }
  }
  for (const DataSegment& d : module.datas) {
    inst.data_segments.push_back(std::span<const uint8_t>(module.bytes.data() + d.bytes_begin, d.bytes_size));
  }
  instances_.push_back(std::move(owned));
  result.instance = &inst;

  // Active segments, in order; a failure keeps what earlier segments wrote.
  for (size_t i = 0; i < module.elems.size(); ++i) {
    const ElemSegment& seg = module.elems[i];
    if (seg.mode == SegmentMode::Active) {
      TableInstance* table = inst.tables[seg.table];
      uint64_t offset = EvalConst(inst, seg.offset).i32();
      const std::vector<Ref>& refs = inst.elem_segments[i];
      if (offset + refs.size() > table->size()) return Trapped(TrapKind::kTableOutOfBounds);
      std::copy(refs.begin(), refs.end(), table->elements.begin() + offset);
    }
    if (seg.mode != SegmentMode::Passive) inst.elem_segments[i].clear();
  }
  for (size_t i = 0; i < module.datas.size(); ++i) {
    const DataSegment& seg = module.datas[i];
    if (seg.mode != SegmentMode::Active) continue;
    MemoryInstance* memory = inst.memories[seg.memory];
    uint64_t offset = EvalConst(inst, seg.offset).i32();
    std::span<const uint8_t> bytes = inst.data_segments[i];
    if (offset + bytes.size() > memory->data.size()) return Trapped(TrapKind::kMemoryOutOfBounds);
    if (!bytes.empty()) memcpy(memory->data.data() + offset, bytes.data(), bytes.size());
    inst.data_segments[i] = {};
  }

  if (module.start) {
    Outcome o = Invoke(inst.funcs[*module.start], {});
    if (o.stop != StopReason::kReturned) {
      InstantiateResult r;
      r.kind = InstantiateResult::Kind::kTrap;
      r.outcome = std::move(o);
      return r;
    }
  }
  return result;
}

}  // namespace ampoule::wasm
