# Sourced by the GPU-host scripts: unpack the bundle (make gpu-guest) once
# and point the guest harness (tools/vm/run-scenario.sh) at it instead of
# the build machine's QEMU, kernel, image and raidkmd.
tar=$top/build/gpu-guest/gpu-guest.tar.xz
B=/tmp/rkm-gpu-guest/gpu-guest
[ -f "$tar" ] || { echo "no $tar: run make gpu-guest on the build machine and carry build/gpu-guest" >&2; exit 2; }
# unpacked again whenever the archive changed
stamp=$(stat -c '%Y-%s' "$tar")
if [ "$(cat /tmp/rkm-gpu-guest/stamp 2>/dev/null)" != "$stamp" ]; then
	rm -rf /tmp/rkm-gpu-guest && mkdir -p /tmp/rkm-gpu-guest &&
		tar -C /tmp/rkm-gpu-guest -xJf "$tar" || exit 2
	echo "$stamp" >/tmp/rkm-gpu-guest/stamp
fi
export QEMU_MODULE_DIR=$B/qemu/mod
export RKM_QEMU="$B/qemu/lib/ld-linux-x86-64.so.2 --library-path $B/qemu/lib $B/qemu/qemu-system-x86_64 -L $B/qemu/fw"
export RKM_KERNEL=$B/vmlinuz
export RKM_IMAGE=$B/base.cpio.xz
export RKM_HOST_RAIDKMD=$B/host/raidkmd.sh
export RKM_CPIO="$B/busybox cpio"
export RKM_BRIDGE_BACKEND=${RKM_BRIDGE_BACKEND:-cuda}
