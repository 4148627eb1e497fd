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
#   --boot-limit S  end the guest when its kernel has not run the
#                initramfs' /init within S seconds (default 120): Debian's
#                kernel alone hanging while it boots under TCG, before any
#                of the root's code ran; LOG then ends with RKM-BOOT-HUNG
#
# Exit status: QEMU's (0 when the guest powered off), 124 on the timeout,
# 75 when the kernel hung while booting (--boot-limit).
# RKM_QEMU is the QEMU command, as for run-scenario.sh.
set -euo pipefail

t=300 append="" mem=1024 smp=2 show=0 boot_limit=120
read -r -a qemu <<<"${RKM_QEMU:-qemu-system-x86_64}"
while [ $# -gt 0 ]; do
	case $1 in
	--timeout) t=$2; shift ;;
	--append) append=$2; shift ;;
	--mem) mem=$2; shift ;;
	--smp) smp=$2; shift ;;
	--show) show=1 ;;
	--boot-limit) boot_limit=$2; shift ;;
	-h|--help) sed -n '3,25p' "$0"; exit 0 ;;
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
# booted: the kernel has started the initramfs' /init
booted() { grep -q "Run /init as init process" "$log" 2>/dev/null; }
# watch PID: wait for the guest, ending it when it has not booted within
# $boot_limit s (status 75)
watch() {
	local pid=$1 i=0 rc=0
	while ! booted && kill -0 "$pid" 2>/dev/null; do
		if [ $i -ge $((boot_limit * 2)) ]; then
			kill "$pid" 2>/dev/null
			wait "$pid"
			echo "RKM-BOOT-HUNG: /init not run after $boot_limit s" >>"$log"
			return 75
		fi
		i=$((i + 1))
		sleep 0.5
	done
	wait "$pid" || rc=$?
	return $rc
}
: >"$log"
timeout -k 5 "$t" "${cmd[@]}" </dev/null >>"$log" 2>&1 &
qpid=$!
if [ $show = 1 ]; then
	tail -n +1 -f --pid=$qpid "$log" &
fi
rc=0
watch $qpid || rc=$?
wait
exit $rc
