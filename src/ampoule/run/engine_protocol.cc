#include "ampoule/run/engine_protocol.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <span>
#include <nlohmann/json.hpp>

#include "ampoule/run/output_files.h"
#include "core/hex.h"
#include "core/json.h"
#include "core/json_strict.h"

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

core::Result<json> ParseJson(std::string_view text, std::string_view what) {
  return core::ParseJsonStrict(text, what);
}

// Reads "MAGIC, u32 length, header" at the start of `bytes`: the header's
// text, and in *pos where the blobs start.
core::Result<std::string_view> FramedHeader(std::string_view bytes, std::string_view magic,
                                      std::string_view what, size_t* pos) {
  if (bytes.size() < magic.size() + 4 || bytes.substr(0, magic.size()) != magic) {
    return core::Error{std::string(what) + ": bad magic"};
  }
  size_t at = magic.size();
  uint32_t head_len = 0;
  for (int i = 0; i < 4; ++i) head_len |= uint32_t(uint8_t(bytes[at + i])) << (8 * i);
  at += 4;
  if (head_len > kMaxHeaderBytes || head_len > bytes.size() - at) {
    return core::Error{std::string(what) + ": header length " + std::to_string(head_len) + " past the end"};
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

core::Result<EngineRequest> DecodeRequest(std::string_view bytes) {
  size_t pos = 0;
  core::Result<std::string_view> head = FramedHeader(bytes, kRequestMagic, "engine request", &pos);
  if (!head) return core::Error{head.message() + " (not an ampoule engine request)"};
  core::Result<json> header = ParseJson(*head, "engine request header");
  if (!header) return header.error();
  const json& h = *header;
  if (!h.is_object()) return core::Error{"engine request: header is not an object"};

  EngineRequest r;
  uint64_t program_bytes = 0, stdin_bytes = 0;
  if (!Get(h, "kernel_sha256", r.kernel_sha256) || !Get(h, "runtime", r.runtime) || !Get(h, "program_name", r.program_name) ||
      !Get(h, "program_bytes", program_bytes) || !Get(h, "stdin_bytes", stdin_bytes) ||
      !Get(h, "seed", r.seed) || !Get(h, "fuel", r.fuel) || !Get(h, "memory_bytes", r.memory_bytes) ||
      !Get(h, "output_cap_bytes", r.output_cap_bytes)) {
    return core::Error{"engine request: header field missing or of the wrong type"};
  }
  // Optional (older hosts do not send them): 0 means the engine's default.
  for (auto [key, field] : {std::pair{"fs_bytes", &r.fs_bytes}, std::pair{"fs_files", &r.fs_files},
                            std::pair{"fs_depth", &r.fs_depth}}) {
    if (h.contains(key) && !Get(h, key, *field)) {
      return core::Error{std::string("engine request: header field '") + key + "' is not an unsigned integer"};
    }
  }
  if (h.contains("http_ask_host") && !Get(h, "http_ask_host", r.http_ask_host)) {
    return core::Error{"engine request: header field 'http_ask_host' is not a boolean"};
  }
  auto inputs = h.find("inputs");
  if (inputs == h.end() || !inputs->is_array()) return core::Error{"engine request: 'inputs' missing"};

  auto take = [&](uint64_t n, std::vector<uint8_t>& out) -> bool {
    if (n > bytes.size() - pos) return false;
    out.assign(bytes.begin() + pos, bytes.begin() + pos + n);
    pos += n;
    return true;
  };
  if (!take(program_bytes, r.program)) return core::Error{"engine request: program truncated"};
  for (const json& in : *inputs) {
    ProgramInput input;
    uint64_t n = 0;
    if (!in.is_object() || !Get(in, "name", input.name) || !Get(in, "bytes", n)) {
      return core::Error{"engine request: malformed input entry"};
    }
    if (!take(n, input.bytes)) return core::Error{"engine request: input '" + input.name + "' truncated"};
    r.inputs.push_back(std::move(input));
  }
  if (!take(stdin_bytes, r.stdin_bytes)) return core::Error{"engine request: stdin truncated"};
  if (pos != bytes.size()) return core::Error{"engine request: trailing bytes after stdin"};
  return r;
}

std::string EncodeResultHeader(const EngineResult& r) {
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
  std::string head = core::DumpJson(j);
  std::string out(kResultMagic);
  PutU32(out, uint32_t(head.size()));
  out += head;
  return out;
}

std::string EncodeResult(const EngineResult& r) {
  std::string out = EncodeResultHeader(r);
  for (const EngineOutputFile& f : r.outputs) out += f.bytes;
  return out;
}

namespace {

// The header's fields into `r`; `framed`: a header of this format, which
// lists the output files (their names into r->outputs, sizes into
// `sizes`), rather than an older engine's plain JSON.
core::Status ParseResultHeader(std::string_view text, bool framed, EngineResult* r, std::vector<uint64_t>* sizes) {
  core::Result<json> parsed = ParseJson(text, "engine result");
  if (!parsed) return parsed.error();
  const json& j = *parsed;
  std::string stop;
  int64_t exit_code = 0;
  if (!j.is_object() || !Get(j, "stop", stop) || !Get(j, "exit_code", exit_code) ||
      !Get(j, "trap", r->trap) || !Get(j, "fuel_used", r->fuel_used) ||
      !Get(j, "memory_cap_hit", r->memory_cap_hit) ||
      !Get(j, "stdout_total_bytes", r->stdout_total_bytes) ||
      !Get(j, "stderr_total_bytes", r->stderr_total_bytes) || !Get(j, "error", r->error)) {
    return core::Error{"engine result: field missing or of the wrong type"};
  }
  if (stop == "exit") r->stop = Stop::kExit;
  else if (stop == "trap") r->stop = Stop::kTrap;
  else if (stop == "fuel") r->stop = Stop::kFuel;
  else return core::Error{"engine result: unknown stop '" + stop + "'"};
  if (exit_code < INT32_MIN || exit_code > INT32_MAX) return core::Error{"engine result: exit_code out of range"};
  r->exit_code = int(exit_code);
  if (j.contains("http_pending") && !Get(j, "http_pending", r->http_pending)) {
    return core::Error{"engine result: 'http_pending' is not a string"};
  }
  if (!framed) return core::Status::Ok();  // an older engine: no output files

  auto outputs = j.find("outputs");
  if (outputs == j.end() || !outputs->is_array() || !Get(j, "outputs_left_out", r->outputs_left_out)) {
    return core::Error{"engine result: 'outputs' or 'outputs_left_out' missing"};
  }
  if (outputs->size() > kMaxOutputFiles) {
    return core::Error{"engine result: more than " + std::to_string(kMaxOutputFiles) + " output files"};
  }
  for (const json& o : *outputs) {
    EngineOutputFile f;
    uint64_t n = 0;
    if (!o.is_object() || !Get(o, "name", f.name) || !Get(o, "bytes", n)) {
      return core::Error{"engine result: malformed output entry"};
    }
    CORE_RETURN_IF_ERROR(CheckOutputName(f.name));
    if (!r->outputs.empty() && !(r->outputs.back().name < f.name)) {
      return core::Error{"engine result: output '" + f.name + "' out of order or repeated"};
    }
    r->outputs.push_back(std::move(f));
    sizes->push_back(n);
  }
  return core::Status::Ok();
}

}  // namespace

ResultReader::ResultReader(uint64_t max_files_bytes, bool keep_files)
    : max_files_bytes_(max_files_bytes), keep_files_(keep_files) {}

void ResultReader::Fail(std::string message) {
  state_ = State::kFailed;
  error_ = std::move(message);
  buf_ = std::string();
  result_ = EngineResult{};
}

void ResultReader::Feed(std::string_view bytes) {
  while (!bytes.empty()) {
    switch (state_) {
      case State::kFailed: return;
      case State::kMagic: {
        size_t n = std::min(kResultMagic.size() - buf_.size(), bytes.size());
        buf_.append(bytes.substr(0, n));
        bytes.remove_prefix(n);
        if (kResultMagic.substr(0, buf_.size()) != buf_) {
          state_ = State::kLegacy;
        } else if (buf_.size() == kResultMagic.size()) {
          state_ = State::kLength;
          buf_.clear();
        }
        break;
      }
      case State::kLegacy:
        if (buf_.size() + bytes.size() > kMaxResultHeaderBytes) {
          return Fail("engine result: more than " + std::to_string(kMaxResultHeaderBytes) + " bytes of JSON");
        }
        buf_.append(bytes);
        return;
      case State::kLength: {
        size_t n = std::min(4 - buf_.size(), bytes.size());
        buf_.append(bytes.substr(0, n));
        bytes.remove_prefix(n);
        if (buf_.size() < 4) break;
        header_len_ = 0;
        for (int i = 0; i < 4; ++i) header_len_ |= uint32_t(uint8_t(buf_[i])) << (8 * i);
        if (header_len_ > kMaxResultHeaderBytes) {
          return Fail("engine result: header length " + std::to_string(header_len_) + " over the limit of " +
                      std::to_string(kMaxResultHeaderBytes));
        }
        buf_.clear();
        state_ = State::kHeader;
        if (header_len_ == 0) TakeHeader();
        break;
      }
      case State::kHeader: {
        size_t n = std::min(size_t(header_len_) - buf_.size(), bytes.size());
        buf_.append(bytes.substr(0, n));
        bytes.remove_prefix(n);
        if (buf_.size() == header_len_) TakeHeader();
        break;
      }
      case State::kFiles:
        TakeFileBytes(bytes);
        break;
    }
  }
}

void ResultReader::TakeHeader() {
  std::vector<uint64_t> sizes;
  core::Status parsed = ParseResultHeader(buf_, /*framed=*/true, &result_, &sizes);
  buf_ = std::string();
  if (!parsed.ok()) return Fail(parsed.message());
  uint64_t total = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] > max_files_bytes_ - total) {
      return Fail("engine result: the output files hold more than the filesystem cap of " +
                  std::to_string(max_files_bytes_) + " bytes (at '" + result_.outputs[i].name + "')");
    }
    total += sizes[i];
    result_.outputs[i].size = sizes[i];
  }
  state_ = State::kFiles;
  file_ = 0;
  NextFile();
}

// Room for a kept file, so it is held once, not copied as it grows: within
// the cap, which the header was checked against, and only address space
// until its bytes arrive. Past kMaxReserve (a cap of many GiB) it grows as
// its bytes come.
bool ResultReader::Reserve(EngineOutputFile& f) {
  constexpr uint64_t kMaxReserve = uint64_t(1) << 30;
  try {
    f.bytes.reserve(size_t(std::min(f.size, kMaxReserve)));
    return true;
  } catch (const std::exception&) {  // std::bad_alloc, std::length_error
    Fail("engine result: the host cannot hold output '" + f.name + "' of " + std::to_string(f.size) + " bytes");
    return false;
  }
}

// Starts on the file at file_, skipping (and finishing) empty ones.
void ResultReader::NextFile() {
  while (file_ < result_.outputs.size()) {
    EngineOutputFile& f = result_.outputs[file_];
    file_left_ = f.size;
    hasher_ = core::Sha256Hasher();
    if (keep_files_ && !Reserve(f)) return;
    if (file_left_ > 0) return;
    f.sha256 = core::Sha256Hex(std::string_view());
    ++file_;
  }
}

void ResultReader::TakeFileBytes(std::string_view& bytes) {
  if (file_ == result_.outputs.size()) {
    return Fail("engine result: trailing bytes after the output files");
  }
  EngineOutputFile& f = result_.outputs[file_];
  size_t n = size_t(std::min<uint64_t>(file_left_, bytes.size()));
  std::string_view piece = bytes.substr(0, n);
  bytes.remove_prefix(n);
  hasher_.Update(piece);
  if (keep_files_) f.bytes.append(piece);
  file_left_ -= n;
  if (file_left_ > 0) return;
  const core::Sha256Digest digest = hasher_.Finish();
  f.sha256 = core::HexEncode(std::span<const uint8_t>(digest));
  ++file_;
  NextFile();
}

core::Result<EngineResult> ResultReader::Finish() {
  switch (state_) {
    case State::kFailed: return core::Error{error_};
    case State::kMagic:
      if (buf_.empty()) return core::Error{"engine result: empty"};
      [[fallthrough]];
    case State::kLegacy: {
      EngineResult r;
      std::vector<uint64_t> sizes;
      CORE_RETURN_IF_ERROR(ParseResultHeader(buf_, /*framed=*/false, &r, &sizes));
      return r;
    }
    case State::kLength:
    case State::kHeader: return core::Error{"engine result: header truncated"};
    case State::kFiles:
      if (file_ < result_.outputs.size()) {
        return core::Error{"engine result: output '" + result_.outputs[file_].name + "' truncated"};
      }
      state_ = State::kFailed;
      error_ = "engine result: already taken";
      return std::move(result_);
  }
  return core::Error{"engine result: unreadable"};
}

core::Result<EngineResult> DecodeResult(std::string_view bytes) {
  // No more file bytes than arrived: a declared size past the end is
  // refused before anything is reserved for it.
  ResultReader reader(bytes.size(), /*keep_files=*/true);
  reader.Feed(bytes);
  return reader.Finish();
}

}  // namespace ampoule::run
