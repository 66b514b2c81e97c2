// An auditor's policy for `volent attest --verify` (docs/attestation.md,
// "The policy"): what a report must show to be VERIFIED. Written by the
// person who checks the node, never by the node.
//
// A policy is a JSON object. Every field but "signers" is optional, and a
// field left out is a claim not checked (the verifier lists which ones it
// checked); an unknown field is an error, so a misspelt claim is never
// silently skipped. Every claim about what the node runs (software, the
// allowlist, the trust configuration) holds of every start of the node in
// this boot that its PCR log shows, not only the last.
//
// Thread-safe: values only.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/ed25519.h"
#include "core/result.h"

namespace volent::attest {

struct Policy {
  std::vector<core::ed25519::PublicKey> signers;  // whose reports are accepted (at least one)
  std::string nonce_hex;                             // "" : the --nonce given to the verifier
  std::optional<uint64_t> max_age_seconds;           // report time no older than this
  std::vector<std::string> boot_profiles;            // allowed; empty: any
  bool secure_boot_required = false;
  std::string key_provenance;                        // "production" or "dev-only"; "": any
  bool tpm_required = true;                          // "tpm": "required" (default) or "optional"
  std::vector<std::string> tpm_ak_names;             // enrolled AK names (hex); empty: any AK
  std::map<uint32_t, std::vector<std::string>> pcrs; // PCR index -> allowed sha256 values (hex)
  std::string verity_roothash;                       // "": not checked
  std::optional<nlohmann::json> allowlist_equal;     // the report's allowlist must be exactly this
  std::optional<nlohmann::json> allowlist_subset_of; // every entry of the report's must be one of these
  std::optional<uint64_t> journal_entries;
  std::string journal_head;                          // "sha256:HEX"; "": not checked
  std::vector<std::string> volent_sha256;            // allowed node binaries; empty: any
  std::vector<std::string> kernel_sha256;            // allowed Ampoule kernels; empty: any
  std::string dns_server;                            // "egress": {"dns_server"}: "IP:PORT" or "system"; "": any
  std::vector<std::string> trust_sha256;             // "trust": {"sha256": [...]}: allowed trust configurations
};

// Reads a policy from JSON text. Errors name the field (a JSON pointer) and
// what is wrong with it.
core::Result<Policy> ParsePolicy(std::string_view text);

}  // namespace volent::attest
