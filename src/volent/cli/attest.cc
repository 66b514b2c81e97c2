// `volent attest`: the node's signed attestation report, and its check off
// the node against an auditor's policy (docs/attestation.md). The library
// (src/volent/attest/) decides; this file parses arguments and prints.
//
//   volent attest --nonce HEX [--config volent.yaml] [--data-dir DIR] [-o FILE]
//     on the node's host: the same report GET /v1/attestation gives, made
//     from the node's configuration, data folder (its key, journal and PCR
//     log) and TPM; written to FILE or stdout.
//   volent attest --verify POLICY REPORT [--nonce HEX]
//     anywhere: one line "claim NAME: why" per failed claim, then VERIFIED
//     (exit 0) or FAILED (exit 1) as the last line; on stderr, the claims
//     checked and a note for each one that is only self-asserted.
// Exit 2: usage error, or a file that cannot be read; 3: the report cannot
// be made (no node key, the TPM failed, a release build with a dev-only key).
#include <cstdio>
#include <ctime>
#include <string>

#include "core/file_read.h"
#include "core/file_write.h"
#include "volent/attest/policy.h"
#include "volent/attest/report_verify.h"
#include "volent/boot/node.h"
#include "volent/cli/commands.h"
#include "volent/cli/config_file.h"

namespace volent::cli {
namespace {

constexpr char kAttestUsage[] =
    "usage: volent attest --nonce HEX [--config volent.yaml] [--data-dir DIR] [-o FILE]\n"
    "       volent attest --verify POLICY REPORT [--nonce HEX]\n"
    "\n"
    "The first form makes the node's signed attestation report for the verifier's nonce\n"
    "(1 to 32 bytes in lowercase hex) on the node's host, as GET /v1/attestation does;\n"
    "--config defaults to volent.yaml in the current folder.\n"
    "The second checks a report against a policy (docs/attestation.md): one line per\n"
    "failed claim, then VERIFIED or FAILED.\n"
    "\n"
    "Exit status: 0 made / VERIFIED, 1 FAILED, 2 usage error or unreadable file,\n"
    "3 the report could not be made.\n";

struct Options {
  std::string config, data_dir, nonce, out, policy, report;
  bool verify = false;
};

int Usage(const std::string& problem) {
  std::fprintf(stderr, "volent attest: %s\n\n%s", problem.c_str(), kAttestUsage);
  return 2;
}

int ParseArgs(const Args& args, Options& o) {
  std::vector<std::string> positional;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kAttestUsage, stdout);
      return 0;
    }
    if (a == "--verify") {
      o.verify = true;
      continue;
    }
    std::string* value = a == "--config" ? &o.config : a == "--data-dir" ? &o.data_dir : a == "--nonce" ? &o.nonce
                       : a == "-o" || a == "--output"                   ? &o.out
                                                                        : nullptr;
    if (value != nullptr) {
      if (i + 1 >= args.size()) return Usage(a + " needs a value");
      *value = args[++i];
      continue;
    }
    if (!a.empty() && a[0] == '-') return Usage("unknown option '" + a + "'");
    positional.push_back(a);
  }
  if (o.verify) {
    if (positional.size() != 2) return Usage("--verify takes a policy file and a report file");
    if (!o.config.empty() || !o.data_dir.empty() || !o.out.empty()) {
      return Usage("--verify reads only a policy, a report and --nonce");
    }
    o.policy = positional[0];
    o.report = positional[1];
    return -1;
  }
  if (!positional.empty()) return Usage("unexpected argument '" + positional[0] + "'");
  if (o.config.empty()) o.config = "volent.yaml";  // the node's configuration in this folder
  if (o.nonce.empty()) return Usage("--nonce is required: the verifier's fresh value, in hex");
  return -1;
}

int Verify(const Options& o) {
  // Both files decide trust: read once, bounded; the policy must not be
  // writable by others (anyone who could write it could change the verdict).
  auto policy_text = core::ReadFileCapped(o.policy, size_t{1} << 20, nullptr,
                                                   {.refuse_writable_by_others = true});
  if (!policy_text) {
    std::printf("ERROR: %s\n", policy_text.message().c_str());
    return 2;
  }
  auto policy = attest::ParsePolicy(*policy_text);
  if (!policy) {
    std::printf("ERROR: %s\n", policy.message().c_str());
    return 2;
  }
  auto report = core::ReadFileCapped(o.report, size_t{16} << 20);
  if (!report) {
    std::printf("ERROR: %s\n", report.message().c_str());
    return 2;
  }
  const attest::Verdict verdict = attest::VerifyReport(*report, *policy, o.nonce, std::time(nullptr));
  std::string checked;
  for (const std::string& claim : verdict.checked) checked += (checked.empty() ? "" : ", ") + claim;
  std::fprintf(stderr, "volent attest: claims checked: %s\n", checked.c_str());
  for (const std::string& note : verdict.notes) std::fprintf(stderr, "volent attest: note: %s\n", note.c_str());
  for (const attest::FailedClaim& f : verdict.failed) std::printf("claim %s: %s\n", f.claim.c_str(), f.why.c_str());
  std::printf("%s\n", verdict.verified() ? "VERIFIED" : "FAILED");
  return verdict.verified() ? 0 : 1;
}

int Make(const Options& o) {
  auto config = LoadConfigFile(o.config, "volent attest");
  if (!config) return 2;
  const std::string data_dir = o.data_dir.empty() ? config->data_dir : o.data_dir;
  auto key = boot::NodeKey(*config, data_dir, /*create=*/false);
  if (!key) {
    std::fprintf(stderr, "volent attest: %s\n", key.message().c_str());
    return 3;
  }
  journal::OpenOptions open;
  open.create = false;
  auto journal = journal::Journal::Open(data_dir, open);
  if (!journal) {
    std::fprintf(stderr, "volent attest: the node's journal in %s: %s\n", data_dir.c_str(), journal.message().c_str());
    return 3;
  }
  attest::AttestorOptions options = boot::AttestorOptionsFor(*config, data_dir, *key, **journal);
  options.measure = false;  // the node measured at its start; this reads its log
  auto attestor = attest::Attestor::Start(std::move(options));
  if (!attestor) {
    std::fprintf(stderr, "volent attest: %s\n", attestor.message().c_str());
    return 3;
  }
  if (!(*attestor)->no_tpm_reason().empty()) {
    std::fprintf(stderr, "volent attest: the report carries no TPM quote: %s\n", (*attestor)->no_tpm_reason().c_str());
  }
  auto report = (*attestor)->Report(o.nonce);
  if (!report) {
    std::fprintf(stderr, "volent attest: %s\n", report.message().c_str());
    return report.error().kind == core::ErrorKind::kInvalidArgument ? 2 : 3;
  }
  if (o.out.empty()) {
    std::printf("%s\n", report->c_str());
    return 0;
  }
  auto written = core::WriteFileAtomically(o.out, *report + "\n");
  if (!written.ok()) {
    std::fprintf(stderr, "volent attest: %s\n", written.message().c_str());
    return 2;
  }
  std::fprintf(stderr, "volent attest: wrote %s\n", o.out.c_str());
  return 0;
}

}  // namespace

int AttestCommand(const Args& args) {
  Options o;
  if (int code = ParseArgs(args, o); code >= 0) return code;
  return o.verify ? Verify(o) : Make(o);
}

}  // namespace volent::cli
