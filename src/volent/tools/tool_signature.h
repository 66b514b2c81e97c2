// What makes a tool trusted: its author's signature over its digest.
//
// A tool signature is a DSSE envelope (the same form as an Ampoule receipt,
// docs/receipt-spec.md) around an in-toto Statement v1 with exactly one
// subject, the tool file's SHA-256:
//
//   {"_type": "https://in-toto.io/Statement/v1",
//    "subject": [{"name": "<file name>", "digest": {"sha256": "<hex>"}}],
//    "predicateType": "https://volent.dev/attestations/tool/v1",
//    "predicate": {"kind": "wasm"}}
//
// A signature holds only if it verifies under one of the node's trusted tool
// keys (volent.yaml `tool_keys`), its statement is of that predicate type,
// and its one digest is the digest of the very bytes being checked. Kinds:
// "wasm" (a WASI preview 1 module), "python" and "js" (a program for the
// kernel's runtimes), as manifest::IsSealedToolKind says (docs/tools.md).
//
// Thread-safe: no state.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/ed25519.h"
#include "core/result.h"
#include "volent/manifest/manifest.h"

namespace volent::tools {

using core::Result;
using core::ed25519::PublicKey;
using core::ed25519::SecretKey;

inline constexpr std::string_view kToolPredicateType = "https://volent.dev/attestations/tool/v1";

// The kind of a WebAssembly tool (the other sealed kinds: "python", "js").
inline constexpr std::string_view kWasmKind = "wasm";

// What a valid signature says about a tool.
struct ToolInfo {
  std::string digest;      // SHA-256 of the tool file, 64 lowercase hex digits
  std::string kind;        // "wasm", "python" or "js"
  std::string name;        // the file name the author signed (for people; not trusted for lookup)
  uint64_t bytes = 0;      // size of the tool file
  std::string signer_key;  // the trusted key's id (SHA-256 of its raw bytes, hex)
};

// The trusted tool keys of a node configuration, in order. Errors name the
// entry whose public_key does not decode to an Ed25519 key.
Result<std::vector<PublicKey>> TrustedToolKeys(const std::vector<manifest::TrustedToolKey>& keys);

// Checks that `tool` is of `kind` at all ("wasm": the WebAssembly magic and
// version 1; "python", "js": text, no NUL byte), so that a mislabelled file
// is refused at signing; and that `kind` is a sealed kind.
core::Status CheckToolKind(std::string_view tool, std::string_view kind);

// Signs `tool` (its bytes) as a tool of `kind` named `name`: the envelope's
// JSON text. Refuses a kind other than the ones above, or bytes that are not
// of that kind.
Result<std::string> SignTool(std::string_view tool, std::string_view kind, std::string_view name,
                             const SecretKey& key);

// Checks `signature` (envelope JSON) for the tool bytes `tool` against
// `trusted`, in the order of receipt/verify.h: signature first, then the
// statement, then that its one digest is SHA-256(tool). Errors say which
// step failed.
Result<ToolInfo> CheckToolSignature(std::string_view tool, std::string_view signature,
                                    std::span<const PublicKey> trusted);

// What `volent tool show` and GET /v1/tools print of a tool:
// {"digest":"sha256:HEX","kind","name","bytes","signer","signer_key_id"},
// "signer" being the name of the tool_keys entry whose key signed (`keys`
// and `trusted` in the same order, as TrustedToolKeys makes them).
nlohmann::json ToolInfoJson(const ToolInfo& info, const std::vector<manifest::TrustedToolKey>& keys,
                            std::span<const PublicKey> trusted);
// The "signer" of that view: the tool_keys name, else the key id.
std::string SignerName(const ToolInfo& info, const std::vector<manifest::TrustedToolKey>& keys,
                       std::span<const PublicKey> trusted);

// "sha256:<hex>" or "<hex>" (64 hex digits, either case) as 64 lowercase hex
// digits; an error for anything else.
Result<std::string> ParseToolDigest(std::string_view text);

}  // namespace volent::tools
