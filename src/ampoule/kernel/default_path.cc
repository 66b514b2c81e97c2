// The default kernel location (see default_path.h).
#include "ampoule/kernel/default_path.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

namespace ampoule::kernel {

std::string KernelPathBesideExecutable(std::string_view exe) {
  std::filesystem::path bin = std::filesystem::path(exe).parent_path();
  // Lexically, so "<prefix>/bin/.." becomes "<prefix>" even where the
  // share/ folder does not exist yet.
  return (bin.parent_path() / "share" / "ampoule" / "ampoule.kernel").lexically_normal().string();
}

std::string DefaultKernelPath() {
  const char* env = getenv(std::string(kKernelPathEnv).c_str());
  if (env != nullptr && env[0] != '\0') return std::string(env);
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0 || size_t(n) >= sizeof buf - 1) return "";
  buf[n] = '\0';
  return KernelPathBesideExecutable(buf);
}

}  // namespace ampoule::kernel
