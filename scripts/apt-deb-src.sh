#!/usr/bin/env bash
# Derives deb-src entries from this machine's own apt sources, so that
# `apt-get source PACKAGE` works for the distribution's archives.
#
# Usage: bash scripts/apt-deb-src.sh [--print]
#   (no flag)  write the entries to /etc/apt/sources.list.d/ampoule-deb-src.sources
#              (root only); exits 0 and prints "changed" on stdout if the file
#              was created or rewritten, "unchanged" otherwise. It does not run
#              `apt-get update`: the caller does that once.
#   --print    print the entries that would be written, change nothing.
#
# Which entries: every enabled `deb` entry (one-line format in
# /etc/apt/sources.list and sources.list.d/*.list, deb822 format in
# sources.list.d/*.sources) whose suite belongs to this release (the suite is
# the release codename from /etc/os-release, optionally followed by -updates,
# -security, ...). Third-party repositories rarely publish sources, and a
# missing Sources index would make `apt-get update` fail, so they are left out.
# No host names are written here: the URIs come from the machine.
set -euo pipefail

# APT_ETC exists for testing the parser against sample files.
readonly APT_ETC="${APT_ETC:-/etc/apt}"
readonly OUT="$APT_ETC/sources.list.d/ampoule-deb-src.sources"

codename() {
  # shellcheck disable=SC1091
  (. /etc/os-release && echo "${VERSION_CODENAME:-}")
}

# Prints the one-line and deb822 entries as a single deb822 stream on stdout.
derive() {
  local release="$1"
  local files=()
  [[ -f "$APT_ETC/sources.list" ]] && files+=("$APT_ETC/sources.list")
  local f
  for f in "$APT_ETC"/sources.list.d/*.list "$APT_ETC"/sources.list.d/*.sources; do
    [[ -f "$f" && "$f" != "$OUT" ]] && files+=("$f")
  done
  ((${#files[@]})) || return 0
  awk -v release="$release" '
    function ours(suite,   base) {
      base = suite; sub(/[-\/].*$/, "", base)
      return base == release
    }
    # Records one wanted deb-src entry; signed holds a Signed-By value
    # (possibly multi-line, continuation lines already indented). Printed at
    # the end, minus the suites that already have a deb-src entry.
    function want(uris, suites, comps, signed, trusted) {
      if (uris == "" || suites == "") return
      ++count
      w_uris[count] = uris; w_suites[count] = suites; w_comps[count] = comps
      w_signed[count] = signed; w_trusted[count] = trusted
    }
    function have_src(uris, suites,   n, u, m, s, i, j) {
      n = split(uris, u, /[ \t]+/); m = split(suites, s, /[ \t]+/)
      for (i = 1; i <= n; i++) for (j = 1; j <= m; j++) if (u[i] != "" && s[j] != "") existing[u[i] "|" s[j]] = 1
    }
    function flush822() {
      if (have && enabled != "no") {
        if (types ~ /(^|[ \t])deb([ \t]|$)/) want(uris, suites, comps, signed, trusted)
        if (types ~ /deb-src/) have_src(uris, suites)
      }
      have = 0; types = uris = suites = comps = signed = trusted = ""; enabled = ""; field = ""
    }
    function emit(k,   n, s, i, kept, key, uri1) {
      n = split(w_suites[k], s, /[ \t]+/); kept = ""
      uri1 = w_uris[k]; sub(/[ \t].*/, "", uri1)
      for (i = 1; i <= n; i++) {
        if (s[i] == "" || !ours(s[i]) || ((uri1 "|" s[i]) in existing)) continue
        key = w_uris[k] "|" s[i] "|" w_comps[k]
        if (key in seen) continue
        seen[key] = 1
        kept = kept (kept == "" ? "" : " ") s[i]
      }
      if (kept == "") return
      printf "Types: deb-src\nURIs: %s\nSuites: %s\n", w_uris[k], kept
      if (w_comps[k] != "") printf "Components: %s\n", w_comps[k]
      if (w_signed[k] != "") printf "Signed-By:%s\n", w_signed[k]
      if (w_trusted[k] != "") printf "Trusted: %s\n", w_trusted[k]
      printf "\n"
    }
    FNR == 1 { if (NR > 1 && is822) flush822(); is822 = (FILENAME ~ /\.sources$/); have = 0; field = "" }
    is822 {
      if ($0 ~ /^[ \t]*#/) next
      if ($0 ~ /^[ \t]*$/) { flush822(); next }
      if ($0 ~ /^[ \t]/) {            # continuation line
        if (field == "signed-by") signed = signed "\n" $0
        next
      }
      have = 1
      name = tolower($0); sub(/:.*/, "", name); field = name
      value = $0; sub(/^[^:]*:[ \t]*/, "", value)
      if (name == "types") types = value
      else if (name == "uris") uris = value
      else if (name == "suites") suites = value
      else if (name == "components") comps = value
      else if (name == "enabled") enabled = tolower(value)
      else if (name == "trusted") trusted = value
      else if (name == "signed-by") signed = (value == "" ? "" : " " value)
      next
    }
    {                                   # one-line format
      line = $0; sub(/#.*/, "", line)
      n = split(line, w, /[ \t]+/); i = 1
      if (w[1] == "") i = 2
      if (w[i] != "deb" && w[i] != "deb-src") next
      type = w[i++]; signed = ""; trusted = ""
      if (w[i] ~ /^\[/) {               # options: [a=b c=d]
        opts = ""
        while (i <= n) { opts = opts " " w[i]; if (w[i] ~ /\]$/) { i++; break } ; i++ }
        gsub(/[\[\]]/, "", opts)
        m = split(opts, o, /[ \t]+/)
        for (j = 1; j <= m; j++) {
          if (o[j] ~ /^signed-by=/) { signed = o[j]; sub(/^signed-by=/, " ", signed) }
          if (o[j] ~ /^trusted=/) { trusted = o[j]; sub(/^trusted=/, "", trusted) }
        }
      }
      uri = w[i++]; suite = w[i++]; comps = ""
      for (; i <= n; i++) if (w[i] != "") comps = comps (comps == "" ? "" : " ") w[i]
      if (type == "deb") want(uri, suite, comps, signed, trusted)
      else have_src(uri, suite)
    }
    END {
      if (is822) flush822()
      for (k = 1; k <= count; k++) emit(k)
    }
  ' "${files[@]}"
}

main() {
  local release
  release="$(codename)"
  if [[ -z "$release" ]]; then
    echo "apt-deb-src: /etc/os-release names no VERSION_CODENAME; cannot tell which apt sources belong to this release" >&2
    exit 1
  fi
  local entries
  entries="$(derive "$release")"
  if [[ -z "$entries" ]]; then
    echo "apt-deb-src: no enabled 'deb' entry for release '$release' in the apt sources; add one, then re-run" >&2
    exit 1
  fi
  local text
  text="# Source entries derived from this machine's apt sources by scripts/apt-deb-src.sh.
# Regenerated on every run; edit the original entries instead.

$entries"
  if [[ "${1:-}" == "--print" ]]; then
    printf '%s\n' "$text"
    return 0
  fi
  if [[ $EUID -ne 0 ]]; then
    echo "apt-deb-src: must run as root to write $OUT" >&2
    exit 1
  fi
  if [[ -f "$OUT" ]] && [[ "$(cat "$OUT")" == "$text" ]]; then
    echo unchanged
  else
    printf '%s\n' "$text" >"$OUT.tmp"
    mv "$OUT.tmp" "$OUT"
    echo changed
  fi
}

main "$@"
