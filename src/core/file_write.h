// Durable writes: a file replaced whole, a file created once, a folder
// moved into place. "Durable" means that when the call returns success the
// change survives a power cut: the file's bytes and the folder entry naming
// it are both on the disk (fsync of the file, then of its folder). A reader,
// or a crash at any moment, sees the old state or the new one, never a part
// of either. Every failure leaves the old state (except where a function
// says otherwise), removes its temporary file, closes every descriptor it
// opened, and says which step failed, with the path and the system's reason.
//
// Every writer of durable state in src/ goes through these functions
// (docs/decisions/0053-one-durable-write.md); tests make each step fail
// with core/fault_injection.h.
//
// Thread-safe: no state (a temporary name carries the process and thread).
#pragma once

#include <string>
#include <string_view>

#include <sys/types.h>

#include "core/result.h"

namespace core {

struct WriteOptions {
  // Permission bits of the new file, less the umask unless exact_mode.
  mode_t mode = 0644;
  // Set `mode` exactly, whatever the umask (a key file's 0600 or 0644).
  bool exact_mode = false;
  // Never replace: if `path` exists (as anything, a link included), fail
  // with ErrorKind::kConflict and leave it alone. Of several writers of one
  // new path, exactly one succeeds.
  bool create_only = false;
};

// Writes `bytes` as the file `path`: a temporary file beside it (a dot file,
// O_CLOEXEC, created with `options.mode`) gets every byte and is synced and
// closed, then renamed over `path` (or, create_only, linked to it), then the
// folder is synced. On success the new file is durable. On failure the old
// file (or its absence) is untouched and the temporary file removed,
// except after the rename: if then the folder's sync fails, the new file is
// in place but may not survive a power cut, and the error says so. Errors
// read "cannot write 'PATH' (STEP): REASON".
Status WriteFileAtomically(const std::string& path, std::string_view bytes, const WriteOptions& options);
inline Status WriteFileAtomically(const std::string& path, std::string_view bytes, mode_t mode = 0644) {
  return WriteFileAtomically(path, bytes, WriteOptions{.mode = mode});
}

// As WriteFileAtomically, for the file `leaf` in the open
// folder `folder`: no path is looked up again, so a folder moved or
// replaced by a link meanwhile cannot redirect the write. Errors call the
// file `name`. The caller keeps `folder` open and owns it.
// REQUIRES: `leaf` is one component (no '/'), not empty.
Status WriteFileAtomicallyAt(int folder, const std::string& leaf, std::string_view bytes,
                             const WriteOptions& options, const std::string& name);

// Renames `from` (a file or a folder whose contents the caller has already
// made durable) to `to`, then syncs the folder of `to` (and of `from`, when
// it is another): on success the move survives a power cut. A folder `to`
// that exists and is not empty makes it fail (rename(2)). On failure of the
// rename nothing moved; of a sync, the move is done but may not survive a
// power cut, and the error says so.
Status RenameDurably(const std::string& from, const std::string& to);

// Syncs the folder `path`: the entries made, renamed or removed in it
// survive a power cut. Errors read "cannot sync the folder 'PATH': REASON".
Status SyncFolder(const std::string& path);

}  // namespace core
