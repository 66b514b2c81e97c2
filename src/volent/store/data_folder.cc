#include "volent/store/data_folder.h"

#include <unistd.h>

#include "core/file_read.h"

namespace volent::store {

std::string NodeHolder() { return "volent node, pid " + std::to_string(getpid()); }

core::Result<std::unique_ptr<core::FolderLock>> OpenDataFolder(const std::string& data_dir,
                                                                          const std::string& holder) {
  if (auto safe = core::CheckTrustFolder(data_dir); !safe.ok()) {
    return core::Error{"the data folder: " + safe.message()};
  }
  return core::FolderLock::Take(data_dir, kDataFolderLockFile, holder);
}

}  // namespace volent::store
