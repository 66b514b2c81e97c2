// ampoule keygen -o KEY: makes an Ed25519 signing key for receipts.
// Writes KEY (secret, mode 0600) and KEY.pub (public); never overwrites.
#include <cstdio>
#include <cstring>
#include <string>

#include "ampoule/cli/commands.h"
#include "ampoule/receipt/key_file.h"
#include "core/ed25519.h"

namespace ampoule::cli {
namespace {

constexpr const char* kKeygenUsage =
    "usage: ampoule keygen -o KEY\n"
    "\n"
    "Makes an Ed25519 key pair for signing receipts:\n"
    "  KEY      the secret key (mode 0600); pass it to 'ampoule run --key'\n"
    "  KEY.pub  the public key; give it to whoever verifies your receipts\n"
    "Neither file may exist already.\n";

}  // namespace

int KeygenCommand(Args args) {
  std::string out;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string_view arg = args[i];
    if (arg == "-h" || arg == "--help") {
      fputs(kKeygenUsage, stdout);
      return 0;
    }
    if ((arg == "-o" || arg == "--output") && i + 1 < args.size() && out.empty()) {
      out = args[++i];
      continue;
    }
    fprintf(stderr, "ampoule keygen: unexpected argument '%s'\n\n%s", args[i], kKeygenUsage);
    return 2;
  }
  if (out.empty()) {
    fprintf(stderr, "ampoule keygen: -o KEY is required\n\n%s", kKeygenUsage);
    return 2;
  }
  core::ed25519::SecretKey key = core::ed25519::SecretKey::Generate();
  core::Status written = receipt::WriteKeyPair(out, key);
  if (!written.ok()) {
    fprintf(stderr, "ampoule keygen: %s\n", written.message().c_str());
    return 2;
  }
  printf("wrote %s (secret key, mode 0600) and %s.pub (public key)\nkeyid %s\n", out.c_str(),
         out.c_str(), key.public_key().KeyId().c_str());
  return 0;
}

}  // namespace ampoule::cli
