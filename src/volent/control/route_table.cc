#include "volent/control/route_table.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <string_view>
#include <variant>

#include "volent/control/auth.h"

namespace volent::control {
namespace {

std::vector<std::string_view> Segments(std::string_view path) {
  std::vector<std::string_view> out;
  if (path.empty() || path.front() != '/') return out;
  path.remove_prefix(1);
  while (true) {
    size_t slash = path.find('/');
    out.push_back(path.substr(0, slash));
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return out;
}

// Matches `path` against `pattern`, filling `params` from {name} segments.
bool MatchPath(std::string_view pattern, std::string_view path, PathParams& params) {
  auto want = Segments(pattern);
  auto have = Segments(path);
  if (want.size() != have.size() || have.empty()) return false;
  PathParams found;
  for (size_t i = 0; i < want.size(); ++i) {
    std::string_view w = want[i];
    if (w.size() > 2 && w.front() == '{' && w.back() == '}') {
      if (have[i].empty()) return false;
      found.emplace(std::string(w.substr(1, w.size() - 2)), std::string(have[i]));
    } else if (w != have[i]) {
      return false;
    }
  }
  params = std::move(found);
  return true;
}

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

}  // namespace

bool MediaTypeIn(std::string_view media_type, const std::vector<std::string>& accepted) {
  media_type = media_type.substr(0, media_type.find(';'));
  while (!media_type.empty() && (media_type.back() == ' ' || media_type.back() == '\t')) {
    media_type.remove_suffix(1);
  }
  while (!media_type.empty() && (media_type.front() == ' ' || media_type.front() == '\t')) {
    media_type.remove_prefix(1);
  }
  std::string lower = Lower(media_type);
  return std::find(accepted.begin(), accepted.end(), lower) != accepted.end();
}

void RouteTable::Add(Route route) { routes_.push_back(std::move(route)); }

Response RouteTable::Dispatch(Request request) const {
  auto start = std::chrono::steady_clock::now();
  std::string route_label = "unmatched";
  Response response;
  try {
    response = Handle(request, route_label);
  } catch (...) {
    // A handler failed in a way it did not foresee: say so, and nothing more.
    response = ProblemResponse(MakeProblem(500, "internal", "Internal error",
                                           "the node could not answer this request", request.path));
  }
  if (metrics_) {
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    // Unknown methods would make unbounded label sets: fold them.
    static const char* kKnown[] = {"GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"};
    std::string method = "other";
    for (const char* m : kKnown) {
      if (request.method == m) method = m;
    }
    metrics_->Record(route_label, method, response.status, seconds);
  }
  return response;
}

Response RouteTable::Handle(Request& request, std::string& route_label) const {
  // Who asks comes first: an unauthenticated caller learns nothing, not
  // even which paths exist.
  if (auth_) {
    auto who = auth_->Authenticate(request);
    if (auto* refusal = std::get_if<Response>(&who)) return std::move(*refusal);
    request.principal = std::move(std::get<access::Principal>(who));
  } else {
    request.principal.kind = access::Principal::Kind::kDevelopment;
  }
  std::vector<std::string> allowed;
  for (const Route& route : routes_) {
    PathParams params;
    if (!MatchPath(route.path, request.path, params)) continue;
    if (route.method != request.method) {
      allowed.push_back(route.method);
      continue;
    }
    route_label = route.path;
    if (!request.principal.Allows(route.role)) {
      return ProblemResponse(MakeProblem(
          403, request.principal.Describe() + " may not " + route.operation_id + ": it needs the " +
                   std::string(access::RoleName(route.role)) + " role",
          request.path));
    }
    if (request.body.size() > kMaxBodyBytes) {
      return ProblemResponse(MakeProblem(413, "the body exceeds 1 MiB", request.path));
    }
    if (!route.request_media_types.empty() &&
        !MediaTypeIn(request.content_type, route.request_media_types)) {
      std::string accepted;
      for (const auto& t : route.request_media_types) accepted += (accepted.empty() ? "" : ", ") + t;
      return ProblemResponse(MakeProblem(
          415, "send the body as one of: " + accepted, request.path));
    }
    return route.handler(request, params);
  }
  if (allowed.empty()) {
    return ProblemResponse(MakeProblem(404, "no such route", request.path));
  }
  std::string allow;
  for (const auto& m : allowed) allow += (allow.empty() ? "" : ", ") + m;
  Response r = ProblemResponse(
      MakeProblem(405, "this path answers " + allow, request.path));
  r.headers.emplace_back("Allow", allow);
  return r;
}

}  // namespace volent::control
