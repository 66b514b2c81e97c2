#include "ampoule/wasm/opcode.h"

#include <array>
#include <cstddef>

namespace ampoule::wasm {
namespace {

constexpr OpcodeInfo kInfo[] = {
#define WASM_OP(name, text, prefix, code, imm, sig, fuel) \
  {text, prefix, code, ImmKind::imm, Sig::sig, fuel},
#include "ampoule/wasm/opcodes.def"
};
static_assert(sizeof(kInfo) / sizeof(kInfo[0]) == size_t(Opcode::kCount));

constexpr uint16_t kNone = 0xFFFF;

struct Maps {
  std::array<uint16_t, 256> single;
  std::array<uint16_t, 32> misc;
};

constexpr Maps BuildMaps() {
  Maps m{};
  for (auto& v : m.single) v = kNone;
  for (auto& v : m.misc) v = kNone;
  for (uint16_t i = 0; i < uint16_t(Opcode::kCount); ++i) {
    if (kInfo[i].prefix == 0) m.single[kInfo[i].code] = i;
    else m.misc[kInfo[i].code] = i;
  }
  return m;
}
constexpr Maps kMaps = BuildMaps();

}  // namespace

const OpcodeInfo& GetOpcodeInfo(Opcode op) { return kInfo[size_t(op)]; }

bool LookupOpcode(uint8_t byte, Opcode* out) {
  uint16_t v = kMaps.single[byte];
  if (v == kNone) return false;
  *out = Opcode(v);
  return true;
}

bool LookupMiscOpcode(uint32_t sub, Opcode* out) {
  if (sub >= kMaps.misc.size() || kMaps.misc[sub] == kNone) return false;
  *out = Opcode(kMaps.misc[sub]);
  return true;
}

}  // namespace ampoule::wasm
