// SPDX-License-Identifier: GPL-2.0
/*
 * raidkmctl: query raidkm's offload path over the "raidkm" generic
 * netlink family (RAIDKM_CMD_GET_STATS), and raidkmd's GPUs from its
 * status file (ctl_gpus.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/netlink.h>
#include <netlink/genl/genl.h>
#include <netlink/genl/ctrl.h>
#include <netlink/msg.h>
#include <netlink/attr.h>

#include "uapi/raidkm.h"
#include "ctl_status.h"

struct reply {
	int got, err;
	struct rkmctl_status *st;
};

static void get_counters(struct nlattr *nest, struct rkmctl_counters *c)
{
	struct nlattr *tb[RAIDKM_STAT_MAX + 1];
	int i;

	if (nla_parse_nested(tb, RAIDKM_STAT_MAX, nest, NULL))
		return;
	for (i = 1; i <= RAIDKM_STAT_MAX; i++) {
		if (!tb[i] || i == RAIDKM_STAT_PAD || nla_len(tb[i]) != 8)
			continue;
		c->have[i] = 1;
		c->v[i] = nla_get_u64(tb[i]);
	}
}

static void get_string(char *dst, size_t n, struct nlattr *a)
{
	snprintf(dst, n, "%s", a ? nla_get_string(a) : "?");
}

static void get_latency(struct nlattr *nest, struct rkmctl_status *st)
{
	struct nlattr *tb[RAIDKM_LAT_BUCKETS + 1];
	int b;

	if (nla_parse_nested(tb, RAIDKM_LAT_BUCKETS, nest, NULL))
		return;
	st->have_latency = 1;
	for (b = 0; b < RAIDKM_LAT_BUCKETS; b++)
		if (tb[b + 1] && nla_len(tb[b + 1]) == 8)
			st->latency[b] = nla_get_u64(tb[b + 1]);
}

static void get_detach(struct nlattr *nest, struct rkmctl_status *st)
{
	struct nlattr *tb[RAIDKM_A_MAX + 1];
	struct rkmctl_detach *d;

	if (st->ndetach >= RAIDKM_DETACH_LOG ||
	    nla_parse_nested(tb, RAIDKM_A_MAX, nest, NULL))
		return;
	d = &st->detach[st->ndetach++];
	if (tb[RAIDKM_A_DETACH_AGO_S])
		d->ago_s = nla_get_u64(tb[RAIDKM_A_DETACH_AGO_S]);
	if (tb[RAIDKM_A_DETACH_PID])
		d->pid = nla_get_u32(tb[RAIDKM_A_DETACH_PID]);
	get_string(d->backend, sizeof(d->backend), tb[RAIDKM_A_DETACH_BACKEND]);
	get_string(d->why, sizeof(d->why), tb[RAIDKM_A_DETACH_WHY]);
	if (tb[RAIDKM_A_DETACH_RERUNS])
		d->reruns = nla_get_u32(tb[RAIDKM_A_DETACH_RERUNS]);
	if (tb[RAIDKM_A_DETACH_FENCED])
		d->fenced = nla_get_u8(tb[RAIDKM_A_DETACH_FENCED]);
}

static uint64_t get_u64(struct nlattr *a)
{
	return a ? nla_get_u64(a) : 0;
}

static uint32_t get_u32(struct nlattr *a)
{
	return a ? nla_get_u32(a) : 0;
}

/* one PLACE nest; op or class out of range: skipped */
static void get_place(struct nlattr *nest, struct rkmctl_status *st)
{
	struct nlattr *tb[RAIDKM_A_MAX + 1];
	struct rkmctl_place *p;

	if (st->nplace >= RKMCTL_MAX_PLACE ||
	    nla_parse_nested(tb, RAIDKM_A_MAX, nest, NULL) ||
	    !tb[RAIDKM_A_PLACE_OP] || !tb[RAIDKM_A_PLACE_CLASS] ||
	    nla_get_u8(tb[RAIDKM_A_PLACE_OP]) >= RAIDKM_PLACE_OPS ||
	    nla_get_u8(tb[RAIDKM_A_PLACE_CLASS]) >= RAIDKM_PLACE_CLASSES)
		return;
	p = &st->place[st->nplace++];
	p->op = nla_get_u8(tb[RAIDKM_A_PLACE_OP]);
	p->cls = nla_get_u8(tb[RAIDKM_A_PLACE_CLASS]);
	p->cpu_jobs = get_u64(tb[RAIDKM_A_PLACE_CPU_JOBS]);
	p->cpu_bytes = get_u64(tb[RAIDKM_A_PLACE_CPU_BYTES]);
	p->daemon_jobs = get_u64(tb[RAIDKM_A_PLACE_DAEMON_JOBS]);
	p->daemon_bytes = get_u64(tb[RAIDKM_A_PLACE_DAEMON_BYTES]);
	p->cpu_ps = get_u32(tb[RAIDKM_A_PLACE_CPU_PS]);
	p->daemon_ns = get_u32(tb[RAIDKM_A_PLACE_DAEMON_NS]);
	p->daemon_ps = get_u32(tb[RAIDKM_A_PLACE_DAEMON_PS]);
	p->daemon_qps = get_u32(tb[RAIDKM_A_PLACE_DAEMON_QPS]);
}

static int on_reply(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[RAIDKM_A_MAX + 1], *a, *at[RAIDKM_A_MAX + 1];
	struct reply *r = arg;
	struct rkmctl_status *st = r->st;
	int rem, i;

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, RAIDKM_A_MAX, NULL))
		return NL_SKIP;
	r->got = 1;
	if (tb[RAIDKM_A_ATTACHED] && nla_get_u8(tb[RAIDKM_A_ATTACHED])) {
		st->attached = 1;
		st->pid = tb[RAIDKM_A_PID] ? nla_get_u32(tb[RAIDKM_A_PID]) : 0;
		get_string(st->backend, sizeof(st->backend),
			   tb[RAIDKM_A_BACKEND]);
	}
	if (tb[RAIDKM_A_STATS])
		get_counters(tb[RAIDKM_A_STATS], &st->global);
	if (tb[RAIDKM_A_LATENCY])
		get_latency(tb[RAIDKM_A_LATENCY], st);
	if (tb[RAIDKM_A_PLACEMENT])
		get_string(st->placement, sizeof(st->placement),
			   tb[RAIDKM_A_PLACEMENT]);
	if (tb[RAIDKM_A_PLACE_CPU_BUSY]) {
		st->has_cpu_busy = 1;
		st->cpu_busy = nla_get_u8(tb[RAIDKM_A_PLACE_CPU_BUSY]);
	}
	nlmsg_for_each_attr(a, nlmsg_hdr(msg), GENL_HDRLEN, rem) {
		if (nla_type(a) == RAIDKM_A_DETACH) {
			get_detach(a, st);
			continue;
		}
		if (nla_type(a) == RAIDKM_A_PLACE) {
			get_place(a, st);
			continue;
		}
		if (nla_type(a) != RAIDKM_A_ARRAY ||
		    st->narrays >= RKMCTL_MAX_ARRAYS ||
		    nla_parse_nested(at, RAIDKM_A_MAX, a, NULL))
			continue;
		i = st->narrays++;
		get_string(st->array[i].name, sizeof(st->array[i].name),
			   at[RAIDKM_A_ARRAY_NAME]);
		if (at[RAIDKM_A_STATS])
			get_counters(at[RAIDKM_A_STATS], &st->array[i].c);
		rkmctl_km_read("/sys", st->array[i].name, &st->array[i].km);
	}
	return NL_OK;
}

static int on_error(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct reply *r = arg;

	r->err = e->error;
	return NL_STOP;
}

static int status(int json, const char *gpus_file)
{
	static struct rkmctl_status st;
	struct reply r = { 0, 0, &st };
	struct nl_sock *sk;
	struct nl_msg *msg;
	int family, ret = 1;

	rkmctl_gpus_read(gpus_file, "/proc", &st.gpus);
	sk = nl_socket_alloc();
	if (!sk || genl_connect(sk)) {
		fprintf(stderr, "raidkmctl: cannot open a generic netlink socket\n");
		goto out;
	}
	family = genl_ctrl_resolve(sk, RAIDKM_GENL_NAME);
	if (family < 0) {
		fprintf(stderr, "raidkmctl: the raidkm module is not loaded (no generic netlink family \"%s\")\n",
			RAIDKM_GENL_NAME);
		/* a GPU host serving a VM (--bridge) has no module */
		if (!json)
			rkmctl_print_gpus(stdout, &st.gpus);
		goto out;
	}
	msg = nlmsg_alloc();
	if (!msg || !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0,
				 NLM_F_ACK, RAIDKM_CMD_GET_STATS,
				 RAIDKM_GENL_VERSION)) {
		fprintf(stderr, "raidkmctl: out of memory\n");
		goto out;
	}
	/* the reply may be larger than a page: read it whole */
	nl_socket_enable_msg_peek(sk);
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, on_reply, &r);
	nl_socket_modify_err_cb(sk, NL_CB_CUSTOM, on_error, &r);
	if (nl_send_auto(sk, msg) < 0) {
		nlmsg_free(msg);
		fprintf(stderr, "raidkmctl: netlink send failed\n");
		goto out;
	}
	nlmsg_free(msg);
	ret = nl_recvmsgs_default(sk);
	if (r.err) {
		fprintf(stderr, "raidkmctl: GET_STATS: %s\n", strerror(-r.err));
		ret = 1;
	} else if (ret < 0 || !r.got) {
		fprintf(stderr, "raidkmctl: no answer from raidkm: %s\n",
			ret < 0 ? nl_geterror(ret) : "empty reply");
		ret = 1;
	} else {
		if (json)
			rkmctl_print_json(stdout, &st);
		else
			rkmctl_print_text(stdout, &st);
		ret = 0;
	}
out:
	if (sk)
		nl_socket_free(sk);
	return ret;
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: raidkmctl status [--json] [--status-file=PATH]\n"
"Show raidkm's offload path: the attached coding daemon (raidkmd: pid,\n"
"backend) and the counters, global and per km array (jobs offloaded to\n"
"the daemon, jobs run on the in-kernel CPU codec, deadline misses, re-runs\n"
"after daemon loss, verify mismatches, bytes offloaded, detaches, ...);\n"
"the latency of the ring entries the daemon completed (percentiles of a\n"
"log2 histogram, posting to completion); and the last daemon sessions'\n"
"ends with their reasons.  With a raidkmd on the cuda backend, each GPU\n"
"instance: serving or dropped and why, jobs, MiB, re-runs and jobs failed\n"
"back, from raidkmd's status file (--status-file=PATH, else\n"
"$RAIDKMD_STATUS_FILE, else " RKMD_GPU_STATUS_FILE "; no file: no GPU lines;\n"
"a file left by a raidkmd that stopped is ignored and said so).\n"
"Placement (the module parameter placement): per op and job size, the\n"
"jobs and MiB coded on the CPU and by the daemon and the estimates that\n"
"decide where the next job goes.\n"
"--json prints one JSON object for monitoring.\n"
"Per km array, the data path's counters (wide reads, member reads, fallbacks\n"
"by reason) from /sys/block/mdX/md/km/, where they also are.\n"
"Exit status: 0, 1 when raidkm is not loaded, 2 for bad usage.\n");
}

int main(int argc, char **argv)
{
	const char *gpus_file = getenv("RAIDKMD_STATUS_FILE");
	int json = 0, i;

	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return 0;
	}
	if (argc < 2 || strcmp(argv[1], "status")) {
		usage(stderr);
		return 2;
	}
	if (!gpus_file)
		gpus_file = RKMD_GPU_STATUS_FILE;
	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--json") && !json) {
			json = 1;
		} else if (!strncmp(argv[i], "--status-file=", 14)) {
			gpus_file = argv[i] + 14;
		} else {
			usage(stderr);
			return 2;
		}
	}
	return status(json, gpus_file);
}
