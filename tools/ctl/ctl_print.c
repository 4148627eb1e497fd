// SPDX-License-Identifier: GPL-2.0
/*
 * raidkmctl status: printing a GET_STATS reply and the daemon's GPU
 * status (ctl_status.h) as text or as one JSON object.
 */
#include <inttypes.h>
#include <string.h>

#include "ctl_status.h"
#include "place.h"

/* the counters: text label and JSON key */
static const struct {
	const char *label, *key;
} stat_names[RAIDKM_STAT_MAX + 1] = {
	[RAIDKM_STAT_JOBS_OFFLOADED] = { "jobs offloaded", "jobs_offloaded" },
	[RAIDKM_STAT_JOBS_CPU] = { "jobs on the CPU", "jobs_cpu" },
	[RAIDKM_STAT_DEADLINE_MISSES] = { "deadline misses", "deadline_misses" },
	[RAIDKM_STAT_RERUNS] = { "re-runs after daemon loss", "reruns" },
	[RAIDKM_STAT_VERIFY_MISMATCHES] = { "verify mismatches",
					    "verify_mismatches" },
	[RAIDKM_STAT_BYTES_OFFLOADED] = { "bytes offloaded", "bytes_offloaded" },
	[RAIDKM_STAT_BAD_COMPLETIONS] = { "bad completions", "bad_completions" },
	[RAIDKM_STAT_STALE_COMPLETIONS] = { "stale completions",
					    "stale_completions" },
	[RAIDKM_STAT_DOORBELLS] = { "doorbells sent", "doorbells" },
	[RAIDKM_STAT_ATTACHES] = { "attaches", "attaches" },
	[RAIDKM_STAT_DETACHES] = { "detaches", "detaches" },
};

uint64_t rkmctl_latency_pct(const uint64_t *hist, double pct)
{
	uint64_t total = 0, seen = 0;
	int b;

	for (b = 0; b < RAIDKM_LAT_BUCKETS; b++)
		total += hist[b];
	if (!total)
		return 0;
	for (b = 0; b < RAIDKM_LAT_BUCKETS; b++) {
		seen += hist[b];
		if ((double)seen >= pct / 100.0 * (double)total)
			break;
	}
	if (b >= RAIDKM_LAT_BUCKETS - 1)
		return UINT64_MAX;
	return (uint64_t)2 << b;
}

static uint64_t latency_total(const uint64_t *hist)
{
	uint64_t t = 0;
	int b;

	for (b = 0; b < RAIDKM_LAT_BUCKETS; b++)
		t += hist[b];
	return t;
}

static void text_counters(FILE *f, const struct rkmctl_counters *c)
{
	int i;

	for (i = 1; i <= RAIDKM_STAT_MAX; i++)
		if (c->have[i] && stat_names[i].label)
			fprintf(f, "  %-28s %" PRIu64 "\n", stat_names[i].label,
				c->v[i]);
}

static void text_pct(FILE *f, const char *name, const uint64_t *h, double p)
{
	uint64_t v = rkmctl_latency_pct(h, p);

	if (v == UINT64_MAX)
		fprintf(f, ", %s >= %" PRIu64 " us", name,
			(uint64_t)1 << (RAIDKM_LAT_BUCKETS - 1));
	else
		fprintf(f, ", %s < %" PRIu64 " us", name, v);
}

/* An instance's worker process: state, restarts, the last fault */
static void print_worker(FILE *f, const struct rkmctl_gpus *g,
			 const struct rkmctl_gpu *u)
{
	fprintf(f, "    worker: %s", u->wstate);
	if (u->pid)
		fprintf(f, ", pid %d", u->pid);
	fprintf(f, "; %" PRIu64 " restarts, %" PRIu64 " faults", u->restarts,
		u->faults);
	if (u->faults)
		fprintf(f, ", the last %lld s ago (%s)",
			(long long)(g->now - u->fault_at), u->last_why);
	fputc('\n', f);
}

/* The GPU status file: nothing when there is none */
void rkmctl_print_gpus(FILE *f, const struct rkmctl_gpus *g)
{
	int i, live = 0;

	if (g->state == RKMCTL_GPUS_STALE)
		fprintf(f, "GPUs: %s ignored (stale): %s\n", g->path, g->why);
	if (g->state == RKMCTL_GPUS_BAD)
		fprintf(f, "GPUs: %s cannot be used: %s\n", g->path, g->why);
	if (g->state != RKMCTL_GPUS_OK)
		return;
	for (i = 0; i < g->n; i++)
		live += !g->gpu[i].dropped;
	fprintf(f, "GPUs (raidkmd pid %d, %s, updated %lld s ago): %d of %d serving\n",
		g->pid, g->path, (long long)(g->now - g->updated), live, g->n);
	for (i = 0; i < g->n; i++) {
		const struct rkmctl_gpu *u = &g->gpu[i];

		fprintf(f, "  gpu %d: device %d%s%s: ", u->index, u->device,
			u->bus[0] ? ", " : "", u->bus);
		if (u->dropped)
			fprintf(f, "dropped %lld s ago (%s)",
				(long long)(g->now - u->dropped_at), u->why);
		else
			fprintf(f, "serving");
		fprintf(f, "; %" PRIu64 " jobs, %" PRIu64 " MiB, %" PRIu64 " re-run on another GPU, %" PRIu64 " failed back to the kernel\n",
			u->jobs, u->mib, u->reruns, u->failed_back);
		if (u->worker)
			print_worker(f, g, u);
	}
}

/* an array's data path counters, one line (none when it has none) */
static void text_km(FILE *f, const struct rkmctl_km *km)
{
	int i;

	if (!km->n)
		return;
	fprintf(f, "  data path:");
	for (i = 0; i < km->n; i++)
		fprintf(f, " %s %" PRIu64, km->e[i].key, km->e[i].v);
	fprintf(f, "\n");
}

static double mib(uint64_t bytes)
{
	return bytes / 1048576.0;
}

/* where jobs were coded, per op and size class, and the estimates */
static void text_placement(FILE *f, const struct rkmctl_status *s)
{
	int i;

	if (!s->placement[0])
		return;
	fprintf(f, "placement: %s; ", s->placement);
	if (s->has_cpu_busy)
		fprintf(f, "CPUs %u %% busy; ", s->cpu_busy);
	fprintf(f, "jobs (MiB) coded on each side by op and job size, and the estimates (CPU ps a byte; daemon us a job + ps a byte of the job and queued, ps a byte queued ahead of a waited job)\n");
	for (i = 0; i < s->nplace; i++) {
		const struct rkmctl_place *p = &s->place[i];

		fprintf(f, "  %-6s %-8s cpu %" PRIu64 " (%.1f), daemon %" PRIu64 " (%.1f); cpu %u",
			rkm_place_op_name(p->op), rkm_place_class_name(p->cls),
			p->cpu_jobs, mib(p->cpu_bytes), p->daemon_jobs,
			mib(p->daemon_bytes), p->cpu_ps);
		if (p->daemon_ns)
			fprintf(f, ", daemon %.1f + %u, ahead %u\n",
				p->daemon_ns / 1000.0, p->daemon_ps,
				p->daemon_qps);
		else
			fprintf(f, ", daemon not measured\n");
	}
}

void rkmctl_print_text(FILE *f, const struct rkmctl_status *s)
{
	int i;

	if (s->attached)
		fprintf(f, "daemon: attached, pid %u, backend %s\n", s->pid,
			s->backend);
	else
		fprintf(f, "daemon: none attached (jobs run on the in-kernel CPU codec)\n");
	rkmctl_print_gpus(f, &s->gpus);
	fprintf(f, "global:\n");
	text_counters(f, &s->global);
	for (i = 0; i < s->narrays; i++) {
		fprintf(f, "%s:\n", s->array[i].name);
		text_counters(f, &s->array[i].c);
		text_km(f, &s->array[i].km);
	}
	if (s->have_latency) {
		uint64_t n = latency_total(s->latency);

		fprintf(f, "latency, ring entry posted to completed by the daemon: %" PRIu64 " entries",
			n);
		if (n) {
			text_pct(f, "p50", s->latency, 50);
			text_pct(f, "p90", s->latency, 90);
			text_pct(f, "p99", s->latency, 99);
			text_pct(f, "max", s->latency, 100);
		}
		fprintf(f, "\n");
	}
	if (s->global.have[RAIDKM_STAT_DETACHES])
		fprintf(f, "detaches: %" PRIu64 " since load%s\n",
			s->global.v[RAIDKM_STAT_DETACHES],
			s->ndetach ? ", the last ones:" : "");
	for (i = 0; i < s->ndetach; i++) {
		const struct rkmctl_detach *d = &s->detach[i];

		fprintf(f, "  %" PRIu64 " s ago: pid %u (%s): %s; %u job(s) re-run on the CPU%s\n",
			d->ago_s, d->pid, d->backend, d->why, d->reruns,
			d->fenced ? ", arena fenced" : "");
	}
	text_placement(f, s);
}

/* a JSON string: quotes, backslashes and control characters escaped */
static void json_str(FILE *f, const char *p)
{
	fputc('"', f);
	for (; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void json_counters(FILE *f, const struct rkmctl_counters *c)
{
	const char *sep = "";
	int i;

	fputc('{', f);
	for (i = 1; i <= RAIDKM_STAT_MAX; i++) {
		if (!c->have[i] || !stat_names[i].key)
			continue;
		fprintf(f, "%s\"%s\": %" PRIu64, sep, stat_names[i].key,
			c->v[i]);
		sep = ", ";
	}
	fputc('}', f);
}

static void json_pct(FILE *f, const char *name, const uint64_t *h, double p)
{
	uint64_t v = rkmctl_latency_pct(h, p);

	/* null: in the open-ended last bucket */
	if (v == UINT64_MAX)
		fprintf(f, ", \"%s_lt_us\": null", name);
	else
		fprintf(f, ", \"%s_lt_us\": %" PRIu64, name, v);
}

static const char *const gpus_state_name[] = {
	[RKMCTL_GPUS_OK] = "ok",
	[RKMCTL_GPUS_STALE] = "stale",
	[RKMCTL_GPUS_BAD] = "bad",
};

/* a string, or null when empty */
static void json_str_null(FILE *f, const char *p)
{
	if (*p)
		json_str(f, p);
	else
		fprintf(f, "null");
}

static void json_gpu(FILE *f, const struct rkmctl_gpu *u)
{
	fprintf(f, "{\"index\": %d, \"device\": %d, \"bus\": ", u->index,
		u->device);
	json_str_null(f, u->bus);
	fprintf(f, ", \"state\": \"%s\", \"jobs\": %" PRIu64 ", \"mib\": %" PRIu64 ", \"reruns\": %" PRIu64 ", \"failed_back\": %" PRIu64 ", \"dropped_at\": ",
		u->dropped ? "dropped" : "serving", u->jobs, u->mib,
		u->reruns, u->failed_back);
	if (u->dropped)
		fprintf(f, "%lld", (long long)u->dropped_at);
	else
		fprintf(f, "null");
	fprintf(f, ", \"reason\": ");
	json_str_null(f, u->why);
	if (u->worker) {
		fprintf(f, ", \"worker\": {\"state\": \"%s\", \"pid\": %d, \"restarts\": %" PRIu64 ", \"faults\": %" PRIu64 ", \"last_fault_at\": %lld, \"last_reason\": ",
			u->wstate, u->pid, u->restarts, u->faults,
			(long long)u->fault_at);
		json_str_null(f, u->last_why);
		fputc('}', f);
	}
	fputc('}', f);
}

/* ,"gpus": {...}; nothing when there is no status file */
static void json_gpus(FILE *f, const struct rkmctl_gpus *g)
{
	int i;

	if (g->state == RKMCTL_GPUS_ABSENT)
		return;
	fprintf(f, ",\n \"gpus\": {\"file\": ");
	json_str(f, g->path);
	fprintf(f, ", \"state\": \"%s\"", gpus_state_name[g->state]);
	if (g->state != RKMCTL_GPUS_OK) {
		fprintf(f, ", \"reason\": ");
		json_str(f, g->why);
	}
	if (g->state == RKMCTL_GPUS_BAD) {
		fputc('}', f);
		return;
	}
	fprintf(f, ", \"pid\": %d", g->pid);
	if (g->state == RKMCTL_GPUS_STALE) {
		fputc('}', f);
		return;
	}
	fprintf(f, ", \"updated\": %lld, \"instances\": [",
		(long long)g->updated);
	for (i = 0; i < g->n; i++) {
		fprintf(f, "%s", i ? ", " : "");
		json_gpu(f, &g->gpu[i]);
	}
	fprintf(f, "]}");
}

static void json_km(FILE *f, const struct rkmctl_km *km)
{
	int i;

	fprintf(f, ", \"data_path\": {");
	for (i = 0; i < km->n; i++) {
		fprintf(f, "%s", i ? ", " : "");
		json_str(f, km->e[i].key);
		fprintf(f, ": %" PRIu64, km->e[i].v);
	}
	fputc('}', f);
}

static void json_placement(FILE *f, const struct rkmctl_status *s)
{
	int i;

	if (!s->placement[0])
		return;
	fprintf(f, ",\n \"placement\": {\"mode\": ");
	json_str(f, s->placement);
	if (s->has_cpu_busy)
		fprintf(f, ", \"cpu_busy_pct\": %u", s->cpu_busy);
	fprintf(f, ", \"classes\": [");
	for (i = 0; i < s->nplace; i++) {
		const struct rkmctl_place *p = &s->place[i];

		fprintf(f, "%s{\"op\": \"%s\", \"size\": \"%s\"",
			i ? ", " : "", rkm_place_op_name(p->op),
			rkm_place_class_name(p->cls));
		fprintf(f, ", \"cpu_jobs\": %" PRIu64 ", \"cpu_bytes\": %" PRIu64
			", \"daemon_jobs\": %" PRIu64 ", \"daemon_bytes\": %" PRIu64,
			p->cpu_jobs, p->cpu_bytes, p->daemon_jobs,
			p->daemon_bytes);
		fprintf(f, ", \"cpu_ps_per_byte\": %u, \"daemon_ns_per_job\": %u, \"daemon_ps_per_byte\": %u, \"daemon_ps_per_byte_ahead\": %u}",
			p->cpu_ps, p->daemon_ns, p->daemon_ps, p->daemon_qps);
	}
	fprintf(f, "]}");
}

void rkmctl_print_json(FILE *f, const struct rkmctl_status *s)
{
	int i;

	fprintf(f, "{\"daemon\": {\"attached\": %s", s->attached ? "true" : "false");
	if (s->attached) {
		fprintf(f, ", \"pid\": %u, \"backend\": ", s->pid);
		json_str(f, s->backend);
	}
	fprintf(f, "}");
	json_gpus(f, &s->gpus);
	fprintf(f, ",\n \"counters\": ");
	json_counters(f, &s->global);
	fprintf(f, ",\n \"arrays\": [");
	for (i = 0; i < s->narrays; i++) {
		fprintf(f, "%s{\"name\": ", i ? ", " : "");
		json_str(f, s->array[i].name);
		fprintf(f, ", \"counters\": ");
		json_counters(f, &s->array[i].c);
		json_km(f, &s->array[i].km);
		fputc('}', f);
	}
	fprintf(f, "]");
	if (s->have_latency) {
		uint64_t n = latency_total(s->latency);

		fprintf(f, ",\n \"latency\": {\"entries\": %" PRIu64, n);
		if (n) {
			json_pct(f, "p50", s->latency, 50);
			json_pct(f, "p90", s->latency, 90);
			json_pct(f, "p99", s->latency, 99);
			json_pct(f, "max", s->latency, 100);
		}
		fprintf(f, ", \"buckets\": [");
		for (i = 0; i < RAIDKM_LAT_BUCKETS; i++)
			fprintf(f, "%s{\"ge_us\": %" PRIu64 ", \"count\": %" PRIu64 "}",
				i ? ", " : "", i ? (uint64_t)1 << i : 0,
				s->latency[i]);
		fprintf(f, "]}");
	}
	fprintf(f, ",\n \"detaches\": [");
	for (i = 0; i < s->ndetach; i++) {
		const struct rkmctl_detach *d = &s->detach[i];

		fprintf(f, "%s{\"ago_s\": %" PRIu64 ", \"pid\": %u, \"backend\": ",
			i ? ", " : "", d->ago_s, d->pid);
		json_str(f, d->backend);
		fprintf(f, ", \"reason\": ");
		json_str(f, d->why);
		fprintf(f, ", \"reruns\": %u, \"fenced\": %s}", d->reruns,
			d->fenced ? "true" : "false");
	}
	fprintf(f, "]");
	json_placement(f, s);
	fprintf(f, "}\n");
}
