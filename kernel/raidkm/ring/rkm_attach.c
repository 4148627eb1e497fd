// SPDX-License-Identifier: GPL-2.0
/*
 * ATTACH request validation, shared by the kernel's genl handler (after
 * the genl policy check, as a second, semantic line of defence) and the
 * user-space fuzz test, which feeds rkm_attach_parse() raw bytes.
 */
#include "rkm_ring.h"

/* struct nlattr, as on the wire (<linux/netlink.h>) */
struct rkm_nla_hdr {
	__u16 nla_len;
	__u16 nla_type;
};

#define RKM_NLA_ALIGN(x)	(((x) + 3u) & ~3u)
#define RKM_NLA_TYPE_MASK	0x3fffu	/* strip NESTED / BYTEORDER flags */

void rkm_attach_init(struct rkm_attach_req *r)
{
	memset(r, 0, sizeof(*r));
	r->max_k = RAIDKM_MAX_N - 1;
	r->max_m = RAIDKM_MAX_M;
	r->batch = 1;
	r->ops = (1u << RAIDKM_OP_ENCODE) | (1u << RAIDKM_OP_DECODE) |
		 (1u << RAIDKM_OP_DELTA) | (1u << RAIDKM_OP_CHECK);
}

static __u32 get_u32(const void *p)
{
	__u32 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static __u64 get_u64(const void *p)
{
	__u64 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static int backend_name_ok(const char *s, __u32 len)
{
	__u32 i;

	/* NUL-terminated within len, 1..RAIDKM_BACKEND_NAME_MAX-1 chars */
	if (len < 2)
		return 0;
	for (i = 0; i < len; i++) {
		char c = s[i];

		if (!c)
			return i >= 1 && i < RAIDKM_BACKEND_NAME_MAX;
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-'))
			return 0;
	}
	return 0;
}

int rkm_attach_attr(struct rkm_attach_req *r, __u16 type, const void *data,
		    __u32 len, const char **why)
{
	*why = NULL;
	type &= RKM_NLA_TYPE_MASK;
	if (type == RAIDKM_A_UNSPEC || type > RAIDKM_A_MAX)
		return 0;
	/*
	 * ATTACH's own attributes are all below 32 (r->present's bits);
	 * the later ones (GET_STATS replies) are ignored like the others
	 * it does not use.
	 */
	if (type >= 32)
		return 0;
	if (r->present & (1u << type)) {
		*why = "attribute repeated";
		return -RKM_RING_EINVAL;
	}
	switch (type) {
	case RAIDKM_A_VERSION:
	case RAIDKM_A_BATCH:
	case RAIDKM_A_OPS:
		if (len != 4)
			break;
		if (type == RAIDKM_A_VERSION)
			r->version = get_u32(data);
		else if (type == RAIDKM_A_BATCH)
			r->batch = get_u32(data);
		else
			r->ops = get_u32(data);
		r->present |= 1u << type;
		return 0;
	case RAIDKM_A_FEATURES:
	case RAIDKM_A_SESSION:
		if (len != 8)
			break;
		if (type == RAIDKM_A_FEATURES)
			r->features = get_u64(data);
		else
			r->session = get_u64(data);
		r->present |= 1u << type;
		return 0;
	case RAIDKM_A_MAX_K:
	case RAIDKM_A_MAX_M:
		if (len != 1)
			break;
		if (type == RAIDKM_A_MAX_K)
			r->max_k = *(const __u8 *)data;
		else
			r->max_m = *(const __u8 *)data;
		r->present |= 1u << type;
		return 0;
	case RAIDKM_A_BACKEND:
		if (!backend_name_ok(data, len)) {
			*why = "backend name: 1-15 characters of [a-z0-9_-]";
			return -RKM_RING_EINVAL;
		}
		memset(r->backend, 0, sizeof(r->backend));
		memcpy(r->backend, data,
		       len < sizeof(r->backend) ? len : sizeof(r->backend) - 1);
		r->present |= 1u << type;
		return 0;
	default:
		/* Attributes ATTACH does not use are ignored. */
		return 0;
	}
	*why = "attribute has the wrong length";
	return -RKM_RING_EINVAL;
}

int rkm_attach_check(struct rkm_attach_req *r, __u64 session,
		     __u64 offered, const char **why)
{
	const __u32 need = (1u << RAIDKM_A_VERSION) |
			   (1u << RAIDKM_A_SESSION) |
			   (1u << RAIDKM_A_BACKEND);
	const __u32 all_ops = (1u << RAIDKM_OP_ENCODE) |
			      (1u << RAIDKM_OP_DECODE) |
			      (1u << RAIDKM_OP_DELTA) |
			      (1u << RAIDKM_OP_CHECK);

	*why = NULL;
	if ((r->present & need) != need) {
		*why = "VERSION, SESSION and BACKEND are required";
		return -RKM_RING_EINVAL;
	}
	if (r->version != RAIDKM_PROTO_VERSION) {
		*why = "protocol version mismatch";
		return -RKM_RING_EPROTO;
	}
	if (r->session != session) {
		*why = "session does not match the open /dev/raidkm";
		return -RKM_RING_ESTALE;
	}
	if (r->max_k < RAIDKM_MIN_K || r->max_k > RAIDKM_MAX_N - 1)
		*why = "MAX_K out of range";
	else if (r->max_m < 1 || r->max_m > RAIDKM_MAX_M)
		*why = "MAX_M out of range";
	else if (r->batch < 1 || r->batch > RAIDKM_MAX_STRIPES)
		*why = "BATCH out of range";
	else if (!r->ops || (r->ops & ~all_ops))
		*why = "OPS names an unknown op";
	if (*why)
		return -RKM_RING_EINVAL;
	/* Offered, RO_INPUT is required: the split mapping is the guarantee. */
	if ((offered & RAIDKM_FEAT_RO_INPUT) &&
	    !(r->features & RAIDKM_FEAT_RO_INPUT)) {
		*why = "daemon does not map inputs read-only (RAIDKM_FEAT_RO_INPUT required)";
		return -RKM_RING_EPROTO;
	}
	r->features &= offered & RAIDKM_FEAT_ALL;
	return 0;
}

int rkm_attach_parse(struct rkm_attach_req *r, const void *buf, __u32 len,
		     const char **why)
{
	const unsigned char *p = buf;
	struct rkm_nla_hdr h;
	__u32 pos = 0;
	int ret;

	*why = NULL;
	while (len - pos >= sizeof(h)) {
		memcpy(&h, p + pos, sizeof(h));
		if (h.nla_len < sizeof(h) || h.nla_len > len - pos) {
			*why = "attribute length runs past the message";
			return -RKM_RING_EINVAL;
		}
		ret = rkm_attach_attr(r, h.nla_type, p + pos + sizeof(h),
				      h.nla_len - sizeof(h), why);
		if (ret)
			return ret;
		if (RKM_NLA_ALIGN(h.nla_len) >= len - pos)
			return 0;
		pos += RKM_NLA_ALIGN(h.nla_len);
	}
	if (pos != len) {
		*why = "trailing bytes after the last attribute";
		return -RKM_RING_EINVAL;
	}
	return 0;
}
