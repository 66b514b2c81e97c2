// The kernel digest without re-reading the kernel on every run.
//
// Hashing a kernel (about 20 MB) costs tens of milliseconds, more than the
// rest of a small run's start. So after hashing a kernel file once, the
// digest is kept in a small file named by the kernel's device and inode,
// together with the file's size, modification time and change time; the
// next run takes the digest from there if all of them still match, as
// `git status` trusts its index. Any write to the kernel file changes its
// change time (which no user can set), so a modified kernel is hashed
// afresh. What this does not cover: a file changed while a run is using it
// (install kernels read-only, docs/kernel.md), or someone who can write to
// the cache folder (it is the user's own).
//
// Cache folder: $AMPOULE_CACHE_DIR, else $XDG_CACHE_HOME/ampoule, else
// ~/.cache/ampoule; then kernel-digests/. If it cannot be written, every run
// hashes the kernel (slower, same result).
//
// Thread-safe: files are replaced atomically (rename).
#pragma once

#include <string>

#include "ampoule/kernel/kernel.h"

namespace ampoule::run {

// The digest of the kernel open as `fd` and mapped as `kernel`, from the
// cache or by hashing it (then remembered). Calls kernel.AcceptDigest.
std::string CachedKernelDigest(int fd, kernel::Kernel& kernel);

}  // namespace ampoule::run
