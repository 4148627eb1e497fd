#!/bin/bash
# Build the guest's base initramfs: busybox-static, Debian's kernel modules
# that the tests need, raidkm.ko, our mdadm, fio and the project's guest
# programs, each with the shared libraries ldd lists.
# With --programs, an archive of the given programs and their libraries
# only, to be appended to an image (the bench's perf).
#
# usage: mkimage.sh OUT.cpio KVER RAIDKM_KO MDADM_BIN [PROGRAM...]
#        mkimage.sh --programs OUT.cpio PROGRAM...
set -euo pipefail

progs_only=0
[ "$1" = --programs ] && { progs_only=1; shift; }
out=$1
here=$(cd "$(dirname "$0")" && pwd)
root=$(mktemp -d "${out%/*}/root.XXXXXX")
stubs=$(mktemp -d "${out%/*}/stubs.XXXXXX")
trap 'rm -rf "$root" "$stubs"' EXIT

die() { echo "mkimage: $*" >&2; exit 1; }

# copy a program and the libraries it links to, keeping their paths;
# our own programs lose their debugging sections (raidkmd's are most of
# its 12 MB): every boot unpacks the image, emulated.  Given STUBS, the
# libraries found there (stub-libs.sh's stand-ins) go to /lib/LIBDIR
# under their names instead of the real ones and what those pull in.
copy_prog() {
	local src=$1 dst=$2 stubdir=${3:-} lib to
	mkdir -p "$root/${dst%/*}"
	cp -L "$src" "$root/$dst"
	strip --strip-debug "$root/$dst" 2>/dev/null || true
	for lib in $(LD_LIBRARY_PATH=$stubdir ldd "$src" 2>/dev/null | awk '/=> \//{print $3} /^\t\/lib/{print $1}'); do
		to=$lib
		[ -n "$stubdir" ] && [ "${lib%/*}" = "$stubdir" ] && to=/lib/$libdir/${lib##*/}
		[ -e "$root$to" ] && continue
		mkdir -p "$root/${to%/*}"
		cp -L "$lib" "$root$to"
	done
}
libdir=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)

# copy_progs WHAT PROGRAM...: each program (and its libraries) to /usr/bin
copy_progs() {
	local what=$1 p
	shift
	for p in "$@"; do
		[ -x "$p" ] || die "$what $p is missing"
		copy_prog "$p" "/usr/bin/${p##*/}"
	done
}

# write_image: the tree under $root as OUT
write_image() {
	(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet) >"$out.tmp"
	mv "$out.tmp" "$out"
	echo "  IMAGE   $out ($(du -h "$out" | cut -f1))"
}

if [ $progs_only = 1 ]; then
	shift
	copy_progs program "$@"
	write_image
	exit 0
fi

kver=$2 ko=$3 mdadm=$4
shift 4
moddir=/lib/modules/$kver
[ -d "$moddir/kernel" ] || die "no modules for kernel $kver in $moddir (install linux-image-amd64)"
[ -f "$ko" ] || die "no $ko (run make module)"
[ -x "$mdadm" ] || die "no mdadm at $mdadm (run make mdadm)"
bb=$(command -v busybox) || die "busybox not found (install busybox-static)"
file -L "$bb" 2>/dev/null | grep -q 'statically linked' || [ -x /bin/busybox ] || die "busybox is not static"

mkdir -p "$root"/{bin,sbin,etc,proc,sys,dev,tmp,run,mnt,root,var/run,lib/raidkm,scenarios}
mkdir -p "$root/usr/bin" "$root/usr/sbin" "$root/etc/mdadm"

# busybox and one link per applet (never over a real program copied below)
cp "$bb" "$root/bin/busybox"
for a in $("$bb" --list); do
	[ -e "$root/bin/$a" ] || ln -s busybox "$root/bin/$a"
done


copy_prog "$mdadm" /sbin/mdadm
# fio with stand-ins for the libraries of the I/O engines no test uses
# (Ceph, GlusterFS, NBD, RDMA, PMEM; tools/vm/stub-libs.sh): they and
# what they pull in are 60 of the image's 100 MB, and cost each fio start
# in the guest about a second of page faults and relocations.  A test
# that used one of those engines would see it abort.  Where the stand-ins
# cannot be built (another fio), the real libraries go in.
fio=$(command -v fio) || die "fio not found (install fio)"
fio_stubs=$(ldd "$fio" | awk '{ print $1 }' | grep -xE 'lib(gfapi|nbd|ibverbs|rdmacm|rados|rbd|pmemblk|pmem)\.so\.[0-9]+' || true)
if [ -n "$fio_stubs" ] && "$here/stub-libs.sh" "$fio" "$stubs" $fio_stubs &&
   LD_LIBRARY_PATH=$stubs "$fio" --version >/dev/null; then
	copy_prog "$fio" /usr/bin/fio "$stubs"
else
	echo "mkimage: fio with its real libraries (no stand-ins: $fio_stubs)" >&2
	copy_prog "$fio" /usr/bin/fio
fi
# dm tables for fault injection (km bad-sector and unclean-stop scenarios)
copy_prog "$(command -v dmsetup)" /sbin/dmsetup
copy_progs "guest program (run make)" "$@"
# busybox's links must not shadow real programs
rm -f "$root/bin/mdadm"

# mdadm's upstream test suite (tools/mdadm-tests): bash, and the real
# programs its scripts call where busybox has none or a smaller one
# (mkfs.ext3, fsck, mkfs, lsblk, blockdev --getsize, losetup); the suite
# itself (the "test" driver and tests/) from the mdadm source the build
# fetched, and our harness scripts
copy_real() {	# copy_real PROG DST [LINK...]: over busybox's applet
	local p l
	p=$(command -v "$1") || die "$1 not found (install $2)"
	rm -f "$root/bin/${3##*/}" "$root$3"
	copy_prog "$p" "$3"
	for l in "${@:4}"; do
		rm -f "$root/bin/$l"
		ln -sf "${3##*/}" "$root${3%/*}/$l"
	done
}
copy_real bash bash /bin/bash
copy_real mke2fs e2fsprogs /sbin/mke2fs mkfs.ext2 mkfs.ext3 mkfs.ext4
copy_real e2fsck e2fsprogs /sbin/e2fsck fsck.ext2 fsck.ext3 fsck.ext4
copy_real fsck util-linux /sbin/fsck
copy_real mkfs util-linux /sbin/mkfs
copy_real blockdev util-linux /sbin/blockdev
copy_real losetup mount /sbin/losetup
copy_real lsblk util-linux /bin/lsblk
mdsrc=${MDADM_SRC:-${mdadm%/*}/mdadm-4.2}
[ -f "$mdsrc/test" ] && [ -f "$mdsrc/tests/func.sh" ] ||
	die "no mdadm test suite in $mdsrc (run make mdadm)"
mkdir -p "$root/usr/share/mdadm-tests" "$root/lib/raidkm/mdadm-tests"
cp "$mdsrc/test" "$root/usr/share/mdadm-tests/"
cp -r "$mdsrc/tests" "$root/usr/share/mdadm-tests/"
for f in variants.sh guest-run.sh; do
	install -m 0755 "$here/../mdadm-tests/$f" "$root/lib/raidkm/mdadm-tests/$f"
done

# kernel modules: the named ones and everything they depend on
# (nvmet, nvmet-tcp and nvme-tcp: a km array exported over NVMe/TCP on the
# guest's loopback, tests/guest/export-nvmet.sh; ext4: mdadm's upstream
# tests)
mods="md-mod raid0 raid1 raid456 brd loop dm-mod dm-flakey dm-delay crc32c_generic
      scsi_debug sd_mod virtio_pci virtio_blk virtio_console ext4
      nvmet nvmet-tcp nvme-tcp nvme-fabrics nvme-core"
want=$(mktemp)
for m in $mods; do
	modprobe -S "$kver" --show-depends "$m" 2>/dev/null | awk '$1 == "insmod" {print $2}'
done | sort -u >"$want"
[ -s "$want" ] || die "modprobe --show-depends found nothing for $kver"
while read -r f; do
	rel=${f#/}
	mkdir -p "$root/${rel%/*}"
	cp "$f" "$root/$rel"
done <"$want"
rm -f "$want"
for f in modules.order modules.builtin modules.builtin.modinfo; do
	[ -f "$moddir/$f" ] && cp "$moddir/$f" "$root$moddir/"
done
mkdir -p "$root$moddir/extra"
cp "$ko" "$root$moddir/extra/"
# without its DWARF (20 MB of 21); its symbols stay for oopses
strip --strip-debug "$root$moddir/extra/${ko##*/}"
depmod -b "$root" "$kver"

# init, the scenario library, a little configuration
install -m 0755 "$here/init" "$root/init"
install -m 0644 "$here/lib.sh" "$root/lib/raidkm/lib.sh"
echo 'root:x:0:0:root:/root:/bin/sh' >"$root/etc/passwd"
echo 'nobody:x:65534:65534:nobody:/:/bin/false' >>"$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
echo 'DEVICE partitions' >"$root/etc/mdadm/mdadm.conf"

write_image
