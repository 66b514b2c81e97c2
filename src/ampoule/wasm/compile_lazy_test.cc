// Lazy compilation (CompileOptions::lazy_functions): same results and fuel
// as compiling up front; an invalid body traps its first call instead of
// failing the compile.
#include <gtest/gtest.h>

#include <vector>

#include "ampoule/wasm/runtime.h"

namespace ampoule::wasm {
namespace {

void Section(std::vector<uint8_t>& out, uint8_t id, std::vector<uint8_t> body) {
  out.push_back(id);
  out.push_back(uint8_t(body.size()));  // every section here is under 128 bytes
  out.insert(out.end(), body.begin(), body.end());
}

// fib(n) (func 0, recursive) and "second" (func 1) with `second_body`, both (i32) -> i32.
std::vector<uint8_t> FibModule(std::vector<uint8_t> second_body) {
  std::vector<uint8_t> m = {0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00};
  Section(m, 1, {0x01, 0x60, 0x01, 0x7f, 0x01, 0x7f});
  Section(m, 3, {0x02, 0x00, 0x00});
  Section(m, 7, {0x02, 0x03, 'f', 'i', 'b', 0x00, 0x00, 0x06, 's', 'e', 'c', 'o', 'n', 'd', 0x00, 0x01});
  std::vector<uint8_t> fib = {0x00, 0x20, 0x00, 0x41, 0x02, 0x48, 0x04, 0x7f, 0x20, 0x00, 0x05,
                              0x20, 0x00, 0x41, 0x01, 0x6b, 0x10, 0x00, 0x20, 0x00, 0x41, 0x02,
                              0x6b, 0x10, 0x00, 0x6a, 0x0b, 0x0b};
  std::vector<uint8_t> code = {0x02, uint8_t(fib.size())};
  code.insert(code.end(), fib.begin(), fib.end());
  code.push_back(uint8_t(second_body.size()));
  code.insert(code.end(), second_body.begin(), second_body.end());
  Section(m, 10, code);
  return m;
}

const std::vector<uint8_t> kValidSecond = {0x00, 0x20, 0x00, 0x0b};    // local.get 0
const std::vector<uint8_t> kInvalidSecond = {0x00, 0x42, 0x00, 0x0b};  // i64.const 0: wrong type

struct Call {
  Outcome outcome;
  uint64_t fuel_used = 0;
};

Call RunExport(std::shared_ptr<const CompiledModule> module, const char* name, int32_t arg) {
  Store store;
  InstantiateResult inst = store.Instantiate(module, {});
  EXPECT_EQ(inst.kind, InstantiateResult::Kind::kOk) << inst.message;
  store.set_fuel(1'000'000);
  Value args[] = {Value::I32(uint32_t(arg))};
  Call c;
  c.outcome = store.Invoke(inst.instance->GetExport(name)->func, args);
  c.fuel_used = store.fuel_used();
  return c;
}

TEST(CompileLazy, SameResultAndFuelAsEager) {
  std::vector<uint8_t> bytes = FibModule(kValidSecond);
  auto eager = CompileModule(bytes);
  auto lazy = CompileModule(bytes, {.lazy_functions = true});
  ASSERT_TRUE(eager.ok()) << eager.message();
  ASSERT_TRUE(lazy.ok()) << lazy.message();
  EXPECT_EQ((*lazy)->functions[0], nullptr);  // nothing translated before the first call

  Call a = RunExport(*eager, "fib", 15), b = RunExport(*lazy, "fib", 15);
  ASSERT_EQ(a.outcome.stop, StopReason::kReturned);
  ASSERT_EQ(b.outcome.stop, StopReason::kReturned) << b.outcome.message;
  EXPECT_EQ(a.outcome.results[0].i32(), 610u);
  EXPECT_EQ(b.outcome.results[0].i32(), 610u);
  EXPECT_EQ(a.fuel_used, b.fuel_used);
  EXPECT_NE((*lazy)->functions[0], nullptr);
  EXPECT_EQ((*lazy)->functions[1], nullptr);  // never called
  // A second store reuses the translation.
  EXPECT_EQ(RunExport(*lazy, "fib", 15).fuel_used, a.fuel_used);
}

TEST(CompileLazy, InvalidBodyTrapsItsFirstCall) {
  std::vector<uint8_t> bytes = FibModule(kInvalidSecond);
  EXPECT_FALSE(CompileModule(bytes).ok());
  auto lazy = CompileModule(bytes, {.lazy_functions = true});
  ASSERT_TRUE(lazy.ok()) << lazy.message();
  EXPECT_EQ(RunExport(*lazy, "fib", 10).outcome.results[0].i32(), 55u);
  for (int i = 0; i < 2; ++i) {
    Call c = RunExport(*lazy, "second", 1);
    EXPECT_EQ(c.outcome.stop, StopReason::kTrap);
    EXPECT_EQ(c.outcome.trap, TrapKind::kHost);
    EXPECT_NE(c.outcome.message.find("function 1 cannot run"), std::string::npos) << c.outcome.message;
  }
}

}  // namespace
}  // namespace ampoule::wasm
