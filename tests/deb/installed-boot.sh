#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# covers: packaging: boot from an installed system; mdadm: auto-assembly (--assemble --scan, -I)
#
# The boot path on an installed system: a Debian 12 root is built from
# the archive with raidkm's three packages installed by apt
# (tools/vm/mkroot.sh), so that DKMS builds raidkm.ko in it and
# initramfs-tools builds its initramfs with raidkm-dkms's hook; it then
# boots twice in QEMU (tools/vm/run-installed.sh) over five member disks
# that outlive the boots:
#
#   boot 1  tests/deb/installed/raidkm-boot-test creates a km array (m=2),
#           an ext4 with a file on it, the ARRAY line in mdadm.conf and an
#           fstab entry, and powers off;
#   boot 2  the system's own udev and mdadm assemble the array in the
#           initramfs, systemd mounts it from fstab, and the file must
#           have the checksum boot 1 printed.
#
# Every step prints PASS or FAIL with its time.  A boot fails on a kernel
# WARNING:/BUG:/Oops/Call Trace (as run-scenario.sh), on its time limit,
# and when the guest does not power off by itself.  A boot whose kernel
# hangs or crashes before it runs the initramfs' /init (Debian's kernel
# alone under TCG, now and then) is booted again with a RETRY line, as
# run-scenario.sh does for its guests.
#
# usage: installed-boot.sh [DEB_DIR]
#   DEB_DIR  the packages (default build/deb, "make deb")
# RKM_INSTALLED_DIR: the work directory (default build/installed-boot);
# its logs stay, the root image and disks are removed after a pass unless
# RKM_INSTALLED_KEEP=1 (to boot them again: tools/vm/run-installed.sh).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
debdir=${1:-$top/build/deb}
work=${RKM_INSTALLED_DIR:-$top/build/installed-boot}
root=$work/root
boot_timeout=420
# bad_kernel: a kernel line that fails a boot, as for every guest
# shellcheck source=tools/vm/boot-watch.sh
. "$top/tools/vm/boot-watch.sh"

t0=$(date +%s)
step_start=$t0
# lap: the seconds since the last lap (or the start) in $took
lap() { local n; n=$(date +%s); took="$((n - step_start)) s"; step_start=$n; }
# stop: FAIL line for the step, and the end of its log if one is given
stop() {
	echo "FAIL installed-boot/$1: $2"
	[ -n "${3:-}" ] && [ -f "$3" ] && tail -n 30 "$3" | sed 's/^/    | /'
	exit 1
}

# a command that fails where no step expects it
trap 'echo "FAIL installed-boot: line $LINENO: exit status $? (see $work)"' ERR

[ "$(id -u)" = 0 ] || stop setup "needs root (mmdebstrap --mode=root, chroot)"
for c in mmdebstrap mkfs.ext4 lsinitramfs dpkg-deb; do
	command -v $c >/dev/null || stop setup "$c is not installed (run tools/install-deps.sh)"
done

# mounts_under DIR: the mount points below DIR, deepest first
mounts_under() { awk -v d="$1/" 'index($2, d) == 1 { print $2 }' /proc/self/mounts | sort -r; }
# A root that an interrupted mmdebstrap left mounted (/dev, /proc, /sys,
# the .deb files bound in) is unmounted before anything is removed, so
# that rm never reaches into the host's files.
for m in $(mounts_under "$work"); do umount "$m" || umount -l "$m" || true; done
[ -z "$(mounts_under "$work")" ] || stop setup "cannot unmount what is mounted under $work"
rm -rf --one-file-system "$work"
mkdir -p "$work"

# ---- the installed root ---------------------------------------------------
"$top/tools/vm/mkroot.sh" "$debdir" "$root" >"$work/mkroot.log" 2>&1 ||
	stop root "tools/vm/mkroot.sh failed (see $work/mkroot.log)" "$work/mkroot.log"
vers=""
for p in raidkm-dkms raidkmd mdadm; do
	want=$(dpkg-deb -f "$(ls "$debdir/${p}"_*.deb | sort -V | tail -n 1)" Version)
	have=$(dpkg-query --admindir="$root/var/lib/dpkg" -W -f '${Version} ${db:Status-Abbrev}' $p 2>/dev/null) ||
		stop root "$p is not installed in the root"
	[ "$have" = "$want ii " ] || stop root "$p in the root: '$have', want '$want ii'"
	vers="$vers $p $want,"
	[ $p = raidkm-dkms ] && dkmsver=$want
done
# where the time went, from mkroot.sh's stamped output (seconds since its
# start): DKMS's build (postinst of raidkm-dkms) and the last initramfs
# (the trigger after it), up to mmdebstrap's next step
at() { grep -E "^ *[0-9]+ $1" "$work/mkroot.log" | awk '{ print $1 }' || true; }
d0=$(at ".*Building initial module for" | head -n 1)
d1=$(at ".*Installing to /lib/modules/" | head -n 1)
i0=$(at "update-initramfs: Generating" | tail -n 1) i1=""
[ -n "$i0" ] && i1=$(awk -v t="$i0" '$1 >= t && / I: running / { print $1; exit }' "$work/mkroot.log")
detail=""
[ -n "$d0" ] && [ -n "$d1" ] && detail=", DKMS build $((d1 - d0)) s"
[ -n "$i0" ] && [ -n "$i1" ] && detail="$detail, initramfs $((i1 - i0)) s"
lap
echo "PASS installed-boot/root: Debian 12 root of $(du -sm "$root" | cut -f1) MiB with${vers%,} ($took$detail)"

# DKMS built the module for the root's one kernel (Debian 12's 6.1: the
# DKMS build that tests/deb/dkms-build.sh leaves to this test, with its
# checks), and depmod knows its aliases (md loads it by md-level-12)
kver=$(ls "$root/lib/modules")
[ "$(echo "$kver" | wc -w)" = 1 ] || stop dkms "want one kernel in the root, have: $kver"
ko=$root/lib/modules/$kver/updates/dkms/raidkm.ko
[ -f "$ko" ] || stop dkms "no updates/dkms/raidkm.ko for $kver in the root" "$work/mkroot.log"
case $(modinfo -F vermagic "$ko") in
"$kver "*) ;;
*) stop dkms "raidkm.ko's vermagic is not $kver" ;;
esac
aliases=" $(modinfo -F alias "$ko" | tr '\n' ' ')"
for a in md-km md-level-12; do
	case $aliases in
	*" $a "*) ;;
	*) stop dkms "raidkm.ko's aliases '$aliases' lack $a" ;;
	esac
done
grep -q '^alias md-level-12 raidkm$' "$root/lib/modules/$kver/modules.alias" ||
	stop dkms "modules.alias of $kver lacks md-level-12 -> raidkm"
# DKMS's copy of the build's log: md's headers extracted from
# linux-source-6.1, the kernel interface checks run
mlog=$(ls "$root/var/lib/dkms/raidkm/$dkmsver/$kver"/*/log/make.log 2>/dev/null | head -n 1 || true)
[ -n "$mlog" ] || stop dkms "no make.log of DKMS's build for $kver in the root"
grep -q 'EXTRACT md.h' "$mlog" && grep -q "CONFTEST $kver" "$mlog" ||
	stop dkms "DKMS's make.log shows no md header extraction or interface checks" "$mlog"
echo "PASS installed-boot/dkms: raidkm.ko for $kver in /lib/modules/$kver/updates/dkms," \
	"aliases md-km and md-level-12 (modules.alias too), $(grep -c 'HAVE ' "$mlog") interfaces found"

# the initramfs of the package installation carries raidkm.ko (the hook),
# mdadm and its udev assembly rule
initrd=$root/boot/initrd.img-$kver
lsinitramfs "$initrd" >"$work/initrd.list" 2>&1 || stop initramfs "lsinitramfs $initrd failed" "$work/initrd.list"
for f in "lib/modules/$kver/updates/dkms/raidkm.ko" sbin/mdadm \
	 lib/udev/rules.d/64-md-raid-assembly.rules; do
	grep -Eq "^(usr/)?$f\$" "$work/initrd.list" || stop initramfs "no $f in $initrd"
done
echo "PASS installed-boot/initramfs: raidkm.ko, mdadm and 64-md-raid-assembly.rules in initrd.img-$kver"

# the test's own unit and script, then the root as an ext4 image (no loop
# mount: mkfs.ext4 copies the directory); QEMU boots the kernel and
# initramfs as files
install -m 755 "$top/tests/deb/installed/raidkm-boot-test" "$root/usr/local/sbin/"
install -m 644 "$top/tests/deb/installed/raidkm-boot-test.service" "$root/etc/systemd/system/"
mkdir -p "$root/etc/systemd/system/emergency.service.d"
install -m 644 "$top/tests/deb/installed/emergency.conf" \
	"$root/etc/systemd/system/emergency.service.d/raidkm-boot-test.conf"
chroot "$root" systemctl --quiet enable raidkm-boot-test.service
cp "$root/boot/vmlinuz-$kver" "$initrd" "$work/"
# QEMU boots the root's kernel from the ELF inside its bzImage where it
# can (tools/vm/unpack-kernel.sh: seconds less of emulated decompression)
kernel=$work/vmlinuz-$kver
"$top/tools/vm/unpack-kernel.sh" "$kernel" "$work/vmlinux-$kver" 2>/dev/null &&
	kernel=$work/vmlinux-$kver
truncate -s 2G "$work/root.img"
mkfs.ext4 -q -F -L rkmroot -d "$root" "$work/root.img" >"$work/mkfs.log" 2>&1 ||
	stop image "mkfs.ext4 -d failed" "$work/mkfs.log"
rm -rf --one-file-system "$root"
disks=()
for i in 1 2 3 4 5; do
	truncate -s 64M "$work/disk$i.img"
	disks+=("$work/disk$i.img")
done
lap
echo "PASS installed-boot/image: root.img and 5 member disks ($took)"

# boot N: one boot; its console is $work/bootN.log (run-installed.sh
# boots again, with a RETRY line, when the kernel hung or crashed before
# /init: nothing had run, the members are untouched)
boot() {
	local n=$1 log=$work/boot$1.log rc=0
	"$top/tools/vm/run-installed.sh" --timeout $boot_timeout --boot-limit 120 \
		--append "rkm.phase=$n" \
		"$work/root.img" "$kernel" "$work/initrd.img-$kver" "$log" \
		"${disks[@]}" || rc=$?
	if grep -Eq "$bad_kernel" "$log"; then
		grep -E -m5 "$bad_kernel" "$log" | sed 's/^/    /'
		stop boot$n "kernel warning (see $log)"
	fi
	grep -q "RKM-INSTALL: FAIL" "$log" &&
		stop boot$n "$(grep -m1 -o 'RKM-INSTALL: FAIL.*' "$log" | tr -d '\r')" "$log"
	case $rc in
	124|137) stop boot$n "no power-off within $boot_timeout s (see $log)" "$log" ;;
	75) stop boot$n "kernel hung before /init in 3 boots (see $log)" "$log" ;;
	esac
	[ $rc = 0 ] || stop boot$n "QEMU exit status $rc (see $log)" "$log"
	grep -q "RKM-INSTALL: phase $n ok" "$log" ||
		stop boot$n "powered off without the test's result (see $log)" "$log"
}
# sum N: the checksum boot N printed
sum() { grep -o "RKM-INSTALL: phase $1 ok sha256=[0-9a-f]*" "$work/boot$1.log" | sed 's/.*=//' || true; }

boot 1
sum1=$(sum 1)
[ ${#sum1} = 64 ] || stop boot1 "no checksum in the result line"
lap
echo "PASS installed-boot/boot1: km array created, file written, mdadm.conf and fstab entries ($took)"

boot 2
sum2=$(sum 2)
[ "$sum2" = "$sum1" ] || stop boot2 "file's sha256 $sum2 after the reboot, $sum1 before"
lap
echo "PASS installed-boot/boot2: km array mounted at boot from fstab, file verified ($took)"

# The array started (md's "detected capacity change from 0") before the
# root's systemd did: udev and mdadm in the initramfs assembled it, with
# the raidkm.ko the hook put there.
log=$work/boot2.log
# first_line RE: the number of the console's first line matching RE
first_line() { grep -nE "$1" "$log" | head -n 1 | cut -d: -f1 || true; }
md_line=$(first_line '\] md[0-9]+: detected capacity change from 0 to')
sd_line=$(first_line 'systemd\[1\]: systemd [0-9].* running in system mode')
[ -n "$md_line" ] || stop initramfs-assembly "no md array started in boot 2 (see $log)"
[ -n "$sd_line" ] || stop initramfs-assembly "no start of systemd in boot 2 (see $log)"
[ "$md_line" -lt "$sd_line" ] ||
	stop initramfs-assembly "the array started after the initramfs, not in it (see $log)"
echo "PASS installed-boot/initramfs-assembly: the array started in the initramfs, before the root's systemd"

[ "${RKM_INSTALLED_KEEP:-0}" = 1 ] || rm -f "$work/root.img" "$work/vmlinux-$kver" "${disks[@]}"
echo "installed-boot: $(($(date +%s) - t0)) s in all"
