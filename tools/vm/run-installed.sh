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
#   --boot-limit S  end a boot whose kernel has not run the initramfs'
#                /init within S seconds (default 120)
#
# A boot whose kernel hangs (--boot-limit) or crashes before it runs the
# initramfs' /init (Debian's kernel alone under TCG, now and then: none
# of the root's code ran, the disks are untouched) is booted again, twice
# at most, with a "RETRY" line on stdout; its console stays in
# LOG.bootcrashN (tools/vm/boot-watch.sh).
#
# Exit status: QEMU's (0 when the guest powered off), 124 on the timeout,
# 75 when the kernel hung before /init in all three boots.
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
here=$(cd "$(dirname "$0")" && pwd)
# bad_kernel, alive, boot_watch, boot_died
# shellcheck source=tools/vm/boot-watch.sh
. "$here/boot-watch.sh"
booted='Run /init as init process'
# boot_once: one boot, its console in $log, its status QEMU's (or 75)
boot_once() {
	local qpid rc=0
	: >"$log"
	timeout -k 5 "$t" "${cmd[@]}" </dev/null >>"$log" 2>&1 &
	qpid=$!
	[ $show = 1 ] && tail -n +1 -f --pid=$qpid "$log" &
	boot_watch $qpid "$log" "$booted" "$boot_limit" || rc=$?
	wait
	return $rc
}
for try in 1 2 3; do
	rc=0
	boot_once || rc=$?
	[ $try -lt 3 ] && boot_died "$log" "$booted" || break
	cp "$log" "$log.bootcrash$try"
	echo "RETRY $(basename "$log" .log): guest kernel hung or crashed before /init (see $log.bootcrash$try)"
	grep -E -m3 "$bad_kernel|RKM-BOOT-HUNG|RKM-QEMU-DIED" "$log" | sed 's/^/    /' || true
done
exit $rc
