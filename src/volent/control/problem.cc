#include "volent/control/problem.h"

#include <utility>

namespace volent::control {
namespace {

struct StatusKind {
  int status;
  std::string_view slug;
  std::string_view title;
};

constexpr StatusKind kKinds[] = {
    {400, "bad-request", "Bad request"},
    {401, "unauthorized", "Authentication required"},
    {403, "forbidden", "Not allowed for this credential"},
    {404, "not-found", "Not found"},
    {405, "method-not-allowed", "Method not allowed"},
    {408, "request-timeout", "Request timeout"},
    {413, "body-too-large", "Request body too large"},
    {415, "unsupported-media-type", "Unsupported media type"},
    {422, "invalid-manifest", "The manifest is not valid"},
    {429, "too-many-requests", "Too many failed authentications"},
    {431, "headers-too-large", "Request headers too large"},
    {501, "not-implemented", "Not implemented in this version"},
    {503, "unavailable", "Service unavailable"},
};

}  // namespace

Problem MakeProblem(int status, std::string_view slug, std::string_view title, std::string detail,
                    std::string instance) {
  Problem p;
  p.type = "urn:volent:problem:" + std::string(slug);
  p.title = std::string(title);
  p.status = status;
  p.detail = std::move(detail);
  p.instance = std::move(instance);
  return p;
}

Problem MakeProblem(int status, std::string detail, std::string instance) {
  for (const auto& kind : kKinds) {
    if (kind.status == status) {
      return MakeProblem(status, kind.slug, kind.title, std::move(detail), std::move(instance));
    }
  }
  return MakeProblem(500, "internal", "Internal error", std::move(detail), std::move(instance));
}

nlohmann::json ProblemToJson(const Problem& problem) {
  nlohmann::json j = {{"type", problem.type},
                      {"title", problem.title},
                      {"status", problem.status},
                      {"detail", problem.detail},
                      {"instance", problem.instance}};
  if (!problem.errors.empty()) {
    auto& errors = j["errors"] = nlohmann::json::array();
    for (const auto& e : problem.errors) {
      nlohmann::json item = {{"pointer", e.pointer}, {"detail", e.detail}};
      if (e.line > 0) {
        item["line"] = e.line;
        item["column"] = e.column;
      }
      errors.push_back(std::move(item));
    }
  }
  return j;
}

}  // namespace volent::control
