// SPDX-License-Identifier: GPL-2.0
/*
 * test.c - tqstat's parsers on made-up input, then the tool itself on a
 * fake sysfs directory and metrics file: one-shot, interval mode, what
 * it says when a source is missing, and usched's refusals by limit summed;
 * then on a real tqsubmitd's counters, asked on its socket.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "selftests/tap.h"
#include "selftests/testutil.h"
#include "counters.h"

static const char prom[] =
	"# HELP usched_tasks_submitted_total Tasks submitted.\n"
	"# TYPE usched_tasks_submitted_total counter\n"
	"usched_tasks_submitted_total 7\n"
	"# TYPE usched_waiting gauge\n"
	"usched_waiting 3\n"
	"usched_engine_busy_ns_total{engine=\"htd\"} 1.5e6 1700000000000\n"
	"tq_info{device=\"NVIDIA H200\",policy=\"auto\"} 1\n"
	"not a sample line at all\n"
	"usched_bad_value abc\n"
	"# TYPE tq_tg_size_tasks histogram\n"
	"tq_tg_size_tasks_bucket{le=\"8\"} 2\n"
	"tq_tg_size_tasks_bucket{le=\"+Inf\"} 3\n"
	"tq_tg_size_tasks_sum 20\n"
	"tq_tg_size_tasks_count 3\n"
	"tq_tg_size_tasks_other 1\n"
	"\n";

static const char limits[] =
	"# TYPE tq_limit_refused_total counter\n"
	"tq_limit_refused_total{limit=\"max-work-items\"} 2\n"
	"tq_limit_refused_total{limit=\"allow-source\"} 5\n"
	"tq_contexts 1\n";

/* Run tqstat with args; stdout into out, stderr into err; returns the exit status. */
static int run(const char *args, char *out, size_t outsz, char *err, size_t errsz,
	       const char *tmp)
{
	char cmd[1024], errpath[512];
	size_t n;
	FILE *e;
	int st;

	snprintf(errpath, sizeof(errpath), "%s/stderr", tmp);
	snprintf(cmd, sizeof(cmd), "%s %s 2>%s", TQSTAT_BIN, args, errpath);
	st = test_capture(cmd, out, outsz);
	e = fopen(errpath, "r");
	n = e ? fread(err, 1, errsz - 1, e) : 0;
	err[n] = 0;
	if (e)
		fclose(e);
	return st;
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

int main(void)
{
	char tmp[] = "/tmp/tqstat-test.XXXXXX", sys[600], metrics[600], args[2048];
	static char out[8192], err[4096];
	const struct counter *c;
	struct ctr_set set;

	/* the Prometheus parser */
	tap_ok(ctr_parse_prom(prom, strlen(prom), &set) == 9, "prom: nine samples kept");
	c = ctr_find(&set, "usched_tasks_submitted_total");
	tap_ok(c && c->value == 7 && !c->gauge, "prom: a counter");
	c = ctr_find(&set, "usched_waiting");
	tap_ok(c && c->value == 3 && c->gauge, "prom: a gauge from # TYPE");
	c = ctr_find(&set, "usched_engine_busy_ns_total{engine=htd}");
	tap_ok(c && c->value == 1.5e6, "prom: labels kept without quotes, timestamp skipped");
	c = ctr_find(&set, "tq_info{device=NVIDIA H200,policy=auto}");
	tap_ok(c && c->value == 1, "prom: label values with blanks");
	c = ctr_find(&set, "tq_tg_size_tasks_bucket{le=+Inf}");
	tap_ok(c && c->value == 3 && c->hist && !c->gauge, "prom: a histogram's bucket");
	tap_ok(ctr_find(&set, "tq_tg_size_tasks_sum")->hist &&
	       ctr_find(&set, "tq_tg_size_tasks_count")->hist &&
	       !ctr_find(&set, "tq_tg_size_tasks_other")->hist &&
	       !ctr_find(&set, "usched_waiting")->hist, "prom: its sum and count, nothing else");

	tap_ok(ctr_parse_prom(limits, strlen(limits), &set) == 4 &&
	       (c = ctr_find(&set, "tq_limit_refused_total")) && c->value == 7 && !c->gauge &&
	       ctr_find(&set, "tq_limit_refused_total{limit=allow-source}")->value == 5,
	       "prom: refusals by limit, and their sum as one more counter");
	tap_ok(ctr_parse_prom(prom, strlen(prom), &set) == 9 &&
	       !ctr_find(&set, "tq_limit_refused_total"), "prom: no sum without refusals");

	if (!mkdtemp(tmp))
		tap_skip_all("cannot make a temporary directory");
	snprintf(sys, sizeof(sys), "%s/sys", tmp);
	snprintf(metrics, sizeof(metrics), "%s/usched.prom", tmp);
	mkdir(sys, 0755);
	test_write(sys, "submitted", "5\n");
	test_write(sys, "completed", "3\n");
	test_write(sys, "in_flight", "2\n");
	test_write(sys, "dev", "10:123\n");
	test_write(sys, "uevent", "MAJOR=10\nMINOR=123\n");
	test_write(tmp, "usched.prom", prom);

	/* the sysfs reader */
	tap_ok(ctr_read_sysfs(sys, &set) == 0 && set.n == 3, "sysfs: three integer attributes");
	tap_ok(set.n == 3 && !strcmp(set.c[0].name, "completed") &&
	       !strcmp(set.c[2].name, "submitted"), "sysfs: sorted by name");
	c = ctr_find(&set, "in_flight");
	tap_ok(c && c->gauge && c->value == 2, "sysfs: in_flight is a gauge");
	tap_ok(ctr_read_sysfs("/nonexistent/tqsubmit", &set) < 0, "sysfs: missing directory");

	/* the tool, one-shot, both sources */
	snprintf(args, sizeof(args), "--sysfs %s --socket %s/none --metrics %s --once", sys, tmp, metrics);
	tap_ok(run(args, out, sizeof(out), err, sizeof(err), tmp) == 0 &&
	       strstr(out, "\nsubmitted 5\n") && strstr(out, "\nusched_waiting 3\n") &&
	       strstr(out, "\ntq_tg_size_tasks_bucket{le=+Inf} 3\n"),
	       "--once prints both sources, histograms too");

	/* interval mode with the metrics file missing: says so, shows the module */
	snprintf(args, sizeof(args), "--sysfs %s --socket %s/none --metrics %s/none 0.05 3", sys, tmp, tmp);
	tap_ok(run(args, out, sizeof(out), err, sizeof(err), tmp) == 0 &&
	       count_lines(out) == 5 && strstr(out, "submitted") && !strstr(out, "waiting"),
	       "interval mode: header, names and three lines");
	tap_ok(strstr(err, "no metrics counters") != NULL, "interval mode: names what is missing");
	for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n"))
		tap_diag("%s", l);

	/* only the metrics file */
	snprintf(args, sizeof(args), "--sysfs %s/none --socket %s/none --metrics %s 0.05 2", tmp, tmp, metrics);
	tap_ok(run(args, out, sizeof(out), err, sizeof(err), tmp) == 0 &&
	       strstr(out, "tasks_submitted") && strstr(out, "engine_busy_ns:htd") &&
	       !strstr(out, "info") && strstr(err, "no module counters"),
	       "metrics alone: shown (short names, no *_info), module named as missing");
	tap_ok(!strstr(out, "tg_size_tasks_bucket") && !strstr(out, "tg_size_tasks_sum") &&
	       strstr(out, "tg_size_tasks_other"), "metrics alone: no histogram columns");

	/* usched's refusals: one column, their sum; each in --once */
	test_write(tmp, "limits.prom", limits);
	snprintf(args, sizeof(args), "--sysfs %s/none --socket %s/none --metrics %s/limits.prom 0.05 2", tmp, tmp, tmp);
	tap_ok(run(args, out, sizeof(out), err, sizeof(err), tmp) == 0 &&
	       strstr(out, " limit_refused\n") && !strstr(out, "max-work-items") &&
	       strstr(out, " 7\n"), "refusals by limit: one limit_refused column, their sum");
	snprintf(args, sizeof(args), "--sysfs %s/none --socket %s/none --metrics %s/limits.prom --once", tmp, tmp, tmp);
	tap_ok(run(args, out, sizeof(out), err, sizeof(err), tmp) == 0 &&
	       strstr(out, "\ntq_limit_refused_total{limit=max-work-items} 2\n") &&
	       strstr(out, "\ntq_limit_refused_total 7\n"), "--once: each limit and the sum");

	/* neither: an error */
	snprintf(args, sizeof(args), "--sysfs %s/none --socket %s/none --metrics %s/none 1 1", tmp, tmp, tmp);
	tap_ok(run(args, out, sizeof(out), err, sizeof(err), tmp) == 1,
	       "neither source: exit status 1");

	/* tqsubmitd's counters, on its socket, in place of the module's */
	{
		char sock[600], ssock[600];
		pid_t pid;
		int i;

		snprintf(sock, sizeof(sock), "%s/d/tqsubmit.sock", tmp);
		snprintf(ssock, sizeof(ssock), "%s/d/sched.sock", tmp);
		pid = fork();
		if (!pid) {
			freopen("/dev/null", "w", stderr);
			execl(TQSUBMITD_BIN, TQSUBMITD_BIN, "--foreground", "--socket", sock,
			      "--sched-socket", ssock, (char *)NULL);
			_exit(127);
		}
		for (i = 0; i < 500 && access(ssock, F_OK); i++)
			usleep(10000);
		snprintf(args, sizeof(args), "--sysfs %s/none --socket %s --metrics %s/none --once",
			 tmp, sock, tmp);
		tap_ok(run(args, out, sizeof(out), err, sizeof(err), tmp) == 0 &&
		       strstr(out, "# tqsubmitd ") && strstr(out, "\nsubmitted 0\n") &&
		       strstr(out, "\nenters_absorbed 0\n") && strstr(out, "\nscheduler_pid 0\n") &&
		       strstr(out, "\nconnections 1\n"),
		       "--once: tqsubmitd's counters, under the module's names");
		snprintf(args, sizeof(args), "--sysfs %s/none --socket %s --metrics %s/none 0.05 2",
			 tmp, sock, tmp);
		tap_ok(run(args, out, sizeof(out), err, sizeof(err), tmp) == 0 &&
		       strstr(out, "tqsubmitd") && strstr(out, "in_flight") &&
		       !strstr(err, "no module counters") && !strstr(err, "no tqsubmitd") &&
		       strstr(err, "no metrics counters"),
		       "interval mode: tqsubmitd stands in for the module, which is not named missing");
		kill(pid, SIGTERM);
		waitpid(pid, NULL, 0);
		snprintf(args, sizeof(args), "--sysfs %s/none --socket %s --metrics %s/none 1 1",
			 tmp, sock, tmp);
		tap_ok(run(args, out, sizeof(out), err, sizeof(err), tmp) == 1 &&
		       strstr(err, "no module counters") && strstr(err, "no tqsubmitd counters"),
		       "neither transport: both named missing, exit status 1");
	}

	snprintf(args, sizeof(args), "rm -rf %s", tmp);
	if (system(args))
		tap_diag("could not remove %s", tmp);
	return tap_done();
}
