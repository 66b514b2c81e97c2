#include "volent/init/cmdline.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <arpa/inet.h>
#include <unistd.h>

#include <cctype>

#include "core/errno_text.h"

namespace volent::init {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n'; }

// The next word of `s` from `*pos`, quotes removed; empty at the end.
std::string NextWord(std::string_view s, size_t* pos) {
  while (*pos < s.size() && IsSpace(s[*pos])) ++*pos;
  std::string word;
  bool quoted = false;
  for (; *pos < s.size(); ++*pos) {
    char c = s[*pos];
    if (c == '"') {
      quoted = !quoted;
    } else if (IsSpace(c) && !quoted) {
      break;
    } else {
      word.push_back(c);
    }
  }
  return word;
}

bool IsHex(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// A decimal number without sign or leading zeros, below 2^53.
std::optional<uint64_t> ParseNumber(std::string_view s) {
  if (s.empty() || s.size() > 15 || (s.size() > 1 && s[0] == '0')) return std::nullopt;
  uint64_t n = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  return n;
}

bool IsDottedQuad(std::string_view s) {
  in_addr address;
  return s.size() <= 15 && inet_pton(AF_INET, std::string(s).c_str(), &address) == 1;
}

// /dev/NAME with NAME of letters, digits, '-' and '_': a device the kernel
// made under devtmpfs, never a path that climbs out.
bool IsDevicePath(std::string_view s) {
  constexpr std::string_view kDev = "/dev/";
  if (s.size() <= kDev.size() || s.size() > 64 || s.substr(0, kDev.size()) != kDev) return false;
  for (char c : s.substr(kDev.size())) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') return false;
  }
  return true;
}

}  // namespace

core::Result<BootOptions> ParseCmdline(std::string_view cmdline) {
  BootOptions options;
  std::map<std::string, std::string> volent;  // volent.KEY -> VALUE, the last one
  size_t pos = 0;
  for (std::string word = NextWord(cmdline, &pos); !word.empty(); word = NextWord(cmdline, &pos)) {
    size_t eq = word.find('=');
    size_t dot = word.find('.');
    if (eq == std::string::npos || dot == std::string::npos || dot > eq) continue;  // the kernel's own
    std::string module = word.substr(0, dot);
    std::string key = word.substr(dot + 1, eq - dot - 1);
    std::string value = word.substr(eq + 1);
    if (module == "volent") {
      volent[key] = value;
      continue;
    }
    for (char& c : module) c = c == '-' ? '_' : c;
    std::string& parameters = options.module_parameters[module];
    if (!parameters.empty()) parameters.push_back(' ');
    parameters += key + "=" + value;
  }

  for (const auto& [key, value] : volent) {
    const std::string name = "volent." + key + "=" + value;
    auto bad = [&](const std::string& why) {
      return core::Error{name + " on the kernel command line: " + why, core::ErrorKind::kInvalidArgument};
    };
    if (key == "test") {
      if (value == "heartbeat") {
        options.test = TestMode::kHeartbeat;
      } else if (value == "checks") {
        options.test = TestMode::kChecks;
      } else if (value == "stop") {
        options.test = TestMode::kStop;
      } else {
        return bad("unknown test (known: heartbeat, checks, stop)");
      }
    } else if (key == "keys") {
      if (value != "dev-only" && value != "production") return bad("unknown key provenance (known: dev-only, production)");
      options.keys = value;
    } else if (key == "roothash") {
      if (!IsHex(value) || value.size() != 64) return bad("not a SHA-256 root hash (64 lowercase hex digits)");
      if (!options.root) options.root.emplace();
      options.root->roothash = value;
    } else if (key == "salt" || key == "data_blocks" || key == "hash_start" || key == "root") {
      // Checked below, once it is known that there is a verity root.
    } else if (key == "data") {
      if (!IsDevicePath(value)) return bad("not a device under /dev");
      options.data_device = value;
    } else if (key == "ip") {
      size_t slash = value.find('/');
      auto prefix = slash == std::string::npos ? std::optional<uint64_t>(24) : ParseNumber(value.substr(slash + 1));
      std::string address = value.substr(0, slash);
      if (!IsDottedQuad(address) || !prefix || *prefix < 1 || *prefix > 30) {
        return bad("not an IPv4 address with a prefix length of 1 to 30 (A.B.C.D/N)");
      }
      if (!options.network) options.network.emplace();
      options.network->address = address;
      options.network->prefix = static_cast<int>(*prefix);
    } else if (key == "gateway") {
      if (!IsDottedQuad(value)) return bad("not an IPv4 address (A.B.C.D)");
      if (!options.network) options.network.emplace();
      options.network->gateway = value;
    } else {
      return bad("unknown parameter (known: test, keys, roothash, salt, data_blocks, hash_start, root, data, ip, gateway)");
    }
  }
  if (options.network && options.network->address.empty()) {
    return core::Error{"volent.gateway without volent.ip on the kernel command line",
                          core::ErrorKind::kInvalidArgument};
  }

  const bool verity_parts = volent.count("salt") || volent.count("data_blocks") || volent.count("hash_start");
  if (!options.root) {
    if (verity_parts || volent.count("root")) {
      return core::Error{"volent.salt, data_blocks, hash_start or root without volent.roothash on the kernel "
                            "command line: a verity root needs its root hash",
                            core::ErrorKind::kInvalidArgument};
    }
    return options;
  }
  VerityRoot& root = *options.root;
  auto missing = [](const char* what) {
    return core::Error{std::string("volent.roothash without volent.") + what + " on the kernel command line",
                          core::ErrorKind::kInvalidArgument};
  };
  if (!volent.count("salt")) return missing("salt");
  if (!volent.count("data_blocks")) return missing("data_blocks");
  if (!volent.count("hash_start")) return missing("hash_start");
  root.salt = volent["salt"];
  if (root.salt != "-" && (!IsHex(root.salt) || root.salt.size() % 2 || root.salt.size() > 512)) {
    return core::Error{"volent.salt=" + root.salt + ": not hex bytes (at most 256) or -",
                          core::ErrorKind::kInvalidArgument};
  }
  auto blocks = ParseNumber(volent["data_blocks"]);
  auto start = ParseNumber(volent["hash_start"]);
  if (!blocks || *blocks == 0 || !start || *start < *blocks) {
    return core::Error{"volent.data_blocks and volent.hash_start must be numbers, data_blocks > 0 and the tree "
                          "after the data (hash_start >= data_blocks)",
                          core::ErrorKind::kInvalidArgument};
  }
  root.data_blocks = *blocks;
  root.hash_start = *start;
  if (volent.count("root")) {
    if (!IsDevicePath(volent["root"])) {
      return core::Error{"volent.root=" + volent["root"] + ": not a device under /dev",
                            core::ErrorKind::kInvalidArgument};
    }
    root.device = volent["root"];
  }
  return options;
}

core::Result<std::string> ReadCmdline() {
  int fd = open("/proc/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return core::Error{std::string("open /proc/cmdline: ") + core::ErrnoText()};
  std::string text(kMaxCmdline, '\0');
  size_t used = 0;
  while (used < text.size()) {
    ssize_t n = read(fd, text.data() + used, text.size() - used);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      close(fd);
      return core::Error{std::string("read /proc/cmdline: ") + core::ErrnoText(err)};
    }
    if (n == 0) break;
    used += static_cast<size_t>(n);
  }
  close(fd);
  text.resize(used);
  return text;
}

}  // namespace volent::init
