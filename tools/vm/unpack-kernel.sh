#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Unpack a Debian kernel's bzImage (/boot/vmlinuz-KVER) into the ELF
# vmlinux inside it, for QEMU to boot directly through the kernel's PVH
# entry point (CONFIG_PVH, a "Xen" ELF note of type 18).  Under TCG the
# bzImage's own decompressor is emulated: 4 to 5 s per boot for 6.1's xz,
# about 2 s for 6.12's zstd, before the kernel prints its first line
# (Documentation/testing.rst, "Guest boots").  Here it runs once, on the
# host, when the guest images are built.
#
# usage: unpack-kernel.sh BZIMAGE OUT
# Exit status 0 with OUT written, 1 when no compressed stream in BZIMAGE
# unpacks to an ELF with the PVH note (OUT is then removed: callers boot
# the bzImage), 2 on bad usage.
set -uo pipefail

[ $# -eq 2 ] || { echo "usage: unpack-kernel.sh BZIMAGE OUT" >&2; exit 2; }
in=$1 out=$2
[ -r "$in" ] || { echo "unpack-kernel: cannot read $in" >&2; exit 2; }
tmp=$out.tmp
trap 'rm -f "$tmp"' EXIT

# has_pvh FILE: an ELF whose notes carry XEN_ELFNOTE_PHYS32_ENTRY (18)
has_pvh() {
	[ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = '177ELF' ] || return 1
	LC_ALL=C readelf -n "$1" 2>/dev/null | grep -Eq 'Xen[[:space:]]+0x[0-9a-f]+[[:space:]]+(Unknown note type: \(0x00000012\)|PHYS32_ENTRY)'
}

# each compressor's magic (as grep -P bytes) and its decompressing command
for m in '\xfd7zXZ\x00|xz -dcq' '\x28\xb5\x2f\xfd|zstd -dcq' '\x1f\x8b\x08|gzip -dcq' \
	 '\x02\x21\x4c\x18|lz4 -dcq'; do
	magic=${m%%|*} cmd=${m#*|}
	command -v "${cmd%% *}" >/dev/null || continue
	for off in $(LC_ALL=C grep -obUaP "$magic" "$in" | cut -d: -f1 | head -n 4); do
		# trailing bytes after the stream make the tools complain: the
		# ELF is whole when the note is there
		tail -c +$((off + 1)) "$in" | $cmd >"$tmp" 2>/dev/null
		if has_pvh "$tmp"; then
			mv "$tmp" "$out"
			exit 0
		fi
	done
done
rm -f "$out"
echo "unpack-kernel: no PVH-bootable vmlinux found in $in" >&2
exit 1
