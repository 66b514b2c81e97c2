#include "volent/attest/process_facts.h"

#include <cinttypes>
#include <cstdio>
#include <sstream>

#include "core/file_read.h"

namespace volent::attest {
namespace {

constexpr size_t kMaxStatus = 64 * 1024;

bool ParseDecimal(const std::string& s, uint64_t max, uint64_t& out) {
  if (s.empty() || s.size() > 20) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
    if (v > max) return false;
  }
  out = v;
  return true;
}

bool ParseHex64(const std::string& s, uint64_t& out) {
  if (s.empty() || s.size() > 16) return false;
  uint64_t v = 0;
  for (char c : s) {
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (d < 0) return false;
    v = v << 4 | static_cast<uint64_t>(d);
  }
  out = v;
  return true;
}

std::string Hex64(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, v);
  return buf;
}

}  // namespace

core::Result<ProcessFacts> ParseProcessStatus(const std::string& text) {
  ProcessFacts p;
  unsigned found = 0;
  enum : unsigned { kUid = 1, kGid = 2, kEff = 4, kPrm = 8, kBnd = 16, kNnp = 32, kSeccomp = 64, kAll = 127 };
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = line.substr(0, colon);
    std::istringstream words(line.substr(colon + 1));
    std::string first, second;
    words >> first >> second;
    uint64_t v = 0;
    auto bad = [&] { return core::Error{"/proc/self/status: a malformed " + key + " line: " + line.substr(0, 80)}; };
    if (key == "Uid" || key == "Gid") {
      // real, effective, saved, file system: the effective one is what the kernel checks.
      if (!ParseDecimal(second, UINT32_MAX, v)) return bad();
      (key == "Uid" ? p.uid : p.gid) = static_cast<uint32_t>(v);
      found |= key == "Uid" ? kUid : kGid;
    } else if (key == "CapEff" || key == "CapPrm" || key == "CapBnd") {
      if (!ParseHex64(first, v)) return bad();
      (key == "CapEff" ? p.cap_eff : key == "CapPrm" ? p.cap_prm : p.cap_bnd) = v;
      found |= key == "CapEff" ? kEff : key == "CapPrm" ? kPrm : kBnd;
    } else if (key == "NoNewPrivs" || key == "Seccomp") {
      if (!ParseDecimal(first, 2, v)) return bad();
      (key == "NoNewPrivs" ? p.no_new_privs : p.seccomp) = static_cast<int>(v);
      found |= key == "NoNewPrivs" ? kNnp : kSeccomp;
    }
  }
  if (found != kAll) {
    return core::Error{"/proc/self/status lacks one of Uid, Gid, CapEff, CapPrm, CapBnd, NoNewPrivs, Seccomp"};
  }
  return p;
}

core::Result<ProcessFacts> ReadProcessFacts(const std::string& path) {
  auto text = core::ReadFileCapped(path, kMaxStatus, nullptr, {.from = core::PathFrom::kUntrusted});
  if (!text) return core::Error{"cannot read " + path + ": " + text.message()};
  return ParseProcessStatus(*text);
}

nlohmann::json ProcessFactsJson(const ProcessFacts& p) {
  return nlohmann::json{{"uid", p.uid},
                        {"gid", p.gid},
                        {"cap_eff", Hex64(p.cap_eff)},
                        {"cap_prm", Hex64(p.cap_prm)},
                        {"cap_bnd", Hex64(p.cap_bnd)},
                        {"no_new_privs", p.no_new_privs},
                        {"seccomp", p.seccomp}};
}

}  // namespace volent::attest
