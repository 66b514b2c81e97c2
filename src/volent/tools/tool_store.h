// The node's content-addressed store of signed tools (docs/tools.md).
//
//   DATA_DIR/tools/<sha256 hex>/tool             the tool's bytes
//   DATA_DIR/tools/<sha256 hex>/signature.json   its author's signature (tool_signature.h)
//
// A tool enters only with a signature that verifies under a trusted key and
// names its digest (Add), and every Load checks both again on the bytes it
// returns, so a file changed in the store after Add is refused there too.
// Each file is read once, bounded, as a regular file (core/file_read.h).
// Add writes into a temporary folder and renames it into place, so a crash
// leaves either the whole entry or none.
//
// Thread-compatible: one process changes a store at a time (the node, or a
// `volent tool` command while the node is stopped).
#pragma once

#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "volent/tools/tool_signature.h"

namespace volent::tools {

// The cap on a tool file (as on any program `ampoule run` takes).
inline constexpr size_t kMaxToolBytes = size_t{64} << 20;

struct LoadedTool {
  ToolInfo info;
  std::string bytes;  // the bytes that were checked
};

// One entry of List: the digest its folder is named by, and what checking it
// found (a ToolInfo, or why the entry cannot be used).
struct ListedTool {
  std::string digest;
  Result<ToolInfo> check;
};

class ToolStore {
 public:
  // The store in `data_dir` (its tools/ folder is created on first Add).
  explicit ToolStore(std::string data_dir);

  // Checks `tool` with `signature` against `trusted` and stores both. Adding
  // a tool that is already stored (and still checks) is not an error;
  // `*stored_now` (if given) says whether this call stored it.
  Result<ToolInfo> Add(std::string_view tool, std::string_view signature,
                       std::span<const PublicKey> trusted, bool* stored_now = nullptr);

  // The tool with `digest` (64 lowercase hex digits), checked again; kNotFound
  // when the store does not hold it.
  Result<LoadedTool> Load(std::string_view digest, std::span<const PublicKey> trusted) const;

  // Every stored tool, sorted by digest, each checked as Load does.
  Result<std::vector<ListedTool>> List(std::span<const PublicKey> trusted) const;

  // Removes the tool with `digest`; kNotFound when absent.
  core::Status Remove(std::string_view digest);

  const std::string& folder() const { return folder_; }

 private:
  std::string folder_;  // DATA_DIR/tools
};

// A listed tool as `volent tool list --json` and GET /v1/tools show it:
// ToolInfoJson, or {"digest":"sha256:HEX","problem":WHY} for one that fails
// its checks.
nlohmann::json ListedToolJson(const ListedTool& tool, const std::vector<manifest::TrustedToolKey>& keys,
                              std::span<const PublicKey> trusted);

// What checking a stored tool found, by component ("sha256:HEX"): a node
// that checks many agents at start loads each tool once.
using ToolCheckCache = std::map<std::string, Result<ToolInfo>>;

// The problems of `agent`'s sealed tools against `store`, one for each tool
// whose component the store does not hold, fails its checks there or was
// signed as another kind, at /spec/tools/N/component of the file `file`.
// Empty when every one loads. With `cache`, a component already checked is
// not loaded again.
manifest::Problems CheckAgentTools(const manifest::Agent& agent, const ToolStore& store,
                                   std::span<const PublicKey> trusted, std::string_view file,
                                   ToolCheckCache* cache = nullptr);

}  // namespace volent::tools
