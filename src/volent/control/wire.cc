#include "volent/control/wire.h"

namespace volent::control {

namespace http = boost::beast::http;

void ConfigureParser(WireParser& parser) {
  parser.header_limit(static_cast<std::uint32_t>(kMaxHeaderBytes));
  parser.body_limit(kMaxBodyBytes);
}

Request FromWire(const WireRequest& wire) {
  Request request;
  request.method = std::string(wire.method_string());
  SplitTarget(std::string_view(wire.target().data(), wire.target().size()), request);
  auto type = wire.find(http::field::content_type);
  if (type != wire.end()) request.content_type = std::string(type->value());
  auto authorization = wire.find(http::field::authorization);
  if (authorization != wire.end()) request.authorization = std::string(authorization->value());
  request.body = wire.body();
  return request;
}

WireResponse ToWire(const Response& response, unsigned version, bool keep_alive) {
  WireResponse wire{static_cast<http::status>(response.status), version};
  wire.set(http::field::server, "volent");
  if (!response.content_type.empty()) wire.set(http::field::content_type, response.content_type);
  for (const auto& [name, value] : response.headers) wire.set(name, value);
  wire.body() = response.body;
  wire.keep_alive(keep_alive);
  wire.prepare_payload();
  return wire;
}

}  // namespace volent::control
