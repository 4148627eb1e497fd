# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the host-side guest runners (run-scenario.sh,
# run-installed.sh): what they share about watching a guest boot.
#
# Debian's kernels alone now and then hang or crash under TCG before they
# reach the initramfs' /init (6.12's "Oops: int3" in its own text
# patching, 6.1 stopping about 5 s in); the runners end such a boot and
# boot again (Documentation/testing.rst, "The guest harness").

# a kernel line that fails a test (the console's lines carry a
# printk.time stamp)
bad_kernel='^\[ *[0-9]+\.[0-9]+\].*(WARNING:|BUG:|Oops|Call Trace|general protection fault|Kernel panic|blocked for more than)'

# alive PID: running, not a zombie waiting for a parent that is gone
alive() {
	local st
	st=$(sed -n 's/^[0-9]* (.*) \([A-Z]\).*/\1/p' "/proc/$1/stat" 2>/dev/null)
	[ -n "$st" ] && [ "$st" != Z ]
}

# boot_watch PID LOG MARK LIMIT: wait for the guest (PID, a child of the
# caller, the emulator under timeout(1)), ending it when LOG has no line
# matching MARK (grep -E) within LIMIT seconds; LOG then ends with
# RKM-BOOT-HUNG (a line that never matches MARK) and the status is 75,
# else the guest's own.  An emulator that a signal ended before MARK
# (timeout's status 128 + N; QEMU's TCG was seen to segfault while the
# guest kernel probed PCI) gets RKM-QEMU-DIED at the end of LOG.
boot_watch() {
	local pid=$1 log=$2 mark=$3 limit=$4 i=0 rc=0
	while ! grep -Eq "$mark" "$log" 2>/dev/null && alive "$pid"; do
		if [ $i -ge $((limit * 2)) ]; then
			kill "$pid" 2>/dev/null
			wait "$pid"
			echo "RKM-BOOT-HUNG: the boot did not get that far in $limit s" >>"$log"
			return 75
		fi
		i=$((i + 1))
		sleep 0.5
	done
	wait "$pid" || rc=$?
	if [ $rc -gt 128 ] && [ $rc -ne 137 ] && ! grep -Eq "$mark" "$log"; then
		echo "RKM-QEMU-DIED: the emulator ended by signal $((rc - 128)) before the guest got that far" >>"$log"
	fi
	return $rc
}

# boot_died LOG MARK: the boot in LOG hung or crashed before MARK
boot_died() {
	grep -Eq "$2" "$1" && return 1
	grep -Eq "RKM-BOOT-HUNG|RKM-QEMU-DIED" "$1" || grep -Eq "$bad_kernel" "$1"
}
