#include "ampoule/run/engine_protocol.h"

#include <cstring>
#include <nlohmann/json.hpp>

#include "ampoule/receipt/json_strict.h"
#include "ampoule/run/output_files.h"
#include "core/json.h"

namespace ampoule::run {
namespace {

using nlohmann::json;

constexpr std::string_view kRequestMagic = "AMPREQ1\n";
constexpr std::string_view kResultMagic = "AMPRES1\n";
// Far above any real header (a few KB even with many inputs), far below
// anything that would hurt to allocate.
constexpr uint32_t kMaxHeaderBytes = 16 << 20;

void PutU32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(char(v >> (8 * i)));
}

Result<json> ParseJson(std::string_view text, std::string_view what) {
  return receipt::ParseJsonStrict(text, what);
}

// Reads "MAGIC, u32 length, header" at the start of `bytes`: the header's
// text, and in *pos where the blobs start.
Result<std::string_view> FramedHeader(std::string_view bytes, std::string_view magic,
                                      std::string_view what, size_t* pos) {
  if (bytes.size() < magic.size() + 4 || bytes.substr(0, magic.size()) != magic) {
    return Error{std::string(what) + ": bad magic"};
  }
  size_t at = magic.size();
  uint32_t head_len = 0;
  for (int i = 0; i < 4; ++i) head_len |= uint32_t(uint8_t(bytes[at + i])) << (8 * i);
  at += 4;
  if (head_len > kMaxHeaderBytes || head_len > bytes.size() - at) {
    return Error{std::string(what) + ": header length " + std::to_string(head_len) + " past the end"};
  }
  *pos = at + head_len;
  return bytes.substr(at, head_len);
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
                 {"output_cap_bytes", r.output_cap_bytes},
                 {"fs_bytes", r.fs_bytes},
                 {"fs_files", r.fs_files},
                 {"fs_depth", r.fs_depth}};
  if (r.http_ask_host) header["http_ask_host"] = true;
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
  size_t pos = 0;
  Result<std::string_view> head = FramedHeader(bytes, kRequestMagic, "engine request", &pos);
  if (!head) return Error{head.message() + " (not an ampoule engine request)"};
  Result<json> header = ParseJson(*head, "engine request header");
  if (!header) return header.error();
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
  // Optional (older hosts do not send them): 0 means the engine's default.
  for (auto [key, field] : {std::pair{"fs_bytes", &r.fs_bytes}, std::pair{"fs_files", &r.fs_files},
                            std::pair{"fs_depth", &r.fs_depth}}) {
    if (h.contains(key) && !Get(h, key, *field)) {
      return Error{std::string("engine request: header field '") + key + "' is not an unsigned integer"};
    }
  }
  if (h.contains("http_ask_host") && !Get(h, "http_ask_host", r.http_ask_host)) {
    return Error{"engine request: header field 'http_ask_host' is not a boolean"};
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
  json outputs = json::array();
  for (const EngineOutputFile& f : r.outputs) outputs.push_back({{"name", f.name}, {"bytes", f.bytes.size()}});
  json j = {{"stop", StopName(r.stop)},
            {"exit_code", r.exit_code},
            {"trap", r.trap},
            {"fuel_used", r.fuel_used},
            {"memory_cap_hit", r.memory_cap_hit},
            {"stdout_total_bytes", r.stdout_total_bytes},
            {"stderr_total_bytes", r.stderr_total_bytes},
            {"outputs", std::move(outputs)},
            {"outputs_left_out", r.outputs_left_out},
            {"error", r.error}};
  if (!r.http_pending.empty()) j["http_pending"] = r.http_pending;
  std::string head = DumpJson(j);
  std::string out(kResultMagic);
  PutU32(out, uint32_t(head.size()));
  out += head;
  for (const EngineOutputFile& f : r.outputs) out += f.bytes;
  return out;
}

Result<EngineResult> DecodeResult(std::string_view bytes) {
  bool framed = bytes.substr(0, kResultMagic.size()) == kResultMagic;
  size_t pos = bytes.size();
  std::string_view text = bytes;
  if (framed) {
    Result<std::string_view> head = FramedHeader(bytes, kResultMagic, "engine result", &pos);
    if (!head) return head.error();
    text = *head;
  }
  Result<json> parsed = ParseJson(text, "engine result");
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
  if (j.contains("http_pending") && !Get(j, "http_pending", r.http_pending)) {
    return Error{"engine result: 'http_pending' is not a string"};
  }
  if (!framed) return r;  // an older engine: no output files

  auto outputs = j.find("outputs");
  if (outputs == j.end() || !outputs->is_array() || !Get(j, "outputs_left_out", r.outputs_left_out)) {
    return Error{"engine result: 'outputs' or 'outputs_left_out' missing"};
  }
  if (outputs->size() > kMaxOutputFiles) {
    return Error{"engine result: more than " + std::to_string(kMaxOutputFiles) + " output files"};
  }
  for (const json& o : *outputs) {
    EngineOutputFile f;
    uint64_t n = 0;
    if (!o.is_object() || !Get(o, "name", f.name) || !Get(o, "bytes", n)) {
      return Error{"engine result: malformed output entry"};
    }
    AMP_RETURN_IF_ERROR(CheckOutputName(f.name));
    if (!r.outputs.empty() && !(r.outputs.back().name < f.name)) {
      return Error{"engine result: output '" + f.name + "' out of order or repeated"};
    }
    if (n > bytes.size() - pos) return Error{"engine result: output '" + f.name + "' truncated"};
    f.bytes.assign(bytes.substr(pos, n));
    pos += n;
    r.outputs.push_back(std::move(f));
  }
  if (pos != bytes.size()) return Error{"engine result: trailing bytes after the output files"};
  return r;
}

}  // namespace ampoule::run
