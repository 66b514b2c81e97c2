// The journal benchmark (bench/journal.sh builds and runs this).
//
// Measures, on the same disk and in the same process, alternating runs of:
//   journal  steps journaled per second: one BeginEffect and one
//            CompleteEffect per step (two entries, two BEGIN IMMEDIATE
//            transactions, two fsyncs), with a realistic request and result
//   raw      SQLite's own rate for the same durability: one-row INSERTs into
//            a two-column table, each its own transaction, WAL mode with
//            synchronous=FULL; reported as rows per second
// Wall time (fsync is the cost, and it is not CPU time). Each run uses a new
// database in DIR. The median and the spread ((max - min) / median) of the
// runs are printed; the ratio compares journal entries per second (two per
// step) with raw rows per second, the ceiling for one fsync per entry.
//
//   journal_bench DIR STEPS RUNS
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "volent/journal/journal.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Stats {
  double median, spread;
};

Stats Summarize(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  double median = v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
  return {median, (v.back() - v.front()) / median};
}

void Print(const char* what, const Stats& s, const char* unit) {
  std::printf("%-8s %10.0f %-30s spread %5.1f%%%s\n", what, s.median, unit, s.spread * 100,
              s.spread > 0.10 ? "  (over 10%: not trustworthy yet)" : "");
}

// A fresh folder for one run.
std::string Fresh(const std::string& dir, const char* name) {
  std::string path = dir + "/" + name;
  std::filesystem::remove_all(path);
  std::filesystem::create_directories(path);
  return path;
}

// Steps per second through the journal, or a negative number on an error.
double JournalRun(const std::string& dir, int steps) {
  auto j = volent::journal::Journal::Open(Fresh(dir, "journal"));
  if (!j.ok()) {
    std::fprintf(stderr, "journal_bench: %s\n", j.message().c_str());
    return -1;
  }
  const nlohmann::json request = {{"method", "POST"},
                                  {"url", "https://erp.internal/v1/refunds"},
                                  {"body", {{"order", "A-10017"}, {"amount_cents", 4200}}}};
  const nlohmann::json result = {{"status", 201}, {"body", {{"refund", "R-88812"}}}};
  auto start = Clock::now();
  for (int step = 1; step <= steps; ++step) {
    volent::journal::EffectKey key{"refund", "run-1", static_cast<uint64_t>(step)};
    if (!(*j)->BeginEffect(key, request).ok() || !(*j)->CompleteEffect(key, result).ok()) {
      std::fprintf(stderr, "journal_bench: an append failed\n");
      return -1;
    }
  }
  return steps / std::chrono::duration<double>(Clock::now() - start).count();
}

// Raw SQLite rows per second, one row per transaction, or negative on error.
double RawRun(const std::string& dir, int rows) {
  sqlite3* db = nullptr;
  const std::string path = Fresh(dir, "raw") + "/raw.db";
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK ||
      sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;"
                       "CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)",
                   nullptr, nullptr, nullptr) != SQLITE_OK) {
    std::fprintf(stderr, "journal_bench: raw: %s\n", sqlite3_errmsg(db));
    sqlite3_close(db);
    return -1;
  }
  sqlite3_stmt* insert = nullptr;
  sqlite3_prepare_v2(db, "INSERT INTO t (v) VALUES (?1)", -1, &insert, nullptr);
  const std::string value(160, 'v');  // about one journal entry's payload
  auto start = Clock::now();
  bool ok = true;
  for (int i = 0; i < rows && ok; ++i) {
    sqlite3_bind_text(insert, 1, value.data(), static_cast<int>(value.size()), SQLITE_STATIC);
    ok = sqlite3_step(insert) == SQLITE_DONE;
    sqlite3_reset(insert);
  }
  double rate = rows / std::chrono::duration<double>(Clock::now() - start).count();
  sqlite3_finalize(insert);
  sqlite3_close(db);
  return ok ? rate : -1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: journal_bench DIR STEPS RUNS\n");
    return 2;
  }
  const std::string dir = argv[1];
  const int steps = std::atoi(argv[2]);
  const int runs = std::atoi(argv[3]);
  if (steps < 1 || runs < 1) {
    std::fprintf(stderr, "journal_bench: STEPS and RUNS must be positive\n");
    return 2;
  }
  std::vector<double> journal, raw;
  for (int r = 0; r < runs; ++r) {  // alternating, so drift hits both alike
    double j = JournalRun(dir, steps);
    double w = RawRun(dir, 2 * steps);
    if (j < 0 || w < 0) return 1;
    journal.push_back(j);
    raw.push_back(w);
  }
  std::filesystem::remove_all(dir + "/journal");
  std::filesystem::remove_all(dir + "/raw");
  Stats js = Summarize(journal), ws = Summarize(raw);
  Print("journal", js, "steps/s (2 entries, 2 fsyncs)");
  Print("raw", ws, "SQLite rows/s (1 row, 1 fsync)");
  std::printf("ratio    %10.2f journal entries/s per raw SQLite row/s (1.00 = no cost over SQLite)\n",
              2 * js.median / ws.median);
  std::printf("journal: %.0f steps/s (fsync each)\n", js.median);
  return 0;
}
