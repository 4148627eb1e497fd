#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build a small installed Debian 12 system in a directory, with raidkm's
# three packages installed into it by apt, as an administrator would:
# raidkm-dkms's postinst has DKMS build raidkm.ko for the root's kernel,
# and initramfs-tools builds that kernel's initramfs with raidkm's hook.
# tests/deb/installed-boot.sh boots it (tools/vm/run-installed.sh).
#
# usage: mkroot.sh DEB_DIR ROOT
#   DEB_DIR  raidkm-dkms_*.deb, raidkmd_*.deb and mdadm_*.deb ("make deb")
#   ROOT     the directory to create (must not exist, or be empty)
#
# The root holds what booting and the packages need, no Recommends
# (mdadm's would bring a mail server): systemd as init, udev, kmod,
# e2fsprogs, initramfs-tools with busybox and zstd (its defaults), Debian
# 12's kernel (linux-image-amd64) with its headers and linux-source-6.1
# (raidkm-dkms's Recommends: DKMS takes md's headers from it), dkms.
# Packages come from deb.debian.org; those the host's apt already holds
# in /var/cache/apt/archives are hard-linked in instead of downloaded.
# /etc/fstab mounts /dev/vda as /; the hostname is raidkm-installed.
set -euo pipefail

[ $# = 2 ] || { sed -n '10,12p' "$0" >&2; exit 2; }
debdir=$(cd "$1" && pwd)
root=$2

command -v mmdebstrap >/dev/null ||
	{ echo "mkroot: mmdebstrap is not installed (run tools/install-deps.sh)" >&2; exit 1; }
debs=()
for p in raidkm-dkms raidkmd mdadm; do
	d=$(ls "$debdir/${p}"_*.deb 2>/dev/null | sort -V | tail -n 1)
	[ -n "$d" ] || { echo "mkroot: no ${p}_*.deb in $debdir (run make deb)" >&2; exit 1; }
	debs+=("--include=$d")
done

# The host's cached packages, hard-linked (same file system) or else not
# at all: apt checks each against the index and downloads what is
# missing or different.  --skip=essential/unlink, as mmdebstrap(1)'s
# example of a pre-filled cache has it; the cleanup removes the links.
reuse='cp -l /var/cache/apt/archives/*.deb "$1/var/cache/apt/archives/" 2>/dev/null || true'

# The .deb files are given by path: file-mirror-automount makes them
# visible at the same path inside the root while apt installs them.  The
# root is a throwaway: dpkg need not fsync what it unpacks
# (force-unsafe-io), and documentation, man pages and translations are
# not unpacked (less to write here and to copy into the image).  The
# output (--verbose: apt's and dpkg's too) has the seconds since the
# start before each line: tests/deb/installed-boot.sh reports from it how
# long DKMS's build and the initramfs took.
mmdebstrap --variant=apt --mode=root --verbose \
	--aptopt='APT::Install-Recommends "false"' \
	--dpkgopt=force-unsafe-io \
	--dpkgopt='path-exclude=/usr/share/doc/*' \
	--dpkgopt='path-exclude=/usr/share/man/*' \
	--dpkgopt='path-exclude=/usr/share/locale/*' \
	--include=systemd-sysv,udev,kmod,mount,e2fsprogs,initramfs-tools,busybox,zstd \
	--include=linux-image-amd64,linux-headers-amd64,linux-source-6.1,dkms \
	"${debs[@]}" \
	--hook-dir=/usr/share/mmdebstrap/hooks/file-mirror-automount \
	--skip=essential/unlink \
	--setup-hook='mkdir -p "$1/var/cache/apt/archives"' \
	--setup-hook="$reuse" \
	--customize-hook='echo raidkm-installed >"$1/etc/hostname"' \
	--customize-hook='echo "/dev/vda / ext4 rw,errors=remount-ro 0 1" >"$1/etc/fstab"' \
	bookworm "$root" \
	"deb http://deb.debian.org/debian bookworm main" \
	"deb http://deb.debian.org/debian bookworm-updates main" \
	"deb http://deb.debian.org/debian-security bookworm-security main" 2>&1 |
	while IFS= read -r line; do printf '%4d %s\n' "$SECONDS" "$line"; done
