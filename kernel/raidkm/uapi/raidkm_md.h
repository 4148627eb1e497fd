/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * raidkm md-level constants shared by raidkm.ko and the km support in
 * mdadm (tools/mdadm).  Only <linux/types.h>-free constants live here so
 * that any user-space program can include it.
 */
#ifndef _UAPI_RAIDKM_MD_H
#define _UAPI_RAIDKM_MD_H

/*
 * md level number of the km personality.  md's in-tree levels are
 * -5 (faulty), -4 (multipath), -1 (linear), 0, 1, 4, 5, 6 and 10; md treats
 * level >= 1 as "has redundancy", so km takes a positive number that no
 * in-tree personality uses.  Stored in the v1.x superblock's level field.
 */
#define RAIDKM_LEVEL		12
#define RAIDKM_LEVEL_NAME	"km"

/*
 * The md layout word of a km array: bits 0-7 hold m, the number of parity
 * chunks per stripe; bits 8-15 the parity rotation algorithm (see
 * Documentation/layout.rst); bits 16-19 the member write log (0: none;
 * e in 1..15: the last 1 MiB << (e - 1) of every member's data area holds
 * it, past the array's data; Documentation/personality.rst, "Member
 * log"); bits 20-31 must be zero.  Rotation 0 is km's own; rotation 1
 * places parity and data as md raid6's left-symmetric layout does (the
 * layout an md raid6 array taken over as km keeps).
 */
#define RAIDKM_LAYOUT_M_MASK	0xff
#define RAIDKM_LAYOUT_ALGO_SHIFT	8
#define RAIDKM_LAYOUT_ALGO_MASK	0xff00
#define RAIDKM_LAYOUT_LOG_SHIFT	16
#define RAIDKM_LAYOUT_LOG_MASK	0xf0000u
#define RAIDKM_LAYOUT_RESERVED	0xfff00000u
/* The member log's size code, and its sectors per member (0: no log). */
#define RAIDKM_LAYOUT_LOG_CODE(layout) \
	(((layout) & RAIDKM_LAYOUT_LOG_MASK) >> RAIDKM_LAYOUT_LOG_SHIFT)
#define RAIDKM_LAYOUT_LOG_SECTORS(layout) \
	(RAIDKM_LAYOUT_LOG_CODE(layout) ? \
	 2048ULL << (RAIDKM_LAYOUT_LOG_CODE(layout) - 1) : 0ULL)
#define RAIDKM_LOG_MIN_KIB	1024		/* code 1 */
#define RAIDKM_LOG_MAX_KIB	(16 << 20)	/* code 15: 16 GiB */
#define RAIDKM_LAYOUT(m)	(m)
#define RAIDKM_ROT_KM		0
#define RAIDKM_ROT_RAID6	1
#define RAIDKM_LAYOUT_ROT(m, rot)	((m) | ((rot) << RAIDKM_LAYOUT_ALGO_SHIFT))

/* Geometry limits (k data + m parity members) */
#define RAIDKM_MIN_M		1
#define RAIDKM_MAX_M		16
#define RAIDKM_DEFAULT_M	2
#define RAIDKM_MIN_K		2
#define RAIDKM_MAX_MEMBERS	64
#define RAIDKM_MIN_CHUNK_KIB	4
/*
 * The smallest write journal (KiB of its data area) for an array of @n
 * members: the journal's super page, and a log four times one record of
 * a row written to every member and every replacement.
 */
#define RAIDKM_JOURNAL_MIN_KIB(n)	(4 + 16 * (2 * (n) + 1))

#endif /* _UAPI_RAIDKM_MD_H */
