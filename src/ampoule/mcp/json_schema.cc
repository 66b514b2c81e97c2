#include "ampoule/mcp/json_schema.h"

#include <cmath>

namespace ampoule::mcp {
namespace {

using nlohmann::json;

// RFC 6901 escaping of one reference token.
std::string PointerToken(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

bool HasType(const json& value, const std::string& type) {
  if (type == "object") return value.is_object();
  if (type == "array") return value.is_array();
  if (type == "string") return value.is_string();
  if (type == "boolean") return value.is_boolean();
  if (type == "null") return value.is_null();
  if (type == "number") return value.is_number();
  if (type == "integer") {
    if (value.is_number_integer()) return true;
    // JSON Schema counts 3.0 as an integer.
    if (value.is_number_float()) {
      double d = value.get<double>();
      return std::isfinite(d) && std::floor(d) == d;
    }
  }
  return false;
}

std::string Describe(const json& type) {
  if (type.is_string()) return type.get<std::string>();
  std::string out;
  for (const json& t : type) {
    if (!out.empty()) out += " or ";
    if (t.is_string()) out += t.get<std::string>();
  }
  return out;
}

std::string Where(const std::string& path) { return path.empty() ? "the arguments" : path; }

core::Status Check(const json& schema, const json& value, const std::string& path, int depth) {
  if (depth > 64) return core::Error{Where(path) + ": nested too deeply"};
  if (!schema.is_object()) return core::Status::Ok();
  if (auto t = schema.find("type"); t != schema.end()) {
    bool ok = false;
    if (t->is_string()) {
      ok = HasType(value, t->get<std::string>());
    } else if (t->is_array()) {
      for (const json& one : *t) ok = ok || (one.is_string() && HasType(value, one.get<std::string>()));
    }
    if (!ok) {
      std::string art = Describe(*t);
      bool vowel = !art.empty() && std::string("aeiou").find(art[0]) != std::string::npos;
      return core::Error{Where(path) + ": expected " + (vowel ? "an " : "a ") + art};
    }
  }
  if (auto e = schema.find("enum"); e != schema.end() && e->is_array()) {
    bool found = false;
    for (const json& one : *e) found = found || one == value;
    if (!found) return core::Error{Where(path) + ": expected one of " + e->dump()};
  }
  if (value.is_number()) {
    double d = value.get<double>();
    if (auto m = schema.find("minimum"); m != schema.end() && m->is_number() && d < m->get<double>()) {
      return core::Error{Where(path) + ": must be at least " + m->dump()};
    }
    if (auto m = schema.find("exclusiveMinimum");
        m != schema.end() && m->is_number() && d <= m->get<double>()) {
      return core::Error{Where(path) + ": must be above " + m->dump()};
    }
    if (auto m = schema.find("maximum"); m != schema.end() && m->is_number() && d > m->get<double>()) {
      return core::Error{Where(path) + ": must be at most " + m->dump()};
    }
  }
  if (value.is_string()) {
    if (auto m = schema.find("minLength");
        m != schema.end() && m->is_number_unsigned() && value.get_ref<const std::string&>().size() < m->get<uint64_t>()) {
      return core::Error{Where(path) + ": must not be empty"};
    }
  }
  if (value.is_object()) {
    if (auto r = schema.find("required"); r != schema.end() && r->is_array()) {
      for (const json& name : *r) {
        if (name.is_string() && !value.contains(name.get<std::string>())) {
          return core::Error{Where(path) + ": missing required property '" + name.get<std::string>() + "'"};
        }
      }
    }
    const json* props = nullptr;
    if (auto p = schema.find("properties"); p != schema.end() && p->is_object()) props = &*p;
    auto extra = schema.find("additionalProperties");
    for (auto it = value.begin(); it != value.end(); ++it) {
      std::string sub = path + "/" + PointerToken(it.key());
      if (props != nullptr && props->contains(it.key())) {
        CORE_RETURN_IF_ERROR(Check((*props)[it.key()], it.value(), sub, depth + 1));
      } else if (extra != schema.end()) {
        if (extra->is_boolean() && !extra->get<bool>()) {
          return core::Error{Where(path) + ": unknown property '" + it.key() + "'"};
        }
        CORE_RETURN_IF_ERROR(Check(*extra, it.value(), sub, depth + 1));
      }
    }
  }
  if (value.is_array()) {
    if (auto items = schema.find("items"); items != schema.end()) {
      for (size_t i = 0; i < value.size(); ++i) {
        CORE_RETURN_IF_ERROR(Check(*items, value[i], path + "/" + std::to_string(i), depth + 1));
      }
    }
  }
  return core::Status::Ok();
}

}  // namespace

core::Status CheckAgainstSchema(const json& schema, const json& value) { return Check(schema, value, "", 0); }

}  // namespace ampoule::mcp
