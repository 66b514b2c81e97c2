#!/usr/bin/env bash
# The OpenAPI document of `volent node` checked by an independent OpenAPI 3.1
# validator: @seriousme/openapi-schema-validator (tests/volent/openapi/,
# installed by scripts/npm-install.sh), which checks the document against the
# OpenAPI Initiative's JSON Schema for its version and that every $ref
# resolves (references to other documents, such as the manifest schema, are
# fetched from the node).
#
#   tests/volent/openapi.sh --volent BIN [--config volent.yaml]
#
# Starts `volent node` on a free loopback port with a temporary data folder
# (configuration: tests/volent/fixtures/volent.yaml unless given), fetches
# /openapi.json and prints the validator's verdict. Exit 1 when the document
# is not a valid OpenAPI 3.1 document; `skipped: REASON` (exit 0) without
# node, node_modules, curl or the binary.
set -uo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
NPM_DIR="$HERE/openapi"
VOLENT="" CONFIG="$HERE/fixtures/volent.yaml"
usage() { echo "usage: $0 --volent BIN [--config volent.yaml]" >&2; exit 2; }
while (($#)); do
  case "$1" in
    --volent) VOLENT="${2:-}"; shift 2 || break ;;
    --config) CONFIG="${2:-}"; shift 2 || break ;;
    *) usage ;;
  esac
done
[[ -n "$VOLENT" ]] || usage
skip() { echo "skipped: $*"; exit 0; }
command -v node >/dev/null || skip "node not found (Node.js >= 20)"
command -v curl >/dev/null || skip "curl not found"
[[ -d "$NPM_DIR/node_modules" && -f "$NPM_DIR/node_modules/.ampoule-lock" ]] ||
  skip "node_modules missing: run scripts/npm-install.sh"
[[ -x "$VOLENT" ]] || skip "volent binary '$VOLENT' not found"
"$VOLENT" node --help >/dev/null 2>&1 || skip "this volent has no node command"

WORK="$(mktemp -d /tmp/volent-openapi-XXXXXX)"
NODE_PID=""
cleanup() {
  [[ -n "$NODE_PID" ]] && kill "$NODE_PID" 2>/dev/null && wait "$NODE_PID" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT

"$VOLENT" node --config "$CONFIG" --listen 127.0.0.1:0 --data-dir "$WORK/data" 2>"$WORK/stderr" </dev/null &
NODE_PID=$!
URL=""
for _ in $(seq 1 300); do
  URL="$(sed -n 's|^volent node: listening on \(http://[^ ]*:[0-9]*\)$|\1|p' "$WORK/stderr" | head -n 1)"
  [[ -n "$URL" ]] && break
  kill -0 "$NODE_PID" 2>/dev/null || break
  sleep 0.1
done
if [[ -z "$URL" ]]; then
  echo "FAIL: the node did not report 'volent node: listening on http://HOST:PORT'"
  sed 's/^/  stderr: /' "$WORK/stderr" | head -20
  exit 1
fi

rc=0
if ! curl -sS --fail -o "$WORK/openapi.json" "$URL/openapi.json"; then
  echo "FAIL: GET $URL/openapi.json"
  exit 1
fi
echo "document: $(wc -c <"$WORK/openapi.json") bytes from $URL/openapi.json"
if (cd "$NPM_DIR" && node validate.mjs "$WORK/openapi.json" --version 3.1 --base "$URL/openapi.json"); then
  echo "ok: the OpenAPI document is valid OpenAPI 3.1 (@seriousme/openapi-schema-validator)"
else
  echo "FAIL: the OpenAPI document is not valid OpenAPI 3.1 (@seriousme/openapi-schema-validator)"
  rc=1
fi

kill -TERM "$NODE_PID"
status=""
for _ in $(seq 1 300); do
  kill -0 "$NODE_PID" 2>/dev/null || { wait "$NODE_PID"; status=$?; break; }
  sleep 0.1
done
NODE_PID=""
if [[ "$status" == 0 ]]; then echo "ok: SIGTERM ends the node with status 0"
else echo "FAIL: SIGTERM: exit status ${status:-none within 30 s}"; rc=1; fi
exit "$rc"
