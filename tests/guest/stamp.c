// SPDX-License-Identifier: GPL-2.0
/*
 * rkm-stamp: fill, rewrite and verify an array with 4 KiB blocks that each
 * carry their own identity and generation, for the guest scenarios of
 * unclean shutdowns (tests/guest/km-write-hole.sh).  A block holds a
 * header (magic "rkmSTAMP", its block number on the device, its
 * generation, a check word of both) and 4064 bytes that follow from the
 * block number and the generation, so that any block read back is either
 * one that was written (which one: its generation) or something else:
 * a block of another place, a mix of two, zeros, garbage.
 *
 * The device is seen as chunk stripes of K data chunks (an md array's
 * data layout): stripe s holds array bytes [s K C, (s + 1) K C), its data
 * chunk d the bytes [(s K + d) C, (s K + d + 1) C).
 *
 *   rkm-stamp fill DEV -k K -c C -s FIRST:COUNT -g GEN
 *	full-stripe writes (O_DIRECT, up to 4 MiB a write) of every block
 *	of the stripes with generation GEN, then fsync
 *   rkm-stamp write DEV -k K -c C -s FIRST:COUNT -m MAP -g GEN
 *		    [-t THREADS] [-b BYTES] [-n PASSES] [-T SECONDS] [-l LOG]
 *	partial-stripe writes: in pass p (0, 1, ...) data chunk MAP[s % len]
 *	of every stripe s gets generation GEN + p, in writes of BYTES
 *	(default the chunk), THREADS threads (default 4) taking the stripes
 *	in turn; runs PASSES passes (default: until killed) or SECONDS
 *	seconds.  A failed write is logged and the next one tried.  With
 *	-l, a line per chunk once all its writes returned: "S GEN ok" or
 *	"S GEN err ERRNO" (appended, so a log read after a power cut holds
 *	no line for a chunk whose writes were not all acknowledged).
 *	Exit status 0 when every write succeeded, 1 when one failed.
 *   rkm-stamp verify DEV -k K -c C -s FIRST:COUNT -g GEN
 *		     [-m MAP -w LO:HI [-r WFIRST:WCOUNT]] [-a LOG]
 *	read the stripes (O_DIRECT) and check every block: a block of the
 *	chunk MAP[s % len] of stripe s (a written chunk; with -r only in
 *	the stripes WFIRST..WFIRST+WCOUNT-1) must be intact with
 *	generation GEN or one of LO..HI, every other block intact with
 *	generation GEN.  With -a, each "S G ok" line of LOG raises the
 *	written chunk's least generation to G: nothing acknowledged lost.
 *	Prints "verify: N blocks, A old, B new, C bad (D chunks)" and a line
 *	per bad chunk (the first 64); exit status 0 when none is bad, 1
 *	when some are, 2 when a read failed.
 *
 * Status 3 for usage or setup errors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BLK 4096
#define MAGIC 0x504d4154536d6b72ULL	/* "rkmSTAMP" little-endian */
#define MAXMAP 256

struct hdr {
	uint64_t magic;
	uint64_t block;
	uint64_t gen;
	uint64_t check;
};

static const char *dev;
static long k = -1, chunk = 65536, first = -1, count = -1;
static long gen = -1, lo = -1, hi = -1, wfirst = -1, wcount = -1;
static int map[MAXMAP], maplen;
static long threads = 4, wbytes, passes, seconds;
static const char *logpath, *ackpath;
static int logfd = -1;

static void usage(const char *why)
{
	fprintf(stderr, "rkm-stamp: %s (see the comment at the top of stamp.c)\n", why);
	exit(3);
}

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* the 4 KiB block number BLOCK of the device at generation G */
static void stamp(void *buf, uint64_t block, uint64_t g)
{
	struct hdr *h = buf;
	uint64_t *w = buf, s = mix(block * 0x100000001b3ULL ^ mix(g));
	size_t i;

	h->magic = MAGIC;
	h->block = block;
	h->gen = g;
	h->check = mix(block ^ (g << 40) ^ MAGIC);
	for (i = sizeof(*h) / 8; i < BLK / 8; i++) {
		s = mix(s);
		w[i] = s;
	}
}

/* what BUF holds, for block BLOCK: its generation, or -1 (and WHY) */
static long long inspect(const void *buf, uint64_t block, char *why, size_t wl)
{
	static __thread uint64_t want[BLK / 8];
	const struct hdr *h = buf;
	const uint64_t *w = buf;
	size_t i;

	for (i = 0; i < BLK / 8 && !w[i]; i++)
		;
	if (i == BLK / 8) {
		snprintf(why, wl, "zeros");
		return -1;
	}
	if (h->magic != MAGIC) {
		snprintf(why, wl, "no stamp (first words %016llx %016llx)",
			 (unsigned long long)w[0], (unsigned long long)w[1]);
		return -1;
	}
	if (h->check != mix(h->block ^ (h->gen << 40) ^ MAGIC)) {
		snprintf(why, wl, "stamp with a bad check word (block %llu gen %llu)",
			 (unsigned long long)h->block, (unsigned long long)h->gen);
		return -1;
	}
	if (h->block != block) {
		snprintf(why, wl, "the stamp of block %llu gen %llu (misplaced)",
			 (unsigned long long)h->block, (unsigned long long)h->gen);
		return -1;
	}
	stamp(want, block, h->gen);
	for (i = sizeof(*h) / 8; i < BLK / 8; i++)
		if (w[i] != want[i]) {
			snprintf(why, wl, "gen %llu header, body differs from byte %zu (torn or mixed)",
				 (unsigned long long)h->gen, i * 8);
			return -1;
		}
	return (long long)h->gen;
}

static int open_dev(int flags)
{
	int fd = open(dev, flags | O_DIRECT);

	if (fd < 0) {
		fprintf(stderr, "rkm-stamp: open %s: %s\n", dev, strerror(errno));
		exit(3);
	}
	return fd;
}

static void *alloc(size_t n)
{
	void *p;

	if (posix_memalign(&p, BLK, n))
		usage("out of memory");
	return p;
}

/* stamp LEN bytes at device byte OFF into BUF with generation G */
static void stamp_range(char *buf, uint64_t off, size_t len, uint64_t g)
{
	size_t i;

	for (i = 0; i < len; i += BLK)
		stamp(buf + i, (off + i) / BLK, g);
}

static int do_fill(void)
{
	size_t sl = (size_t)k * chunk;
	long per = (4 << 20) / sl > 0 ? (4 << 20) / sl : 1, s, n;
	char *buf = alloc(per * sl);
	int fd = open_dev(O_WRONLY);

	for (s = first; s < first + count; s += n) {
		n = first + count - s < per ? first + count - s : per;
		stamp_range(buf, (uint64_t)s * sl, n * sl, gen);
		if (pwrite(fd, buf, n * sl, (off_t)s * sl) != (ssize_t)(n * sl)) {
			fprintf(stderr, "rkm-stamp: fill: write of stripes %ld-%ld: %s\n",
				s, s + n - 1, strerror(errno));
			return 1;
		}
	}
	if (fsync(fd)) {
		fprintf(stderr, "rkm-stamp: fill: fsync: %s\n", strerror(errno));
		return 1;
	}
	close(fd);
	free(buf);
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double t_end;
static int write_failed;

static void logline(long s, long g, int err)
{
	char line[64];
	int n;

	if (logfd < 0)
		return;
	if (err)
		n = snprintf(line, sizeof(line), "%ld %ld err %d\n", s, g, err);
	else
		n = snprintf(line, sizeof(line), "%ld %ld ok\n", s, g);
	if (write(logfd, line, n) != n)
		perror("rkm-stamp: log");
}

static void *writer(void *arg)
{
	long t = (long)arg, p, s;
	size_t sl = (size_t)k * chunk, o;
	char *buf = alloc(chunk);
	int fd = open_dev(O_WRONLY);

	for (p = 0; !passes || p < passes; p++) {
		for (s = first + t; s < first + count; s += threads) {
			uint64_t off = (uint64_t)s * sl + (uint64_t)map[s % maplen] * chunk;
			int err = 0;

			if (t_end && now() >= t_end)
				goto out;
			stamp_range(buf, off, chunk, gen + p);
			for (o = 0; o < (size_t)chunk; o += wbytes)
				if (pwrite(fd, buf + o, wbytes, off + o) != wbytes) {
					err = errno ? errno : EIO;
					__atomic_store_n(&write_failed, 1, __ATOMIC_RELAXED);
				}
			logline(s, gen + p, err);
			if (err)
				usleep(10000);
		}
	}
out:
	close(fd);
	free(buf);
	return NULL;
}

static int do_write(void)
{
	pthread_t tid[64];
	long t;

	if (!maplen)
		usage("write needs -m MAP");
	if (!wbytes)
		wbytes = chunk;
	if (wbytes % BLK || chunk % wbytes)
		usage("-b must be a multiple of 4096 that divides the chunk");
	if (threads < 1 || threads > 64)
		usage("-t: 1 to 64 threads");
	if (logpath) {
		logfd = open(logpath, O_WRONLY | O_CREAT | O_APPEND, 0644);
		if (logfd < 0)
			usage("cannot open the log");
	}
	if (seconds)
		t_end = now() + seconds;
	for (t = 0; t < threads; t++)
		if (pthread_create(&tid[t], NULL, writer, (void *)t))
			usage("pthread_create");
	for (t = 0; t < threads; t++)
		pthread_join(tid[t], NULL);
	return write_failed;
}

/* least acknowledged generation per stripe of the range (0: none) */
static long *read_acks(void)
{
	long *least = calloc(count, sizeof(*least)), s, g;
	char line[128], what[16];
	FILE *f;

	if (!least)
		usage("out of memory");
	if (!ackpath)
		return least;
	f = fopen(ackpath, "r");
	if (!f)
		usage("cannot read the ack log");
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%ld %ld %15s", &s, &g, what) == 3 &&
		    !strcmp(what, "ok") && s >= first && s < first + count &&
		    g > least[s - first])
			least[s - first] = g;
	fclose(f);
	return least;
}

static int do_verify(void)
{
	size_t sl = (size_t)k * chunk, i;
	char *buf = alloc(sl), why[160];
	long *least = read_acks(), s, nbad = 0, nold = 0, nnew = 0, nblk = 0;
	long badchunks = 0, shown = 0;
	int fd = open_dev(O_RDONLY), rerr = 0;

	if (maplen && (lo < 0 || hi < lo))
		usage("-m needs -w LO:HI");
	for (s = first; s < first + count; s++) {
		int wd = maplen && (wfirst < 0 || (s >= wfirst && s < wfirst + wcount)) ?
			 map[s % maplen] : -1;
		long d;

		if (pread(fd, buf, sl, (off_t)s * sl) != (ssize_t)sl) {
			printf("read error: stripe %ld: %s\n", s, strerror(errno));
			rerr = 1;
			continue;
		}
		for (d = 0; d < k; d++) {
			long bad = 0, firstbad = -1;
			char firstwhy[160] = "";

			for (i = 0; i < (size_t)chunk; i += BLK) {
				uint64_t off = (uint64_t)s * sl + d * chunk + i;
				long long g;
				int ok;

				why[0] = 0;
				g = inspect(buf + d * chunk + i, off / BLK, why, sizeof(why));

				nblk++;
				if (d == wd) {
					ok = g == gen || (g >= lo && g <= hi);
					if (ok && least[s - first] && g < least[s - first]) {
						snprintf(why, sizeof(why), "gen %lld, but gen %ld was acknowledged",
							 g, least[s - first]);
						ok = 0;
					}
				} else {
					ok = g == gen;
				}
				if (ok) {
					if (g == gen)
						nold++;
					else
						nnew++;
					continue;
				}
				if (g >= 0 && why[0] == 0)
					snprintf(why, sizeof(why), "gen %lld (not allowed here)", g);
				if (!bad++) {
					firstbad = off / BLK;
					snprintf(firstwhy, sizeof(firstwhy), "%s", why);
				}
			}
			if (!bad)
				continue;
			nbad += bad;
			badchunks++;
			if (shown++ < 64)
				printf("bad: stripe %ld data chunk %ld (%s, array byte %llu): %ld of %ld blocks; block %ld: %s\n",
				       s, d, d == wd ? "written" : "not written",
				       (unsigned long long)(s * sl + d * chunk), bad,
				       chunk / BLK, firstbad, firstwhy);
		}
	}
	printf("verify: %ld blocks, %ld old, %ld new, %ld bad (%ld chunks)\n",
	       nblk, nold, nnew, nbad, badchunks);
	close(fd);
	return rerr ? 2 : nbad ? 1 : 0;
}

static void range(const char *arg, long *a, long *b)
{
	char *e;

	*a = strtol(arg, &e, 0);
	if (*e != ':')
		usage("-s, -w and -r want A:B");
	*b = strtol(e + 1, &e, 0);
	if (*e)
		usage("-s, -w and -r want A:B");
}

int main(int argc, char **argv)
{
	const char *cmd;
	char *e, *tok;
	int o;

	if (argc < 3)
		usage("usage: rkm-stamp fill|write|verify DEV OPTIONS");
	cmd = argv[1];
	dev = argv[2];
	optind = 3;
	while ((o = getopt(argc, argv, "k:c:s:g:m:w:r:t:b:n:T:l:a:")) != -1) {
		switch (o) {
		case 'k':
			k = strtol(optarg, NULL, 0);
			break;
		case 'c':
			chunk = strtol(optarg, NULL, 0);
			break;
		case 's':
			range(optarg, &first, &count);
			break;
		case 'g':
			gen = strtol(optarg, NULL, 0);
			break;
		case 'w':
			range(optarg, &lo, &hi);
			break;
		case 'r':
			range(optarg, &wfirst, &wcount);
			break;
		case 't':
			threads = strtol(optarg, NULL, 0);
			break;
		case 'b':
			wbytes = strtol(optarg, NULL, 0);
			break;
		case 'n':
			passes = strtol(optarg, NULL, 0);
			break;
		case 'T':
			seconds = strtol(optarg, NULL, 0);
			break;
		case 'l':
			logpath = optarg;
			break;
		case 'a':
			ackpath = optarg;
			break;
		case 'm':
			maplen = 0;
			for (tok = strtok(optarg, ","); tok; tok = strtok(NULL, ",")) {
				if (maplen == MAXMAP)
					usage("-m: too many entries");
				map[maplen++] = strtol(tok, &e, 0);
				if (*e)
					usage("-m wants a comma-separated list");
			}
			break;
		default:
			usage("unknown option");
		}
	}
	if (k < 1 || chunk < BLK || chunk % BLK || first < 0 || count < 1 || gen < 0)
		usage("needs -k, -c (a multiple of 4096), -s FIRST:COUNT and -g");
	for (o = 0; o < maplen; o++)
		if (map[o] < 0 || map[o] >= k)
			usage("-m: a data chunk index is 0..K-1");
	if (!strcmp(cmd, "fill"))
		return do_fill();
	if (!strcmp(cmd, "write"))
		return do_write();
	if (!strcmp(cmd, "verify"))
		return do_verify();
	usage("the command is fill, write or verify");
	return 3;
}
