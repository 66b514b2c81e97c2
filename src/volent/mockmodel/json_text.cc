#include "volent/mockmodel/json_text.h"

namespace volent::mockmodel {
namespace {

// The deepest nesting of arrays and objects in `text`, brackets inside
// strings not counted. Stops counting past `limit`.
size_t NestingDepth(std::string_view text, size_t limit) {
  size_t depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

}  // namespace

ampoule::Result<nlohmann::json> ParseJson(std::string_view text, std::string_view what) {
  if (NestingDepth(text, kMaxJsonDepth) > kMaxJsonDepth) {
    return ampoule::Error{std::string(what) + " nests arrays and objects deeper than " +
                          std::to_string(kMaxJsonDepth) + " levels"};
  }
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    return ampoule::Error{std::string(what) + " is not JSON: syntax error at byte " + std::to_string(e.byte)};
  } catch (const nlohmann::json::exception&) {
    return ampoule::Error{std::string(what) + " is not JSON"};
  }
}

std::string DumpJson(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace volent::mockmodel
