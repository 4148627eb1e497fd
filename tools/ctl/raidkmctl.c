// SPDX-License-Identifier: GPL-2.0
/*
 * raidkmctl: query raidkm's offload path over the "raidkm" generic
 * netlink family (RAIDKM_CMD_GET_STATS).
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

static const char *const stat_names[RAIDKM_STAT_MAX + 1] = {
	[RAIDKM_STAT_JOBS_OFFLOADED] = "jobs offloaded",
	[RAIDKM_STAT_JOBS_CPU] = "jobs on the CPU",
	[RAIDKM_STAT_DEADLINE_MISSES] = "deadline misses",
	[RAIDKM_STAT_RERUNS] = "re-runs after daemon loss",
	[RAIDKM_STAT_VERIFY_MISMATCHES] = "verify mismatches",
	[RAIDKM_STAT_BYTES_OFFLOADED] = "bytes offloaded",
	[RAIDKM_STAT_BAD_COMPLETIONS] = "bad completions",
	[RAIDKM_STAT_STALE_COMPLETIONS] = "stale completions",
	[RAIDKM_STAT_DOORBELLS] = "doorbells sent",
	[RAIDKM_STAT_ATTACHES] = "attaches",
};

struct reply {
	int got, err;
};

static void print_stats(struct nlattr *nest, const char *indent)
{
	struct nlattr *tb[RAIDKM_STAT_MAX + 1];
	int i;

	if (nla_parse_nested(tb, RAIDKM_STAT_MAX, nest, NULL))
		return;
	for (i = 1; i <= RAIDKM_STAT_MAX; i++) {
		if (!tb[i] || !stat_names[i] || nla_len(tb[i]) != 8)
			continue;
		printf("%s%-28s %llu\n", indent, stat_names[i],
		       (unsigned long long)nla_get_u64(tb[i]));
	}
}

static int on_reply(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[RAIDKM_A_MAX + 1], *a, *at[RAIDKM_A_MAX + 1];
	struct reply *r = arg;
	int rem;

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, RAIDKM_A_MAX, NULL))
		return NL_SKIP;
	r->got = 1;
	if (tb[RAIDKM_A_ATTACHED] && nla_get_u8(tb[RAIDKM_A_ATTACHED])) {
		printf("daemon: attached, pid %u, backend %s\n",
		       tb[RAIDKM_A_PID] ? nla_get_u32(tb[RAIDKM_A_PID]) : 0,
		       tb[RAIDKM_A_BACKEND] ?
		       nla_get_string(tb[RAIDKM_A_BACKEND]) : "?");
	} else {
		printf("daemon: none attached (jobs run on the in-kernel CPU codec)\n");
	}
	if (tb[RAIDKM_A_STATS]) {
		printf("global:\n");
		print_stats(tb[RAIDKM_A_STATS], "  ");
	}
	nlmsg_for_each_attr(a, nlmsg_hdr(msg), GENL_HDRLEN, rem) {
		if (nla_type(a) != RAIDKM_A_ARRAY)
			continue;
		if (nla_parse_nested(at, RAIDKM_A_MAX, a, NULL))
			continue;
		printf("%s:\n", at[RAIDKM_A_ARRAY_NAME] ?
		       nla_get_string(at[RAIDKM_A_ARRAY_NAME]) : "array");
		if (at[RAIDKM_A_STATS])
			print_stats(at[RAIDKM_A_STATS], "  ");
	}
	return NL_OK;
}

static int on_error(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct reply *r = arg;

	r->err = e->error;
	return NL_STOP;
}

static int status(void)
{
	struct reply r = { 0, 0 };
	struct nl_sock *sk;
	struct nl_msg *msg;
	int family, ret = 1;

	sk = nl_socket_alloc();
	if (!sk || genl_connect(sk)) {
		fprintf(stderr, "raidkmctl: cannot open a generic netlink socket\n");
		goto out;
	}
	family = genl_ctrl_resolve(sk, RAIDKM_GENL_NAME);
	if (family < 0) {
		fprintf(stderr, "raidkmctl: the raidkm module is not loaded (no generic netlink family \"%s\")\n",
			RAIDKM_GENL_NAME);
		goto out;
	}
	msg = nlmsg_alloc();
	if (!msg || !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0,
				 NLM_F_ACK, RAIDKM_CMD_GET_STATS,
				 RAIDKM_GENL_VERSION)) {
		fprintf(stderr, "raidkmctl: out of memory\n");
		goto out;
	}
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
"Usage: raidkmctl status\n"
"Show raidkm's offload path: the attached coding daemon (raidkmd: pid,\n"
"backend) and the counters, global and per km array (jobs offloaded, jobs\n"
"run on the CPU, deadline misses, re-runs after daemon loss, verify\n"
"mismatches, bytes offloaded, ...).  Per-array counters are also in\n"
"/sys/block/mdX/md/.  Exit status: 0, or 1 when raidkm is not loaded.\n");
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "status"))
		return status();
	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return 0;
	}
	usage(stderr);
	return 2;
}
