#!/usr/bin/env bash
# `volent journal digest|verify` from the outside (docs/journal.md).
#
#   tests/volent/journal_cli.sh --volent PATH
#
# The journals are written here with Python's sqlite3 module following
# docs/journal.md's schema and hash encoding, not by volent: volent accepting
# them shows that the document is enough for an auditor to recompute every
# hash. Then entries are altered, removed and truncated, and the command must
# say so with the documented lines and exit codes.
#
# Prints "skipped: REASON" when it cannot run; exits non-zero on a failure.
set -u

volent=""
while [ $# -gt 0 ]; do
  case "$1" in
    --volent) volent="$2"; shift 2 ;;
    *) echo "usage: $0 --volent PATH" >&2; exit 2 ;;
  esac
done
[ -n "$volent" ] || { echo "usage: $0 --volent PATH" >&2; exit 2; }
[ -x "$volent" ] || { echo "skipped: $volent is not an executable"; exit 0; }
command -v python3 >/dev/null || { echo "skipped: python3 is not installed"; exit 0; }
python3 -c 'import sqlite3' 2>/dev/null || { echo "skipped: python3 has no sqlite3 module"; exit 0; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# The journal writer and editor, from docs/journal.md alone.
journal_py() { python3 "$(dirname "$0")/journal_from_doc.py" "$@"; }

# run EXPECTED_CODE ARGS...: runs volent journal, keeps stdout and stderr.
run() {
  local expected="$1"
  shift
  "$volent" journal "$@" >"$work/out" 2>"$work/err"
  local code=$?
  [ "$code" = "$expected" ] || fail "volent journal $* exited $code, expected $expected; $(cat "$work/out" "$work/err")"
}

expect_out() {
  grep -qxF -- "$1" "$work/out" || fail "missing line: $1; got: $(cat "$work/out" "$work/err")"
}

expect_prefix() {
  grep -q "^$1" "$work/out" || fail "no line starting with: $1; got: $(cat "$work/out" "$work/err")"
}

# A fresh copy of the journal written from the document: 9 steps.
fresh() {
  rm -rf "$work/data"
  mkdir -p "$work/data"
  journal_py write "$work/data/journal.db" 9 >"$work/hashes" || fail "python could not write a journal"
  entries=$(wc -l <"$work/hashes")
  head=$(tail -n 1 "$work/hashes" | cut -d' ' -f2)
}

# The document's worked example.
[ "$(journal_py example)" = "e06bbeea882d0cf88a018733232571db916bc8072f1eeb0b8ae212a681dcf1fe" ] \
  || fail "the worked example of docs/journal.md does not hash as documented"

# Usage errors and a missing journal: exit 2.
run 2
run 2 digest
run 2 frobnicate --data-dir "$work"
run 2 verify --data-dir "$work" --json
run 2 digest --data-dir "$work/nowhere"
grep -q "no journal at" "$work/err" || fail "a missing journal is not named: $(cat "$work/err")"
fresh
run 2 verify --data-dir "$work/data" --expect sha256:xyz
run 2 verify --data-dir "$work/data" --expect "${head#sha256:}" # no sha256: prefix
run 0 --help

# A journal written from the document verifies, with the same digest.
run 0 digest --data-dir "$work/data"
expect_out "journal: $entries entries, $head"
run 0 digest --data-dir "$work/data" --json
journal_py digest-json-is "$work/out" "$entries" "$head" || fail "digest --json: $(cat "$work/out")"
run 0 verify --data-dir "$work/data"
expect_out "journal OK: $entries entries, $head"
run 0 verify --data-dir "$work/data" --expect "$head"
expect_out "journal OK: $entries entries, $head"
# An earlier digest (the journal has grown since) still matches.
run 0 verify --data-dir "$work/data" --expect "$(sed -n 5p "$work/hashes" | cut -d' ' -f2)"
run 0 verify --data-dir "$work/data" --expect "sha256:$(printf '0%.0s' $(seq 64))"

# An altered payload, an altered hash, a removed entry, a reordered pair.
journal_py sql "$work/data/journal.db" \
  "UPDATE entries SET payload = '{\"status\":500}' WHERE seq = 7" || fail "python could not edit"
run 1 verify --data-dir "$work/data"
expect_out "journal FAILED: entry #7: its recorded hash does not match its contents (a field or the hash was altered)"
fresh
journal_py sql "$work/data/journal.db" \
  "UPDATE entries SET hash = '$(printf 'b%.0s' $(seq 64))' WHERE seq = 4"
run 1 verify --data-dir "$work/data"
expect_prefix "journal FAILED: entry #4: "
fresh
journal_py sql "$work/data/journal.db" "DELETE FROM entries WHERE seq = 5"
run 1 verify --data-dir "$work/data"
expect_out "journal FAILED: entry #5: missing: the next entry is #6 (an entry was removed)"
fresh
journal_py sql "$work/data/journal.db" \
  "UPDATE entries SET seq = 100 WHERE seq = 8; UPDATE entries SET seq = 8 WHERE seq = 9; UPDATE entries SET seq = 9 WHERE seq = 100"
run 1 verify --data-dir "$work/data"
expect_prefix "journal FAILED: entry #8: "
fresh
journal_py sql "$work/data/journal.db" "UPDATE entries SET time_ms = 'soon' WHERE seq = 3"
run 1 verify --data-dir "$work/data"
expect_out "journal FAILED: entry #3: column time_ms is not an integer"

# A removed tail: valid alone, caught against the earlier digest.
fresh
journal_py sql "$work/data/journal.db" "DELETE FROM entries WHERE seq = $entries"
run 0 verify --data-dir "$work/data"
expect_out "journal OK: $((entries - 1)) entries, $(sed -n "$((entries - 1))p" "$work/hashes" | cut -d' ' -f2)"
run 1 verify --data-dir "$work/data" --expect "$head"
expect_prefix "journal FAILED: entry #$entries: missing: no entry has the expected hash $head"

# Files that are not journals: a clear failure, never a crash.
head -c 8192 /dev/urandom >"$work/data/journal.db"
rm -f "$work/data/journal.db-wal" "$work/data/journal.db-shm"
run 1 verify --data-dir "$work/data"
expect_prefix "journal FAILED: .*not an SQLite database"
run 1 digest --data-dir "$work/data"
rm -f "$work/data/journal.db"
journal_py sql "$work/data/journal.db" "CREATE TABLE t (x)"
run 1 verify --data-dir "$work/data"
expect_prefix "journal FAILED: .*not a journal"
: >"$work/data/journal.db"
run 1 verify --data-dir "$work/data"

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "journal_cli: all checks passed"
