// SPDX-License-Identifier: GPL-2.0
/*
 * test.c - tqstat's parsers on made-up input, then the tool itself on a
 * fake sysfs directory and metrics file: the snapshot's size with 8
 * clients, -w, --all (names and labels whole), what it says when a source
 * is missing or not readable, stale metrics, and usched's refusals by limit
 * summed; then on a real tqsubmitd's counters, asked on its socket.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
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

static int count_of(const char *s, const char *what)
{
	int n = 0;

	for (; (s = strstr(s, what)); s++)
		n++;
	return n;
}

/* Names far past the old 96 characters, and escaped label values, kept whole. */
static void test_long_names(struct ctr_set *set)
{
	static char text[4 * CTR_NAME], name[CTR_NAME + 64];
	const struct counter *c;
	int n;

	n = snprintf(name, sizeof(name), "tq_info{device=\"%0300d\",x=\"a\\\"}b\"}", 7);
	snprintf(text, sizeof(text), "%s 1\ntq_%0*d 2\nok 3\n", name, CTR_NAME, 0);
	tap_ok(ctr_parse_prom(text, strlen(text), set) == 2 && (c = ctr_find(set, name)) &&
	       c->value == 1 && (int)strlen(c->name) == n && ctr_find(set, "ok"),
	       "prom: a %d-character name kept whole, a \\\" and } in a label's value; "
	       "a name too long for %d skipped, not cut", n, CTR_NAME);
}

/* Every line of s at most cols wide; its lines counted into *rows. */
static bool fits(const char *s, int cols, int *rows)
{
	int w = 0, widest = 0;

	*rows = 0;
	for (; *s; s++) {
		if (*s == '\n') {
			(*rows)++;
			w = 0;
		} else if (++w > widest) {
			widest = w;
		}
	}
	return widest <= cols;
}

/*
 * usched's metrics as a file: fresh (written now by pid, every 5 s) or old;
 * 8 uids and other with per-client series (other's queue waits all past
 * the last bound), and NCGROUPS cgroups' task counts.
 */
#define NCGROUPS	300

static void write_metrics(const char *dir, const char *name, long pid, long age)
{
	static const char *const le[] = { "0.001", "0.01", "0.02", "0.1", "+Inf" };
	char *text = NULL, uid[16];
	size_t len;
	FILE *f = open_memstream(&text, &len);

	fprintf(f, "tq_metrics_time_seconds %lld\ntq_metrics_interval_seconds 5\ntq_pid %ld\n"
		"tq_info{device=\"%0150d\",policy=\"flow\",copy_engines=\"2\","
		"kernel_queues=\"2\",max_tg=\"8\"} 1\n"
		"tq_tasks_submitted_total 1000000\ntq_tasks_total{status=\"ok\"} 999990\n"
		"tq_tasks_total{status=\"error\"} 10\ntq_queue_depth 12\ntq_tasks_running 8\n"
		"tq_bytes_total{dir=\"htd\"} 123456789012\ntq_bytes_total{dir=\"dth\"} 4567\n"
		"tq_contexts 8\ntq_users 8\ntq_domains 3\ntq_tgs_total 125000\ntq_tg_size_tasks_sum 999990\n"
		"tq_limit_refused_total{limit=\"max-work-items\"} 2\n"
		"tq_limit_refused_total{limit=\"allow-source\"} 5\n",
		(long long)time(NULL) - age, pid, 1);
	fprintf(f, "# TYPE tq_client_queue_wait_seconds histogram\n");
	/* uid 1000 + i: kernel time 1.5 (i + 1) s, 100 (i + 1) tasks ok and i failed */
	for (int i = 0; i <= 8; i++) {
		double k = i < 8 ? 1.5 * (i + 1) : 11;
		int ok = i < 8 ? 100 * (i + 1) : 50, tasks = ok + (i < 8 ? i : 0);

		if (i < 8)
			snprintf(uid, sizeof(uid), "%d", 1000 + i);
		else
			snprintf(uid, sizeof(uid), "other");
		fprintf(f, "tq_client_engine_seconds_total{uid=\"%s\",stage=\"htd\"} 0\n"
			"tq_client_engine_seconds_total{uid=\"%s\",stage=\"k\"} %g\n"
			"tq_client_tasks_total{uid=\"%s\",status=\"ok\"} %d\n"
			"tq_client_tasks_total{uid=\"%s\",status=\"error\"} %d\n",
			uid, uid, k, uid, ok, uid, tasks - ok);
		for (int b = 0; b < 5; b++)
			fprintf(f, "tq_client_queue_wait_seconds_bucket{uid=\"%s\",le=\"%s\"} %d\n",
				uid, le[b], i == 8 ? (b == 4) * tasks : b < 2 ? 0 : tasks);
		fprintf(f, "tq_client_queue_wait_seconds_count{uid=\"%s\"} %d\n", uid, tasks);
	}
	for (int i = 0; i < NCGROUPS; i++)
		fprintf(f, "tq_cgroup_tasks_total{cgroup=\"/user.slice/u%d\",status=\"ok\"} %d\n", i, i);
	fclose(f);
	test_write(dir, name, text);
	free(text);
}

/* A copy of the line of s that holds what, or "". */
static const char *line_of(const char *s, const char *what)
{
	static char buf[256];
	const char *p = strstr(s, what), *b, *e;

	buf[0] = 0;
	if (!p)
		return buf;
	for (b = p; b > s && b[-1] != '\n'; b--)
		;
	e = strchrnul(p, '\n');
	snprintf(buf, sizeof(buf), "%.*s", (int)(e - b), b);
	return buf;
}

int main(void)
{
	char tmp[] = "/tmp/tqstat-test.XXXXXX", sys[600], metrics[600], args[2048];
	bool narrow;
	int rows;
	static char out[1 << 16], err[1 << 16];
	const struct counter *c;
	struct ctr_set set = { 0 };

	/* the Prometheus parser */
	tap_ok(ctr_parse_prom(prom, strlen(prom), &set) == 9, "prom: nine samples kept");
	c = ctr_find(&set, "usched_tasks_submitted_total");
	tap_ok(c && c->value == 7 && !c->gauge, "prom: a counter");
	c = ctr_find(&set, "usched_waiting");
	tap_ok(c && c->value == 3 && c->gauge, "prom: a gauge from # TYPE");
	c = ctr_find(&set, "usched_engine_busy_ns_total{engine=\"htd\"}");
	tap_ok(c && c->value == 1.5e6, "prom: labels kept as written, timestamp skipped");
	c = ctr_find(&set, "tq_info{device=\"NVIDIA H200\",policy=\"auto\"}");
	tap_ok(c && c->value == 1, "prom: label values with blanks");
	c = ctr_find(&set, "tq_tg_size_tasks_bucket{le=\"+Inf\"}");
	tap_ok(c && c->value == 3 && c->hist && !c->gauge, "prom: a histogram's bucket");
	tap_ok(ctr_find(&set, "tq_tg_size_tasks_sum")->hist &&
	       ctr_find(&set, "tq_tg_size_tasks_count")->hist &&
	       !ctr_find(&set, "tq_tg_size_tasks_other")->hist &&
	       !ctr_find(&set, "usched_waiting")->hist, "prom: its sum and count, nothing else");

	tap_ok(ctr_parse_prom(limits, strlen(limits), &set) == 4 &&
	       (c = ctr_find(&set, "tq_limit_refused_total")) && c->value == 7 && !c->gauge &&
	       ctr_find(&set, "tq_limit_refused_total{limit=\"allow-source\"}")->value == 5,
	       "prom: refusals by limit, and their sum as one more counter");
	tap_ok(ctr_parse_prom(prom, strlen(prom), &set) == 9 &&
	       !ctr_find(&set, "tq_limit_refused_total"), "prom: no sum without refusals");
	test_long_names(&set);

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

	/* --all: both sources, histograms too, names and labels as written */
	snprintf(args, sizeof(args), "--sysfs %s --socket %s/none --metrics %s --all", sys, tmp, metrics);
	tap_ok(run(args, out, sizeof(out), err, sizeof(err), tmp) == 0 &&
	       strstr(out, "\nsubmitted 5\n") && strstr(out, "\nusched_waiting 3\n") &&
	       strstr(out, "\ntq_tg_size_tasks_bucket{le=\"+Inf\"} 3\n") &&
	       strstr(out, "\ntq_info{device=\"NVIDIA H200\",policy=\"auto\"} 1\n"),
	       "--all prints both sources, histograms too, labels quoted");
	snprintf(args, sizeof(args), "--sysfs %s --socket %s/none --metrics %s --once", sys, tmp, metrics);
	tap_ok(run(args, out + 4096, sizeof(out) - 4096, err, sizeof(err), tmp) == 0 &&
	       !strcmp(out, out + 4096), "--once is --all");

	/* the snapshot: one screen, whatever the clients and names */
	test_write(sys, "contexts", "8\n");
	test_write(sys, "scheduler_pid", "4242\n");
	write_metrics(tmp, "live.prom", getpid(), 0);
	snprintf(args, sizeof(args), "--sysfs %s --socket %s/none --metrics %s/live.prom", sys, tmp, tmp);
	tap_ok(run(args, out, sizeof(out), err, sizeof(err), tmp) == 0 && !*err &&
	       strstr(out, "module ") && strstr(out, " 8 contexts open; scheduler 4242") &&
	       strstr(out, "usched ") && strstr(out, " 8 contexts of 8 user(s), 3 isolated") &&
	       strstr(out, "115 GiB to the device") && strstr(out, "7 by limits (5 OpenCL C source)") &&
	       !strstr(out, "STALE"), "snapshot: the module's and usched's counters, with units");
	tap_ok(strstr(out, "\n  top uids   uid ") && strstr(line_of(out, " 1007 "), " 807 ") &&
	       strstr(line_of(out, " 1007 "), " 12.00 s ") &&
	       strstr(line_of(out, " 1007 "), " 19.9 ms") &&
	       strstr(line_of(out, " other "), " 11.00 s ") &&
	       strstr(line_of(out, " other "), " 100.0 ms") &&
	       strstr(line_of(out, " 1005 "), " 9.00 s ") && !strstr(out, " 1004 ") &&
	       strstr(out, " 1007 ") < strstr(out, " other ") &&
	       strstr(out, " other ") < strstr(out, " 1006 "),
	       "snapshot: the 4 uids of most engine time first: tasks, engine time, p99 queue "
	       "wait from the histogram (interpolated; past its last bound, that bound)");
	narrow = fits(out, 100, &rows);
	tap_ok(narrow && rows <= 24, "snapshot: at most 100 columns and 24 rows with 8 clients "
	       "and a 150-character device name (%d rows)", rows);
	for (char *l = strtok(strcpy(err, out), "\n"); l; l = strtok(NULL, "\n"))
		tap_diag("%s", l);

	snprintf(args, sizeof(args), "--sysfs %s --socket %s/none --metrics %s/live.prom --all", sys,
		 tmp, tmp);
	tap_ok(run(args, out, sizeof(out), err, sizeof(err), tmp) == 0 &&
	       count_of(out, "\ntq_cgroup_tasks_total{") == NCGROUPS &&
	       strstr(out, "\ntq_client_queue_wait_seconds_count{uid=\"other\"} 50\n"),
	       "--all: every series, past the old 256 (%d cgroups, 9 uids)", NCGROUPS);

	/* -w: a screen every interval, rates from the second on */
	snprintf(args, sizeof(args), "--sysfs %s --socket %s/none --metrics %s/live.prom -w 0.05 3",
		 sys, tmp, tmp);
	tap_ok(run(args, out, sizeof(out), err, sizeof(err), tmp) == 0 &&
	       count_of(out, "\ntqstat ") == 2 && !strncmp(out, "tqstat ", 7) &&
	       count_of(out, "rates over the last interval") == 2 &&
	       strstr(out, "0/s"), "-w 0.05 3: three screens, the later two with rates");

	/* stale: the writer gone, or no rewrite for three intervals */
	{
		pid_t gone = fork();

		if (!gone)
			_exit(0);
		waitpid(gone, NULL, 0);
		write_metrics(tmp, "gone.prom", gone, 0);
	}
	snprintf(args, sizeof(args), "--sysfs %s --socket %s/none --metrics %s/gone.prom", sys, tmp, tmp);
	tap_ok(run(args, out, sizeof(out), err, sizeof(err), tmp) == 0 &&
	       strstr(out, "STALE: usched (pid ") && strstr(out, "is not running\n") &&
	       fits(out, 100, &rows) && rows <= 24, "stale: the writer's pid is gone");
	snprintf(args, sizeof(args), "--sysfs %s --socket %s/none --metrics %s/gone.prom --all", sys, tmp, tmp);
	tap_ok(run(args, out, sizeof(out), err, sizeof(err), tmp) == 0 &&
	       strstr(out, "/gone.prom: stale: usched (pid "), "stale: said in --all");
	write_metrics(tmp, "old.prom", getpid(), 20);
	snprintf(args, sizeof(args), "--sysfs %s --socket %s/none --metrics %s/old.prom", sys, tmp, tmp);
	tap_ok(run(args, out, sizeof(out), err, sizeof(err), tmp) == 0 &&
	       strstr(out, "STALE: not rewritten for ") && strstr(out, " s (every 5 s)\n"),
	       "stale: 20 s old, rewritten every 5 s");
	write_metrics(tmp, "old.prom", getpid(), 10);
	tap_ok(run(args, out, sizeof(out), err, sizeof(err), tmp) == 0 && !strstr(out, "STALE"),
	       "not stale: 10 s old, rewritten every 5 s");

	/* a file you may not read: whose it is, not "is usched running?" */
	if (geteuid() || access("/usr/bin/setpriv", X_OK)) {
		tap_skip("permission denied: its cause", "needs root and setpriv");
	} else {
		chmod(tmp, 0755);
		chmod(metrics, 0640);
		snprintf(args, sizeof(args), "setpriv --reuid=65534 --regid=65534 --clear-groups %s "
			 "--sysfs %s --socket %s/none --metrics %s", TQSTAT_BIN, sys, tmp, metrics);
		test_capture(args, out, sizeof(out));
		tap_ok(strstr(out, "Permission denied\n") && strstr(out, "mode 0640: open to group ") &&
		       strstr(out, ", which you are not in") && !strstr(out, "is usched running"),
		       "permission denied: the file's mode and group, not 'is usched running?'");
	}

	/* only the metrics file: the transports named missing, in the screen */
	snprintf(args, sizeof(args), "--sysfs %s/none --socket %s/none --metrics %s/live.prom", tmp, tmp, tmp);
	tap_ok(run(args, out, sizeof(out), err, sizeof(err), tmp) == 0 &&
	       strstr(out, "is tqsubmit.ko loaded?") && strstr(out, "is tqsubmitd running?") &&
	       strstr(out, "999990 ok"), "metrics alone: shown, the transports named missing");
	snprintf(args, sizeof(args), "--sysfs %s --socket %s/none --metrics %s/none", sys, tmp, tmp);
	tap_ok(run(args, out, sizeof(out), err, sizeof(err), tmp) == 0 &&
	       strstr(out, "No such file or directory\n           is usched running, with metrics set?"),
	       "no metrics file: 'is usched running?'");

	/* usched's refusals: their sum on the screen; each in --all */
	test_write(tmp, "limits.prom", limits);
	snprintf(args, sizeof(args), "--sysfs %s/none --socket %s/none --metrics %s/limits.prom --all", tmp, tmp, tmp);
	tap_ok(run(args, out, sizeof(out), err, sizeof(err), tmp) == 0 &&
	       strstr(out, "\ntq_limit_refused_total{limit=\"max-work-items\"} 2\n") &&
	       strstr(out, "\ntq_limit_refused_total 7\n"), "--all: each limit and the sum");

	/* neither: an error */
	snprintf(args, sizeof(args), "--sysfs %s/none --socket %s/none --metrics %s/none", tmp, tmp, tmp);
	tap_ok(run(args, out, sizeof(out), err, sizeof(err), tmp) == 1,
	       "no source: exit status 1");
	snprintf(args, sizeof(args), "--all -w");
	tap_ok(run(args, out, sizeof(out), err, sizeof(err), tmp) == 2, "--all -w: a usage error");

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
		snprintf(args, sizeof(args), "--sysfs %s/none --socket %s --metrics %s/none --all",
			 tmp, sock, tmp);
		tap_ok(run(args, out, sizeof(out), err, sizeof(err), tmp) == 0 &&
		       strstr(out, "# tqsubmitd ") && strstr(out, "\nsubmitted 0\n") &&
		       strstr(out, "\nenters_absorbed 0\n") && strstr(out, "\nscheduler_pid 0\n") &&
		       strstr(out, "\nconnections 1\n"),
		       "--all: tqsubmitd's counters, under the module's names");
		snprintf(args, sizeof(args), "--sysfs %s/none --socket %s --metrics %s/none",
			 tmp, sock, tmp);
		tap_ok(run(args, out, sizeof(out), err, sizeof(err), tmp) == 0 &&
		       strstr(out, "\ntqsubmitd  ") && strstr(out, " 1 connections;") &&
		       strstr(out, " 0 in flight") && !strstr(out, "is tqsubmit.ko loaded") &&
		       strstr(out, "is usched running"),
		       "snapshot: tqsubmitd stands in for the module, which is not named missing");
		kill(pid, SIGTERM);
		waitpid(pid, NULL, 0);
		snprintf(args, sizeof(args), "--sysfs %s/none --socket %s --metrics %s/none",
			 tmp, sock, tmp);
		tap_ok(run(args, out, sizeof(out), err, sizeof(err), tmp) == 1 &&
		       strstr(out, "is tqsubmit.ko loaded") && strstr(out, "is tqsubmitd running"),
		       "neither transport: both named missing, exit status 1");
	}

	ctr_free(&set);
	snprintf(args, sizeof(args), "rm -rf %s", tmp);
	if (system(args))
		tap_diag("could not remove %s", tmp);
	return tap_done();
}
