#!/usr/bin/env bash
# `volent egress test` from the outside (docs/cli.md, docs/egress.md): one
# request through the real gate against a local HTTP server, allowed only
# through an explicit cidr entry; loopback by name, octal hosts, other
# capabilities and methods denied; a closed port allowed but not answered;
# redirects followed, refused (a forbidden address, another capability's
# port) and stopped at the configured or given limit.
#
#   tests/volent/egress_cli.sh --volent PATH
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

work="$(mktemp -d)"
server_pid=""
trap '[ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$work"' EXIT
failures=0
passed=0

# A local server answering 200 to anything, and 302 under /redirect/; it
# prints its port and a port nothing listens on (tests/volent/egress_target.py).
python3 "$(dirname "$0")/egress_target.py" >"$work/port" &
server_pid=$!
for _ in $(seq 50); do [ -s "$work/port" ] && break; sleep 0.1; done
read -r port closed <"$work/port"
[ -n "$port" ] || { echo "FAIL: the local server did not start"; exit 1; }

cat >"$work/volent.yaml" <<YAML
apiVersion: volent/v1
kind: NodeConfig
egress:
  max_redirects: 3
  allow:
    - capability: local.api
      scheme: http
      cidr: 127.0.0.1/32
      port: $port
      methods: [GET]
    - capability: local.closed
      scheme: http
      cidr: 127.0.0.1/32
      port: $closed
    - capability: any.host
      scheme: http
      host: "*"
      port: $port
    - capability: by.name
      scheme: http
      host: localhost
      port: $port
    - capability: follows
      scheme: http
      cidr: 127.0.0.1/32
      port: $port
    - capability: follows
      scheme: http
      host: "*"
YAML
nl=$'\n'

# expect EXIT STDOUT_PREFIX ARGS...
expect() {
  local want_rc="$1" want_out="$2"; shift 2
  local out rc
  out="$("$volent" egress test --config "$work/volent.yaml" "$@" 2>"$work/stderr")"
  rc=$?
  if [ "$rc" = "$want_rc" ] && [[ "$out" == "$want_out"* ]]; then
    passed=$((passed + 1))
    echo "ok: $* -> $out"
  else
    failures=$((failures + 1))
    echo "FAIL: $* -> exit $rc, '$out' (stderr: $(head -c 300 "$work/stderr")); wanted exit $want_rc, '$want_out...'"
  fi
}

expect 0 "allow: 127.0.0.1:$port (HTTP 200)" --capability local.api "http://127.0.0.1:$port/status"
expect 1 "deny: " --capability local.api --method POST "http://127.0.0.1:$port/status"
expect 1 "deny: " --capability other "http://127.0.0.1:$port/"
# Loopback is forbidden to host entries, even "*": only a cidr entry opens it.
expect 1 "deny: " --capability any.host "http://127.0.0.1:$port/"
expect 1 "deny: " --capability by.name "http://localhost:$port/"
expect 1 "deny: " --capability local.api "http://0177.0.0.1:$port/"
expect 1 "deny: " --capability local.api "http://2130706433:$port/"
expect 1 "deny: " --capability local.api "http://user@127.0.0.1:$port/"
expect 1 "deny: " --capability local.api "file:///etc/passwd"
expect 3 "allow, but not answered: " --capability local.closed "http://127.0.0.1:$closed/"

# Redirects: each hop judged like a new request, listed before the decision.
expect 0 "redirect: http://127.0.0.1:$port/status${nl}allow: 127.0.0.1:$port (HTTP 200)" \
  --capability follows "http://127.0.0.1:$port/redirect/ok"
expect 0 "allow: 127.0.0.1:$port (HTTP 302)" --capability follows --max-redirects 0 "http://127.0.0.1:$port/redirect/ok"
# To the metadata address: "*" matches, the address rule refuses.
expect 1 "redirect: http://169.254.169.254/latest/meta-data/${nl}deny: redirect 1 " \
  --capability follows "http://127.0.0.1:$port/redirect/metadata"
# To a port no entry of the capability names (local.closed's): refused by the allowlist.
expect 1 "redirect: http://127.0.0.1:$closed/${nl}deny: redirect 1 " \
  --capability follows "http://127.0.0.1:$port/redirect/closed"
# The limit: egress.max_redirects (3), or --max-redirects.
expect 3 "redirect: http://127.0.0.1:$port/redirect/loop${nl}redirect: http://127.0.0.1:$port/redirect/loop${nl}redirect: http://127.0.0.1:$port/redirect/loop${nl}allow, but not answered: stopped after 3 redirects" \
  --capability follows "http://127.0.0.1:$port/redirect/loop"
expect 3 "redirect: http://127.0.0.1:$port/redirect/loop${nl}allow, but not answered: stopped after 1 redirect " \
  --capability follows --max-redirects 1 "http://127.0.0.1:$port/redirect/loop"

# Usage errors and a configuration that does not load: exit 2.
for args in "" "test" "test --config $work/volent.yaml http://x/" "frob" "test --config $work/volent.yaml --capability a --bogus x http://x/" \
    "test --config $work/volent.yaml --capability a --max-redirects 21 http://x/" \
    "test --config $work/volent.yaml --capability a --max-redirects -1 http://x/"; do
  # shellcheck disable=SC2086
  "$volent" egress $args >/dev/null 2>&1
  rc=$?
  if [ "$rc" = 2 ]; then passed=$((passed + 1)); else failures=$((failures + 1)); echo "FAIL: 'volent egress $args': exit $rc, wanted 2"; fi
done
printf 'apiVersion: volent/v1\nkind: NodeConfig\nbogus: 1\n' >"$work/bad.yaml"
"$volent" egress test --config "$work/bad.yaml" --capability a "http://127.0.0.1/" >/dev/null 2>"$work/stderr"
rc=$?
if [ "$rc" = 2 ] && grep -q "bogus" "$work/stderr"; then passed=$((passed + 1)); else failures=$((failures + 1)); echo "FAIL: invalid configuration: exit $rc"; fi
printf 'apiVersion: volent/v1\nkind: NodeConfig\negress:\n  dns_server: "0.0.0.0:53"\n' >"$work/bad-dns.yaml"
"$volent" egress test --config "$work/bad-dns.yaml" --capability a "http://127.0.0.1/" >/dev/null 2>"$work/stderr"
rc=$?
if [ "$rc" = 2 ] && grep -q "dns_server" "$work/stderr"; then passed=$((passed + 1)); else failures=$((failures + 1)); echo "FAIL: a DNS server that is not a destination: exit $rc ($(cat "$work/stderr"))"; fi

echo "egress_cli: $passed passed, $failures failed"
[ "$failures" = 0 ]
