#!/bin/sh
# Install everything raidkm's build, demo and tests need, from Debian's
# archive only. Idempotent: packages already present are left alone.
# Run as root on Debian 12 (bookworm).
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

# linux-image, linux-headers and linux-source must be of one version: they
# are installed in one transaction so apt resolves them together.
PKGS="linux-image-amd64 linux-headers-amd64 linux-source-6.1
	build-essential bc kmod cpio xz-utils dpkg-dev pkg-config
	qemu-system-x86 busybox-static fio dmsetup
	libnl-3-dev libnl-genl-3-dev libisal-dev libudev-dev
	python3 perl git"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed'; then
		missing="$missing $p"
	fi
done

if [ -z "$missing" ]; then
	say "all packages already installed"
else
	say "installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing
fi

kver=$(ls /lib/modules 2>/dev/null | grep -E '^6\.1\.[0-9]+-[0-9]+-amd64$' | sort -V | tail -n 1)
say "guest kernel: ${kver:-none found}"
say "done"
