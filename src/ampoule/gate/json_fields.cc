#include "ampoule/gate/json_fields.h"

#include <algorithm>

#include "core/file_read.h"

namespace ampoule::gate {

core::Status CheckObject(const nlohmann::json& value, std::string_view where,
                   std::initializer_list<std::string_view> known) {
  if (!value.is_object()) return core::Error{std::string(where) + " must be a JSON object"};
  for (const auto& [key, unused] : value.items()) {
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      std::string list;
      for (std::string_view k : known) list += (list.empty() ? "" : ", ") + std::string(k);
      return core::Error{std::string(where) + " has an unknown field '" + key + "' (known: " + list + ")"};
    }
  }
  return core::Status::Ok();
}

core::Result<std::string> RequiredString(const nlohmann::json& object, std::string_view key,
                                   std::string_view where) {
  auto it = object.find(key);
  if (it == object.end()) return core::Error{std::string(where) + " needs the field '" + std::string(key) + "'"};
  if (!it->is_string() || it->get_ref<const std::string&>().empty()) {
    return core::Error{std::string(where) + " field '" + std::string(key) + "' must be a non-empty string"};
  }
  return it->get<std::string>();
}

core::Result<uint64_t> RequiredCount(const nlohmann::json& object, std::string_view key,
                               std::string_view where) {
  auto it = object.find(key);
  if (it == object.end()) return core::Error{std::string(where) + " needs the field '" + std::string(key) + "'"};
  if (!it->is_number_unsigned() || it->get<uint64_t>() > uint64_t{INT64_MAX}) {
    return core::Error{std::string(where) + " field '" + std::string(key) +
                 "' must be a whole number from 0 to 9223372036854775807"};
  }
  return it->get<uint64_t>();
}

std::string ResolvePath(std::string_view text, const std::filesystem::path& base) {
  std::filesystem::path p(text);
  return (p.is_absolute() ? p : base / p).lexically_normal().string();
}

core::Result<std::string> RequiredPath(const nlohmann::json& object, std::string_view key,
                                 std::string_view where, const std::filesystem::path& base) {
  core::Result<std::string> text = RequiredString(object, key, where);
  if (!text.ok()) return text;
  return ResolvePath(*text, base);
}

core::Result<Document> ReadDocument(const std::string& path, std::string_view what, const core::ReadRules& rules) {
  core::Result<std::string> text = core::ReadFileCapped(path, size_t{1} << 20, nullptr, rules);
  if (!text.ok()) return core::Error{"cannot read the " + std::string(what) + ": " + text.message()};
  std::filesystem::path folder = std::filesystem::path(path).parent_path();
  return Document{std::move(*text), folder.empty() ? std::filesystem::path(".") : folder};
}

}  // namespace ampoule::gate
