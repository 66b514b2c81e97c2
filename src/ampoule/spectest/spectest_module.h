// The `spectest` module: the host module every spec test script may import
// from, as the official test harness defines it.
//
//   print, print_i32, print_i64, print_f32, print_f64, print_i32_f32,
//   print_f64_f64          functions that accept their arguments and do nothing
//   global_i32 = 666, global_i64 = 666, global_f32 = 666.6, global_f64 = 666.6
//                          immutable globals
//   table                  funcref table, limits 10..20
//   memory                 memory, limits 1..2 pages
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "ampoule/wasm/runtime.h"

namespace ampoule::spectest {

class SpectestModule {
 public:
  // Creates the module's objects in `store`. They live as long as the store.
  explicit SpectestModule(wasm::Store& store);

  // The export called `name`, or nullopt.
  std::optional<wasm::Extern> GetExport(std::string_view name) const;

 private:
  std::map<std::string, wasm::Extern, std::less<>> exports_;
};

}  // namespace ampoule::spectest
