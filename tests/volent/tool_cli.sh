#!/usr/bin/env bash
# `volent tool sign|add|list|show|remove` from the outside (docs/tools.md).
#
#   tests/volent/tool_cli.sh --volent PATH --ampoule PATH
#
# An author signs a module; the node's store takes it only with a signature
# by a trusted key that names the module's own SHA-256, and checks both
# again whenever it reads the store. Each attempt to get around that (a
# changed module, another module's signature, an untrusted author, a file
# changed inside the store, a module that is not WebAssembly) must fail with
# the documented exit code. `ampoule keygen` makes the keys.
#
# Prints "skipped: REASON" when it cannot run; exits non-zero on a failure.
set -u

volent="" ampoule=""
while [ $# -gt 0 ]; do
  case "$1" in
    --volent) volent="$2"; shift 2 ;;
    --ampoule) ampoule="$2"; shift 2 ;;
    *) echo "usage: $0 --volent PATH --ampoule PATH" >&2; exit 2 ;;
  esac
done
[ -n "$volent" ] && [ -n "$ampoule" ] || { echo "usage: $0 --volent PATH --ampoule PATH" >&2; exit 2; }
[ -x "$volent" ] || { echo "skipped: $volent is not an executable"; exit 0; }
[ -x "$ampoule" ] || { echo "skipped: $ampoule is not an executable"; exit 0; }

volent="$(realpath "$volent")" ampoule="$(realpath "$ampoule")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 2
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# expect CODE WHAT PATTERN -- ARGS...: runs `volent tool ARGS`, checks the exit
# code and that stdout+stderr match the extended regular expression PATTERN.
expect() {
  local code="$1" what="$2" pattern="$3"; shift 4
  local out status=0
  out="$("$volent" tool "$@" 2>&1)" || status=$?
  if [ "$status" -ne "$code" ]; then
    fail "$what: exit $status, wanted $code: $out"
  elif ! grep -Eq -- "$pattern" <<<"$out"; then
    fail "$what: output does not match /$pattern/: $out"
  else
    echo "ok: $what"
  fi
}

"$ampoule" keygen -o author.key >/dev/null 2>&1 || { echo "FAIL: ampoule keygen"; exit 1; }
"$ampoule" keygen -o stranger.key >/dev/null 2>&1 || { echo "FAIL: ampoule keygen"; exit 1; }
cat >volent.yaml <<YAML
apiVersion: volent/v1
kind: NodeConfig
data_dir: ./data
tool_keys:
  - name: release
    public_key: $(tail -n 1 author.key.pub | cut -d' ' -f2)
YAML
# A module with a type section: header, section 1 of 4 bytes, one type () -> ().
printf '\0asm\1\0\0\0\1\4\1\140\0\0' >tool.wasm
digest="$(sha256sum tool.wasm | cut -c1-64)"
cfg=(--config volent.yaml)

expect 0 "sign" "signed sha256:$digest \(wasm\)" -- sign tool.wasm --key author.key -o tool.sig
expect 2 "sign refuses to overwrite" "must not exist yet" -- sign tool.wasm --key author.key -o tool.sig
printf 'print("hi")\n' >tool.py
expect 1 "sign refuses a file that is not WebAssembly" "not a WebAssembly module" -- sign tool.py --key author.key --kind wasm
expect 1 "sign refuses a module signed as a program" "holds NUL bytes" -- sign tool.wasm --key author.key --kind python
expect 2 "sign needs a kind it can tell" "cannot tell the tool's kind" -- sign volent.yaml --key author.key
expect 1 "sign refuses a kind the node does not run" "not run by this node" -- sign tool.wasm --key author.key --kind ruby
expect 2 "add needs --config" "needs --config" -- add tool.wasm --sig tool.sig
expect 0 "list of an empty store" "no tools in" -- list "${cfg[@]}"

cp tool.wasm changed.wasm && printf '\0' >>changed.wasm
expect 1 "add refuses a changed module" "refused changed.wasm: the tool's SHA-256 is .* the signature is for $digest" \
  -- add changed.wasm --sig tool.sig "${cfg[@]}"
"$volent" tool sign changed.wasm --key stranger.key -o stranger.sig 2>/dev/null
expect 1 "add refuses an untrusted signer" "refused changed.wasm: signature:" -- add changed.wasm --sig stranger.sig "${cfg[@]}"
expect 1 "add refuses another module's signature" "the signature is for $digest" -- add changed.wasm --sig tool.sig "${cfg[@]}"
expect 1 "add refuses a receipt-shaped file that is not a signature" "signature:" -- add tool.wasm --sig tool.wasm "${cfg[@]}"
[ ! -e "data/tools/$(sha256sum changed.wasm | cut -c1-64)" ] || fail "a refused module was stored"

expect 0 "add" "added sha256:$digest \(wasm, 14 bytes, signed by release\)" -- add tool.wasm --sig tool.sig "${cfg[@]}"
expect 0 "add again" "added sha256:$digest" -- add tool.wasm --sig tool.sig "${cfg[@]}"
expect 0 "list" "sha256:$digest +wasm +14 bytes +tool.wasm +\(signed by release\)" -- list "${cfg[@]}"
expect 0 "list --json" "\"signer\": \"release\"" -- list --json "${cfg[@]}"
expect 0 "show" "\"digest\": \"sha256:$digest\"" -- show "sha256:$digest" "${cfg[@]}"
expect 2 "show needs a digest" "is not a tool digest" -- show nonsense "${cfg[@]}"

printf '\0' >>"data/tools/$digest/tool"
expect 1 "show refuses a module changed in the store" "the file was changed" -- show "sha256:$digest" "${cfg[@]}"
expect 0 "list marks it" "sha256:$digest  REFUSED:" -- list "${cfg[@]}"
expect 1 "add does not paper over a damaged entry" "remove it first" -- add tool.wasm --sig tool.sig "${cfg[@]}"
expect 0 "remove" "removed sha256:$digest" -- remove "sha256:$digest" "${cfg[@]}"
expect 1 "remove what is gone" "holds no tool" -- remove "sha256:$digest" "${cfg[@]}"
expect 0 "add after remove" "added sha256:$digest" -- add tool.wasm --sig tool.sig "${cfg[@]}"

# A FIFO planted in the store is refused at once, never waited on.
mv "data/tools/$digest/tool" stored.tool && mkfifo "data/tools/$digest/tool"
expect 0 "a FIFO in the store is refused without blocking" "sha256:$digest  REFUSED: .*FIFO" -- list "${cfg[@]}"
rm "data/tools/$digest/tool" && mv stored.tool "data/tools/$digest/tool"

# A node that trusts nobody takes no tool.
sed -i '/^tool_keys:/,$d' volent.yaml
expect 1 "no trusted keys" "trusts no tool key" -- add tool.wasm --sig tool.sig "${cfg[@]}" --data-dir other

if [ "$failures" -ne 0 ]; then
  echo "tool cli: $failures failed"
  exit 1
fi
echo "tool cli: all passed"
