// Errors of the control API as problem details (RFC 9457): every error the
// node answers is one of these, served as application/problem+json. The kinds
// and their types are listed in docs/control-api.md.
//
// A problem's text is written for the operator and never carries an
// implementation detail (no library names, exception texts or stack traces).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace volent::control {

inline constexpr std::string_view kProblemContentType = "application/problem+json";

// One field-level failure of a validation problem (the `errors` member).
struct FieldError {
  std::string pointer;  // JSON Pointer into the submitted document
  int line = 0;         // 1-based; 0 when unknown (then omitted)
  int column = 0;
  std::string detail;
};

struct Problem {
  std::string type;   // "urn:volent:problem:<slug>"
  std::string title;  // short, the same for every problem of this type
  int status = 500;
  std::string detail;    // this occurrence, for a person
  std::string instance;  // the request path
  std::vector<FieldError> errors;
};

// The problem for `status` with the slug and title the docs list for it
// (e.g. 404 -> "not-found", "Not found").
Problem MakeProblem(int status, std::string detail, std::string instance);
// A problem with an explicit slug (e.g. "invalid-manifest").
Problem MakeProblem(int status, std::string_view slug, std::string_view title, std::string detail,
                    std::string instance);

nlohmann::json ProblemToJson(const Problem& problem);

}  // namespace volent::control
