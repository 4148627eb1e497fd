/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Copies of data pages: the whole pages of a range whose source and
 * destination lie alike in their pages by copy_page(), the rest by
 * memcpy().  copy_page() moves eight bytes a step (rep movsq, or
 * its unrolled loop), as a ramdisk's page copy does; memcpy() of a length
 * known only at run time becomes rep movsb on CPUs with ERMS, which an
 * emulated guest (QEMU TCG) steps one byte at a time: there it cost the
 * data path several times the ramdisk's copy per byte (bench-gpu-guest's
 * profile pass).  On hardware the two are alike.
 */
#ifndef _RKM_COPY_H
#define _RKM_COPY_H

#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/string.h>

static inline void rkm_copy(void *dst, const void *src, size_t len)
{
	size_t head = min_t(size_t, len, -(unsigned long)dst & ~PAGE_MASK);

	if (((unsigned long)dst ^ (unsigned long)src) & ~PAGE_MASK) {
		memcpy(dst, src, len);	/* the pages never line up */
		return;
	}
	memcpy(dst, src, head);
	dst += head;
	src += head;
	len -= head;
	for (; len >= PAGE_SIZE; len -= PAGE_SIZE) {
		copy_page(dst, (void *)src);
		dst += PAGE_SIZE;
		src += PAGE_SIZE;
	}
	memcpy(dst, src, len);
}

/* @len bytes at @off of @page from @src (within the page) */
static inline void rkm_copy_to_page(struct page *page, unsigned int off,
				    const void *src, size_t len)
{
	char *to = kmap_local_page(page);

	rkm_copy(to + off, src, len);
	kunmap_local(to);
}

/* @len bytes at @off of @page to @dst (within the page) */
static inline void rkm_copy_from_page(void *dst, struct page *page,
				      unsigned int off, size_t len)
{
	char *from = kmap_local_page(page);

	rkm_copy(dst, from + off, len);
	kunmap_local(from);
}

#endif
