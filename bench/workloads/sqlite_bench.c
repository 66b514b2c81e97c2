// Workload: SQLite, in memory. 200k inserts in one transaction with a
// secondary index, then aggregate, range, join-like and update queries.
// Prints a checksum of every query result.
#include <sqlite3.h>
#include <string.h>

#include "common.h"

static sqlite3* db;
static uint64_t sum;

static void check(int rc, const char* what) {
  if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
    fprintf(stderr, "%s: %s\n", what, sqlite3_errmsg(db));
    exit(1);
  }
}

static void exec(const char* sql) {
  char* err = NULL;
  if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
    fprintf(stderr, "%s: %s\n", sql, err ? err : "?");
    exit(1);
  }
}

// Runs a query and folds every column of every row into the checksum.
static void query(const char* sql) {
  sqlite3_stmt* st;
  check(sqlite3_prepare_v2(db, sql, -1, &st, NULL), sql);
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    for (int i = 0; i < sqlite3_column_count(st); ++i) {
      const unsigned char* text = sqlite3_column_text(st, i);
      if (text) sum = bench_fnv1a(text, strlen((const char*)text), sum);
    }
  }
  check(rc, sql);
  sqlite3_finalize(st);
}

static void insert_rows(unsigned rows) {
  static const char* const kStatus[] = {"pending", "approved", "refunded", "cancelled"};
  sqlite3_stmt* st;
  check(sqlite3_prepare_v2(db, "INSERT INTO orders(customer, amount, status, note) VALUES(?,?,?,?)", -1,
                           &st, NULL),
        "prepare insert");
  uint64_t state = 0x5417e;
  char note[48];
  for (unsigned i = 0; i < rows; ++i) {
    uint64_t r = bench_next(&state);
    sqlite3_bind_int(st, 1, (int)(r % 5000));
    sqlite3_bind_int64(st, 2, (sqlite3_int64)((r >> 16) % 100000));
    sqlite3_bind_text(st, 3, kStatus[(r >> 40) & 3], -1, SQLITE_STATIC);
    int n = snprintf(note, sizeof note, "note %llu", (unsigned long long)(r >> 20));
    sqlite3_bind_text(st, 4, note, n, SQLITE_TRANSIENT);
    check(sqlite3_step(st), "insert");
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
}

int main(int argc, char** argv) {
  const unsigned rows = 200000 * bench_scale(argc, argv);
  sum = bench_fnv1a_init();
  if (sqlite3_open(":memory:", &db) != SQLITE_OK) {
    fprintf(stderr, "cannot open database\n");
    return 1;
  }
  exec("PRAGMA journal_mode=MEMORY; PRAGMA cache_size=-65536;");
  exec("CREATE TABLE orders(id INTEGER PRIMARY KEY, customer INT, amount INT, status TEXT, note TEXT)");
  exec("BEGIN");
  insert_rows(rows);
  exec("COMMIT");
  exec("CREATE INDEX orders_customer ON orders(customer)");
  query("SELECT count(*), sum(amount), min(amount), max(amount) FROM orders");
  query("SELECT status, count(*), avg(amount) FROM orders GROUP BY status ORDER BY status");
  query("SELECT customer, sum(amount) AS s FROM orders GROUP BY customer ORDER BY s DESC LIMIT 20");
  for (int c = 0; c < 2000; ++c) {
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT count(*), sum(amount) FROM orders WHERE customer = %d", c * 7 % 5000);
    query(sql);
  }
  query("SELECT count(*) FROM orders a JOIN orders b ON a.customer = b.customer AND b.id = a.id + 1");
  exec("UPDATE orders SET status = 'approved' WHERE status = 'pending' AND amount < 50000");
  exec("DELETE FROM orders WHERE status = 'cancelled'");
  query("SELECT status, count(*) FROM orders GROUP BY status ORDER BY status");
  query("SELECT note FROM orders ORDER BY amount DESC, id LIMIT 5");
  sqlite3_close(db);
  printf("sqlite: %u rows, checksum %016llx\n", rows, (unsigned long long)sum);
  return 0;
}
