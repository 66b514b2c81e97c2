#include "ampoule/verify/receipt_builder.h"

#include "ampoule/receipt/envelope.h"

namespace ampoule::verify {

receipt::Statement StatementForRecord(const run::RunRecord& record) {
  receipt::Statement statement;
  statement.subject.push_back({"stdout", {{"sha256", record.stdout_digest.sha256}}});
  statement.subject.push_back({"stderr", {{"sha256", record.stderr_digest.sha256}}});
  statement.predicate_type = std::string(run::kRunPredicateType);
  statement.predicate = run::RecordToJson(record);
  return statement;
}

std::string MakeReceipt(const run::RunRecord& record, const receipt::SecretKey& key) {
  std::string payload = receipt::SerializeStatement(StatementForRecord(record));
  return receipt::SerializeEnvelope(
      receipt::SignEnvelope(receipt::kInTotoPayloadType, std::move(payload), key));
}

}  // namespace ampoule::verify
