// The node's own user: PID 1 runs `volent node` as kNodeUid:kNodeGid with no
// capability (docs/image.md, docs/decisions/0050-image-env-and-node-user.md).
// The image has no /etc/passwd: the ids are numbers only.
//
// What the node needs of the machine is given by ownership, never by a
// capability: /data is the node's (PrepareNodeData), and the TPM's device
// nodes are root:kNodeGid 0660 (PrepareTpmDevices). Its port, 8470, needs no
// capability; sealed tools' jail needs none either (unprivileged user
// namespaces, which the image's kernel allows).
#pragma once

#include <sys/types.h>

#include "core/result.h"

namespace volent::init {

inline constexpr uid_t kNodeUid = 470;
inline constexpr gid_t kNodeGid = 470;

// Makes everything on the file system at `data` (not crossing into another
// mount, never following a symbolic link) owned by the node, when its top
// is not the node's yet: a new disk (made by the host, owned by root) or one
// from an image whose node ran as root. The top is changed last, so a walk
// cut short is done again at the next boot. Then `data` is mode 0700.
core::Status PrepareNodeData(const char* data = "/data");

// /dev/tpmrm0 and /dev/tpm0, where present: root:kNodeGid, mode 0660.
void PrepareTpmDevices();

// In the child, before execve: no supplementary groups, kNodeGid and
// kNodeUid (real, effective, saved), every capability out of the bounding
// and ambient sets (so that no file could give one back), PR_SET_NO_NEW_PRIVS.
// Async-signal-safe (system calls only). Returns false on any failure: the
// child must not exec then.
bool BecomeNodeUser();

}  // namespace volent::init
