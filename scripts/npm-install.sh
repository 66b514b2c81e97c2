#!/usr/bin/env bash
# Installs the JavaScript dependencies of the npm folders (the agent adapters,
# the MCP interoperability and conformance tests, and the OpenAPI validator
# of the node's tests) from their committed package-lock.json files with
# `npm ci`. Idempotent: each folder records the SHA-256 of the lock file it was
# installed from (node_modules/.ampoule-lock), and a folder whose record
# matches is left alone, so a second run returns at once. Needs Node.js >= 20
# and npm; the tests that use these folders print `skipped: node_modules
# missing: run scripts/npm-install.sh` until this ran.
#
#   scripts/npm-install.sh [--force]    --force reinstalls every folder
#
# Each folder carries an .npmrc with omit-lockfile-registry-resolved=true,
# so the lock files name packages and versions (with integrity hashes) but no
# download addresses; npm takes them from its configured registry.
set -euo pipefail

cd "$(dirname "$0")/.."

readonly FOLDERS=(adapters tests/mcp/interop tests/volent/openapi)

log() { printf 'npm-install: %s\n' "$*"; }

force=0
case "${1:-}" in
  "") ;;
  --force) force=1 ;;
  *) echo "usage: $0 [--force]" >&2; exit 2 ;;
esac

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "npm-install: node and npm are needed (Node.js >= 20 with npm); install them, then run this again" >&2
  exit 2
fi
major="$(node -p 'process.versions.node.split(".")[0]')"
if ((major < 20)); then
  echo "npm-install: Node.js $(node --version) is too old; the SDKs need Node.js >= 20" >&2
  exit 2
fi

for dir in "${FOLDERS[@]}"; do
  lock="$dir/package-lock.json"
  if [[ ! -f "$lock" ]]; then
    echo "npm-install: $lock is missing" >&2
    exit 1
  fi
  # The Node.js major version is part of the key: native parts of a package
  # may differ between majors.
  want="$(sha256sum "$lock" | cut -d' ' -f1) node$major"
  stamp="$dir/node_modules/.ampoule-lock"
  if ((!force)) && [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
    log "$dir: up to date"
    continue
  fi
  log "$dir: npm ci"
  # --ignore-scripts: nothing the folders use needs an install script, and
  # none then runs with root rights.
  (cd "$dir" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error)
  printf '%s\n' "$want" >"$stamp"
done
log "done"
