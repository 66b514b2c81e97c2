#include "ampoule/run/receipt_builder.h"

#include "ampoule/receipt/envelope.h"

namespace ampoule::run {

receipt::Statement StatementForRecord(const RunRecord& record) {
  receipt::Statement statement;
  statement.subject.push_back({"stdout", {{"sha256", record.stdout_digest.sha256}}});
  statement.subject.push_back({"stderr", {{"sha256", record.stderr_digest.sha256}}});
  for (const NamedDigest& o : record.outputs) {
    statement.subject.push_back({std::string(kOutputSubjectPrefix) + o.name, {{"sha256", o.sha256}}});
  }
  statement.predicate_type = std::string(RunPredicateType(record.predicate_version));
  statement.predicate = RecordToJson(record);
  return statement;
}

std::string MakeReceipt(const RunRecord& record, const core::ed25519::SecretKey& key) {
  std::string payload = receipt::SerializeStatement(StatementForRecord(record));
  return receipt::SerializeEnvelope(
      receipt::SignEnvelope(receipt::kInTotoPayloadType, std::move(payload), key));
}

}  // namespace ampoule::run
