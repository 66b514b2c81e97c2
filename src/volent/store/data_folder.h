// The node's data folder, opened by its one writer at a time
// (docs/decisions/0049-credentials-bound-to-their-holder.md): the folder
// must be one that only the node's user (or root) owns and may write
// (core/file_read.h, CheckTrustFolder), since whoever may write it may
// replace credentials.json, the journal or the TLS CA; and it is locked
// (core/folder_lock.h, DATA_DIR/node.lock) by the running node for as long
// as it runs, and by each offline command that changes it (`volent
// credential create`, `volent credential certificate` when it makes the
// CA), so an offline change can never be lost under a running node's next
// write.
#pragma once

#include <memory>
#include <string>

#include "core/folder_lock.h"
#include "core/result.h"

namespace volent::store {

inline constexpr char kDataFolderLockFile[] = "node.lock";

// Checks `data_dir` (which must exist) and takes its lock for `holder`
// ("volent node, pid N"). Errors: the folder's owner or mode (what to
// chmod or chown); kConflict when another holds the lock (naming it).
core::Result<std::unique_ptr<core::FolderLock>> OpenDataFolder(const std::string& data_dir,
                                                                          const std::string& holder);

// "volent node, pid N" for this process.
std::string NodeHolder();

}  // namespace volent::store
