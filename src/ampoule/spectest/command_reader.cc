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
Result<std::string> OptionalString(const json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end()) return std::string();
  if (!it->is_string()) return Error{std::string("\"") + key + "\" is not a string"};
  return it->get<std::string>();
}

Result<std::string> RequiredString(const json& object, const char* key) {
  if (object.find(key) == object.end()) return Error{std::string("\"") + key + "\" is missing"};
  return OptionalString(object, key);
}

Result<SpecValue> ReadValue(const json& v) {
  if (!v.is_object()) return Error{"a value is not a JSON object"};
  Result<std::string> type = RequiredString(v, "type");
  if (!type) return type.error();
  auto it = v.find("value");
  if (it == v.end()) return ParseSpecValue(*type, "", false);
  if (it->is_array()) {
    // v128 lanes; anything else with an array value is malformed.
    if (*type != "v128") return Error{*type + " value is an array"};
    return ParseSpecValue(*type, "", true);
  }
  if (!it->is_string()) return Error{*type + " value is not a string"};
  return ParseSpecValue(*type, it->get<std::string>(), true);
}

Result<std::vector<SpecValue>> ReadValues(const json& object, const char* key) {
  std::vector<SpecValue> out;
  auto it = object.find(key);
  if (it == object.end()) return out;
  if (!it->is_array()) return Error{std::string("\"") + key + "\" is not an array"};
  for (const json& v : *it) {
    Result<SpecValue> value = ReadValue(v);
    if (!value) return Error{std::string(key) + ": " + value.message()};
    out.push_back(*value);
  }
  return out;
}

Result<Action> ReadAction(const json& a) {
  if (!a.is_object()) return Error{"\"action\" is not an object"};
  Action action;
  Result<std::string> type = RequiredString(a, "type");
  if (!type) return type.error();
  if (*type == "invoke") {
    action.kind = Action::Kind::kInvoke;
  } else if (*type == "get") {
    action.kind = Action::Kind::kGet;
  } else {
    return Error{"unknown action type \"" + *type + "\""};
  }
  Result<std::string> module = OptionalString(a, "module");
  Result<std::string> field = RequiredString(a, "field");
  Result<std::vector<SpecValue>> args = ReadValues(a, "args");
  if (!module) return module.error();
  if (!field) return field.error();
  if (!args) return args.error();
  for (const SpecValue& arg : *args) {
    if (arg.kind != SpecValue::Kind::kExact && arg.kind != SpecValue::Kind::kV128) {
      return Error{"argument " + FormatSpecValue(arg) + " is not a concrete value"};
    }
  }
  action.module = std::move(*module);
  action.field = std::move(*field);
  action.args = std::move(*args);
  return action;
}

Result<CommandKind> ReadKind(const json& c) {
  Result<std::string> type = RequiredString(c, "type");
  if (!type) return type.error();
  for (const KindName& k : kKinds) {
    if (*type == k.name) return k.kind;
  }
  return Error{"unknown command type \"" + *type + "\""};
}

Status ReadStrings(const json& c, Command& cmd) {
  struct Field {
    const char* key;
    std::string* out;
  };
  const Field fields[] = {{"name", &cmd.name},         {"as", &cmd.as},
                          {"filename", &cmd.filename}, {"module_type", &cmd.module_type},
                          {"text", &cmd.text}};
  for (const Field& f : fields) {
    Result<std::string> s = OptionalString(c, f.key);
    if (!s) return s.error();
    *f.out = std::move(*s);
  }
  return Status::Ok();
}

// Which fields each kind cannot do without.
Status CheckRequired(const Command& cmd) {
  switch (cmd.kind) {
    case CommandKind::kModule:
    case CommandKind::kAssertInvalid:
    case CommandKind::kAssertMalformed:
    case CommandKind::kAssertUnlinkable:
    case CommandKind::kAssertUninstantiable:
      if (cmd.filename.empty()) return Error{"\"filename\" is missing"};
      return Status::Ok();
    case CommandKind::kRegister:
      if (cmd.as.empty()) return Error{"\"as\" is missing"};
      return Status::Ok();
    case CommandKind::kAction:
    case CommandKind::kAssertReturn:
    case CommandKind::kAssertTrap:
    case CommandKind::kAssertExhaustion:
      if (!cmd.action) return Error{"\"action\" is missing"};
      return Status::Ok();
  }
  return Status::Ok();
}

Result<Command> ReadCommand(const json& c) {
  if (!c.is_object()) return Error{"a command is not a JSON object"};
  Command cmd;
  auto line = c.find("line");
  if (line != c.end()) {
    if (!line->is_number_unsigned() || line->get<uint64_t>() > UINT32_MAX) {
      return Error{"\"line\" is not a line number"};
    }
    cmd.line = line->get<uint32_t>();
  }
  auto at_line = [&](const std::string& message) {
    return Error{"command at line " + std::to_string(cmd.line) + ": " + message};
  };
  Result<CommandKind> kind = ReadKind(c);
  if (!kind) return at_line(kind.message());
  cmd.kind = *kind;
  Status strings = ReadStrings(c, cmd);
  if (!strings.ok()) return at_line(strings.message());
  if (auto a = c.find("action"); a != c.end()) {
    Result<Action> action = ReadAction(*a);
    if (!action) return at_line(action.message());
    cmd.action = std::move(*action);
  }
  Result<std::vector<SpecValue>> expected = ReadValues(c, "expected");
  if (!expected) return at_line(expected.message());
  cmd.expected = std::move(*expected);
  Status required = CheckRequired(cmd);
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

Result<CommandFile> ReadCommandFile(std::string_view json_text) {
  json doc = json::parse(json_text.begin(), json_text.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return Error{"not valid JSON"};
  if (!doc.is_object()) return Error{"the top level is not a JSON object"};
  CommandFile file;
  Result<std::string> source = OptionalString(doc, "source_filename");
  if (!source) return source.error();
  file.source_filename = std::move(*source);
  auto commands = doc.find("commands");
  if (commands == doc.end() || !commands->is_array()) return Error{"\"commands\" is missing or not an array"};
  file.commands.reserve(commands->size());
  for (const json& c : *commands) {
    Result<Command> cmd = ReadCommand(c);
    if (!cmd) return cmd.error();
    file.commands.push_back(std::move(*cmd));
  }
  return file;
}

}  // namespace ampoule::spectest
