#include "volent/control/http_server.h"

#include "core/http/server.h"
#include "volent/control/wire.h"

namespace volent::control {

namespace {

namespace httpd = ampoule::httpd;

// Handlers are fast and in memory, so each request is answered inline, on
// its connection's strand.
class ApiHandler : public httpd::Handler {
 public:
  explicit ApiHandler(const ControlApi& api) : api_(api) {}

  void Handle(httpd::Request request, httpd::Reply reply) override {
    Response response = api_.Dispatch(FromWire(request));
    reply.Send(ToWire(response, request.version(), request.keep_alive()));
  }

  // Refusals are problems (application/problem+json) like every other error.
  httpd::Response Refuse(const httpd::Refusal& refusal) override {
    std::string detail;
    switch (refusal.kind) {
      case httpd::Refusal::Kind::kFraming: detail = refusal.reason; break;
      case httpd::Refusal::Kind::kMalformed: detail = "the request is not well-formed HTTP/1.1"; break;
      case httpd::Refusal::Kind::kHeaderTooLarge: detail = "the request's headers exceed 16 KiB"; break;
      case httpd::Refusal::Kind::kBodyTooLarge: detail = "the body exceeds 1 MiB"; break;
    }
    Request request;
    SplitTarget(refusal.target, request);
    return ToWire(ProblemResponse(MakeProblem(refusal.status, std::move(detail), request.path)), 11, false);
  }

 private:
  const ControlApi& api_;
};

class ServerImpl : public HttpServer {
 public:
  explicit ServerImpl(const ControlApi& api) : handler_(api) {}

  ampoule::Status Bind(const ServerOptions& options) {
    httpd::ServerOptions skeleton;
    skeleton.host = options.host;
    skeleton.port = options.port;
    skeleton.threads = options.threads;
    skeleton.max_connections = options.max_connections;
    skeleton.header_limit = kMaxHeaderBytes;
    skeleton.body_limit = kMaxBodyBytes;
    skeleton.read_timeout = options.request_timeout;
    skeleton.write_timeout = options.request_timeout;
    skeleton.stop_grace = options.stop_grace;
    skeleton.drain_bytes = 4 * 1024 * 1024;
    auto server = httpd::Server::Bind(handler_, skeleton);
    if (!server.ok()) return server.status();
    server_ = std::move(*server);
    return ampoule::Status::Ok();
  }

  int port() const override { return server_->port(); }
  void CatchSignals() override { server_->CatchSignals(); }
  void Run() override { server_->Run(); }
  void Stop() override { server_->Stop(); }

 private:
  ApiHandler handler_;
  std::unique_ptr<httpd::Server> server_;
};

}  // namespace

ampoule::Result<std::unique_ptr<HttpServer>> HttpServer::Bind(const ControlApi& api,
                                                              const ServerOptions& options) {
  auto server = std::make_unique<ServerImpl>(api);
  AMP_RETURN_IF_ERROR(server->Bind(options));
  return std::unique_ptr<HttpServer>(std::move(server));
}

}  // namespace volent::control
