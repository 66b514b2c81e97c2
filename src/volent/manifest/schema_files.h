// The JSON Schemas of schemas/ (agent.schema.json, volent.schema.json),
// built into the binary so `volent check` and the node need no source tree.
// The table is generated at build time by cmake/embed_files.cmake into
// schema_files_data.cc in the build tree; paths are relative to schemas/.
//
// Thread-safe: constant data.
#pragma once

#include <cstddef>
#include <string_view>

namespace volent::manifest {

struct EmbeddedFile {
  std::string_view path;   // relative to schemas/, e.g. "agent.schema.json"
  std::string_view bytes;  // the file's exact contents
};

extern const EmbeddedFile kEmbeddedFiles[];
extern const size_t kEmbeddedFileCount;

}  // namespace volent::manifest
