#!/bin/bash
# Build the self-contained bundle that runs raidkm's guest scenarios on the
# GPU host, with raidkmd --backend=cuda serving the guest through the
# guest-RAM bridge (tools/gpu-guest/run.sh there).  The GPU host has no
# QEMU, no Debian kernel and no libnl: everything comes along.
#
# usage: mkbundle.sh OUT.tar.xz BASE_CPIO KVER RAIDKMD
# The archive (about 50 MiB) holds:
#   qemu/      qemu-system-x86_64, every library ldd lists, the loader,
#                  the firmware a "pc" guest with -kernel needs (-L) and the
#                  TCG accelerator module (QEMU_MODULE_DIR)
#   vmlinuz        the guest kernel
#   base.cpio.xz   the guest image, debug info stripped
#   host/          raidkmd (with the CUDA backend) and its libraries;
#                  raidkmd.sh starts it through the carried loader
#   busybox        static busybox (cpio for the scenario overlay)
set -euo pipefail
tarball=$(readlink -m "$1") base=$2 kver=$3 raidkmd=$4
die() { echo "mkbundle: $*" >&2; exit 1; }
[ -f "$base" ] || die "no guest image $base (make vm-image)"
[ -x "$raidkmd" ] || die "no raidkmd at $raidkmd"
[ "$(nm "$raidkmd" 2>/dev/null | grep -c rkmd_cuda_backend)" -gt 0 ] ||
	die "$raidkmd has no CUDA backend (nvcc missing at build time?)"
q=$(command -v qemu-system-x86_64) || die "qemu-system-x86 is not installed"
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
out=$w/gpu-guest
mkdir -p "$out/qemu/lib" "$out/qemu/fw" "$out/qemu/mod" "$out/host/lib"

# copy_libs BIN DIR: the shared libraries BIN needs, and the loader
copy_libs() {
	local l
	for l in $(ldd "$1" | grep -o '/[^ ]*'); do
		[ -e "$2/$(basename "$l")" ] || cp -L "$l" "$2/"
	done
}

cp "$q" "$out/qemu/"
copy_libs "$q" "$out/qemu/lib"
cp /usr/lib/x86_64-linux-gnu/qemu/accel-tcg-x86_64.so "$out/qemu/mod/"
copy_libs "$out/qemu/mod/accel-tcg-x86_64.so" "$out/qemu/lib"
# Debian keeps bios-256k.bin with seabios, the rest with qemu
for f in bios-256k.bin linuxboot_dma.bin kvmvapic.bin vgabios-stdvga.bin; do
	src=""
	for d in /usr/share/qemu /usr/share/seabios; do
		[ -e "$d/$f" ] && src=$d/$f && break
	done
	[ -n "$src" ] || die "firmware $f not found"
	cp -L "$src" "$out/qemu/fw/"
done

cp "/boot/vmlinuz-$kver" "$out/vmlinuz"
cp "$(command -v busybox)" "$out/busybox"

cp "$raidkmd" "$out/host/raidkmd"
strip --strip-debug "$out/host/raidkmd"
copy_libs "$raidkmd" "$out/host/lib"
cat >"$out/host/raidkmd.sh" <<'EOS'
#!/bin/sh
d=$(dirname "$(readlink -f "$0")")
exec "$d/lib/ld-linux-x86-64.so.2" --library-path "$d/lib" "$d/raidkmd" "$@"
EOS
chmod +x "$out/host/raidkmd.sh"

# the guest image without debug info (raidkm.ko alone carries ~9 MiB)
r=$w/root
mkdir -p "$r"
(cd "$r" && cpio -id --quiet <"$base")
find "$r" -name '*.ko' -exec strip --strip-debug {} +
for f in "$r"/usr/bin/* "$r"/sbin/mdadm; do
	[ -L "$f" ] || strip --strip-debug "$f" 2>/dev/null || true
done
# the kernel's xz decoder knows CRC32 only
(cd "$r" && find . -print0 | cpio --null -o -H newc --quiet) |
	xz -T0 -6 --check=crc32 >"$out/base.cpio.xz"
# perf for the bench's profile pass (bench-gpu-guest.sh BENCH_PROFILE=1),
# appended to the image there only; left out where the build machine
# has none
if perf=$(command -v perf); then
	"$(dirname "$0")/../vm/mkimage.sh" --programs "$w/perf.cpio" "$perf" >/dev/null
	xz -T0 -6 --check=crc32 <"$w/perf.cpio" >"$out/perf.cpio.xz"
	rm -f "$w/perf.cpio"
fi
mkdir -p "$(dirname "$tarball")"
tar -C "$w" -cf - gpu-guest | xz -T0 -3 >"$tarball"
echo "  BUNDLE  $tarball ($(du -h "$tarball" | cut -f1))"
