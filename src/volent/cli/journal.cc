// `volent journal digest|verify --data-dir DIR`: the journal's digest and its
// integrity check, offline (docs/journal.md). The library decides; this file
// parses arguments and prints.
//
//   digest: "journal: N entries, sha256:<hex>" (or a JSON object with --json)
//   verify: "journal OK: N entries, sha256:<hex>", exit 0
//           "journal FAILED: entry #N: <what is wrong>", exit 1
// Exit 2: usage error, or no journal in DIR.
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "volent/journal/journal.h"
#include "volent/cli/commands.h"

namespace volent::cli {
namespace {

constexpr char kJournalUsage[] =
    "usage: volent journal digest --data-dir DIR [--json]\n"
    "       volent journal verify --data-dir DIR [--expect sha256:<hex>]\n"
    "\n"
    "digest  prints the number of entries of DIR/journal.db and the hash of the last one\n"
    "        (what the attestation report records)\n"
    "verify  recomputes every entry's hash and the chain; with --expect, the journal must\n"
    "        also contain the entry of that earlier digest (a removed tail is found only so)\n"
    "\n"
    "Exit status: 0 ok, 1 the journal failed verification, 2 usage error or no journal.\n";

struct Options {
  std::string action;
  std::string data_dir;
  std::optional<std::string> expect;
  bool json = false;
};

int Usage(const std::string& problem) {
  std::fprintf(stderr, "volent journal: %s\n\n%s", problem.c_str(), kJournalUsage);
  return 2;
}

// Fills `options`; returns -1 to go on, else the exit code.
int ParseArgs(const Args& args, Options& options) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kJournalUsage, stdout);
      return 0;
    }
    if (a == "--json") {
      options.json = true;
      continue;
    }
    if (a == "--data-dir" || a == "--expect") {
      if (i + 1 >= args.size()) return Usage(a + " needs a value");
      (a == "--data-dir" ? options.data_dir : options.expect.emplace()) = args[++i];
      continue;
    }
    if (!a.empty() && a[0] == '-') return Usage("unknown option '" + a + "'");
    if (!options.action.empty()) return Usage("unexpected argument '" + a + "'");
    options.action = a;
  }
  if (options.action != "digest" && options.action != "verify") {
    return Usage(options.action.empty() ? "digest or verify is required"
                                        : "unknown action '" + options.action + "'");
  }
  if (options.data_dir.empty()) return Usage("--data-dir is required");
  if (options.json && options.action != "digest") return Usage("--json applies to digest only");
  if (options.expect && options.action != "verify") return Usage("--expect applies to verify only");
  return -1;
}

int Digest(journal::Journal& j, bool json) {
  auto digest = j.GetDigest();
  if (!digest) {
    std::fprintf(stderr, "volent journal: %s (run volent journal verify)\n", digest.message().c_str());
    return 1;
  }
  if (json) {
    nlohmann::json out = {{"entries", digest->entries}, {"digest", digest->ToString()}};
    std::printf("%s\n", out.dump().c_str());
  } else {
    std::printf("journal: %llu entries, %s\n", static_cast<unsigned long long>(digest->entries),
                digest->ToString().c_str());
  }
  return 0;
}

int Verify(journal::Journal& j, const std::optional<std::string>& expect) {
  auto report = j.Verify(expect);
  if (!report) {
    std::printf("journal FAILED: %s\n", report.message().c_str());
    return 1;
  }
  if (!report->ok) {
    std::printf("journal FAILED: entry #%llu: %s\n", static_cast<unsigned long long>(report->bad_entry),
                report->problem.c_str());
    return 1;
  }
  std::printf("journal OK: %llu entries, %s\n", static_cast<unsigned long long>(report->digest.entries),
              report->digest.ToString().c_str());
  return 0;
}

}  // namespace

int JournalCommand(const Args& args) {
  Options options;
  if (int code = ParseArgs(args, options); code >= 0) return code;
  if (options.expect &&
      (options.expect->size() != 71 || options.expect->rfind("sha256:", 0) != 0 ||
       options.expect->find_first_not_of("0123456789abcdefABCDEF", 7) != std::string::npos)) {
    return Usage("--expect takes sha256:<64 hex digits>");
  }
  std::error_code ec;
  const std::string path = options.data_dir + "/" + journal::kJournalFile;
  if (!std::filesystem::is_regular_file(path, ec)) {
    std::fprintf(stderr, "volent journal: no journal at %s (is --data-dir the node's data folder?)\n",
                 path.c_str());
    return 2;
  }
  journal::OpenOptions open;
  open.create = false;
  auto j = journal::Journal::Open(options.data_dir, open);
  if (!j) {
    if (options.action == "verify") {
      std::printf("journal FAILED: %s\n", j.message().c_str());
    } else {
      std::fprintf(stderr, "volent journal: %s\n", j.message().c_str());
    }
    return 1;
  }
  return options.action == "digest" ? Digest(**j, options.json) : Verify(**j, options.expect);
}

}  // namespace volent::cli
