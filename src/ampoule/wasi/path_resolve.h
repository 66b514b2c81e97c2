// Resolution of guest paths inside the mailbox, relative to a directory
// descriptor.
//
// A descriptor is a capability for its directory and what lies below it:
// absolute paths and ".." steps that would climb above the base directory
// are refused with kNotCapable, as WASI's sandboxing rules require. The
// mailbox has no symbolic links, so resolution is purely lexical.
#pragma once

#include <string_view>

#include "ampoule/wasi/errno.h"
#include "ampoule/wasi/mailbox.h"

namespace ampoule::wasi {

struct Resolved {
  Errno error = Errno::kSuccess;
  const MailboxNode* node = nullptr;  // set when error == kSuccess
  // kNoEnt only: every component but the last was found, and the last
  // names nothing (so a create would have been possible on a writable tree).
  bool only_leaf_missing = false;
};

// Resolves `path` starting at directory `base`.
// Errors: kNoEnt (empty path or a missing component), kNotDir (a file used
// as a directory, including a trailing '/' after a file), kNotCapable
// (absolute path, or escaping `base`), kNameTooLong (path over
// kMaxPathBytes, or a component over kMaxNameBytes), kInval (a NUL byte).
// REQUIRES: base->is_dir()
Resolved ResolvePath(const MailboxNode* base, std::string_view path);

}  // namespace ampoule::wasi
