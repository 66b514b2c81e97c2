// The example files the demos write into their working folder
// (examples/refund/*, examples/grader/*), built into the binary so a demo
// runs from an installed `ampoule` with no source tree.
//
// The table is generated at build time by cmake/embed_files.cmake into
// embedded_files_data.cc in the build tree; a file changed under examples/
// regenerates it. Paths are relative to examples/, e.g.
// "refund/orders.csv".
//
// Thread-safe: constant data.
#pragma once

#include <span>
#include <string_view>

#include "core/result.h"

namespace ampoule::demo {

struct EmbeddedFile {
  std::string_view path;   // relative to examples/
  std::string_view bytes;  // the file's exact contents
};

// Every embedded file, in the order the build lists them.
std::span<const EmbeddedFile> EmbeddedFiles();

// The contents of `path`, or an error naming it.
core::Result<std::string_view> FindEmbeddedFile(std::string_view path);

}  // namespace ampoule::demo
