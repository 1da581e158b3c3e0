// SPDX-License-Identifier: GPL-2.0
/*
 * test_trace.c - the trace (usched_trace_start(), usched/core/trace.c) of
 * known tasks in-process on the OpenCL device: started and stopped on a
 * running core, readable while it runs, valid JSON once stopped, and what
 * scripts/trace-check finds in it against the tasks' completions: per-owner
 * tracks named by usched_owner_name() (or this process), each task under its
 * id (user_data, or trace_id) with its stages' measured durations, its
 * commands on the engines with the model's beside them, and its flow arrow
 * from submission through its TG to delivery. Then a trace at its bound.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "selftests/tap.h"
#include "testlib.h"

#define NJOBS		8
#define NAMED_OWNER	7	/* named as a daemon names a client's context: */
#define NAMED_PID	4242
#define NAMED_UID	1234
#define SELF_OWNER	8	/* never named: this process */
#define TRACE_ID0	500	/* SELF_OWNER's tasks carry trace ids from here */
#define SMALL_MAX	8192

static uint32_t kernel[16];
static const struct tqk_task *va;

static uint32_t kernel_of(const struct tqk_task *t)
{
	unsigned int i = 0;

	while (tqk_tasks[i] != t)
		i++;
	return kernel[i];
}

static int open_trace(const char *path)
{
	return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
}

static uint64_t job_id(const struct tl_job *j)
{
	return j->task.flags & USCHED_TASK_TRACE_ID ? j->task.trace_id : j->task.user_data;
}

static bool file_has(const char *path, const char *needle)
{
	static char buf[1 << 20];
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = 0;
	return strstr(buf, needle) != NULL;
}

/* What the test knows of its jobs, for scripts/trace-check. */
static void write_expect(const char *path, const struct tl_job *j, unsigned int n,
			 const char *self_comm)
{
	FILE *f = fopen(path, "w");
	uint64_t tgs[NJOBS];
	unsigned int ntgs = 0;

	fprintf(f, "{\"tasks\": [");
	for (unsigned int i = 0; i < n; i++) {
		const struct usched_completion *c = &j[i].c;
		unsigned int cmds = 1, k;

		for (unsigned int b = 0; b < j[i].task.nbufs; b++)
			cmds += !!(j[i].task.buf[b].dir & USCHED_IN) +
				!!(j[i].task.buf[b].dir & USCHED_OUT);
		bool named = j[i].task.owner == NAMED_OWNER;

		fprintf(f, "%s\n{\"id\": %llu, \"pid\": %d, \"uid\": %u, \"comm\": \"%s\", "
			"\"kernel\": \"%s\", \"tg\": %llu, \"cmds\": %u, \"stages\": [", i ? "," : "",
			(unsigned long long)job_id(&j[i]), named ? NAMED_PID : (int)getpid(),
			named ? NAMED_UID : (unsigned int)getuid(), named ? "trace-test" : self_comm,
			va->kernel,
			(unsigned long long)c->tg, cmds);
		for (int s = 0; s < USCHED_STAGES; s++)
			fprintf(f, "%s%llu", s ? ", " : "",
				(unsigned long long)(c->stage_end[s] - c->stage_start[s]));
		fprintf(f, "], \"pred\": [%.0f, %.0f, %.0f]}", c->pred_ns[0], c->pred_ns[1],
			c->pred_ns[2]);
		for (k = 0; k < ntgs && tgs[k] != c->tg; k++)
			;
		if (k == ntgs)
			tgs[ntgs++] = c->tg;
	}
	fprintf(f, "\n], \"tgs\": %u}\n", ntgs);
	fclose(f);
}

/* Run scripts/trace-check; its lines become this test's checks. */
static void trace_check(const char *trace, const char *expect)
{
	char cmd[512], line[1024];
	unsigned int lines = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "python3 scripts/trace-check %s %s 2>&1", trace,
		 expect ? expect : "");
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p)) {
		line[strcspn(line, "\n")] = 0;
		lines++;
		if (!strncmp(line, "ok - ", 5))
			tap_ok(1, "%s", line + 5);
		else if (!strncmp(line, "not ok - ", 9))
			tap_ok(0, "%s", line + 9);
		else
			tap_diag("%s", line[0] == '#' ? line + 2 : line);
	}
	if (!p || !lines)
		tap_skip("scripts/trace-check", "python3 cannot run it");
	else if (pclose(p))
		tap_ok(0, "scripts/trace-check exits 0");
}

static void submit_jobs(struct usched *u, struct tl_sink *sink, struct tl_job *j,
			unsigned int from, unsigned int n, unsigned long *done)
{
	for (unsigned int i = from; i < from + n; i++)
		usched_submit(u, &j[i].task);
	*done += n;
	tl_run(u, sink, *done);
}

int main(void)
{
	char trace[] = "/tmp/usched-trace-XXXXXX", expect[] = "/tmp/usched-expect-XXXXXX";
	char small[] = "/tmp/usched-small-XXXXXX", needle[128], comm[32] = "?";
	struct usched_opts o = { .policy = "fifo", .max_tg = 4, .dma = 2 };
	const char *why = tl_setup();
	struct tl_job j[2 * NJOBS];
	unsigned long done = 0;
	struct usched_stats st;
	struct tl_arena a;
	struct tl_sink sink;
	struct usched *u;
	struct stat sb;
	bool ok = true;
	FILE *f;

	if (why)
		tap_skip_all(why);
	va = tqk_find("VA");
	close(mkstemp(trace));
	close(mkstemp(expect));
	close(mkstemp(small));
	f = fopen("/proc/self/comm", "r");
	if (f && fgets(comm, sizeof(comm), f))
		comm[strcspn(comm, "\n")] = 0;
	if (f)
		fclose(f);
	tl_sink_init(&sink);
	o.complete = tl_complete;
	o.complete_arg = &sink;
	u = tl_open(&o, kernel);
	tl_arena_init(&a, u, 16 << 20);
	for (unsigned int i = 0; i < 2 * NJOBS; i++) {
		ok &= !tl_job_init(&j[i], &a, va, (struct tqk_size){ 4096 * (1 + i % 3), 0 }, i,
				   kernel_of(va), i % 2 ? SELF_OWNER : NAMED_OWNER);
		if (i % 2) {
			j[i].task.flags |= USCHED_TASK_TRACE_ID;
			j[i].task.trace_id = TRACE_ID0 + i;
		}
	}
	tap_ok(ok && !usched_owner_name(u, NAMED_OWNER, NAMED_PID, NAMED_UID, "trace-test"),
	       "jobs made, an owner named");
	/* a first job compiles the kernel, untraced */
	submit_jobs(u, &sink, j + NJOBS, 0, 1, &done);

	tap_ok(usched_trace_stop(u) == -ENOENT, "no trace to stop: -ENOENT");
	tap_ok(!usched_trace_start(u, open_trace(trace), 0), "a trace starts on a running core");
	tap_ok(usched_trace_start(u, open_trace(small), 0) == -EBUSY, "a second one: -EBUSY");
	submit_jobs(u, &sink, j, 0, NJOBS / 2, &done);
	snprintf(needle, sizeof(needle), "\"name\": \"task %llu %s\"",
		 (unsigned long long)job_id(&j[0]), va->kernel);
	tap_ok(file_has(trace, needle), "the trace is written while it runs: task %llu is there",
	       (unsigned long long)job_id(&j[0]));
	submit_jobs(u, &sink, j, NJOBS / 2, NJOBS / 2, &done);
	usched_stats(u, &st);
	tap_ok(st.tracing && st.trace_bytes > 0 && !st.trace_full,
	       "stats: tracing, %llu bytes", (unsigned long long)st.trace_bytes);
	tap_ok(!usched_trace_stop(u), "the trace stops");
	usched_stats(u, &st);
	tap_ok(!st.tracing, "stats: not tracing");
	for (unsigned int i = 0; i < NJOBS; i++)
		ok &= j[i].c.status == 0 && j[i].c.tg;
	tap_ok(ok, "every traced task completed in a TG");
	write_expect(expect, j, NJOBS, comm);
	trace_check(trace, expect);

	/* at its bound it stops growing, says so and is still valid JSON */
	tap_ok(!usched_trace_start(u, open_trace(small), SMALL_MAX), "a trace of %u bytes at most",
	       SMALL_MAX);
	submit_jobs(u, &sink, j, NJOBS + 1, NJOBS - 1, &done);
	usched_stats(u, &st);
	tap_ok(st.trace_full, "stats: the trace is full");
	usched_destroy(u);	/* stops it */
	if (stat(small, &sb))
		sb.st_size = -1;
	tap_ok(sb.st_size > 0 && sb.st_size <= SMALL_MAX && file_has(small, "\"trace full\""),
	       "it is %lld bytes and says it is full", (long long)sb.st_size);
	trace_check(small, NULL);
	tl_arena_free(&a);
	unlink(trace);
	unlink(expect);
	unlink(small);
	return tap_done();
}
