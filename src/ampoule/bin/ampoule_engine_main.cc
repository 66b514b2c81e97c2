// ampoule-engine: the engine a kernel carries (docs/kernel.md).
//
// Started by `ampoule run` inside the jail, with nothing but descriptors
// (src/ampoule/run/engine_protocol.h): 0 the request, 1 and 2 the guest's stdout
// and stderr, 3 the kernel file, 4 the result. It reads its inputs, locks
// itself down to the few system calls a running guest needs, runs the
// request and writes the result. It never prints anything of its own on 1
// or 2: they carry only the guest's bytes. Exit status 0 when a result was
// written (whatever the guest did), 1 otherwise.
#include <unistd.h>

#include <csignal>
#include <string>

#include "ampoule/kernel/kernel.h"
#include "ampoule/run/engine_execute.h"
#include "ampoule/run/engine_protocol.h"
#include "ampoule/sandbox/lockdown.h"
#include "ampoule/wasi/mailbox.h"
#include "core/file_read.h"
#include "core/hex.h"
#include "core/write_all.h"

using namespace ampoule;

namespace {

// Room for the largest request: every mailbox byte plus the header.
constexpr size_t kMaxRequestBytes = wasi::kMaxMailboxTotalBytes + (size_t(32) << 20);

// Writes `bytes` to the host; if it went away, nothing is left to tell it.
void Send(int fd, std::string_view bytes) { (void)core::WriteAll(fd, bytes); }

// The header, then each output file's bytes from where they are: the files
// are never copied into one buffer (engine_protocol.h).
int Finish(const run::EngineResult& result) {
  std::string head = run::EncodeResultHeader(result);
  Send(run::kEngineResultFd, head);
  for (const run::EngineOutputFile& f : result.outputs) Send(run::kEngineResultFd, f.bytes);
  return 0;
}

run::EngineResult Failure(std::string message) {
  run::EngineResult r;
  r.error = std::move(message);
  return r;
}

}  // namespace

int main() {
  signal(SIGPIPE, SIG_IGN);
  core::Result<std::string> request_bytes = core::ReadFdCapped(run::kEngineRequestFd, "engine request", kMaxRequestBytes);
  if (!request_bytes) return Finish(Failure(request_bytes.message()));
  core::Result<run::EngineRequest> request = run::DecodeRequest(*request_bytes);
  if (!request) return Finish(Failure(request.message()));
  request_bytes->clear();
  request_bytes->shrink_to_fit();
  core::Result<std::unique_ptr<kernel::Kernel>> kernel = kernel::Kernel::OpenFd(run::kEngineKernelFd, "kernel");
  if (!kernel) return Finish(Failure(kernel.message()));
  if (core::IsLowerHex(request->kernel_sha256, 32)) (*kernel)->AcceptDigest(request->kernel_sha256);
  core::Status locked = LockDownEngine();
  if (!locked.ok()) return Finish(Failure(locked.message()));

  auto sink = [](int fd) {
    return [fd](std::span<const uint8_t> bytes) {
      Send(fd, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
    };
  };
  return Finish(run::ExecuteRequest(**kernel, *request, sink(run::kEngineStdoutFd), sink(run::kEngineStderrFd)));
}
