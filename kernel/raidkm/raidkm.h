/* SPDX-License-Identifier: GPL-2.0 */
/* Entry points between raidkm's module core and its parts. */
#ifndef RAIDKM_H
#define RAIDKM_H

int rkm_personality_register(void);
void rkm_personality_unregister(void);

/* The offload path (offload.c): after the codec, before the personality */
int rkm_offload_init(void);
void rkm_offload_exit(void);

#endif /* RAIDKM_H */
