#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot an installed Debian root (an ext4 image made from tools/vm/mkroot.sh's
# directory) in QEMU, as run-scenario.sh boots its guests (TCG, -cpu max,
# serial console, no network, -no-reboot), with the root as /dev/vda and
# more virtio disks after it; save the console to LOG.  The kernel and
# initramfs are files taken from the root's /boot: QEMU loads them, there
# is no boot loader.  The root's own systemd runs the boot.
#
# usage: run-installed.sh [options] ROOT.IMG KERNEL INITRD LOG [DISK.IMG...]
#   --timeout S  kill the guest after S seconds (default 300)
#   --append A   more kernel command line (e.g. rkm.phase=1)
#   --mem MIB    guest memory (default 1024)
#   --smp N      guest CPUs (default 2)
#   --show       stream the console to stdout as well
#
# Exit status: QEMU's (0 when the guest powered off), 124 on the timeout.
# RKM_QEMU is the QEMU command, as for run-scenario.sh.
set -euo pipefail

t=300 append="" mem=1024 smp=2 show=0
read -r -a qemu <<<"${RKM_QEMU:-qemu-system-x86_64}"
while [ $# -gt 0 ]; do
	case $1 in
	--timeout) t=$2; shift ;;
	--append) append=$2; shift ;;
	--mem) mem=$2; shift ;;
	--smp) smp=$2; shift ;;
	--show) show=1 ;;
	-h|--help) sed -n '3,20p' "$0"; exit 0 ;;
	-*) echo "run-installed: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
	shift
done
[ $# -ge 4 ] || { echo "run-installed: want ROOT.IMG KERNEL INITRD LOG" >&2; exit 2; }
rootimg=$1 kernel=$2 initrd=$3 log=$4
shift 4

drives=(-drive "file=$rootimg,if=virtio,format=raw,cache=unsafe")
for d in "$@"; do
	drives+=(-drive "file=$d,if=virtio,format=raw,cache=unsafe")
done

# the command line of run-scenario.sh's guests, with the root on /dev/vda,
# and -nodefaults: no VGA, floppy, CD-ROM or parallel port, whose drivers
# udev would load twice per boot (initramfs, then the root) in emulation
cmd=("${qemu[@]}" -accel tcg -cpu max -smp "$smp" -m "$mem" -nodefaults
	-display none -no-reboot -monitor none -serial stdio -nic none
	-kernel "$kernel" -initrd "$initrd" "${drives[@]}"
	-append "root=/dev/vda rw console=ttyS0 printk.time=1 panic=-1 oops=panic loglevel=7 mitigations=off tsc=reliable $append")
rc=0
if [ $show = 1 ]; then
	timeout -k 5 "$t" "${cmd[@]}" </dev/null 2>&1 | tee "$log" || rc=${PIPESTATUS[0]}
else
	timeout -k 5 "$t" "${cmd[@]}" </dev/null >"$log" 2>&1 || rc=$?
fi
exit $rc
