// The OpenAPI 3.1 document of the control API, generated from the route
// table that dispatches requests (route_table.h): every route is one
// operation, nothing else is. Served at /openapi.json.
#pragma once

#include <nlohmann/json.hpp>

#include "volent/control/route_table.h"

namespace volent::control {

// The document for `table`. Request bodies of agent routes reference the
// served manifest schema (/v1/schemas/agent) by URL.
nlohmann::json BuildOpenApi(const RouteTable& table, const std::string& version);

}  // namespace volent::control
