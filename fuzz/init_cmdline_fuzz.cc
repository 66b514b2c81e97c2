// Fuzz target for the sealed image's PID 1 reading its kernel command line
// (src/volent/init/cmdline.h): any text gives options or a clean error, and
// options with a verity root always hold a well-formed root hash, salt and
// block numbers (what the init hands the device-mapper unchecked again).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "volent/init/cmdline.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > volent::init::kMaxCmdline) return 0;
  auto options = volent::init::ParseCmdline(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!options.ok() || !options->root) return 0;
  const auto& root = *options->root;
  if (root.roothash.size() != 64 || root.data_blocks == 0 || root.hash_start < root.data_blocks ||
      root.salt.empty() || root.device.rfind("/dev/", 0) != 0) {
    abort();
  }
  return 0;
}
