// ampoule kernel info|path|pack: inspecting and making kernel files.
// The format and the checks live in src/ampoule/kernel; this file parses and prints.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "ampoule/cli/commands.h"
#include "ampoule/kernel/default_path.h"
#include "ampoule/kernel/kernel.h"
#include "ampoule/kernel/kernel_pack.h"
#include "core/file_write.h"
#include "core/hex.h"

namespace ampoule::cli {
namespace {

constexpr const char* kKernelUsage =
    "usage: ampoule kernel info [KERNEL]\n"
    "       ampoule kernel path\n"
    "       ampoule kernel pack -o OUT --engine ENGINE --runtimes DIR [--snapshots]\n"
    "                           [--engine-info NAME=VALUE]...\n"
    "\n"
    "  info   print a kernel's digest (its SHA-256) and what it holds, after\n"
    "         checking every entry; KERNEL defaults to 'ampoule kernel path'\n"
    "  path   print where the default kernel is: $AMPOULE_KERNEL, else\n"
    "         <folder of ampoule>/../share/ampoule/ampoule.kernel\n"
    "  pack   make a kernel from the engine ELF and the runtimes folder of\n"
    "         scripts/build-runtimes.sh --out DIR (scripts/build-kernel.sh runs this);\n"
    "         --snapshots adds pre-initialised runtime snapshots\n"
    "\n"
    "Exit status: 0 ok; 1 the kernel is missing, unreadable or damaged, or\n"
    "packing failed; 2 usage error.\n";

int Usage(const std::string& message) {
  fprintf(stderr, "ampoule kernel: %s\n\n%s", message.c_str(), kKernelUsage);
  return 2;
}

int Fail(const std::string& message) {
  fprintf(stderr, "ampoule kernel: %s\n", message.c_str());
  return 1;
}

std::string Join(const std::map<std::string, std::string>& values) {
  std::string out;
  for (const auto& [k, v] : values) out += (out.empty() ? "" : ", ") + k + " " + v;
  return out.empty() ? "(none recorded)" : out;
}

void PrintInfo(const kernel::Kernel& k, const std::string& path) {
  const kernel::KernelManifest& m = k.manifest();
  printf("kernel       %s\n", path.c_str());
  printf("sha256       %s\n", k.digest().c_str());
  printf("bytes        %llu\n", (unsigned long long)k.size());
  printf("format       %u\n", m.format_version);
  printf("cost table   %u\n", m.cost_table_version);
  printf("engine       sha256 %s, %llu bytes\n", m.engine.sha256.c_str(), (unsigned long long)m.engine.bytes);
  for (const auto& [fact, value] : m.engine_build) printf("  %-22s %s\n", fact.c_str(), value.c_str());
  printf("runtimes     build key %s\n", m.runtimes_key.empty() ? "(none)" : m.runtimes_key.c_str());
  printf("  sources    %s\n", Join(m.RuntimeSources()).c_str());
  printf("  toolchain  %s\n", Join(m.RuntimeToolchain()).c_str());
  printf("snapshots    %s%s%s\n", m.snapshots ? "yes" : "no", m.snapshots_note.empty() ? "" : ": ",
         m.snapshots_note.c_str());
  printf("entries      %zu (sha256, bytes, name)\n", k.entries().size());
  for (const kernel::EntryRecord& e : k.entries()) {
    printf("entry %s %llu %s\n", core::HexEncode(e.sha256).c_str(), (unsigned long long)e.size, e.name.c_str());
  }
}

int Info(Args args) {
  std::string path;
  for (const char* arg : args) {
    if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) return fputs(kKernelUsage, stdout), 0;
    if (arg[0] == '-' || !path.empty()) return Usage(std::string("unexpected argument '") + arg + "'");
    path = arg;
  }
  if (path.empty()) {
    path = kernel::DefaultKernelPath();
    if (path.empty()) return Fail("cannot find the running executable (no /proc?); name the kernel or set AMPOULE_KERNEL");
  }
  auto k = kernel::Kernel::Open(path);
  if (!k.ok()) return Fail(k.message());
  core::Status verified = (*k)->VerifyAll();
  if (!verified.ok()) return Fail(path + ": " + verified.message());
  PrintInfo(**k, path);
  printf("integrity    ok: every entry matches its SHA-256\n");
  return 0;
}

int Path(Args args) {
  if (!args.empty()) {
    if (!strcmp(args[0], "-h") || !strcmp(args[0], "--help")) return fputs(kKernelUsage, stdout), 0;
    return Usage(std::string("unexpected argument '") + args[0] + "'");
  }
  std::string path = kernel::DefaultKernelPath();
  if (path.empty()) return Fail("cannot find the running executable (no /proc?); set AMPOULE_KERNEL");
  printf("%s\n", path.c_str());
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    fprintf(stderr, "ampoule kernel: no kernel there yet; build one with scripts/build-kernel.sh%s\n",
            getenv("AMPOULE_KERNEL") && *getenv("AMPOULE_KERNEL") ? " (the path comes from $AMPOULE_KERNEL)" : "");
    return 1;
  }
  return 0;
}

int Pack(Args args) {
  std::string out, engine, runtimes;
  bool snapshots = false;
  std::map<std::string, std::string> engine_info;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string_view arg = args[i];
    bool has_value = i + 1 < args.size();
    if (arg == "-h" || arg == "--help") return fputs(kKernelUsage, stdout), 0;
    if ((arg == "-o" || arg == "--output") && has_value) {
      out = args[++i];
    } else if (arg == "--engine" && has_value) {
      engine = args[++i];
    } else if (arg == "--runtimes" && has_value) {
      runtimes = args[++i];
    } else if (arg == "--engine-info" && has_value) {
      std::string kv = args[++i];
      size_t eq = kv.find('=');
      if (eq == 0 || eq == std::string::npos) return Usage("invalid --engine-info '" + kv + "' (want NAME=VALUE)");
      engine_info[kv.substr(0, eq)] = kv.substr(eq + 1);
    } else if (arg == "--snapshots") {
      snapshots = true;
    } else {
      return Usage("unexpected argument '" + std::string(arg) + "'");
    }
  }
  if (out.empty() || engine.empty() || runtimes.empty()) return Usage("pack needs -o, --engine and --runtimes");
  auto build = kernel::ReadKernelBuild(engine, runtimes);
  if (!build.ok()) return Fail(build.message());
  build->engine_build = std::move(engine_info);
  if (snapshots) {
    core::Status made = kernel::AddRuntimeSnapshots(&*build);
    if (!made.ok()) return Fail(made.message());
    printf("snapshots: %s\n", build->snapshots_note.c_str());
  } else {
    build->snapshots_note = "not requested (packed without --snapshots)";
  }
  auto bytes = kernel::AssembleKernel(*build);
  if (!bytes.ok()) return Fail(bytes.message());
  // Mode 0666 less the umask, as any file the user makes.
  core::Status written = core::WriteFileAtomically(
      out, std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()), 0666);
  if (!written.ok()) return Fail(written.message());
  auto check = kernel::Kernel::Open(out);
  if (!check.ok()) return Fail("the kernel just written does not read back: " + check.message());
  printf("wrote %s (%zu bytes, %zu entries)\nsha256 %s\n", out.c_str(), bytes->size(), (*check)->entries().size(),
         (*check)->digest().c_str());
  return 0;
}

}  // namespace

int KernelCommand(Args args) {
  if (args.empty()) return Usage("which kernel command? info, path or pack");
  std::string_view sub = args[0];
  Args rest = args.subspan(1);
  if (sub == "info") return Info(rest);
  if (sub == "path") return Path(rest);
  if (sub == "pack") return Pack(rest);
  if (sub == "-h" || sub == "--help") return fputs(kKernelUsage, stdout), 0;
  return Usage("unknown kernel command '" + std::string(sub) + "'");
}

}  // namespace ampoule::cli
