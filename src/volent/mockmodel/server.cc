#include "volent/mockmodel/server.h"

#include <optional>

#include "core/http/server.h"

namespace volent::mockmodel {

namespace httpd = core::httpd;
namespace http = boost::beast::http;

namespace {

constexpr size_t kMaxHeaderBytes = 64 * 1024;

std::optional<std::string> Header(const core::httpd::Request& req, std::string_view name) {
  auto it = req.find(boost::beast::string_view(name.data(), name.size()));
  if (it == req.end()) return std::nullopt;
  return std::string(it->value());
}

ServiceResponse PlainError(int status, const std::string& message) {
  nlohmann::json body;
  body["type"] = "error";
  body["error"] = {{"type", "invalid_request_error"}, {"message", message}, {"param", nullptr}, {"code", nullptr}};
  ServiceResponse out;
  out.status = status;
  out.body = body.dump();
  return out;
}

core::httpd::Response ToWire(ServiceResponse response, unsigned version, bool keep_alive) {
  core::httpd::Response message(static_cast<http::status>(response.status), version);
  message.set(http::field::content_type, "application/json");
  for (const auto& [name, value] : response.headers) message.set(name, value);
  message.keep_alive(keep_alive);
  message.body() = std::move(response.body);
  message.prepare_payload();
  return message;
}

class ServiceHandler : public core::httpd::Handler {
 public:
  explicit ServiceHandler(Service& service) : service_(service) {}

  void Handle(core::httpd::Request req, core::httpd::Reply reply) override {
    ServiceRequest request;
    request.method = std::string(req.method_string());
    request.target = std::string(req.target());
    request.x_api_key = Header(req, "x-api-key");
    request.anthropic_version = Header(req, "anthropic-version");
    request.authorization = Header(req, "authorization");
    request.idempotency_key = Header(req, "idempotency-key");
    request.body = std::move(req.body());
    auto response = std::make_shared<ServiceResponse>(service_.Handle(request));
    // The hold is a timer on the connection's strand: no thread waits.
    auto delay = response->delay;
    reply.Send(ToWire(*response, req.version(), req.keep_alive()), delay,
               [this, response] { service_.Finished(*response); });
  }

  // Refusals in the APIs' error format.
  core::httpd::Response Refuse(const core::httpd::Refusal& refusal) override {
    switch (refusal.kind) {
      case core::httpd::Refusal::Kind::kBodyTooLarge: return ToWire(service_.TooLarge(refusal.target), 11, false);
      case core::httpd::Refusal::Kind::kHeaderTooLarge:
        return ToWire(PlainError(431, "the request's headers exceed 64 KiB"), 11, false);
      case core::httpd::Refusal::Kind::kMalformed:
        return ToWire(PlainError(400, "the request is not well-formed HTTP/1.1"), 11, false);
      case core::httpd::Refusal::Kind::kFraming: break;
    }
    return ToWire(PlainError(400, refusal.reason), 11, false);
  }

 private:
  Service& service_;
};

}  // namespace

core::Result<std::unique_ptr<Server>> Server::Bind(Service& service, const ServerOptions& options) {
  core::httpd::ServerOptions skeleton;
  skeleton.host = options.host;
  skeleton.port = options.port;
  skeleton.threads = options.threads;
  skeleton.max_connections = options.max_connections;
  skeleton.header_limit = kMaxHeaderBytes;
  skeleton.body_limit = kMaxBodyBytes;
  skeleton.read_timeout = options.idle_timeout;
  // A test double kept alive between calls for as long as it was before;
  // the 10 s header deadline is the control API's.
  skeleton.header_timeout = options.idle_timeout;
  skeleton.write_timeout = options.idle_timeout;
  skeleton.stop_grace = options.stop_grace;
  skeleton.drain_bytes = 8 * 1024 * 1024;
  auto server = std::make_unique<core::httpd::HandlerServer<Server, ServiceHandler>>(service);
  CORE_RETURN_IF_ERROR(server->Bind(skeleton));
  return std::unique_ptr<Server>(std::move(server));
}

}  // namespace volent::mockmodel
