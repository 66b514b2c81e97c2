#include "volent/attest/event_log.h"

#include <cstring>
#include <string>

#include "core/sha256.h"

namespace volent::attest {
namespace {

using core::Error;

constexpr uint32_t kEvNoAction = 0x00000003;
constexpr uint16_t kAlgSha256 = 0x000B;
constexpr uint32_t kMaxPcr = 23;
constexpr char kSpecIdSignature[16] = "Spec ID Event03";   // with its NUL: 16 bytes
constexpr char kStartupLocality[16] = "StartupLocality";   // idem

// A cursor over the log that refuses to read past its end.
class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}
  bool U8(uint8_t& v) { return Take(1, [&](const char* p) { v = static_cast<uint8_t>(p[0]); }); }
  bool U16(uint16_t& v) {
    return Take(2, [&](const char* p) { v = static_cast<uint16_t>(Byte(p, 0) | Byte(p, 1) << 8); });
  }
  bool U32(uint32_t& v) {
    return Take(4, [&](const char* p) { v = Byte(p, 0) | Byte(p, 1) << 8 | Byte(p, 2) << 16 | Byte(p, 3) << 24; });
  }
  bool Bytes(size_t n, std::string_view& out) {
    return Take(n, [&](const char* p) { out = std::string_view(p, n); });
  }
  bool done() const { return pos_ == data_.size(); }
  size_t pos() const { return pos_; }

 private:
  static uint32_t Byte(const char* p, int i) { return static_cast<uint8_t>(p[i]); }
  template <class F>
  bool Take(size_t n, F f) {
    if (n > data_.size() - pos_) return false;
    f(data_.data() + pos_);
    pos_ += n;
    return true;
  }
  std::string_view data_;
  size_t pos_ = 0;
};

Error Bad(size_t event, const std::string& what) {
  return Error{"event log, event " + std::to_string(event) + ": " + what, core::ErrorKind::kInvalidArgument};
}

}  // namespace

core::Result<EventLogReplay> ReplayEventLog(std::string_view log) {
  Reader r(log);
  // The first event, SHA-1 form, carrying the Spec ID event.
  uint32_t pcr = 0, type = 0, size = 0;
  std::string_view sha1, data;
  if (!r.U32(pcr) || !r.U32(type) || !r.Bytes(20, sha1) || !r.U32(size) || !r.Bytes(size, data)) {
    return Bad(0, "truncated (not a TCG event log)");
  }
  if (type != kEvNoAction || data.size() < 28 || std::memcmp(data.data(), kSpecIdSignature, 16) != 0) {
    return Bad(0, "not the \"Spec ID Event03\" header of a crypto-agile log (an old SHA-1 log is not replayed)");
  }
  // TCG_EfiSpecIDEventStruct: signature, platformClass, version (3 bytes),
  // uintnSize, numberOfAlgorithms, then (algorithmId, digestSize) each.
  Reader spec(data.substr(16));
  uint32_t platform_class = 0, algorithms = 0;
  uint8_t minor = 0, major = 0, errata = 0, uintn = 0;
  if (!spec.U32(platform_class) || !spec.U8(minor) || !spec.U8(major) || !spec.U8(errata) || !spec.U8(uintn) ||
      !spec.U32(algorithms) || algorithms == 0 || algorithms > 64) {
    return Bad(0, "a malformed Spec ID event");
  }
  std::map<uint16_t, uint16_t> digest_size;
  for (uint32_t i = 0; i < algorithms; ++i) {
    uint16_t alg = 0, bytes = 0;
    if (!spec.U16(alg) || !spec.U16(bytes) || bytes == 0 || bytes > 128) return Bad(0, "a malformed algorithm list");
    digest_size[alg] = bytes;
  }
  if (digest_size.count(kAlgSha256) == 0 || digest_size[kAlgSha256] != 32) {
    return Bad(0, "the log has no sha256 digests");
  }

  EventLogReplay replay;
  replay.events = 1;
  std::map<uint32_t, std::array<uint8_t, 32>> value;
  uint8_t locality = 0;
  while (!r.done()) {
    const size_t n = replay.events;
    if (n > kMaxLogEvents) return Bad(n, "more than " + std::to_string(kMaxLogEvents) + " events");
    uint32_t count = 0;
    if (!r.U32(pcr) || !r.U32(type) || !r.U32(count)) return Bad(n, "truncated");
    if (pcr > kMaxPcr) return Bad(n, "PCR " + std::to_string(pcr) + " does not exist");
    if (count != digest_size.size()) {
      return Bad(n, "names " + std::to_string(count) + " digests, the header " + std::to_string(digest_size.size()));
    }
    std::string_view sha256;
    bool have = false;
    for (uint32_t i = 0; i < count; ++i) {
      uint16_t alg = 0;
      std::string_view digest;
      if (!r.U16(alg)) return Bad(n, "truncated");
      auto known = digest_size.find(alg);
      if (known == digest_size.end()) return Bad(n, "an algorithm the header does not name");
      if (!r.Bytes(known->second, digest)) return Bad(n, "truncated");
      if (alg == kAlgSha256) {
        if (have) return Bad(n, "two sha256 digests");
        sha256 = digest;
        have = true;
      }
    }
    if (!r.U32(size) || !r.Bytes(size, data)) return Bad(n, "truncated");
    ++replay.events;
    if (type == kEvNoAction) {
      // Not extended. StartupLocality: PCR 0 started at the locality.
      if (pcr == 0 && data.size() == 17 && std::memcmp(data.data(), kStartupLocality, 16) == 0) {
        if (value.count(0)) return Bad(n, "StartupLocality after PCR 0 was extended");
        locality = static_cast<uint8_t>(data[16]);
      }
      continue;
    }
    if (!have) return Bad(n, "no sha256 digest");
    LoggedEvent& event = replay.extended.emplace_back(LoggedEvent{pcr, type, {}, data});
    std::memcpy(event.sha256.data(), sha256.data(), 32);
    auto [it, fresh] = value.try_emplace(pcr);
    if (fresh && pcr == 0) it->second[31] = locality;
    std::string both(reinterpret_cast<const char*>(it->second.data()), 32);
    both += sha256;
    it->second = core::Sha256(std::string_view(both));
  }
  replay.pcrs = std::move(value);
  return replay;
}

}  // namespace volent::attest
