#!/usr/bin/env bash
# image.env is data, never run (scripts/image/image_env.sh, docs/image.md).
#
#   tests/image/image_env_test.sh
#
# scripts/boot-image.sh runs as root on the host and reads image.env, a file
# outside the verified root. Each case writes an image folder whose
# image.env tries to run a command (a command substitution, backticks, a
# second command after a value), sets a key the image never writes, or
# carries a malformed root hash, or whose SHA256SUMS no longer matches;
# boot-image.sh must refuse each with exit status 2 and a message naming
# the line, run nothing of the file (the marker file the injection would
# make stays absent) and never start QEMU (a fake qemu-system-x86_64 first
# on PATH records being started). A well-formed image.env is the control:
# there the fake QEMU is started. No real boot.
set -u

here="$(cd "$(dirname "$0")" && pwd)"
boot="$here/../../scripts/boot-image.sh"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0 passed=0

mkdir -p "$work/bin"
cat >"$work/bin/qemu-system-x86_64" <<FAKE
#!/usr/bin/env bash
echo started >"$work/qemu-started"
exit 0
FAKE
chmod +x "$work/bin/qemu-system-x86_64"
export PATH="$work/bin:$PATH"

H=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
S=fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210
good_env() {
  cat <<ENV
ROOTHASH=$H
SALT=$S
DATA_BLOCKS=4242
HASH_START=4242
CMDLINE='console=ttyS0 panic=-1 volent.roothash=$H volent.salt=$S volent.data_blocks=4242 volent.hash_start=4242 volent.ip=10.0.2.15/24'
KERNEL_PACKAGE=linux-image-6.1.0-57-amd64
KERNEL_VERSION=6.1.192-3
SOURCE_DATE_EPOCH=1700000000
ENV
}

# make_image NAME: an image folder with stand-in files; image.env from stdin.
make_image() {
  local dir="$work/$1"
  mkdir -p "$dir"
  for f in disk.raw initrd vmlinux data.img; do echo "$f" >"$dir/$f"; done
  cat >"$dir/image.env"
  echo "$dir"
}

# expect_refused LABEL DIR PATTERN: boot-image.sh exits 2, says PATTERN, ran nothing.
expect_refused() {
  local label=$1 dir=$2 pattern=$3 rc
  rm -f "$work/qemu-started" "$work/pwned"
  bash "$boot" --image "$dir" --data "$dir/data.img" --test heartbeat --accel tcg >"$work/out" 2>&1
  rc=$?
  if [[ $rc -eq 2 && ! -e $work/pwned && ! -e $work/qemu-started ]] && grep -Eq "$pattern" "$work/out"; then
    echo "ok: $label: refused ($(grep -E -m1 "$pattern" "$work/out"))"
    passed=$((passed + 1))
  else
    echo "FAIL: $label: exit $rc, pwned=$([[ -e $work/pwned ]] && echo yes || echo no)," \
      "qemu started=$([[ -e $work/qemu-started ]] && echo yes || echo no), wanted /$pattern/; output:"
    sed 's/^/  | /' "$work/out"
    failures=$((failures + 1))
  fi
}

# The control: a well-formed image.env boots (the fake QEMU starts).
dir=$(good_env | make_image good)
rm -f "$work/qemu-started"
if bash "$boot" --image "$dir" --data "$dir/data.img" --test heartbeat --accel tcg >"$work/out" 2>&1 &&
  [[ -e $work/qemu-started ]]; then
  echo "ok: a well-formed image.env: QEMU started"
  passed=$((passed + 1))
else
  echo "FAIL: a well-formed image.env did not reach QEMU:"; sed 's/^/  | /' "$work/out"
  failures=$((failures + 1))
fi

dir=$({ good_env; echo "\$(touch $work/pwned)"; } | make_image substitution-line)
expect_refused "a line that is a command substitution" "$dir" "line 9 is not KEY=VALUE"

dir=$(good_env | sed "s|^KERNEL_VERSION=.*|KERNEL_VERSION=\$(touch $work/pwned)|" | make_image substitution-value)
expect_refused "a command substitution as a value" "$dir" "line 7: KERNEL_VERSION's value"

dir=$(good_env | sed "s|^CMDLINE='|CMDLINE='\$(touch $work/pwned) |" | make_image substitution-cmdline)
expect_refused "a command substitution inside CMDLINE's quotes" "$dir" "line 5: CMDLINE's value"

dir=$(good_env | sed "s|^DATA_BLOCKS=.*|DATA_BLOCKS=\`touch $work/pwned\`|" | make_image backticks)
expect_refused "backticks" "$dir" "line 3: DATA_BLOCKS's value"

dir=$(good_env | sed "s|^SALT=.*|SALT=$S; touch $work/pwned|" | make_image second-command)
expect_refused "a second command after a value" "$dir" "line 2: SALT's value"

dir=$(good_env | sed "s|^CMDLINE='\(.*\)'$|CMDLINE='\1'; touch $work/pwned|" | make_image after-quote)
expect_refused "a command after CMDLINE's closing quote" "$dir" "line 5: CMDLINE's value"

dir=$({ good_env; echo "LD_PRELOAD=$work/evil.so"; } | make_image unknown-key)
expect_refused "an unknown key" "$dir" "line 9: unknown key LD_PRELOAD"

dir=$({ good_env; echo "PATH=$work"; } | make_image path-key)
expect_refused "PATH as a key" "$dir" "line 9: unknown key PATH"

dir=$(good_env | sed "s|^ROOTHASH=.*|ROOTHASH=${H:0:63}g|" | make_image bad-roothash)
expect_refused "a root hash that is not 64 hex digits" "$dir" "line 1: ROOTHASH's value"

dir=$(good_env | sed "s|^ROOTHASH=.*|ROOTHASH=${H^^}|" | make_image upper-roothash)
expect_refused "an upper-case root hash" "$dir" "line 1: ROOTHASH's value"

dir=$({ good_env; echo "ROOTHASH=$S"; } | make_image duplicate)
expect_refused "a key given twice" "$dir" "line 9: ROOTHASH given twice"

dir=$(good_env | sed "s|volent.roothash=$H|volent.roothash=$S|" | make_image other-root)
expect_refused "a CMDLINE naming another root than ROOTHASH" "$dir" "CMDLINE does not carry ROOTHASH"

dir=$(good_env | grep -v '^SALT=' | make_image missing)
expect_refused "a missing SALT" "$dir" "has no SALT"

dir=$(good_env | sed 's/^ROOTHASH/export ROOTHASH/' | make_image export)
expect_refused "an export statement" "$dir" "line 1 is not KEY=VALUE"

# SHA256SUMS: an image.env changed after the build no longer matches.
dir=$(good_env | make_image sums)
(cd "$dir" && sha256sum disk.raw initrd vmlinux image.env >SHA256SUMS)
sed -i 's/volent.ip=10.0.2.15\/24/volent.ip=10.0.2.16\/24/' "$dir/image.env"
expect_refused "an image.env that differs from SHA256SUMS" "$dir" "differs from its digest"

dir=$(good_env | make_image sums-unlisted)
(cd "$dir" && sha256sum disk.raw initrd vmlinux >SHA256SUMS)
expect_refused "a SHA256SUMS that does not list image.env" "$dir" "does not list image.env"

dir=$(good_env | make_image sums-other-file)
(cd "$dir" && sha256sum image.env >SHA256SUMS && echo "$H  /etc/shadow" >>SHA256SUMS)
expect_refused "a SHA256SUMS naming another file" "$dir" "SHA256SUMS line 2"

dir=$(good_env | make_image sums-ok)
(cd "$dir" && sha256sum disk.raw initrd vmlinux image.env >SHA256SUMS)
rm -f "$work/qemu-started"
if bash "$boot" --image "$dir" --data "$dir/data.img" --test heartbeat --accel tcg >"$work/out" 2>&1 &&
  [[ -e $work/qemu-started ]]; then
  echo "ok: a matching SHA256SUMS: QEMU started"
  passed=$((passed + 1))
else
  echo "FAIL: a matching SHA256SUMS did not reach QEMU:"; sed 's/^/  | /' "$work/out"
  failures=$((failures + 1))
fi

echo "$passed passed, $failures failed"
((failures == 0))
