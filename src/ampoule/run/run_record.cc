#include "ampoule/run/run_record.h"

#include "ampoule/run/output_files.h"
#include "core/hex.h"
#include "core/json.h"


namespace ampoule::run {
namespace {

using nlohmann::json;

constexpr std::string_view kStopNames[] = {"exit", "trap", "fuel", "memory", "timeout"};
// Indexed by Isolation.
constexpr std::string_view kIsolationNames[] = {"unknown", "none", "jail", "vm"};

json DigestJson(const std::string& sha256, uint64_t bytes) {
  return json{{"sha256", sha256}, {"bytes", bytes}};
}

json OutputJson(const OutputDigest& d) {
  return json{{"sha256", d.sha256},
              {"bytes", d.bytes},
              {"total_bytes", d.total_bytes},
              {"truncated", d.truncated}};
}

// Field readers: each returns an error naming the dotted path of the field.
class Reader {
 public:
  Reader(const json& j, std::string path) : j_(&j), path_(std::move(path)) {}

  core::Result<Reader> Object(std::string_view key) const {
    auto it = Find(key);
    if (!it) return Missing(key, "an object");
    if (!(*it)->is_object()) return Wrong(key, "an object");
    return Reader(**it, Path(key));
  }
  core::Result<const json*> Array(std::string_view key) const {
    auto it = Find(key);
    if (!it) return Missing(key, "an array");
    if (!(*it)->is_array()) return Wrong(key, "an array");
    return *it;
  }
  core::Result<std::string> String(std::string_view key) const {
    auto it = Find(key);
    if (!it) return Missing(key, "a string");
    if (!(*it)->is_string()) return Wrong(key, "a string");
    return (*it)->get<std::string>();
  }
  core::Result<std::string> Sha256(std::string_view key) const {
    auto s = String(key);
    if (!s.ok()) return s;
    if (!core::IsLowerHex(*s, 32)) return Wrong(key, "64 lowercase hex digits");
    return s;
  }
  core::Result<uint64_t> Unsigned(std::string_view key) const {
    auto it = Find(key);
    if (!it) return Missing(key, "an unsigned integer");
    if (!(*it)->is_number_unsigned()) return Wrong(key, "an unsigned integer");
    return (*it)->get<uint64_t>();
  }
  core::Result<int64_t> Integer(std::string_view key) const {
    auto it = Find(key);
    if (!it) return Missing(key, "an integer");
    if (!(*it)->is_number_integer()) return Wrong(key, "an integer");
    return (*it)->get<int64_t>();
  }
  core::Result<double> Number(std::string_view key) const {
    auto it = Find(key);
    if (!it) return Missing(key, "a number");
    if (!(*it)->is_number()) return Wrong(key, "a number");
    return (*it)->get<double>();
  }
  core::Result<bool> Bool(std::string_view key) const {
    auto it = Find(key);
    if (!it) return Missing(key, "true or false");
    if (!(*it)->is_boolean()) return Wrong(key, "true or false");
    return (*it)->get<bool>();
  }
  bool Has(std::string_view key) const { return Find(key).has_value(); }
  const json& value() const { return *j_; }
  std::string Path(std::string_view key) const {
    return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
  }

 private:
  std::optional<const json*> Find(std::string_view key) const {
    auto it = j_->find(key);
    if (it == j_->end()) return std::nullopt;
    return &*it;
  }
  core::Error Missing(std::string_view key, std::string_view what) const {
    return core::Error{"run record: field '" + Path(key) + "' is missing (expected " + std::string(what) + ")"};
  }
  core::Error Wrong(std::string_view key, std::string_view what) const {
    return core::Error{"run record: field '" + Path(key) + "' must be " + std::string(what)};
  }

  const json* j_;
  std::string path_;
};

#define AMP_ASSIGN(lhs, expr)            \
  do {                                   \
    auto amp_r_ = (expr);                \
    if (!amp_r_.ok()) return amp_r_.error(); \
    lhs = std::move(*amp_r_);            \
  } while (0)

core::Result<NamedDigest> ReadNamed(const json& j, const std::string& path) {
  if (!j.is_object()) return core::Error{"run record: " + path + " must be an object"};
  Reader r(j, path);
  NamedDigest d;
  AMP_ASSIGN(d.name, r.String("name"));
  AMP_ASSIGN(d.sha256, r.Sha256("sha256"));
  AMP_ASSIGN(d.bytes, r.Unsigned("bytes"));
  return d;
}

core::Result<OutputDigest> ReadOutput(const Reader& parent, std::string_view key) {
  Reader r = parent;
  AMP_ASSIGN(r, parent.Object(key));
  OutputDigest d;
  AMP_ASSIGN(d.sha256, r.Sha256("sha256"));
  AMP_ASSIGN(d.bytes, r.Unsigned("bytes"));
  AMP_ASSIGN(d.total_bytes, r.Unsigned("total_bytes"));
  AMP_ASSIGN(d.truncated, r.Bool("truncated"));
  return d;
}

core::Result<Stop> ParseStop(const std::string& name) {
  for (size_t i = 0; i < std::size(kStopNames); ++i) {
    if (name == kStopNames[i]) return Stop(i);
  }
  return core::Error{"run record: field 'result.stop' has unknown value '" + name + "'"};
}

}  // namespace

std::string_view StopName(Stop stop) { return kStopNames[size_t(stop)]; }

std::string_view IsolationName(Isolation isolation) { return kIsolationNames[size_t(isolation)]; }

core::Result<Isolation> ParseIsolation(std::string_view name) {
  for (Isolation i : {Isolation::kNone, Isolation::kJail, Isolation::kVm}) {
    if (name == IsolationName(i)) return i;
  }
  // Quoted as JSON: a hostile value's control characters stay visible.
  return core::Error{"isolation " + core::DumpJson(std::string(name.substr(0, 100))) +
               " is not one of none, jail or vm (exactly, in lower case)"};
}

bool IsolationAtLeast(Isolation have, Isolation minimum) {
  return minimum <= Isolation::kNone || have >= minimum;
}

std::string_view RunPredicateType(uint32_t version) {
  switch (version) {
    case 4: return kRunPredicateType;
    case 3: return kRunPredicateTypeV3;
    case 2: return kRunPredicateTypeV2;
  }
  return {};
}

uint32_t RunPredicateVersion(std::string_view predicate_type) {
  for (uint32_t version : {4u, 3u, 2u}) {
    if (predicate_type == RunPredicateType(version)) return version;
  }
  return 0;
}

Stop ClassifyStop(Stop engine_stop, int exit_code, bool memory_cap_hit) {
  bool failed = engine_stop == Stop::kTrap || (engine_stop == Stop::kExit && exit_code != 0);
  return failed && memory_cap_hit ? Stop::kMemory : engine_stop;
}

int StatusFor(Stop stop, int exit_code) {
  switch (stop) {
    case Stop::kExit:
      return exit_code >= 0 && exit_code <= kMaxGuestStatus ? exit_code : kStatusGuestHigh;
    case Stop::kTrap: return kStatusTrap;
    case Stop::kFuel: return kStatusOutOfFuel;
    case Stop::kMemory: return kStatusMemoryCap;
    case Stop::kTimeout: return kStatusTerminated;
  }
  return kStatusCannotRun;
}

json RecordToJson(const RunRecord& r) {
  json inputs = json::array();
  for (const NamedDigest& in : r.inputs) {
    inputs.push_back({{"name", in.name}, {"sha256", in.sha256}, {"bytes", in.bytes}});
  }
  json result = {{"status", r.result.status},
                 {"exit_code", r.result.exit_code},
                 {"stop", StopName(r.result.stop)},
                 {"fuel_used", r.result.fuel_used},
                 {"terminated", r.result.terminated},
                 {"memory_cap_hit", r.result.memory_cap_hit}};
  if (r.result.stop == Stop::kTrap) result["trap"] = r.result.trap;
  json j = {
      {"kernel", {{"sha256", r.kernel_sha256}, {"cost_table_version", r.cost_table_version}}},
      {"runtime", r.runtime},
      {"program", {{"name", r.program.name}, {"sha256", r.program.sha256}, {"bytes", r.program.bytes}}},
      {"inputs", std::move(inputs)},
      {"stdin", DigestJson(r.stdin_digest.sha256, r.stdin_digest.bytes)},
      {"seed", r.seed},
      {"limits",
       {{"fuel", r.limits.fuel},
        {"memory_bytes", r.limits.memory_bytes},
        {"timeout_seconds", r.limits.timeout_seconds},
        {"output_cap_bytes", r.limits.output_cap_bytes}}},
      {"result", std::move(result)},
      {"stdout", OutputJson(r.stdout_digest)},
      {"stderr", OutputJson(r.stderr_digest)},
  };
  if (r.predicate_version >= 3) {
    j["limits"]["fs_bytes"] = r.limits.fs_bytes;
    j["limits"]["fs_files"] = r.limits.fs_files;
    j["limits"]["fs_depth"] = r.limits.fs_depth;
    json outputs = json::array();
    for (const NamedDigest& o : r.outputs) {
      outputs.push_back({{"name", o.name}, {"sha256", o.sha256}, {"bytes", o.bytes}});
    }
    j["outputs"] = std::move(outputs);
    j["outputs_left_out"] = r.outputs_left_out;
  }
  if (r.predicate_version >= 4 && r.isolation != Isolation::kUnknown) j["isolation"] = IsolationName(r.isolation);
  if (!r.started_at.empty()) j["started_at"] = r.started_at;
  if (!r.finished_at.empty()) j["finished_at"] = r.finished_at;
  return j;
}

core::Result<RunRecord> RecordFromJson(const json& j, uint32_t version) {
  if (version < 2 || version > 4) {
    return core::Error{"run record: version " + std::to_string(version) + " is not known (2, 3 or 4)"};
  }
  if (!j.is_object()) return core::Error{"run record: the predicate must be a JSON object"};
  Reader top(j, "");
  RunRecord r;
  r.predicate_version = version;

  Reader kernel = top;
  AMP_ASSIGN(kernel, top.Object("kernel"));
  AMP_ASSIGN(r.kernel_sha256, kernel.Sha256("sha256"));
  uint64_t cost_table = 0;
  AMP_ASSIGN(cost_table, kernel.Unsigned("cost_table_version"));
  if (cost_table > UINT32_MAX) return core::Error{"run record: field 'kernel.cost_table_version' is out of range"};
  r.cost_table_version = uint32_t(cost_table);

  AMP_ASSIGN(r.runtime, top.String("runtime"));
  if (r.runtime != "python" && r.runtime != "js" && r.runtime != "wasm") {
    return core::Error{"run record: field 'runtime' has unknown value '" + r.runtime + "'"};
  }
  Reader program = top;
  AMP_ASSIGN(program, top.Object("program"));
  AMP_ASSIGN(r.program, ReadNamed(program.value(), "program"));

  const json* inputs = nullptr;
  AMP_ASSIGN(inputs, top.Array("inputs"));
  for (size_t i = 0; i < inputs->size(); ++i) {
    NamedDigest d;
    AMP_ASSIGN(d, ReadNamed((*inputs)[i], "inputs[" + std::to_string(i) + "]"));
    r.inputs.push_back(std::move(d));
  }

  Reader stdin_r = top;
  AMP_ASSIGN(stdin_r, top.Object("stdin"));
  AMP_ASSIGN(r.stdin_digest.sha256, stdin_r.Sha256("sha256"));
  AMP_ASSIGN(r.stdin_digest.bytes, stdin_r.Unsigned("bytes"));

  AMP_ASSIGN(r.seed, top.Unsigned("seed"));

  Reader limits = top;
  AMP_ASSIGN(limits, top.Object("limits"));
  AMP_ASSIGN(r.limits.fuel, limits.Unsigned("fuel"));
  AMP_ASSIGN(r.limits.memory_bytes, limits.Unsigned("memory_bytes"));
  AMP_ASSIGN(r.limits.timeout_seconds, limits.Number("timeout_seconds"));
  AMP_ASSIGN(r.limits.output_cap_bytes, limits.Unsigned("output_cap_bytes"));
  if (version >= 3) {
    AMP_ASSIGN(r.limits.fs_bytes, limits.Unsigned("fs_bytes"));
    AMP_ASSIGN(r.limits.fs_files, limits.Unsigned("fs_files"));
    AMP_ASSIGN(r.limits.fs_depth, limits.Unsigned("fs_depth"));
  }

  Reader result = top;
  AMP_ASSIGN(result, top.Object("result"));
  int64_t status = 0, exit_code = 0;
  AMP_ASSIGN(status, result.Integer("status"));
  AMP_ASSIGN(exit_code, result.Integer("exit_code"));
  if (status < 0 || status > 255) return core::Error{"run record: field 'result.status' is out of range"};
  if (exit_code < INT32_MIN || exit_code > INT32_MAX) {
    return core::Error{"run record: field 'result.exit_code' is out of range"};
  }
  r.result.status = int(status);
  r.result.exit_code = int(exit_code);
  std::string stop;
  AMP_ASSIGN(stop, result.String("stop"));
  AMP_ASSIGN(r.result.stop, ParseStop(stop));
  AMP_ASSIGN(r.result.fuel_used, result.Unsigned("fuel_used"));
  AMP_ASSIGN(r.result.terminated, result.Bool("terminated"));
  AMP_ASSIGN(r.result.memory_cap_hit, result.Bool("memory_cap_hit"));
  if (result.Has("trap")) AMP_ASSIGN(r.result.trap, result.String("trap"));

  AMP_ASSIGN(r.stdout_digest, ReadOutput(top, "stdout"));
  AMP_ASSIGN(r.stderr_digest, ReadOutput(top, "stderr"));
  if (version >= 3) {
    const json* outputs = nullptr;
    AMP_ASSIGN(outputs, top.Array("outputs"));
    if (outputs->size() > kMaxOutputFiles) {
      return core::Error{"run record: more than " + std::to_string(kMaxOutputFiles) + " outputs"};
    }
    for (size_t i = 0; i < outputs->size(); ++i) {
      NamedDigest d;
      AMP_ASSIGN(d, ReadNamed((*outputs)[i], "outputs[" + std::to_string(i) + "]"));
      core::Status name = CheckOutputName(d.name);
      if (!name.ok()) return core::Error{"run record: outputs[" + std::to_string(i) + "]: " + name.message()};
      if (!r.outputs.empty() && !(r.outputs.back().name < d.name)) {
        return core::Error{"run record: outputs[" + std::to_string(i) + "] ('" + d.name +
                     "') is out of order or repeated; names must be sorted and unique"};
      }
      r.outputs.push_back(std::move(d));
    }
    AMP_ASSIGN(r.outputs_left_out, top.Unsigned("outputs_left_out"));
  }
  if (version >= 4) {
    std::string isolation;
    AMP_ASSIGN(isolation, top.String("isolation"));
    core::Result<Isolation> parsed = ParseIsolation(isolation);
    if (!parsed.ok()) return core::Error{"run record: field 'isolation': " + parsed.message()};
    r.isolation = *parsed;
  }
  if (top.Has("started_at")) AMP_ASSIGN(r.started_at, top.String("started_at"));
  if (top.Has("finished_at")) AMP_ASSIGN(r.finished_at, top.String("finished_at"));
  return r;
}

}  // namespace ampoule::run
