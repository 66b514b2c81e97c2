#include "volent/node/data_folder.h"

#include <unistd.h>

#include "core/file_read.h"

namespace volent::node {

std::string NodeHolder() { return "volent node, pid " + std::to_string(getpid()); }

ampoule::Result<std::unique_ptr<ampoule::core::FolderLock>> OpenDataFolder(const std::string& data_dir,
                                                                          const std::string& holder) {
  if (auto safe = ampoule::core::CheckTrustFolder(data_dir); !safe.ok()) {
    return ampoule::Error{"the data folder: " + safe.message()};
  }
  return ampoule::core::FolderLock::Take(data_dir, kDataFolderLockFile, holder);
}

}  // namespace volent::node
