#!/bin/sh
# Install everything raidkm's build, demo and tests need, from Debian's
# archive only. Idempotent: packages already present are left alone.
# Run as root on Debian 12 (bookworm).
#
# Two guest kernels (Documentation/kernels.rst): Debian 12's own 6.1
# (linux-image-amd64) and 6.12, which Debian 12 carries as
# linux-image-6.12.*+deb12-amd64 (bookworm-security, bookworm-backports).
# When no configured source has 6.12, bookworm-backports is added, pinned
# so that apt takes only the 6.12 kernel packages from it.
set -eu

say() { printf 'raidkm deps: %s\n' "$*"; }

if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		say "not root: re-running with sudo"
		exec sudo "$0" "$@"
	fi
	echo "raidkm deps: must run as root" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive

installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed'
}

# install PKG...: those not installed yet, in one transaction
install() {
	missing=""
	for p in "$@"; do
		installed "${p%%=*}" || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	say "installing:$missing"
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing
}

# linux-image, linux-headers and linux-source must be of one version: they
# are installed in one transaction so apt resolves them together.
#
# The Debian packages ("make deb", Documentation/packaging.rst) need
# debhelper, dh-dkms, quilt, lintian, mdadm's build dependencies
# (groff-base, po-debconf, libudev-dev) and dkms for their test.
# mdadm's upstream tests in the guest (Documentation/testing.rst) want
# the real mke2fs/e2fsck (e2fsprogs) and losetup (mount) in the image;
# both are Priority: required but not Essential, so a minimal system may
# lack them.  The installed-system boot test (tests/deb/installed-boot.sh)
# builds its Debian root with mmdebstrap.  xz-utils and zstd unpack the
# kernels' bzImages for the guest boots (tools/vm/unpack-kernel.sh: 6.1
# is xz, 6.12 zstd).
PKGS="linux-image-amd64 linux-headers-amd64 linux-source-6.1
	build-essential bc kmod cpio xz-utils zstd dpkg-dev pkg-config
	qemu-system-x86 busybox-static fio dmsetup e2fsprogs mount
	libnl-3-dev libnl-genl-3-dev libisal-dev libudev-dev nasm
	debhelper dh-dkms dkms quilt lintian groff-base po-debconf
	mmdebstrap python3 perl git"

updated=0
need=0
for p in $PKGS; do
	installed "$p" || need=1
done
if [ $need = 1 ]; then
	apt-get update -qq
	updated=1
fi
# shellcheck disable=SC2086
install $PKGS

# ---- 6.12 --------------------------------------------------------------
# newest_612: the ABI name of the newest 6.12 amd64 image apt offers
# (6.12.117+deb12), or nothing
newest_612() {
	apt-cache pkgnames linux-image-6.12. 2>/dev/null |
		sed -n 's/^linux-image-\(6\.12\.[0-9]*+deb[0-9]*\)-amd64$/\1/p' |
		sort -V | tail -n 1
}

BPO_LIST=/etc/apt/sources.list.d/raidkm-bookworm-backports.list
BPO_PIN=/etc/apt/preferences.d/raidkm-bookworm-backports

abi=$(newest_612)
if [ -z "$abi" ] && [ $updated = 0 ]; then
	apt-get update -qq
	updated=1
	abi=$(newest_612)
fi
if [ -z "$abi" ]; then
	say "no 6.12 kernel in the configured sources: adding bookworm-backports"
	echo "deb http://deb.debian.org/debian bookworm-backports main" >"$BPO_LIST"
	cat >"$BPO_PIN" <<'EOF'
# raidkm (tools/install-deps.sh): only the 6.12 kernel from backports
Package: *
Pin: release n=bookworm-backports
Pin-Priority: -1

Package: linux-image-6.12* linux-headers-6.12* linux-kbuild-6.12* linux-source-6.12
Pin: release n=bookworm-backports
Pin-Priority: 500
EOF
	apt-get update -qq
	abi=$(newest_612)
fi
[ -n "$abi" ] || { echo "raidkm deps: no linux-image-6.12.*-amd64 in any source" >&2; exit 1; }
ver=$(apt-cache show "linux-image-$abi-amd64" | sed -n 's/^Version: //p' | sort -V | tail -n 1)
# the source of exactly that version: md.h must match the headers
install "linux-image-$abi-amd64" "linux-headers-$abi-amd64" "linux-source-6.12=$ver"

for s in 6.1 6.12; do
	k=$(ls /lib/modules 2>/dev/null |
		grep -E "^$(echo $s | sed 's/\./\\./')\.[0-9]+(-[0-9]+|\+deb[0-9]+)-amd64$" |
		sort -V | tail -n 1)
	say "guest kernel $s: ${k:-none found}"
done
say "done"
