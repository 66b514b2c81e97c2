#!/usr/bin/env bash
# Installs everything the build, the tests, the conformance runs, fuzzing and
# the benchmarks need, on Debian 12 (bookworm). Run as root. Idempotent: a
# second run checks what is installed and returns in about a second.
#
# It also enables source packages (`apt-get source`, used by bench/engine.sh
# and the guest-runtime builds) by deriving deb-src entries from the
# machine's own apt sources (scripts/apt-deb-src.sh). `apt-get update` runs at
# most once, and only when something is missing.
set -euo pipefail

cd "$(dirname "$0")/.."

readonly PACKAGES=(
  # build
  build-essential cmake ninja-build g++ pkg-config
  # clang: wasm32-wasi guests, libFuzzer/ASan runtimes, llvm tools
  clang-14 lld-14 llvm-14 libclang-rt-14-dev libclang-rt-14-dev-wasm32 wasi-libc
  # libraries
  libsodium-dev libseccomp-dev libsqlite3-dev nlohmann-json3-dev libboost-dev libgtest-dev libgmock-dev googletest
  # the gate's idempotency keys: Unicode NFC and character categories
  libutf8proc-dev
  # the node's manifests: YAML with positions, JSON Schema draft-07, and the
  # draft-07 test suite the validator is checked against
  libyaml-cpp-dev libvalijson-dev json-schema-test-suite
  # the egress gate's TLS (verified against the system trust store)
  libssl-dev ca-certificates
  # the egress gate's DNS client, when the node names its DNS server (c-ares)
  libc-ares-dev
  # the node's TPM (tpm2-tss: ESYS, MU, the TCTI loader); its tests run a
  # software TPM (swtpm) and check quotes with tpm2-tools' tpm2_checkquote
  libtss2-dev swtpm swtpm-tools tpm2-tools
  # the sealed image (scripts/build-image.sh, scripts/boot-image.sh): its
  # squashfs root, dm-verity tree, disk formats, /data disk and QEMU's microvm
  qemu-system-x86 squashfs-tools cryptsetup-bin qemu-utils e2fsprogs
  # its UEFI profiles: OVMF (Secure Boot firmware, its variable stores),
  # systemd-boot's stub for the UKI, sbsigntool to sign it, the FAT ESP
  ovmf systemd-boot-efi sbsigntool dosfstools mtools
  # the compiler cache scripts/test.sh builds through (keyed by inputs)
  ccache
  # bench/api.sh: the load generator and the reference server
  wrk nginx-light
  # conformance (wast2json, wat2wasm), benchmarks (node:wasi), scripts;
  # python3-nacl is the independent receipt checker in the tests
  wabt nodejs python3 python3-nacl
  # guest runtimes (scripts/build-runtimes.sh): autoreconf for CPython, wasm-opt
  autoconf autoconf-archive binaryen
  # apt-get source and unpacking source packages; tclsh generates the SQLite
  # amalgamation for bench/engine.sh
  dpkg-dev bzip2 xz-utils tcl
  # the operator guide's examples, run as written (tests/volent/doc_examples_test.py)
  curl jq
)

log() { printf 'setup: %s\n' "$*"; }

if [[ $EUID -ne 0 ]]; then
  echo "setup: run as root (for example: sudo bash scripts/setup.sh)" >&2
  exit 2
fi
if ! command -v apt-get >/dev/null; then
  echo "setup: apt-get not found; this script supports Debian 12 (bookworm) only" >&2
  exit 2
fi
release="$(. /etc/os-release && echo "${VERSION_CODENAME:-unknown}")"
if [[ "$release" != bookworm ]]; then
  log "warning: written for Debian 12 (bookworm), this machine is '$release'; continuing"
fi

export DEBIAN_FRONTEND=noninteractive

missing=()
for p in "${PACKAGES[@]}"; do
  # dpkg -s succeeds for removed-but-configured packages too; check the status.
  # (No `dpkg -s | grep -q` here: under pipefail, grep leaving at its match can
  # make dpkg die of SIGPIPE and the package look missing.)
  if [[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" != "install ok installed" ]]; then
    missing+=("$p")
  fi
done

need_update=0
# Source entries are needed by the benchmarks and the guest-runtime builds,
# not by the build or the tests: failing to derive them is only a warning.
if ! src_state="$(bash scripts/apt-deb-src.sh)"; then
  log "warning: no deb-src entries could be derived; 'apt-get source' (bench/engine.sh) will not work"
  src_state=failed
fi
if [[ "$src_state" == changed ]]; then
  log "source entries written to /etc/apt/sources.list.d/ampoule-deb-src.sources"
  need_update=1
fi
if [[ "$src_state" != failed ]] && ! compgen -G '/var/lib/apt/lists/*_Sources*' >/dev/null; then
  need_update=1
fi
((${#missing[@]})) && need_update=1

if ((need_update)); then
  log "apt-get update"
  apt-get update -q
fi
if ((${#missing[@]})); then
  log "installing: ${missing[*]}"
  # Packages with a daemon (nginx, for the benchmark's reference server) must
  # not start it: the benchmark runs its own instance on a loopback port. A
  # policy-rc.d that refuses every start is the Debian way to say so; one the
  # machine already has is left alone.
  policy=/usr/sbin/policy-rc.d
  if [[ ! -e $policy ]]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 755 "$policy"
    trap 'rm -f "$policy"' EXIT
  fi
  apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  log "all ${#PACKAGES[@]} packages already installed"
fi

# Debian installs the versioned llvm tools only; scripts call them by their
# versioned names (clang-14, wasm-ld-14, llvm-ar-14), so nothing else is needed.
for tool in clang-14 clang++-14 wasm-ld-14 wat2wasm wast2json node cmake ninja; do
  command -v "$tool" >/dev/null || { echo "setup: '$tool' is still missing after install" >&2; exit 1; }
done

# JavaScript dependencies of the agent adapters and the MCP tests, from their
# lock files (instant when already installed). Exit 2 means Node.js >= 20 or
# npm is missing (Debian 12's own nodejs is 18): those tests then print
# `skipped:`; any other failure (a failed download) stops the setup.
rc=0
bash scripts/npm-install.sh || rc=$?
if ((rc == 2)); then
  log "warning: JavaScript dependencies not installed; the MCP interop and adapter tests will be skipped"
elif ((rc != 0)); then
  exit "$rc"
fi
log "done"
