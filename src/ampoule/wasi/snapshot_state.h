// Between a live instance and a SnapshotImage: what the guest can observe
// of an instance (memories, mutable globals, tables, dropped segments), read
// out and put back. The WASI side of a snapshot (clock, environment, open
// descriptors) is snapshot.cc's business.
#pragma once

#include "ampoule/wasi/snapshot_format.h"
#include "ampoule/wasm/runtime.h"
#include "core/result.h"

namespace ampoule::wasi {

// Fills image.memories, globals, tables, elem_dropped and data_dropped from
// `instance`. The memory runs point into the instance's memories: serialise
// before the instance changes. Error for state a snapshot cannot hold: a
// non-null externref, a reference to a function outside the instance.
core::Status CaptureInstance(const wasm::Instance& instance, SnapshotImage& image);

// Puts the captured state back into `instance`, freshly instantiated from
// the same module. Errors when the image does not fit the module (counts,
// types or sizes differ, an index is out of range) or a memory or table is
// larger than the store's caps allow.
core::Status RestoreInstance(const SnapshotImage& image, wasm::Instance& instance);

}  // namespace ampoule::wasi
