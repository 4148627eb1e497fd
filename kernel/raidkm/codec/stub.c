// SPDX-License-Identifier: GPL-2.0
/* Temporary stand-in until the codec lands. */
#include "rkm_codec.h"
int rkm_codec_init(void) { return 0; }
const char *rkm_codec_impl(void) { return "none"; }
int rkm_code_k(const struct rkm_code *c) { return 0; }
int rkm_encode(struct rkm_code *c, rkm_size_t l, const rkm_u8 *const *d, rkm_u8 *const *p) { return -22; }
int rkm_decode(struct rkm_code *c, rkm_size_t l, rkm_u64 e, rkm_u8 *const *ch) { return -22; }
int rkm_delta(struct rkm_code *c, rkm_size_t l, rkm_u64 x, const rkm_u8 *const *o, const rkm_u8 *const *n, rkm_u8 *const *p) { return -22; }
int rkm_check(struct rkm_code *c, rkm_size_t l, const rkm_u8 *const *ch, rkm_u8 *s) { return -22; }
int rkm_locate(struct rkm_code *c, rkm_size_t l, const rkm_u8 *const *ch, rkm_u8 *s) { return -22; }
