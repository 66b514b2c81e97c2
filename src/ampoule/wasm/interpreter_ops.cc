#include "ampoule/wasm/interpreter_ops.h"

#include <cstddef>

namespace ampoule::wasm {
namespace {

struct IOpInfo {
  const char* name;
  int units;
};

constexpr IOpInfo kIOps[] = {
#define AMP_X(name, n) {#name, n},
    AMP_INTERNAL_OPS(AMP_X)
#undef AMP_X
};
static_assert(sizeof(kIOps) / sizeof(kIOps[0]) == size_t(IOp::kCount));

}  // namespace

int IOpOperandUnits(IOp op) { return kIOps[size_t(op)].units; }
const char* IOpName(IOp op) { return op < IOp::kCount ? kIOps[size_t(op)].name : "?"; }

}  // namespace ampoule::wasm
