#include "core/json.h"

#include <algorithm>

namespace core {
namespace {

// A SAX consumer that builds nothing: well-formedness and depth only.
struct Shape : nlohmann::json_sax<nlohmann::json> {
  explicit Shape(int max_depth) : max_depth(max_depth) {}
  int max_depth;
  int depth = 0;
  std::optional<JsonProblem> problem;

  bool Open() {
    if (++depth <= max_depth) return true;
    problem = JsonProblem{JsonProblem::Kind::kTooDeep};
    return false;
  }
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return Open(); }
  bool key(string_t&) override { return true; }
  bool end_object() override { return --depth, true; }
  bool start_array(std::size_t) override { return Open(); }
  bool end_array() override { return --depth, true; }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception&) override {
    // The position the parser names is one past the offending byte.
    problem = JsonProblem{JsonProblem::Kind::kSyntax, position > 0 ? position - 1 : 0};
    return false;
  }
};

}  // namespace

std::optional<JsonProblem> CheckJson(std::string_view text, const JsonLimits& limits) {
  if (text.size() > limits.max_bytes) return JsonProblem{JsonProblem::Kind::kTooLarge};
  Shape shape(limits.max_depth);
  if (nlohmann::json::sax_parse(text.begin(), text.end(), &shape, nlohmann::json::input_format_t::json,
                                /*strict=*/true)) {
    return std::nullopt;
  }
  if (!shape.problem) return JsonProblem{JsonProblem::Kind::kSyntax, text.size()};
  shape.problem->offset = std::min(shape.problem->offset, text.size());
  return shape.problem;
}

Result<nlohmann::json> ParseJsonBounded(std::string_view text, std::string_view what, const JsonLimits& limits) {
  if (std::optional<JsonProblem> problem = CheckJson(text, limits)) {
    switch (problem->kind) {
      case JsonProblem::Kind::kTooLarge:
        return Error{std::string(what) + " is " + std::to_string(text.size()) + " bytes, more than the " +
                     std::to_string(limits.max_bytes) + " allowed"};
      case JsonProblem::Kind::kTooDeep:
        return Error{std::string(what) + " nests arrays and objects deeper than " +
                     std::to_string(limits.max_depth) + " levels"};
      case JsonProblem::Kind::kSyntax:
        break;
    }
    return Error{std::string(what) + " is not JSON: syntax error at byte offset " + std::to_string(problem->offset)};
  }
  nlohmann::json value = nlohmann::json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  // The check above accepted it; not expected, but answered, not thrown.
  if (value.is_discarded()) return Error{std::string(what) + " is not JSON"};
  return value;
}

}  // namespace core
