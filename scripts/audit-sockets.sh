#!/usr/bin/env bash
# The socket audit (docs/egress.md, docs/decisions/0020-socket-audit.md): outbound
# network code lives in the egress gate (src/volent/egress) and nowhere else, and the
# build proves it from the object files rather than trusting the sources.
#
#   scripts/audit-sockets.sh [--nm NM] [--quiet] [[--as SOURCE] INPUT | @LIST]...
#
# INPUT is an object file, a static library, or a build folder (then every
# object under its CMakeFiles/volent.dir and CMakeFiles/volent_*.dir: the
# objects of the `volent` command; Ampoule's objects have their own sandbox
# rules and are not audited here). @LIST is a file naming INPUTs one per line
# (the build writes BUILD/volent-audit-objects.txt).
#
# Each object is judged as the source file it was compiled from, read from its
# path: CMake puts the object of src/volent/agent/loop.cc at
# CMakeFiles/volent_agent.dir/./src/volent/agent/loop.cc.o; any other object path is
# read as it is, less ".o" (src/volent/egress/x.cc.o is src/volent/egress/x.cc). A member of
# a library libvolent_PART.a is taken to come from src/volent/PART/ (the
# repository's layout: one volent_PART library per src/volent/PART folder); a member of any other
# library is outside the gate. A path with a ".." segment is outside the gate.
# `--as SOURCE` judges the next INPUT as SOURCE instead (for a library: as
# members of the folder SOURCE/); the tests use it to place one planted
# object inside and outside the gate.
#
# The rule, on every symbol of an object's symbol table (nm), undefined or
# defined:
#   outbound  connect; every name-resolution call (getaddrinfo, getaddrinfo_a,
#             gethostbyname*, gethostbyaddr*, getnameinfo, res_*query,
#             res_*search, res_*send, and c-ares's queries and lookups:
#             ares_query, ares_search, ares_send, ares_getaddrinfo,
#             ares_gethostby*, ares_getnameinfo, ares_process*); OpenSSL's
#             own connecting and resolving BIOs and HTTP client; libcurl's
#             transfers; and Boost.Asio's socket_ops::connect/getaddrinfo/
#             getnameinfo family (Asio is header-only: an object that
#             instantiates them carries a copy, or, in Asio's
#             separate-compilation mode, refers to one).
#             Allowed only in src/volent/egress.
#   socket    socket (and Asio's socket_ops::socket, OpenSSL's BIO_socket and
#             accepting BIO). Allowed in src/volent/egress and in the inbound servers
#             listed in ALLOWED below, each with its reason; they listen and
#             accept, and may not connect or resolve (outbound still applies).
#   hidden    dlopen, dlmopen, dlsym, dlvsym: code loaded or looked up by name
#             at run time (dlsym(RTLD_NEXT, "connect")) is invisible here.
#             Allowed nowhere.
# Not checked, on purpose: bind, listen, accept (inbound only), sendto and
# sendmsg (they need a socket, which `socket` already answers for; the
# control API's Asio code writes its responses with sendmsg), and syscall(2)
# (libstdc++'s C++20 std::atomic::wait, std::latch and std::counting_semaphore
# call syscall(SYS_futex) from inline header code, so every object using them
# would be flagged; raw system calls are a review matter).
#
# Output: nothing (or, without --quiet, one summary line) and exit 0 when the
# rule holds; otherwise one line per offending object on stderr,
#   audit-sockets: OBJECT references SYMBOL[, SYMBOL...] (outbound network code belongs in src/volent/egress; see docs/egress.md)
# and exit 1. Exit 2 when an input cannot be read (a missing file, nm failing,
# a slim LTO object whose calls nm cannot see, no objects at all): the audit
# fails closed. NM (or --nm) names the nm to use (default nm).
set -uo pipefail

# The objects allowed more than the default. PATH is a source file, or a
# folder ending in "/"; WHAT is a comma-separated list of outbound, socket.
readonly ALLOWED='
src/volent/egress/                 outbound,socket  the egress gate: it resolves, judges and connects (docs/egress.md)
src/core/http/server.cc            socket           the HTTP connection skeleton of the control API and the mock model (docs/decisions/0029-http-server-skeleton.md): socket, bind, listen, accept; it never connects
src/volent/init/network.cc         socket           the sealed image PID 1 setting the interface addresses and the route (SIOCSIFADDR, SIOCADDRT need a socket to ioctl on); it never connects, sends or listens
'

readonly OUTBOUND='connect getaddrinfo getaddrinfo_a gethostbyname gethostbyname_r gethostbyname2
gethostbyname2_r gethostbyaddr gethostbyaddr_r getnameinfo res_query res_search res_querydomain
res_send res_nquery res_nsearch res_nquerydomain res_nsend __res_query __res_search
__res_querydomain __res_send __res_nquery __res_nsearch __res_nquerydomain __res_nsend
BIO_new_connect BIO_s_connect BIO_connect BIO_lookup BIO_lookup_ex BIO_get_host_ip
BIO_gethostbyname OSSL_HTTP_open OSSL_HTTP_transfer OSSL_HTTP_get OSSL_HTTP_proxy_connect
OCSP_sendreq_new OCSP_sendreq_bio curl_easy_perform curl_multi_perform
ares_query ares_search ares_send ares_getaddrinfo ares_gethostbyname ares_gethostbyaddr
ares_getnameinfo ares_process ares_process_fd'
readonly SOCKET='socket BIO_socket BIO_new_accept BIO_s_accept'
readonly HIDDEN='dlopen dlmopen dlsym dlvsym'
# Asio's inline functions, demangled, without their parameters.
readonly ASIO_OUTBOUND='connect sync_connect non_blocking_connect getaddrinfo background_getaddrinfo
getnameinfo sync_getnameinfo background_getnameinfo gethostbyname gethostbyaddr'
readonly ASIO_SOCKET='socket'

usage() {
  echo "usage: $0 [--nm NM] [--quiet] [[--as SOURCE] OBJECT|LIBRARY.a|BUILD_DIR | @LIST]..." >&2
  exit 2
}

(($#)) || usage
NM="${NM:-nm}"
quiet=0
files=() labels=()
as=""
while (($#)); do
  case "$1" in
    --nm) (($# >= 2)) || usage; NM="$2"; shift 2 ;;
    --quiet) quiet=1; shift ;;
    --as) (($# >= 2)) || usage; as="$2"; shift 2 ;;
    -h|--help) usage ;;
    -*) usage ;;
    @*)  # a list of inputs, one per line (the build writes one: a short command line)
      [[ -z "$as" ]] || usage
      [[ -f "${1#@}" ]] || { echo "audit-sockets: ${1#@}: no such list" >&2; exit 2; }
      while IFS= read -r f; do [[ -n "$f" ]] && files+=("$f") && labels+=(""); done <"${1#@}"
      shift ;;
    *)
      if [[ -d "$1" ]]; then
        [[ -z "$as" ]] || { echo "audit-sockets: --as applies to a file, not the folder $1" >&2; exit 2; }
        mapfile -t found < <(find "$1/CMakeFiles" -type f -name '*.o' \
          \( -path '*/CMakeFiles/volent.dir/*' -o -path '*/CMakeFiles/volent_*.dir/*' \) 2>/dev/null | sort)
        ((${#found[@]})) || { echo "audit-sockets: no volent objects under $1/CMakeFiles" >&2; exit 2; }
        for f in "${found[@]}"; do files+=("$f"); labels+=(""); done
      else
        files+=("$1"); labels+=("$as")
      fi
      as=""
      shift ;;
  esac
done
[[ -z "$as" ]] || usage
((${#files[@]})) || { echo "audit-sockets: no objects to audit" >&2; exit 2; }
command -v "$NM" >/dev/null || { echo "audit-sockets: $NM not found (it comes with binutils)" >&2; exit 2; }
command -v c++filt >/dev/null || { echo "audit-sockets: c++filt not found (it comes with binutils)" >&2; exit 2; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Pass 1: every symbol that could matter, as "LABEL<TAB>SHOWN<TAB>SYMBOL".
# LABEL is the source path the rule judges; SHOWN is what the report names.
# Only exact names from the lists and Asio's socket_ops functions are kept,
# so the demangler below sees a few lines, not every symbol of the build.
# One nm for every input: starting a process per object costs more than
# reading them all.
for i in "${!files[@]}"; do  # no "--" (llvm-nm 14 refuses it): a name cannot look like an option
  [[ "${files[$i]}" != -* ]] || files[$i]="./${files[$i]}"
done
for i in "${!files[@]}"; do
  [[ -f "${files[$i]}" ]] || { echo "audit-sockets: ${files[$i]}: no such file" >&2; exit 2; }
  printf '%s\t%s\n' "${files[$i]}" "${labels[$i]}"
done >"$work/inputs"
if ! "$NM" -P -A "${files[@]}" >"$work/nm" 2>"$work/nm.err"; then
  echo "audit-sockets: $NM could not read every input: $(grep -v ': no symbols$' "$work/nm.err" | head -n 3)" >&2
  exit 2
fi
awk -v names="$OUTBOUND $SOCKET $HIDDEN" -v inputs="$work/inputs" -v count="$work/count" '
  BEGIN {
    n = split(names, list, /[ \n]+/)
    for (i = 1; i <= n; i++) if (list[i] != "") wanted[list[i]] = 1
    while ((getline row < inputs) > 0) {
      tab = index(row, "\t")
      file = substr(row, 1, tab - 1); as_of[file] = substr(row, tab + 1)
      if (file !~ /\.a$/) objects++
    }
  }
  # "PREFIX: NAME TYPE [VALUE SIZE]"; PREFIX is FILE or ARCHIVE[MEMBER].
  {
    line = $0; cut = 0
    while ((p = index(substr(line, cut + 1), ": ")) > 0) cut += p + 1
    if (cut == 0) next
    prefix = substr(line, 1, cut - 2)
    split(substr(line, cut + 1), field, " ")
    sym = field[1]
    if (prefix in as_of) { file = prefix; member = "" }
    else if (prefix ~ /\]$/) {
      p = 0
      while ((q = index(substr(prefix, p + 1), "[")) > 0) p += q
      file = substr(prefix, 1, p - 1); member = substr(prefix, p + 1, length(prefix) - p - 1)
      if (!(prefix in members)) { members[prefix] = 1; objects++ }
    } else next
    if (sym == "__gnu_lto_slim") {
      print "audit-sockets: " prefix " is a slim LTO object: its calls are not in its symbol table (build without -flto, or with -ffat-lto-objects)" > "/dev/stderr"
      lto = 1; exit
    }
    if (!(sym in wanted) && index(sym, "10socket_ops") == 0) next
    as = as_of[file]
    if (member != "") {
      base = file; sub(/.*\//, "", base)
      src = member; sub(/\.(o|obj)$/, "", src)
      if (as != "") { dir = as; sub(/\/$/, "", dir); label = dir "/" src }
      else if (base ~ /^libvolent_.+\.a$/) { part = base; sub(/^libvolent_/, "", part); sub(/\.a$/, "", part); label = "src/volent/" part "/" src }
      else label = base "(" member ")"
      shown = as != "" ? prefix " (as " label ")" : label
    } else if (as != "") {
      label = as; shown = file " (as " as ")"
    } else {
      label = file; shown = file
      if ((p = index(label, ".dir/")) > 0) {  # CMakeFiles/T.dir/./src/PART/NAME.cc.o
        while ((q = index(substr(label, p + 5), ".dir/")) > 0) p += q + 4
        label = substr(label, p + 5)
      }
      sub(/\.(o|obj)$/, "", label)
      while (sub(/\/\.\//, "/", label)) {}
      while (sub(/^\.\//, "", label)) {}
      if (p > 0) shown = label
    }
    while (sub(/\/\.\//, "/", label)) {}
    while (sub(/^\.\//, "", label)) {}
    print label "\t" shown "\t" sym
  }
  END {
    if (lto) exit 3
    print objects + 0 > count
  }
' "$work/nm" >"$work/hits"
case $? in
  0) ;;
  3) exit 2 ;;
  *) echo "audit-sockets: could not read the symbols nm listed" >&2; exit 2 ;;
esac
objects="$(cat "$work/count")"

# Pass 2: demangle, classify, judge against ALLOWED, one line per object.
c++filt <"$work/hits" | awk -F '\t' -v allowed="$ALLOWED" -v outbound="$OUTBOUND" -v socket="$SOCKET" \
    -v hidden="$HIDDEN" -v asio_outbound="$ASIO_OUTBOUND" -v asio_socket="$ASIO_SOCKET" -v quiet="$quiet" \
    -v total="$objects" '
  function add(names, kind,    n, i, list) {
    n = split(names, list, /[ \n]+/)
    for (i = 1; i <= n; i++) if (list[i] != "") kind_of[list[i]] = kind
  }
  function add_asio(names, kind,    n, i, list) {
    n = split(names, list, /[ \n]+/)
    for (i = 1; i <= n; i++) if (list[i] != "") kind_of["boost::asio::detail::socket_ops::" list[i]] = kind
  }
  # Is LABEL allowed symbols of KIND? A folder entry ends in "/".
  function allows(label, kind,    i) {
    if (label ~ /(^|\/)\.\.(\/|$)/) return 0  # src/volent/egress/../agent is not in the gate
    for (i = 1; i <= entries; i++) {
      if (index("," what[i] ",", "," kind ",") == 0) continue
      if (path[i] ~ /\/$/ ? index(label, path[i]) == 1 : label == path[i]) return 1
    }
    return 0
  }
  BEGIN {
    add(outbound, "outbound"); add(socket, "socket"); add(hidden, "hidden")
    add_asio(asio_outbound, "outbound"); add_asio(asio_socket, "socket")
    n = split(allowed, rows, "\n")
    for (i = 1; i <= n; i++) {
      if (split(rows[i], cell, " ") < 2) continue
      entries++; path[entries] = cell[1]; what[entries] = cell[2]
    }
  }
  {
    label = $1; shown = $2; sym = $3
    sub(/\(.*$/, "", sym)      # a demangled function: its name without parameters
    sub(/ \[clone .*$/, "", sym)
    if (!(sym in kind_of)) next
    if (allows(label, kind_of[sym])) next
    if (!(shown in seen)) { seen[shown] = 1; order[++objects] = shown }
    key = shown SUBSEP sym
    if (!(key in listed)) { listed[key] = 1; count[shown]++; sym_of[shown, count[shown]] = sym }
  }
  END {
    for (i = 1; i <= objects; i++) {
      shown = order[i]; n = count[shown]
      for (j = 2; j <= n; j++)  # sorted: the line must not depend on the order nm lists
        for (k = j; k > 1 && sym_of[shown, k - 1] > sym_of[shown, k]; k--) {
          t = sym_of[shown, k]; sym_of[shown, k] = sym_of[shown, k - 1]; sym_of[shown, k - 1] = t
        }
      list = sym_of[shown, 1]
      for (j = 2; j <= n; j++) list = list ", " sym_of[shown, j]
      printf "audit-sockets: %s references %s (outbound network code belongs in src/volent/egress; see docs/egress.md)\n",
             shown, list > "/dev/stderr"
    }
    if (objects > 0) exit 1
    if (!quiet) printf "audit-sockets: %d objects; no outbound network code outside src/volent/egress\n", total
  }
'
