#include "core/json_strict.h"

#include <set>
#include <string>
#include <vector>

namespace core {

using nlohmann::json;

namespace {

// A pass over the text that looks only at numbers as written (the DOM
// parser keeps the value, not the text).
struct NumberCheck : nlohmann::json_sax<json> {
  std::string problem;

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t& text) override {
    // An integer literal arrives here only when it does not fit 64 bits.
    if (text.find_first_of(".eE") == string_t::npos) {
      problem = "the integer " + text.substr(0, 40) + (text.size() > 40 ? "..." : "") +
                " is beyond 64 bits; it would be rounded";
      return false;
    }
    return true;
  }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string& token, const nlohmann::detail::exception& e) override {
    // 406: a number beyond the double range (1e400).
    if (e.id == 406) problem = "the number " + token.substr(0, 40) + " is out of range";
    return false;
  }
};

}  // namespace

core::Result<nlohmann::json> ParseJsonStrict(std::string_view text, std::string_view what, JsonNumbers numbers) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") {
    return core::Error{std::string(what) + ": starts with a byte-order mark; give UTF-8 JSON without one"};
  }
  if (numbers == JsonNumbers::kExact) {
    NumberCheck check;
    json::sax_parse(text.begin(), text.end(), &check, nlohmann::detail::input_format_t::json,
                    /*strict=*/true, /*ignore_comments=*/false);
    if (!check.problem.empty()) return core::Error{std::string(what) + ": " + check.problem};
  }
  // One set of seen keys per open object; arrays push an unused empty set so
  // that the stack height is the nesting depth.
  std::vector<std::set<std::string>> open;
  std::string problem;
  auto check = [&](int /*depth*/, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        open.emplace_back();
        if (open.size() > static_cast<size_t>(core::kMaxJsonDepth) && problem.empty()) {
          problem = "nested deeper than " + std::to_string(core::kMaxJsonDepth) + " levels";
        }
        break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        if (!open.empty()) open.pop_back();
        break;
      case json::parse_event_t::key:
        if (!open.empty() && !open.back().insert(parsed.get<std::string>()).second &&
            problem.empty()) {
          problem = "duplicate key \"" + parsed.get<std::string>().substr(0, 64) + "\"";
        }
        break;
      case json::parse_event_t::value:
        break;
    }
    // Once something is wrong, stop building values (keeps memory bounded).
    return problem.empty();
  };
  json value = json::parse(text.begin(), text.end(), check, /*allow_exceptions=*/false);
  if (!problem.empty()) return core::Error{std::string(what) + ": " + problem};
  if (value.is_discarded()) return core::Error{std::string(what) + ": not valid JSON"};
  return value;
}

}  // namespace core
