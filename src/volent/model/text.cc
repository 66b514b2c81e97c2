#include "volent/model/text.h"

#include "core/json.h"

namespace volent::model {
namespace {

std::string Cut(std::string_view text, size_t max) {
  if (text.size() <= max) return std::string(text);
  size_t n = max;
  while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;
  return std::string(text.substr(0, n)) + "...";
}

}  // namespace

std::string Quoted(std::string_view text, size_t max) {
  return core::DumpJson(nlohmann::json(Cut(text, max)));
}

std::string Excerpt(std::string_view text, size_t max) {
  // Through JSON and back: invalid UTF-8 becomes U+FFFD.
  std::string valid = nlohmann::json::parse(Quoted(text, max)).get<std::string>();
  for (char& c : valid) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) c = ' ';
  }
  return valid;
}

nlohmann::json ParseJson(std::string_view body) {
  auto parsed = core::ParseJsonBounded(body, "the answer", {kMaxAnswerBytes});
  return parsed ? std::move(*parsed) : nlohmann::json(nlohmann::json::value_t::discarded);
}

}  // namespace volent::model
