#include "ampoule/spectest/spectest_module.h"

#include <gtest/gtest.h>

namespace ampoule::spectest {
namespace {

using wasm::ExternKind;
using wasm::ValType;

TEST(SpectestModuleTest, GlobalsHoldTheHarnessValues) {
  wasm::Store store;
  SpectestModule m(store);
  struct Want {
    const char* name;
    wasm::Value value;
  };
  const Want wants[] = {{"global_i32", wasm::Value::I32(666)},
                        {"global_i64", wasm::Value::I64(666)},
                        {"global_f32", wasm::Value::F32(666.6f)},
                        {"global_f64", wasm::Value::F64(666.6)}};
  for (const Want& w : wants) {
    std::optional<wasm::Extern> e = m.GetExport(w.name);
    ASSERT_TRUE(e.has_value()) << w.name;
    ASSERT_EQ(e->kind, ExternKind::Global);
    EXPECT_EQ(e->global->type.type, w.value.type) << w.name;
    EXPECT_FALSE(e->global->type.mutable_) << w.name;
    EXPECT_EQ(e->global->bits, w.value.bits) << w.name;
  }
}

TEST(SpectestModuleTest, TableAndMemoryHaveTheHarnessLimits) {
  wasm::Store store;
  SpectestModule m(store);
  std::optional<wasm::Extern> table = m.GetExport("table");
  ASSERT_TRUE(table.has_value());
  ASSERT_EQ(table->kind, ExternKind::Table);
  EXPECT_EQ(table->table->type.elem, ValType::FuncRef);
  EXPECT_EQ(table->table->size(), 10u);
  EXPECT_EQ(table->table->type.limits.max, std::optional<uint32_t>(20));

  std::optional<wasm::Extern> memory = m.GetExport("memory");
  ASSERT_TRUE(memory.has_value());
  ASSERT_EQ(memory->kind, ExternKind::Memory);
  EXPECT_EQ(memory->memory->pages(), 1u);
  EXPECT_EQ(memory->memory->type.limits.max, std::optional<uint32_t>(2));
}

TEST(SpectestModuleTest, PrintFunctionsTakeTheirArgumentsAndReturnNothing) {
  wasm::Store store;
  SpectestModule m(store);
  struct Want {
    const char* name;
    std::vector<ValType> params;
  };
  const Want wants[] = {{"print", {}},
                        {"print_i32", {ValType::I32}},
                        {"print_i64", {ValType::I64}},
                        {"print_f32", {ValType::F32}},
                        {"print_f64", {ValType::F64}},
                        {"print_i32_f32", {ValType::I32, ValType::F32}},
                        {"print_f64_f64", {ValType::F64, ValType::F64}}};
  for (const Want& w : wants) {
    std::optional<wasm::Extern> e = m.GetExport(w.name);
    ASSERT_TRUE(e.has_value()) << w.name;
    ASSERT_EQ(e->kind, ExternKind::Func);
    EXPECT_EQ(e->func->type->params, w.params) << w.name;
    EXPECT_TRUE(e->func->type->results.empty()) << w.name;
    ASSERT_TRUE(e->func->host) << w.name;
    std::vector<uint64_t> args(w.params.size(), 0);
    wasm::HostContext ctx{store, nullptr, nullptr};
    EXPECT_EQ(e->func->host(ctx, args, {}).kind, wasm::HostResult::Kind::kOk);
  }
}

TEST(SpectestModuleTest, UnknownNamesAreNotExported) {
  wasm::Store store;
  SpectestModule m(store);
  EXPECT_FALSE(m.GetExport("print_i128").has_value());
  EXPECT_FALSE(m.GetExport("").has_value());
}

}  // namespace
}  // namespace ampoule::spectest
