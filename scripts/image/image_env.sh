# shellcheck shell=bash
# image.env and SHA256SUMS read as data (sourced by scripts/boot-image.sh and
# bench/boot.sh; docs/image.md, docs/decisions/0050-image-env-and-node-user.md).
#
# image.env lies outside the verified root, and the scripts that boot the
# image run as root on the host: executing it (`source`) would run whatever
# a line of it says before QEMU starts. So it is never executed: each line is
# read with `read -r` and must be KEY=VALUE with a key of the fixed set
# scripts/build-image.sh writes, its value matching that key's pattern, each
# key once; anything else is refused with the line's number. Nothing in it
# is expanded, evaluated or passed to a command.
#
# read_image_env FILE   sets ROOTHASH SALT DATA_BLOCKS HASH_START CMDLINE
#                       KERNEL_PACKAGE KERNEL_VERSION SOURCE_DATE_EPOCH
#                       SECUREBOOT_KEYS;
#                       returns 1 with a message on stderr when refused
# check_image_sums DIR  when DIR/SHA256SUMS exists, checks every file it
#                       lists (a fixed set of names) against its digest;
#                       returns 1 with a message on stderr on a mismatch

# The keys and the pattern each value must match (whole value). CMDLINE is
# written in single quotes; inside them only the characters a kernel command
# line of ours uses: letters, digits and . _ = / : , - and spaces.
declare -gA IMAGE_ENV_PATTERNS=(
  [ROOTHASH]='^[0-9a-f]{64}$'
  [SALT]='^[0-9a-f]{64}$'
  [DATA_BLOCKS]='^[1-9][0-9]{0,11}$'
  [HASH_START]='^[1-9][0-9]{0,11}$'
  [CMDLINE]="^'[A-Za-z0-9._=/:, -]{1,2048}'$"
  [KERNEL_PACKAGE]='^[a-z0-9][a-z0-9.+-]{0,127}$'
  [KERNEL_VERSION]='^[A-Za-z0-9][A-Za-z0-9.+~:-]{0,127}$'
  [SOURCE_DATE_EPOCH]='^[0-9]{1,12}$'
  [SECUREBOOT_KEYS]='^(dev-only|production)$'
)
# The keys a boot cannot do without.
readonly IMAGE_ENV_REQUIRED="ROOTHASH SALT DATA_BLOCKS HASH_START CMDLINE"
# What SHA256SUMS may name (scripts/build-image.sh writes these).
readonly IMAGE_SUM_FILES="disk.raw disk.qcow2 disk.vhd initrd vmlinux image.env uki.efi uki.signed.efi esp-full-chain.raw ovmf-vars-dev-only.fd secureboot-db.crt policy-full-chain.json grub.cfg esp-shim-chain.raw policy-shim-chain.json"

read_image_env() {
  local file=$1 line key value n=0
  local -A seen=()
  if [[ ! -f $file ]]; then
    echo "image.env: no file $file" >&2
    return 1
  fi
  while IFS= read -r line || [[ -n $line ]]; do
    n=$((n + 1))
    [[ -z $line ]] && continue
    if [[ ! $line =~ ^([A-Z_]+)=(.*)$ ]]; then
      echo "image.env: $file line $n is not KEY=VALUE; refused (nothing of it is run)" >&2
      return 1
    fi
    key=${BASH_REMATCH[1]} value=${BASH_REMATCH[2]}
    if [[ -z ${IMAGE_ENV_PATTERNS[$key]+set} ]]; then
      echo "image.env: $file line $n: unknown key $key (known: ${!IMAGE_ENV_PATTERNS[*]}); refused" >&2
      return 1
    fi
    if [[ -n ${seen[$key]+set} ]]; then
      echo "image.env: $file line $n: $key given twice (first on line ${seen[$key]}); refused" >&2
      return 1
    fi
    if [[ ! $value =~ ${IMAGE_ENV_PATTERNS[$key]} ]]; then
      echo "image.env: $file line $n: $key's value does not match ${IMAGE_ENV_PATTERNS[$key]}; refused" >&2
      return 1
    fi
    seen[$key]=$n
    [[ $key == CMDLINE ]] && value=${value:1:${#value}-2}
    # The key is one of the fixed set above: printf -v assigns, never evaluates.
    printf -v "$key" '%s' "$value"
  done <"$file"
  for key in $IMAGE_ENV_REQUIRED; do
    if [[ -z ${seen[$key]+set} ]]; then
      echo "image.env: $file has no $key; refused" >&2
      return 1
    fi
  done
  # The command line must name the root the file names.
  if [[ " $CMDLINE " != *" volent.roothash=$ROOTHASH "* || " $CMDLINE " != *" volent.salt=$SALT "* ]]; then
    echo "image.env: $file: CMDLINE does not carry ROOTHASH and SALT as volent.roothash and volent.salt; refused" >&2
    return 1
  fi
  return 0
}

check_image_sums() {
  local dir=$1 line n=0
  local -a names=()
  [[ -f $dir/SHA256SUMS ]] || return 0
  while IFS= read -r line || [[ -n $line ]]; do
    n=$((n + 1))
    if [[ ! $line =~ ^[0-9a-f]{64}\ \ ([a-z0-9.-]+)$ ]] || [[ " $IMAGE_SUM_FILES " != *" ${BASH_REMATCH[1]} "* ]]; then
      echo "image: $dir/SHA256SUMS line $n is not 'DIGEST  NAME' for one of: $IMAGE_SUM_FILES; refused" >&2
      return 1
    fi
    names+=("${BASH_REMATCH[1]}")
  done <"$dir/SHA256SUMS"
  if [[ " ${names[*]} " != *" image.env "* ]]; then
    echo "image: $dir/SHA256SUMS does not list image.env (an image from before it did: build it again); refused" >&2
    return 1
  fi
  if ! (cd "$dir" && sha256sum --check --quiet --strict SHA256SUMS >&2); then
    echo "image: a file of $dir differs from its digest in SHA256SUMS (above); refused" >&2
    return 1
  fi
  return 0
}
