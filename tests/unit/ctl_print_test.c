// SPDX-License-Identifier: GPL-2.0
/*
 * covers: tools: raidkmctl; offload: placement visible in raidkmctl status
 *
 * raidkmctl's printing (tools/ctl/ctl_print.c) on made-up GET_STATS
 * replies: latency percentiles from the log2 histogram, the text lines an
 * operator reads, and --json parsed back by Python's json module (values,
 * escaping of a reason with quotes, backslash and newline), the
 * placement lines (jobs and bytes on each side per op and size class, the
 * estimates).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl_status.h"
#include "unit_check.h"
#include "ctl_test_util.h"

static struct rkmctl_status st;

static void fill(void)
{
	memset(&st, 0, sizeof(st));
	st.attached = 1;
	st.pid = 4242;
	strcpy(st.backend, "cuda");
	st.global.have[RAIDKM_STAT_JOBS_OFFLOADED] = 1;
	st.global.v[RAIDKM_STAT_JOBS_OFFLOADED] = 1000;
	st.global.have[RAIDKM_STAT_JOBS_CPU] = 1;
	st.global.v[RAIDKM_STAT_JOBS_CPU] = 7;
	st.global.have[RAIDKM_STAT_DETACHES] = 1;
	st.global.v[RAIDKM_STAT_DETACHES] = 12;
	st.narrays = 2;
	strcpy(st.array[0].name, "md0");
	st.array[0].c.have[RAIDKM_STAT_JOBS_OFFLOADED] = 1;
	st.array[0].c.v[RAIDKM_STAT_JOBS_OFFLOADED] = 600;
	strcpy(st.array[1].name, "md1");
	st.have_latency = 1;
	st.latency[4] = 90;	/* [16, 32) us */
	st.latency[5] = 9;	/* [32, 64) us */
	st.latency[10] = 1;	/* [1024, 2048) us */
	st.ndetach = 2;
	st.detach[0].ago_s = 30;
	st.detach[0].pid = 17;
	strcpy(st.detach[0].backend, "cpu");
	strcpy(st.detach[0].why, "it missed the job deadline");
	st.detach[0].reruns = 3;
	st.detach[0].fenced = 1;
	st.detach[1].ago_s = 2;
	st.detach[1].pid = 18;
	strcpy(st.detach[1].backend, "cuda");
	strcpy(st.detach[1].why, "odd \"reason\" \\ with\nnewline");
}

int main(void)
{
	uint64_t h[RAIDKM_LAT_BUCKETS] = { 0 };
	char *s;

	begin("latency percentiles from the log2 histogram");
	CHECK(rkmctl_latency_pct(h, 50) == 0);
	h[0] = 1;
	CHECK(rkmctl_latency_pct(h, 50) == 2);
	h[0] = 0;
	h[4] = 90;
	h[5] = 9;
	h[10] = 1;
	CHECK(rkmctl_latency_pct(h, 50) == 32);
	CHECK(rkmctl_latency_pct(h, 90) == 32);
	CHECK(rkmctl_latency_pct(h, 99) == 64);
	CHECK(rkmctl_latency_pct(h, 100) == 2048);
	h[RAIDKM_LAT_BUCKETS - 1] = 1000;
	CHECK(rkmctl_latency_pct(h, 99) == UINT64_MAX);
	end();

	fill();
	begin("text: daemon, counters, arrays, latency, detaches");
	s = ctl_print(&st, 0);
	CHECK(strstr(s, "daemon: attached, pid 4242, backend cuda\n"));
	CHECK(strstr(s, "  jobs offloaded               1000\n"));
	CHECK(strstr(s, "  jobs on the CPU              7\n"));
	CHECK(strstr(s, "md0:\n  jobs offloaded               600\n"));
	CHECK(strstr(s, "md1:\n"));
	CHECK(strstr(s, "100 entries, p50 < 32 us, p90 < 32 us, p99 < 64 us, max < 2048 us"));
	CHECK(strstr(s, "detaches: 12 since load, the last ones:\n"));
	CHECK(strstr(s, "  30 s ago: pid 17 (cpu): it missed the job deadline; 3 job(s) re-run on the CPU, arena fenced\n"));
	free(s);
	end();

	begin("json: valid, every value as printed in text");
	s = ctl_print(&st, 1);
	CHECK(ctl_python_check(s,
		"assert d[\"daemon\"] == {\"attached\": True, \"pid\": 4242, \"backend\": \"cuda\"}\n"
		"assert d[\"counters\"] == {\"jobs_offloaded\": 1000, \"jobs_cpu\": 7, \"detaches\": 12}\n"
		"assert [a[\"name\"] for a in d[\"arrays\"]] == [\"md0\", \"md1\"]\n"
		"assert d[\"arrays\"][0][\"counters\"] == {\"jobs_offloaded\": 600}\n"
		"assert d[\"arrays\"][1][\"counters\"] == {}\n"
		"l = d[\"latency\"]\n"
		"assert (l[\"entries\"], l[\"p50_lt_us\"], l[\"p99_lt_us\"], l[\"max_lt_us\"]) == (100, 32, 64, 2048)\n"
		"assert len(l[\"buckets\"]) == 24 and l[\"buckets\"][4] == {\"ge_us\": 16, \"count\": 90}\n"
		"assert l[\"buckets\"][0][\"ge_us\"] == 0\n"
		"x = d[\"detaches\"]\n"
		"assert x[0] == {\"ago_s\": 30, \"pid\": 17, \"backend\": \"cpu\", \"reason\": \"it missed the job deadline\", \"reruns\": 3, \"fenced\": True}\n"
		"assert x[1][\"reason\"] == \"odd \\\"reason\\\" \\\\ with\\nnewline\"\n") == 0);
	free(s);
	end();

	begin("json: no daemon, no arrays, no latency reply, no detaches");
	memset(&st, 0, sizeof(st));
	s = ctl_print(&st, 1);
	CHECK(ctl_python_check(s,
		"assert d == {\"daemon\": {\"attached\": False}, \"counters\": {}, \"arrays\": [], \"detaches\": []}\n") == 0);
	free(s);
	end();

	begin("placement: text and json");
	memset(&st, 0, sizeof(st));
	strcpy(st.placement, "auto");
	st.nplace = 2;
	st.place[0] = (struct rkmctl_place){ 2, 1, 6300, 129024000, 100,
					     2048000, 20, 0, 0, 0 };
	st.place[1] = (struct rkmctl_place){ 1, 5, 3, 25165824, 190,
					     1593835520, 60, 109000, 10, 2 };
	s = ctl_print(&st, 0);
	CHECK(strstr(s, "placement: auto; "));
	CHECK(strstr(s, "  delta  16K-64K  cpu 6300 (123.0), daemon 100 (2.0); cpu 20, daemon not measured\n"));
	CHECK(strstr(s, "  decode 4M-      cpu 3 (24.0), daemon 190 (1520.0); cpu 60, daemon 109.0 + 10, ahead 2\n"));
	free(s);
	s = ctl_print(&st, 1);
	CHECK(ctl_python_check(s,
		"p = d[\"placement\"]\n"
		"assert p[\"mode\"] == \"auto\" and len(p[\"classes\"]) == 2\n"
		"assert p[\"classes\"][1] == {\"op\": \"decode\", \"size\": \"4M-\", \"cpu_jobs\": 3, \"cpu_bytes\": 25165824, \"daemon_jobs\": 190, \"daemon_bytes\": 1593835520, \"cpu_ps_per_byte\": 60, \"daemon_ns_per_job\": 109000, \"daemon_ps_per_byte\": 10, \"daemon_ps_per_byte_ahead\": 2}\n"
		"assert \"cpu_busy_pct\" not in p\n") == 0);
	free(s);
	/* a module that says how busy the CPUs are */
	st.has_cpu_busy = 1;
	st.cpu_busy = 47;
	s = ctl_print(&st, 0);
	CHECK(strstr(s, "placement: auto; CPUs 47 % busy; jobs (MiB) "));
	free(s);
	s = ctl_print(&st, 1);
	CHECK(ctl_python_check(s,
		"assert d[\"placement\"][\"cpu_busy_pct\"] == 47\n") == 0);
	free(s);
	end();
	return failures ? 1 : 0;
}
