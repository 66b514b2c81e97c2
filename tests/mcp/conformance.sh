#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance,
# pinned to 0.1.13 in tests/mcp/interop/package-lock.json) against
# `ampoule mcp --http 127.0.0.1:0`: one run per server scenario that applies
# to a tools-only server, a line per scenario and a summary
# (`conformance: N passed, M failed`). Exits 1 if any applicable scenario
# has a failing check (WARNING and INFO checks are printed, not failures).
#
#   tests/mcp/conformance.sh --ampoule BIN [--kernel K] [--all]
#
#   --all   also runs the scenarios that do not apply, for information; their
#           results are printed but not counted
#
# Prints `skipped: REASON` and exits 0 without node, node_modules
# (scripts/npm-install.sh), the mcp command or a kernel.
#
# Scenarios that do not apply to a tools-only server (`ampoule mcp` offers
# tools only: no resources, prompts, completions, logging, sampling,
# elicitation or progress), with the reason:
#   logging-set-level              needs the logging capability (logging/setLevel)
#   completion-complete            needs the completions capability and the suite's
#                                  prompt test_prompt_with_arguments
#   tools-call-simple-text         calls the suite's fixture tool test_simple_text
#   tools-call-image               calls the fixture tool test_image_content
#   tools-call-audio               calls the fixture tool test_audio_content
#   tools-call-embedded-resource   calls the fixture tool test_embedded_resource
#   tools-call-mixed-content       calls the fixture tool test_multiple_content_types
#   tools-call-with-logging        calls the fixture tool test_tool_with_logging (log notifications)
#   tools-call-error               calls the fixture tool test_error_handling
#   tools-call-with-progress       calls the fixture tool test_tool_with_progress (progress notifications)
#   tools-call-sampling            calls the fixture tool test_sampling (server-to-client sampling)
#   tools-call-elicitation         calls the fixture tool test_elicitation (server-to-client elicitation)
#   elicitation-sep1034-defaults   calls the fixture tool test_elicitation_sep1034_defaults
#   elicitation-sep1330-enums      calls the fixture tool test_elicitation_sep1330_enums
#   json-schema-2020-12            looks for the fixture tool json_schema_2020_12_tool
#   server-sse-polling             calls the fixture tool test_reconnection (SSE stream resumption)
#   resources-list, resources-read-text, resources-read-binary, resources-templates-read,
#   resources-subscribe, resources-unsubscribe
#                                  need the resources capability and the suite's fixture resources
#   prompts-list, prompts-get-simple, prompts-get-with-args, prompts-get-embedded-resource,
#   prompts-get-with-image         need the prompts capability and the suite's fixture prompts
# What those fixture tools check (isError results, text content, JSON Schema
# keywords kept in inputSchema) is covered for ampoule's own tools by
# tests/mcp/interop/ and the session unit tests.
NPM_DIR="$(cd "$(dirname "$0")" && pwd)/interop"
. "$(dirname "$0")/common.sh"

ALL=0
args=()
for a in "$@"; do
  if [[ "$a" == --all ]]; then ALL=1; else args+=("$a"); fi
done
mcp_start conformance.sh "${args[@]}"

readonly PINNED=0.1.13
readonly APPLICABLE=(server-initialize ping tools-list server-sse-multiple-streams dns-rebinding-protection)
readonly NOT_APPLICABLE=(
  logging-set-level completion-complete tools-call-simple-text tools-call-image tools-call-audio
  tools-call-embedded-resource tools-call-mixed-content tools-call-with-logging tools-call-error
  tools-call-with-progress tools-call-sampling tools-call-elicitation elicitation-sep1034-defaults
  elicitation-sep1330-enums json-schema-2020-12 server-sse-polling resources-list resources-read-text
  resources-read-binary resources-templates-read resources-subscribe resources-unsubscribe prompts-list
  prompts-get-simple prompts-get-with-args prompts-get-embedded-resource prompts-get-with-image
)

CONFORMANCE="$NPM_DIR/node_modules/.bin/conformance"
version="$(node -p "require('$NPM_DIR/node_modules/@modelcontextprotocol/conformance/package.json').version" 2>/dev/null)"
[[ "$version" == "$PINNED" ]] || skip "@modelcontextprotocol/conformance is '$version', not $PINNED: run scripts/npm-install.sh"

WORK="$(mktemp -d /tmp/ampoule-mcp-conformance-XXXXXX)"
SERVER_PID=""
cleanup() {
  [[ -n "$SERVER_PID" ]] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT

"$AMPOULE" keygen -o "$WORK/agent.key" >/dev/null || { echo "conformance: ampoule keygen failed"; exit 1; }
"$AMPOULE" mcp --key "$WORK/agent.key" --kernel "$AMPOULE_KERNEL" --http 127.0.0.1:0 2>"$WORK/server.err" &
SERVER_PID=$!
URL=""
for _ in $(seq 1 300); do
  URL="$(sed -n 's|^ampoule mcp: listening on \(http://127\.0\.0\.1:[0-9]*/mcp\)$|\1|p' "$WORK/server.err" | head -n 1)"
  [[ -n "$URL" ]] && break
  kill -0 "$SERVER_PID" 2>/dev/null || break
  sleep 0.1
done
if [[ -z "$URL" ]]; then
  echo "conformance: ampoule mcp --http did not start:"
  sed 's/^/  /' "$WORK/server.err" | head -20
  exit 1
fi
echo "conformance: @modelcontextprotocol/conformance $version against $URL"

# summarize DIR: prints `STATUS successes failures warnings infos` and,
# indented, each check that did not simply succeed, from the checks.json files under DIR.
summarize() {
  node - "$1" <<'JS'
const fs = require('fs'), path = require('path');
const files = [];
(function walk(d) {
  for (const e of fs.readdirSync(d, { withFileTypes: true })) {
    const p = path.join(d, e.name);
    if (e.isDirectory()) walk(p); else if (e.name === 'checks.json') files.push(p);
  }
})(process.argv[2]);
let ok = 0, bad = 0, warn = 0, info = 0; const lines = [];
for (const f of files) {
  for (const c of JSON.parse(fs.readFileSync(f, 'utf8'))) {
    if (c.status === 'SUCCESS') ok++;
    else if (c.status === 'WARNING') { warn++; lines.push(`  warning: ${c.id}: ${c.errorMessage ?? c.details?.message ?? ''}`); }
    // INFO: an optional behaviour the server chose not to use (for example
    // JSON responses instead of SSE streams); neither a pass nor a failure.
    else if (c.status === 'INFO') { info++; lines.push(`  info: ${c.id}: ${c.description ?? ''}`); }
    else { bad++; lines.push(`  failed: ${c.id}: ${c.errorMessage ?? c.status}`); }
  }
}
const status = files.length === 0 ? 'NO-RESULTS' : bad > 0 ? 'FAIL' : 'PASS';
console.log(`${status} ${ok} ${bad} ${warn} ${info}`);
for (const l of lines) console.log(l);
JS
}

passed=0 failed=0
run_scenario() {
  local scenario="$1" counted="$2" out="$WORK/results/$1"
  mkdir -p "$out"
  # --timeout is the suite's own per-scenario limit; ctest's TIMEOUT is the outer one.
  "$CONFORMANCE" server --url "$URL" --scenario "$scenario" -o "$out" >"$out/stdout.txt" 2>&1
  local rc=$? summary status ok bad warn info
  summary="$(summarize "$out")"
  read -r status ok bad warn info <<<"$(head -n 1 <<<"$summary")"
  if [[ "$status" == NO-RESULTS ]]; then
    status=FAIL
    summary="$summary"$'\n'"$(sed 's/^/  | /' "$out/stdout.txt" | tail -15)"
  fi
  local label="$scenario"
  ((counted)) || label="$scenario (not applicable, not counted)"
  printf '%s: %s (checks: %s passed, %s failed, %s warnings, %s informational; exit %s)\n' \
    "$label" "$status" "$ok" "$bad" "$warn" "$info" "$rc"
  tail -n +2 <<<"$summary"
  if ((counted)); then
    if [[ "$status" == PASS ]]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
  fi
}

for s in "${APPLICABLE[@]}"; do run_scenario "$s" 1; done
if ((ALL)); then
  for s in "${NOT_APPLICABLE[@]}"; do run_scenario "$s" 0; done
else
  echo "not applicable to a tools-only server (see the comment in $0; --all runs them): ${NOT_APPLICABLE[*]}"
fi
kill -0 "$SERVER_PID" 2>/dev/null || { echo "conformance: the server died during the run"; failed=$((failed + 1)); }
echo "conformance: $passed passed, $failed failed"
((failed == 0))
