#include "volent/tools/tool_signature.h"

#include <nlohmann/json.hpp>

#include "ampoule/receipt/envelope.h"
#include "ampoule/receipt/statement.h"
#include "ampoule/receipt/verify.h"
#include "core/base64.h"
#include "core/hex.h"
#include "core/sha256.h"

namespace volent::tools {
namespace rc = ampoule::receipt;
using core::Error;
using core::ErrorKind;
using core::Status;

Result<std::vector<PublicKey>> TrustedToolKeys(const std::vector<manifest::TrustedToolKey>& keys) {
  std::vector<PublicKey> out;
  for (const auto& k : keys) {
    auto raw = core::Base64Decode(k.public_key, "tool key '" + k.name + "'");
    if (!raw) return raw.error();
    auto key = PublicKey::FromBytes(*raw);
    if (!key) return Error{"tool key '" + k.name + "': " + key.message()};
    out.push_back(*key);
  }
  return out;
}

Status CheckToolKind(std::string_view tool, std::string_view kind) {
  if (!manifest::IsSealedToolKind(kind)) {
    return Error{"tool kind '" + std::string(kind) +
                     "' is not run by this node; it runs 'wasm' (WASI preview 1 modules), 'python' and 'js' tools",
                 ErrorKind::kInvalidArgument};
  }
  static constexpr std::string_view kWasmHeader("\0asm\x01\0\0\0", 8);
  if (kind == kWasmKind && tool.substr(0, kWasmHeader.size()) != kWasmHeader) {
    return Error{"not a WebAssembly module (no \\0asm version 1 header)", ErrorKind::kInvalidArgument};
  }
  if (kind != kWasmKind && tool.find('\0') != std::string_view::npos) {
    return Error{"a " + std::string(kind) + " tool is a program's source text, and this file holds NUL bytes",
                 ErrorKind::kInvalidArgument};
  }
  return Status::Ok();
}

Result<std::string> SignTool(std::string_view tool, std::string_view kind, std::string_view name,
                             const SecretKey& key) {
  CORE_RETURN_IF_ERROR(CheckToolKind(tool, kind));
  rc::Statement statement;
  rc::Subject subject;
  subject.name = std::string(name);
  subject.digest["sha256"] = core::Sha256Hex(tool);
  statement.subject.push_back(std::move(subject));
  statement.predicate_type = std::string(kToolPredicateType);
  statement.predicate = {{"kind", std::string(kind)}};
  return rc::SerializeEnvelope(
      rc::SignEnvelope(rc::kInTotoPayloadType, rc::SerializeStatement(statement), key));
}

Result<ToolInfo> CheckToolSignature(std::string_view tool, std::string_view signature,
                                    std::span<const PublicKey> trusted) {
  if (trusted.empty()) {
    return Error{"the node trusts no tool key (volent.yaml tool_keys is empty)", ErrorKind::kConflict};
  }
  auto verified = rc::VerifyReceipt(signature, trusted);
  if (!verified) return Error{"signature: " + verified.message(), ErrorKind::kInvalidArgument};
  const rc::Statement& st = verified->statement;
  if (st.predicate_type != kToolPredicateType) {
    return Error{"signature: the statement is not a tool signature (predicateType '" + st.predicate_type +
                     "', expected '" + std::string(kToolPredicateType) + "')",
                 ErrorKind::kInvalidArgument};
  }
  if (st.subject.size() != 1) {
    return Error{"signature: a tool signature names exactly one subject, this one names " +
                     std::to_string(st.subject.size()),
                 ErrorKind::kInvalidArgument};
  }
  const auto kind = st.predicate.find("kind");
  if (kind == st.predicate.end() || !kind->is_string()) {
    return Error{"signature: the predicate has no kind", ErrorKind::kInvalidArgument};
  }
  const std::string digest = core::Sha256Hex(tool);
  if (st.subject[0].sha256() != digest) {
    return Error{"the tool's SHA-256 is " + digest + ", the signature is for " + st.subject[0].sha256() +
                     " (the file was changed, or the signature is for another tool)",
                 ErrorKind::kInvalidArgument};
  }
  CORE_RETURN_IF_ERROR(CheckToolKind(tool, kind->get<std::string>()));
  return ToolInfo{digest, kind->get<std::string>(), st.subject[0].name, tool.size(),
                  verified->signer.KeyId()};
}

std::string SignerName(const ToolInfo& info, const std::vector<manifest::TrustedToolKey>& keys,
                       std::span<const PublicKey> trusted) {
  for (size_t i = 0; i < trusted.size() && i < keys.size(); ++i) {
    if (trusted[i].KeyId() == info.signer_key) return keys[i].name;
  }
  return info.signer_key;
}

nlohmann::json ToolInfoJson(const ToolInfo& info, const std::vector<manifest::TrustedToolKey>& keys,
                            std::span<const PublicKey> trusted) {
  return {{"digest", "sha256:" + info.digest}, {"kind", info.kind}, {"name", info.name},
          {"bytes", info.bytes}, {"signer", SignerName(info, keys, trusted)}, {"signer_key_id", info.signer_key}};
}

Result<std::string> ParseToolDigest(std::string_view text) {
  std::string_view hex = text.substr(0, 7) == "sha256:" ? text.substr(7) : text;
  std::string lower(hex);
  for (char& c : lower) c = static_cast<char>(c >= 'A' && c <= 'F' ? c - 'A' + 'a' : c);
  if (!core::IsLowerHex(lower, 32)) {
    return Error{"'" + std::string(text) + "' is not a tool digest (sha256: and 64 hex digits)",
                 ErrorKind::kInvalidArgument};
  }
  return lower;
}

}  // namespace volent::tools
