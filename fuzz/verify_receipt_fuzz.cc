// Fuzz target for what ampoule-verify reads from a receipt beyond the DSSE
// envelope (fuzz/receipt_envelope_fuzz.cc covers that): the run predicate.
//
// The input is read three ways:
//   1. as a receipt file, unsigned (what `--replay` without a key reads);
//   2. as the statement payload of an envelope built around it, so that
//      mutations reach the statement and predicate parsers directly;
//   3. as a bare predicate (run::RecordFromJson), of each version.
// A predicate that parses must round-trip in its version: RecordToJson then
// RecordFromJson gives the same JSON, and FirstDifference of a record with
// itself is none.
// A receipt that parses must verify under its signer when re-signed. Any
// crash, sanitizer report, hang or abort is a bug.
//
// Seeds: fuzz/corpus/verify_receipt_fuzz (a real version 2 receipt, its
// statement and its predicate, a version 3 receipt with output files, and
// a version 4 receipt of a run without the jail, isolation "none").
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "ampoule/receipt/envelope.h"
#include "ampoule/run/receipt_builder.h"
#include "ampoule/run/run_record.h"
#include "ampoule/verify/replay.h"
#include "ampoule/verify/run_receipt.h"
#include "core/json_strict.h"

namespace {

using namespace ampoule;

void Check(bool condition) {
  if (!condition) std::abort();
}

const core::ed25519::SecretKey& Key() {
  static const core::ed25519::SecretKey key = core::ed25519::SecretKey::FromSeed(std::string(32, '\x02')).value();
  return key;
}

void CheckRecord(const run::RunRecord& record) {
  nlohmann::json once = run::RecordToJson(record);
  core::Result<run::RunRecord> again = run::RecordFromJson(once, record.predicate_version);
  Check(again.ok());
  Check(run::RecordToJson(*again) == once);
  std::string detail;
  Check(!verify::FirstDifference(record, *again, &detail).has_value());
}

void CheckReceipt(std::string_view text) {
  core::Result<verify::RunReceipt> receipt = verify::ReadUnsignedRunReceipt(text);
  if (!receipt.ok()) return;
  CheckRecord(receipt->record);
  // The statement it claims, re-signed, verifies and reads back the same.
  if (receipt->record.stdout_digest.sha256.size() != 64) return;
  std::string resigned = run::MakeReceipt(receipt->record, Key());
  std::vector<core::ed25519::PublicKey> keys{Key().public_key()};
  core::Result<verify::RunReceipt> back = verify::ReadSignedRunReceipt(resigned, keys);
  Check(back.ok());
  Check(run::RecordToJson(back->record) == run::RecordToJson(receipt->record));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  CheckReceipt(text);
  receipt::Envelope wrapped{std::string(receipt::kInTotoPayloadType), std::string(text), {}};
  CheckReceipt(receipt::SerializeEnvelope(wrapped));
  core::Result<nlohmann::json> json = core::ParseJsonStrict(text, "fuzz");
  if (json.ok()) {
    for (uint32_t version : {2u, 3u, 4u}) {
      core::Result<run::RunRecord> record = run::RecordFromJson(*json, version);
      if (record.ok()) CheckRecord(*record);
    }
  }
  return 0;
}
