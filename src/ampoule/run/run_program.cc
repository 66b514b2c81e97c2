#include "ampoule/run/run_program.h"

#include <algorithm>

#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <ctime>
#include <set>

#include "ampoule/kernel/entry_names.h"
#include "ampoule/kernel/kernel.h"
#include "ampoule/run/engine_protocol.h"
#include "ampoule/run/kernel_digest_cache.h"
#include "ampoule/sandbox/jail.h"
#include "ampoule/wasi/mailbox.h"
#include "core/errno_text.h"
#include "core/rfc3339.h"
#include "core/sha256.h"
#include "core/unique_fd.h"
#include "core/write_all.h"

namespace ampoule::run {
namespace {

using Clock = std::chrono::steady_clock;

// The engine's own memory beyond the guest's: compiled runtimes, the
// interpreter's reserved value stack, the kernel mapping, the snapshot.
constexpr uint64_t kEngineOverheadBytes = uint64_t(1) << 30;

using Fd = core::UniqueFd;


core::Status MakePipe(Fd& read_end, Fd& write_end) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return core::Errno("cannot create a pipe");
  read_end.reset(fds[0]);
  write_end.reset(fds[1]);
  return core::Status::Ok();
}

// The engine executable, in a sealed anonymous file the jail can exec.
core::Result<Fd> EngineMemfd(std::span<const uint8_t> engine) {
  Fd fd(memfd_create("ampoule-engine", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  if (fd.get() < 0) return core::Errno("cannot create the engine's in-memory file");
  if (!core::WriteAll(fd.get(), std::string_view(reinterpret_cast<const char*>(engine.data()), engine.size()))) {
    return core::Errno("cannot write the engine's in-memory file");
  }
  // The kernel refuses a write seal with EBUSY while a page of the file is
  // still pinned, which the page cache's own batching does for a moment
  // after the writes (seen under load); the pins go away by themselves, so
  // a few short waits are enough.
  for (int attempt = 0;; ++attempt) {
    if (fcntl(fd.get(), F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) == 0) break;
    if (errno != EBUSY || attempt == 20) return core::Errno("cannot seal the engine's in-memory file");
    usleep(1000 << std::min(attempt, 6));
  }
  return fd;
}

std::string Sha256Of(std::span<const uint8_t> bytes) {
  return core::Sha256Hex(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

core::Status CheckSpec(const RunSpec& spec) {
  if (spec.runtime != "python" && spec.runtime != "js" && spec.runtime != "wasm") {
    return core::Error{"unknown runtime '" + spec.runtime + "' (python, js or wasm)"};
  }
  if (spec.program_name.empty() || spec.program_name.find('/') != std::string::npos) {
    return core::Error{"the program's name must be a plain file name"};
  }
  if (spec.limits.fuel == 0) return core::Error{"the fuel budget must be above 0"};
  if (spec.limits.memory_bytes < 65536) return core::Error{"the memory cap must be at least 64K (one page)"};
  if (!(spec.limits.timeout_seconds > 0)) return core::Error{"the timeout must be above 0 seconds"};
  if (spec.limits.fs_depth > UINT32_MAX) return core::Error{"the filesystem depth cap is too large"};
  std::set<std::string> names;
  uint64_t total = spec.program.size() + spec.stdin_bytes.size();
  for (const ProgramInput& in : spec.inputs) {
    if (in.name.empty() || in.name == "." || in.name == ".." ||
        in.name.find_first_of(std::string_view("/\0", 2)) != std::string::npos ||
        in.name.size() > wasi::kMaxNameBytes) {
      return core::Error{"input name '" + in.name + "' is not a plain file name"};
    }
    if (!names.insert(in.name).second) return core::Error{"input '" + in.name + "' is given twice"};
    if (in.bytes.size() > wasi::kMaxMailboxFileBytes) {
      return core::Error{"input '" + in.name + "' is larger than the limit of 64 MiB"};
    }
    total += in.bytes.size();
  }
  if (total > wasi::kMaxMailboxTotalBytes) {
    return core::Error{"the program, inputs and stdin add up to more than the limit of 256 MiB"};
  }
  return core::Status::Ok();
}

// The filesystem cap the engine applies (its default when the spec's is 0):
// the guest's files, the output files among them, never hold more.
uint64_t FsCap(const RunLimits& limits) {
  return limits.fs_bytes != 0 ? limits.fs_bytes : wasi::kDefaultFsMaxBytes;
}

// The most a result may take: its header and every output file's bytes.
uint64_t MaxResultBytes(const RunLimits& limits) {
  return std::min<uint64_t>(FsCap(limits), SIZE_MAX / 4) + kMaxResultHeaderBytes;
}

// Moves bytes between the host and the running engine until its output
// pipes close or the deadline passes. The result is read as it comes,
// within the filesystem cap (engine_protocol.h): the host holds the output
// files' bytes only when the spec keeps them.
struct Exchange {
  explicit Exchange(const RunSpec& spec) : result(FsCap(spec.limits), spec.keep_output_files) {}
  std::string request;
  size_t request_sent = 0;
  std::string stdout_data, stderr_data;
  ResultReader result;
  bool timed_out = false;
};

core::Status Pump(Fd& req_w, Fd& out_r, Fd& err_r, Fd& res_r, const RunSpec& spec, Clock::time_point deadline,
            JailedProcess& child, Exchange& x) {
  char buf[65536];
  const uint64_t cap = spec.limits.output_cap_bytes;
  auto keep = [&](std::string& data, std::string_view chunk, const std::function<void(std::string_view)>& sink) {
    // The engine enforces the cap; this only guards the host against a
    // misbehaving engine.
    size_t room = data.size() < cap ? size_t(cap - data.size()) : 0;
    chunk = chunk.substr(0, room);
    data.append(chunk);
    if (sink && !chunk.empty()) sink(chunk);
  };
  while (out_r.get() >= 0 || err_r.get() >= 0 || res_r.get() >= 0) {
    pollfd p[4];
    int n = 0;
    auto add = [&](Fd& fd, short events) {
      if (fd.get() >= 0) p[n++] = {fd.get(), events, 0};
    };
    add(req_w, POLLOUT);
    add(out_r, POLLIN);
    add(err_r, POLLIN);
    add(res_r, POLLIN);
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0 && !x.timed_out) {
      x.timed_out = true;
      (void)child.Kill();  // the whole jail: its pipes close, the loop drains and ends
      deadline = Clock::time_point::max();
      continue;
    }
    int ready = poll(p, nfds_t(n), x.timed_out ? 5000 : int(std::min<long long>(left, 1 << 30)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) return core::Errno("poll");
    if (ready == 0 && x.timed_out) return core::Error{"the engine did not stop after being killed"};
    for (int i = 0; i < n; ++i) {
      if (p[i].revents == 0) continue;
      if (p[i].fd == req_w.get()) {
        if (p[i].revents & (POLLERR | POLLHUP)) {
          req_w.reset();  // the engine stopped reading; its result says why
          continue;
        }
        ssize_t w = write(req_w.get(), x.request.data() + x.request_sent,
                          std::min<size_t>(x.request.size() - x.request_sent, 1 << 16));
        if (w < 0 && errno != EAGAIN && errno != EINTR) req_w.reset();
        if (w > 0) x.request_sent += size_t(w);
        if (x.request_sent == x.request.size()) req_w.reset();
        continue;
      }
      Fd& fd = p[i].fd == out_r.get() ? out_r : p[i].fd == err_r.get() ? err_r : res_r;
      ssize_t r = read(fd.get(), buf, sizeof buf);
      if (r < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (r <= 0) {
        fd.reset();
        continue;
      }
      std::string_view chunk(buf, size_t(r));
      if (&fd == &out_r) {
        keep(x.stdout_data, chunk, spec.on_stdout);
      } else if (&fd == &err_r) {
        keep(x.stderr_data, chunk, spec.on_stderr);
      } else {
        x.result.Feed(chunk);  // after a refusal, only drained
      }
    }
  }
  return core::Status::Ok();
}

OutputDigest DigestOutput(const std::string& kept, uint64_t total) {
  OutputDigest d;
  d.sha256 = core::Sha256Hex(kept);
  d.bytes = kept.size();
  d.total_bytes = std::max<uint64_t>(total, kept.size());
  d.truncated = d.total_bytes > d.bytes;
  return d;
}

}  // namespace

core::Result<std::string> RuntimeForProgram(std::string_view name) {
  auto ends = [&](std::string_view ext) {
    return name.size() > ext.size() && name.substr(name.size() - ext.size()) == ext;
  };
  if (ends(".py")) return std::string("python");
  if (ends(".js") || ends(".mjs")) return std::string("js");
  if (ends(".wasm")) return std::string("wasm");
  size_t dot = name.rfind('.');
  std::string ext = dot == std::string_view::npos ? "" : std::string(name.substr(dot));
  return core::Error{"cannot tell the language of '" + std::string(name) + "' from its extension" +
               (ext.empty() ? std::string() : " '" + ext + "'") +
               " (.py, .js, .mjs or .wasm); use --lang python|js|wasm"};
}

core::Result<ProgramRun> RunProgram(const RunSpec& spec) {
  CORE_RETURN_IF_ERROR(CheckSpec(spec));
  // One descriptor serves both sides: the host checks and hashes the same
  // open file the engine maps, not a path that could be swapped in between.
  // O_NONBLOCK: a FIFO must not hang the open; Kernel::OpenFd refuses it.
  Fd kernel_fd(open(spec.kernel_path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (kernel_fd.get() < 0) return core::Errno("cannot open the kernel '" + spec.kernel_path + "'");
  core::Result<std::unique_ptr<kernel::Kernel>> kernel = kernel::Kernel::OpenFd(kernel_fd.get(), spec.kernel_path);
  if (!kernel) return kernel.error();
  std::string kernel_sha256 = CachedKernelDigest(kernel_fd.get(), **kernel);
  core::Result<std::span<const uint8_t>> engine = (*kernel)->Entry(kernel::kEngineEntry);
  if (!engine) return engine.error();
  core::Result<Fd> engine_fd = EngineMemfd(*engine);
  if (!engine_fd) return engine_fd.error();

  RunRecord record;
  record.kernel_sha256 = kernel_sha256;
  record.cost_table_version = (*kernel)->manifest().cost_table_version;
  record.runtime = spec.runtime;
  record.program = {spec.program_name, Sha256Of(spec.program), spec.program.size()};
  for (const ProgramInput& in : spec.inputs) record.inputs.push_back({in.name, Sha256Of(in.bytes), in.bytes.size()});
  std::sort(record.inputs.begin(), record.inputs.end(),
            [](const NamedDigest& a, const NamedDigest& b) { return a.name < b.name; });
  record.stdin_digest = {Sha256Of(spec.stdin_bytes), spec.stdin_bytes.size()};
  record.seed = spec.seed;
  record.limits = spec.limits;
  // What this host does below, not what anyone asks for: the jail refuses
  // to start rather than fall back (sandbox/jail.h).
  record.isolation = spec.insecure_no_jail ? Isolation::kNone : Isolation::kJail;

  EngineRequest request{kernel_sha256,         spec.runtime,         spec.program_name,
                        spec.program,          spec.inputs,          spec.stdin_bytes,
                        spec.seed,             spec.limits.fuel,     spec.limits.memory_bytes,
                        spec.limits.output_cap_bytes, spec.limits.fs_bytes, spec.limits.fs_files,
                        spec.limits.fs_depth,  spec.http_ask_host};
  Exchange x(spec);
  x.request = EncodeRequest(request);

  Fd req_r, req_w, out_r, out_w, err_r, err_w, res_r, res_w;
  CORE_RETURN_IF_ERROR(MakePipe(req_r, req_w));
  CORE_RETURN_IF_ERROR(MakePipe(out_r, out_w));
  CORE_RETURN_IF_ERROR(MakePipe(err_r, err_w));
  CORE_RETURN_IF_ERROR(MakePipe(res_r, res_w));
  fcntl(req_w.get(), F_SETFL, O_NONBLOCK);

  JailOptions jail;
  jail.insecure_no_jail = spec.insecure_no_jail;
  // The guest's files live in the engine's memory too, twice at the end
  // (the tree and the result that carries the output files).
  jail.address_space_bytes =
      spec.limits.memory_bytes + 2 * uint64_t(MaxResultBytes(spec.limits)) + kEngineOverheadBytes;
  jail.cpu_seconds = uint64_t(spec.limits.timeout_seconds) + 5;
  const int child_fds[] = {req_r.get(), out_w.get(), err_w.get(), kernel_fd.get(), res_w.get()};
  const std::string argv[] = {"ampoule-engine"};

  record.started_at = core::Rfc3339Millis(core::UnixMillisNow());
  Clock::time_point deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(
                         std::chrono::duration<double>(spec.limits.timeout_seconds));
  core::Result<JailedProcess> child = SpawnJailed(engine_fd->get(), child_fds, argv, jail);
  if (!child) return child.error();
  for (Fd* fd : {&req_r, &out_w, &err_w, &res_w}) fd->reset();

  core::Status pumped = Pump(req_w, out_r, err_r, res_r, spec, deadline, *child, x);
  if (!pumped.ok()) (void)child->Kill();
  // Still bounded by the deadline: an engine that closed its pipes and then
  // sleeps uses no CPU time, so only the wall clock can end it.
  core::Result<JailExit> exit = WaitJailed(*child, deadline);
  record.finished_at = core::Rfc3339Millis(core::UnixMillisNow());
  if (!pumped.ok()) return pumped.error();
  if (!exit) return exit.error();

  ProgramRun run;
  if (exit->timed_out) x.timed_out = true;
  if (x.timed_out) {
    record.result.stop = Stop::kTimeout;
    record.result.terminated = true;
    record.result.status = kStatusTerminated;
    record.stdout_digest = DigestOutput(x.stdout_data, x.stdout_data.size());
    record.stderr_digest = DigestOutput(x.stderr_data, x.stderr_data.size());
  } else {
    core::Result<EngineResult> result = x.result.Finish();
    bool engine_ok = exit->exited && exit->exit_code == 0;
    if (!result || !engine_ok) {
      std::string why = engine_ok ? result.message() : exit->Describe();
      return core::Error{"the engine failed without a result (" + why + ")" +
                   (x.stderr_data.empty() ? "" : ": " + x.stderr_data.substr(0, 2000))};
    }
    if (!result->error.empty()) return core::Error{result->error};
    record.result.exit_code = result->exit_code;
    record.result.fuel_used = result->fuel_used;
    record.result.memory_cap_hit = result->memory_cap_hit;
    record.result.trap = result->trap;
    record.result.stop = ClassifyStop(result->stop, result->exit_code, result->memory_cap_hit);
    record.result.status = StatusFor(record.result.stop, result->exit_code);
    record.stdout_digest = DigestOutput(x.stdout_data, result->stdout_total_bytes);
    record.stderr_digest = DigestOutput(x.stderr_data, result->stderr_total_bytes);
    for (EngineOutputFile& f : result->outputs) {
      record.outputs.push_back({f.name, f.sha256, f.size});
      if (spec.keep_output_files) run.output_files.push_back({std::move(f.name), std::move(f.bytes)});
    }
    record.outputs_left_out = result->outputs_left_out;
    if (spec.http_ask_host) run.http_pending = std::move(result->http_pending);
  }
  run.record = std::move(record);
  run.stdout_data = std::move(x.stdout_data);
  run.stderr_data = std::move(x.stderr_data);
  return run;
}

}  // namespace ampoule::run
