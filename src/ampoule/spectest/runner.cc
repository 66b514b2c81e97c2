#include "ampoule/spectest/runner.h"

#include <map>
#include <optional>

#include "ampoule/spectest/linker.h"
#include "ampoule/spectest/module_loader.h"

namespace ampoule::spectest {
namespace {

using Stage = LoadResult::Stage;

Verdict Make(Verdict::Kind kind, std::string message) {
  Verdict v;
  v.kind = kind;
  v.message = std::move(message);
  return v;
}
Verdict Pass(std::string note = {}) { return Make(Verdict::Kind::kPass, std::move(note)); }
Verdict Fail(std::string message) { return Make(Verdict::Kind::kFail, std::move(message)); }
Verdict Skip(std::string reason) { return Make(Verdict::Kind::kSkip, std::move(reason)); }

std::string Quote(const std::string& s) { return "\"" + s + "\""; }

std::string FormatResults(const std::vector<wasm::Value>& values) {
  std::string s = "[";
  for (size_t i = 0; i < values.size(); ++i) s += (i ? " " : "") + FormatEngineValue(values[i]);
  return s + "]";
}

std::string FormatExpected(const std::vector<SpecValue>& values) {
  std::string s = "[";
  for (size_t i = 0; i < values.size(); ++i) s += (i ? " " : "") + FormatSpecValue(values[i]);
  return s + "]";
}

// What an outcome was, for "got ..." in messages.
std::string Describe(const wasm::Outcome& o) {
  if (o.stop == wasm::StopReason::kReturned) return FormatResults(o.results);
  if (o.stop == wasm::StopReason::kTrap) return "trap \"" + OutcomeMessage(o) + "\"";
  return OutcomeMessage(o);
}

bool UsesV128(const Command& cmd) {
  auto any = [](const std::vector<SpecValue>& vs) {
    for (const SpecValue& v : vs) {
      if (v.kind == SpecValue::Kind::kV128 || v.type == wasm::ValType::V128) return true;
    }
    return false;
  };
  return any(cmd.expected) || (cmd.action && any(cmd.action->args));
}

// Whether `o` is a trap with the script's `expected` message. As in the
// reference interpreter, the engine's message may extend the script's text.
// The engine's messages name no operands where the reference interpreter's
// do ("uninitialized element 2"), so a script text that extends the
// engine's fixed message for the trap kind matches too.
bool TrapMatches(const wasm::Outcome& o, const std::string& expected) {
  if (o.stop != wasm::StopReason::kTrap) return false;
  if (OutcomeMessage(o).starts_with(expected)) return true;
  if (o.trap == wasm::TrapKind::kHost) return false;
  std::string fixed = wasm::TrapMessage(o.trap);
  return expected.starts_with(fixed) && (expected.size() == fixed.size() || expected[fixed.size()] == ' ');
}

// A note for a failure whose wording differs from the script's.
std::string WordingNote(const std::string& expected, const std::string& got) {
  if (got.find(expected) != std::string::npos) return {};
  return "failed as expected, but with \"" + got + "\" where the script says \"" + expected + "\"";
}

class ScriptRunner {
 public:
  explicit ScriptRunner(std::filesystem::path dir)
      : dir_(std::move(dir)), store_(kSpectestLimits), linker_(store_) {}

  Verdict Run(const Command& cmd) {
    switch (cmd.kind) {
      case CommandKind::kModule: return DefineModule(cmd);
      case CommandKind::kRegister: return RegisterModule(cmd);
      case CommandKind::kAction:
      case CommandKind::kAssertReturn:
      case CommandKind::kAssertTrap:
      case CommandKind::kAssertExhaustion: return RunAction(cmd);
      case CommandKind::kAssertInvalid:
      case CommandKind::kAssertMalformed: return ExpectCompileFailure(cmd);
      case CommandKind::kAssertUnlinkable: return ExpectLinkFailure(cmd);
      case CommandKind::kAssertUninstantiable: return ExpectInstantiationTrap(cmd);
    }
    return Fail("unknown command");
  }

 private:
  Verdict DefineModule(const Command& cmd) {
    LoadResult r = LoadFile(dir_ / cmd.filename, store_, linker_, kSpectestFuelPerCall);
    ModuleSlot slot;
    slot.line = cmd.line;
    Verdict v = Pass();
    switch (r.stage) {
      case Stage::kReady:
        slot.state = ModuleSlot::State::kReady;
        slot.instance = r.instance;
        break;
      case Stage::kSimd:
      case Stage::kSimdDependency:
        slot.state = ModuleSlot::State::kSimd;
        v = Skip(kSimdSkipReason);
        break;
      case Stage::kTrapped:
        v = Fail("module " + cmd.filename + " trapped while instantiating: " + Describe(r.outcome));
        break;
      default:
        v = Fail("module " + cmd.filename + " did not load: " + r.message);
        break;
    }
    // A module that did not load still becomes the latest (and named)
    // module, so the commands that use it fail rather than run elsewhere.
    latest_ = slot;
    if (!cmd.name.empty()) named_[cmd.name] = slot;
    return v;
  }

  Verdict RegisterModule(const Command& cmd) {
    const ModuleSlot* slot = FindSlot(cmd.name);
    if (!slot) return Fail(NoModule(cmd.name));
    linker_.Register(cmd.as, *slot);
    if (slot->state == ModuleSlot::State::kSimd) return Skip(kSimdSkipReason);
    if (slot->state != ModuleSlot::State::kReady) {
      return Fail("cannot register " + Quote(cmd.as) + ": the module from line " +
                  std::to_string(slot->line) + " did not load");
    }
    return Pass();
  }

  Verdict RunAction(const Command& cmd) {
    if (UsesV128(cmd)) return Skip(kSimdSkipReason);
    const Action& action = *cmd.action;
    const ModuleSlot* slot = FindSlot(action.module);
    if (!slot) return Fail(NoModule(action.module));
    if (slot->state == ModuleSlot::State::kSimd) return Skip(kSimdSkipReason);
    if (slot->state != ModuleSlot::State::kReady) {
      return Fail("the module from line " + std::to_string(slot->line) + " did not load");
    }
    std::string error;
    std::optional<wasm::Outcome> outcome = Perform(*slot->instance, action, &error);
    if (!outcome) return Fail(error);
    std::string what = (action.kind == Action::Kind::kInvoke ? "invoke " : "get ") + Quote(action.field);
    switch (cmd.kind) {
      case CommandKind::kAssertReturn: return CheckReturn(cmd, what, *outcome);
      case CommandKind::kAssertTrap:
      case CommandKind::kAssertExhaustion: return CheckTrap(cmd, what, *outcome);
      default: break;
    }
    if (outcome->stop != wasm::StopReason::kReturned) return Fail(what + ": " + Describe(*outcome));
    return Pass();
  }

  // Runs an invoke or get; nullopt (with `error`) if the export is missing or
  // of the wrong kind.
  std::optional<wasm::Outcome> Perform(const wasm::Instance& inst, const Action& action,
                                       std::string* error) {
    std::optional<wasm::Extern> ext = inst.GetExport(action.field);
    wasm::ExternKind want = action.kind == Action::Kind::kInvoke ? wasm::ExternKind::Func
                                                                   : wasm::ExternKind::Global;
    if (!ext || ext->kind != want) {
      *error = std::string("no ") + wasm::ExternKindName(want) + " export named " + Quote(action.field);
      return std::nullopt;
    }
    if (action.kind == Action::Kind::kGet) {
      wasm::Outcome o;
      o.results.push_back(wasm::Value{ext->global->type.type, ext->global->bits});
      return o;
    }
    std::vector<wasm::Value> args;
    for (const SpecValue& a : action.args) args.push_back(ToEngineValue(a));
    store_.set_fuel(kSpectestFuelPerCall);
    return store_.Invoke(ext->func, args);
  }

  Verdict CheckReturn(const Command& cmd, const std::string& what, const wasm::Outcome& o) {
    bool ok = o.stop == wasm::StopReason::kReturned && o.results.size() == cmd.expected.size();
    for (size_t i = 0; ok && i < o.results.size(); ++i) ok = Matches(cmd.expected[i], o.results[i]);
    if (ok) return Pass();
    return Fail(what + ": expected " + FormatExpected(cmd.expected) + ", got " + Describe(o));
  }

  Verdict CheckTrap(const Command& cmd, const std::string& what, const wasm::Outcome& o) {
    if (TrapMatches(o, cmd.text)) return Pass();
    return Fail(what + ": expected trap " + Quote(cmd.text) + ", got " + Describe(o));
  }

  Verdict ExpectCompileFailure(const Command& cmd) {
    if (cmd.module_type == "text") return Skip(kTextSkipReason);
    std::shared_ptr<const wasm::CompiledModule> compiled;
    LoadResult r = CompileFile(dir_ / cmd.filename, &compiled);
    switch (r.stage) {
      case Stage::kCompileFailed: return Pass(WordingNote(cmd.text, r.message));
      case Stage::kSimd: return Skip(kSimdSkipReason);
      case Stage::kCompiled:
        return Fail("expected the module to be rejected (" + Quote(cmd.text) + "), but it compiled");
      default: return Fail(r.message);
    }
  }

  Verdict ExpectLinkFailure(const Command& cmd) {
    LoadResult r = LoadFile(dir_ / cmd.filename, store_, linker_, kSpectestFuelPerCall);
    switch (r.stage) {
      case Stage::kLinkFailed: return Pass(WordingNote(cmd.text, r.message));
      case Stage::kSimd:
      case Stage::kSimdDependency: return Skip(kSimdSkipReason);
      case Stage::kReady: return Fail("expected a link failure (" + Quote(cmd.text) + "), but it instantiated");
      case Stage::kTrapped:
        return Fail("expected a link failure (" + Quote(cmd.text) + "), got " + Describe(r.outcome));
      default: return Fail("expected a link failure, but the module did not compile: " + r.message);
    }
  }

  Verdict ExpectInstantiationTrap(const Command& cmd) {
    LoadResult r = LoadFile(dir_ / cmd.filename, store_, linker_, kSpectestFuelPerCall);
    switch (r.stage) {
      case Stage::kTrapped:
        if (TrapMatches(r.outcome, cmd.text)) return Pass();
        return Fail("expected instantiation to trap " + Quote(cmd.text) + ", got " + Describe(r.outcome));
      case Stage::kSimd:
      case Stage::kSimdDependency: return Skip(kSimdSkipReason);
      case Stage::kReady:
        return Fail("expected instantiation to trap " + Quote(cmd.text) + ", but it instantiated");
      default: return Fail("expected instantiation to trap, but the module did not load: " + r.message);
    }
  }

  const ModuleSlot* FindSlot(const std::string& name) const {
    if (name.empty()) return latest_ ? &*latest_ : nullptr;
    auto it = named_.find(name);
    return it == named_.end() ? nullptr : &it->second;
  }

  static std::string NoModule(const std::string& name) {
    return name.empty() ? "no module has been defined yet" : "no module named " + name;
  }

  std::filesystem::path dir_;
  wasm::Store store_;
  Linker linker_;
  std::optional<ModuleSlot> latest_;
  std::map<std::string, ModuleSlot> named_;
};

}  // namespace

bool IsSimdScript(std::string_view file_name) { return file_name.starts_with("simd_"); }

void RunCommandFile(const CommandFile& file, std::string_view script_name,
                    const std::filesystem::path& dir, const VerdictSink& sink) {
  bool simd = IsSimdScript(script_name);
  std::optional<ScriptRunner> runner;
  if (!simd) runner.emplace(dir);
  for (const Command& cmd : file.commands) {
    Verdict v = simd ? Skip(kSimdSkipReason) : runner->Run(cmd);
    v.command = cmd.kind;
    v.line = cmd.line;
    sink(v);
  }
}

}  // namespace ampoule::spectest
