#include "ampoule/spectest/command_reader.h"

#include <nlohmann/json.hpp>

namespace ampoule::spectest {
namespace {

using nlohmann::json;

struct KindName {
  const char* name;
  CommandKind kind;
};
constexpr KindName kKinds[] = {
    {"module", CommandKind::kModule},
    {"register", CommandKind::kRegister},
    {"action", CommandKind::kAction},
    {"assert_return", CommandKind::kAssertReturn},
    {"assert_trap", CommandKind::kAssertTrap},
    {"assert_exhaustion", CommandKind::kAssertExhaustion},
    {"assert_invalid", CommandKind::kAssertInvalid},
    {"assert_malformed", CommandKind::kAssertMalformed},
    {"assert_unlinkable", CommandKind::kAssertUnlinkable},
    {"assert_uninstantiable", CommandKind::kAssertUninstantiable},
};

// Reads an optional string member; absent is "", present but not a string is an error.
core::Result<std::string> OptionalString(const json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end()) return std::string();
  if (!it->is_string()) return core::Error{std::string("\"") + key + "\" is not a string"};
  return it->get<std::string>();
}

core::Result<std::string> RequiredString(const json& object, const char* key) {
  if (object.find(key) == object.end()) return core::Error{std::string("\"") + key + "\" is missing"};
  return OptionalString(object, key);
}

core::Result<SpecValue> ReadValue(const json& v) {
  if (!v.is_object()) return core::Error{"a value is not a JSON object"};
  core::Result<std::string> type = RequiredString(v, "type");
  if (!type) return type.error();
  auto it = v.find("value");
  if (it == v.end()) return ParseSpecValue(*type, "", false);
  if (it->is_array()) {
    // v128 lanes; anything else with an array value is malformed.
    if (*type != "v128") return core::Error{*type + " value is an array"};
    return ParseSpecValue(*type, "", true);
  }
  if (!it->is_string()) return core::Error{*type + " value is not a string"};
  return ParseSpecValue(*type, it->get<std::string>(), true);
}

core::Result<std::vector<SpecValue>> ReadValues(const json& object, const char* key) {
  std::vector<SpecValue> out;
  auto it = object.find(key);
  if (it == object.end()) return out;
  if (!it->is_array()) return core::Error{std::string("\"") + key + "\" is not an array"};
  for (const json& v : *it) {
    core::Result<SpecValue> value = ReadValue(v);
    if (!value) return core::Error{std::string(key) + ": " + value.message()};
    out.push_back(*value);
  }
  return out;
}

core::Result<Action> ReadAction(const json& a) {
  if (!a.is_object()) return core::Error{"\"action\" is not an object"};
  Action action;
  core::Result<std::string> type = RequiredString(a, "type");
  if (!type) return type.error();
  if (*type == "invoke") {
    action.kind = Action::Kind::kInvoke;
  } else if (*type == "get") {
    action.kind = Action::Kind::kGet;
  } else {
    return core::Error{"unknown action type \"" + *type + "\""};
  }
  core::Result<std::string> module = OptionalString(a, "module");
  core::Result<std::string> field = RequiredString(a, "field");
  core::Result<std::vector<SpecValue>> args = ReadValues(a, "args");
  if (!module) return module.error();
  if (!field) return field.error();
  if (!args) return args.error();
  for (const SpecValue& arg : *args) {
    if (arg.kind != SpecValue::Kind::kExact && arg.kind != SpecValue::Kind::kV128) {
      return core::Error{"argument " + FormatSpecValue(arg) + " is not a concrete value"};
    }
  }
  action.module = std::move(*module);
  action.field = std::move(*field);
  action.args = std::move(*args);
  return action;
}

core::Result<CommandKind> ReadKind(const json& c) {
  core::Result<std::string> type = RequiredString(c, "type");
  if (!type) return type.error();
  for (const KindName& k : kKinds) {
    if (*type == k.name) return k.kind;
  }
  return core::Error{"unknown command type \"" + *type + "\""};
}

core::Status ReadStrings(const json& c, Command& cmd) {
  struct Field {
    const char* key;
    std::string* out;
  };
  const Field fields[] = {{"name", &cmd.name},         {"as", &cmd.as},
                          {"filename", &cmd.filename}, {"module_type", &cmd.module_type},
                          {"text", &cmd.text}};
  for (const Field& f : fields) {
    core::Result<std::string> s = OptionalString(c, f.key);
    if (!s) return s.error();
    *f.out = std::move(*s);
  }
  return core::Status::Ok();
}

// Which fields each kind cannot do without.
core::Status CheckRequired(const Command& cmd) {
  switch (cmd.kind) {
    case CommandKind::kModule:
    case CommandKind::kAssertInvalid:
    case CommandKind::kAssertMalformed:
    case CommandKind::kAssertUnlinkable:
    case CommandKind::kAssertUninstantiable:
      if (cmd.filename.empty()) return core::Error{"\"filename\" is missing"};
      return core::Status::Ok();
    case CommandKind::kRegister:
      if (cmd.as.empty()) return core::Error{"\"as\" is missing"};
      return core::Status::Ok();
    case CommandKind::kAction:
    case CommandKind::kAssertReturn:
    case CommandKind::kAssertTrap:
    case CommandKind::kAssertExhaustion:
      if (!cmd.action) return core::Error{"\"action\" is missing"};
      return core::Status::Ok();
  }
  return core::Status::Ok();
}

core::Result<Command> ReadCommand(const json& c) {
  if (!c.is_object()) return core::Error{"a command is not a JSON object"};
  Command cmd;
  auto line = c.find("line");
  if (line != c.end()) {
    if (!line->is_number_unsigned() || line->get<uint64_t>() > UINT32_MAX) {
      return core::Error{"\"line\" is not a line number"};
    }
    cmd.line = line->get<uint32_t>();
  }
  auto at_line = [&](const std::string& message) {
    return core::Error{"command at line " + std::to_string(cmd.line) + ": " + message};
  };
  core::Result<CommandKind> kind = ReadKind(c);
  if (!kind) return at_line(kind.message());
  cmd.kind = *kind;
  core::Status strings = ReadStrings(c, cmd);
  if (!strings.ok()) return at_line(strings.message());
  if (auto a = c.find("action"); a != c.end()) {
    core::Result<Action> action = ReadAction(*a);
    if (!action) return at_line(action.message());
    cmd.action = std::move(*action);
  }
  core::Result<std::vector<SpecValue>> expected = ReadValues(c, "expected");
  if (!expected) return at_line(expected.message());
  cmd.expected = std::move(*expected);
  core::Status required = CheckRequired(cmd);
  if (!required.ok()) return at_line(required.message());
  return cmd;
}

}  // namespace

const char* CommandKindName(CommandKind kind) {
  for (const KindName& k : kKinds) {
    if (k.kind == kind) return k.name;
  }
  return "?";
}

core::Result<CommandFile> ReadCommandFile(std::string_view json_text) {
  json doc = json::parse(json_text.begin(), json_text.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return core::Error{"not valid JSON"};
  if (!doc.is_object()) return core::Error{"the top level is not a JSON object"};
  CommandFile file;
  core::Result<std::string> source = OptionalString(doc, "source_filename");
  if (!source) return source.error();
  file.source_filename = std::move(*source);
  auto commands = doc.find("commands");
  if (commands == doc.end() || !commands->is_array()) return core::Error{"\"commands\" is missing or not an array"};
  file.commands.reserve(commands->size());
  for (const json& c : *commands) {
    core::Result<Command> cmd = ReadCommand(c);
    if (!cmd) return cmd.error();
    file.commands.push_back(std::move(*cmd));
  }
  return file;
}

}  // namespace ampoule::spectest
