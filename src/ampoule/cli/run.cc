// ampoule run: runs a Python, JavaScript or WASI program sealed, on a kernel,
// and reports what happened (docs/cli.md).
//
// The front end only: it reads the program, the inputs and stdin from the
// host, hands them to RunProgram (src/ampoule/run), passes the guest's output
// through, writes the record and the receipt, and exits with the run's
// status like `docker run` does.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "ampoule/cli/arg_parse.h"
#include "ampoule/cli/commands.h"
#include "ampoule/cli/output_dir.h"
#include "ampoule/cli/run_output.h"
#include "ampoule/kernel/default_path.h"
#include "ampoule/run/run_program.h"
#include "core/file_read.h"

namespace ampoule::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kHelp =
    "usage: ampoule run PROGRAM [options]\n"
    "\n"
    "Runs PROGRAM (.py, .js or .wasm) on the kernel, sealed in a fresh jail, and\n"
    "exits with its status. The same program, inputs, seed and limits on the same\n"
    "kernel give the same output, output files and fuel on every machine. The guest\n"
    "may write files anywhere under /input, /program, /tmp and /output: it changes\n"
    "an in-memory copy; only the files in /output leave the run.\n"
    "\n"
    "options:\n"
    "  --lang L              python, js or wasm (default: from PROGRAM's extension)\n"
    "  --input NAME=FILE     make FILE readable as /input/NAME in the guest\n"
    "                        (--input FILE uses FILE's own name). Repeatable\n"
    "  --stdin FILE          the guest's stdin (default: empty)\n"
    "  --seed N              seed of the guest's random numbers (default 0)\n"
    "  --fuel N              fuel budget (default 20000000000)\n"
    "  --memory BYTES        cap on the guest's memory; K, M, G suffixes (default 512M)\n"
    "  --timeout SECONDS     wall-clock safety net (default 60)\n"
    "  --output-cap BYTES    keep at most this much of stdout and of stderr (default 16M)\n"
    "  --outputs DIR         write the files the guest left in /output into DIR\n"
    "                        (created if missing; each is also in the record)\n"
    "  --fs-bytes BYTES      cap on the guest's files, inputs included (default 512M)\n"
    "  --fs-files N          cap on its files, folders and links (default 200000)\n"
    "  --fs-depth N          cap on its folder depth (default 128)\n"
    "  --kernel K            the kernel file (default: 'ampoule kernel path')\n"
    "  --record FILE         write the run record (JSON) to FILE\n"
    "  --json                print one JSON object {record, stdout, stderr} instead of\n"
    "                        passing the output through\n"
    "  --key KEY -o RECEIPT  sign the record with KEY into the receipt file RECEIPT\n"
    "  --insecure-no-jail    run without namespaces and seccomp (development only)\n"
    "  -h, --help            show this help\n"
    "\n"
    "exit status:\n"
    "  0-119  the guest's exit status\n"
    "  120    the guest exited with a status of 120 or more (see the record)\n"
    "  121    the guest failed after hitting the memory cap\n"
    "  124    the wall-clock safety net stopped the run (terminated)\n"
    "  125    ampoule could not run the program (usage, unreadable file, kernel, jail)\n"
    "  126    the guest trapped\n"
    "  127    the guest ran out of fuel\n";

struct Options {
  std::string program_path;
  std::string lang;
  std::vector<std::pair<std::string, std::string>> inputs;  // name, host path
  std::string stdin_path;
  std::string kernel_path;
  std::string record_path;
  std::string key_path;
  std::string receipt_path;
  std::string outputs_dir;
  bool json = false;
  bool help = false;
};

core::Status ParseArgs(Args args, Options& opts, run::RunSpec& spec) {
  for (size_t i = 0; i < args.size(); ++i) {
    std::string_view a = args[i];
    auto value = [&]() -> core::Result<std::string_view> {
      if (i + 1 >= args.size()) return core::Error{std::string(a) + " needs a value"};
      return std::string_view(args[++i]);
    };
    auto bad = [&](std::string_view v, const char* want) {
      return core::Error{"invalid " + std::string(a) + " '" + std::string(v) + "': expected " + want};
    };
    if (a == "-h" || a == "--help") {
      opts.help = true;
    } else if (a == "--json") {
      opts.json = true;
    } else if (a == "--insecure-no-jail") {
      spec.insecure_no_jail = true;
    } else if (a == "--lang" || a == "--input" || a == "--stdin" || a == "--seed" || a == "--fuel" ||
               a == "--memory" || a == "--timeout" || a == "--output-cap" || a == "--kernel" ||
               a == "--record" || a == "--key" || a == "-o" || a == "--outputs" || a == "--fs-bytes" ||
               a == "--fs-files" || a == "--fs-depth") {
      core::Result<std::string_view> v = value();
      if (!v) return v.error();
      std::string s(*v);
      if (a == "--lang") {
        if (s != "python" && s != "js" && s != "wasm") return bad(s, "python, js or wasm");
        opts.lang = s;
      } else if (a == "--input") {
        size_t eq = s.find('=');
        std::string name = eq == std::string::npos ? fs::path(s).filename().string() : s.substr(0, eq);
        std::string path = eq == std::string::npos ? s : s.substr(eq + 1);
        if (name.empty() || path.empty()) return bad(s, "NAME=FILE or FILE");
        opts.inputs.emplace_back(name, path);
      } else if (a == "--stdin") {
        opts.stdin_path = s;
      } else if (a == "--seed") {
        if (!ParseU64(s, &spec.seed)) return bad(s, "a whole number");
      } else if (a == "--fuel") {
        if (!ParseU64(s, &spec.limits.fuel) || spec.limits.fuel == 0) return bad(s, "a whole number above 0");
      } else if (a == "--memory") {
        if (!ParseBytes(s, &spec.limits.memory_bytes)) return bad(s, "a byte count such as 64M");
      } else if (a == "--timeout") {
        if (!ParseSeconds(s, &spec.limits.timeout_seconds)) return bad(s, "seconds, above 0 and at most 86400");
      } else if (a == "--output-cap") {
        if (!ParseBytes(s, &spec.limits.output_cap_bytes)) return bad(s, "a byte count such as 1M");
      } else if (a == "--fs-bytes") {
        if (!ParseBytes(s, &spec.limits.fs_bytes) || spec.limits.fs_bytes == 0) return bad(s, "a byte count above 0 such as 64M");
      } else if (a == "--fs-files") {
        if (!ParseU64(s, &spec.limits.fs_files) || spec.limits.fs_files == 0) return bad(s, "a whole number above 0");
      } else if (a == "--fs-depth") {
        if (!ParseU64(s, &spec.limits.fs_depth) || spec.limits.fs_depth == 0 || spec.limits.fs_depth > UINT32_MAX) {
          return bad(s, "a whole number from 1 to 4294967295");
        }
      } else if (a == "--outputs") {
        if (s.empty()) return bad(s, "a folder");
        opts.outputs_dir = s;
        spec.keep_output_files = true;  // held until written, at most --fs-bytes
      } else if (a == "--kernel") {
        opts.kernel_path = s;
      } else if (a == "--record") {
        opts.record_path = s;
      } else if (a == "--key") {
        opts.key_path = s;
      } else {
        opts.receipt_path = s;
      }
    } else if (a.size() > 1 && a.front() == '-') {
      return core::Error{"unknown option '" + std::string(a) + "'"};
    } else if (opts.program_path.empty()) {
      opts.program_path = std::string(a);
    } else {
      return core::Error{"unexpected argument '" + std::string(a) + "' (one program per run)"};
    }
  }
  if (opts.help) return core::Status::Ok();
  if (opts.program_path.empty()) return core::Error{"no program given"};
  if (opts.key_path.empty() != opts.receipt_path.empty()) {
    return core::Error{"--key and -o go together: --key KEY -o RECEIPT"};
  }
  return core::Status::Ok();
}

// Reads the program, inputs and stdin into `spec`.
core::Status LoadFiles(const Options& opts, run::RunSpec& spec) {
  auto read = [](const std::string& path, const char* what) -> core::Result<std::vector<uint8_t>> {
    bool over = false;
    core::Result<std::string> data = core::ReadFileCapped(path, core::kMaxFileBytes, &over);
    if (!data) return core::Error{std::string(what) + ": " + data.message()};
    return std::vector<uint8_t>(data->begin(), data->end());
  };
  core::Result<std::vector<uint8_t>> program = read(opts.program_path, "program");
  if (!program) return program.error();
  spec.program = std::move(*program);
  spec.program_name = fs::path(opts.program_path).filename().string();
  if (!opts.lang.empty()) {
    spec.runtime = opts.lang;
  } else {
    core::Result<std::string> runtime = run::RuntimeForProgram(spec.program_name);
    if (!runtime) return runtime.error();
    spec.runtime = *runtime;
  }
  for (const auto& [name, path] : opts.inputs) {
    core::Result<std::vector<uint8_t>> bytes = read(path, "input");
    if (!bytes) return bytes.error();
    spec.inputs.push_back({name, std::move(*bytes)});
  }
  if (!opts.stdin_path.empty()) {
    core::Result<std::vector<uint8_t>> bytes = read(opts.stdin_path, "stdin");
    if (!bytes) return bytes.error();
    spec.stdin_bytes = std::move(*bytes);
  }
  if (!opts.kernel_path.empty()) {
    spec.kernel_path = opts.kernel_path;
    return core::Status::Ok();
  }
  core::Result<std::string> kernel_path = kernel::DefaultKernelPath();
  if (!kernel_path) return kernel_path.error();
  std::error_code ec;
  if (!fs::exists(*kernel_path, ec)) {
    return core::Error{"no kernel at the default path '" + *kernel_path +
                 "': build one with scripts/build-kernel.sh, or name one with --kernel K or $AMPOULE_KERNEL"};
  }
  spec.kernel_path = *kernel_path;
  return core::Status::Ok();
}

void WriteLive(FILE* f, std::string_view bytes) {
  fwrite(bytes.data(), 1, bytes.size(), f);
  fflush(f);
}

}  // namespace

int RunCommand(Args args) {
  Options opts;
  run::RunSpec spec;
  core::Status parsed = ParseArgs(args, opts, spec);
  if (!parsed.ok()) {
    fprintf(stderr, "ampoule run: %s\nRun 'ampoule run --help' for usage.\n", parsed.message().c_str());
    return run::kStatusCannotRun;
  }
  if (opts.help) {
    fputs(kHelp, stdout);
    return 0;
  }
  core::Status loaded = LoadFiles(opts, spec);
  if (!loaded.ok()) {
    fprintf(stderr, "ampoule run: %s\n", loaded.message().c_str());
    return run::kStatusCannotRun;
  }
  // A signing key that cannot be used must fail before the run, not after.
  core::Result<ReceiptSigner> signer = ReceiptSigner::Load(opts.key_path);
  if (!signer) {
    fprintf(stderr, "ampoule run: %s\n", signer.message().c_str());
    return run::kStatusCannotRun;
  }
  if (!opts.json) {
    spec.on_stdout = [](std::string_view b) { WriteLive(stdout, b); };
    spec.on_stderr = [](std::string_view b) { WriteLive(stderr, b); };
  }

  core::Result<run::ProgramRun> result = run::RunProgram(spec);
  if (!result) {
    fprintf(stderr, "ampoule run: %s\n", result.message().c_str());
    return run::kStatusCannotRun;
  }
  const run::RunRecord& record = result->record;
  if (!opts.json) ExplainStop(record, stderr);

  core::Status written = WriteRunOutputs(*result, opts.record_path, opts.json, *signer, opts.receipt_path);
  if (written.ok() && !opts.outputs_dir.empty()) written = WriteOutputFiles(opts.outputs_dir, result->output_files);
  if (!written.ok()) {
    fprintf(stderr, "ampoule run: %s\n", written.message().c_str());
    return run::kStatusCannotRun;
  }
  if (!opts.json) ExplainOutputFiles(record, opts.outputs_dir, stderr);
  return record.result.status;
}

}  // namespace ampoule::cli
