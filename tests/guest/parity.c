// SPDX-License-Identifier: GPL-2.0
/*
 * rkm-parity: check the first parity row (P, the XOR of the data chunks:
 * raid6's P, km's parity chunk 0) of a km array's stripes straight from
 * its members, with the array stopped, for the guest scenarios of
 * unclean shutdowns (tests/guest/km-member-log.sh): what a power cut left
 * on the members, before any resync could touch it.
 *
 *   rkm-parity -k K -m M -c CHUNK -o OFFSET -s FIRST:COUNT DEV0 ... DEVn-1
 *	DEVi is member (raid slot) i, OFFSET its data offset in 512-byte
 *	sectors (mdadm --examine), CHUNK bytes.  km's layout, rotation 0
 *	(Documentation/layout.rst): in stripe s the first parity chunk is
 *	on member p = n - 1 - (s mod n) and data chunk d on (p + 1 + d)
 *	mod n.  Prints "parity: N stripes, B bad" and the first bad ones;
 *	exit status 0 when none is bad, 1 when some are, 2 when a read
 *	failed, 3 for usage errors.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAXN 64

static void usage(const char *why)
{
	fprintf(stderr, "rkm-parity: %s\n", why);
	exit(3);
}

/* Read member @i's chunk of stripe @s into @buf; 0 or -1. */
static int read_chunk(int fd, long s, long chunk, long long off, char *buf)
{
	long long at = off * 512 + (long long)s * chunk;

	return pread(fd, buf, chunk, at) == chunk ? 0 : -1;
}

/* Whether stripe @s's parity chunk 0 is the XOR of its data chunks. */
static int stripe_ok(int *fd, int n, int m, long s, long chunk,
		     long long off, char *acc, char *buf)
{
	int p = n - 1 - (int)(s % n), d;
	long i;

	if (read_chunk(fd[p], s, chunk, off, acc))
		return -1;
	for (d = 0; d < n - m; d++) {
		if (read_chunk(fd[(p + 1 + d) % n], s, chunk, off, buf))
			return -1;
		for (i = 0; i < chunk; i++)
			acc[i] ^= buf[i];
	}
	for (i = 0; i < chunk; i++)
		if (acc[i])
			return 0;
	return 1;
}

int main(int argc, char **argv)
{
	long k = -1, m = -1, chunk = -1, first = -1, count = -1, s, bad = 0;
	long long off = -1;
	int fd[MAXN], n, opt, i;
	char *acc, *buf;

	while ((opt = getopt(argc, argv, "k:m:c:o:s:")) != -1) {
		switch (opt) {
		case 'k': k = atol(optarg); break;
		case 'm': m = atol(optarg); break;
		case 'c': chunk = atol(optarg); break;
		case 'o': off = atoll(optarg); break;
		case 's':
			if (sscanf(optarg, "%ld:%ld", &first, &count) != 2)
				usage("-s FIRST:COUNT");
			break;
		default: usage("bad option");
		}
	}
	n = argc - optind;
	if (k < 2 || m < 1 || k + m != n || n > MAXN || chunk < 4096 ||
	    off < 0 || first < 0 || count < 1)
		usage("need -k K -m M -c CHUNK -o OFFSET -s FIRST:COUNT and K+M devices");
	for (i = 0; i < n; i++) {
		fd[i] = open(argv[optind + i], O_RDONLY);
		if (fd[i] < 0)
			usage("cannot open a member");
	}
	acc = malloc(chunk);
	buf = malloc(chunk);
	if (!acc || !buf)
		usage("no memory");
	for (s = first; s < first + count; s++) {
		int ok = stripe_ok(fd, n, m, s, chunk, off, acc, buf);

		if (ok < 0) {
			printf("parity: read failed at stripe %ld\n", s);
			return 2;
		}
		if (!ok && bad++ < 16)
			printf("bad: stripe %ld\n", s);
	}
	printf("parity: %ld stripes, %ld bad\n", count, bad);
	return bad ? 1 : 0;
}
