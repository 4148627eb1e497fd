// SPDX-License-Identifier: GPL-2.0
/* vma->vm_flags is read-only; it changes through vm_flags_set/clear(). */
#include <linux/module.h>
#include <linux/mm.h>

void rkm_check(struct vm_area_struct *vma);
void rkm_check(struct vm_area_struct *vma)
{
	vm_flags_set(vma, VM_DONTCOPY);
	vm_flags_clear(vma, VM_MAYWRITE);
}
