// The control API on the wire: how HTTP/1.1 messages become Requests and
// Responses. The server and the fuzz target share it, so both parse with
// the same limits (kMaxHeaderBytes, kMaxBodyBytes).
#pragma once

#include <boost/beast/http.hpp>

#include "volent/control/message.h"

namespace volent::control {

using WireRequest = boost::beast::http::request<boost::beast::http::string_body>;
using WireResponse = boost::beast::http::response<boost::beast::http::string_body>;
using WireParser = boost::beast::http::request_parser<boost::beast::http::string_body>;

// Applies the node's header and body limits to a fresh parser.
void ConfigureParser(WireParser& parser);

Request FromWire(const WireRequest& wire);
// `version` 10 or 11; `keep_alive` whether the connection stays open.
WireResponse ToWire(const Response& response, unsigned version, bool keep_alive);

}  // namespace volent::control
