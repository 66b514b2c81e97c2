// Fuzz target for the tool signature check (volent/tools/tool_signature.h):
// a tool signature's statement, as an author's key would sign it.
//
// The input is the statement's text. It is signed with a fixed key that the
// check trusts, so every input gets past the signature to the statement,
// predicate, subject, digest and kind checks, which must give a ToolInfo or
// a clean error, never a crash. A ToolInfo must name the module's own
// digest. The input is also checked unsigned, as a whole envelope, and read
// as a digest.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "ampoule/receipt/envelope.h"
#include "core/sha256.h"
#include "volent/tools/tool_signature.h"

namespace {

using namespace ampoule::receipt;

const core::ed25519::SecretKey& AuthorKey() {
  static const core::ed25519::SecretKey key = core::ed25519::SecretKey::FromSeed(std::string(32, '\x02')).value();
  return key;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  static const std::string kModule("\0asm\x01\0\0\0", 8);
  const std::vector<core::ed25519::PublicKey> trusted{AuthorKey().public_key()};

  const std::string envelope = SerializeEnvelope(SignEnvelope(kInTotoPayloadType, input, AuthorKey()));
  auto info = volent::tools::CheckToolSignature(kModule, envelope, trusted);
  if (info && info->digest != core::Sha256Hex(kModule)) std::abort();

  (void)volent::tools::CheckToolSignature(kModule, input, trusted);
  (void)volent::tools::ParseToolDigest(input);
  return 0;
}
