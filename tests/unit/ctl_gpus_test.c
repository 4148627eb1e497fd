// SPDX-License-Identifier: GPL-2.0
/*
 * covers: tools: raidkmctl; tools: GPU status file
 *
 * raidkmctl's reading of raidkmd's GPU status file (tools/ctl/ctl_gpus.c)
 * and its printing (ctl_print.c): a good file of two instances (one
 * dropped) with a fake /proc naming its writer raidkmd; stale files (the
 * pid gone, the pid reused by another program); malformed files (each
 * field broken in turn); every truncation of the good file; fixed-seed
 * random damage; no file at all (nothing printed).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctl_status.h"
#include "unit_check.h"
#include "ctl_test_util.h"

static const char good[] =
	"raidkmd-gpus 1\n"
	"pid 4242\n"
	"updated 1000\n"
	"gpu 0 0 serving 1234 567 0 0 0 0000:41:00.0 -\n"
	"gpu 1 0 dropped 10 1 3 5 990 ? a batch hung for 1000 ms\n"
	"end\n";

static char dir[64], proc[96], path[128];
static struct rkmctl_status st;

static void put(const char *file, const char *text, size_t len)
{
	FILE *f = fopen(file, "w");

	if (!f || fwrite(text, 1, len, f) != len)
		exit(2);
	fclose(f);
}

/* proc/PID/comm reads comm; comm NULL: no such process */
static void fake_proc(int pid, const char *comm)
{
	char p[192];

	snprintf(p, sizeof(p), "%s/%d", proc, pid);
	mkdir(p, 0755);
	strcat(p, "/comm");
	if (comm)
		put(p, comm, strlen(comm));
	else
		unlink(p);
}

static void read_text(const char *text, size_t len)
{
	put(path, text, len);
	rkmctl_gpus_read(path, proc, &st.gpus);
}

/* the good file with its first `from` replaced by `to`; expect BAD, why */
static int malformed(const char *from, const char *to, const char *why)
{
	char text[1024], *at = strstr(good, from);
	size_t pre;

	if (!at)
		return 0;
	pre = (size_t)(at - good);
	snprintf(text, sizeof(text), "%.*s%s%s", (int)pre, good, to,
		 at + strlen(from));
	read_text(text, strlen(text));
	if (st.gpus.state != RKMCTL_GPUS_BAD || !strstr(st.gpus.why, why)) {
		printf("  \"%s\" -> \"%s\": state %d, \"%s\" (want \"%s\")\n",
		       from, to, st.gpus.state, st.gpus.why, why);
		return 0;
	}
	return 1;
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

int main(void)
{
	const struct rkmctl_gpu *u;
	char *s, *plain, longwhy[600], text[sizeof(good) + 16];
	size_t i, len = strlen(good);
	uint64_t seed = 0x6a5d;
	int ok, badn;

	snprintf(dir, sizeof(dir), "/tmp/ctl_gpus_test.%d", (int)getpid());
	snprintf(proc, sizeof(proc), "%s/proc", dir);
	snprintf(path, sizeof(path), "%s/gpus", dir);
	if (mkdir(dir, 0755) || mkdir(proc, 0755))
		return 2;

	begin("good file, writer running: every field");
	fake_proc(4242, "raidkmd\n");
	read_text(good, len);
	u = st.gpus.gpu;
	CHECK(st.gpus.state == RKMCTL_GPUS_OK);
	CHECK(st.gpus.pid == 4242 && st.gpus.updated == 1000 && st.gpus.n == 2);
	CHECK(u[0].index == 0 && u[0].device == 0 && !u[0].dropped);
	CHECK(u[0].jobs == 1234 && u[0].mib == 567 && !u[0].dropped_at);
	CHECK(!strcmp(u[0].bus, "0000:41:00.0") && !u[0].why[0]);
	CHECK(u[1].index == 1 && u[1].dropped && u[1].dropped_at == 990);
	CHECK(u[1].reruns == 3 && u[1].failed_back == 5 && !u[1].bus[0]);
	CHECK(!strcmp(u[1].why, "a batch hung for 1000 ms"));
	end();

	begin("good file: text lines");
	st.attached = 1;
	st.pid = 4242;
	snprintf(st.backend, sizeof(st.backend), "cuda");
	st.gpus.now = 1003;
	s = ctl_print(&st, 0);
	CHECK(strstr(s, "daemon: attached, pid 4242, backend cuda\nGPUs (raidkmd pid 4242, "));
	CHECK(strstr(s, "/gpus, updated 3 s ago): 1 of 2 serving\n"));
	CHECK(strstr(s, "  gpu 0: device 0, 0000:41:00.0: serving; 1234 jobs, 567 MiB, 0 re-run on another GPU, 0 failed back to the kernel\n"));
	CHECK(strstr(s, "  gpu 1: device 0: dropped 13 s ago (a batch hung for 1000 ms); 10 jobs, 1 MiB, 3 re-run on another GPU, 5 failed back to the kernel\n"));
	free(s);
	end();

	begin("good file: json");
	s = ctl_print(&st, 1);
	CHECK(ctl_python_check(s,
		"g = d[\"gpus\"]\n"
		"assert g[\"state\"] == \"ok\" and g[\"pid\"] == 4242 and g[\"updated\"] == 1000\n"
		"assert g[\"file\"].endswith(\"/gpus\") and \"reason\" not in g\n"
		"a, b = g[\"instances\"]\n"
		"assert a == {\"index\": 0, \"device\": 0, \"bus\": \"0000:41:00.0\", \"state\": \"serving\", \"jobs\": 1234, \"mib\": 567, \"reruns\": 0, \"failed_back\": 0, \"dropped_at\": None, \"reason\": None}\n"
		"assert b[\"state\"] == \"dropped\" and b[\"bus\"] is None and b[\"dropped_at\"] == 990\n"
		"assert b[\"reason\"] == \"a batch hung for 1000 ms\" and b[\"failed_back\"] == 5\n"
		"assert d[\"daemon\"][\"pid\"] == 4242\n") == 0);
	free(s);
	end();

	begin("worker lines: each instance's worker process");
	{
		static const char wk[] =
			"raidkmd-gpus 1\npid 4242\nupdated 1000\n"
			"gpu 0 0 serving 1234 567 0 0 0 0000:41:00.0 -\n"
			"gpu 1 1 dropped 10 1 3 0 998 ? GPU trap\n"
			"worker 0 up 5001 0 0 0 -\n"
			"worker 1 restarting 0 2 3 998 cudaErrorLaunchFailure (unspecified launch failure)\n"
			"end\n";

		read_text(wk, strlen(wk));
		u = st.gpus.gpu;
		CHECK(st.gpus.state == RKMCTL_GPUS_OK && st.gpus.n == 2);
		CHECK(u[0].worker && !strcmp(u[0].wstate, "up") && u[0].pid == 5001);
		CHECK(!u[0].restarts && !u[0].faults && !u[0].last_why[0]);
		CHECK(u[1].worker && !strcmp(u[1].wstate, "restarting") && !u[1].pid);
		CHECK(u[1].restarts == 2 && u[1].faults == 3 && u[1].fault_at == 998);
		CHECK(!strcmp(u[1].last_why, "cudaErrorLaunchFailure (unspecified launch failure)"));
		st.gpus.now = 1003;
		s = ctl_print(&st, 0);
		CHECK(strstr(s, "    worker: up, pid 5001; 0 restarts, 0 faults\n"));
		CHECK(strstr(s, "    worker: restarting; 2 restarts, 3 faults, the last 5 s ago (cudaErrorLaunchFailure (unspecified launch failure))\n"));
		free(s);
		s = ctl_print(&st, 1);
		CHECK(ctl_python_check(s,
			"a, b = d[\"gpus\"][\"instances\"]\n"
			"assert a[\"worker\"] == {\"state\": \"up\", \"pid\": 5001, \"restarts\": 0, \"faults\": 0, \"last_fault_at\": 0, \"last_reason\": None}\n"
			"assert b[\"worker\"][\"state\"] == \"restarting\" and b[\"worker\"][\"faults\"] == 3\n") == 0);
		free(s);
		read_text("raidkmd-gpus 1\npid 4242\nupdated 1000\nworker 0 up 1 0 0 0 -\n"
			  "gpu 0 0 serving 0 0 0 0 0 ? -\nend\n", 93);
		CHECK(st.gpus.state == RKMCTL_GPUS_BAD &&
		      strstr(st.gpus.why, "line 4: worker line: no gpu line"));
		read_text("raidkmd-gpus 1\npid 4242\nupdated 1000\n"
			  "gpu 0 0 serving 0 0 0 0 0 ? -\nworker 0 sleeping 1 0 0 0 -\nend\n", 99);
		CHECK(st.gpus.state == RKMCTL_GPUS_BAD &&
		      strstr(st.gpus.why, "line 5: worker line: unknown state"));
	}
	end();

	begin("stale: the writer's pid is gone");
	fake_proc(4242, NULL);
	snprintf(text, sizeof(text), "%s/4242", proc);
	rmdir(text);
	read_text(good, len);
	CHECK(st.gpus.state == RKMCTL_GPUS_STALE);
	CHECK(strstr(st.gpus.why, "(pid 4242) is not running"));
	s = ctl_print(&st, 0);
	CHECK(strstr(s, "GPUs: ") && strstr(s, "/gpus ignored (stale): the raidkmd that wrote it (pid 4242) is not running\n"));
	CHECK(!strstr(s, "gpu 0:"));
	free(s);
	s = ctl_print(&st, 1);
	CHECK(ctl_python_check(s,
		"g = d[\"gpus\"]\n"
		"assert g[\"state\"] == \"stale\" and g[\"pid\"] == 4242 and \"instances\" not in g\n"
		"assert \"not running\" in g[\"reason\"]\n") == 0);
	free(s);
	end();

	begin("stale: the pid now runs another program");
	fake_proc(4242, "bash\n");
	read_text(good, len);
	CHECK(st.gpus.state == RKMCTL_GPUS_STALE);
	CHECK(strstr(st.gpus.why, "pid 4242 that wrote it is now \"bash\", not raidkmd"));
	fake_proc(4242, "raidkmd\n");
	end();

	begin("malformed: each field broken in turn");
	CHECK(malformed("raidkmd-gpus 1", "raidkmd-gpuz 1", "line 1: not a raidkmd GPU status file"));
	CHECK(malformed("raidkmd-gpus 1", "raidkmd-gpus 2", "format version 2; this raidkmctl reads version 1"));
	CHECK(malformed("raidkmd-gpus 1", "raidkmd-gpus x", "line 1: bad format version"));
	CHECK(malformed("pid 4242", "pid -1", "line 2: bad pid"));
	CHECK(malformed("pid 4242", "pid 0", "line 2: bad pid"));
	CHECK(malformed("pid 4242\n", "", "no pid line"));
	CHECK(malformed("updated 1000", "updated 1e3", "line 3: bad update time"));
	CHECK(malformed("gpu 1 0 dropped", "gpu 2 0 dropped", "line 5: gpu line: instance index missing or out of order"));
	CHECK(malformed("gpu 0 0 serving", "gpu 0 999 serving", "line 4: gpu line: bad device number"));
	CHECK(malformed("gpu 0 0 serving", "gpu 0 0 running", "line 4: gpu line: state is neither"));
	CHECK(malformed("1234 567", "1234 -567", "line 4: gpu line: bad job, MiB"));
	CHECK(malformed("10 1 3 5", "10 1 3 99999999999999999999999", "line 5: gpu line: bad job, MiB"));
	CHECK(malformed("5 990 ?", "5 0 ?", "line 5: gpu line: bad drop time"));
	CHECK(malformed("567 0 0 0 0000", "567 0 0 7 0000", "line 4: gpu line: bad drop time"));
	CHECK(malformed("0000:41:00.0 -\n", "0000:41:00.0\n", "line 4: gpu line: no reason field"));
	CHECK(malformed("0000:41:00.0", "0000:41:00.0-far-too-long-for-a-bus-address", "line 4: gpu line: bad bus address"));
	CHECK(malformed("gpu 0 0 serving 1234 567 0 0 0 0000:41:00.0 -\ngpu 1 0 dropped 10 1 3 5 990 ? a batch hung for 1000 ms\n", "", "no gpu line"));
	CHECK(malformed("end\n", "end\ngpu 2 0 serving 0 0 0 0 0 ? -\n", "line 7: text after the end line"));
	CHECK(malformed("\nend", "\n\nend", "line 6: empty line"));
	memset(longwhy, 'x', sizeof(longwhy) - 1);
	longwhy[sizeof(longwhy) - 1] = 0;
	CHECK(malformed("a batch hung for 1000 ms", longwhy, "line 5: line too long"));
	s = ctl_print(&st, 0);
	CHECK(strstr(s, "/gpus cannot be used: line 5: line too long\n") && !strstr(s, "gpu 0:"));
	free(s);
	s = ctl_print(&st, 1);
	CHECK(ctl_python_check(s,
		"g = d[\"gpus\"]\n"
		"assert g[\"state\"] == \"bad\" and g[\"reason\"] == \"line 5: line too long\"\n"
		"assert \"pid\" not in g and \"instances\" not in g\n") == 0);
	free(s);
	memcpy(text, good, len);
	text[20] = 0;
	read_text(text, len);
	CHECK(st.gpus.state == RKMCTL_GPUS_BAD && strstr(st.gpus.why, "holds a NUL byte"));
	/* unknown keywords are later additions: skipped */
	snprintf(text, sizeof(text), "%.*sload 0 1 2\nend\n",
		 (int)(len - 4), good);
	read_text(text, strlen(text));
	CHECK(st.gpus.state == RKMCTL_GPUS_OK && st.gpus.n == 2);
	end();

	begin("truncated: every prefix of the good file is refused");
	badn = 0;
	for (i = 0; i < len; i++) {
		read_text(good, i);
		if (st.gpus.state != RKMCTL_GPUS_BAD ||
		    (i && !strstr(st.gpus.why, "truncated"))) {
			if (!badn++)
				printf("  prefix of %zu bytes: state %d, \"%s\"\n",
				       i, st.gpus.state, st.gpus.why);
		}
	}
	CHECK(!badn);
	read_text(good, 0);
	CHECK(!strcmp(st.gpus.why, "empty (truncated)"));
	read_text(good, len - 4);
	CHECK(!strcmp(st.gpus.why, "truncated: no end line after 5 line(s)"));
	read_text(good, len - 1);
	CHECK(!strcmp(st.gpus.why, "line 6: truncated: the last line has no end"));
	end();

	begin("damaged: 20000 random byte changes, never a crash, never out of range");
	ok = badn = 0;
	for (i = 0; i < 20000; i++) {
		int k, nchg = 1 + rnd(&seed) % 4;

		memcpy(text, good, len);
		for (k = 0; k < nchg; k++)
			text[rnd(&seed) % len] = (char)rnd(&seed);
		if (!rkmctl_gpus_parse(text, len, &st.gpus)) {
			ok++;
			if (st.gpus.n < 1 || st.gpus.n > RKMD_GPU_STATUS_MAX ||
			    st.gpus.pid <= 0)
				badn++;
			for (k = 0; k < st.gpus.n; k++)
				if (st.gpus.gpu[k].index != k ||
				    st.gpus.gpu[k].device > 255 ||
				    !st.gpus.gpu[k].dropped !=
				    !st.gpus.gpu[k].dropped_at)
					badn++;
		} else if (!st.gpus.why[0]) {
			badn++;		/* refused without a reason */
		}
	}
	printf("  %d of 20000 damaged files still parse (a changed digit)\n", ok);
	CHECK(!badn && ok < 20000);
	end();

	begin("no file: no GPU lines, no gpus key, nothing else changed");
	st.gpus.state = RKMCTL_GPUS_ABSENT;
	plain = ctl_print(&st, 0);
	unlink(path);
	rkmctl_gpus_read(path, proc, &st.gpus);
	CHECK(st.gpus.state == RKMCTL_GPUS_ABSENT && !st.gpus.why[0]);
	s = ctl_print(&st, 0);
	CHECK(!strcmp(s, plain) && !strstr(s, "GPU"));
	free(s);
	free(plain);
	s = ctl_print(&st, 1);
	CHECK(ctl_python_check(s, "assert \"gpus\" not in d\n") == 0);
	free(s);
	rkmctl_gpus_read("", proc, &st.gpus);
	CHECK(st.gpus.state == RKMCTL_GPUS_ABSENT);
	end();

	begin("unreadable: a directory where the file should be");
	mkdir(path, 0755);
	rkmctl_gpus_read(path, proc, &st.gpus);
	CHECK(st.gpus.state == RKMCTL_GPUS_BAD && strstr(st.gpus.why, "cannot read it"));
	rmdir(path);
	end();

	snprintf(path, sizeof(path), "rm -rf %s", dir);
	if (system(path))
		return 2;
	return failures ? 1 : 0;
}
