// Lookup in the generated table of example files (see embedded_files.h).
#include "ampoule/demo/embedded_files.h"

#include <string>

namespace ampoule::demo {

// Defined in the generated embedded_files_data.cc.
extern const EmbeddedFile kEmbeddedFiles[];
extern const size_t kEmbeddedFileCount;

std::span<const EmbeddedFile> EmbeddedFiles() { return {kEmbeddedFiles, kEmbeddedFileCount}; }

core::Result<std::string_view> FindEmbeddedFile(std::string_view path) {
  for (const EmbeddedFile& f : EmbeddedFiles()) {
    if (f.path == path) return f.bytes;
  }
  return core::Error{"no example file '" + std::string(path) + "' is built into this binary"};
}

}  // namespace ampoule::demo
