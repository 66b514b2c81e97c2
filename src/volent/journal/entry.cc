#include "volent/journal/entry.h"

#include <array>
#include <charconv>

#include "core/hex.h"
#include "core/sha256.h"

namespace volent::journal {
namespace {

// Indexed by EntryKind; new kinds are appended (the names are stored).
constexpr std::array<std::string_view, 12> kKindNames = {
    "intent",           "completion",   "approval-requested", "approval-decided",   "run-started",
    "run-finished",     "egress-denied", "credential-created", "credential-revoked", "auth-failures",
    "tool-http-request", "tool-http-answer"};
static_assert(kKindNames.size() == kKindCount, "a name for every EntryKind");

core::Status CheckPart(std::string_view what, std::string_view part) {
  if (part.empty()) return core::Error{"the " + std::string(what) + " of a journal key is empty"};
  if (part.size() > kMaxKeyPartLength) {
    return core::Error{"the " + std::string(what) + " of a journal key is longer than " +
                          std::to_string(kMaxKeyPartLength) + " bytes"};
  }
  for (char c : part) {
    // Printable ASCII without space and '/': the text form stays
    // unambiguous and safe in an HTTP header.
    if (c <= ' ' || c > '~' || c == '/') {
      return core::Error{"the " + std::string(what) + " of a journal key has a character other " +
                            "than printable ASCII without space and '/'"};
    }
  }
  return core::Status::Ok();
}

// Appends the 8-byte big-endian length of `field`, then its bytes.
void Field(core::Sha256Hasher* hasher, std::string_view field) {
  uint8_t length[8];
  uint64_t n = field.size();
  for (int i = 7; i >= 0; --i, n >>= 8) length[i] = static_cast<uint8_t>(n & 0xff);
  hasher->Update(std::span<const uint8_t>(length));
  hasher->Update(field);
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

std::optional<EffectKey> EffectKey::Parse(std::string_view text) {
  const size_t first = text.find('/');
  const size_t last = text.rfind('/');
  if (first == std::string_view::npos || first == last) return std::nullopt;
  EffectKey key{std::string(text.substr(0, first)), std::string(text.substr(first + 1, last - first - 1)), 0};
  const std::string_view step = text.substr(last + 1);
  auto [end, ec] = std::from_chars(step.data(), step.data() + step.size(), key.step);
  if (ec != std::errc() || end != step.data() + step.size()) return std::nullopt;
  if (!key.Check().ok() || key.ToString() != text) return std::nullopt;
  return key;
}

std::string RequestKey(const EffectKey& step, uint64_t number) {
  return step.ToString() + "/http/" + std::to_string(number);
}

bool IsRequestKind(EntryKind kind) { return kind == EntryKind::kToolHttpRequest || kind == EntryKind::kToolHttpAnswer; }

core::Status EffectKey::Check() const {
  CORE_RETURN_IF_ERROR(CheckPart("agent", agent));
  CORE_RETURN_IF_ERROR(CheckPart("run", run));
  if (step > kMaxStep) return core::Error{"the step of a journal key is larger than 2^63 - 1"};
  return core::Status::Ok();
}

std::string EntryHash(const Entry& entry) {
  core::Sha256Hasher hasher;
  Field(&hasher, kHashDomain);
  Field(&hasher, std::to_string(entry.seq));
  Field(&hasher, entry.prev_hash);
  Field(&hasher, KindName(entry.kind));
  Field(&hasher, entry.agent);
  Field(&hasher, entry.run);
  Field(&hasher, std::to_string(entry.step));
  Field(&hasher, entry.key);
  Field(&hasher, entry.payload);
  Field(&hasher, std::to_string(entry.time_ms));
  return core::HexEncode(hasher.Finish());
}

}  // namespace volent::journal
