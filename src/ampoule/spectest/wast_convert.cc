#include "ampoule/spectest/wast_convert.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "core/errno_text.h"
#include "core/file_read.h"

extern char** environ;

namespace ampoule::spectest {
namespace fs = std::filesystem;
namespace {

// Bumped when the layout of a cache entry changes, so old entries are not reused.
constexpr const char* kCacheFormat = "wast2json-1";
constexpr size_t kMaxLogBytes = 2000;  // of wast2json's error output, in messages

// Runs wast2json with its output (both streams) going to `log`; returns
// the exit status, or an error if it could not be started.
core::Result<int> Spawn(const fs::path& tool, const std::vector<std::string>& args, const fs::path& log) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(tool.c_str()));
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, tool.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return core::Error{"cannot run " + tool.string() + ": " + core::ErrnoText(rc)};
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return core::Error{"waiting for " + tool.string() + ": " + core::ErrnoText()};
  }
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

}  // namespace

core::Result<fs::path> FindWast2Json() {
  const char* path_env = getenv("PATH");
  std::string path = path_env ? path_env : "/usr/bin:/bin";
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    fs::path candidate = fs::path(end > start ? path.substr(start, end - start) : ".") / "wast2json";
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return core::Error{"wast2json not found on PATH: it converts the .wast scripts for the engine. "
               "Install it with scripts/setup.sh (Debian package wabt)."};
}

std::string ContentHash(std::span<const uint8_t> bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint8_t b : bytes) {
    h ^= b;
    h *= 0x100000001b3ull;
  }
  char buf[17];
  snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

core::Result<fs::path> ConvertWast(const fs::path& wast2json, const fs::path& wast, const fs::path& out_dir) {
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) return core::Error{"cannot create " + out_dir.string() + ": " + ec.message()};
  fs::path json = out_dir / (wast.stem().string() + ".json");
  fs::path log = out_dir / "wast2json.log";
  core::Result<int> status = Spawn(wast2json, {wast.string(), "-o", json.string()}, log);
  if (!status) return status.error();
  if (*status != 0) {
    core::Result<std::string> output = core::ReadFileCapped(log.string());
    std::string text = output ? output->substr(0, kMaxLogBytes) : std::string();
    while (!text.empty() && text.back() == '\n') text.pop_back();
    return core::Error{"wast2json failed on " + wast.string() + " (exit status " + std::to_string(*status) +
                 ")" + (text.empty() ? "" : ":\n" + text)};
  }
  return json;
}

core::Result<fs::path> ConvertWastCached(const fs::path& wast2json, const fs::path& wast, const fs::path& cache_dir) {
  core::Result<std::string> content = core::ReadFileCapped(wast.string());
  if (!content) return content.error();
  std::string keyed = std::string(kCacheFormat) + '\n' + *content;
  std::string key = wast.stem().string() + "-" +
                    ContentHash({reinterpret_cast<const uint8_t*>(keyed.data()), keyed.size()});
  fs::path entry = cache_dir / key;
  fs::path json = entry / (wast.stem().string() + ".json");
  std::error_code ec;
  if (fs::exists(json, ec)) return json;

  fs::path scratch = cache_dir / (key + ".tmp." + std::to_string(getpid()));
  fs::remove_all(scratch, ec);
  core::Result<fs::path> made = ConvertWast(wast2json, wast, scratch);
  if (!made) {
    fs::remove_all(scratch, ec);
    return made.error();
  }
  fs::rename(scratch, entry, ec);
  if (ec) {
    // Another run filled the same entry first: use theirs.
    fs::remove_all(scratch, ec);
    if (!fs::exists(json, ec)) return core::Error{"cannot fill the cache entry " + entry.string()};
  }
  return json;
}

}  // namespace ampoule::spectest
