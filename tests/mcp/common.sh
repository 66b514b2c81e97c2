# Shared by the whole-command MCP tests (tests/mcp/*.sh): argument parsing,
# the prerequisites, and `skipped: REASON` (exit 0) when one is missing.
#
#   mcp_start NAME "$@"   parses `--ampoule BIN [--verify BIN] [--kernel K]`;
#                         needs node, the npm folder's node_modules ($NPM_DIR,
#                         set by the caller), an ampoule with the mcp command
#                         and a kernel. Exports AMPOULE, AMPOULE_VERIFY,
#                         AMPOULE_KERNEL (absolute paths) for the node tests.

set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
AMPOULE="" AMPOULE_VERIFY="" KERNEL="${AMPOULE_KERNEL:-}"

skip() { echo "skipped: $*"; exit 0; }
abspath() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }

mcp_start() {
  local name="$1"; shift
  local usage="usage: $name --ampoule BIN [--verify BIN] [--kernel K]"
  while (($#)); do
    case "$1" in
      --ampoule) AMPOULE="${2:-}"; shift 2 || break ;;
      --verify) AMPOULE_VERIFY="${2:-}"; shift 2 || break ;;
      --kernel) KERNEL="${2:-}"; shift 2 || break ;;
      *) echo "$usage" >&2; exit 2 ;;
    esac
  done
  [[ -n "$AMPOULE" ]] || { echo "$usage" >&2; exit 2; }
  command -v node >/dev/null || skip "node not found (Node.js >= 20; see docs/quickstart.md)"
  [[ -d "$NPM_DIR/node_modules" && -f "$NPM_DIR/node_modules/.ampoule-lock" ]] ||
    skip "node_modules missing: run scripts/npm-install.sh"
  [[ -x "$AMPOULE" ]] || skip "ampoule binary '$AMPOULE' not found"
  "$AMPOULE" mcp --help >/dev/null 2>&1 || skip "this ampoule has no mcp command"
  if [[ -z "$KERNEL" ]]; then KERNEL="$("$AMPOULE" kernel path 2>/dev/null || true)"; fi
  [[ -f "$KERNEL" ]] || skip "no kernel file; build one with scripts/build-kernel.sh or set AMPOULE_KERNEL"
  AMPOULE="$(abspath "$AMPOULE")"
  export AMPOULE AMPOULE_KERNEL="$(abspath "$KERNEL")"
  if [[ -n "$AMPOULE_VERIFY" ]]; then
    [[ -x "$AMPOULE_VERIFY" ]] || skip "ampoule-verify binary '$AMPOULE_VERIFY' not found"
    export AMPOULE_VERIFY="$(abspath "$AMPOULE_VERIFY")"
  fi
}
