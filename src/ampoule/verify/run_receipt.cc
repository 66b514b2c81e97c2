#include "ampoule/verify/run_receipt.h"

#include "ampoule/receipt/envelope.h"
#include "ampoule/receipt/statement.h"
#include "ampoule/receipt/verify.h"

namespace ampoule::verify {
namespace {

// The subject named `name`; an error if there is none or several.
Result<const receipt::Subject*> FindSubject(const receipt::Statement& statement,
                                            std::string_view name) {
  const receipt::Subject* found = nullptr;
  for (const receipt::Subject& s : statement.subject) {
    if (s.name != name) continue;
    if (found) return Error{"statement: more than one subject named '" + std::string(name) + "'"};
    found = &s;
  }
  if (!found) return Error{"statement: no subject named '" + std::string(name) + "'"};
  return found;
}

Status CheckSubject(const receipt::Statement& statement, std::string_view name,
                    const run::OutputDigest& digest) {
  Result<const receipt::Subject*> subject = FindSubject(statement, name);
  if (!subject.ok()) return subject.error();
  if ((*subject)->sha256() != digest.sha256) {
    return Error{"statement: subject '" + std::string(name) + "' has sha256 " +
                 (*subject)->sha256() + " but the predicate's " + std::string(name) +
                 ".sha256 is " + digest.sha256};
  }
  return Status::Ok();
}

Result<run::RunRecord> RecordFromStatement(const receipt::Statement& statement) {
  if (statement.predicate_type != run::kRunPredicateType) {
    return Error{"statement: predicateType is \"" + statement.predicate_type.substr(0, 100) +
                 "\", expected \"" + std::string(run::kRunPredicateType) + "\""};
  }
  Result<run::RunRecord> record = run::RecordFromJson(statement.predicate);
  if (!record.ok()) return record.error();
  AMP_RETURN_IF_ERROR(CheckSubject(statement, "stdout", record->stdout_digest));
  AMP_RETURN_IF_ERROR(CheckSubject(statement, "stderr", record->stderr_digest));
  return record;
}

}  // namespace

Result<RunReceipt> ReadSignedRunReceipt(std::string_view envelope_json,
                                        std::span<const receipt::PublicKey> trusted) {
  Result<receipt::Envelope> envelope = receipt::ParseEnvelope(envelope_json);
  if (!envelope.ok()) return envelope.error();
  Result<receipt::VerifiedEnvelope> verified = receipt::VerifyEnvelope(*envelope, trusted);
  if (!verified.ok()) return verified.error();
  if (verified->payload_type != receipt::kInTotoPayloadType) {
    return Error{"envelope: payloadType is \"" + verified->payload_type.substr(0, 100) +
                 "\", expected \"" + std::string(receipt::kInTotoPayloadType) + "\""};
  }
  Result<receipt::Statement> statement = receipt::ParseStatement(verified->payload);
  if (!statement.ok()) return statement.error();
  Result<run::RunRecord> record = RecordFromStatement(*statement);
  if (!record.ok()) return record.error();
  return RunReceipt{std::move(*record), verified->signer, verified->signature_index};
}

Result<RunReceipt> ReadUnsignedRunReceipt(std::string_view envelope_json) {
  Result<receipt::Envelope> envelope = receipt::ParseEnvelope(envelope_json);
  if (!envelope.ok()) return envelope.error();
  if (envelope->payload_type != receipt::kInTotoPayloadType) {
    return Error{"envelope: payloadType is \"" + envelope->payload_type.substr(0, 100) +
                 "\", expected \"" + std::string(receipt::kInTotoPayloadType) + "\""};
  }
  Result<receipt::Statement> statement = receipt::ParseStatement(envelope->payload);
  if (!statement.ok()) return statement.error();
  Result<run::RunRecord> record = RecordFromStatement(*statement);
  if (!record.ok()) return record.error();
  return RunReceipt{std::move(*record), std::nullopt, 0};
}

}  // namespace ampoule::verify
