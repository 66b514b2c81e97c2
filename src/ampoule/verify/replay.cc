#include "ampoule/verify/replay.h"

#include <algorithm>
#include <cstdio>

#include "core/file_read.h"
#include "core/sha256.h"

namespace ampoule::verify {
namespace {

std::vector<uint8_t> Bytes(const std::string& s) { return std::vector<uint8_t>(s.begin(), s.end()); }

// Inputs and stdin the record names must be given (a usage error if not).
void CheckGiven(const Options& o, Evidence& ev) {
  const run::RunRecord& r = *ev.record;
  for (const run::NamedDigest& in : r.inputs) {
    bool given = false;
    for (const NamedFile& f : o.inputs) given = given || f.name == in.name;
    if (!given) {
      Note(ev.facts.usage, "the receipt names input '" + in.name + "': give --input " + in.name + "=FILE");
      ev.notes.push_back("input " + in.name + ": not given; a replay needs every input");
    }
  }
  if (!o.stdin_path && r.stdin_digest.sha256 != core::Sha256Hex("")) {
    Note(ev.facts.usage, "the run had stdin: give --stdin FILE");
    ev.notes.push_back("stdin: not given; the run read " + std::to_string(r.stdin_digest.bytes) +
                       " bytes of stdin");
  }
}

template <class T>
std::optional<std::string> Differ(const char* field, const T& a, const T& b, std::string* detail) {
  if (a == b) return std::nullopt;
  if constexpr (std::is_same_v<T, std::string>) {
    *detail = std::string(field) + ": receipt \"" + a.substr(0, 200) + "\", replay \"" + b.substr(0, 200) + "\"";
  } else {
    *detail = std::string(field) + ": receipt " + std::to_string(a) + ", replay " + std::to_string(b);
  }
  return std::string(field) + " differs";
}

std::optional<std::string> OutputDifference(const char* name, const run::OutputDigest& a,
                                            const run::OutputDigest& b, std::string* detail) {
  std::string n(name);
  if (auto d = Differ((n + " sha256").c_str(), a.sha256, b.sha256, detail)) return n + " differs";
  if (auto d = Differ((n + " bytes").c_str(), a.bytes, b.bytes, detail)) return d;
  if (auto d = Differ((n + " total_bytes").c_str(), a.total_bytes, b.total_bytes, detail)) return d;
  return Differ((n + " truncated").c_str(), int(a.truncated), int(b.truncated), detail);
}

std::optional<std::string> OutputFilesDifference(const run::RunRecord& s, const run::RunRecord& r,
                                                 std::string* detail) {
  for (size_t i = 0; i < std::max(s.outputs.size(), r.outputs.size()); ++i) {
    const run::NamedDigest* a = i < s.outputs.size() ? &s.outputs[i] : nullptr;
    const run::NamedDigest* b = i < r.outputs.size() ? &r.outputs[i] : nullptr;
    if (a == nullptr || b == nullptr || a->name != b->name) {
      *detail = "output files: receipt " + (a ? "'" + a->name + "'" : std::string("none")) +
                ", replay " + (b ? "'" + b->name + "'" : std::string("none")) + " at position " +
                std::to_string(i);
      return std::string("output files differ");
    }
    if (a->sha256 != b->sha256 || a->bytes != b->bytes) {
      *detail = "output file '" + a->name + "': receipt sha256 " + a->sha256 + " (" +
                std::to_string(a->bytes) + " bytes), replay " + b->sha256 + " (" +
                std::to_string(b->bytes) + " bytes)";
      return "output file '" + a->name + "' differs";
    }
  }
  return Differ("outputs_left_out", s.outputs_left_out, r.outputs_left_out, detail);
}

std::string Count(uint64_t n) { return std::to_string(n); }

std::string Seconds(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", s);
  return text;
}

}  // namespace

std::optional<std::string> OverCeiling(const Options& o, const run::RunRecord& r, std::string* detail) {
  const run::RunLimits& limits = r.limits;
  if (r.result.fuel_used >= o.max_replay_fuel) {
    *detail = "the receipt says the run used " + Count(r.result.fuel_used) + " fuel; this verifier replays at most " +
              Count(o.max_replay_fuel) + " (raise it with --max-fuel N)";
    return "fuel over the verifier's ceiling of " + Count(o.max_replay_fuel);
  }
  if (limits.memory_bytes > o.max_replay_memory) {
    *detail = "the receipt's memory cap is " + Count(limits.memory_bytes) + " bytes; this verifier allows at most " +
              Count(o.max_replay_memory) + " (raise it with --max-memory BYTES)";
    return "memory cap over the verifier's ceiling of " + Count(o.max_replay_memory);
  }
  if (limits.fs_bytes > o.max_replay_memory) {
    *detail = "the receipt's filesystem cap is " + Count(limits.fs_bytes) + " bytes; this verifier allows at most " +
              Count(o.max_replay_memory) + " (raise it with --max-memory BYTES)";
    return "filesystem cap over the verifier's ceiling of " + Count(o.max_replay_memory);
  }
  if (limits.output_cap_bytes > core::kMaxFileBytes) {
    *detail = "the receipt's output cap is " + Count(limits.output_cap_bytes) + " bytes; a replay keeps at most " +
              Count(core::kMaxFileBytes) + " bytes of each output";
    return "output cap over the verifier's ceiling of " + Count(core::kMaxFileBytes);
  }
  return std::nullopt;
}

std::optional<std::string> FirstDifference(const run::RunRecord& s, const run::RunRecord& r,
                                           std::string* detail) {
  if (auto d = Differ("kernel", s.kernel_sha256, r.kernel_sha256, detail)) return d;
  if (auto d = Differ("cost_table_version", s.cost_table_version, r.cost_table_version, detail)) return d;
  if (auto d = OutputDifference("stdout", s.stdout_digest, r.stdout_digest, detail)) return d;
  if (auto d = OutputDifference("stderr", s.stderr_digest, r.stderr_digest, detail)) return d;
  if (auto d = OutputFilesDifference(s, r, detail)) return d;
  if (auto d = Differ("status", s.result.status, r.result.status, detail)) return d;
  if (auto d = Differ("exit_code", s.result.exit_code, r.result.exit_code, detail)) return d;
  if (auto d = Differ("stop", std::string(run::StopName(s.result.stop)),
                      std::string(run::StopName(r.result.stop)), detail)) return d;
  if (auto d = Differ("fuel_used", s.result.fuel_used, r.result.fuel_used, detail)) return d;
  if (auto d = Differ("terminated", int(s.result.terminated), int(r.result.terminated), detail)) return d;
  if (auto d = Differ("memory_cap_hit", int(s.result.memory_cap_hit), int(r.result.memory_cap_hit), detail)) return d;
  if (auto d = Differ("trap", s.result.trap, r.result.trap, detail)) return d;
  // The rest echoes what the replay was given; a difference means the
  // replay did not run what the receipt describes.
  // Times are informative and the safety net never changes a finished run.
  // Nor is the isolation: it says how a host sealed the run, and the replay
  // runs in this verifier's own sandbox, whatever the original had.
  run::RunRecord s2 = s, r2 = r;
  s2.started_at = s2.finished_at = r2.started_at = r2.finished_at = "";
  r2.limits.timeout_seconds = s2.limits.timeout_seconds;
  r2.isolation = s2.isolation;
  if (run::RecordToJson(s2) != run::RecordToJson(r2)) {
    *detail = "the replayed record's kernel, program, inputs, stdin, seed or limits differ: receipt " +
              run::RecordToJson(s2).dump() + ", replay " + run::RecordToJson(r2).dump();
    return std::string("run description differs");
  }
  return std::nullopt;
}

run::RunSpec ReplaySpec(const Options& o, const Evidence& ev) {
  const run::RunRecord& r = *ev.record;
  run::RunSpec spec;
  spec.kernel_path = o.kernel;
  spec.runtime = r.runtime;
  spec.program_name = r.program.name;
  const Snapshot& files = *ev.files;
  spec.program = Bytes(files.program->bytes);
  for (const run::NamedDigest& in : r.inputs) {
    spec.inputs.push_back({in.name, Bytes(files.inputs.at(in.name).bytes)});
  }
  if (files.stdin_file) spec.stdin_bytes = Bytes(files.stdin_file->bytes);
  spec.seed = r.seed;
  spec.limits = r.limits;
  // Within the ceilings (OverCeiling): the run used less fuel than the
  // ceiling, so a lower limit gives the same result, and the safety net
  // never changes a finished run.
  spec.limits.fuel = std::min(spec.limits.fuel, o.max_replay_fuel);
  spec.limits.timeout_seconds = o.timeout_seconds ? *o.timeout_seconds
                                                  : std::min(spec.limits.timeout_seconds, o.max_replay_timeout);
  spec.insecure_no_jail = o.insecure_no_jail;
  return spec;
}

void Replay(const Options& o, const Runner& runner, Evidence& ev) {
  if (!ev.record) return;
  CheckGiven(o, ev);
  if (ev.facts.usage || ev.facts.too_large || ev.facts.failed || !ev.files->program) return;
  if (ev.record->result.terminated) {
    ev.notes.push_back("replay: not run: the host stopped the original run, so its result "
                       "depends on the host, not only on the kernel");
    return;
  }
  std::string detail;
  if (std::optional<std::string> over = OverCeiling(o, *ev.record, &detail)) {
    Note(ev.facts.failed, *over);
    ev.notes.push_back("replay: not run: " + detail);
    return;
  }
  const run::RunSpec spec = ReplaySpec(o, ev);
  core::Result<run::ProgramRun> run = runner(spec);
  if (!run.ok()) {
    Note(ev.facts.usage, "the replay could not run");
    ev.notes.push_back("replay: " + run.message());
    return;
  }
  const run::RunRecord& replayed = run->record;
  if (replayed.result.terminated && !o.timeout_seconds) {
    ev.notes.push_back("replay: stopped by the safety net after " + Seconds(replayed.limits.timeout_seconds) +
                       " s; on a slower machine, retry with a larger --timeout");
  }
  // What the replay was given in place of the receipt's limits (lowered to
  // the ceilings) is not a difference in the run.
  run::RunRecord compared = replayed;
  compared.limits.fuel = ev.record->limits.fuel;
  // A version 2 receipt is compared as version 2 (its kernel's engine knew
  // no output files, and the record has no filesystem caps).
  compared.predicate_version = ev.record->predicate_version;
  if (compared.result.stop == run::Stop::kFuel && spec.limits.fuel < ev.record->limits.fuel) {
    Note(ev.facts.failed, "fuel over the verifier's ceiling of " + Count(o.max_replay_fuel));
    ev.notes.push_back("replay: ran out of the verifier's " + Count(spec.limits.fuel) +
                       " fuel; the receipt says the run used " + Count(ev.record->result.fuel_used) +
                       " (raise the ceiling with --max-fuel N)");
    return;
  }
  std::optional<std::string> difference = FirstDifference(*ev.record, compared, &detail);
  if (difference) {
    Note(ev.facts.failed, *difference);
    ev.notes.push_back("replay: " + detail);
    return;
  }
  ev.facts.replay_matched = true;
  ev.notes.push_back("replay: output, fuel (" + std::to_string(replayed.result.fuel_used) +
                     ") and status (" + std::to_string(replayed.result.status) + ") match");
  if (replayed.isolation != ev.record->isolation) {
    ev.notes.push_back("replay: ran with isolation " + std::string(run::IsolationName(replayed.isolation)) +
                       "; the receipt's isolation (" + std::string(run::IsolationName(ev.record->isolation)) +
                       ") is the original run's, which a replay does not repeat or compare");
  }
}

}  // namespace ampoule::verify
