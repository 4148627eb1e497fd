// SPDX-License-Identifier: GPL-2.0
/*
 * The shared control region of /dev/raidkm: the header page, the two
 * rings and the descriptor slots (layout by ring/rkm_shm.c, as the uapi
 * defines it), followed in the mapping by the arena (inputs) and the
 * staging pool (outputs).  One vmalloc_user() area, allocated at load;
 * re-initialised on every open of the device.
 *
 * The daemon maps the three parts, MAP_SHARED, each at its own offset:
 * the control region and staging read-write, the arena read-only.  A
 * mapping that covers an arena page is refused when writable and loses
 * VM_MAYWRITE, so it can never become writable (mprotect, mremap,
 * FOLL_FORCE).  Every page is an ordinary page inserted with
 * vm_insert_pages(), never a PFN map, so raidkmd can register the arena
 * (read-only) and staging with cudaHostRegister.
 */
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/fs.h>
#include <linux/vmalloc.h>
#include <linux/slab.h>
#include "offload.h"
#include "compat/compat.h"
#include "ring/rkm_ring.h"

static struct {
	void *ctl;			/* header, rings, descriptors */
	u64 ctl_bytes;			/* == hdr->arena_off */
	u64 in_end;			/* == hdr->stage_off */
	u64 map_bytes;			/* == hdr->map_size */
	struct page **map_pages;	/* every page of the mapping, in order */
	unsigned long map_npages;
	struct page *trash;		/* mapped over revoked arena pages */
} shm;

static void shm_params(struct rkm_shm_params *p, u64 session)
{
	memset(p, 0, sizeof(*p));
	p->page_size = PAGE_SIZE;
	p->entries = RKM_SHM_ENTRIES;
	p->desc_slot_size = RKM_SHM_DESC_SLOT;
	p->max_stripes = RKM_SHM_MAX_STRIPES;
	p->max_len = RAIDKM_MAX_LEN;
	p->arena_size = rkm_arena_bytes();
	p->stage_size = rkm_stage_bytes();
	p->features = RAIDKM_FEAT_ALL;
	p->session = session;
}

int rkm_shm_init(void)
{
	struct raidkm_shm_hdr *probe;
	struct rkm_shm_params p;
	unsigned long i, nctl, nin;
	int ret;

	BUILD_BUG_ON(sizeof(struct raidkm_shm_hdr) > RAIDKM_HDR_SIZE);
	BUILD_BUG_ON(RKM_SHM_DESC_SLOT < 8 * RKM_SHM_MAX_STRIPES *
		     (RAIDKM_MAX_N + RAIDKM_MAX_N - 1));

	/* Lay out once into a scratch page to learn the sizes. */
	probe = kzalloc(RAIDKM_HDR_SIZE, GFP_KERNEL);
	if (!probe)
		return -ENOMEM;
	shm_params(&p, 0);
	ret = rkm_shm_layout(probe, &p);
	shm.ctl_bytes = probe->arena_off;
	shm.in_end = probe->stage_off;
	shm.map_bytes = probe->map_size;
	kfree(probe);
	if (ret) {
		pr_err("raidkm: bad shared memory layout\n");
		return -EINVAL;
	}

	shm.trash = alloc_page(GFP_KERNEL | __GFP_ZERO);
	shm.ctl = vmalloc_user(shm.ctl_bytes);
	nctl = shm.ctl_bytes >> PAGE_SHIFT;
	shm.map_npages = shm.map_bytes >> PAGE_SHIFT;
	shm.map_pages = kvcalloc(shm.map_npages, sizeof(*shm.map_pages),
				 GFP_KERNEL);
	if (!shm.ctl || !shm.map_pages || !shm.trash) {
		vfree(shm.ctl);
		kvfree(shm.map_pages);
		if (shm.trash)
			__free_page(shm.trash);
		shm.trash = NULL;
		shm.ctl = NULL;
		shm.map_pages = NULL;
		return -ENOMEM;
	}
	for (i = 0; i < nctl; i++)
		shm.map_pages[i] = vmalloc_to_page(shm.ctl + i * PAGE_SIZE);
	nin = shm.in_end >> PAGE_SHIFT;
	for (; i < nin; i++)
		shm.map_pages[i] = rkm_arena_page(i - nctl);
	for (; i < shm.map_npages; i++)
		shm.map_pages[i] = rkm_stage_page(i - nin);
	return rkm_shm_reset(0);
}

void rkm_shm_exit(void)
{
	if (shm.trash)
		__free_page(shm.trash);
	shm.trash = NULL;
	vfree(shm.ctl);
	kvfree(shm.map_pages);
	shm.ctl = NULL;
	shm.map_pages = NULL;
}

/* Fresh header, empty rings, zeroed descriptors: called on each open. */
int rkm_shm_reset(u64 session)
{
	struct rkm_shm_params p;

	memset(shm.ctl, 0, shm.ctl_bytes);
	shm_params(&p, session);
	return rkm_shm_layout(shm.ctl, &p) ? -EINVAL : 0;
}

struct raidkm_shm_hdr *rkm_shm_hdr(void)
{
	return shm.ctl;
}

void *rkm_shm_ptr(u64 off)
{
	return off < shm.ctl_bytes ? shm.ctl + off : NULL;
}

/*
 * Every page is inserted at mmap time, so a fault only happens in the
 * arena after the kernel revoked it from a dropped daemon: map the trash
 * page there, so the daemon's late writes land harmlessly and it lives on
 * to read kstate CLOSED and close the device.
 */
static vm_fault_t shm_fault(struct vm_fault *vmf)
{
	if (vmf->pgoff < (shm.ctl_bytes >> PAGE_SHIFT) ||
	    vmf->pgoff >= shm.map_npages)
		return VM_FAULT_SIGBUS;
	get_page(shm.trash);
	vmf->page = shm.trash;
	return 0;
}

static const struct vm_operations_struct shm_vm_ops = {
	.fault = shm_fault,
};

/*
 * Map any page range of the region (the daemon maps the header alone
 * first, then each part at its own offset).  *covers: the parts the
 * mapping holds in full (RKM_SHM_*).
 */
int rkm_shm_mmap(struct vm_area_struct *vma, unsigned int *covers)
{
	u64 start = (u64)vma->vm_pgoff << PAGE_SHIFT;
	u64 len = vma->vm_end - vma->vm_start;
	unsigned long num = len >> PAGE_SHIFT;
	int ret;

	*covers = 0;
	if (vma->vm_pgoff >= shm.map_npages ||
	    num > shm.map_npages - vma->vm_pgoff)
		return -EINVAL;
	if (!(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;
	/* Inputs: never writable through this mapping, now or later. */
	if (start < shm.in_end && start + len > shm.ctl_bytes) {
		if (vma->vm_flags & VM_WRITE)
			return -EACCES;
		rkm_vm_flags_clear(vma, VM_MAYWRITE);
	}
	rkm_vm_flags_set(vma, VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_ops = &shm_vm_ops;
	ret = vm_insert_pages(vma, vma->vm_start,
			      shm.map_pages + vma->vm_pgoff, &num);
	if (ret)
		return ret;
	if (num)
		return -EFAULT;
	if (start == 0 && len >= shm.ctl_bytes)
		*covers |= RKM_SHM_CTL;
	if (start <= shm.ctl_bytes && start + len >= shm.in_end)
		*covers |= RKM_SHM_INPUT;
	if (start <= shm.in_end && start + len >= shm.map_bytes)
		*covers |= RKM_SHM_STAGE;
	return 0;
}

/* Take every page of the arena away from whoever maps @mapping. */
void rkm_shm_revoke(struct address_space *mapping)
{
	unmap_mapping_range(mapping, shm.ctl_bytes,
			    shm.map_bytes - shm.ctl_bytes, 1);
}
