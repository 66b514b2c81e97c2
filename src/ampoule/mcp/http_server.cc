#include "ampoule/mcp/http_server.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <string>

#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>

#include "ampoule/mcp/http_handler.h"
#include "ampoule/mcp/http_session_table.h"
#include "core/host_port.h"
#include "core/http/server.h"

namespace ampoule::mcp {

namespace net = boost::asio;
namespace http = boost::beast::http;

namespace {

constexpr size_t kHeaderLimit = 16 * 1024;
// Tool calls block a worker for up to a minute each; this many run at once,
// the rest wait their turn.
constexpr size_t kWorkers = 32;

// The endpoint's rules (http_handler.h) on the connection skeleton: answers
// that need no session call go out at once; calls run on the worker pool,
// a tools/call answering as an event stream with heartbeats meanwhile.
class McpHandler : public core::httpd::Handler {
 public:
  McpHandler(std::shared_ptr<Server> server, const HttpOptions& options, const HttpLimits& limits,
             net::thread_pool& workers)
      : server_(std::move(server)), sessions_(options.max_sessions), heartbeat_(limits.heartbeat),
        workers_(workers) {
    config_.allowed_origins = options.allowed_origins;
  }

  // Known once bound.
  void Bound(int port, bool loopback) {
    config_.port = port;
    config_.loopback_only = loopback;
  }

  void Handle(HttpRequest req, core::httpd::Reply reply) override {
    HttpRouted routed = Route(req, *server_, sessions_, config_);
    if (routed.response) return reply.Send(std::move(*routed.response));

    auto dispatch = std::make_shared<HttpDispatch>(std::move(*routed.dispatch));
    // HTTP/1.0 has no chunked encoding: such a client gets the event stream
    // whole, once the call is done.
    const bool live = dispatch->stream && dispatch->version == 11;
    if (live) reply.StartStream(StreamHeader(*dispatch), heartbeat_, ": keep-alive\n\n");
    net::post(workers_, [this, dispatch, reply, live] {
      auto answer = stopping_ ? Declined(*dispatch) : RunDispatch(*dispatch);
      HttpResponse res = Complete(*dispatch, answer, sessions_);
      if (live) return reply.EndStream(res.body());
      reply.Send(std::move(res));
    });
  }

  HttpResponse Refuse(const core::httpd::Refusal& refusal) override {
    using Kind = core::httpd::Refusal::Kind;
    switch (refusal.kind) {
      case Kind::kBodyTooLarge:
        return ErrorResponse(http::status::payload_too_large, -32000,
                             "payload too large: the message is bigger than this server accepts", 11, false);
      case Kind::kHeaderTooLarge:
        return ErrorResponse(http::status::request_header_fields_too_large, -32000,
                             "request header fields too large", 11, false);
      case Kind::kMalformed:
        return ErrorResponse(http::status::bad_request, -32000, "bad request: malformed HTTP", 11, false);
      case Kind::kFraming: break;
    }
    return ErrorResponse(http::status::bad_request, -32000, "bad request: " + refusal.reason, 11, false);
  }

  // Calls still queued never start; each is answered with an error instead.
  void Stopping() override { stopping_ = true; }

 private:
  static std::optional<nlohmann::json> Declined(const HttpDispatch& dispatch) {
    if (!dispatch.is_request) return std::nullopt;
    return nlohmann::json{
        {"jsonrpc", "2.0"},
        {"id", dispatch.message.value("id", nlohmann::json())},
        {"error", {{"code", -32000}, {"message", "the server is stopping; the call did not run, send it again later"}}}};
  }


  std::shared_ptr<Server> server_;
  HttpSessionTable sessions_;
  HttpHandlerConfig config_;
  std::chrono::milliseconds heartbeat_;
  net::thread_pool& workers_;
  std::atomic<bool> stopping_{false};
};

class HttpServerImpl : public HttpServer {
 public:
  HttpServerImpl(std::shared_ptr<Server> server, const HttpOptions& options, const HttpLimits& limits)
      : handler_(std::move(server), options, limits, workers_) {}

  core::Status Bind(const HttpOptions& options, const HttpLimits& limits) {
    core::httpd::ServerOptions skeleton;
    skeleton.host = options.host;
    skeleton.port = options.port;
    skeleton.error_prefix = "--http: ";
    skeleton.threads = 1;  // the calls run on the workers; the network needs one thread
    skeleton.max_connections = static_cast<size_t>(std::max(limits.max_connections, 0));
    skeleton.header_limit = kHeaderLimit;
    skeleton.body_limit = options.max_body_bytes;
    skeleton.read_timeout = limits.read;
    // A session's connection may idle between calls for as long as before.
    skeleton.header_timeout = limits.read;
    skeleton.write_timeout = limits.write;
    skeleton.stop_grace = limits.stop_grace;
    auto bound = core::httpd::Server::Bind(handler_, skeleton);
    if (!bound.ok()) return bound.status();
    server_ = std::move(*bound);
    handler_.Bound(server_->port(), server_->loopback());
    return core::Status::Ok();
  }

  int port() const override { return server_->port(); }
  void CatchSignals() override { server_->CatchSignals(); }
  void Stop() override { server_->Stop(); }

  void Run(bool handle_signals) override {
    if (handle_signals) CatchSignals();
    server_->Run();
    // Calls already running finish (their sandboxes end cleanly); calls
    // still queued never start.
    workers_.stop();
    workers_.join();
  }

 private:
  McpHandler handler_;
  std::unique_ptr<core::httpd::Server> server_;
  // Last, so destroyed first: calls still queued hold replies, which must
  // go while the server (their connections' io_context) is still there.
  net::thread_pool workers_{kWorkers};
};

}  // namespace

core::Result<std::unique_ptr<HttpServer>> HttpServer::Bind(std::shared_ptr<Server> server,
                                                     const HttpOptions& options,
                                                     HttpLimits limits) {
  auto impl = std::make_unique<HttpServerImpl>(std::move(server), options, limits);
  CORE_RETURN_IF_ERROR(impl->Bind(options, limits));
  return std::unique_ptr<HttpServer>(std::move(impl));
}

core::Status ServeHttp(std::shared_ptr<Server> server, const HttpOptions& options) {
  auto bound = HttpServer::Bind(std::move(server), options);
  if (!bound.ok()) return bound.status();
  HttpServer& http_server = **bound;
  // Before saying where it listens: a client may signal as soon as it knows.
  http_server.CatchSignals();
  std::fprintf(stderr, "ampoule mcp: listening on http://%s/mcp\n",
               core::FormatHostPort(options.host, http_server.port()).c_str());
  std::fflush(stderr);
  if (options.on_listening) options.on_listening(http_server.port());
  http_server.Run(/*handle_signals=*/true);
  return core::Status::Ok();
}

}  // namespace ampoule::mcp
