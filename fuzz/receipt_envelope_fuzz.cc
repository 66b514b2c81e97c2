// Fuzz target for the receipt parsers: a receipt file's bytes.
//
// Each input is parsed as a DSSE envelope; an envelope that parses must
// serialise and parse back to the same fields, and is then checked against a
// fixed trusted key. Its payload, and the input itself, are parsed as an
// in-toto Statement (as if the signature had verified, to reach the parser),
// and a statement that parses must round-trip through its serialisation.
// The input is also read as a trusted-keys file. Any crash, sanitizer
// report, hang or abort below is a bug: every input must give a value or a
// clean error.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "ampoule/receipt/envelope.h"
#include "ampoule/receipt/key_file.h"
#include "ampoule/receipt/statement.h"
#include "ampoule/receipt/verify.h"

namespace {

using namespace ampoule::receipt;
using core::Result;

void Check(bool condition) {
  if (!condition) std::abort();
}

// The key that signed the seed corpus (seed = 32 bytes of 0x01), so that
// mutations of signed seeds reach the statement check after verification.
const std::vector<core::ed25519::PublicKey>& TrustedKeys() {
  static const std::vector<core::ed25519::PublicKey> keys{
      core::ed25519::SecretKey::FromSeed(std::string(32, '\x01')).value().public_key()};
  return keys;
}

void CheckStatement(std::string_view text) {
  core::Result<Statement> statement = ParseStatement(text);
  if (!statement.ok()) return;
  std::string once = SerializeStatement(*statement);
  core::Result<Statement> again = ParseStatement(once);
  Check(again.ok());
  Check(SerializeStatement(*again) == once);
}

void CheckEnvelope(std::string_view text) {
  core::Result<Envelope> envelope = ParseEnvelope(text);
  if (!envelope.ok()) return;
  core::Result<Envelope> again = ParseEnvelope(SerializeEnvelope(*envelope));
  Check(again.ok());
  Check(again->payload == envelope->payload);
  Check(again->payload_type == envelope->payload_type);
  Check(again->signatures.size() == envelope->signatures.size());
  for (size_t i = 0; i < envelope->signatures.size(); ++i) {
    Check(again->signatures[i].keyid == envelope->signatures[i].keyid);
    Check(again->signatures[i].sig == envelope->signatures[i].sig);
  }
  (void)VerifyReceipt(text, TrustedKeys());
  CheckStatement(envelope->payload);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  CheckEnvelope(text);
  CheckStatement(text);
  (void)ParsePublicKeys(text, "fuzz");
  return 0;
}
