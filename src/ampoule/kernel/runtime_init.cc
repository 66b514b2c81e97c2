// The fixed start-up request of a guest runtime (see runtime_init.h).
#include "ampoule/kernel/runtime_init.h"

#include "ampoule/kernel/entry_names.h"
#include "ampoule/kernel/kernel.h"
#include "ampoule/kernel/tar_archive.h"

namespace ampoule::kernel {
namespace {

core::Status AddPreopens(wasi::Mailbox& mailbox, std::initializer_list<std::string_view> dirs) {
  for (std::string_view dir : dirs) CORE_RETURN_IF_ERROR(mailbox.AddPreopen(dir));
  return core::Status::Ok();
}

// Adds the files of the ustar archive `archive` (the kernel entry `entry`)
// under preopen `dir`.
core::Status AddTree(wasi::Mailbox& mailbox, std::string_view dir, std::span<const uint8_t> archive,
               std::string_view entry) {
  core::Result<std::vector<TarFile>> files = ReadTar(archive);
  if (!files) return core::Error{"the kernel's " + std::string(entry) + ": " + files.message()};
  for (const TarFile& f : *files) {
    CORE_RETURN_IF_ERROR(
        mailbox.AddFile(dir, f.path, std::vector<uint8_t>(f.bytes.begin(), f.bytes.end())));
  }
  return core::Status::Ok();
}

}  // namespace

std::string_view RuntimeName(GuestRuntime runtime) { return runtime == GuestRuntime::kPython ? "python" : "js"; }

std::string_view RuntimeModuleEntry(GuestRuntime runtime) {
  return runtime == GuestRuntime::kPython ? kPythonModuleEntry : kJsModuleEntry;
}

std::string_view RuntimeSnapshotEntry(GuestRuntime runtime) {
  return runtime == GuestRuntime::kPython ? kPythonSnapshotEntry : kJsSnapshotEntry;
}

core::Result<wasi::RunRequest> RuntimeInitRequest(GuestRuntime runtime, const EntryLookup& entries) {
  wasi::RunRequest request;
  request.args = {std::string(RuntimeName(runtime))};
  request.seed = 0;
  request.epoch_ns = wasi::kDefaultEpochNs;
  request.fuel = kRuntimeInitFuel;
  if (runtime == GuestRuntime::kPython) {
    request.env = {"PYTHONHOME=/usr/local", "PYTHONHASHSEED=0", "PYTHONDONTWRITEBYTECODE=1"};
    auto stdlib = entries(kPythonStdlibEntry);
    if (!stdlib.ok()) return stdlib.error();
    auto tzdata = entries(kTzdataEntry);
    if (!tzdata.ok()) return tzdata.error();
    CORE_RETURN_IF_ERROR(request.mailbox.AddPreopen(kRuntimeDir, /*read_only=*/true));
    CORE_RETURN_IF_ERROR(request.mailbox.AddPreopen(kZoneinfoDir, /*read_only=*/true));
    CORE_RETURN_IF_ERROR(
        AddPreopens(request.mailbox, {kInputDir, kProgramDir, kTmpDir, kOutputDir, kWorkDir}));
    CORE_RETURN_IF_ERROR(request.mailbox.AddFile(kRuntimeDir, "lib/python311.zip",
                                                std::vector<uint8_t>(stdlib->begin(), stdlib->end())));
    CORE_RETURN_IF_ERROR(AddTree(request.mailbox, kZoneinfoDir, *tzdata, kTzdataEntry));
  } else {
    CORE_RETURN_IF_ERROR(
        AddPreopens(request.mailbox, {kInputDir, kProgramDir, kTmpDir, kOutputDir, kWorkDir}));
  }
  return request;
}

core::Result<wasi::RunRequest> RuntimeInitRequest(GuestRuntime runtime, const Kernel& kernel) {
  return RuntimeInitRequest(runtime, [&kernel](std::string_view name) { return kernel.Entry(name); });
}

std::vector<std::string> RuntimeMainArgs(GuestRuntime runtime, std::string_view program_name) {
  return {std::string(RuntimeName(runtime)), std::string(kProgramDir) + "/" + std::string(program_name)};
}

}  // namespace ampoule::kernel
