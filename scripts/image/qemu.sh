# QEMU settings shared by scripts/image/boot.sh and scripts/boot-image.sh
# (sourced; docs/image.md, docs/decisions/0039-microvm-boot.md).

readonly QEMU=qemu-system-x86_64
# microvm: no PCI, no firmware ROMs to scan (x-option-roms=off); the ISA
# serial port is the console (ttyS0); the RTC gives the guest the time of
# day; ACPI (on by default) is how the guest's power-off reaches QEMU.
readonly MACHINE=microvm,x-option-roms=off,isa-serial=on,rtc=on

# The host's TSC rate in kHz, for the guest's tsc_early_khz (under TCG the
# kernel's own calibration against the PIT fails on a busy host and the boot
# hangs: docs/image.md), as the host's kernel reports it in /proc/cpuinfo
# ("cpu MHz": the TSC rate in a VM without cpufreq, the usual CI machine; on
# bare metal the current core clock, close enough, and there KVM is usually
# the accelerator anyway). Empty if unknown.
host_tsc_khz() {
  awk -F': *' '/^cpu MHz/ { printf "%d", $2 * 1000; exit }' /proc/cpuinfo 2>/dev/null || true
}

# Whether /dev/kvm can run a stock guest: it opens read-write and is served
# by kvm_intel or kvm_amd (a paravirtual KVM such as kvm_pvm cannot).
kvm_usable() {
  [[ -r /dev/kvm && -w /dev/kvm ]] && { [[ -d /sys/module/kvm_intel ]] || [[ -d /sys/module/kvm_amd ]]; }
}

# resolve_accel auto|kvm|tcg: prints the accelerator to use.
resolve_accel() {
  if [[ $1 == auto ]]; then
    if kvm_usable; then echo kvm; else echo tcg; fi
  else
    echo "$1"
  fi
}
