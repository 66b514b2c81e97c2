// ampoule wasm run: runs a WASI command module (or an ampoule reactor: see
// wasi/wasi_run.h) under the deterministic host.
//
// This is the I/O layer the deterministic core leaves out: it reads the
// module, the stdin file and the --dir trees from the host file system into
// a RunRequest, runs it, prints the guest's output as it arrives, and maps
// the way the run stopped to the process exit code. What the guest writes
// stays in the run's in-memory filesystem: nothing goes back to the host.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "ampoule/cli/arg_parse.h"
#include "ampoule/cli/commands.h"
#include "ampoule/wasi/wasi_run.h"
#include "core/file_read.h"
#include "core/result.h"

namespace ampoule::cli {
namespace {

namespace fs = std::filesystem;

// Exit codes of `ampoule wasm run` beyond the guest's own status.
constexpr int kExitGuestStatusOutOfRange = 124;  // the guest's status was outside 0..124
constexpr int kExitUsage = 125;                  // bad usage, unreadable input, module rejected
constexpr int kExitTrap = 126;                   // the guest trapped
constexpr int kExitOutOfFuel = 127;              // the fuel budget ran out

constexpr uint64_t kDefaultFuel = 10'000'000'000;
constexpr uint64_t kDefaultMemoryBytes = uint64_t(256) << 20;
constexpr uint64_t kMaxModuleBytes = uint64_t(256) << 20;
constexpr int kMaxDirDepth = 64;

constexpr const char* kHelp =
    "usage: ampoule wasm run MODULE.wasm [options] [-- ARGS...]\n"
    "\n"
    "Runs a WASI (preview 1) command module deterministically: the same module and\n"
    "options give the same output, exit status and fuel on every machine. A module\n"
    "without _start that exports ampoule_main runs as a reactor: _initialize,\n"
    "ampoule_init (a non-zero result is the exit status), then ampoule_main, whose\n"
    "result is the exit status.\n"
    "\n"
    "options:\n"
    "  --fuel N           fuel budget (default 10000000000)\n"
    "  --memory BYTES     cap on each linear memory; K, M, G suffixes are KiB, MiB,\n"
    "                     GiB (default 256M). memory.grow past it returns -1\n"
    "  --seed N           seed of the random_get stream (default 0)\n"
    "  --dir GUEST=HOST   copy host directory HOST into the run as the preopened\n"
    "                     directory GUEST (e.g. --dir /input=./data); the guest may\n"
    "                     change its copy, never HOST. --dir PATH means PATH=PATH.\n"
    "                     Repeatable. There are no other preopens (for an empty\n"
    "                     scratch folder, pass an empty HOST folder)\n"
    "  --fs-bytes BYTES   cap on the bytes of all files, inputs included (default\n"
    "                     512M); writing past it is ENOSPC for the guest\n"
    "  --fs-files N       cap on files, folders and links, inputs included (default\n"
    "                     200000); EDQUOT past it\n"
    "  --fs-depth N       cap on folder depth below a preopen (default 128);\n"
    "                     ENAMETOOLONG past it\n"
    "  --env K=V          set an environment variable for the guest. Repeatable\n"
    "  --stdin FILE       the guest's stdin (default: empty; '-' reads this\n"
    "                     process's stdin)\n"
    "  --stats            print the stop reason and fuel used to stderr\n"
    "  -h, --help         show this help\n"
    "  -- ARGS...         arguments for the guest; argv[0] is MODULE's file name\n"
    "\n"
    "The guest sees no host files except copies of --dir trees, no host clock\n"
    "(time is derived from fuel used), no network. Its stdout and stderr are\n"
    "printed as they are written, up to 16 MiB each.\n"
    "\n"
    "exit status:\n"
    "  0-124  the guest's exit status (0 when _start returns)\n"
    "  124    also: the guest exited with a status outside 0-124 (see --stats)\n"
    "  125    usage error, unreadable input, or a module that cannot run\n"
    "  126    the guest trapped\n"
    "  127    the guest ran out of fuel\n";

struct Options {
  std::string module_path;
  std::string stdin_path;
  std::vector<std::pair<std::string, std::string>> dirs;  // guest, host
  bool stats = false;
  bool help = false;
};

// Reads a whole file through the safe reader (no blocking open, pipes
// polled, at most `limit` bytes). "-" is stdin.
core::Result<std::vector<uint8_t>> ReadFile(const std::string& path, uint64_t limit, const char* what) {
  core::Result<std::string> data = path == "-" ? core::ReadFdCapped(0, "stdin", limit)
                                         : core::ReadFileCapped(path, limit);
  if (!data) return core::Error{std::string(what) + ": " + data.message()};
  return std::vector<uint8_t>(data->begin(), data->end());
}

// Copies the host tree `host` (following symbolic links, at most
// kMaxDirDepth deep) into the mailbox under preopen `guest`.
core::Status LoadTree(wasi::Mailbox& box, const std::string& guest, const fs::path& host,
                const std::string& rel, int depth) {
  if (depth > kMaxDirDepth) {
    return core::Error{"'" + host.string() + "' is nested more than " + std::to_string(kMaxDirDepth) +
                 " directories deep (a symbolic link loop?)"};
  }
  std::error_code ec;
  fs::directory_iterator it(host, ec);
  if (ec) return core::Error{"cannot list directory '" + host.string() + "': " + ec.message()};
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    const fs::path& p = it->path();
    std::string name = p.filename().string();
    std::string child = rel.empty() ? name : rel + "/" + name;
    fs::file_status st = fs::status(p, ec);  // follows links
    if (ec) return core::Error{"cannot read '" + p.string() + "': " + ec.message()};
    if (fs::is_directory(st)) {
      CORE_RETURN_IF_ERROR(box.AddDirectory(guest, child));
      CORE_RETURN_IF_ERROR(LoadTree(box, guest, p, child, depth + 1));
    } else if (fs::is_regular_file(st)) {
      core::Result<std::vector<uint8_t>> data =
          ReadFile(p.string(), wasi::kMaxMailboxFileBytes, "input file");
      if (!data) return data.error();
      CORE_RETURN_IF_ERROR(box.AddFile(guest, child, std::move(*data)));
    } else {
      return core::Error{"'" + p.string() +
                   "' is neither a regular file nor a directory; only those can be passed in"};
    }
  }
  if (ec) return core::Error{"cannot list directory '" + host.string() + "': " + ec.message()};
  return core::Status::Ok();
}

// Parses the command line into `opts` and the parts of `req` that need no
// file I/O.
core::Status ParseArgs(Args args, Options& opts, wasi::RunRequest& req) {
  std::vector<std::string> guest_args;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string_view a = args[i];
    auto value = [&](std::string_view flag) -> core::Result<std::string_view> {
      if (i + 1 >= args.size()) return core::Error{std::string(flag) + " needs a value"};
      return std::string_view(args[++i]);
    };
    auto bad = [&](std::string_view flag, std::string_view v, const char* want) {
      return core::Error{"invalid " + std::string(flag) + " '" + std::string(v) + "': expected " + want};
    };
    if (a == "--") {
      for (++i; i < args.size(); ++i) guest_args.emplace_back(args[i]);
      break;
    } else if (a == "-h" || a == "--help") {
      opts.help = true;
    } else if (a == "--stats") {
      opts.stats = true;
    } else if (a == "--fuel" || a == "--memory" || a == "--seed" || a == "--dir" || a == "--env" ||
               a == "--stdin" || a == "--fs-bytes" || a == "--fs-files" || a == "--fs-depth") {
      core::Result<std::string_view> v = value(a);
      if (!v) return v.error();
      if (a == "--fuel" && !ParseU64(*v, &req.fuel)) return bad(a, *v, "a whole number");
      if (a == "--seed" && !ParseU64(*v, &req.seed)) return bad(a, *v, "a whole number");
      if (a == "--memory" && !ParseBytes(*v, &req.limits.max_memory_bytes)) {
        return bad(a, *v, "a byte count such as 67108864 or 64M");
      }
      if (a == "--fs-bytes" && (!ParseBytes(*v, &req.fs_limits.max_bytes) || req.fs_limits.max_bytes == 0)) {
        return bad(a, *v, "a byte count above zero such as 1048576 or 1M");
      }
      uint64_t n = 0;
      if (a == "--fs-files") {
        if (!ParseU64(*v, &n) || n == 0) return bad(a, *v, "a whole number above zero");
        req.fs_limits.max_nodes = n;
      }
      if (a == "--fs-depth") {
        if (!ParseU64(*v, &n) || n == 0 || n > UINT32_MAX) return bad(a, *v, "a whole number from 1 to 4294967295");
        req.fs_limits.max_depth = uint32_t(n);
      }
      if (a == "--env") {
        if (v->find('=') == std::string_view::npos || v->front() == '=')
          return bad(a, *v, "KEY=VALUE");
        req.env.emplace_back(*v);
      }
      if (a == "--stdin") opts.stdin_path = std::string(*v);
      if (a == "--dir") {
        size_t eq = v->find('=');
        std::string guest(eq == std::string_view::npos ? *v : v->substr(0, eq));
        std::string host(eq == std::string_view::npos ? *v : v->substr(eq + 1));
        if (guest.empty() || host.empty()) return bad(a, *v, "GUEST=HOST with both non-empty");
        opts.dirs.emplace_back(guest, host);
      }
    } else if (a.size() > 1 && a.front() == '-') {
      return core::Error{"unknown option '" + std::string(a) + "'"};
    } else if (opts.module_path.empty()) {
      opts.module_path = std::string(a);
    } else {
      return core::Error{"unexpected argument '" + std::string(a) + "' (put guest arguments after --)"};
    }
  }
  if (opts.help) return core::Status::Ok();
  if (opts.module_path.empty()) return core::Error{"no module given"};
  req.args.push_back(fs::path(opts.module_path).filename().string());
  req.args.insert(req.args.end(), guest_args.begin(), guest_args.end());
  return core::Status::Ok();
}

// Reads everything the request needs from the host file system.
core::Result<std::vector<uint8_t>> LoadInputs(const Options& opts, wasi::RunRequest& req) {
  core::Result<std::vector<uint8_t>> module = ReadFile(opts.module_path, kMaxModuleBytes, "module");
  if (!module) return module.error();
  if (!opts.stdin_path.empty()) {
    core::Result<std::vector<uint8_t>> in =
        ReadFile(opts.stdin_path, wasi::kMaxMailboxFileBytes, "stdin file");
    if (!in) return in.error();
    req.stdin_bytes = std::move(*in);
  }
  for (const auto& [guest, host] : opts.dirs) {
    std::error_code ec;
    if (!fs::is_directory(host, ec)) return core::Error{"--dir: '" + host + "' is not a directory"};
    CORE_RETURN_IF_ERROR(req.mailbox.AddPreopen(guest));
    CORE_RETURN_IF_ERROR(LoadTree(req.mailbox, guest, host, "", 0));
  }
  return module;
}

void PrintStats(const wasi::RunResult& r) {
  fprintf(stderr, "ampoule stats: stop=%s", wasm::StopReasonName(r.stop));
  if (r.stop == wasm::StopReason::kTrap) fprintf(stderr, " trap=%s", wasm::TrapName(r.trap));
  if (r.stop == wasm::StopReason::kExit) fprintf(stderr, " exit_code=%d", r.exit_code);
  fprintf(stderr, " fuel_used=%llu memory_cap_hit=%s stdout_bytes=%llu stderr_bytes=%llu\n",
          (unsigned long long)r.fuel_used, r.memory_cap_hit ? "yes" : "no",
          (unsigned long long)r.stdout_total_bytes, (unsigned long long)r.stderr_total_bytes);
}

int ExitCodeFor(const wasi::RunResult& r) {
  switch (r.stop) {
    case wasm::StopReason::kReturned: return 0;
    case wasm::StopReason::kExit:
      return r.exit_code >= 0 && r.exit_code < kExitGuestStatusOutOfRange
                 ? r.exit_code
                 : kExitGuestStatusOutOfRange;
    case wasm::StopReason::kTrap: return kExitTrap;
    case wasm::StopReason::kOutOfFuel: return kExitOutOfFuel;
  }
  return kExitUsage;
}

void WriteLive(FILE* f, std::span<const uint8_t> bytes) {
  fwrite(bytes.data(), 1, bytes.size(), f);
  fflush(f);
}

}  // namespace

int WasmRunCommand(Args args) {
  Options opts;
  wasi::RunRequest req;
  req.fuel = kDefaultFuel;
  req.limits.max_memory_bytes = kDefaultMemoryBytes;
  core::Status parsed = ParseArgs(args, opts, req);
  if (!parsed.ok()) {
    fprintf(stderr, "ampoule wasm run: %s\nRun 'ampoule wasm run --help' for usage.\n",
            parsed.message().c_str());
    return kExitUsage;
  }
  if (opts.help) {
    fputs(kHelp, stdout);
    return 0;
  }
  core::Result<std::vector<uint8_t>> module = LoadInputs(opts, req);
  if (!module) {
    fprintf(stderr, "ampoule wasm run: %s\n", module.message().c_str());
    return kExitUsage;
  }
  req.stdout_sink = [](std::span<const uint8_t> b) { WriteLive(stdout, b); };
  req.stderr_sink = [](std::span<const uint8_t> b) { WriteLive(stderr, b); };

  core::Result<wasi::RunResult> run = wasi::RunWasiCommand(*module, req);
  if (!run) {
    fprintf(stderr, "ampoule wasm run: %s: %s\n", opts.module_path.c_str(), run.message().c_str());
    return kExitUsage;
  }
  const wasi::RunResult& r = *run;
  if (r.stdout_truncated || r.stderr_truncated) {
    fprintf(stderr,
            "ampoule wasm run: guest output over the %llu-byte cap was dropped (stdout %llu bytes, "
            "stderr %llu bytes written)\n",
            (unsigned long long)req.stdout_cap, (unsigned long long)r.stdout_total_bytes,
            (unsigned long long)r.stderr_total_bytes);
  }
  if (r.stop == wasm::StopReason::kTrap) {
    fprintf(stderr, "ampoule wasm run: guest trapped: %s\n", r.trap_message.c_str());
  } else if (r.stop == wasm::StopReason::kOutOfFuel) {
    fprintf(stderr, "ampoule wasm run: guest ran out of fuel (budget %llu; raise it with --fuel)\n",
            (unsigned long long)req.fuel);
  }
  if (opts.stats) PrintStats(r);
  return ExitCodeFor(r);
}

}  // namespace ampoule::cli
