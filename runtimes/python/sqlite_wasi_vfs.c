// SQLite's operating-system layer for the Python guest (SQLITE_OS_OTHER).
//
// SQLite 3.40's Unix layer does not build for WASI: it locks with fcntl(),
// maps with mmap() and changes owners and modes, none of which wasi-libc has.
// This layer does what the guest needs with the POSIX calls wasi-libc does
// have (open, pread, pwrite, ftruncate, fstat, unlink, access), over the run's
// in-memory filesystem, so a database in /tmp, /output or a copy-on-write
// mailbox file behaves as on any host.
//
// Locking: a guest is one single-threaded process, so no other process can
// share a file. Two connections of that process can, and they must see each
// other's locks ("database is locked"), as they would on Linux. The lock
// state lives in one record per file (keyed by inode), with the rules of
// SQLite's own Unix layer (unixLock/posixUnlock in os_unix.c) minus the
// fcntl() calls that would tell other processes.
//
// Everything else comes from the sandbox: randomness from random_get (the
// run's seed), time from the virtual clock. Sleeping returns at once; with one
// thread nothing could change while it slept.
//
// No shared memory (iVersion 1 methods), so WAL works only with
// "PRAGMA locking_mode=EXCLUSIVE", as on a filesystem without mmap. Extensions
// cannot be loaded (SQLITE_OMIT_LOAD_EXTENSION).
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sqlite3.h"

// One per file open by any connection: the highest lock held on it and how
// many connections hold at least SHARED.
typedef struct LockRecord {
  dev_t dev;
  ino_t ino;
  int ref_count;
  int shared_count;
  int level;  // SQLITE_LOCK_NONE .. SQLITE_LOCK_EXCLUSIVE
  struct LockRecord* next;
} LockRecord;

static LockRecord* lock_records;

typedef struct {
  sqlite3_file base;  // must come first: SQLite casts sqlite3_file* to this
  int fd;
  int level;  // the lock this connection holds
  LockRecord* record;
} WasiFile;

static int io_error_for(int err, int fallback) {
  if (err == ENOSPC || err == EDQUOT) return SQLITE_FULL;
  return fallback;
}

static LockRecord* acquire_record(int fd) {
  struct stat st;
  if (fstat(fd, &st) != 0) return NULL;
  for (LockRecord* r = lock_records; r; r = r->next) {
    if (r->dev == st.st_dev && r->ino == st.st_ino) {
      r->ref_count++;
      return r;
    }
  }
  LockRecord* r = sqlite3_malloc(sizeof *r);
  if (!r) return NULL;
  memset(r, 0, sizeof *r);
  r->dev = st.st_dev;
  r->ino = st.st_ino;
  r->ref_count = 1;
  r->next = lock_records;
  lock_records = r;
  return r;
}

static void release_record(LockRecord* record) {
  if (!record || --record->ref_count > 0) return;
  for (LockRecord** p = &lock_records; *p; p = &(*p)->next) {
    if (*p == record) {
      *p = record->next;
      break;
    }
  }
  sqlite3_free(record);
}

static int wasi_unlock(sqlite3_file* file, int level);

static int wasi_close(sqlite3_file* file) {
  WasiFile* f = (WasiFile*)file;
  wasi_unlock(file, SQLITE_LOCK_NONE);
  release_record(f->record);
  f->record = NULL;
  int rc = close(f->fd) == 0 ? SQLITE_OK : SQLITE_IOERR_CLOSE;
  f->fd = -1;
  return rc;
}

static int wasi_read(sqlite3_file* file, void* buf, int amount, sqlite3_int64 offset) {
  WasiFile* f = (WasiFile*)file;
  char* out = buf;
  int got = 0;
  while (got < amount) {
    ssize_t n = pread(f->fd, out + got, (size_t)(amount - got), (off_t)(offset + got));
    if (n < 0) {
      if (errno == EINTR) continue;
      return SQLITE_IOERR_READ;
    }
    if (n == 0) break;
    got += (int)n;
  }
  if (got < amount) {
    // SQLite requires the unread tail zeroed on a short read.
    memset(out + got, 0, (size_t)(amount - got));
    return SQLITE_IOERR_SHORT_READ;
  }
  return SQLITE_OK;
}

static int wasi_write(sqlite3_file* file, const void* buf, int amount, sqlite3_int64 offset) {
  WasiFile* f = (WasiFile*)file;
  const char* in = buf;
  int put = 0;
  while (put < amount) {
    ssize_t n = pwrite(f->fd, in + put, (size_t)(amount - put), (off_t)(offset + put));
    if (n < 0) {
      if (errno == EINTR) continue;
      return io_error_for(errno, SQLITE_IOERR_WRITE);
    }
    if (n == 0) return SQLITE_FULL;
    put += (int)n;
  }
  return SQLITE_OK;
}

static int wasi_truncate(sqlite3_file* file, sqlite3_int64 size) {
  WasiFile* f = (WasiFile*)file;
  return ftruncate(f->fd, (off_t)size) == 0 ? SQLITE_OK : io_error_for(errno, SQLITE_IOERR_TRUNCATE);
}

// Nothing outlives the run, so there is nothing to make durable.
static int wasi_sync(sqlite3_file* file, int flags) {
  (void)file;
  (void)flags;
  return SQLITE_OK;
}

static int wasi_file_size(sqlite3_file* file, sqlite3_int64* size) {
  WasiFile* f = (WasiFile*)file;
  struct stat st;
  if (fstat(f->fd, &st) != 0) return SQLITE_IOERR_FSTAT;
  *size = st.st_size;
  return SQLITE_OK;
}

// unixLock without fcntl(): the transitions are SQLite's (NONE -> SHARED ->
// RESERVED -> (PENDING) -> EXCLUSIVE), checked against the other connections
// through the file's lock record.
static int wasi_lock(sqlite3_file* file, int level) {
  WasiFile* f = (WasiFile*)file;
  LockRecord* r = f->record;
  if (f->level >= level) return SQLITE_OK;
  // Another connection holds PENDING or more, or we want more than SHARED
  // while someone else holds more than we do.
  if (f->level != r->level && (r->level >= SQLITE_LOCK_PENDING || level > SQLITE_LOCK_SHARED)) {
    return SQLITE_BUSY;
  }
  if (level == SQLITE_LOCK_SHARED) {
    if (r->level == SQLITE_LOCK_SHARED || r->level == SQLITE_LOCK_RESERVED) {
      r->shared_count++;
    } else {  // nobody holds a lock
      r->shared_count = 1;
      r->level = SQLITE_LOCK_SHARED;
    }
    f->level = SQLITE_LOCK_SHARED;
    return SQLITE_OK;
  }
  if (level == SQLITE_LOCK_EXCLUSIVE && r->shared_count > 1) {
    // Readers remain: hold PENDING so that no new reader starts, and let
    // SQLite retry (its busy handler) until they are gone.
    f->level = SQLITE_LOCK_PENDING;
    r->level = SQLITE_LOCK_PENDING;
    return SQLITE_BUSY;
  }
  f->level = level;
  r->level = level;
  return SQLITE_OK;
}

static int wasi_unlock(sqlite3_file* file, int level) {
  WasiFile* f = (WasiFile*)file;
  LockRecord* r = f->record;
  if (!r || f->level <= level) return SQLITE_OK;
  if (f->level > SQLITE_LOCK_SHARED) r->level = SQLITE_LOCK_SHARED;
  if (level == SQLITE_LOCK_NONE) {
    if (--r->shared_count == 0) r->level = SQLITE_LOCK_NONE;
  }
  f->level = level;
  return SQLITE_OK;
}

static int wasi_check_reserved_lock(sqlite3_file* file, int* out) {
  WasiFile* f = (WasiFile*)file;
  *out = f->record->level > SQLITE_LOCK_SHARED;
  return SQLITE_OK;
}

static int wasi_file_control(sqlite3_file* file, int op, void* arg) {
  (void)file;
  (void)op;
  (void)arg;
  return SQLITE_NOTFOUND;
}

static int wasi_sector_size(sqlite3_file* file) {
  (void)file;
  return 4096;
}

static int wasi_device_characteristics(sqlite3_file* file) {
  (void)file;
  return 0;
}

static const sqlite3_io_methods wasi_io_methods = {
    .iVersion = 1,  // no shared memory, no memory mapping
    .xClose = wasi_close,
    .xRead = wasi_read,
    .xWrite = wasi_write,
    .xTruncate = wasi_truncate,
    .xSync = wasi_sync,
    .xFileSize = wasi_file_size,
    .xLock = wasi_lock,
    .xUnlock = wasi_unlock,
    .xCheckReservedLock = wasi_check_reserved_lock,
    .xFileControl = wasi_file_control,
    .xSectorSize = wasi_sector_size,
    .xDeviceCharacteristics = wasi_device_characteristics,
};

// SQLite asks for a nameless file when it needs scratch space it could not
// keep in memory. It is created in /tmp and unlinked at once, so it is gone
// when closed (the guest's filesystem keeps an unlinked open file readable).
static int open_nameless(int flags) {
  static unsigned counter;
  char path[64];
  for (int attempt = 0; attempt < 100; ++attempt) {
    sqlite3_snprintf(sizeof path, path, "/tmp/etilqs_%u", ++counter);
    int fd = open(path, flags | O_CREAT | O_EXCL, 0600);
    if (fd >= 0) {
      unlink(path);
      return fd;
    }
    if (errno != EEXIST) return -1;
  }
  return -1;
}

static int wasi_open(sqlite3_vfs* vfs, const char* name, sqlite3_file* file, int flags, int* out_flags) {
  (void)vfs;
  WasiFile* f = (WasiFile*)file;
  memset(f, 0, sizeof *f);
  f->fd = -1;
  int oflags = (flags & SQLITE_OPEN_READWRITE) ? O_RDWR : O_RDONLY;
  if (flags & SQLITE_OPEN_CREATE) oflags |= O_CREAT;
  if (flags & SQLITE_OPEN_EXCLUSIVE) oflags |= O_EXCL;
  int fd;
  if (!name) {
    fd = open_nameless(oflags);
  } else {
    fd = open(name, oflags, 0644);
    if (fd < 0 && (flags & SQLITE_OPEN_READWRITE) && errno != EISDIR && errno != ENOENT) {
      // As the Unix layer does: a file we may not write (a read-only folder)
      // opens read-only, and SQLite reports that to the caller.
      fd = open(name, O_RDONLY);
      if (fd >= 0) flags = (flags & ~(SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)) | SQLITE_OPEN_READONLY;
    }
    if (fd >= 0 && (flags & SQLITE_OPEN_DELETEONCLOSE)) unlink(name);
  }
  if (fd < 0) return SQLITE_CANTOPEN;
  f->record = acquire_record(fd);
  if (!f->record) {
    close(fd);
    return SQLITE_IOERR_NOMEM;
  }
  f->fd = fd;
  f->base.pMethods = &wasi_io_methods;
  if (out_flags) *out_flags = flags;
  return SQLITE_OK;
}

static int wasi_delete(sqlite3_vfs* vfs, const char* name, int sync_dir) {
  (void)vfs;
  (void)sync_dir;
  if (unlink(name) == 0) return SQLITE_OK;
  return errno == ENOENT ? SQLITE_IOERR_DELETE_NOENT : SQLITE_IOERR_DELETE;
}

static int wasi_access(sqlite3_vfs* vfs, const char* name, int what, int* out) {
  (void)vfs;
  struct stat st;
  if (what == SQLITE_ACCESS_READWRITE) {
    *out = access(name, R_OK | W_OK) == 0;
  } else {
    // As the Unix layer: an empty regular file counts as absent, so a
    // zero-length journal left behind is not taken for a hot one.
    *out = stat(name, &st) == 0 && (!S_ISREG(st.st_mode) || st.st_size > 0);
  }
  return SQLITE_OK;
}

static int wasi_full_pathname(sqlite3_vfs* vfs, const char* name, int size, char* out) {
  (void)vfs;
  if (name[0] == '/') {
    sqlite3_snprintf(size, out, "%s", name);
    return SQLITE_OK;
  }
  char cwd[PATH_MAX];
  if (!getcwd(cwd, sizeof cwd)) return SQLITE_CANTOPEN_FULLPATH;
  size_t cwd_len = strlen(cwd);
  sqlite3_snprintf(size, out, "%s%s%s", cwd, (cwd_len && cwd[cwd_len - 1] == '/') ? "" : "/", name);
  return (int)(strlen(out) + 1) < size ? SQLITE_OK : SQLITE_CANTOPEN_FULLPATH;
}

static int wasi_randomness(sqlite3_vfs* vfs, int size, char* out) {
  (void)vfs;
  for (int done = 0; done < size;) {
    int chunk = size - done > 256 ? 256 : size - done;  // getentropy's limit
    if (getentropy(out + done, (size_t)chunk) != 0) return done;
    done += chunk;
  }
  return size;
}

static int wasi_sleep(sqlite3_vfs* vfs, int microseconds) {
  (void)vfs;
  return microseconds;
}

static int wasi_current_time_int64(sqlite3_vfs* vfs, sqlite3_int64* out) {
  (void)vfs;
  // Julian day number in milliseconds: the Unix epoch is day 2440587.5.
  static const sqlite3_int64 kUnixEpochJulianMs = 24405875 * (sqlite3_int64)8640000;
  struct timespec now;
  if (clock_gettime(CLOCK_REALTIME, &now) != 0) return SQLITE_ERROR;
  *out = kUnixEpochJulianMs + (sqlite3_int64)now.tv_sec * 1000 + now.tv_nsec / 1000000;
  return SQLITE_OK;
}

static int wasi_current_time(sqlite3_vfs* vfs, double* out) {
  sqlite3_int64 ms = 0;
  int rc = wasi_current_time_int64(vfs, &ms);
  *out = ms / 86400000.0;
  return rc;
}

static int wasi_get_last_error(sqlite3_vfs* vfs, int size, char* out) {
  (void)vfs;
  if (size > 0) out[0] = 0;
  return errno;
}

static sqlite3_vfs wasi_vfs = {
    .iVersion = 2,  // up to xCurrentTimeInt64
    .szOsFile = sizeof(WasiFile),
    .mxPathname = PATH_MAX,
    .zName = "wasi",
    .xOpen = wasi_open,
    .xDelete = wasi_delete,
    .xAccess = wasi_access,
    .xFullPathname = wasi_full_pathname,
    // No xDlOpen and friends: extensions cannot be loaded.
    .xRandomness = wasi_randomness,
    .xSleep = wasi_sleep,
    .xCurrentTime = wasi_current_time,
    .xGetLastError = wasi_get_last_error,
    .xCurrentTimeInt64 = wasi_current_time_int64,
};

int sqlite3_os_init(void) { return sqlite3_vfs_register(&wasi_vfs, 1); }

int sqlite3_os_end(void) { return SQLITE_OK; }
