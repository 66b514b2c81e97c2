#include "ampoule/wasm/opcode.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "ampoule/wasm/fuel.h"

namespace ampoule::wasm {
namespace {

TEST(OpcodeTable, EveryOpcodeRoundTripsThroughLookup) {
  for (int i = 0; i < int(Opcode::kCount); ++i) {
    const OpcodeInfo& info = GetOpcodeInfo(Opcode(i));
    Opcode found;
    bool ok = info.prefix ? LookupMiscOpcode(info.code, &found) : LookupOpcode(uint8_t(info.code), &found);
    ASSERT_TRUE(ok) << info.text;
    // `select` has two encodings; each maps back to its own row.
    EXPECT_EQ(int(found), i) << info.text;
  }
}

TEST(OpcodeTable, UnknownBytesAreRejected) {
  Opcode op;
  EXPECT_FALSE(LookupOpcode(0x06, &op));  // try (exception handling) is not 2.0
  EXPECT_FALSE(LookupOpcode(0xFC, &op));  // a prefix, not an opcode
  EXPECT_FALSE(LookupOpcode(0xFD, &op));  // SIMD prefix
  EXPECT_FALSE(LookupMiscOpcode(18, &op));
  EXPECT_FALSE(LookupMiscOpcode(1u << 31, &op));
}

TEST(OpcodeTable, EncodingsAreUnique) {
  std::set<std::pair<int, uint32_t>> seen;
  for (int i = 0; i < int(Opcode::kCount); ++i) {
    const OpcodeInfo& info = GetOpcodeInfo(Opcode(i));
    EXPECT_TRUE(seen.insert({info.prefix, info.code}).second) << info.text;
  }
}

TEST(FuelTable, DocsMatchTheTable) {
  const char* src = std::getenv("AMPOULE_SOURCE_DIR");
  if (!src) GTEST_SKIP() << "AMPOULE_SOURCE_DIR not set (run through ctest)";
  std::ifstream in(std::string(src) + "/docs/fuel.md");
  ASSERT_TRUE(in) << "docs/fuel.md missing";
  std::stringstream doc;
  doc << in.rdbuf();
  EXPECT_EQ(doc.str(), FuelTableMarkdown())
      << "docs/fuel.md is stale: regenerate it with `build/bin/ampoule wasm fuel-table > docs/fuel.md`"
         " and bump kFuelCostTableVersion if a cost changed";
}

}  // namespace
}  // namespace ampoule::wasm
