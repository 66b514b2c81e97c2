#include "volent/control/json_api.h"

#include <algorithm>
#include <charconv>
#include <cstdio>

#include "core/json.h"
#include "core/rfc3339.h"
#include "volent/manifest/yaml_reader.h"

namespace volent::control {
nlohmann::json TimeOrNull(int64_t unix_ms) {
  if (unix_ms == 0) return nullptr;
  return core::Rfc3339Millis(unix_ms);
}

nlohmann::json TimeOrNullSchema() {
  return {{"anyOf", {{{"type", "string"}, {"format", "date-time"}}, {{"type", "null"}}}}};
}

std::optional<Problem> CheckJsonSyntax(std::string_view body, const std::string& instance) {
  // The body's size was bounded as it was read (kMaxBodyBytes).
  const std::optional<core::JsonProblem> problem = core::CheckJson(body, {kMaxBodyBytes});
  if (!problem) return std::nullopt;
  if (problem->kind == core::JsonProblem::Kind::kTooLarge) {  // not expected: refused as it was read
    return MakeProblem(400, "malformed-body", "The body is not well-formed",
                       "the body is larger than " + std::to_string(kMaxBodyBytes) + " bytes", instance);
  }
  if (problem->kind == core::JsonProblem::Kind::kTooDeep) {
    Problem p = MakeProblem(400, "malformed-body", "The body is not well-formed",
                            "the body is nested deeper than " + std::to_string(core::kMaxJsonDepth) + " levels",
                            instance);
    p.errors.push_back({"", 0, 0, "nested too deep"});
    return p;
  }
  const size_t at = problem->offset;
  const std::string_view before = body.substr(0, at);
  const int line = 1 + static_cast<int>(std::count(before.begin(), before.end(), '\n'));
  const size_t line_start = before.rfind('\n');
  const int column = static_cast<int>(at - (line_start == std::string_view::npos ? 0 : line_start + 1)) + 1;
  Problem p = MakeProblem(400, "malformed-body", "The body is not well-formed", "the body is not well-formed JSON",
                          instance);
  p.errors.push_back({"", line, column, "not well-formed JSON here"});
  return p;
}

std::variant<nlohmann::json, Problem> ParseJsonObject(std::string_view body, const std::string& instance) {
  // Checked first without building anything, so no tree deeper than the
  // limit is ever made (nor destroyed, nor written back).
  if (auto problem = CheckJsonSyntax(body, instance)) return *problem;
  auto read = core::ParseJsonBounded(body, "the body", {kMaxBodyBytes});
  if (!read) {
    // The checks above accepted it; not expected, but answered, not thrown.
    return MakeProblem(400, "malformed-body", "The body is not well-formed", "the body is not well-formed JSON",
                       instance);
  }
  if (!read->is_object()) {
    return InvalidBody({{"", 0, 0, "must be a JSON object"}}, instance);
  }
  return std::move(*read);
}

std::string PointerTo(std::string_view member) { return "/" + manifest::EscapePointerToken(member); }

std::vector<FieldError> UnknownMembers(const nlohmann::json& object,
                                       const std::vector<std::string_view>& known) {
  std::vector<FieldError> out;
  if (!object.is_object()) return out;
  std::string names;
  for (auto k : known) names += (names.empty() ? "" : ", ") + std::string(k);
  for (const auto& [key, value] : object.items()) {
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      out.push_back({PointerTo(key), 0, 0, "unknown member; the body may have: " + names});
    }
  }
  return out;
}

Problem InvalidBody(std::vector<FieldError> errors, const std::string& instance) {
  const size_t n = errors.size();
  // At most kMaxFieldErrors, the last saying how many more there were.
  if (n > kMaxFieldErrors) {
    errors.resize(kMaxFieldErrors - 1);
    errors.push_back({"", 0, 0, std::to_string(n - errors.size()) + " more problems"});
  }
  Problem p = MakeProblem(422, "invalid-body", "The request body is not valid",
                          "the body has " + std::to_string(n) + (n == 1 ? " problem" : " problems"), instance);
  p.errors = std::move(errors);
  return p;
}

std::optional<size_t> PageLimit(std::string_view query) {
  auto text = QueryParam(query, "limit");
  if (!text) return kDefaultPageLimit;
  size_t value = 0;
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (ec != std::errc() || end != text->data() + text->size() || value < 1 || value > kMaxPageLimit) {
    return std::nullopt;
  }
  return value;
}

Problem BadLimit(const std::string& instance) {
  return MakeProblem(400, "limit must be an integer from 1 to " + std::to_string(kMaxPageLimit), instance);
}

Problem Conflict(std::string detail, const std::string& instance) {
  return MakeProblem(409, "conflict", "Conflict with the current state", std::move(detail), instance);
}

Problem Unavailable(std::string detail, const std::string& instance) {
  return MakeProblem(503, std::move(detail), instance);
}

Problem RefusalProblem(const core::Error& refusal, const std::string& instance) {
  std::string message = refusal.message.empty() ? "the node refused this request" : refusal.message;
  switch (refusal.kind) {
    case core::ErrorKind::kInvalidArgument:
      return MakeProblem(400, std::move(message), instance);
    case core::ErrorKind::kNotFound:
      return MakeProblem(404, std::move(message), instance);
    case core::ErrorKind::kConflict:
      return Conflict(std::move(message), instance);
    case core::ErrorKind::kUnavailable:
      return Unavailable(std::move(message), instance);
    case core::ErrorKind::kUnknown:
      break;
  }
  // Not a refusal the API names: a caller's mistake, answered without detail.
  return MakeProblem(500, "internal", "Internal error", "the node could not answer this request", instance);
}

}  // namespace volent::control
