#include "volent/tools/tool_store.h"

#include <algorithm>
#include <filesystem>
#include <random>

#include "ampoule/receipt/envelope.h"
#include "core/file_read.h"
#include "core/file_write.h"
#include "core/hex.h"

namespace volent::tools {
namespace fs = std::filesystem;
using core::Error;
using core::ErrorKind;
using core::Status;

namespace {

constexpr char kToolFile[] = "tool";
constexpr char kSignatureFile[] = "signature.json";

std::string RandomSuffix() {
  std::random_device rd;
  return std::to_string(rd()) + std::to_string(rd());
}

}  // namespace

ToolStore::ToolStore(std::string data_dir) : folder_(std::move(data_dir) + "/tools") {}

Result<LoadedTool> ToolStore::Load(std::string_view digest, std::span<const PublicKey> trusted) const {
  if (!core::IsLowerHex(digest, 32)) {
    return Error{"'" + std::string(digest) + "' is not a tool digest", ErrorKind::kInvalidArgument};
  }
  const std::string dir = folder_ + "/" + std::string(digest);
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return Error{"the tool store holds no tool sha256:" + std::string(digest) + " (add it with volent tool add)",
                 ErrorKind::kNotFound};
  }
  const core::ReadRules untrusted{core::PathFrom::kUntrusted};
  auto bytes = core::ReadFileCapped(dir + "/" + kToolFile, kMaxToolBytes, nullptr, untrusted);
  if (!bytes) return bytes.error();
  auto signature = core::ReadFileCapped(dir + "/" + kSignatureFile,
                                                 ampoule::receipt::kMaxEnvelopeBytes, nullptr, untrusted);
  if (!signature) return signature.error();
  auto info = CheckToolSignature(*bytes, *signature, trusted);
  if (!info) return Error{"stored tool sha256:" + std::string(digest) + ": " + info.message(), info.kind()};
  if (info->digest != digest) {
    return Error{"stored tool sha256:" + std::string(digest) + " holds a tool whose SHA-256 is " + info->digest,
                 ErrorKind::kInvalidArgument};
  }
  return LoadedTool{std::move(*info), std::move(*bytes)};
}

Result<ToolInfo> ToolStore::Add(std::string_view tool, std::string_view signature,
                                std::span<const PublicKey> trusted, bool* stored_now) {
  if (stored_now) *stored_now = false;
  auto info = CheckToolSignature(tool, signature, trusted);
  if (!info) return info.error();
  const std::string target = folder_ + "/" + info->digest;
  std::error_code ec;
  if (fs::exists(target, ec)) {
    auto stored = Load(info->digest, trusted);
    if (stored) return stored->info;
    return Error{"the store already holds sha256:" + info->digest + " but it no longer checks (" +
                     stored.message() + "); remove it first (volent tool remove)",
                 ErrorKind::kConflict};
  }
  fs::create_directories(folder_, ec);
  if (ec) return Error{"cannot create " + folder_ + ": " + ec.message()};
  const std::string staging = folder_ + "/.adding-" + RandomSuffix();
  if (!fs::create_directory(staging, ec) || ec) return Error{"cannot create " + staging + ": " + ec.message()};
  // Each file is durable in the staging folder before the folder takes the
  // tool's name, so a tool under its name is whole.
  Status written = core::WriteFileAtomically(staging + "/" + kToolFile, tool);
  if (written.ok()) written = core::WriteFileAtomically(staging + "/" + kSignatureFile, signature);
  if (written.ok()) written = core::RenameDurably(staging, target);
  if (!written.ok()) {
    fs::remove_all(staging, ec);
    return written.error();
  }
  if (stored_now) *stored_now = true;
  return std::move(*info);
}

Result<std::vector<ListedTool>> ToolStore::List(std::span<const PublicKey> trusted) const {
  std::vector<ListedTool> out;
  std::error_code ec;
  if (!fs::exists(folder_, ec)) return out;
  fs::directory_iterator it(folder_, ec), end;
  if (ec) return Error{"cannot list " + folder_ + ": " + ec.message()};
  for (; it != end; it.increment(ec)) {
    if (ec) return Error{"cannot list " + folder_ + ": " + ec.message()};
    const std::string name = it->path().filename().string();
    if (!core::IsLowerHex(name, 32)) continue;  // staging folders and strays
    out.push_back({name, [&]() -> Result<ToolInfo> {
                     auto loaded = Load(name, trusted);
                     if (!loaded) return loaded.error();
                     return loaded->info;
                   }()});
  }
  std::sort(out.begin(), out.end(), [](const ListedTool& a, const ListedTool& b) { return a.digest < b.digest; });
  return out;
}

Status ToolStore::Remove(std::string_view digest) {
  if (!core::IsLowerHex(digest, 32)) {
    return Error{"'" + std::string(digest) + "' is not a tool digest", ErrorKind::kInvalidArgument};
  }
  const std::string dir = folder_ + "/" + std::string(digest);
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return Error{"the tool store holds no tool sha256:" + std::string(digest), ErrorKind::kNotFound};
  }
  fs::remove_all(dir, ec);
  if (ec) return Error{"cannot remove " + dir + ": " + ec.message()};
  return core::SyncFolder(folder_);
}

nlohmann::json ListedToolJson(const ListedTool& tool, const std::vector<manifest::TrustedToolKey>& keys,
                              std::span<const PublicKey> trusted) {
  if (tool.check) return ToolInfoJson(*tool.check, keys, trusted);
  return {{"digest", "sha256:" + tool.digest}, {"problem", tool.check.message()}};
}

manifest::Problems CheckAgentTools(const manifest::Agent& agent, const ToolStore& store,
                                   std::span<const PublicKey> trusted, std::string_view file,
                                   ToolCheckCache* cache) {
  manifest::Problems problems;
  auto check = [&](const std::string& component) -> Result<ToolInfo> {
    auto digest = ParseToolDigest(component);
    if (!digest) return digest.error();
    auto loaded = store.Load(*digest, trusted);
    if (!loaded) return loaded.error();
    return std::move(loaded->info);
  };
  for (size_t i = 0; i < agent.tools.size(); ++i) {
    const manifest::ToolSpec& tool = agent.tools[i];
    if (!manifest::IsSealedToolKind(tool.kind)) continue;
    ToolCheckCache local;
    ToolCheckCache& seen = cache ? *cache : local;
    auto [entry, fresh] = seen.try_emplace(tool.component, Error{});
    if (fresh) entry->second = check(tool.component);
    const Result<ToolInfo>& loaded = entry->second;
    const std::string pointer = "/spec/tools/" + std::to_string(i) + "/component";
    if (!loaded) {
      problems.push_back({std::string(file), 0, 0, pointer,
                          loaded.kind() == ErrorKind::kNotFound
                              ? "the node's tool store holds no tool " + tool.component +
                                    " (add it with volent tool add; docs/tools.md)"
                              : "the stored tool " + tool.component + " cannot be used: " + loaded.message()});
    } else if (loaded->kind != tool.kind) {
      problems.push_back({std::string(file), 0, 0, pointer,
                          "the stored tool " + tool.component + " was signed as a " + loaded->kind +
                              " tool, and this one is of kind " + tool.kind});
    }
  }
  return problems;
}

}  // namespace volent::tools
