#include "volent/control/http_server.h"

#include "core/http/server.h"
#include "volent/control/wire.h"

namespace volent::control {

namespace httpd = core::httpd;

namespace {

// Handlers are fast and in memory, so each request is answered inline, on
// its connection's strand.
class ApiHandler : public core::httpd::Handler {
 public:
  explicit ApiHandler(const ControlApi& api) : api_(api) {}

  void Handle(core::httpd::Request request, core::httpd::Reply reply) override {
    Request parsed = FromWire(request);
    const core::httpd::Peer& peer = reply.peer();
    parsed.peer = peer.address;
    if (peer.certificate.present) {
      parsed.certificate.present = true;
      parsed.certificate.subject = peer.certificate.subject;
      parsed.certificate.sha256 = peer.certificate.sha256;
      parsed.certificate.units = peer.certificate.units;
      parsed.certificate.not_before = peer.certificate.not_before;
      parsed.certificate.not_after = peer.certificate.not_after;
    }
    Response response = api_.Dispatch(std::move(parsed));
    reply.Send(ToWire(response, request.version(), request.keep_alive()));
  }

  // Refusals are problems (application/problem+json) like every other error.
  core::httpd::Response Refuse(const core::httpd::Refusal& refusal) override {
    std::string detail;
    switch (refusal.kind) {
      case core::httpd::Refusal::Kind::kFraming: detail = refusal.reason; break;
      case core::httpd::Refusal::Kind::kMalformed: detail = "the request is not well-formed HTTP/1.1"; break;
      case core::httpd::Refusal::Kind::kHeaderTooLarge: detail = "the request's headers exceed 16 KiB"; break;
      case core::httpd::Refusal::Kind::kBodyTooLarge: detail = "the body exceeds 1 MiB"; break;
    }
    Request request;
    SplitTarget(refusal.target, request);
    return ToWire(ProblemResponse(MakeProblem(refusal.status, std::move(detail), request.path)), 11, false);
  }

 private:
  const ControlApi& api_;
};

}  // namespace

core::Result<std::unique_ptr<HttpServer>> HttpServer::Bind(const ControlApi& api,
                                                              const ServerOptions& options) {
  core::httpd::ServerOptions skeleton;
  skeleton.host = options.host;
  skeleton.port = options.port;
  skeleton.threads = options.threads;
  skeleton.max_connections = options.max_connections;
  skeleton.max_connections_per_source = options.max_connections_per_source;
  skeleton.header_timeout = options.header_timeout;
  skeleton.header_limit = kMaxHeaderBytes;
  skeleton.body_limit = kMaxBodyBytes;
  skeleton.read_timeout = options.request_timeout;
  skeleton.write_timeout = options.request_timeout;
  skeleton.stop_grace = options.stop_grace;
  skeleton.drain_bytes = 4 * 1024 * 1024;
  skeleton.tls = options.tls;
  auto server = std::make_unique<core::httpd::HandlerServer<HttpServer, ApiHandler>>(api);
  CORE_RETURN_IF_ERROR(server->Bind(skeleton));
  return std::unique_ptr<HttpServer>(std::move(server));
}

}  // namespace volent::control
