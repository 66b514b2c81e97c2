// A private temporary folder (mode 0700) that is removed with everything in
// it when the object goes away: where a tool call writes the texts it was
// given so that file-based libraries (verify, the gate) can read them.
//
// Thread-safe: each object is its own folder.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "core/result.h"

namespace ampoule::mcp {

class TempDir {
 public:
  // Makes a folder under $TMPDIR (else /tmp) named after `purpose`.
  static core::Result<std::unique_ptr<TempDir>> Make(std::string_view purpose);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // Writes `bytes` to path()/relative (creating the parent folders); returns
  // the full path. `relative` must not climb out (no "..", not absolute).
  core::Result<std::string> Write(std::string_view relative, std::string_view bytes);

 private:
  explicit TempDir(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

}  // namespace ampoule::mcp
