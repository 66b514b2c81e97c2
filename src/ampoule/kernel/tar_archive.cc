#include "ampoule/kernel/tar_archive.h"

#include <string_view>

namespace ampoule::kernel {
namespace {

constexpr size_t kBlock = 512;

std::string_view Field(std::span<const uint8_t> header, size_t at, size_t len) {
  std::string_view f(reinterpret_cast<const char*>(header.data()) + at, len);
  size_t nul = f.find('\0');
  return nul == std::string_view::npos ? f : f.substr(0, nul);
}

// An octal field: digits, then NULs or spaces. False for anything else.
bool Octal(std::string_view text, uint64_t* out) {
  uint64_t v = 0;
  size_t i = 0;
  while (i < text.size() && text[i] == ' ') ++i;  // some writers pad on the left
  size_t digits = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '7'; ++i, ++digits) {
    if (v >> 60) return false;
    v = v * 8 + uint64_t(text[i] - '0');
  }
  for (; i < text.size(); ++i) {
    if (text[i] != ' ' && text[i] != '\0') return false;
  }
  *out = v;
  return digits > 0;
}

bool ChecksumOk(std::span<const uint8_t> header) {
  uint64_t recorded = 0;
  if (!Octal(Field(header, 148, 8), &recorded)) return false;
  uint64_t sum = 0;
  for (size_t i = 0; i < kBlock; ++i) sum += (i >= 148 && i < 156) ? uint8_t(' ') : header[i];
  return sum == recorded;
}

bool AllZero(std::span<const uint8_t> block) {
  for (uint8_t b : block) {
    if (b != 0) return false;
  }
  return true;
}

// "./a/b" -> "a/b"; empty, absolute, "." or ".." components, or a trailing
// slash on a file are refused.
bool CleanPath(std::string& path, bool directory) {
  if (path.rfind("./", 0) == 0) path.erase(0, 2);
  if (directory && !path.empty() && path.back() == '/') path.pop_back();
  if (path.empty() || path.size() > kMaxTarPathBytes || path.front() == '/') return false;
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string::npos) slash = path.size();
    std::string_view part(path.data() + start, slash - start);
    if (part.empty() || part == "." || part == "..") return false;
    start = slash + 1;
  }
  return true;
}

}  // namespace

core::Result<std::vector<TarFile>> ReadTar(std::span<const uint8_t> archive) {
  std::vector<TarFile> files;
  size_t pos = 0;
  while (true) {
    if (archive.size() - pos < kBlock) {
      return core::Error{"tar archive: truncated at byte " + std::to_string(pos) +
                   " (no end-of-archive blocks)"};
    }
    std::span<const uint8_t> header = archive.subspan(pos, kBlock);
    if (AllZero(header)) return files;  // the end (a second zero block may follow)
    std::string where = "tar archive: entry at byte " + std::to_string(pos);
    if (Field(header, 257, 6) != "ustar" || !ChecksumOk(header)) {
      return core::Error{where + " is not a ustar header with a valid checksum"};
    }
    std::string path(Field(header, 345, 155));
    if (!path.empty()) path += '/';
    path += Field(header, 0, 100);
    uint64_t size = 0;
    if (!Octal(Field(header, 124, 12), &size)) return core::Error{where + " has a malformed size"};
    char type = char(header[156]);
    bool directory = type == '5';
    if (directory && (path == "./" || path == ".")) {  // the archive's root
      pos += kBlock;
      continue;
    }
    if (type != '0' && type != '\0' && !directory) {
      return core::Error{where + " ('" + path + "') is of type '" + std::string(1, type) +
                   "'; only regular files and directories are allowed"};
    }
    if (!CleanPath(path, directory)) return core::Error{where + " has an unusable name '" + path + "'"};
    pos += kBlock;
    if (size > archive.size() - pos) return core::Error{where + " ('" + path + "') runs past the end"};
    if (!directory) {
      if (files.size() >= kMaxTarFiles) {
        return core::Error{"tar archive: more than " + std::to_string(kMaxTarFiles) + " files"};
      }
      files.push_back(TarFile{std::move(path), archive.subspan(pos, size_t(size))});
    }
    uint64_t padded = (size + kBlock - 1) / kBlock * kBlock;
    if (padded > archive.size() - pos) return core::Error{where + " runs past the end"};
    pos += size_t(padded);
  }
}

}  // namespace ampoule::kernel
