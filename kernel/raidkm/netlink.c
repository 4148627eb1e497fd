// SPDX-License-Identifier: GPL-2.0
/*
 * Generic netlink family "raidkm" (uapi/raidkm.h): ATTACH, DETACH and
 * COMPLETE from the daemon (CAP_SYS_ADMIN and, through GENL_ADMIN_PERM,
 * CAP_NET_ADMIN), GET_STATS from anyone, and
 * the DOORBELL the kernel sends to the attached daemon.  Every attribute
 * is validated twice: by the genl policy, then semantically by the
 * freestanding ATTACH parser (ring/rkm_attach.c) the fuzz test drives.
 *
 * Handlers never complete jobs: COMPLETE only queues the dispatcher's
 * completion work, so no ->done callback runs in the receive path.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/netlink.h>
#include <linux/notifier.h>
#include <linux/capability.h>
#include <linux/slab.h>
#include <linux/ktime.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include "rkm_job.h"
#include "offload.h"
#include "ring/rkm_ring.h"

#define RKM_ALL_OPS	((1u << RAIDKM_OP_ENCODE) | (1u << RAIDKM_OP_DECODE) | \
			 (1u << RAIDKM_OP_DELTA) | (1u << RAIDKM_OP_CHECK))

static const struct nla_policy rkm_nl_policy[RAIDKM_A_MAX + 1] = {
	[RAIDKM_A_VERSION]	= { .type = NLA_U32 },
	[RAIDKM_A_FEATURES]	= { .type = NLA_U64 },
	[RAIDKM_A_SESSION]	= { .type = NLA_U64 },
	[RAIDKM_A_BACKEND]	= { .type = NLA_NUL_STRING,
				    .len = RAIDKM_BACKEND_NAME_MAX - 1 },
	[RAIDKM_A_MAX_K]	= NLA_POLICY_RANGE(NLA_U8, RAIDKM_MIN_K,
						   RAIDKM_MAX_N - 1),
	[RAIDKM_A_MAX_M]	= NLA_POLICY_RANGE(NLA_U8, 1, RAIDKM_MAX_M),
	[RAIDKM_A_BATCH]	= NLA_POLICY_RANGE(NLA_U32, 1,
						   RAIDKM_MAX_STRIPES),
	[RAIDKM_A_OPS]		= NLA_POLICY_MASK(NLA_U32, RKM_ALL_OPS),
	[RAIDKM_A_SQ_TAIL]	= { .type = NLA_U32 },
	[RAIDKM_A_CQ_TAIL]	= { .type = NLA_U32 },
	/* reply-only attributes are refused in requests */
	[RAIDKM_A_ATTACHED]	= { .type = NLA_REJECT },
	[RAIDKM_A_PID]		= { .type = NLA_REJECT },
	[RAIDKM_A_STATS]	= { .type = NLA_REJECT },
	[RAIDKM_A_ARRAY]	= { .type = NLA_REJECT },
	[RAIDKM_A_ARRAY_NAME]	= { .type = NLA_REJECT },
	[RAIDKM_A_PAD]		= { .type = NLA_REJECT },
	[RAIDKM_A_LATENCY]	= { .type = NLA_REJECT },
	[RAIDKM_A_DETACH]	= { .type = NLA_REJECT },
	[RAIDKM_A_DETACH_AGO_S]	= { .type = NLA_REJECT },
	[RAIDKM_A_DETACH_PID]	= { .type = NLA_REJECT },
	[RAIDKM_A_DETACH_BACKEND] = { .type = NLA_REJECT },
	[RAIDKM_A_DETACH_WHY]	= { .type = NLA_REJECT },
	[RAIDKM_A_DETACH_RERUNS] = { .type = NLA_REJECT },
	[RAIDKM_A_DETACH_FENCED] = { .type = NLA_REJECT },
	[RAIDKM_A_PLACEMENT]	= { .type = NLA_REJECT },
	[RAIDKM_A_PLACE]	= { .type = NLA_REJECT },
	[RAIDKM_A_PLACE_OP]	= { .type = NLA_REJECT },
	[RAIDKM_A_PLACE_CLASS]	= { .type = NLA_REJECT },
	[RAIDKM_A_PLACE_CPU_JOBS] = { .type = NLA_REJECT },
	[RAIDKM_A_PLACE_CPU_BYTES] = { .type = NLA_REJECT },
	[RAIDKM_A_PLACE_DAEMON_JOBS] = { .type = NLA_REJECT },
	[RAIDKM_A_PLACE_DAEMON_BYTES] = { .type = NLA_REJECT },
	[RAIDKM_A_PLACE_CPU_PS]	= { .type = NLA_REJECT },
	[RAIDKM_A_PLACE_DAEMON_NS] = { .type = NLA_REJECT },
	[RAIDKM_A_PLACE_DAEMON_PS] = { .type = NLA_REJECT },
	[RAIDKM_A_PLACE_DAEMON_QPS] = { .type = NLA_REJECT },
	[RAIDKM_A_PLACE_CPU_BUSY] = { .type = NLA_REJECT },
};

static_assert(RAIDKM_PLACE_OPS == RKM_PLACE_NOPS);
static_assert(RAIDKM_PLACE_CLASSES == RKM_PLACE_CLASSES);

/* GET_STATS' room for its PLACE nests (each under 128 bytes) */
#define RKM_NL_PLACE_SIZE	(RKM_PLACE_NOPS * RKM_PLACE_CLASSES * 128 + 64)

static struct genl_family rkm_genl_family;

/*
 * GENL_ADMIN_PERM only asks for CAP_NET_ADMIN: the commands that change
 * state also need CAP_SYS_ADMIN, checked like the genl core checks its
 * own (the socket's opener and the sender both hold it).
 */
static int rkm_nl_sysadmin(struct sk_buff *skb, struct genl_info *info)
{
	if (netlink_capable(skb, CAP_SYS_ADMIN))
		return 0;
	NL_SET_ERR_MSG(info->extack, "raidkm: CAP_SYS_ADMIN required");
	return -EPERM;
}

static int rkm_nl_attach(struct sk_buff *skb, struct genl_info *info)
{
	struct rkm_attach_req req;
	struct sk_buff *msg;
	const char *why;
	void *hdr;
	int ret;

	ret = rkm_nl_sysadmin(skb, info);
	if (ret)
		return ret;
	if (GENL_REQ_ATTR_CHECK(info, RAIDKM_A_VERSION) ||
	    GENL_REQ_ATTR_CHECK(info, RAIDKM_A_SESSION) ||
	    GENL_REQ_ATTR_CHECK(info, RAIDKM_A_BACKEND))
		return -EINVAL;
	rkm_attach_init(&req);
	ret = rkm_attach_parse(&req, genlmsg_data(info->genlhdr),
			       genlmsg_len(info->genlhdr), &why);
	if (ret) {
		info->extack->_msg = why;
		return -EINVAL;
	}

	msg = genlmsg_new(nla_total_size(sizeof(u32)) +
			  nla_total_size_64bit(sizeof(u64)), GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	ret = rkm_dispatch_attach(&req, genl_info_net(info), info->snd_portid,
				  info->extack);
	if (ret) {
		nlmsg_free(msg);
		return ret;
	}
	hdr = genlmsg_put_reply(msg, info, &rkm_genl_family, 0,
				RAIDKM_CMD_ATTACH);
	if (!hdr || nla_put_u32(msg, RAIDKM_A_VERSION, RAIDKM_PROTO_VERSION) ||
	    nla_put_u64_64bit(msg, RAIDKM_A_FEATURES, req.features,
			      RAIDKM_A_PAD)) {
		/* Attached all the same; the daemon sees kstate RUNNING. */
		nlmsg_free(msg);
		return 0;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static int rkm_nl_detach(struct sk_buff *skb, struct genl_info *info)
{
	if (rkm_nl_sysadmin(skb, info))
		return -EPERM;
	return rkm_dispatch_detach(genl_info_net(info), info->snd_portid,
				   info->extack);
}

static int rkm_nl_complete(struct sk_buff *skb, struct genl_info *info)
{
	if (rkm_nl_sysadmin(skb, info))
		return -EPERM;
	return rkm_dispatch_complete(genl_info_net(info), info->snd_portid,
				     info->extack);
}

static int put_stats(struct sk_buff *msg, const u64 *cnt)
{
	struct nlattr *nest;
	int i;

	nest = nla_nest_start(msg, RAIDKM_A_STATS);
	if (!nest)
		return -EMSGSIZE;
	for (i = RAIDKM_STAT_UNSPEC + 1; i <= RAIDKM_STAT_MAX; i++)
		if (i != RAIDKM_STAT_PAD &&
		    nla_put_u64_64bit(msg, i, cnt[i], RAIDKM_STAT_PAD))
			return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

static int put_array(void *arg, const char *name, const u64 *cnt)
{
	struct sk_buff *msg = arg;
	struct nlattr *nest;

	nest = nla_nest_start(msg, RAIDKM_A_ARRAY);
	if (!nest || nla_put_string(msg, RAIDKM_A_ARRAY_NAME, name) ||
	    put_stats(msg, cnt))
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

/* the latency histogram: bucket b as attribute type b + 1 */
static int put_latency(struct sk_buff *msg)
{
	u64 cnt[RAIDKM_LAT_BUCKETS];
	struct nlattr *nest;
	int b;

	rkm_hist_latency_read(cnt);
	nest = nla_nest_start(msg, RAIDKM_A_LATENCY);
	if (!nest)
		return -EMSGSIZE;
	for (b = 0; b < RAIDKM_LAT_BUCKETS; b++)
		if (nla_put_u64_64bit(msg, b + 1, cnt[b], RAIDKM_A_PAD))
			return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

static int put_detaches(struct sk_buff *msg)
{
	struct rkm_detach_rec *r;
	time64_t now = ktime_get_boottime_seconds();
	struct nlattr *nest;
	int i, n, ret = 0;

	r = kmalloc_array(RAIDKM_DETACH_LOG, sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	n = rkm_hist_detach_read(r);
	for (i = 0; i < n && !ret; i++) {
		nest = nla_nest_start(msg, RAIDKM_A_DETACH);
		if (!nest ||
		    nla_put_u64_64bit(msg, RAIDKM_A_DETACH_AGO_S,
				      now - r[i].when, RAIDKM_A_PAD) ||
		    nla_put_u32(msg, RAIDKM_A_DETACH_PID, r[i].pid) ||
		    nla_put_string(msg, RAIDKM_A_DETACH_BACKEND,
				   r[i].backend) ||
		    nla_put_string(msg, RAIDKM_A_DETACH_WHY, r[i].why) ||
		    nla_put_u32(msg, RAIDKM_A_DETACH_RERUNS, r[i].reruns) ||
		    nla_put_u8(msg, RAIDKM_A_DETACH_FENCED, r[i].fenced))
			ret = -EMSGSIZE;
		else
			nla_nest_end(msg, nest);
	}
	kfree(r);
	return ret;
}

/* one op and size class: what each side coded, the estimates */
static int put_place(struct sk_buff *msg, const struct rkm_place_counts *c,
		     int op, int cls)
{
	const int cs = RKM_PLACE_TO_CPU, ds = RKM_PLACE_TO_DAEMON;
	const struct rkm_place_cell *e = &c->cell[op][cls];
	struct nlattr *nest;

	nest = nla_nest_start(msg, RAIDKM_A_PLACE);
	if (!nest || nla_put_u8(msg, RAIDKM_A_PLACE_OP, op) ||
	    nla_put_u8(msg, RAIDKM_A_PLACE_CLASS, cls) ||
	    nla_put_u64_64bit(msg, RAIDKM_A_PLACE_CPU_JOBS,
			      c->jobs[cs][op][cls], RAIDKM_A_PAD) ||
	    nla_put_u64_64bit(msg, RAIDKM_A_PLACE_CPU_BYTES,
			      c->bytes[cs][op][cls], RAIDKM_A_PAD) ||
	    nla_put_u64_64bit(msg, RAIDKM_A_PLACE_DAEMON_JOBS,
			      c->jobs[ds][op][cls], RAIDKM_A_PAD) ||
	    nla_put_u64_64bit(msg, RAIDKM_A_PLACE_DAEMON_BYTES,
			      c->bytes[ds][op][cls], RAIDKM_A_PAD) ||
	    nla_put_u32(msg, RAIDKM_A_PLACE_CPU_PS, e->cpu_ps) ||
	    nla_put_u32(msg, RAIDKM_A_PLACE_DAEMON_NS, e->d_ns) ||
	    nla_put_u32(msg, RAIDKM_A_PLACE_DAEMON_PS, e->d_ps) ||
	    nla_put_u32(msg, RAIDKM_A_PLACE_DAEMON_QPS, e->d_qps))
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

static bool place_used(const struct rkm_place_counts *c, int op, int cls)
{
	return c->jobs[RKM_PLACE_TO_CPU][op][cls] ||
	       c->jobs[RKM_PLACE_TO_DAEMON][op][cls] || c->cell[op][cls].d_ns;
}

/*
 * the placement mode, the CPUs' busy share (what the CPU estimates of
 * large jobs are scaled by) and the op/class pairs that have seen jobs
 */
static int put_placement(struct sk_buff *msg)
{
	struct rkm_place_counts *c = kmalloc(sizeof(*c), GFP_KERNEL);
	int op, cls, ret = 0;

	if (!c)
		return -ENOMEM;
	rkm_place_read(c);
	if (nla_put_string(msg, RAIDKM_A_PLACEMENT,
			   rkm_place_mode_name(rkm_place_mode())) ||
	    nla_put_u8(msg, RAIDKM_A_PLACE_CPU_BUSY,
		       rkm_cpus_busy_pct(ktime_get_ns())))
		ret = -EMSGSIZE;
	for (op = 0; op < RKM_PLACE_NOPS && !ret; op++)
		for (cls = 0; cls < RKM_PLACE_CLASSES && !ret; cls++)
			if (place_used(c, op, cls))
				ret = put_place(msg, c, op, cls);
	kfree(c);
	return ret;
}

static int rkm_nl_get_stats(struct sk_buff *skb, struct genl_info *info)
{
	u64 cnt[__RAIDKM_STAT_MAX];
	struct rkm_daemon_info di;
	struct sk_buff *msg;
	void *hdr;
	int i;

	msg = genlmsg_new(NLMSG_GOODSIZE + RKM_NL_PLACE_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &rkm_genl_family, 0,
				RAIDKM_CMD_GET_STATS);
	if (!hdr)
		goto too_big;
	rkm_dispatch_info(&di);
	if (nla_put_u8(msg, RAIDKM_A_ATTACHED, di.attached))
		goto too_big;
	if (di.attached &&
	    (nla_put_u32(msg, RAIDKM_A_PID, di.pid) ||
	     nla_put_string(msg, RAIDKM_A_BACKEND, di.backend)))
		goto too_big;
	for (i = 0; i < __RAIDKM_STAT_MAX; i++)
		cnt[i] = atomic64_read(&rkm_stats[i]);
	if (put_stats(msg, cnt) || rkm_job_stats_each(put_array, msg) ||
	    put_latency(msg) || put_detaches(msg) || put_placement(msg))
		goto too_big;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

too_big:
	nlmsg_free(msg);
	return -EMSGSIZE;
}

static const struct genl_small_ops rkm_nl_ops[] = {
	{
		.cmd	= RAIDKM_CMD_ATTACH,
		.doit	= rkm_nl_attach,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= RAIDKM_CMD_DETACH,
		.doit	= rkm_nl_detach,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= RAIDKM_CMD_COMPLETE,
		.doit	= rkm_nl_complete,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= RAIDKM_CMD_GET_STATS,
		.doit	= rkm_nl_get_stats,
	},
};

static struct genl_family rkm_genl_family __ro_after_init = {
	.name		= RAIDKM_GENL_NAME,
	.version	= RAIDKM_GENL_VERSION,
	.maxattr	= RAIDKM_A_MAX,
	.policy		= rkm_nl_policy,
	.module		= THIS_MODULE,
	.small_ops	= rkm_nl_ops,
	.n_small_ops	= ARRAY_SIZE(rkm_nl_ops),
	.resv_start_op	= RAIDKM_CMD_MAX + 1,
};

int rkm_netlink_doorbell(struct net *net, u32 portid, u32 sq_tail)
{
	struct sk_buff *msg;
	void *hdr;

	msg = genlmsg_new(nla_total_size(sizeof(u32)), GFP_NOIO);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put(msg, 0, 0, &rkm_genl_family, 0,
			  RAIDKM_CMD_DOORBELL);
	if (!hdr || nla_put_u32(msg, RAIDKM_A_SQ_TAIL, sq_tail)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_unicast(net, msg, portid);
}

/* A netlink socket went away: if it was the daemon's, the daemon is lost. */
static int rkm_nl_notify(struct notifier_block *nb, unsigned long event,
			 void *ptr)
{
	struct netlink_notify *n = ptr;

	if (event == NETLINK_URELEASE && n->protocol == NETLINK_GENERIC &&
	    n->portid)
		rkm_dispatch_port_gone(n->net, n->portid);
	return NOTIFY_DONE;
}

static struct notifier_block rkm_nl_notifier = {
	.notifier_call = rkm_nl_notify,
};

int rkm_netlink_init(void)
{
	int ret;

	ret = netlink_register_notifier(&rkm_nl_notifier);
	if (ret)
		return ret;
	ret = genl_register_family(&rkm_genl_family);
	if (ret)
		netlink_unregister_notifier(&rkm_nl_notifier);
	return ret;
}

void rkm_netlink_exit(void)
{
	genl_unregister_family(&rkm_genl_family);
	netlink_unregister_notifier(&rkm_nl_notifier);
}
