#include "volent/journal/entry.h"

#include <sodium.h>

#include <array>

namespace volent::journal {
namespace {

// Indexed by EntryKind; new kinds are appended (the names are stored).
constexpr std::array<std::string_view, 7> kKindNames = {
    "intent",           "completion",  "approval-requested", "approval-decided",
    "run-started",      "run-finished", "egress-denied"};
static_assert(kKindNames.size() == kKindCount, "a name for every EntryKind");

ampoule::Status CheckPart(std::string_view what, std::string_view part) {
  if (part.empty()) return ampoule::Error{"the " + std::string(what) + " of a journal key is empty"};
  if (part.size() > kMaxKeyPartLength) {
    return ampoule::Error{"the " + std::string(what) + " of a journal key is longer than " +
                          std::to_string(kMaxKeyPartLength) + " bytes"};
  }
  for (char c : part) {
    // Printable ASCII without space and '/': the text form stays
    // unambiguous and safe in an HTTP header.
    if (c <= ' ' || c > '~' || c == '/') {
      return ampoule::Error{"the " + std::string(what) + " of a journal key has a character other " +
                            "than printable ASCII without space and '/'"};
    }
  }
  return ampoule::Status::Ok();
}

// Appends the 8-byte big-endian length of `field`, then its bytes.
void Field(crypto_hash_sha256_state* state, std::string_view field) {
  unsigned char length[8];
  uint64_t n = field.size();
  for (int i = 7; i >= 0; --i, n >>= 8) length[i] = static_cast<unsigned char>(n & 0xff);
  crypto_hash_sha256_update(state, length, sizeof length);
  crypto_hash_sha256_update(state, reinterpret_cast<const unsigned char*>(field.data()), field.size());
}

}  // namespace

std::string_view KindName(EntryKind kind) { return kKindNames[static_cast<size_t>(kind)]; }

std::optional<EntryKind> ParseKind(std::string_view name) {
  for (size_t i = 0; i < kKindNames.size(); ++i) {
    if (kKindNames[i] == name) return static_cast<EntryKind>(i);
  }
  return std::nullopt;
}

std::string EffectKey::ToString() const { return agent + "/" + run + "/" + std::to_string(step); }

ampoule::Status EffectKey::Check() const {
  AMP_RETURN_IF_ERROR(CheckPart("agent", agent));
  AMP_RETURN_IF_ERROR(CheckPart("run", run));
  if (step > kMaxStep) return ampoule::Error{"the step of a journal key is larger than 2^63 - 1"};
  return ampoule::Status::Ok();
}

std::string EntryHash(const Entry& entry) {
  crypto_hash_sha256_state state;
  crypto_hash_sha256_init(&state);
  Field(&state, kHashDomain);
  Field(&state, std::to_string(entry.seq));
  Field(&state, entry.prev_hash);
  Field(&state, KindName(entry.kind));
  Field(&state, entry.agent);
  Field(&state, entry.run);
  Field(&state, std::to_string(entry.step));
  Field(&state, entry.key);
  Field(&state, entry.payload);
  Field(&state, std::to_string(entry.time_ms));
  unsigned char digest[crypto_hash_sha256_BYTES];
  crypto_hash_sha256_final(&state, digest);
  return Hex(std::string_view(reinterpret_cast<const char*>(digest), sizeof digest));
}

std::string Hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char b : bytes) {
    out.push_back(kDigits[b >> 4]);
    out.push_back(kDigits[b & 0xf]);
  }
  return out;
}

}  // namespace volent::journal
