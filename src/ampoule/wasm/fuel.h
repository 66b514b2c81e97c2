// The fuel cost table's version and the per-length rule for bulk operations.
//
// Per-instruction costs live in opcodes.def. A run's fuel is the sum of the
// costs of the input instructions it executed, plus the bulk charges below.
// Any change to a cost, here or in opcodes.def, must bump the version: the
// version is recorded in the kernel and in every receipt.
#pragma once

#include <cstdint>

namespace ampoule::wasm {

constexpr uint32_t kFuelCostTableVersion = 1;

// memory.copy, memory.fill, memory.init: one extra unit per started block of
// this many bytes, on top of the instruction's own cost.
constexpr uint64_t kFuelBytesPerUnit = 32;
// table.copy, table.fill, table.init, table.grow: one extra unit per element.
constexpr uint64_t kFuelElementsPerUnit = 1;

inline uint64_t BulkMemoryFuel(uint64_t bytes) {
  return (bytes + kFuelBytesPerUnit - 1) / kFuelBytesPerUnit;
}
inline uint64_t BulkTableFuel(uint64_t elements) {
  return (elements + kFuelElementsPerUnit - 1) / kFuelElementsPerUnit;
}

}  // namespace ampoule::wasm

#include <string>

namespace ampoule::wasm {
// The cost table as Markdown; docs/fuel.md is exactly this text (a test
// keeps them equal).
std::string FuelTableMarkdown();
}  // namespace ampoule::wasm
