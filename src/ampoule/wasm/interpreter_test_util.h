// Test helpers for the translator and interpreter: modules written as
// instruction lists, validated, translated and instantiated without a
// binary. For *_test.cc files only.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <optional>
#include <ostream>
#include <vector>

#include "ampoule/wasm/compiled_function.h"
#include "ampoule/wasm/interpreter.h"
#include "ampoule/wasm/runtime.h"
#include "ampoule/wasm/translator.h"
#include "ampoule/wasm/validator.h"

namespace ampoule::wasm {
// Readable IOps in test failure messages.
inline void PrintTo(IOp op, std::ostream* os) { *os << IOpName(op); }
}  // namespace ampoule::wasm

namespace ampoule::wasm::testing {

inline Instr I(Opcode op, uint32_t a = 0, uint32_t b = 0) {
  Instr in;
  in.op = op;
  in.a = a;
  in.b = b;
  return in;
}
inline Instr I32(int32_t v) {
  Instr in = I(Opcode::I32Const);
  in.imm = uint32_t(v);
  return in;
}
inline Instr I64(int64_t v) {
  Instr in = I(Opcode::I64Const);
  in.imm = uint64_t(v);
  return in;
}
inline Instr F32Bits(uint32_t bits) {
  Instr in = I(Opcode::F32Const);
  in.imm = bits;
  return in;
}
inline Instr F64Bits(uint64_t bits) {
  Instr in = I(Opcode::F64Const);
  in.imm = bits;
  return in;
}
inline Instr F32(float v) {
  uint32_t b;
  std::memcpy(&b, &v, 4);
  return F32Bits(b);
}
inline Instr F64(double v) {
  uint64_t b;
  std::memcpy(&b, &v, 8);
  return F64Bits(b);
}
inline Instr Get(uint32_t x) { return I(Opcode::LocalGet, x); }
inline Instr Set(uint32_t x) { return I(Opcode::LocalSet, x); }
inline Instr Tee(uint32_t x) { return I(Opcode::LocalTee, x); }
// A memory access with static offset `offset` (natural alignment is not
// checked by these tests, so align is 0).
inline Instr Mem(Opcode op, uint32_t offset = 0) {
  Instr in = I(op);
  in.imm = offset;
  return in;
}
inline Instr Block(Opcode op) { return I(op); }  // empty block type
inline Instr Block(Opcode op, ValType result) {
  Instr in = I(op);
  in.block.kind = BlockType::Kind::Value;
  in.block.value = result;
  return in;
}
inline Instr BlockOfType(Opcode op, uint32_t type_index) {
  Instr in = I(op);
  in.block.kind = BlockType::Kind::TypeIndex;
  in.block.type_index = type_index;
  return in;
}
inline Instr End() { return I(Opcode::End); }

// Builds a module function by function. Imports must be added before
// functions are.
class ModuleBuilder {
 public:
  uint32_t AddType(const FuncType& t) {
    for (uint32_t i = 0; i < m_.types.size(); ++i) {
      if (m_.types[i] == t) return i;
    }
    m_.types.push_back(t);
    return uint32_t(m_.types.size() - 1);
  }

  uint32_t ImportFunc(const FuncType& t) {
    Import imp;
    imp.module = "host";
    imp.name = "f" + std::to_string(m_.imports.size());
    imp.kind = ExternKind::Func;
    imp.func_type = AddType(t);
    m_.imports.push_back(imp);
    m_.func_types.push_back(imp.func_type);
    ++m_.num_imported_funcs;
    return uint32_t(m_.func_types.size() - 1);
  }

  // Returns the function index (imports included).
  uint32_t AddFunc(const FuncType& type, std::vector<ValType> locals, std::vector<Instr> body,
                   std::vector<uint32_t> br_targets = {}) {
    FunctionBody fb;
    fb.type = AddType(type);
    fb.locals = std::move(locals);
    m_.functions.push_back(fb);
    m_.func_types.push_back(fb.type);
    FunctionCode code;
    uint32_t offset = 0x100 * uint32_t(codes_.size() + 1);
    for (Instr& in : body) in.offset = offset++;
    code.instrs = std::move(body);
    code.br_targets = std::move(br_targets);
    codes_.push_back(std::move(code));
    return uint32_t(m_.func_types.size() - 1);
  }

  void AddMemory(uint32_t min, std::optional<uint32_t> max = std::nullopt) {
    MemoryType t;
    t.limits = {min, max};
    m_.memories.push_back(t);
  }

  // A funcref table holding `funcs` from index 0 (kNone = null).
  void AddTable(uint32_t size, std::vector<uint32_t> funcs) {
    TableType t;
    t.limits = {size, std::nullopt};
    m_.tables.push_back(t);
    ElemSegment seg;
    seg.table = uint32_t(m_.tables.size() - 1);
    seg.offset.instrs = {I32(0)};
    for (uint32_t f : funcs) {
      ConstExpr e;
      if (f == kNone) {
        Instr null = I(Opcode::RefNull);
        null.ref = ValType::FuncRef;
        e.instrs = {null};
      } else {
        e.instrs = {I(Opcode::RefFunc, f)};
        m_.declared_func_refs.push_back(f);
      }
      seg.items.push_back(e);
    }
    m_.elems.push_back(seg);
  }

  uint32_t AddGlobal(ValType t, uint64_t init_bits) {
    Global g;
    g.type = {t, true};
    Instr c = I(t == ValType::I32 ? Opcode::I32Const
                : t == ValType::I64 ? Opcode::I64Const
                : t == ValType::F32 ? Opcode::F32Const
                                    : Opcode::F64Const);
    c.imm = init_bits;
    g.init.instrs = {c};
    m_.globals.push_back(g);
    m_.global_types.push_back(g.type);
    return uint32_t(m_.global_types.size() - 1);
  }

  // Validates and translates every function; fails the test on an error.
  std::shared_ptr<const CompiledModule> Build() {
    auto cm = std::make_shared<CompiledModule>();
    cm->module = m_;
    core::Status header = ValidateModuleHeader(cm->module);
    EXPECT_TRUE(header.ok()) << header.message();
    for (uint32_t i = 0; i < codes_.size(); ++i) {
      core::Status v = ValidateFunction(cm->module, i, codes_[i]);
      EXPECT_TRUE(v.ok()) << v.message();
      core::Result<CompiledFunctionPtr> f = TranslateFunction(cm->module, i, codes_[i]);
      EXPECT_TRUE(f.ok()) << f.message();
      if (!f.ok()) return nullptr;
      cm->functions.push_back(std::move(*f));
    }
    return cm;
  }

  static constexpr uint32_t kNone = UINT32_MAX;

 private:
  Module m_;
  std::vector<FunctionCode> codes_;
};

// A store with one instance of a built module.
struct Harness {
  explicit Harness(std::shared_ptr<const CompiledModule> m, StoreLimits limits = {},
                   std::vector<Extern> imports = {})
      : store(limits) {
    if (!m) return;
    module = m;
    InstantiateResult r = store.Instantiate(m, imports);
    EXPECT_EQ(r.kind, InstantiateResult::Kind::kOk) << r.message;
    instance = r.instance;
  }
  Outcome Call(uint32_t func, std::vector<Value> args = {}) {
    return store.Invoke(instance->funcs[func], args);
  }
  const CompiledFunction& Code(uint32_t defined_index) const {
    return *module->functions[defined_index];
  }

  Store store;
  std::shared_ptr<const CompiledModule> module;
  Instance* instance = nullptr;
};

}  // namespace ampoule::wasm::testing
