# The UEFI boot profiles' artifacts, for scripts/build-image.sh (sourced;
# docs/image.md, "The UEFI profiles"). Needs SOURCE_DATE_EPOCH, LC_ALL=C and
# the helpers log and die of the sourcing script.
#
# full-chain: a unified kernel image (systemd-boot's stub, Debian's kernel,
# the initramfs, the command line with the root hash, an os-release) signed
# with the image's own Secure Boot keys, on a FAT ESP; and an OVMF variable
# store with those keys enrolled (PK, KEK, db), so that the firmware boots
# that UKI and nothing else.
# shellcheck shell=bash

readonly UEFI_STUB=/usr/lib/systemd/boot/efi/linuxx64.efi.stub
readonly OVMF_CODE=/usr/share/OVMF/OVMF_CODE_4M.secboot.fd
readonly OVMF_VARS_BLANK=/usr/share/OVMF/OVMF_VARS_4M.fd
readonly OVMF_VARS_MICROSOFT=/usr/share/OVMF/OVMF_VARS_4M.ms.fd
# The ESP's volume id: fixed, as everything else of the image (mkfs.fat
# --invariant fixes the rest); "VOLT".
readonly ESP_VOLUME_ID=564f4c54

uefi_tools_check() {
  local tool
  for tool in objcopy sbsign sbverify openssl mkfs.vfat mmd mcopy; do
    command -v "$tool" >/dev/null ||
      die 2 "'$tool' not found; run 'sudo bash scripts/setup.sh' (binutils, sbsigntool, openssl, dosfstools, mtools)"
  done
  for f in "$UEFI_STUB" "$OVMF_CODE" "$OVMF_VARS_BLANK" "$OVMF_VARS_MICROSOFT"; do
    [[ -f $f ]] || die 2 "missing $f; run 'sudo bash scripts/setup.sh' (systemd-boot-efi, ovmf)"
  done
}

# uefi_dev_keys DIR: the image's development Secure Boot keys (PK, KEK, db:
# RSA 2048, self-signed, ten years), made once and kept in DIR, which says
# "dev-only" in its PROVENANCE file and in every certificate's name. Anyone
# who has DIR can sign what such a firmware boots: they are for development
# and CI, never for a machine that matters (docs/image.md).
uefi_dev_keys() {
  local dir=$1 name
  if [[ -f $dir/PROVENANCE ]]; then
    [[ $(cat "$dir/PROVENANCE") == dev-only ]] || die 2 "$dir/PROVENANCE says '$(cat "$dir/PROVENANCE")'; only dev-only keys are made or used here"
    for name in PK KEK db; do
      [[ -f $dir/$name.key && -f $dir/$name.crt ]] || die 2 "$dir lacks $name.key or $name.crt; remove the folder to make new keys"
    done
    return
  fi
  log "making dev-only Secure Boot keys in $dir"
  mkdir -p "$dir.tmp"
  chmod 0700 "$dir.tmp"
  for name in PK KEK db; do
    openssl req -new -x509 -newkey rsa:2048 -nodes -sha256 -days 3650 -subj "/O=Volent dev-only/CN=Volent dev-only $name" \
      -keyout "$dir.tmp/$name.key" -out "$dir.tmp/$name.crt" 2>/dev/null || die 1 "openssl could not make the $name key"
  done
  echo dev-only >"$dir.tmp/PROVENANCE"
  sync "$dir.tmp"/*
  mv "$dir.tmp" "$dir"
  sync "$(dirname "$dir")"
}

# uefi_esp OUT SIZE_MIB PATH=FILE...: a FAT ESP holding each FILE at PATH,
# reproducible (fixed volume id and times: mkfs.fat --invariant, and
# mtools takes SOURCE_DATE_EPOCH for what it writes).
uefi_esp() {
  local out=$1 size=$2 pair path file dir stage
  shift 2
  stage="$(mktemp -d)"
  rm -f "$out.tmp"
  mkfs.vfat --invariant -i "$ESP_VOLUME_ID" -n VOLENT-ESP -C "$out.tmp" $((size * 1024)) >/dev/null
  for pair in "$@"; do
    path=${pair%%=*} file=${pair#*=}
    dir=""
    local part
    IFS=/ read -ra parts <<<"${path%/*}"
    for part in "${parts[@]}"; do
      dir+="/$part"
      mmd -D s -i "$out.tmp" "::$dir" 2>/dev/null || true
    done
    cp "$file" "$stage/f"
    touch -d "@$SOURCE_DATE_EPOCH" "$stage/f"
    mcopy -m -i "$out.tmp" "$stage/f" "::/$path"
  done
  rm -rf "$stage"
  mv "$out.tmp" "$out"
}

# uefi_full_chain OUT KDIR CMDLINE KEYS: the full-chain artifacts in OUT:
#   uki.efi             the unsigned UKI (reproducible: the repro phase
#                       compares it)
#   uki.signed.efi      the same, signed with KEYS/db (the signature carries
#                       a signing time, so only the unsigned bytes and the
#                       Authenticode digest are reproducible)
#   esp-full-chain.raw  the ESP: EFI/BOOT/BOOTX64.EFI is uki.signed.efi
#   ovmf-vars-dev-only.fd  OVMF's 4M variables with KEYS enrolled
#   secureboot-db.crt   the db certificate (an auditor's PCR 7 needs it)
uefi_full_chain() {
  local out=$1 kdir=$2 cmdline=$3 keys=$4
  local work
  work="$(mktemp -d)"
  {
    echo 'NAME="Volent sealed image"'
    echo 'ID=volent'
    echo 'IMAGE_ID=volent-dev-only'
    echo "IMAGE_VERSION=$(git -C "$ROOT" rev-parse HEAD 2>/dev/null || echo unknown)"
    echo 'VARIANT="dev-only Secure Boot keys"'
    echo 'VARIANT_ID=dev-only'
  } >"$work/os-release"
  # The stub hands .cmdline to the kernel as it is, without a final newline.
  printf '%s' "$cmdline" >"$work/cmdline"
  python3 "$ROOT/scripts/image/uki.py" build "$UEFI_STUB" "$out/uki.efi" ".osrel=$work/os-release" \
    ".cmdline=$work/cmdline" ".linux=$kdir/vmlinuz" ".initrd=$out/initrd" || die 1 "the UKI could not be made"
  sbsign --key "$keys/db.key" --cert "$keys/db.crt" --output "$out/uki.signed.efi" "$out/uki.efi" >"$work/sbsign.log" 2>&1 ||
    die 1 "sbsign failed: $(cat "$work/sbsign.log")"
  sbverify --cert "$keys/db.crt" "$out/uki.signed.efi" >/dev/null 2>&1 || die 1 "the signed UKI does not verify against $keys/db.crt"
  uefi_esp "$out/esp-full-chain.raw" 64 "EFI/BOOT/BOOTX64.EFI=$out/uki.signed.efi"
  python3 "$ROOT/scripts/image/efi_vars.py" enroll "$OVMF_VARS_BLANK" "$out/ovmf-vars-dev-only.fd" \
    --pk "$keys/PK.crt" --kek "$keys/KEK.crt" --db "$keys/db.crt" --epoch "$SOURCE_DATE_EPOCH" ||
    die 1 "the Secure Boot keys could not be enrolled in the OVMF variables"
  openssl x509 -in "$keys/db.crt" -out "$out/secureboot-db.crt"
  rm -rf "$work"
}

# uefi_machine_args VARS_COPY: QEMU's machine and firmware arguments, one a
# line: q35 with SMM (OVMF's Secure Boot build keeps its variables there),
# the firmware's code read-only and VARS_COPY, which the firmware writes,
# as its variable store; no default devices. boot_uefi uses them, and the
# tests that try ESPs the firmware must refuse.
uefi_machine_args() {
  printf '%s\n' -M q35,smm=on -nodefaults -display none -serial stdio -no-reboot \
    -global driver=cfi.pflash01,property=secure,value=on \
    -drive "if=pflash,format=raw,unit=0,readonly=on,file=$OVMF_CODE" \
    -drive "if=pflash,format=raw,unit=1,file=$1"
}

# boot_uefi ESP VARS TPM_DIR ROOT_DISK DATA_DISK ACCEL MEMORY TIMEOUT API_PORT
# (ROOT_DISK "-": the firmware, the ESP and the TPM only):
# q35 with OVMF's Secure Boot build (SMM, the variables in a second flash
# chip: a copy of VARS, so every boot starts from the same keys and boot
# options), the ESP on the AHCI bus (snapshot=on: the firmware may write,
# the file stays as built) (the kernel has no AHCI driver: the
# guest's virtio disks stay vda, the root, and vdb, /data), a TPM 2.0
# (swtpm, its state in TPM_DIR) on the TIS interface. Prints the console;
# returns QEMU's status, 124 on the timeout.
boot_uefi() {
  local esp=$1 vars=$2 tpm=$3 disk=$4 data=$5 accel=$6 memory=$7 timeout_s=$8 api_port=$9
  local run rc=0 swtpm_pid
  for f in "$esp" "$vars"; do [[ -f $f ]] || die 2 "no $f (scripts/build-image.sh makes it)"; done
  command -v swtpm >/dev/null && command -v swtpm_setup >/dev/null ||
    die 2 "swtpm not found; run 'sudo bash scripts/setup.sh' (swtpm, swtpm-tools)"
  [[ -f $OVMF_CODE ]] || die 2 "missing $OVMF_CODE; run 'sudo bash scripts/setup.sh' (ovmf)"
  if [[ ! -d $tpm ]]; then
    mkdir -p "$tpm.tmp"
    swtpm_setup --tpm2 --tpmstate "$tpm.tmp" --createek --create-ek-cert --create-platform-cert \
      --overwrite >"$tpm.tmp/setup.log" 2>&1 || die 2 "swtpm_setup failed: $(tail -n 3 "$tpm.tmp/setup.log")"
    mv "$tpm.tmp" "$tpm"
  fi
  run="$(mktemp -d)"
  cp "$vars" "$run/vars.fd"
  swtpm socket --tpm2 --tpmstate "dir=$tpm" --ctrl "type=unixio,path=$run/tpm.sock" --terminate \
    --log "file=$run/swtpm.log" &
  swtpm_pid=$!
  for _ in $(seq 50); do [[ -S $run/tpm.sock ]] && break; sleep 0.1; done
  [[ -S $run/tpm.sock ]] || { kill "$swtpm_pid" 2>/dev/null; die 2 "swtpm did not start: $(cat "$run/swtpm.log")"; }
  local machine disks=()
  mapfile -t machine < <(uefi_machine_args "$run/vars.fd")
  # DISK "-": no root, /data or network (the floor of bench/boot.sh).
  if [[ $disk != - ]]; then
    disks=(-drive "id=root,file=$disk,format=raw,if=none,readonly=on" -device virtio-blk-pci,drive=root
           -drive "id=data,file=$data,format=raw,if=none" -device virtio-blk-pci,drive=data
           -netdev "user,id=net0,hostfwd=tcp:127.0.0.1:$api_port-:8470" -device virtio-net-pci,netdev=net0,romfile=)
  fi
  # --foreground: QEMU stays in this script's process group, so that whoever
  # stops the script's group (a test, a bench) stops QEMU with it.
  timeout --foreground -k 5 "$timeout_s" "$QEMU" "${machine[@]}" -accel "$accel" -cpu max -m "$memory" \
    -drive "id=esp,file=$esp,format=raw,if=none,snapshot=on" -device ide-hd,drive=esp,bus=ide.0,bootindex=1 \
    "${disks[@]}" -chardev "socket,id=chrtpm,path=$run/tpm.sock" -tpmdev emulator,id=tpm0,chardev=chrtpm \
    -device tpm-tis,tpmdev=tpm0 </dev/null || rc=$?
  kill "$swtpm_pid" 2>/dev/null || true
  wait "$swtpm_pid" 2>/dev/null || true
  rm -rf "$run"
  return "$rc"
}

# uefi_floor_esp OUT_DIR INIT KDIR KEYS: the floor the UEFI boot times are
# held against (bench/boot.sh): an ESP whose UKI (signed with KEYS/db, as
# the image's) holds Debian's kernel and an initramfs of volent-init alone,
# told to say its heartbeat and power off. Prints the ESP's path.
uefi_floor_esp() {
  local dir=$1 init=$2 kdir=$3 keys=$4
  mkdir -p "$dir"
  python3 "$ROOT/scripts/image/initramfs.py" "$dir/initrd" "init=$init"
  printf '%s' "console=ttyS0 loglevel=4 panic=-1 volent.test=heartbeat" >"$dir/cmdline"
  printf 'ID=volent\nIMAGE_ID=volent-floor\n' >"$dir/os-release"
  python3 "$ROOT/scripts/image/uki.py" build "$UEFI_STUB" "$dir/uki.efi" ".osrel=$dir/os-release" \
    ".cmdline=$dir/cmdline" ".linux=$kdir/vmlinuz" ".initrd=$dir/initrd" || die 1 "the floor's UKI could not be made"
  sbsign --key "$keys/db.key" --cert "$keys/db.crt" --output "$dir/uki.signed.efi" "$dir/uki.efi" >/dev/null 2>&1 ||
    die 1 "sbsign failed for the floor's UKI"
  uefi_esp "$dir/esp.raw" 32 "EFI/BOOT/BOOTX64.EFI=$dir/uki.signed.efi"
  echo "$dir/esp.raw"
}

# uefi_shim_chain OUT KDIR LOADERS CMDLINE: the shim-chain artifacts in OUT:
#   grub.cfg            the command line, with the root hash, in the
#                       configuration GRUB reads, runs and measures (PCR 8
#                       the commands, PCR 9 the files it loads)
#   esp-shim-chain.raw  the ESP: EFI/BOOT/BOOTX64.EFI is Debian's shim
#                       (Microsoft-signed), EFI/BOOT/grubx64.efi Debian's GRUB
#                       (Debian-signed, which shim checks), and EFI/debian/
#                       the configuration, Debian's signed vmlinuz and the
#                       initramfs (the path Debian's GRUB looks in first)
# Booted under OVMF with Microsoft's keys (Debian's OVMF_VARS_4M.ms.fd):
# the chain stock firmware trusts, with no key of ours.
uefi_shim_chain() {
  local out=$1 kdir=$2 loaders=$3 cmdline=$4
  {
    echo "set timeout=0"
    echo "linux /EFI/debian/vmlinuz $cmdline"
    echo "initrd /EFI/debian/initrd"
    echo "boot"
  } >"$out/grub.cfg"
  uefi_esp "$out/esp-shim-chain.raw" 64 "EFI/BOOT/BOOTX64.EFI=$loaders/shimx64.efi" \
    "EFI/BOOT/grubx64.efi=$loaders/grubx64.efi" "EFI/debian/grub.cfg=$out/grub.cfg" \
    "EFI/debian/vmlinuz=$kdir/vmlinuz" "EFI/debian/initrd=$out/initrd"
}
