// The Streamable HTTP transport of `ampoule mcp --http HOST:PORT`
// (MCP revision 2025-11-25, basic/transports; docs/mcp.md).
//
// One endpoint, /mcp:
//   POST    one JSON-RPC message. A request gets its response: tools/call as
//           a text/event-stream (one `event: message`, then the stream ends),
//           every other method as one application/json body. A notification
//           or a response gets 202 Accepted with no body.
//   DELETE  ends the session named by Mcp-Session-Id (204).
//   GET     405: the server sends nothing unprompted, so it offers no stream.
// initialize (without Mcp-Session-Id) opens a session; its id comes back in
// the Mcp-Session-Id header and every later request must carry it (400
// without, 404 once unknown or ended).
//
// DNS rebinding: a server bound to a loopback address answers only requests
// whose Host is a loopback name, and any request with an Origin header must
// come from a loopback origin on the bound port or from allowed_origins
// (else 403). Bind to loopback unless the server sits behind something that
// authenticates.
//
// Tool calls run on a pool of worker threads, never on the thread doing the
// network I/O, so calls (of one session or many) proceed side by side.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ampoule/mcp/server.h"
#include "core/result.h"

namespace ampoule::mcp {

struct HttpOptions {
  std::string host = "127.0.0.1";
  int port = 0;  // 0: any free port, reported through on_listening
  std::vector<std::string> allowed_origins;  // e.g. "https://app.example.com"
  size_t max_body_bytes = 64 << 20;
  size_t max_sessions = 1024;  // when full, the longest idle session is ended
  std::function<void(int bound_port)> on_listening;
};

// Serves until SIGINT or SIGTERM. Prints "ampoule mcp: listening on
// http://HOST:PORT/mcp" on stderr once bound. Errors: the address cannot be
// bound (in use, not local, malformed).
core::Status ServeHttp(std::shared_ptr<Server> server, const HttpOptions& options);

}  // namespace ampoule::mcp
