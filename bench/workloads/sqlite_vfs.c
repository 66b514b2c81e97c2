// A memory-only operating-system layer for SQLite (SQLITE_OS_OTHER).
//
// The benchmark keeps its database in memory (":memory:", journal and temp
// store in memory), so SQLite never opens a file. This layer supplies the
// little the core still asks of an OS: randomness, time and sleep. It is
// compiled into both the native and the wasm32-wasi build, so the two run
// exactly the same code. (Debian 12's SQLite 3.40 has no WASI support in its
// Unix layer.)
#include <sqlite3.h>
#include <string.h>

static int mem_open(sqlite3_vfs* vfs, const char* name, sqlite3_file* file, int flags, int* out_flags) {
  (void)vfs; (void)name; (void)flags; (void)out_flags;
  file->pMethods = 0;
  return SQLITE_CANTOPEN;  // no files: everything lives in memory
}

static int mem_delete(sqlite3_vfs* vfs, const char* name, int sync_dir) {
  (void)vfs; (void)name; (void)sync_dir;
  return SQLITE_IOERR_DELETE;
}

static int mem_access(sqlite3_vfs* vfs, const char* name, int flags, int* result) {
  (void)vfs; (void)name; (void)flags;
  *result = 0;
  return SQLITE_OK;
}

static int mem_full_pathname(sqlite3_vfs* vfs, const char* name, int n, char* out) {
  (void)vfs;
  sqlite3_snprintf(n, out, "%s", name);
  return SQLITE_OK;
}

// Deterministic bytes: the benchmark needs no real entropy.
static int mem_randomness(sqlite3_vfs* vfs, int n, char* out) {
  (void)vfs;
  for (int i = 0; i < n; ++i) out[i] = (char)(i * 131 + 7);
  return n;
}

static int mem_sleep(sqlite3_vfs* vfs, int microseconds) {
  (void)vfs;
  return microseconds;
}

// A fixed instant (2024-01-01 as a Julian day number in milliseconds):
// results must not depend on when the benchmark runs.
static int mem_current_time_int64(sqlite3_vfs* vfs, sqlite3_int64* out) {
  (void)vfs;
  *out = (sqlite3_int64)2460310.5 * 86400000;
  return SQLITE_OK;
}

static int mem_current_time(sqlite3_vfs* vfs, double* out) {
  sqlite3_int64 ms;
  mem_current_time_int64(vfs, &ms);
  *out = ms / 86400000.0;
  return SQLITE_OK;
}

static int mem_get_last_error(sqlite3_vfs* vfs, int n, char* out) {
  (void)vfs;
  if (n > 0) out[0] = 0;
  return 0;
}

static sqlite3_vfs mem_vfs = {
    .iVersion = 2,
    .szOsFile = sizeof(sqlite3_file),
    .mxPathname = 512,
    .zName = "bench-memory",
    .xOpen = mem_open,
    .xDelete = mem_delete,
    .xAccess = mem_access,
    .xFullPathname = mem_full_pathname,
    .xRandomness = mem_randomness,
    .xSleep = mem_sleep,
    .xCurrentTime = mem_current_time,
    .xGetLastError = mem_get_last_error,
    .xCurrentTimeInt64 = mem_current_time_int64,
};

int sqlite3_os_init(void) { return sqlite3_vfs_register(&mem_vfs, 1); }
int sqlite3_os_end(void) { return SQLITE_OK; }
