// The receipts benchmark (bench/receipts.sh builds and runs this).
//
// Signs N receipts of a realistic run record (three inputs, every predicate
// field set) with run::MakeReceipt, then measures, in the same process
// and on the same libsodium:
//   sign     receipts made per second (statement + DSSE + Ed25519 sign)
//   verify   receipts verified per second: verify::ReadSignedRunReceipt,
//            the whole ampoule-verify check of a receipt's text (envelope,
//            base64, PAE, strict Ed25519, statement, predicate, subjects)
//   raw      crypto_sign_verify_detached per second over the same PAE
//            messages and signatures, nothing else
// Each is timed in thread CPU time (one thread = one core), so other work
// on the machine changes the figures less than wall time would. Runs are
// repeated; the median and the spread ((max - min) / median) are printed.
//
//   receipts_bench N RUNS
//   receipts_bench --write DIR   writes DIR/key, DIR/key.pub and a signed
//                                DIR/receipt.json (for timing the command)
#include <sodium.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "ampoule/receipt/envelope.h"
#include "ampoule/receipt/key_file.h"
#include "ampoule/receipt/pae.h"
#include "ampoule/run/receipt_builder.h"
#include "ampoule/verify/run_receipt.h"
#include "core/sha256.h"

namespace {

using namespace ampoule;

double CpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

run::RunRecord Record(uint64_t i) {
  run::RunRecord r;
  r.kernel_sha256 = core::Sha256Hex("kernel");
  r.cost_table_version = 1;
  r.runtime = "python";
  r.program = {"refund.py", core::Sha256Hex("program " + std::to_string(i)), 2417};
  r.inputs = {{"customers.csv", core::Sha256Hex("c"), 18234},
              {"orders.csv", core::Sha256Hex("o" + std::to_string(i)), 912345},
              {"policy.json", core::Sha256Hex("p"), 733}};
  r.stdin_digest = {core::Sha256Hex(""), 0};
  r.seed = i;
  r.limits = {20'000'000'000, uint64_t(512) << 20, 60, uint64_t(16) << 20};
  r.result = {0, 0, run::Stop::kExit, 183'456'789 + i, false, false, ""};
  r.stdout_digest = {core::Sha256Hex("refund " + std::to_string(i)), 96, 96, false};
  r.stderr_digest = {core::Sha256Hex(""), 0, 0, false};
  r.started_at = "2026-11-29T19:00:00Z";
  r.finished_at = "2026-11-29T19:00:01Z";
  return r;
}

struct Stats {
  double median, spread;
};

Stats Summarise(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  double median = v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
  return {median, (v.back() - v.front()) / median};
}

void Print(const char* what, const char* unit, Stats s) {
  printf("%-8s %12.0f %-28s spread %5.1f%%%s\n", what, s.median, unit, s.spread * 100,
         s.spread > 0.10 ? "  (over 10%: not trustworthy yet)" : "");
}

int WriteSample(const std::string& dir) {
  core::ed25519::SecretKey key = core::ed25519::SecretKey::Generate();
  if (!receipt::WriteKeyPair(dir + "/key", key).ok()) return 1;
  FILE* f = fopen((dir + "/receipt.json").c_str(), "w");
  if (!f) return 1;
  std::string text = run::MakeReceipt(Record(0), key);
  bool ok = fwrite(text.data(), 1, text.size(), f) == text.size();
  return fclose(f) == 0 && ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "--write") return WriteSample(argv[2]);
  if (argc != 3) {
    fprintf(stderr, "usage: receipts_bench N RUNS\n");
    return 2;
  }
  const size_t n = std::strtoul(argv[1], nullptr, 10);
  const int runs = std::atoi(argv[2]);
  if (n == 0 || runs < 1 || sodium_init() < 0) return 2;
  core::ed25519::SecretKey key = core::ed25519::SecretKey::Generate();
  std::vector<core::ed25519::PublicKey> trusted{core::ed25519::SecretKey::Generate().public_key(),
                                          key.public_key()};  // the signer is the second key
  std::vector<run::RunRecord> records;
  for (size_t i = 0; i < n; ++i) records.push_back(Record(i));

  std::vector<std::string> receipts(n);
  std::vector<std::string> paes(n), sigs(n);
  std::vector<double> sign_rate, verify_rate, raw_rate;
  size_t bad = 0;
  for (int run = 0; run < runs; ++run) {
    double t0 = CpuSeconds();
    for (size_t i = 0; i < n; ++i) receipts[i] = run::MakeReceipt(records[i], key);
    double t1 = CpuSeconds();
    for (size_t i = 0; i < n; ++i) bad += !verify::ReadSignedRunReceipt(receipts[i], trusted).ok();
    double t2 = CpuSeconds();
    if (run == 0) {
      for (size_t i = 0; i < n; ++i) {
        receipt::Envelope e = receipt::ParseEnvelope(receipts[i]).value();
        paes[i] = receipt::Pae(e.payload_type, e.payload);
        sigs[i] = e.signatures[0].sig;
      }
    }
    double t3 = CpuSeconds();
    for (size_t i = 0; i < n; ++i) {
      bad += crypto_sign_verify_detached(reinterpret_cast<const unsigned char*>(sigs[i].data()),
                                         reinterpret_cast<const unsigned char*>(paes[i].data()),
                                         paes[i].size(), key.public_key().data()) != 0;
    }
    double t4 = CpuSeconds();
    sign_rate.push_back(n / (t1 - t0));
    verify_rate.push_back(n / (t2 - t1));
    raw_rate.push_back(n / (t4 - t3));
  }
  if (bad != 0) {
    fprintf(stderr, "receipts_bench: %zu verifications failed\n", bad);
    return 1;
  }
  printf("receipts: %zu a run, %d runs, receipt %zu bytes, libsodium %s, thread CPU time\n", n, runs,
         receipts[0].size(), sodium_version_string());
  Stats sign = Summarise(sign_rate), ver = Summarise(verify_rate), raw = Summarise(raw_rate);
  Print("sign", "receipts/s per core", sign);
  Print("verify", "receipts/s per core", ver);
  Print("raw", "Ed25519 verifies/s per core", raw);
  std::vector<double> ratio;
  for (int i = 0; i < runs; ++i) ratio.push_back(verify_rate[i] / raw_rate[i]);
  Stats r = Summarise(ratio);
  printf("verify/raw %.2f (median of per-run ratios, spread %.1f%%%s)\n", r.median, r.spread * 100,
         r.spread > 0.10 ? ", not trustworthy yet" : "");
  return 0;
}
