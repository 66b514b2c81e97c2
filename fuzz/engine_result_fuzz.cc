// Fuzz target for the engine's result as the host reads it
// (ampoule/run/engine_protocol.h): the bytes come from a process that ran
// untrusted code.
//
// The input is read whole and again in pieces (the first byte picks their
// size), with and without keeping the files, under a cap the second byte
// picks. Each reading must give a result or a clean error, never a crash,
// and both must agree: the same outcome, the same files with the same
// sizes and digests, the kept bytes matching them, nothing past the cap.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "ampoule/run/engine_protocol.h"
#include "core/sha256.h"

namespace {

core::Result<ampoule::run::EngineResult> Read(std::string_view bytes, size_t piece, uint64_t cap, bool keep) {
  ampoule::run::ResultReader reader(cap, keep);
  for (size_t at = 0; at < bytes.size(); at += piece) reader.Feed(bytes.substr(at, piece));
  return reader.Finish();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const size_t piece = 1 + data[0] % 64;
  const uint64_t cap = data[1] == 0xff ? UINT64_MAX : uint64_t(data[1]) * 16;
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 2, size - 2);

  // Files that add up past the input cannot all arrive: the kept reading
  // may refuse them at the header (no room reserved for them), the other
  // when they fall short; either way both fail.
  auto whole = Read(bytes, bytes.size() + 1, std::min<uint64_t>(cap, bytes.size()), /*keep=*/true);
  auto pieces = Read(bytes, piece, cap, /*keep=*/false);
  if (whole.ok() != pieces.ok()) std::abort();
  if (!whole.ok()) return 0;
  if (whole->outputs.size() != pieces->outputs.size() || whole->exit_code != pieces->exit_code) std::abort();
  uint64_t total = 0;
  for (size_t i = 0; i < whole->outputs.size(); ++i) {
    const auto& kept = whole->outputs[i];
    const auto& hashed = pieces->outputs[i];
    if (kept.name != hashed.name || kept.size != hashed.size || kept.sha256 != hashed.sha256) std::abort();
    if (kept.bytes.size() != kept.size || core::Sha256Hex(kept.bytes) != kept.sha256) std::abort();
    if (!hashed.bytes.empty()) std::abort();
    total += kept.size;
  }
  if (total > cap) std::abort();
  return 0;
}
