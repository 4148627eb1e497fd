#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# How long one guest boot takes, power-on to power-off (the base image's
# /init with no scenario), from Debian's bzImage and from the ELF vmlinux
# that make vm-images unpacks (tools/vm/unpack-kernel.sh), in interleaved
# rounds; prints each round and the medians with min and max.
#
# usage: bench-guest-boot.sh [ROUNDS]   (default 5; after make vm-images)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
rounds=${1:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
truncate -s 16M "$tmp/root.img"
kvers=$(ls "$top/build/vm" | grep -E '^[0-9]+\.[0-9]+' || true)
[ -n "$kvers" ] || { echo "bench-guest-boot: no guest images (make vm-images)" >&2; exit 2; }
for r in $(seq 1 "$rounds"); do
	for k in $kvers; do
		for kern in "/boot/vmlinuz-$k" "$top/build/vm/$k/vmlinux"; do
			[ -r "$kern" ] || continue
			s=$(date +%s%N)
			"$top/tools/vm/run-installed.sh" --timeout 120 "$tmp/root.img" "$kern" \
				"$top/build/vm/$k/base.cpio" "$tmp/boot.log" >/dev/null
			echo "$r $k ${kern##*/} $((($(date +%s%N) - s) / 1000000))"
		done
	done
done | tee "$tmp/rounds"
echo "# median (min-max) ms of $rounds rounds"
sort -k2,3 -k4n "$tmp/rounds" | awk '
	{ key = $2 " " ($3 == "vmlinux" ? "vmlinux" : "bzImage"); v[key, ++n[key]] = $4 }
	END { for (key in n) { m = n[key]; printf "%-32s %6d (%d-%d)\n", key, v[key, int((m + 1) / 2)], v[key, 1], v[key, m] } }' | sort
