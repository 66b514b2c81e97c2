// The WASI glue: turns the wasi_snapshot_preview1 calls into host functions
// of a Store and links a module's imports against them.
//
// This file only marshals: it reads raw argument slots, builds the
// bounds-checked GuestMemory view of the caller's memory, calls the policy
// in wasi_calls.h and stores the errno. What each call does is decided
// there, never here.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "ampoule/wasi/http_capability.h"
#include "ampoule/wasi/wasi_context.h"
#include "ampoule/wasm/runtime.h"
#include "core/result.h"

namespace ampoule::wasi {

constexpr std::string_view kWasiModuleName = "wasi_snapshot_preview1";

// The names of every function the host provides (all 46 of preview 1), in
// alphabetical order.
std::vector<std::string_view> WasiFunctionNames();

class WasiHost {
 public:
  // Adds one host function per WASI call to `store`, each bound to `ctx`.
  // REQUIRES: ctx outlives every call into those functions.
  WasiHost(wasm::Store& store, WasiContext& ctx);

  // The host function for wasi_snapshot_preview1.`name`, or null.
  wasm::FunctionInstance* Find(std::string_view name) const;

  // One Extern per import of `module`, in order: a WASI function, or a
  // function of `http` (the tool capability, http_capability.h; null: none).
  // Error (naming the import's module and field) for anything else. A known
  // function imported with the wrong type is left to instantiation, which
  // reports the expected and actual types.
  core::Result<std::vector<wasm::Extern>> LinkImports(const wasm::Module& module,
                                                const HttpCapability* http = nullptr) const;

 private:
  std::vector<std::pair<std::string_view, wasm::FunctionInstance*>> funcs_;  // sorted by name
};

}  // namespace ampoule::wasi
