// Test helper: ustar members as GNU tar writes them, for tests of readers
// of the kernel's archives.
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

namespace ampoule::kernel::testing_tar {

// One member: a 512-byte header with a valid checksum, then `data` padded
// to a whole block. `type` '0' is a file, '5' a directory.
inline std::string Member(const std::string& name, const std::string& data, char type = '0') {
  std::string h(512, '\0');
  memcpy(&h[0], name.data(), std::min<size_t>(name.size(), 100));
  memcpy(&h[100], "0000644", 7);
  memcpy(&h[108], "0000000", 7);
  memcpy(&h[116], "0000000", 7);
  snprintf(&h[124], 12, "%011o", unsigned(data.size()));
  memcpy(&h[136], "00000000000", 11);
  h[156] = type;
  memcpy(&h[257], "ustar", 6);
  memcpy(&h[263], "00", 2);
  memset(&h[148], ' ', 8);
  unsigned sum = 0;
  for (unsigned char c : h) sum += c;
  snprintf(&h[148], 8, "%06o", sum);
  std::string padded = data;
  padded.resize((data.size() + 511) / 512 * 512, '\0');
  return h + padded;
}

// The end of an archive: two zero blocks.
inline std::string End() { return std::string(1024, '\0'); }

}  // namespace ampoule::kernel::testing_tar
