#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Build raidkm.ko for one kernel.  This is the one recipe of the module
# build: the top Makefile ("make module") and DKMS (the raidkm-dkms
# package's dkms.conf) both run it.
#
#  1. md's internal headers (md.h, md-bitmap.h, md-cluster.h), which no
#     linux-headers package carries, from the kernel series' Debian
#     linux-source tarball into OUT/mdinc/ (once);
#  2. the interface checks (raidkm/compat/conftest.sh) into
#     OUT/rkm_kconf.h (again whenever a check or the headers changed);
#  3. a tree of links to Kbuild and the sources under kernel/ in OUT
#     (kbuild writes objects next to the sources it compiles, so each
#     kernel gets its own tree);
#  4. kbuild: make -C KDIR M=OUT modules, which leaves OUT/raidkm.ko.
#
# usage: kbuild-module.sh [-jN] [--ksrc PATH] [--check|--headers]
#                         KVER KDIR SRC OUT
#   KVER     the kernel release, as in /lib/modules (6.1.0-56-amd64)
#   KDIR     its build tree (/lib/modules/KVER/build)
#   SRC      the raidkm tree: Kbuild and kernel/
#   OUT      where the module is built
#   --ksrc   the linux-source tarball, or an unpacked linux-source tree
#            (default: /usr/src/linux-source-SERIES.tar.xz or .tar.bz2, or
#            the directory /usr/src/linux-source-SERIES)
#   --check  only find the md headers' source and the build tree, and say
#            what is missing (DKMS runs this first, where its output is
#            seen; SRC and OUT may be omitted)
#   --headers  step 1 only
#   -jN      parallel kbuild jobs ("-j" alone: no limit)
# $MAKE names make (the top Makefile passes its own, with its jobserver).
set -eu

jobs="" ksrc="" check=0 headers=0
while [ $# -gt 0 ]; do
	case $1 in
	-j*) jobs=$1 ;;
	--ksrc) ksrc=${2:-}; shift ;;
	--check) check=1 ;;
	--headers) headers=1 ;;
	--) shift; break ;;
	-*) echo "kbuild-module.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
	shift
done
if [ $# -ne 4 ] && { [ $check = 0 ] || [ $# -lt 2 ]; }; then
	echo "usage: kbuild-module.sh [-jN] [--ksrc PATH] [--check|--headers] KVER KDIR SRC OUT" >&2
	exit 2
fi
kver=$1 kdir=$2
make=${MAKE:-make}
mdhdrs="md.h md-bitmap.h md-cluster.h"

say() { printf 'raidkm: %s\n' "$*" >&2; }

# the kernel series: 6.1 of 6.1.0-56-amd64, 6.12 of 6.12.117+deb12-amd64
series=$(echo "$kver" | sed -n 's/^\([0-9]*\.[0-9]*\)[.-].*/\1/p')
if [ -z "$series" ]; then
	say "cannot tell the kernel series of '$kver'"
	exit 1
fi

# ---- where md's headers come from, and whether they fit this kernel ------
if [ -z "$ksrc" ]; then
	for f in /usr/src/linux-source-"$series".tar.xz \
		 /usr/src/linux-source-"$series".tar.bz2 \
		 /usr/src/linux-source-"$series"; do
		[ -e "$f" ] && { ksrc=$f; break; }
	done
fi
if [ -z "$ksrc" ] || [ ! -e "$ksrc" ]; then
	say "building for kernel $kver needs md's internal headers, which only"
	say "the kernel source has: /usr/src/linux-source-$series.tar.xz is missing."
	say "Install Debian's package linux-source-$series (of the same version as"
	say "linux-headers-$kver), e.g. apt install linux-source-$series"
	exit 1
fi
if [ ! -d "$kdir" ]; then
	say "no kernel build tree at '$kdir': install linux-headers-$kver"
	exit 1
fi
# Debian's tarball belongs to linux-source-SERIES; md.h must be the one of
# the kernel's own version (the package versions match for a matching pair)
case $ksrc in
/usr/src/linux-source-"$series".tar.*)
	sv=$(dpkg-query -W -f '${Version}' "linux-source-$series" 2>/dev/null || true)
	hv=$(dpkg-query -W -f '${Version}' "linux-headers-$kver" 2>/dev/null || true)
	if [ -n "$sv" ] && [ -n "$hv" ] && [ "$sv" != "$hv" ]; then
		say "warning: linux-source-$series is $sv but linux-headers-$kver is $hv:"
		say "warning: md.h may not be this kernel's (install linux-source-$series=$hv)"
	fi
	;;
esac
[ $check = 1 ] && exit 0

src=$(cd "$3" && pwd)
mkdir -p "$4"
out=$(cd "$4" && pwd)
mdinc=$out/mdinc

# ---- 1. md's headers ---------------------------------------------------
if [ ! -f "$mdinc/.stamp" ]; then
	echo "  EXTRACT $mdhdrs from $ksrc"
	rm -rf "$mdinc"
	mkdir -p "$mdinc"
	if [ -d "$ksrc" ]; then
		for h in $mdhdrs; do
			cp "$ksrc/drivers/md/$h" "$mdinc/"
		done
	else
		members=""
		for h in $mdhdrs; do
			members="$members linux-source-$series/drivers/md/$h"
		done
		# --occurrence: stop reading once every header is out (the
		# tarball holds each once; 5 s instead of 17 s for 6.1's)
		# shellcheck disable=SC2086
		tar -xf "$ksrc" -C "$mdinc" --strip-components=3 --occurrence \
			$members
	fi
	touch "$mdinc/.stamp"
fi
[ $headers = 1 ] && exit 0

# ---- 2. the interface checks -------------------------------------------
compat=$src/kernel/raidkm/compat
stamp=$out/.conftest-stamp
if [ ! -f "$out/rkm_kconf.h" ] || [ ! -f "$stamp" ] ||
   [ -n "$(find "$mdinc/.stamp" "$compat/conftest.sh" "$compat/checks" \
	-newer "$stamp" 2>/dev/null)" ]; then
	echo "  CONFTEST $kver"
	"$compat/conftest.sh" "$kdir" "$mdinc" "$out"
	touch "$stamp"
fi

# ---- 3. the tree of links (stale links of removed files dropped) --------
ln -sf "$src/Kbuild" "$out/Kbuild"
(cd "$src" && find kernel -type f \( -name '*.[ch]' -o -name '*.kbuild' \)) |
while read -r f; do
	mkdir -p "$out/${f%/*}"
	[ -L "$out/$f" ] || ln -s "$src/$f" "$out/$f"
done
find "$out/kernel" -xtype l -delete

# ---- 4. kbuild (V=1 in the environment: every command in full) ----------
verbose=""
if [ "${V:-0}" = 1 ]; then
	verbose=V=1
	echo "$make${jobs:+ $jobs} -C $kdir M=$out modules"
fi
# shellcheck disable=SC2086
$make $jobs --no-print-directory -C "$kdir" M="$out" RAIDKM_MDINC="$mdinc" \
	RAIDKM_KCONF="$out" $verbose modules
