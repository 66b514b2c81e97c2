#include "ampoule/verify/run_receipt.h"

#include "ampoule/receipt/envelope.h"
#include "ampoule/receipt/statement.h"
#include "ampoule/receipt/verify.h"
#include "ampoule/run/receipt_builder.h"

namespace ampoule::verify {
namespace {

// The subject named `name`; an error if there is none or several.
core::Result<const receipt::Subject*> FindSubject(const receipt::Statement& statement,
                                            std::string_view name) {
  const receipt::Subject* found = nullptr;
  for (const receipt::Subject& s : statement.subject) {
    if (s.name != name) continue;
    if (found) return core::Error{"statement: more than one subject named '" + std::string(name) + "'"};
    found = &s;
  }
  if (!found) return core::Error{"statement: no subject named '" + std::string(name) + "'"};
  return found;
}

// The subject `name` must exist once and carry `sha256`, which the
// predicate's field `field` holds.
core::Status CheckSubject(const receipt::Statement& statement, std::string_view name,
                    const std::string& sha256, std::string_view field) {
  core::Result<const receipt::Subject*> subject = FindSubject(statement, name);
  if (!subject.ok()) return subject.error();
  if ((*subject)->sha256() != sha256) {
    return core::Error{"statement: subject '" + std::string(name) + "' has sha256 " +
                 (*subject)->sha256() + " but the predicate's " + std::string(field) +
                 ".sha256 is " + sha256};
  }
  return core::Status::Ok();
}

core::Result<run::RunRecord> RecordFromStatement(const receipt::Statement& statement) {
  uint32_t version = run::RunPredicateVersion(statement.predicate_type);
  if (version == 0) {
    return core::Error{"statement: predicateType is \"" + statement.predicate_type.substr(0, 100) +
                 "\", expected \"" + std::string(run::kRunPredicateType) + "\" (or versions 3 and 2, \"" +
                 std::string(run::kRunPredicateTypeV3) + "\" and \"" + std::string(run::kRunPredicateTypeV2) +
                 "\")"};
  }
  core::Result<run::RunRecord> record = run::RecordFromJson(statement.predicate, version);
  if (!record.ok()) return record.error();
  CORE_RETURN_IF_ERROR(CheckSubject(statement, "stdout", record->stdout_digest.sha256, "stdout"));
  CORE_RETURN_IF_ERROR(CheckSubject(statement, "stderr", record->stderr_digest.sha256, "stderr"));
  for (size_t i = 0; i < record->outputs.size(); ++i) {
    const run::NamedDigest& o = record->outputs[i];
    CORE_RETURN_IF_ERROR(CheckSubject(statement, std::string(run::kOutputSubjectPrefix) + o.name,
                                     o.sha256, "outputs[" + std::to_string(i) + "]"));
  }
  // Every subject is one the predicate describes: nothing is vouched for
  // that the record does not explain.
  size_t described = 2 + record->outputs.size();
  if (statement.subject.size() != described) {
    return core::Error{"statement: " + std::to_string(statement.subject.size()) +
                 " subjects, but the predicate describes " + std::to_string(described) +
                 " (stdout, stderr and each output file)"};
  }
  return record;
}

}  // namespace

core::Result<RunReceipt> ReadSignedRunReceipt(std::string_view envelope_json,
                                        std::span<const core::ed25519::PublicKey> trusted) {
  core::Result<receipt::Envelope> envelope = receipt::ParseEnvelope(envelope_json);
  if (!envelope.ok()) return envelope.error();
  core::Result<receipt::VerifiedEnvelope> verified = receipt::VerifyEnvelope(*envelope, trusted);
  if (!verified.ok()) return verified.error();
  if (verified->payload_type != receipt::kInTotoPayloadType) {
    return core::Error{"envelope: payloadType is \"" + verified->payload_type.substr(0, 100) +
                 "\", expected \"" + std::string(receipt::kInTotoPayloadType) + "\""};
  }
  core::Result<receipt::Statement> statement = receipt::ParseStatement(verified->payload);
  if (!statement.ok()) return statement.error();
  core::Result<run::RunRecord> record = RecordFromStatement(*statement);
  if (!record.ok()) return record.error();
  return RunReceipt{std::move(*record), verified->signer, verified->signature_index};
}

core::Result<RunReceipt> ReadUnsignedRunReceipt(std::string_view envelope_json) {
  core::Result<receipt::Envelope> envelope = receipt::ParseEnvelope(envelope_json);
  if (!envelope.ok()) return envelope.error();
  if (envelope->payload_type != receipt::kInTotoPayloadType) {
    return core::Error{"envelope: payloadType is \"" + envelope->payload_type.substr(0, 100) +
                 "\", expected \"" + std::string(receipt::kInTotoPayloadType) + "\""};
  }
  core::Result<receipt::Statement> statement = receipt::ParseStatement(envelope->payload);
  if (!statement.ok()) return statement.error();
  core::Result<run::RunRecord> record = RecordFromStatement(*statement);
  if (!record.ok()) return record.error();
  return RunReceipt{std::move(*record), std::nullopt, 0};
}

}  // namespace ampoule::verify
