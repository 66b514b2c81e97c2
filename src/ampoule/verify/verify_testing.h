// Test support for src/ampoule/verify tests: a run record made by hand, the files it
// names written to a scratch folder, keys, and the command run in-process
// with its output captured. Header-only; tests only.
#pragma once

#include <gtest/gtest.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "ampoule/receipt/key_file.h"
#include "ampoule/run/receipt_builder.h"
#include "ampoule/run/run_record.h"
#include "ampoule/verify/command.h"
#include "core/ed25519.h"
#include "core/sha256.h"

namespace ampoule::verify::testing {

// What a command run printed.
struct CommandOutput {
  int exit_code = -1;
  std::string out, err;

  // The last line of stdout (the result line).
  std::string Line() const {
    std::string s = out;
    if (!s.empty() && s.back() == '\n') s.pop_back();
    return s.substr(s.rfind('\n') == std::string::npos ? 0 : s.rfind('\n') + 1);
  }
  size_t OutLines() const {
    size_t n = 0;
    for (char c : out) n += c == '\n';
    return n;
  }
};

inline CommandOutput RunCommand(const std::vector<std::string>& args, const Runner& runner = nullptr) {
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  char* out_buf = nullptr;
  char* err_buf = nullptr;
  size_t out_len = 0, err_len = 0;
  FILE* out = open_memstream(&out_buf, &out_len);
  FILE* err = open_memstream(&err_buf, &err_len);
  CommandOutput result;
  result.exit_code = RunVerifyCommand(argv, "ampoule-verify", out, err, runner);
  fclose(out);
  fclose(err);
  result.out.assign(out_buf, out_len);
  result.err.assign(err_buf, err_len);
  free(out_buf);
  free(err_buf);
  return result;
}

inline void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << bytes;
  ASSERT_TRUE(f.good()) << path;
}

inline std::string Sha(const std::string& bytes) { return core::Sha256Hex(bytes); }

// A scratch folder holding a kernel, a program, two inputs, the run's
// stdout, a signing key and its public key, and the record of that run.
class Scene {
 public:
  Scene() {
    // Thousands of receipts are written: use memory when there is some.
    struct stat st;
    std::string base = stat("/dev/shm", &st) == 0 && access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    std::string tmpl = base + "/ampoule-verify-test-XXXXXX";
    dir_ = mkdtemp(tmpl.data());
    WriteFile(Path("kernel"), kernel);
    WriteFile(Path("prog.py"), program);
    WriteFile(Path("a.csv"), input_a);
    WriteFile(Path("b.txt"), input_b);
    WriteFile(Path("stdout"), stdout_bytes);
    WriteFile(Path("stdin"), stdin_bytes);
    EXPECT_TRUE(receipt::WriteKeyPair(Path("key"), key).ok());
    EXPECT_TRUE(receipt::WritePublicKeyFile(Path("other.pub"), other.public_key()).ok());
    record = MakeRecord();
  }
  ~Scene() { std::system(("rm -rf '" + dir_ + "'").c_str()); }

  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

  run::RunRecord MakeRecord() const {
    run::RunRecord r;
    r.kernel_sha256 = Sha(kernel);
    r.cost_table_version = 1;
    r.runtime = "python";
    r.program = {"prog.py", Sha(program), program.size()};
    r.inputs = {{"a.csv", Sha(input_a), input_a.size()}, {"b.txt", Sha(input_b), input_b.size()}};
    r.stdin_digest = {Sha(stdin_bytes), stdin_bytes.size()};
    r.seed = 7;
    r.limits = {20'000'000'000, uint64_t(512) << 20, 60, uint64_t(16) << 20};
    r.result = {0, 0, run::Stop::kExit, 123'456'789, false, false, ""};
    r.stdout_digest = {Sha(stdout_bytes), stdout_bytes.size(), stdout_bytes.size(), false};
    r.stderr_digest = {Sha(""), 0, 0, false};
    r.started_at = "2026-11-29T19:00:00Z";
    r.finished_at = "2026-11-29T19:00:01Z";
    r.isolation = run::Isolation::kJail;
    return r;
  }

  // Writes `text` as a receipt file and returns its path.
  std::string WriteReceipt(const std::string& text, const std::string& name = "receipt.json") const {
    WriteFile(Path(name), text);
    return Path(name);
  }
  std::string SignedReceipt(const run::RunRecord& r) const { return WriteReceipt(run::MakeReceipt(r, key)); }

  // Arguments for a full verify of `receipt_path` with every file given.
  std::vector<std::string> FullVerify(const std::string& receipt_path) const {
    return {receipt_path,          "--key",    Path("key.pub"),
            "--kernel",            Path("kernel"), "--program", Path("prog.py"),
            "--output",            Path("stdout"), "--input",   "a.csv=" + Path("a.csv"),
            "--input",             "b.txt=" + Path("b.txt"), "--stdin", Path("stdin")};
  }

  std::string kernel = "AMPOULE-KERNEL test bytes \x01\x02";
  std::string program = "print(sum(int(x) for x in open('/input/a.csv')))\n";
  std::string input_a = "1\n2\n3\n";
  std::string input_b = "notes\n";
  std::string stdout_bytes = "6\n";
  std::string stdin_bytes = "";
  core::ed25519::SecretKey key = core::ed25519::SecretKey::Generate();
  core::ed25519::SecretKey other = core::ed25519::SecretKey::Generate();
  run::RunRecord record;

 private:
  std::string dir_;
};

}  // namespace ampoule::verify::testing
