#include "ampoule/verify/options.h"

#include "ampoule/run/output_files.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace ampoule::verify {
namespace {

core::Result<double> ParseSeconds(std::string_view text) {
  std::string s(text);
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || errno != 0 || !std::isfinite(v) || v <= 0) {
    return core::Error{"invalid --timeout '" + s + "': give a positive number of seconds"};
  }
  return v;
}

core::Result<uint64_t> ParseCount(std::string_view flag, std::string_view text) {
  std::string s(text);
  bool digits = !s.empty() && s.size() <= 20 && s.find_first_not_of("0123456789") == std::string::npos;
  char* end = nullptr;
  errno = 0;
  unsigned long long v = digits ? std::strtoull(s.c_str(), &end, 10) : 0;
  if (!digits || errno != 0 || v == 0) {
    return core::Error{"invalid " + std::string(flag) + " '" + s + "': give a positive whole number"};
  }
  return uint64_t{v};
}

core::Status CheckMode(const Options& o) {
  if (o.receipt.empty()) return core::Error{"no RECEIPT given"};
  if (o.replay) {
    if (o.kernel.empty()) return core::Error{"--replay needs --kernel FILE (the kernel the receipt names)"};
    if (o.program.empty()) return core::Error{"--replay needs --program FILE (the program that ran)"};
    return core::Status::Ok();
  }
  if (o.keys.empty() && o.trusted_keys.empty()) {
    return core::Error{"name the key you trust: --key PUB or --trusted-keys FILE"};
  }
  if (o.timeout_seconds) return core::Error{"--timeout is for --replay only"};
  if (o.max_replay_fuel != kDefaultMaxReplayFuel || o.max_replay_memory != kDefaultMaxReplayMemory ||
      o.max_replay_timeout != kDefaultMaxReplayTimeout) {
    return core::Error{"--max-fuel, --max-memory and --max-timeout are for --replay only"};
  }
  if (o.insecure_no_jail) return core::Error{"--insecure-no-jail is for --replay only"};
  return core::Status::Ok();
}

}  // namespace

core::Result<NamedFile> ParseInputArg(std::string_view value) {
  size_t eq = value.find('=');
  if (eq != std::string_view::npos && value.substr(0, eq).find('/') == std::string_view::npos) {
    std::string name(value.substr(0, eq)), path(value.substr(eq + 1));
    if (name.empty() || name == "." || name == "..") {
      return core::Error{"invalid --input '" + std::string(value) + "': the name before '=' is empty or not a file name"};
    }
    if (path.empty()) return core::Error{"invalid --input '" + std::string(value) + "': no file after '='"};
    return NamedFile{std::move(name), std::move(path)};
  }
  std::string path(value);
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  std::string name = path.substr(path.rfind('/') == std::string::npos ? 0 : path.rfind('/') + 1);
  if (name.empty() || name == "." || name == "..") {
    return core::Error{"invalid --input '" + std::string(value) + "': give NAME=FILE"};
  }
  return NamedFile{std::move(name), std::move(path)};
}

namespace {

// Stores a value that may be given once.
core::Status SetOnce(std::string& slot, std::string_view flag, std::string value) {
  if (!slot.empty()) return core::Error{std::string(flag) + " given twice"};
  if (value.empty()) return core::Error{std::string(flag) + " needs a non-empty value"};
  slot = std::move(value);
  return core::Status::Ok();
}

// --output-file NAME=FILE: NAME is an output file's name as the receipt
// has it (a relative path; it may not contain '=').
core::Status AddOutputFile(Options& o, const std::string& value) {
  size_t eq = value.find('=');
  if (eq == std::string::npos || eq + 1 == value.size()) {
    return core::Error{"invalid --output-file '" + value + "': give NAME=FILE"};
  }
  NamedFile f{value.substr(0, eq), value.substr(eq + 1)};
  core::Status name = run::CheckOutputName(f.name);
  if (!name.ok()) return core::Error{"invalid --output-file '" + value + "': " + name.message()};
  for (const NamedFile& other : o.output_files) {
    if (other.name == f.name) return core::Error{"--output-file '" + f.name + "' given twice"};
  }
  o.output_files.push_back(std::move(f));
  return core::Status::Ok();
}

core::Status AddInput(Options& o, const std::string& value) {
  core::Result<NamedFile> in = ParseInputArg(value);
  if (!in.ok()) return in.error();
  for (const NamedFile& other : o.inputs) {
    if (other.name == in->name) return core::Error{"--input '" + in->name + "' given twice"};
  }
  o.inputs.push_back(std::move(*in));
  return core::Status::Ok();
}

// Applies an option that takes a value. Returns false in `*known` for an
// option name this command does not have.
core::Status ApplyValue(Options& o, std::string_view flag, std::string value, bool* known) {
  *known = true;
  if (flag == "--key") o.keys.push_back(std::move(value));
  else if (flag == "--trusted-keys") o.trusted_keys.push_back(std::move(value));
  else if (flag == "--kernel") return SetOnce(o.kernel, flag, std::move(value));
  else if (flag == "--program") return SetOnce(o.program, flag, std::move(value));
  else if (flag == "--output") o.outputs.push_back(std::move(value));
  else if (flag == "--output-file") return AddOutputFile(o, value);
  else if (flag == "--input") return AddInput(o, value);
  else if (flag == "--stdin") {
    if (o.stdin_path) return core::Error{"--stdin given twice"};
    if (value.empty()) return core::Error{"--stdin needs a non-empty value"};
    o.stdin_path = std::move(value);
  } else if (flag == "--timeout") {
    core::Result<double> seconds = ParseSeconds(value);
    if (!seconds.ok()) return seconds.error();
    o.timeout_seconds = *seconds;
  } else if (flag == "--max-fuel" || flag == "--max-memory") {
    core::Result<uint64_t> n = ParseCount(flag, value);
    if (!n.ok()) return n.error();
    (flag == "--max-fuel" ? o.max_replay_fuel : o.max_replay_memory) = *n;
  } else if (flag == "--max-timeout") {
    core::Result<double> seconds = ParseSeconds(value);
    if (!seconds.ok()) return core::Error{"invalid --max-timeout '" + value + "': give a positive number of seconds"};
    o.max_replay_timeout = *seconds;
  } else {
    *known = false;
  }
  return core::Status::Ok();
}

core::Status ApplyArgument(Options& o, std::span<const char* const> args, size_t& i) {
  std::string_view a = args[i];
  if (a == "--help" || a == "-h") return core::Error{"--help takes no other arguments"};
  if (a == "--replay") {
    if (o.replay) return core::Error{"--replay given twice"};
    o.replay = true;
    return core::Status::Ok();
  }
  if (a == "--insecure-no-jail") {
    o.insecure_no_jail = true;
    return core::Status::Ok();
  }
  if (a.size() > 1 && a[0] == '-') {
    bool known = false;
    std::string value = i + 1 < args.size() ? args[i + 1] : "";
    core::Status applied = ApplyValue(o, a, value, &known);
    if (!known) return core::Error{"unknown option '" + std::string(a) + "'"};
    if (i + 1 >= args.size()) return core::Error{std::string(a) + " needs a value"};
    ++i;
    return applied;
  }
  if (!o.receipt.empty()) return core::Error{"unexpected argument '" + std::string(a) + "' (one RECEIPT only)"};
  o.receipt = std::string(a);
  return core::Status::Ok();
}

}  // namespace

core::Result<Options> ParseOptions(std::span<const char* const> args) {
  Options o;
  if (args.size() == 1 && (std::string_view(args[0]) == "--help" || std::string_view(args[0]) == "-h")) {
    o.help = true;
    return o;
  }
  for (size_t i = 0; i < args.size(); ++i) CORE_RETURN_IF_ERROR(ApplyArgument(o, args, i));
  CORE_RETURN_IF_ERROR(CheckMode(o));
  return o;
}

std::string Usage(std::string_view command) {
  std::string c(command);
  return "usage: " + c + " RECEIPT (--key PUB | --trusted-keys FILE) [--kernel K] [--program P]\n" +
         std::string(c.size() + 8, ' ') + "[--output O] [--output-file NAME=FILE ...]\n" +
         std::string(c.size() + 8, ' ') + "[--input NAME=FILE ...] [--stdin FILE]\n" +
         "       " + c + " --replay RECEIPT --kernel K --program P [--key PUB]\n" +
         std::string(c.size() + 8, ' ') + "[--input NAME=FILE ...] [--stdin FILE] [--timeout S]\n" +
         std::string(c.size() + 8, ' ') + "[--max-fuel N] [--max-memory BYTES] [--max-timeout S]\n" +
         R"(
Checks a receipt: its signature by a key you trust, then every file you give
against the digest the receipt signed, then the signed result. With --replay,
re-runs the program on the kernel and compares output, fuel and status.

  --key PUB             a public key file (ampoule keygen's KEY.pub); repeatable
  --trusted-keys FILE   a file of public key lines; any one may have signed
  --kernel K            the kernel file; its sha256 must be the one signed
  --program P           the program file; its sha256 must be the one signed
  --output O            a file that must equal the run's stdout (the kept bytes)
  --output-file NAME=FILE
                        a file that must equal the output file NAME the run
                        left in /output (its receipt subject output/NAME);
                        repeatable
  --input NAME=FILE     an input the run had under NAME (or FILE: named by its
                        last path component); repeatable
  --stdin FILE          the run's stdin (replay: needed if the run had any)
  --timeout S           replay only: the wall-clock safety net (default: the
                        receipt's, at most --max-timeout)
  --max-fuel N          replay only: refuse a replay that may use more fuel
                        (default 100000000000); a receipt's larger fuel limit
                        is lowered to it when the run used less
  --max-memory BYTES    replay only: refuse a receipt whose memory cap is
                        larger (default 4294967296)
  --max-timeout S       replay only: the longest safety net a receipt may ask
                        for (default 600); a longer one is lowered to it

Exactly one result line is printed on stdout; explanations go to stderr.
  exit 0  VERIFIED           | REPLAY OK
       1  FAILED             | REPLAY FAILED: <reason>
       2  ERROR: <reason>    (usage, unreadable file, weak or malformed key)
       3  NOT REPLAYABLE     | REPLAY N/A     (the host stopped the run)
       4  RUN FAILED         | REPLAY MATCHED, RUN FAILED   (nonzero status)
       5  INCOMPLETE         (no --kernel: the kernel is not pinned; not a pass)
       6  TOO LARGE: <file>  (a file over 64 MiB)
Only exit 0 is a pass. See docs/cli.md and docs/auditor-guide.md.
)";
}

}  // namespace ampoule::verify
