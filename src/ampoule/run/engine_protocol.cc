#include "ampoule/run/engine_protocol.h"

#include <cstring>
#include <nlohmann/json.hpp>

#include "ampoule/receipt/json_strict.h"
#include "core/json.h"

namespace ampoule::run {
namespace {

using nlohmann::json;

constexpr std::string_view kRequestMagic = "AMPREQ1\n";
// Far above any real header (a few KB even with many inputs), far below
// anything that would hurt to allocate.
constexpr uint32_t kMaxHeaderBytes = 16 << 20;

void PutU32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(char(v >> (8 * i)));
}

Result<json> ParseJson(std::string_view text, std::string_view what) {
  return receipt::ParseJsonStrict(text, what);
}

template <class T>
bool Get(const json& j, const char* key, T& out) {
  auto it = j.find(key);
  if (it == j.end()) return false;
  if constexpr (std::is_same_v<T, std::string>) {
    if (!it->is_string()) return false;
  } else if constexpr (std::is_same_v<T, bool>) {
    if (!it->is_boolean()) return false;
  } else if constexpr (std::is_signed_v<T>) {
    if (!it->is_number_integer()) return false;
  } else {
    if (!it->is_number_unsigned()) return false;
  }
  out = it->get<T>();
  return true;
}

}  // namespace

std::string EncodeRequest(const EngineRequest& r) {
  json inputs = json::array();
  for (const ProgramInput& in : r.inputs) inputs.push_back({{"name", in.name}, {"bytes", in.bytes.size()}});
  json header = {{"kernel_sha256", r.kernel_sha256},
                 {"runtime", r.runtime},
                 {"program_name", r.program_name},
                 {"program_bytes", r.program.size()},
                 {"inputs", std::move(inputs)},
                 {"stdin_bytes", r.stdin_bytes.size()},
                 {"seed", r.seed},
                 {"fuel", r.fuel},
                 {"memory_bytes", r.memory_bytes},
                 {"output_cap_bytes", r.output_cap_bytes}};
  std::string head = header.dump();
  std::string out(kRequestMagic);
  PutU32(out, uint32_t(head.size()));
  out += head;
  out.append(r.program.begin(), r.program.end());
  for (const ProgramInput& in : r.inputs) out.append(in.bytes.begin(), in.bytes.end());
  out.append(r.stdin_bytes.begin(), r.stdin_bytes.end());
  return out;
}

Result<EngineRequest> DecodeRequest(std::string_view bytes) {
  if (bytes.substr(0, kRequestMagic.size()) != kRequestMagic || bytes.size() < kRequestMagic.size() + 4) {
    return Error{"engine request: bad magic (not an ampoule engine request)"};
  }
  size_t pos = kRequestMagic.size();
  uint32_t head_len = 0;
  for (int i = 0; i < 4; ++i) head_len |= uint32_t(uint8_t(bytes[pos + i])) << (8 * i);
  pos += 4;
  if (head_len > kMaxHeaderBytes || head_len > bytes.size() - pos) {
    return Error{"engine request: header length " + std::to_string(head_len) + " past the end"};
  }
  Result<json> header = ParseJson(bytes.substr(pos, head_len), "engine request header");
  if (!header) return header.error();
  pos += head_len;
  const json& h = *header;
  if (!h.is_object()) return Error{"engine request: header is not an object"};

  EngineRequest r;
  uint64_t program_bytes = 0, stdin_bytes = 0;
  if (!Get(h, "kernel_sha256", r.kernel_sha256) || !Get(h, "runtime", r.runtime) || !Get(h, "program_name", r.program_name) ||
      !Get(h, "program_bytes", program_bytes) || !Get(h, "stdin_bytes", stdin_bytes) ||
      !Get(h, "seed", r.seed) || !Get(h, "fuel", r.fuel) || !Get(h, "memory_bytes", r.memory_bytes) ||
      !Get(h, "output_cap_bytes", r.output_cap_bytes)) {
    return Error{"engine request: header field missing or of the wrong type"};
  }
  auto inputs = h.find("inputs");
  if (inputs == h.end() || !inputs->is_array()) return Error{"engine request: 'inputs' missing"};

  auto take = [&](uint64_t n, std::vector<uint8_t>& out) -> bool {
    if (n > bytes.size() - pos) return false;
    out.assign(bytes.begin() + pos, bytes.begin() + pos + n);
    pos += n;
    return true;
  };
  if (!take(program_bytes, r.program)) return Error{"engine request: program truncated"};
  for (const json& in : *inputs) {
    ProgramInput input;
    uint64_t n = 0;
    if (!in.is_object() || !Get(in, "name", input.name) || !Get(in, "bytes", n)) {
      return Error{"engine request: malformed input entry"};
    }
    if (!take(n, input.bytes)) return Error{"engine request: input '" + input.name + "' truncated"};
    r.inputs.push_back(std::move(input));
  }
  if (!take(stdin_bytes, r.stdin_bytes)) return Error{"engine request: stdin truncated"};
  if (pos != bytes.size()) return Error{"engine request: trailing bytes after stdin"};
  return r;
}

std::string EncodeResult(const EngineResult& r) {
  json j = {{"stop", StopName(r.stop)},
            {"exit_code", r.exit_code},
            {"trap", r.trap},
            {"fuel_used", r.fuel_used},
            {"memory_cap_hit", r.memory_cap_hit},
            {"stdout_total_bytes", r.stdout_total_bytes},
            {"stderr_total_bytes", r.stderr_total_bytes},
            {"error", r.error}};
  return DumpJson(j);
}

Result<EngineResult> DecodeResult(std::string_view bytes) {
  Result<json> parsed = ParseJson(bytes, "engine result");
  if (!parsed) return parsed.error();
  const json& j = *parsed;
  EngineResult r;
  std::string stop;
  int64_t exit_code = 0;
  if (!j.is_object() || !Get(j, "stop", stop) || !Get(j, "exit_code", exit_code) ||
      !Get(j, "trap", r.trap) || !Get(j, "fuel_used", r.fuel_used) ||
      !Get(j, "memory_cap_hit", r.memory_cap_hit) ||
      !Get(j, "stdout_total_bytes", r.stdout_total_bytes) ||
      !Get(j, "stderr_total_bytes", r.stderr_total_bytes) || !Get(j, "error", r.error)) {
    return Error{"engine result: field missing or of the wrong type"};
  }
  if (stop == "exit") r.stop = Stop::kExit;
  else if (stop == "trap") r.stop = Stop::kTrap;
  else if (stop == "fuel") r.stop = Stop::kFuel;
  else return Error{"engine result: unknown stop '" + stop + "'"};
  if (exit_code < INT32_MIN || exit_code > INT32_MAX) return Error{"engine result: exit_code out of range"};
  r.exit_code = int(exit_code);
  return r;
}

}  // namespace ampoule::run
