// What the JSON routes of runs, approvals and the journal share
// (docs/control-api.md): reading a JSON request body, the time format of
// their answers, page limits, and the problems for a refused call.
//
// Never throws; every failure is a Problem to answer.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "volent/agent/runs.h"
#include "volent/control/message.h"
#include "volent/control/problem.h"

namespace volent::control {

// Page limits of the list routes: `limit` is 1 to kMaxPageLimit.
inline constexpr size_t kDefaultPageLimit = 100;
inline constexpr size_t kMaxPageLimit = 1000;

// The same as a JSON string, or null for 0 (a time not reached yet).
nlohmann::json TimeOrNull(int64_t unix_ms);
// The JSON Schema of TimeOrNull's values. (An anyOf: some validators apply
// "format" to null too.)
nlohmann::json TimeOrNullSchema();

// Empty when `body` is well-formed JSON nested at most kMaxJsonDepth
// (core/json.h) deep, checked without building it; else the 400 malformed-body problem
// (with the line and column of the fault).
std::optional<Problem> CheckJsonSyntax(std::string_view body, const std::string& instance);

// The body as a JSON object, or the problem: 400 malformed-body (not JSON,
// or nested deeper than kMaxJsonDepth; `errors` has the position) or
// 422 invalid-body (JSON, but not an object).
std::variant<nlohmann::json, Problem> ParseJsonObject(std::string_view body, const std::string& instance);

// One error per member of `object` not in `known` (pointer "/member").
std::vector<FieldError> UnknownMembers(const nlohmann::json& object,
                                       const std::vector<std::string_view>& known);

// "/" + `member` as a JSON Pointer token ('~' and '/' escaped).
std::string PointerTo(std::string_view member);

// 422 invalid-body listing `errors` (REQUIRES: not empty); at most
// kMaxFieldErrors of them, the last saying how many more there were.
inline constexpr size_t kMaxFieldErrors = 100;
Problem InvalidBody(std::vector<FieldError> errors, const std::string& instance);

// `limit` of `query`: kDefaultPageLimit when absent; nothing when it is not
// an integer from 1 to kMaxPageLimit (answer BadLimit).
std::optional<size_t> PageLimit(std::string_view query);
Problem BadLimit(const std::string& instance);

// 409 conflict: the state forbids the request.
Problem Conflict(std::string detail, const std::string& instance);
// 503 unavailable: `what` is not available on this node now.
Problem Unavailable(std::string detail, const std::string& instance);
// The problem for a refused call (agent::Runs), by the error's kind:
// kInvalidArgument 400, kNotFound 404, kConflict 409, kUnavailable 503; the
// error's message is the detail. Any other kind is a 500 without detail.
Problem RefusalProblem(const core::Error& refusal, const std::string& instance);

}  // namespace volent::control
