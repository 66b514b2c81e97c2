// The engine side of a run: executing one EngineRequest on a kernel.
//
// This is what the jailed ampoule-engine process does with its request, and
// all of it is deterministic: the same kernel and request give the same
// result and the same output bytes. No I/O here: the caller provides the
// output sinks (the engine binary writes them to its descriptors 1 and 2).
//
// Python and JavaScript programs run on the kernel's runtime module,
// restored from the kernel's start-up snapshot when it has one; `.wasm`
// programs run as WASI commands.
//
// Thread-safe: independent calls may run concurrently.
#pragma once

#include "ampoule/kernel/kernel.h"
#include "ampoule/run/engine_protocol.h"
#include "ampoule/wasi/output_capture.h"

namespace ampoule::run {

// Never fails as a C++ call: a request that cannot run comes back with
// `error` set and no guest outcome.
EngineResult ExecuteRequest(const kernel::Kernel& kernel, const EngineRequest& request,
                            wasi::OutputSink stdout_sink, wasi::OutputSink stderr_sink);

}  // namespace ampoule::run
