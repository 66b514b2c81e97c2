// Fuzz target for what `volent attest --verify` reads (src/volent/attest/):
// a policy, a platform event log, and a report whose predicate is the input.
//
// The input is read three ways. As a policy (ParsePolicy) and as a TCG event
// log (ReplayEventLog): each gives a value or a clean error. As a report's
// predicate: when it is JSON, it is put in a statement signed with a fixed
// key the policy trusts, so every input reaches the claims past the
// signature (the TPM section, the node's PCR log, the allowlist, the trust
// configuration, ...), and it is read as a node PCR log on its own; the
// verdict may be anything but a crash, and a report that is not JSON must
// fail.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "ampoule/receipt/envelope.h"
#include "ampoule/receipt/statement.h"
#include "core/base64.h"
#include "volent/attest/event_log.h"
#include "volent/attest/node_pcr.h"
#include "volent/attest/policy.h"
#include "volent/attest/report.h"
#include "volent/attest/report_verify.h"

namespace {

namespace rc = ampoule::receipt;

const core::ed25519::SecretKey& NodeKey() {
  static const core::ed25519::SecretKey key = core::ed25519::SecretKey::FromSeed(std::string(32, '\x07')).value();
  return key;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace volent::attest;
  const std::string input(reinterpret_cast<const char*>(data), size);
  (void)ParsePolicy(input);
  (void)ReplayEventLog(input);

  static const Policy policy = [] {
    auto p = ParsePolicy(R"({"signers": [")" + core::Base64Encode(NodeKey().public_key().raw()) +
                         R"("], "max_age_seconds": 60, "pcrs": {"7": [")" + std::string(64, '0') + R"("]},
                         "allowlist": {"subset_of": []}, "journal": {"entries": 1}, "tpm_ak_names": ["000b)" +
                         std::string(64, '1') + R"("],
                         "egress": {"dns_server": "192.0.2.53"}, "trust": {"sha256": [")" + std::string(64, '2') +
                         R"("]}})");
    if (!p) std::abort();
    return *p;
  }();
  const nlohmann::json predicate = nlohmann::json::parse(input, nullptr, /*allow_exceptions=*/false);
  if (!predicate.is_discarded()) {
    // The node's PCR log on its own (also reached through the report, past a quote's checks).
    if (auto log = NodePcrLogFromJson(predicate); log) (void)SplitStarts(*log);
  }
  if (predicate.is_discarded()) {
    if (VerifyReport(input, policy, "00", 0).verified()) std::abort();
    return 0;
  }
  rc::Statement statement;
  rc::Subject subject;
  subject.name = "volent";
  subject.digest["sha256"] = std::string(64, 'a');
  statement.subject.push_back(subject);
  statement.predicate_type = std::string(kNodePredicateType);
  statement.predicate = predicate;
  const std::string envelope = rc::SerializeEnvelope(
      rc::SignEnvelope(rc::kInTotoPayloadType, rc::SerializeStatement(statement), NodeKey()));
  (void)VerifyReport(envelope, policy, "00", 0);
  return 0;
}
