// Runtime snapshots for a kernel being packed (see kernel_pack.h).
//
// Snapshots need the engine's snapshot support (src/wasi/snapshot.h). Until
// that exists, a kernel is packed without them and its manifest says so;
// runs then start the runtime from scratch.
#include "kernel/kernel_pack.h"

namespace ampoule::kernel {

bool SnapshotsSupported() { return false; }

Status AddRuntimeSnapshots(KernelBuild* build) {
  return Error{"this build of ampoule cannot make runtime snapshots yet (no snapshot support in the engine)"};
}

}  // namespace ampoule::kernel
