#include "volent/model/keys.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "core/errno_text.h"
#include "core/file_read.h"

namespace volent::model {
namespace {

// No key is this long; a larger file is not a key file.
constexpr off_t kMaxKeyFile = 16 * 1024;

std::string Octal(mode_t mode) {
  char buf[8];
  snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(mode & 07777));
  return buf;
}

}  // namespace

const std::string* ModelKeys::Find(const std::string& capability) const {
  auto it = by_capability_.find(capability);
  return it == by_capability_.end() ? nullptr : &it->second;
}

LoadedKeys LoadModelKeys(const std::vector<manifest::ModelKeyFile>& files) {
  LoadedKeys out;
  std::map<std::string, std::string> keys;
  for (const manifest::ModelKeyFile& f : files) {
    const std::string what = "model key file " + f.key_file + " (capability " + f.capability + ")";
    struct stat st {};
    if (stat(f.key_file.c_str(), &st) != 0) {
      out.errors.push_back(what + " cannot be read: " + core::ErrnoText() +
                           "; write the key into it, or remove the model_keys entry");
      continue;
    }
    if (!S_ISREG(st.st_mode)) {
      out.errors.push_back(what + " is not a regular file");
      continue;
    }
    if (st.st_size > kMaxKeyFile) {
      out.errors.push_back(what + " is " + std::to_string(st.st_size) + " bytes: a key file holds one key (at most " +
                           std::to_string(kMaxKeyFile) + " bytes)");
      continue;
    }
    if (st.st_mode & S_IROTH) {
      out.warnings.push_back(what + " is readable by every user (mode " + Octal(st.st_mode) + "): run chmod o-r " +
                             f.key_file);
    }
    // Read through the safe reader: a file swapped for a FIFO after the
    // stat above is refused rather than waited on.
    core::ReadRules regular_only;
    regular_only.from = core::PathFrom::kUntrusted;
    core::Result<std::string> text = core::ReadFileCapped(f.key_file, kMaxKeyFile, nullptr, regular_only);
    if (!text.ok()) {
      out.errors.push_back(what + " cannot be read: " + text.message());
      continue;
    }
    std::string key = std::move(*text);
    while (!key.empty() && (key.back() == '\n' || key.back() == '\r' || key.back() == ' ' || key.back() == '\t')) {
      key.pop_back();
    }
    if (key.empty()) {
      out.errors.push_back(what + " is empty: write the provider's API key into it");
      continue;
    }
    bool clean = true;
    for (unsigned char c : key) clean = clean && c >= 0x20 && c != 0x7F;
    if (!clean) {
      // Where or what it is would tell part of the secret: say only that.
      out.errors.push_back(what + " holds more than one line or a control character: it must hold the key alone");
      continue;
    }
    keys[f.capability] = std::move(key);
  }
  out.keys = ModelKeys(std::move(keys));
  return out;
}

}  // namespace volent::model
