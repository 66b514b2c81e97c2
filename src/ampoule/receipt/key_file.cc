#include "ampoule/receipt/key_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "core/base64.h"
#include "core/errno_text.h"
#include "core/file_read.h"
#include "core/file_write.h"

namespace ampoule::receipt {
namespace {

constexpr std::string_view kPublicTag = "ed25519";
constexpr std::string_view kSecretTag = "ed25519-secret";

struct KeyLine {
  int number;                   // 1-based
  std::string_view tag;         // first word
  std::string_view value;       // second word
};

// Removes and returns the first whitespace-separated word of `line`.
std::string_view NextWord(std::string_view& line) {
  size_t start = line.find_first_not_of(" \t\r");
  if (start == std::string_view::npos) {
    line = {};
    return {};
  }
  line.remove_prefix(start);
  size_t stop = line.find_first_of(" \t\r");
  std::string_view word = line.substr(0, stop);
  line = stop == std::string_view::npos ? std::string_view() : line.substr(stop);
  return word;
}

// Splits `text` into its meaningful lines: not blank, not '#' comments. Each
// keeps its first two words; anything after them is a comment.
std::vector<KeyLine> KeyLines(std::string_view text) {
  std::vector<KeyLine> lines;
  int number = 0;
  while (!text.empty()) {
    size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    ++number;
    std::string_view tag = NextWord(line);
    if (tag.empty() || tag.front() == '#') continue;
    lines.push_back({number, tag, NextWord(line)});
  }
  return lines;
}

std::string Where(std::string_view what, int line) {
  return std::string(what) + ":" + std::to_string(line);
}

// Creates `path` holding `text`, with exactly `mode`, durably; never
// replaces a file already there.
core::Status CreateExclusive(const std::string& path, std::string_view text, mode_t mode) {
  core::Status created =
      core::WriteFileAtomically(path, text, core::WriteOptions{.mode = mode, .exact_mode = true, .create_only = true});
  if (created.kind() == core::ErrorKind::kConflict) {
    return core::Error{"refusing to overwrite " + path + "; remove it first or choose another path"};
  }
  return created;
}

// Parses the text of a secret key file; `path` names it in errors.
core::Result<core::ed25519::SecretKey> ParseSecretKey(std::string_view text, const std::string& path) {
  std::vector<KeyLine> lines = KeyLines(text);
  if (lines.empty()) return core::Error{path + ": no secret key found"};
  if (lines.size() > 1) return core::Error{path + ": a secret key file holds exactly one key line"};
  if (lines[0].tag == kPublicTag) {
    return core::Error{path + ": this is a public key; signing needs the secret key file"};
  }
  if (lines[0].tag != kSecretTag) {
    return core::Error{Where(path, lines[0].number) + ": expected 'ed25519-secret <base64 seed>'"};
  }
  core::Result<std::string> seed = core::Base64Decode(lines[0].value, "secret key");
  if (!seed.ok()) return core::Error{Where(path, lines[0].number) + ": " + seed.message()};
  core::Result<core::ed25519::SecretKey> key = core::ed25519::SecretKey::FromSeed(*seed);
  std::fill(seed->begin(), seed->end(), '\0');
  if (!key.ok()) return core::Error{Where(path, lines[0].number) + ": " + key.message()};
  return key;
}

}  // namespace

std::string FormatPublicKey(const core::ed25519::PublicKey& key) {
  return "# ampoule Ed25519 public key, keyid " + key.KeyId() + "\n" + std::string(kPublicTag) +
         " " + core::Base64Encode(key.raw()) + "\n";
}

core::Status WriteSecretKeyFile(const std::string& path, const core::ed25519::SecretKey& key) {
  std::string text = "# ampoule Ed25519 secret key: keep private (mode 0600)\n" +
                     std::string(kSecretTag) + " " + core::Base64Encode(key.seed()) + "\n";
  core::Status status = CreateExclusive(path, text, 0600);
  std::fill(text.begin(), text.end(), '\0');
  return status;
}

core::Status WritePublicKeyFile(const std::string& path, const core::ed25519::PublicKey& key) {
  return CreateExclusive(path, FormatPublicKey(key), 0644);
}

core::Status WriteKeyPair(const std::string& path, const core::ed25519::SecretKey& key) {
  const std::string pub_path = path + ".pub";
  struct stat st;
  for (const std::string& p : {path, pub_path}) {
    if (lstat(p.c_str(), &st) == 0) {
      return core::Error{"refusing to overwrite " + p + "; remove it first or choose another path"};
    }
  }
  CORE_RETURN_IF_ERROR(WriteSecretKeyFile(path, key));
  core::Status pub = WritePublicKeyFile(pub_path, key.public_key());
  if (!pub.ok()) unlink(path.c_str());
  return pub;
}

core::Result<std::vector<core::ed25519::PublicKey>> ParsePublicKeys(std::string_view text, std::string_view what) {
  std::vector<core::ed25519::PublicKey> keys;
  for (const KeyLine& line : KeyLines(text)) {
    if (line.tag == kSecretTag) {
      return core::Error{Where(what, line.number) +
                   ": this is a secret key file; give the public key (KEY.pub) instead"};
    }
    if (line.tag != kPublicTag) {
      return core::Error{Where(what, line.number) + ": expected 'ed25519 <base64 key>', found '" +
                   std::string(line.tag.substr(0, 40)) + "'"};
    }
    core::Result<std::string> raw = core::Base64Decode(line.value, "public key");
    if (!raw.ok()) return core::Error{Where(what, line.number) + ": " + raw.message()};
    core::Result<core::ed25519::PublicKey> key = core::ed25519::PublicKey::FromBytes(*raw);
    if (!key.ok()) return core::Error{Where(what, line.number) + ": " + key.message()};
    if (keys.size() == kMaxTrustedKeys) {
      return core::Error{std::string(what) + ": more than " + std::to_string(kMaxTrustedKeys) + " keys"};
    }
    keys.push_back(*key);
  }
  return keys;
}

core::Result<core::ed25519::PublicKey> ReadPublicKeyFile(const std::string& path) {
  core::Result<std::vector<core::ed25519::PublicKey>> keys = ReadTrustedKeysFile(path);
  if (!keys.ok()) return keys.error();
  if (keys->size() != 1) {
    return core::Error{path + ": holds " + std::to_string(keys->size()) +
                 " public keys; a key file holds exactly one (use a trusted-keys file for more)"};
  }
  return keys->front();
}

core::Result<std::vector<core::ed25519::PublicKey>> ReadTrustedKeysFile(const std::string& path) {
  // Whoever can write a trusted-keys file decides which signatures pass.
  core::ReadRules rules;
  rules.refuse_writable_by_others = true;
  core::Result<std::string> text = core::ReadFileCapped(path, kMaxKeyFileBytes, nullptr, rules);
  if (!text.ok()) return text.error();
  core::Result<std::vector<core::ed25519::PublicKey>> keys = ParsePublicKeys(*text, path);
  if (keys.ok() && keys->empty()) return core::Error{path + ": no public key found"};
  return keys;
}

core::Result<core::ed25519::SecretKey> ReadSecretKeyFile(const std::string& path) {
  // Check the mode on the descriptor we read from, so the file cannot be
  // swapped between the check and the read. O_NONBLOCK keeps a FIFO from
  // blocking the open; it is refused below as not a regular file.
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return core::Errno("cannot open " + path);
  struct stat st;
  core::Result<std::string> text = core::Error{path + ": a secret key must be a regular file"};
  if (fstat(fd, &st) != 0) {
    text = core::Errno("cannot stat " + path);
  } else if (S_ISREG(st.st_mode) && (st.st_mode & 077) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    text = core::Error{path + ": secret key is accessible by group or others (mode " + mode +
                 "); run 'chmod 600 " + path + "' if it has not leaked, else make a new key"};
  } else if (S_ISREG(st.st_mode)) {
    text = core::ReadFdCapped(fd, path, kMaxKeyFileBytes);
  }
  close(fd);
  if (!text.ok()) return text.error();
  core::Result<core::ed25519::SecretKey> key = ParseSecretKey(*text, path);
  std::fill(text->begin(), text->end(), '\0');
  return key;
}

}  // namespace ampoule::receipt
