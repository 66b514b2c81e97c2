// Server::Create: checks what `ampoule mcp` was started with (the signing
// key, the trusted keys, the kernel, the gate policy) before any client
// connects, so a misconfiguration fails at start with the option to fix
// rather than on every tool call.
#include <filesystem>

#include "ampoule/kernel/default_path.h"
#include "ampoule/mcp/server_impl.h"
#include "ampoule/mcp/tools.h"
#include "ampoule/receipt/key_file.h"

namespace ampoule::mcp {

namespace fs = std::filesystem;

core::Result<std::shared_ptr<Server>> Server::Create(const ServerOptions& options) {
  if (options.key_path.empty()) {
    return core::Error{"--key is required: the key run receipts are signed with (make one with 'ampoule keygen -o KEY')"};
  }
  core::Result<core::ed25519::SecretKey> key = receipt::ReadSecretKeyFile(options.key_path);
  if (!key) return core::Error{"--key: " + key.message()};
  for (const std::string& path : options.trusted_keys) {
    core::Result<std::vector<core::ed25519::PublicKey>> keys = receipt::ReadTrustedKeysFile(path);
    if (!keys) return core::Error{"--trusted-keys: " + keys.message()};
  }

  std::string kernel = options.kernel_path.empty() ? kernel::DefaultKernelPath() : options.kernel_path;
  std::error_code ec;
  if (kernel.empty() || !fs::is_regular_file(kernel, ec)) {
    return core::Error{options.kernel_path.empty()
                     ? "no kernel at the default path '" + kernel +
                           "': build one with scripts/build-kernel.sh, or name one with --kernel K or $AMPOULE_KERNEL"
                     : "--kernel: no kernel file at '" + kernel + "'"};
  }
  if (!options.gate_policy.empty() && !fs::is_regular_file(options.gate_policy, ec)) {
    return core::Error{"--policy: no policy file at '" + options.gate_policy + "'"};
  }

  std::string own_public = receipt::FormatPublicKey(key->public_key());
  auto context = std::make_shared<ToolContext>(ToolContext{fs::absolute(kernel, ec).string(), std::move(*key),
                                                           options.trusted_keys, std::move(own_public),
                                                           options.gate_policy});
  return NewServerWithTools(AllTools(context));
}

}  // namespace ampoule::mcp
