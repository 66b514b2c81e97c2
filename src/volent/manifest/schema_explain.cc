// The walk behind ExplainSchemaFailures (schema_explain.h).
#include "volent/manifest/schema_explain.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <regex>

#include "core/json.h"
#include "volent/manifest/yaml_reader.h"

namespace volent::manifest {
namespace {

using nlohmann::json;

constexpr int kMaxRefDepth = 32;

std::string Quoted(const std::string& s) {
  std::string cut = s.size() > 60 ? s.substr(0, 57) + "..." : s;
  return core::DumpJson(json(cut));
}

// How a found value is shown: strings quoted, numbers as written, else its kind.
std::string Describe(const json& v) {
  if (v.is_string()) return Quoted(v.get<std::string>());
  if (v.is_number() || v.is_boolean() || v.is_null()) return v.dump();
  if (v.is_array()) return "a list";
  return "a mapping";
}

std::string TypeName(const std::string& type) {
  if (type == "string") return "a string";
  if (type == "integer") return "an integer";
  if (type == "number") return "a number";
  if (type == "boolean") return "true or false";
  if (type == "object") return "a mapping";
  if (type == "array") return "a list";
  return "null";
}

bool HasType(const json& v, const std::string& type) {
  if (type == "string") return v.is_string();
  // As valijson with strict types judges: 4.0 is a number, not an integer.
  if (type == "integer") return v.is_number_integer();
  if (type == "number") return v.is_number();
  if (type == "boolean") return v.is_boolean();
  if (type == "object") return v.is_object();
  if (type == "array") return v.is_array();
  return v.is_null();
}

size_t Utf8Length(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xc0) != 0x80;
  return n;
}

std::string Join(const json& values) {
  std::string out;
  for (const json& v : values) out += (out.empty() ? "" : ", ") + Describe(v);
  return out;
}

std::string Number(const json& v) { return v.dump(); }

class Explainer {
 public:
  explicit Explainer(const json& root) : root_(root) {}

  void Walk(const json& schema, const json& value, const std::string& pointer, const std::string& reason,
            int depth, std::vector<Finding>& out) {
    if (depth > kMaxRefDepth * 4) return;
    if (schema.is_boolean()) {
      if (!schema.get<bool>()) Add(out, pointer, true, "is not allowed here", reason);
      return;
    }
    if (!schema.is_object()) return;
    if (auto ref = schema.find("$ref"); ref != schema.end() && ref->is_string()) {
      if (const json* target = Resolve(ref->get<std::string>())) Walk(*target, value, pointer, reason, depth + 1, out);
      return;  // draft-07: siblings of $ref are ignored
    }
    if (!CheckType(schema, value, pointer, reason, out)) return;
    CheckValue(schema, value, pointer, reason, out);
    if (value.is_string()) CheckString(schema, value.get<std::string>(), pointer, reason, out);
    if (value.is_number()) CheckNumber(schema, value, pointer, reason, out);
    if (value.is_object()) CheckObject(schema, value, pointer, reason, depth, out);
    if (value.is_array()) CheckArray(schema, value, pointer, reason, depth, out);
    CheckCombinations(schema, value, pointer, reason, depth, out);
  }

  bool Valid(const json& schema, const json& value, int depth) {
    std::vector<Finding> scratch;
    Walk(schema, value, "", "", depth + 1, scratch);
    return scratch.empty();
  }

 private:
  const json* Resolve(const std::string& ref) {
    if (ref.empty() || ref[0] != '#') return nullptr;
    try {
      const json::json_pointer p(ref.substr(1));
      return root_.contains(p) ? &root_.at(p) : nullptr;
    } catch (const std::exception&) {
      return nullptr;
    }
  }

  static void Add(std::vector<Finding>& out, const std::string& pointer, bool at_key, std::string message,
                  const std::string& reason) {
    if (!reason.empty()) message += " (" + reason + ")";
    out.push_back({pointer, at_key, std::move(message)});
  }

  static std::string Field(const std::string& pointer) {
    return pointer.substr(pointer.rfind('/') + 1);
  }

  bool CheckType(const json& schema, const json& value, const std::string& pointer, const std::string& reason,
                 std::vector<Finding>& out) {
    auto type = schema.find("type");
    if (type == schema.end()) return true;
    std::vector<std::string> types;
    if (type->is_string()) types.push_back(type->get<std::string>());
    if (type->is_array()) {
      for (const json& t : *type) {
        if (t.is_string()) types.push_back(t.get<std::string>());
      }
    }
    std::string expected;
    for (const std::string& t : types) {
      if (HasType(value, t)) return true;
      expected += (expected.empty() ? "" : " or ") + TypeName(t);
    }
    Add(out, pointer, false, "must be " + expected + "; found " + Describe(value), reason);
    return false;
  }

  void CheckValue(const json& schema, const json& value, const std::string& pointer, const std::string& reason,
                  std::vector<Finding>& out) {
    if (auto c = schema.find("const"); c != schema.end() && *c != value) {
      Add(out, pointer, false, "must be " + Describe(*c) + "; found " + Describe(value), reason);
    }
    if (auto e = schema.find("enum"); e != schema.end() && e->is_array()) {
      for (const json& v : *e) {
        if (v == value) return;
      }
      Add(out, pointer, false, "must be one of " + Join(*e) + "; found " + Describe(value), reason);
    }
  }

  void CheckString(const json& schema, const std::string& s, const std::string& pointer, const std::string& reason,
                   std::vector<Finding>& out) {
    const size_t length = Utf8Length(s);
    if (auto m = schema.find("minLength"); m != schema.end() && m->is_number() && length < m->get<double>()) {
      Add(out, pointer, false,
          m->get<double>() == 1 ? std::string("must not be empty") : "must be at least " + Number(*m) + " characters long",
          reason);
    }
    if (auto m = schema.find("maxLength"); m != schema.end() && m->is_number() && length > m->get<double>()) {
      Add(out, pointer, false, "must be at most " + Number(*m) + " characters long; found " + std::to_string(length),
          reason);
      return;  // a pattern message on an overlong value says nothing new
    }
    if (auto p = schema.find("pattern"); p != schema.end() && p->is_string()) {
      if (!Matches(p->get<std::string>(), s)) {
        std::string what = "must match " + p->get<std::string>();
        if (auto d = schema.find("description"); d != schema.end() && d->is_string()) {
          what = "must be " + d->get<std::string>();
        }
        Add(out, pointer, false, what + "; found " + Quoted(s), reason);
      }
    }
  }

  void CheckNumber(const json& schema, const json& value, const std::string& pointer, const std::string& reason,
                   std::vector<Finding>& out) {
    const double v = value.get<double>();
    if (auto m = schema.find("minimum"); m != schema.end() && m->is_number() && v < m->get<double>()) {
      Add(out, pointer, false, "must be at least " + Number(*m) + "; found " + Describe(value), reason);
    }
    if (auto m = schema.find("maximum"); m != schema.end() && m->is_number() && v > m->get<double>()) {
      Add(out, pointer, false, "must be at most " + Number(*m) + "; found " + Describe(value), reason);
    }
    if (auto m = schema.find("exclusiveMinimum"); m != schema.end() && m->is_number() && v <= m->get<double>()) {
      Add(out, pointer, false, "must be greater than " + Number(*m) + "; found " + Describe(value), reason);
    }
    if (auto m = schema.find("exclusiveMaximum"); m != schema.end() && m->is_number() && v >= m->get<double>()) {
      Add(out, pointer, false, "must be less than " + Number(*m) + "; found " + Describe(value), reason);
    }
    if (auto m = schema.find("multipleOf"); m != schema.end() && m->is_number() && m->get<double>() > 0) {
      const double q = v / m->get<double>();
      if (!std::isfinite(q) || std::fabs(q - std::round(q)) > 1e-9 * std::max(1.0, std::fabs(q))) {
        Add(out, pointer, false, "must be a multiple of " + Number(*m) + "; found " + Describe(value), reason);
      }
    }
  }

  void CheckObject(const json& schema, const json& value, const std::string& pointer, const std::string& reason,
                   int depth, std::vector<Finding>& out) {
    if (auto r = schema.find("required"); r != schema.end() && r->is_array()) {
      for (const json& name : *r) {
        if (name.is_string() && !value.contains(name.get<std::string>())) {
          Add(out, pointer, false, "missing required field " + Quoted(name.get<std::string>()), reason);
        }
      }
    }
    const json* properties = nullptr;
    if (auto p = schema.find("properties"); p != schema.end() && p->is_object()) properties = &*p;
    const json* patterns = nullptr;
    if (auto p = schema.find("patternProperties"); p != schema.end() && p->is_object()) patterns = &*p;
    auto additional = schema.find("additionalProperties");
    auto names = schema.find("propertyNames");
    for (const auto& [key, item] : value.items()) {
      const std::string child = pointer + "/" + EscapePointerToken(key);
      if (names != schema.end() && !Valid(*names, json(key), depth)) {
        Add(out, child, true, "the key " + Quoted(key) + " is not allowed" + NameRule(*names), reason);
      }
      bool matched_pattern = false;
      if (patterns) {
        for (const auto& [pattern, sub] : patterns->items()) {
          if (!Matches(pattern, key)) continue;
          matched_pattern = true;
          if (sub.is_boolean() && !sub.get<bool>()) {
            Add(out, child, true, "field " + Quoted(key) + " is not allowed here", reason);
          } else {
            Walk(sub, item, child, reason, depth + 1, out);
          }
        }
      }
      if (properties && properties->contains(key)) {
        const json& sub = (*properties)[key];
        if (sub.is_boolean() && !sub.get<bool>()) {
          Add(out, child, true, "field " + Quoted(key) + " is not allowed here", reason);
        } else {
          Walk(sub, item, child, reason, depth + 1, out);
        }
      } else if (matched_pattern) {
        // described by patternProperties: additionalProperties does not apply
      } else if (additional != schema.end()) {
        if (additional->is_boolean() && !additional->get<bool>()) {
          Add(out, child, true, "unknown field " + Quoted(key), reason);
        } else {
          Walk(*additional, item, child, reason, depth + 1, out);
        }
      }
    }
    if (auto m = schema.find("minProperties"); m != schema.end() && m->is_number() && value.size() < m->get<double>()) {
      Add(out, pointer, false, "must have at least " + Number(*m) + " fields", reason);
    }
    if (auto m = schema.find("maxProperties"); m != schema.end() && m->is_number() && value.size() > m->get<double>()) {
      Add(out, pointer, false, "must have at most " + Number(*m) + " fields; found " + std::to_string(value.size()),
          reason);
    }
    if (auto d = schema.find("dependencies"); d != schema.end() && d->is_object()) {
      for (const auto& [name, needs] : d->items()) {
        if (!value.contains(name)) continue;
        if (needs.is_array()) {
          for (const json& other : needs) {
            if (other.is_string() && !value.contains(other.get<std::string>())) {
              Add(out, pointer, false,
                  "missing field " + Quoted(other.get<std::string>()) + ", which field " + Quoted(name) + " needs", reason);
            }
          }
        } else {
          Walk(needs, value, pointer, reason, depth + 1, out);
        }
      }
    }
  }

  static std::string NameRule(const json& names) {
    if (names.is_object()) {
      if (auto d = names.find("description"); d != names.end() && d->is_string()) {
        return "; keys must be " + d->get<std::string>();
      }
    }
    return "";
  }

  void CheckArray(const json& schema, const json& value, const std::string& pointer, const std::string& reason,
                  int depth, std::vector<Finding>& out) {
    if (auto m = schema.find("minItems"); m != schema.end() && m->is_number() && value.size() < m->get<double>()) {
      Add(out, pointer, false, "must have at least " + Number(*m) + " item" + (m->get<double>() == 1 ? "" : "s"), reason);
    }
    if (auto m = schema.find("maxItems"); m != schema.end() && m->is_number() && value.size() > m->get<double>()) {
      Add(out, pointer, false, "must have at most " + Number(*m) + " items; found " + std::to_string(value.size()),
          reason);
    }
    auto max = schema.find("maxItems");
    const bool overlong = max != schema.end() && max->is_number() && value.size() > max->get<double>();
    if (auto u = schema.find("uniqueItems"); u != schema.end() && *u == true && !overlong) {
      // Each item against the first equal one (ordered map: n log n, not n^2).
      std::map<json, size_t> first;
      for (size_t i = 0; i < value.size(); ++i) {
        auto [it, inserted] = first.emplace(value[i], i);
        if (!inserted) {
          Add(out, pointer + "/" + std::to_string(i), false,
              "repeats item " + std::to_string(it->second) + " (" + Describe(value[i]) + ")", reason);
        }
      }
    }
    if (auto c = schema.find("contains"); c != schema.end()) {
      bool any = false;
      for (size_t i = 0; i < value.size() && !any; ++i) any = Valid(*c, value[i], depth);
      if (!any) Add(out, pointer, false, "has no item of the required form", Description(schema, reason));
    }
    if (auto items = schema.find("items"); items != schema.end() && (items->is_object() || items->is_boolean())) {
      for (size_t i = 0; i < value.size(); ++i) {
        Walk(*items, value[i], pointer + "/" + std::to_string(i), reason, depth + 1, out);
      }
    } else if (items != schema.end() && items->is_array()) {
      // A tuple: item i by schema i, the rest by additionalItems.
      auto rest = schema.find("additionalItems");
      for (size_t i = 0; i < value.size(); ++i) {
        const std::string at = pointer + "/" + std::to_string(i);
        if (i < items->size()) {
          Walk((*items)[i], value[i], at, reason, depth + 1, out);
        } else if (rest != schema.end() && rest->is_boolean() && !rest->get<bool>()) {
          Add(out, at, false, "is not allowed: at most " + std::to_string(items->size()) + " items here", reason);
          break;
        } else if (rest != schema.end()) {
          Walk(*rest, value[i], at, reason, depth + 1, out);
        }
      }
    }
  }

  void CheckCombinations(const json& schema, const json& value, const std::string& pointer, const std::string& reason,
                         int depth, std::vector<Finding>& out) {
    if (auto all = schema.find("allOf"); all != schema.end() && all->is_array()) {
      for (const json& sub : *all) Walk(sub, value, pointer, reason, depth + 1, out);
    }
    if (auto cond = schema.find("if"); cond != schema.end()) {
      std::string why = reason;
      if (auto d = schema.find("description"); d != schema.end() && d->is_string()) why = d->get<std::string>();
      const bool holds = Valid(*cond, value, depth);
      auto branch = schema.find(holds ? "then" : "else");
      if (branch != schema.end()) Walk(*branch, value, pointer, why, depth + 1, out);
    }
    for (const char* keyword : {"anyOf", "oneOf"}) {
      auto alternatives = schema.find(keyword);
      if (alternatives == schema.end() || !alternatives->is_array()) continue;
      size_t matched = 0;
      for (const json& sub : *alternatives) matched += Valid(sub, value, depth);
      if (matched == 0) {
        Add(out, pointer, false, "matches none of the allowed forms", Description(schema, reason));
      } else if (matched > 1 && std::string(keyword) == "oneOf") {
        Add(out, pointer, false, "matches more than one of the allowed forms", Description(schema, reason));
      }
    }
    if (auto n = schema.find("not"); n != schema.end() && Valid(*n, value, depth)) {
      Add(out, pointer, false, "is not allowed", Description(schema, reason));
    }
  }

  static std::string Description(const json& schema, const std::string& fallback) {
    if (auto d = schema.find("description"); d != schema.end() && d->is_string()) return d->get<std::string>();
    return fallback;
  }

  bool Matches(const std::string& pattern, const std::string& s) {
    try {
      auto it = regexes_.find(pattern);
      if (it == regexes_.end()) it = regexes_.emplace(pattern, std::regex(pattern, std::regex::ECMAScript)).first;
      return std::regex_search(s, it->second);
    } catch (const std::exception&) {
      return true;  // left to valijson
    }
  }

  const json& root_;
  std::map<std::string, std::regex> regexes_;
};

}  // namespace

std::vector<Finding> ExplainSchemaFailures(const json& schema, const json& document) {
  Explainer explainer(schema);
  std::vector<Finding> out;
  explainer.Walk(schema, document, "", "", 0, out);
  return out;
}

}  // namespace volent::manifest
