#include "receipt/json_strict.h"

#include <set>
#include <string>
#include <vector>

namespace ampoule::receipt {

using nlohmann::json;

Result<nlohmann::json> ParseJsonStrict(std::string_view text, std::string_view what) {
  // One set of seen keys per open object; arrays push an unused empty set so
  // that the stack height is the nesting depth.
  std::vector<std::set<std::string>> open;
  std::string problem;
  auto check = [&](int /*depth*/, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        open.emplace_back();
        if (open.size() > static_cast<size_t>(kMaxJsonDepth) && problem.empty()) {
          problem = "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels";
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
  if (!problem.empty()) return Error{std::string(what) + ": " + problem};
  if (value.is_discarded()) return Error{std::string(what) + ": not valid JSON"};
  return value;
}

std::string DumpJson(const nlohmann::json& value, int indent) {
  return value.dump(indent, ' ', /*ensure_ascii=*/false, json::error_handler_t::replace);
}

}  // namespace ampoule::receipt
