# Turns the demos' example files into a C++ table (src/demo/embedded_files.h),
# so `ampoule demo ...` needs no source tree. Run as a build step:
#
#   cmake -DBASE=<examples folder> -DFILES="refund/orders.csv|grader/grader.py|..."
#         -DOUT=<generated .cc> -P embed_files.cmake
#
# Each file becomes a string literal of \xNN escapes (any bytes, exact size),
# 32 bytes a line. CMake only: no xxd or other tool has to be installed.
cmake_minimum_required(VERSION 3.25)
if(NOT BASE OR NOT FILES OR NOT OUT)
  message(FATAL_ERROR "embed_files.cmake: BASE, FILES and OUT are required")
endif()

string(REPLACE "|" ";" files "${FILES}")
string(REPEAT "[0-9a-f]" 64 line_of_hex)
set(bodies "")
set(entries "")
set(n 0)
foreach(rel IN LISTS files)
  file(READ "${BASE}/${rel}" hex HEX)
  file(SIZE "${BASE}/${rel}" size)
  # 32 bytes a line, then every byte as \xNN. Escapes never swallow the next
  # character, because every character of the literal is an escape.
  string(REGEX REPLACE "(${line_of_hex})" "\\1\"\n    \"" hex "${hex}")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "\\\\x\\1" hex "${hex}")
  string(APPEND bodies "constexpr char kFile${n}[] =\n    \"${hex}\";\n")
  string(APPEND entries "    {\"${rel}\", std::string_view(kFile${n}, ${size})},\n")
  math(EXPR n "${n} + 1")
endforeach()

set(text "// Generated from examples/ by src/demo/embed_files.cmake at build time. Do not edit.
#include \"demo/embedded_files.h\"

#include <cstddef>

namespace ampoule::demo {
namespace {

${bodies}
}  // namespace

extern const EmbeddedFile kEmbeddedFiles[] = {
${entries}};
extern const size_t kEmbeddedFileCount = ${n};

}  // namespace ampoule::demo
")

# Rewrite only on change, so an unrelated rebuild does not recompile it.
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
  if(old STREQUAL text)
    return()
  endif()
endif()
file(WRITE "${OUT}" "${text}")
