#!/usr/bin/env bash
# The socket audit (scripts/audit-sockets.sh, docs/decisions/0020-socket-audit.md)
# shown to fail on planted calls and to pass on the real `volent` objects.
#
#   tests/volent/audit.sh --cxx COMPILER [--nm NM] [--build DIR] -- OBJECT... | @LIST
#
# OBJECTs (or the file @LIST names, one per line) are the objects the build
# audits after linking `volent` (BUILD/volent-audit-objects.txt, written by
# CMakeLists.txt); --build DIR is the build folder they came from (its
# libvolent_*.a and CMakeFiles are audited too). The planted fixtures
# (tests/audit/planted_*.cc) are compiled here into objects and judged as if
# they were sources at various places in src/:
#   - planted_socket (getaddrinfo, socket, connect) outside the gate: fails,
#     naming connect and getaddrinfo; inside src/volent/egress: passes; as the
#     HTTP servers' listener (src/core/http/server.cc): fails (an inbound
#     server may not connect);
#   - planted_listener (socket, bind, listen) outside the inbound list (the
#     control API's own server object included): fails, naming socket; as a
#     listed inbound server or in src/volent/egress: passes;
#   - planted_asio (Asio resolver and connect, -O0): fails, naming Asio's
#     socket_ops::connect and libc's connect and getaddrinfo;
#   - planted_dlsym: fails everywhere, src/volent/egress included;
#   - as a member of libvolent_agent.a: fails, named by its source path;
#   - the real objects, one by one, as a build folder and as libraries: pass;
#     the real objects with the planted object among them: fail, naming only it;
#   - a missing file and a file that is not an object: exit 2 (fails closed).
#
# Prints "skipped: REASON" when it cannot run; exits non-zero on a failure.
set -u

cxx="" nm="nm" build=""
while [ $# -gt 0 ]; do
  case "$1" in
    --cxx) cxx="$2"; shift 2 ;;
    --nm) nm="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    --) shift; break ;;
    *) echo "usage: $0 --cxx COMPILER [--nm NM] [--build DIR] -- OBJECT..." >&2; exit 2 ;;
  esac
done
[ -n "$cxx" ] && [ $# -gt 0 ] || { echo "usage: $0 --cxx COMPILER [--nm NM] [--build DIR] -- OBJECT..." >&2; exit 2; }
command -v "$nm" >/dev/null || { echo "skipped: $nm is not installed"; exit 0; }

here="$(cd "$(dirname "$0")/../.." && pwd)"
audit="$here/scripts/audit-sockets.sh"
fixtures="$here/tests/audit"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0 cases=0

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# expect NAME STATUS [--line TEXT]... [--has TEXT]... [--no TEXT]... -- AUDIT-ARGS...
# Runs the audit; checks its exit status, that each --line TEXT is a whole
# line of its output, each --has TEXT is somewhere in it and each --no TEXT
# is not.
expect() {
  local name="$1" want="$2"; shift 2
  local lines=() present=() absent=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do
    case "$1" in
      --line) lines+=("$2"); shift 2 ;;
      --has) present+=("$2"); shift 2 ;;
      --no) absent+=("$2"); shift 2 ;;
      *) echo "expect: bad argument $1" >&2; exit 2 ;;
    esac
  done
  shift
  cases=$((cases + 1))
  local out status
  out="$(bash "$audit" --nm "$nm" "$@" 2>&1)"
  status=$?
  if [ "$status" != "$want" ]; then
    fail "$name: exit $status, expected $want; output:"
    printf '%s\n' "$out" | sed 's/^/    /' | head -n 20
    return
  fi
  local text before=$failures
  for text in "${lines[@]+"${lines[@]}"}"; do
    grep -qxF -- "$text" <<<"$out" || fail "$name: no line '$text' in:$(printf '\n%s' "$out" | sed 's/^/    /')"
  done
  for text in "${present[@]+"${present[@]}"}"; do
    grep -qF -- "$text" <<<"$out" || fail "$name: '$text' not in:$(printf '\n%s' "$out" | sed 's/^/    /')"
  done
  for text in "${absent[@]+"${absent[@]}"}"; do
    grep -qF -- "$text" <<<"$out" && fail "$name: '$text' should not be in:$(printf '\n%s' "$out" | sed 's/^/    /')"
  done
  [ "$failures" -eq "$before" ] && echo "ok: $name (exit $status)"
}

# The fixtures, compiled as the build would (C++20), never linked.
for f in socket listener dlsym; do
  "$cxx" -std=c++20 -O2 -c "$fixtures/planted_$f.cc" -o "$work/planted_$f.o" \
    || { echo "FAIL: could not compile tests/audit/planted_$f.cc"; exit 1; }
done
"$cxx" -std=c++20 -O0 -c "$fixtures/planted_asio.cc" -o "$work/planted_asio.o" \
  || { echo "FAIL: could not compile tests/audit/planted_asio.cc"; exit 1; }

tail=" (outbound network code belongs in src/volent/egress; see docs/egress.md)"
s="$work/planted_socket.o" l="$work/planted_listener.o"

expect "planted connect outside the gate" 1 \
  --line "audit-sockets: $s (as src/volent/agent/planted_socket.cc) references connect, getaddrinfo, socket$tail" \
  -- --as src/volent/agent/planted_socket.cc "$s"
expect "planted connect inside src/volent/egress" 0 -- --as src/volent/egress/planted_socket.cc "$s"
expect "planted connect in a gate folder that is not src/volent/egress" 1 \
  --line "audit-sockets: $s (as src/volent/egressx/planted_socket.cc) references connect, getaddrinfo, socket$tail" \
  -- --as src/volent/egressx/planted_socket.cc "$s"
expect "planted connect via .. out of src/volent/egress" 1 --no "references socket," \
  --line "audit-sockets: $s (as src/volent/egress/../agent/planted_socket.cc) references connect, getaddrinfo, socket$tail" \
  -- --as src/volent/egress/../agent/planted_socket.cc "$s"
expect "planted connect in the HTTP servers' listener (inbound may not connect)" 1 \
  --line "audit-sockets: $s (as src/core/http/server.cc) references connect, getaddrinfo$tail" \
  -- --as src/core/http/server.cc "$s"

expect "planted socket outside the inbound list" 1 \
  --line "audit-sockets: $l (as src/volent/control/api.cc) references socket$tail" \
  -- --as src/volent/control/api.cc "$l"
expect "planted socket in src/volent/cli" 1 \
  --line "audit-sockets: $l (as src/volent/cli/main.cc) references socket$tail" \
  -- --as src/volent/cli/main.cc "$l"
expect "planted socket as the HTTP servers' listener" 0 -- --as src/core/http/server.cc "$l"
expect "planted socket as the control API's server (its sockets are the listener's)" 1 \
  --line "audit-sockets: $l (as src/volent/control/http_server.cc) references socket$tail" \
  -- --as src/volent/control/http_server.cc "$l"
expect "planted socket inside src/volent/egress" 0 -- --as src/volent/egress/planted_listener.cc "$l"

# Which Asio functions stay out of line depends on the compiler; at -O0 the
# connecting one does, and libc's calls are there whatever the level.
expect "planted Asio resolve and connect outside the gate" 1 \
  --has "audit-sockets: $work/planted_asio.o (as src/volent/model/planted_asio.cc) references boost::asio::detail::socket_ops::connect, " \
  --has ", connect, getaddrinfo, socket$tail" \
  -- --as src/volent/model/planted_asio.cc "$work/planted_asio.o"
expect "planted Asio resolve and connect inside src/volent/egress" 0 -- --as src/volent/egress/planted_asio.cc "$work/planted_asio.o"

expect "planted dlsym outside the gate" 1 \
  --line "audit-sockets: $work/planted_dlsym.o (as src/volent/agent/planted_dlsym.cc) references dlsym$tail" \
  -- --as src/volent/agent/planted_dlsym.cc "$work/planted_dlsym.o"
expect "planted dlsym inside src/volent/egress" 1 \
  --line "audit-sockets: $work/planted_dlsym.o (as src/volent/egress/planted_dlsym.cc) references dlsym$tail" \
  -- --as src/volent/egress/planted_dlsym.cc "$work/planted_dlsym.o"

# Object paths as CMake writes them: the source path follows CMakeFiles/T.dir/.
mkdir -p "$work/CMakeFiles/volent_agent.dir/src/volent/agent" "$work/CMakeFiles/volent_egress.dir/src/volent/egress"
cp "$s" "$work/CMakeFiles/volent_agent.dir/src/volent/agent/tool.cc.o"
cp "$s" "$work/CMakeFiles/volent_egress.dir/src/volent/egress/tool.cc.o"
expect "planted object named by a CMake object path" 1 \
  --line "audit-sockets: src/volent/agent/tool.cc references connect, getaddrinfo, socket$tail" \
  --no "src/volent/egress/tool.cc" \
  -- "$work/CMakeFiles/volent_agent.dir/./src/volent/agent/tool.cc.o" "$work/CMakeFiles/volent_egress.dir/./src/volent/egress/tool.cc.o"

# Libraries: a member of libvolent_PART.a comes from src/PART/.
cp "$s" "$work/tool.cc.o"
(cd "$work" && ar rcs libvolent_agent.a tool.cc.o && ar rcs libvolent_egress.a tool.cc.o)
expect "planted member of libvolent_agent.a" 1 \
  --line "audit-sockets: src/volent/agent/tool.cc references connect, getaddrinfo, socket$tail" \
  -- "$work/libvolent_agent.a"
expect "planted member of libvolent_egress.a" 0 -- "$work/libvolent_egress.a"

# The real objects of `volent`.
expect "the volent objects" 0 -- "$@"
expect "the volent objects with one planted among them" 1 \
  --line "audit-sockets: $s (as src/volent/journal/planted_socket.cc) references connect, getaddrinfo, socket$tail" \
  --no "$work/planted_listener.o" \
  -- "$@" --as src/volent/journal/planted_socket.cc "$s" --as src/core/http/server.cc "$l"
if [ -n "$build" ]; then
  expect "the build folder" 0 -- "$build"
  libs=()
  for lib in "$build"/libvolent_*.a; do [ -f "$lib" ] && libs+=("$lib"); done
  if [ ${#libs[@]} -gt 0 ]; then
    expect "the volent libraries" 0 -- "${libs[@]}"
  fi
fi

# Fails closed.
printf 'not an object\n' >"$work/notes.o"
expect "a missing object" 2 -- "$work/missing.o"
expect "a file that is not an object" 2 -- "$work/notes.o"

echo "audit: $cases cases, $failures failed"
[ "$failures" -eq 0 ]
