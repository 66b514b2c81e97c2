#include "ampoule/verify/evidence.h"

#include "ampoule/receipt/key_file.h"
#include "ampoule/verify/run_receipt.h"

namespace ampoule::verify {
namespace {

std::string Short(const std::string& sha256) { return sha256.substr(0, 16) + "..."; }

// Loads every key named; a key that cannot be used is a usage error.
std::vector<core::ed25519::PublicKey> LoadKeys(const Options& o, Snapshot& ev) {
  std::vector<core::ed25519::PublicKey> keys;
  for (const std::string& path : o.keys) {
    core::Result<core::ed25519::PublicKey> key = receipt::ReadPublicKeyFile(path);
    if (!key.ok()) {
      Note(ev.facts.usage, "cannot use --key: " + key.message());
      ev.notes.push_back("key: " + key.message());
      continue;
    }
    keys.push_back(*key);
  }
  for (const std::string& path : o.trusted_keys) {
    core::Result<std::vector<core::ed25519::PublicKey>> list = receipt::ReadTrustedKeysFile(path);
    if (!list.ok()) {
      Note(ev.facts.usage, "cannot use --trusted-keys: " + list.message());
      ev.notes.push_back("trusted keys: " + list.message());
      continue;
    }
    keys.insert(keys.end(), list->begin(), list->end());
  }
  return keys;
}

// Reads one file under the cap; problems become facts.
std::optional<LoadedFile> Load(const std::string& what, const std::string& path, const Options& o,
                               Snapshot& ev) {
  bool too_large = false;
  core::Result<LoadedFile> file = LoadFile(path, &too_large, o.paths_from);
  if (file.ok()) return std::move(*file);
  if (too_large) {
    Note(ev.facts.too_large, path);
    ev.notes.push_back(what + ": " + path + " is over the 64 MiB limit");
  } else {
    // The reason itself: "cannot read output X" alone would hide whether it
    // is missing, a FIFO, or a directory.
    Note(ev.facts.usage, what + ": " + file.message());
    ev.notes.push_back(what + ": " + file.message());
  }
  return std::nullopt;
}

// Compares a given file's digest with the signed one.
void Compare(const std::string& what, const std::string& path, const std::string& actual,
             const std::string& signed_sha256, Evidence& ev) {
  if (actual == signed_sha256) {
    ev.notes.push_back(what + ": " + path + " matches (sha256 " + Short(actual) + ")");
    return;
  }
  Note(ev.facts.failed, what + " differs from the receipt");
  ev.notes.push_back(what + ": " + path + " has sha256 " + actual + ", the receipt signed " +
                     signed_sha256);
}

void AcceptReceipt(const Options& o, const std::string& text,
                   const std::vector<core::ed25519::PublicKey>& keys, Evidence& ev) {
  const bool check_signature = !o.replay || !o.keys.empty() || !o.trusted_keys.empty();
  if (check_signature && keys.empty()) return;  // a key failed to load: already a usage error
  core::Result<RunReceipt> receipt =
      check_signature ? ReadSignedRunReceipt(text, keys) : ReadUnsignedRunReceipt(text);
  ev.signature_checked = check_signature;
  if (!receipt.ok()) {
    Note(ev.facts.failed, check_signature ? "the receipt does not verify" : "the receipt is malformed");
    ev.notes.push_back("receipt: " + receipt.message());
    return;
  }
  if (receipt->signer) {
    ev.notes.push_back("signature: good, signatures[" + std::to_string(receipt->signature_index) +
                       "] by key " + receipt->signer->KeyId());
  } else {
    ev.notes.push_back(
        "signature: not checked (no --key): the verdict rests on the replay alone");
  }
  ev.record = std::move(receipt->record);
}

// Compares each named file given (`given`, read into `read`) with the
// receipt's entry of that name in `signed_files`; `what` is "input" or
// "output file". A name the receipt does not have fails.
void CompareNamed(const std::string& what, const std::vector<NamedFile>& given,
                  const std::map<std::string, LoadedFile>& read,
                  const std::vector<run::NamedDigest>& signed_files, Evidence& ev) {
  for (const NamedFile& f : given) {
    auto file = read.find(f.name);
    if (file == read.end()) continue;  // unreadable: already a fact
    const run::NamedDigest* signed_file = nullptr;
    for (const run::NamedDigest& d : signed_files) {
      if (d.name == f.name) signed_file = &d;
    }
    if (!signed_file) {
      Note(ev.facts.failed, what + " '" + f.name + "' is not in the receipt");
      ev.notes.push_back(what + " " + f.name + ": the receipt has no " + what + " of that name");
      continue;
    }
    Compare(what + " " + f.name, f.path, file->second.sha256, signed_file->sha256, ev);
  }
}

void CompareFiles(const Options& o, const std::optional<std::string>& kernel_sha256, Evidence& ev) {
  const run::RunRecord& r = *ev.record;
  if (kernel_sha256) {
    Compare("kernel", o.kernel, *kernel_sha256, r.kernel_sha256, ev);
    ev.facts.kernel_pinned = *kernel_sha256 == r.kernel_sha256;
  } else if (o.kernel.empty()) {
    ev.notes.push_back("kernel: not given, so not pinned: the receipt names kernel " +
                       r.kernel_sha256 + " (give --kernel FILE)");
  }
  const Snapshot& files = *ev.files;
  if (files.program) Compare("program", o.program, files.program->sha256, r.program.sha256, ev);
  for (size_t i = 0; i < o.outputs.size() && i < files.outputs.size(); ++i) {
    if (files.outputs[i]) Compare("output", o.outputs[i], files.outputs[i]->sha256, r.stdout_digest.sha256, ev);
  }
  CompareNamed("input", o.inputs, files.inputs, r.inputs, ev);
  CompareNamed("output file", o.output_files, files.output_files, r.outputs, ev);
  if (files.stdin_file) Compare("stdin", *o.stdin_path, files.stdin_file->sha256, r.stdin_digest.sha256, ev);
}

void NoteResult(Evidence& ev) {
  const run::RunOutcome& result = ev.record->result;
  ev.facts.terminated = result.terminated;
  ev.facts.run_failed = result.status != 0;
  std::string line = "result: status " + std::to_string(result.status) + ", stop " +
                     std::string(run::StopName(result.stop)) + ", fuel used " +
                     std::to_string(result.fuel_used);
  if (result.terminated) line += ", stopped by the host's safety net (terminated: not replayable)";
  ev.notes.push_back(line);
}

// How the signed run was sealed, in the fixed form docs/cli.md gives
// scripts ("isolation: VALUE (EXPLANATION)"). Not a fact for the verdict:
// whether an unjailed run will do is the policy's question (the gate's
// min_isolation), asked of the signed value.
void NoteIsolation(Evidence& ev) {
  const run::RunRecord& r = *ev.record;
  std::string why;
  switch (r.isolation) {
    case run::Isolation::kNone:
      why = "the run was not jailed (--insecure-no-jail): no namespaces, no seccomp filter";
      break;
    case run::Isolation::kJail: why = "namespaces, empty root, seccomp allow-list, rlimits"; break;
    case run::Isolation::kVm: why = "a micro-VM"; break;
    case run::Isolation::kUnknown:
      why = "a version " + std::to_string(r.predicate_version) + " receipt does not say how its run was sealed";
      break;
  }
  ev.notes.push_back("isolation: " + std::string(run::IsolationName(r.isolation)) + " (" + why + ")");
}

}  // namespace

Snapshot ReadSnapshot(const Options& o) {
  Snapshot files;
  files.keys = LoadKeys(o, files);
  files.receipt = Load("receipt", o.receipt, o, files);
  if (!o.kernel.empty()) {
    core::Result<std::string> sha = Sha256File(o.kernel);
    if (sha.ok()) {
      files.kernel_sha256 = *sha;
    } else {
      files.kernel_problem = sha.message();
      Note(files.facts.usage, "kernel: " + sha.message());
      files.notes.push_back("kernel: " + sha.message());
    }
  }
  if (!o.program.empty()) files.program = Load("program", o.program, o, files);
  for (const NamedFile& in : o.inputs) {
    std::optional<LoadedFile> file = Load("input " + in.name, in.path, o, files);
    if (file) files.inputs.emplace(in.name, std::move(*file));
  }
  if (o.stdin_path) files.stdin_file = Load("stdin", *o.stdin_path, o, files);
  // Outputs are read even when the receipt is unusable: an unreadable or
  // oversized one outranks FAILED.
  for (const std::string& path : o.outputs) files.outputs.push_back(Load("output", path, o, files));
  for (const NamedFile& f : o.output_files) {
    std::optional<LoadedFile> file = Load("output file " + f.name, f.path, o, files);
    if (file) files.output_files.emplace(f.name, std::move(*file));
  }
  return files;
}

Evidence Gather(const Options& o, const Snapshot& files) {
  Evidence ev;
  ev.facts = files.facts;
  ev.notes = files.notes;
  ev.files = &files;
  if (files.receipt) AcceptReceipt(o, files.receipt->bytes, files.keys, ev);
  if (!ev.record) return ev;
  CompareFiles(o, files.kernel_sha256, ev);
  NoteResult(ev);
  NoteIsolation(ev);
  return ev;
}

}  // namespace ampoule::verify
