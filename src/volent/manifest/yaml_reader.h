// YAML (and JSON, which is read as YAML) to nlohmann::json, keeping the
// position of every value and every key. docs/decisions/0015-manifests.md.
//
// Type rules (the YAML 1.2 core schema, for plain scalars only):
//   null, Null, NULL, ~ and empty    -> null
//   true/True/TRUE, false/...        -> boolean
//   [-+]?[0-9]+, 0o[0-7]+, 0x[0-9a-fA-F]+ -> integer (64 bits, else a problem)
//   [-+]?(.[0-9]+|[0-9]+(.[0-9]*)?)([eE][-+]?[0-9]+)? -> number
//   .inf, .nan and friends           -> a problem (JSON has no such numbers)
//   anything else                    -> string
// Quoted scalars are always strings; keys are always strings (their text).
// Refused (each a problem at its position): anchors and aliases (so no
// expansion can blow up), explicit tags, keys that are collections,
// duplicate keys, more than one document, bytes that are not UTF-8 (UTF-16
// and UTF-32 named as such), C0 control characters but tab, LF and CR,
// quoted strings never closed (at the opening quote), more than kMaxDepth
// nesting or kMaxNodes values, texts longer than kMaxDocumentBytes. Lines
// end at LF, CR LF or CR (YAML 1.2). yaml-cpp's own messages are said in
// our words, never passed through.
//
// Thread-safe: no shared state. Never throws.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "volent/manifest/manifest.h"

namespace volent::manifest {

inline constexpr size_t kMaxDocumentBytes = 1 << 20;  // as the control API's body limit
inline constexpr int kMaxDepth = 64;
inline constexpr size_t kMaxNodes = 100000;

struct Position {
  int line = 0;    // 1-based; 0 when unknown
  int column = 0;  // 1-based, in characters
};

// JSON Pointer -> position, for values and (separately) for object keys.
struct Positions {
  std::map<std::string, Position> values;
  std::map<std::string, Position> keys;
  // The position of the value at `pointer`, or of its nearest ancestor.
  Position Of(const std::string& pointer) const;
  // The position of the key naming `pointer`, or Of(pointer) when none.
  Position KeyOf(const std::string& pointer) const;
};

struct ReadDocument {
  nlohmann::json value;  // null when nothing could be read
  Positions positions;
  Problems problems;
  bool readable = false;  // false: syntax error or a limit; `value` is unusable
};

ReadDocument ReadYaml(std::string_view text, std::string_view file);

// RFC 6901: "~" -> "~0", "/" -> "~1".
std::string EscapePointerToken(std::string_view token);

}  // namespace volent::manifest
