#!/bin/sh
# covers: style: kernel coding style
# Every kernel source file passes checkpatch.pl --no-tree with no error and
# no warning.  usage: checkpatch.sh CHECKPATCH_PL TOP
cp=$1
cd "$2" || exit 2
rc=0
# the freestanding code's own typedefs (rkm_u8, ...) are listed here
td=""
[ -f kernel/raidkm/checkpatch-typedefs ] && td="--typedefsfile kernel/raidkm/checkpatch-typedefs"
for f in $(git ls-files 'kernel/*.c' 'kernel/*.h' 2>/dev/null || find kernel -name '*.[ch]'); do
	out=$(perl "$cp" --no-tree --quiet --terse --show-types $td -f "$f" 2>&1 |
		grep -v '^total: 0 errors, 0 warnings')
	if [ -n "$out" ]; then
		echo "FAIL checkpatch/$f"
		echo "$out" | sed 's/^/    /' | head -n 20
		rc=1
	else
		echo "PASS checkpatch/$f"
	fi
done
exit $rc
