// The spec test command model: one .wast script as the list of commands that
// `wast2json` writes, held as plain data.
//
// Nothing here touches the engine; the runner (runner.h) gives the commands
// their meaning. Field names follow the JSON that wabt 1.0.32 emits.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ampoule/spectest/spec_value.h"

namespace ampoule::spectest {

// An `invoke` or `get` on an export of a module instance.
struct Action {
  enum class Kind : uint8_t { kInvoke, kGet };
  Kind kind = Kind::kInvoke;
  std::string module;            // "$name" of a named module; empty = the latest module
  std::string field;             // export name, UTF-8 as in the script
  std::vector<SpecValue> args;   // kInvoke only; every arg has kind kExact or kV128
};

enum class CommandKind : uint8_t {
  kModule,               // instantiate `filename`, optionally under `name`
  kRegister,             // make module `name` (or the latest) importable as `as`
  kAction,               // perform `action`; only a trap fails it
  kAssertReturn,         // `action` returns `expected`
  kAssertTrap,           // `action` traps with `text`
  kAssertExhaustion,     // `action` exhausts the call stack (`text`)
  kAssertInvalid,        // `filename` fails validation
  kAssertMalformed,      // `filename` fails decoding (module_type "binary"), or parsing ("text")
  kAssertUnlinkable,     // `filename` compiles but fails to link
  kAssertUninstantiable, // `filename` links, then traps while instantiating
};

// The command's name as written in a .wast script, e.g. "assert_return".
const char* CommandKindName(CommandKind kind);

struct Command {
  CommandKind kind = CommandKind::kModule;
  uint32_t line = 0;             // line in the .wast script
  std::string name;              // kModule: its "$name" (may be empty); kRegister: the module to register
  std::string as;                // kRegister: the import module name it becomes
  std::string filename;          // module file, relative to the JSON file's folder
  std::string module_type;       // module assertions: "binary" or "text"
  std::string text;              // expected failure message
  std::optional<Action> action;  // set for kAction and kAssertReturn/Trap/Exhaustion
  std::vector<SpecValue> expected;  // kAssertReturn results (others: informative only)
};

struct CommandFile {
  std::string source_filename;   // the .wast path wast2json read
  std::vector<Command> commands;
};

}  // namespace ampoule::spectest
