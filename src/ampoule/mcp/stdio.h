// The stdio transport of `ampoule mcp` (MCP 2025-11-25, "Transports"):
// newline-delimited JSON-RPC messages on the input, responses on the
// output, one message per line, nothing else on the output. Logs go to
// stderr, never to the output.
//
// Several requests may be in flight: a line that may be a tools/call goes
// to a fixed pool of max_in_flight worker threads (reading waits while
// that many are queued or running), every other message is answered in
// order as it is read. Each response is written whole, under a mutex, so lines never
// interleave. A line longer than max_line_bytes is dropped with an error
// response (id null) and serving goes on. At the end of the input the
// calls in flight finish and write their responses, then ServeStdio
// returns.
//
// Thread-safe: each call serves its own session.
#pragma once

#include <cstddef>
#include <memory>

#include "ampoule/mcp/server.h"
#include "core/result.h"

namespace ampoule::mcp {

struct StdioOptions {
  size_t max_line_bytes = size_t(64) << 20;
  int max_in_flight = 32;
};

// Serves one session on `in_fd` and `out_fd` until the end of the input.
// An error only when the input cannot be read or the output cannot be
// written (the client went away); SIGPIPE should be ignored by the caller.
core::Status ServeStdio(std::shared_ptr<Server> server, int in_fd, int out_fd, const StdioOptions& options = {});

}  // namespace ampoule::mcp
