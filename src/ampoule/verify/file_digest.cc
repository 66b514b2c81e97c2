#include "ampoule/verify/file_digest.h"

#include "ampoule/kernel/kernel_format.h"
#include "core/sha256.h"

namespace ampoule::verify {

core::Result<std::string> Sha256File(const std::string& path) {
  return core::Sha256OfRegularFile(path, kernel::kMaxKernelFileBytes, "file");
}

core::Result<LoadedFile> LoadFile(const std::string& path, bool* too_large, core::PathFrom from) {
  core::ReadRules rules;
  rules.from = from;
  core::Result<std::string> bytes = core::ReadFileCapped(path, core::kMaxFileBytes, too_large, rules);
  if (!bytes.ok()) return bytes.error();
  std::string sha256 = core::Sha256Hex(*bytes);
  return LoadedFile{std::move(*bytes), std::move(sha256)};
}

}  // namespace ampoule::verify
