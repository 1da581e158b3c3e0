// SPDX-License-Identifier: GPL-2.0
/*
 * test.c - a smoke run of tqcalib and tqbench on the first OpenCL device
 * (PoCL here), small enough for make check: the profile, then every setup
 * on three workers, and every output file there and well formed. The
 * numbers are not checked: speed is for the benchmarks, not the tests.
 * Then the open loop, small, and its usage errors. Every SVG written is
 * read back: its axes' tick labels are round steps (1, 2, 2.5, 5 times a
 * power of ten) and never "-0"; its legend's entries lie outside the
 * panels, inside the picture and clear of one another; stream.svg draws
 * the best setup at 100%. The same on the SVGs tqbench --replot draws from
 * runs kept in Documentation/results/, which must match the ones there.
 * Skips that when there is no OpenCL device. Before it, what needs no
 * device: --workers process without the module (or on the socket without a
 * tqsubmitd to start) is refused at once, with the reason
 * (tools/tqbench/test_proc.sh runs it in the test VM and on the socket).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/tqsubmit.h>

#include "selftests/tap.h"
#include "selftests/testutil.h"
#include "tq/num.h"

/* Lines in dir/name, or -1 if it cannot be read; *first gets its first bytes. */
static int lines(const char *dir, const char *name, char *first, size_t size)
{
	char path[512], buf[4096];
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	first[0] = 0;
	while (fgets(buf, sizeof(buf), f)) {
		if (!n)
			snprintf(first, size, "%.*s", (int)size - 1, buf);
		n++;
	}
	fclose(f);
	return n;
}

/* The tasks stream.csv counts for the setups through usched; -1: unreadable. */
static long stream_usched_tasks(const char *dir)
{
	char path[512], setup[32];
	long sum = 0, tasks;
	FILE *f;

	snprintf(path, sizeof(path), "%s/stream.csv", dir);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%*[^\n]\n") < 0)	/* the header */
		sum = -1;
	while (sum >= 0 && fscanf(f, "%31[^,],%*[^,],%*[^,],%ld%*[^\n]\n", setup, &tasks) == 2)
		if (strcmp(setup, "independent"))
			sum += tasks;
	fclose(f);
	return sum;
}

/* Whether step is 1, 2, 2.5 or 5 times a power of ten. */
static bool is_nice(double step)
{
	double m = step / pow(10, floor(log10(step) + 1e-9));

	return step > 0 && (fabs(m - 1) < 1e-6 || fabs(m - 2) < 1e-6 || fabs(m - 2.5) < 1e-6 ||
			    fabs(m - 5) < 1e-6);
}

/* The nice step just below a nice step. */
static double nice_below(double step)
{
	double p = pow(10, floor(log10(step) + 1e-9)), m = step / p;

	return m < 1.5 ? p / 2 : m < 2.25 ? p : m < 3 ? 2 * p : 2.5 * p;
}

/* tq_nice_step(): nice, few enough steps, the smallest that is; tq_tick_label(): no -0. */
static void nice_ticks(void)
{
	static const double want[][3] = { { 0.6, 6, 0.1 }, { 110, 6, 20 }, { 378, 6, 100 },
					  { 1, 4, 0.25 }, { 15, 6, 2.5 }, { 7, 6, 2 } };
	unsigned int bad = 0, n = 0;
	char buf[32];

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		bad += fabs(tq_nice_step(want[i][0], want[i][1]) - want[i][2]) > 1e-9;
	tap_ok(!bad, "tq_nice_step: 0.6 by 0.1, 110 by 20, 378 by 100, 1 by 0.25, ... (%u bad)",
	       bad);
	bad = 0;
	for (double r = 1e-3; r < 1e5; r *= 1.37) {
		for (int most = 4; most <= 12; most += 4) {
			double st = tq_nice_step(r, most);

			/* and the nice step below it would take too many */
			bad += !is_nice(st) || r / st > most * (1 + 1e-6) ||
			       r / nice_below(st) <= most * (1 - 1e-6);
			n++;
		}
	}
	tap_ok(!bad, "tq_nice_step: %u ranges, each a nice step, no more than asked (%u bad)",
	       n, bad);
	tq_tick_label(buf, sizeof(buf), 0, 0.05);
	bad = strcmp(buf, "0.00");
	tq_tick_label(buf, sizeof(buf), -1, 0.25);
	bad += !!strcmp(buf, "-0.25");
	tq_tick_label(buf, sizeof(buf), 3, 0.1);
	bad += !!strcmp(buf, "0.3");
	tq_tick_label(buf, sizeof(buf), 6, 2.5);
	bad += !!strcmp(buf, "15.0");
	tap_ok(!bad, "tq_tick_label: 0.00, -0.25, 0.3, 15.0");
}

/* The number in attribute @name of an SVG element's line. */
static bool attr(const char *line, const char *name, double *v)
{
	char key[16];
	const char *p;

	snprintf(key, sizeof(key), " %s=\"", name);
	p = strstr(line, key);
	return p && sscanf(p + strlen(key), "%lf", v) == 1;
}

/* An element's position: x/y, cx/cy, x1/y1 or a path's first point. */
static bool where(const char *line, double *x, double *y)
{
	const char *d = strstr(line, " d=\"M");

	if (d)
		return sscanf(d + 5, "%lf %lf", x, y) == 2;
	return (attr(line, "x", x) && attr(line, "y", y)) ||
	       (attr(line, "cx", x) && attr(line, "cy", y)) ||
	       (attr(line, "x1", x) && attr(line, "y1", y));
}

/* A text element's text, in buf. */
static const char *text_of(const char *line, char *buf, size_t size)
{
	const char *p = strchr(line, '>');

	snprintf(buf, size, "%s", p ? p + 1 : "");
	buf[strcspn(buf, "<")] = 0;
	return buf;
}

static bool starts(const char *line, const char *prefix)
{
	return !strncmp(line, prefix, strlen(prefix));
}

#define MAX_PANELS	16

struct svg_check {
	double W, H, panel[MAX_PANELS][4];	/* x, y, w, h */
	unsigned int npanels;
	/* the last tick: its axis (anchor, x or y), value, step from the one before */
	char anchor[8];
	double tx, ty, tv, tstep;
	bool tick;
	/* the legend: inside it; the last text's row and end */
	bool legend;
	double ly, lend;
	/* stream.svg: the 100 tick's line, the tallest bar's top */
	double y100, bar_top;
	unsigned int ticks, bad_ticks, entries, bad_entries;
};

/* A tick label: not -0; on its axis a step from the one before, nice, the same each time. */
static void check_tick(struct svg_check *c, const char *line)
{
	double x, y, v, step;
	char buf[32], anchor[8] = "";
	const char *a = strstr(line, "text-anchor=\"");
	bool same;

	if (!where(line, &x, &y) || !a || sscanf(a + 13, "%7[a-z]", anchor) != 1)
		return;
	text_of(line, buf, sizeof(buf));
	v = atof(buf);
	c->ticks++;
	if (buf[0] == '-' && v == 0) {
		c->bad_ticks++;
		tap_diag("tick label '%s'", buf);
	}
	if (!strcmp(buf, "100"))
		c->y100 = y - 4;
	/* y axis: ticks one above the other; x axis: side by side */
	same = c->tick && !strcmp(anchor, c->anchor) &&
	       (!strcmp(anchor, "end") ? fabs(x - c->tx) < 0.01 : fabs(y - c->ty) < 0.01);
	step = v - c->tv;
	if (same && (!is_nice(step) || (c->tstep > 0 && fabs(step - c->tstep) > 1e-9 * step))) {
		c->bad_ticks++;
		tap_diag("tick %s after %g: a step of %g", buf, c->tv, step);
	}
	c->tstep = same ? step : 0;
	snprintf(c->anchor, sizeof(c->anchor), "%s", anchor);
	c->tx = x;
	c->ty = y;
	c->tv = v;
	c->tick = true;
}

/*
 * A legend's element: outside every panel; a text inside the picture and
 * not over the text before it on its row (a text's width taken as 6 px a
 * character, about what 11 px sans-serif takes).
 */
static void check_legend(struct svg_check *c, const char *line)
{
	double x, y;
	char buf[128];

	if (!where(line, &x, &y))
		return;
	for (unsigned int i = 0; i < c->npanels; i++) {
		const double *p = c->panel[i];

		if (x > p[0] && x < p[0] + p[2] && y > p[1] && y < p[1] + p[3]) {
			c->bad_entries++;
			tap_diag("legend element at (%.0f, %.0f) inside a panel", x, y);
		}
	}
	if (!starts(line, "<text"))
		return;
	c->entries++;
	text_of(line, buf, sizeof(buf));
	if (fabs(y - c->ly) < 0.01 && x < c->lend) {
		c->bad_entries++;
		tap_diag("legend '%s' at x %.0f over the entry before it (to %.0f)", buf, x,
			 c->lend);
	}
	if (x + 6 * strlen(buf) > c->W) {
		c->bad_entries++;
		tap_diag("legend '%s' past the picture's right edge", buf);
	}
	c->ly = y;
	c->lend = x + 6 * strlen(buf) + 8;	/* and room for the next entry's key */
}

static void check_line(struct svg_check *c, const char *line)
{
	double x, y, w, h;

	if (starts(line, "<svg")) {
		attr(line, "width", &c->W);
		attr(line, "height", &c->H);
	} else if (starts(line, "<g class=\"legend\"")) {
		c->legend = true;
		c->ly = -1;
	} else if (starts(line, "</g>")) {
		c->legend = false;
	} else if (c->legend) {
		check_legend(c, line);
	} else if (starts(line, "<text class=\"tick\"")) {
		check_tick(c, line);
	} else if (starts(line, "<rect") && strstr(line, "fill=\"none\" stroke=\"#444\"") &&
		   c->npanels < MAX_PANELS && where(line, &x, &y) && attr(line, "width", &w) &&
		   attr(line, "height", &h)) {
		double *p = c->panel[c->npanels++];

		p[0] = x;
		p[1] = y;
		p[2] = w;
		p[3] = h;
	} else if (starts(line, "<rect") && strstr(line, "fill=\"#1f77b4\"><title>") &&
		   where(line, &x, &y)) {
		c->bar_top = fmin(c->bar_top, y);	/* stream.svg's throughput bars */
	}
}

/* Read back dir/name, an SVG tqbench wrote (see the top of the file). */
static void check_svg(const char *dir, const char *name)
{
	struct svg_check c = { .ly = -1, .y100 = NAN, .bar_top = INFINITY };
	char path[512], line[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f) {
		tap_ok(0, "%s: its ticks and legend", path);
		return;
	}
	while (fgets(line, sizeof(line), f))
		check_line(&c, line);
	fclose(f);
	tap_ok(c.ticks >= 3 && !c.bad_ticks, "%s: %u tick labels, round steps, no -0 (%u bad)",
	       name, c.ticks, c.bad_ticks);
	tap_ok(c.entries >= 2 && !c.bad_entries,
	       "%s: %u legend entries, outside the panels, clear of one another (%u bad)",
	       name, c.entries, c.bad_entries);
	if (!strcmp(name, "stream.svg"))
		tap_ok(fabs(c.bar_top - c.y100) < 0.2,
		       "stream.svg: the best setup's bar ends at the 100%% tick (%.1f, tick %.1f)",
		       c.bar_top, c.y100);
}

/*
 * tqbench --replot on copies of runs kept in Documentation/results/: the
 * plots it draws pass check_svg() and are the ones there (after a change
 * to the plots, tqbench --replot draws those again).
 */
static void replot(const char *dir)
{
	static const char *const runs[][2] = {
		{ "h200-run55", "speedup-synthetic.svg speedup-real.svg model.svg means.svg "
				"stream.svg" },
		{ "h200-openloop", "openloop-phased.svg openloop-BK50.svg" },
	};
	char cmd[1024], rdir[512], names[128], *name, *save;

	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		snprintf(cmd, sizeof(cmd), "mkdir -p %s/replot-%zu && cp Documentation/results/%s/"
			 "*.csv %s/replot-%zu && %s --replot %s/replot-%zu 2>&1; "
			 "echo \"status $?\"", dir, i, runs[i][0], dir, i, TQBENCH_BIN, dir, i);
		tap_ok(test_run_status(cmd) == 0, "tqbench --replot, %s's CSV files", runs[i][0]);
		snprintf(rdir, sizeof(rdir), "%s/replot-%zu", dir, i);
		snprintf(names, sizeof(names), "%s", runs[i][1]);
		for (name = strtok_r(names, " ", &save); name; name = strtok_r(NULL, " ", &save)) {
			check_svg(rdir, name);
			snprintf(cmd, sizeof(cmd), "cmp -s %s/%s Documentation/results/%s/%s", rdir,
				 name, runs[i][0], name);
			tap_ok(!system(cmd), "Documentation/results/%s/%s is what --replot draws",
			       runs[i][0], name);
		}
	}
}

/* --workers process where there is no module; timeout: a hang fails too. */
static void no_module(const char *dir)
{
	char cmd[1024], out[4096];
	int st;

	if (!access("/dev/" TQ_DEVICE_NAME, F_OK)) {
		tap_skip("--workers process without the module", "the module is loaded here");
		return;
	}
	snprintf(cmd, sizeof(cmd), "TQ_TRANSPORT=module timeout 60 %s --workers process --profile "
		 "%s/none --out %s 2>&1", TQBENCH_BIN, dir, dir);
	st = test_capture(cmd, out, sizeof(out));
	tap_ok(st == 1 && strstr(out, "/dev/" TQ_DEVICE_NAME) &&
	       strstr(out, "module is not loaded"),
	       "--workers process, TQ_TRANSPORT=module without the module: status 1 (got %d), "
	       "says why", st);
	out[strcspn(out, "\n")] = 0;
	tap_diag("%s", out);
	/* the socket: no tqsubmitd listening, and none to start */
	snprintf(cmd, sizeof(cmd), "TQ_TRANSPORT=socket TQ_SOCKET=%s/none.sock timeout 60 %s "
		 "--workers process --tqsubmitd %s/nowhere --profile %s/none --out %s 2>&1", dir,
		 TQBENCH_BIN, dir, dir, dir);
	st = test_capture(cmd, out, sizeof(out));
	tap_ok(st == 1 && strstr(out, "none.sock") && strstr(out, "nowhere: No such file") &&
	       strstr(out, "--tqsubmitd names it"),
	       "--workers process on the socket, no tqsubmitd to start: status 1 (got %d), "
	       "names both", st);
	out[strcspn(out, "\n")] = 0;
	tap_diag("%s", out);
	snprintf(cmd, sizeof(cmd), "TQ_TRANSPORT=bogus %s --workers process --profile %s/none "
		 "--out %s 2>&1", TQBENCH_BIN, dir, dir);
	st = test_capture(cmd, out, sizeof(out));
	tap_ok(st == 1 && strstr(out, "TQ_TRANSPORT=bogus: want module, socket or auto"),
	       "--workers process, TQ_TRANSPORT=bogus: status 1 (got %d), says why", st);
	snprintf(cmd, sizeof(cmd), "%s --workers fibers --profile %s/none 2>&1", TQBENCH_BIN, dir);
	st = test_capture(cmd, out, sizeof(out));
	tap_ok(st == 2 && strstr(out, "--workers: thread or process"),
	       "--workers fibers: a usage error (status %d)", st);
}

/*
 * --steady with a limit no probe meets: each pass and trial waits, runs,
 * runs once more (--redo 1), and is kept the second time, so the files hold
 * one pass and one trial, not the two each ran.
 */
static void steady(const char *dir)
{
	char cmd[1024], out[256];
	int n;

	snprintf(cmd, sizeof(cmd), "TQBENCH_STEADY_LIMIT=0.5 %s --quick --profile %s/profile "
		 "--out %s/steady --data %s --configs 3x1 --suites synthetic --benches BK0 "
		 "--setups noreorder,orders,policies --steady 6 --steady-wait 0.1 --redo 1 2>&1; "
		 "echo \"status $?\"", TQBENCH_BIN, dir, dir, TQ_DATA);
	tap_ok(test_run_status(cmd) == 0, "tqbench --steady on a host never steady");
	snprintf(cmd, sizeof(cmd), "grep -c 'passes run again 1; passes unsteady 1; trials run "
		 "again 1; trials unsteady 1 |' %s/steady/summary.md", dir);
	test_capture(cmd, out, sizeof(out));
	tap_ok(atoi(out) == 1, "--steady: the pass and the trial ran again, then were kept");
	snprintf(cmd, sizeof(cmd), "grep -c '^- steady host (--steady): [1-9][0-9]* probes' "
		 "%s/steady/summary.md", dir);
	test_capture(cmd, out, sizeof(out));
	tap_ok(atoi(out) == 1, "--steady: summary.md counts the probes");
	snprintf(cmd, sizeof(cmd), "%s/steady", dir);
	/* 6 orders of 3 tasks, 3 commands each; 5 policies, 3 tasks */
	n = lines(cmd, "commands.csv", out, sizeof(out));
	tap_ok(n == 1 + 6 * 9, "--steady: commands.csv holds the kept pass only (%d lines)", n);
	n = lines(cmd, "usched-tasks.csv", out, sizeof(out));
	tap_ok(n == 1 + 5 * 3, "--steady: usched-tasks.csv holds the kept trial only (%d lines)", n);
}

/*
 * --kernel-queues 2: NoReorder and the fixed orders run with usched's two
 * kernel queues, every order predicted with them, and the table and
 * summary.md say which features every setup had (issue 44's fair baseline).
 */
static void kernel_queues(const char *dir)
{
	char cmd[1024], out[256];
	int n;

	snprintf(cmd, sizeof(cmd), "%s --quick --profile %s/profile --out %s/kq2 --data %s "
		 "--suites synthetic --benches BK50 --configs 3x1 --setups noreorder,orders,policies "
		 "--kernel-queues 2 >%s/kq2.txt 2>&1; echo \"status $?\"", TQBENCH_BIN, dir, dir,
		 TQ_DATA, dir);
	tap_ok(test_run_status(cmd) == 0, "tqbench --kernel-queues 2, NoReorder and the orders");
	snprintf(cmd, sizeof(cmd), "grep -c '^# device features: [12] copy engines*; 2 kernel "
		 "queues for usched and for NoReorder and the fixed orders (the order.s i-th kernel "
		 "on queue i %% 2' %s/kq2.txt", dir);
	tap_ok(test_capture(cmd, out, sizeof(out)) >= 0 && atoi(out) == 1,
	       "the table says the setups' device features (%d lines)", atoi(out));
	snprintf(cmd, sizeof(cmd), "grep -c '^- device features: .* 2 kernel queues for usched and "
		 "for NoReorder' %s/kq2/summary.md", dir);
	tap_ok(test_capture(cmd, out, sizeof(out)) >= 0 && atoi(out) == 1,
	       "and so does summary.md (%d lines)", atoi(out));
	snprintf(cmd, sizeof(cmd), "%s/kq2", dir);
	n = lines(cmd, "perms.csv", out, sizeof(out));
	tap_ok(n == 1 + 6, "perms.csv: the 6 orders, each run on the two kernel queues (%d lines)",
	       n);
	/* every order predicted (a column after the measured one, > 0) */
	snprintf(cmd, sizeof(cmd), "awk -F, 'NR > 1 && !($(NF) > 0 && $(NF - 1) > 0)' "
		 "%s/kq2/perms.csv | wc -l", dir);
	tap_ok(!test_capture(cmd, out, sizeof(out)) && atoi(out) == 0,
	       "perms.csv: every order measured and predicted (%d bad)", atoi(out));
}

/*
 * --setups stream,hygiene: auto runs again with memory hygiene off, and
 * summary.md gives the ratio (when both counted tasks in their window).
 */
static void hygiene(const char *dir)
{
	char cmd[1024], out[256];
	long noclear = -1, cleared = -1;
	int n;

	snprintf(cmd, sizeof(cmd), "%s --quick --profile %s/profile --out %s/hygiene --data %s "
		 "--suites real --setups stream,hygiene --stream-s 1 --stream-workers 2 2>&1; "
		 "echo \"status $?\"", TQBENCH_BIN, dir, dir, TQ_DATA);
	tap_ok(test_run_status(cmd) == 0, "tqbench --setups stream,hygiene");
	snprintf(cmd, sizeof(cmd), "%s/hygiene", dir);
	n = lines(cmd, "stream.csv", out, sizeof(out));
	tap_ok(n == 1 + 6, "stream.csv: fifo, paper, auto, flow, auto-noclear, independent "
	       "(%d lines)", n);
	snprintf(cmd, sizeof(cmd), "awk -F, '$1 == \"auto-noclear\" { print $4 }' "
		 "%s/hygiene/stream.csv", dir);
	if (!test_capture(cmd, out, sizeof(out)))
		noclear = atol(out);
	snprintf(cmd, sizeof(cmd), "grep -c \"^- memory hygiene's cost, stream: auto's throughput "
		 "clearing over not clearing (auto-noclear, today's behaviour): [0-9.]*; .* "
		 "[0-9]* bytes cleared per task$\" %s/hygiene/summary.md", dir);
	if (test_capture(cmd, out, sizeof(out)) >= 0)	/* grep -c: 1 when it counts none */
		cleared = atol(out);
	tap_ok(noclear >= 0 && cleared == (noclear > 0),
	       "summary.md: the ratio, when auto-noclear counted tasks (%ld tasks, %ld lines)",
	       noclear, cleared);
}

/*
 * --setups stream,isolation: auto runs again with one of two workers in an
 * isolation domain of its own: its tasks counted apart, the domain open,
 * and summary.md gives each side's ratio; plain auto opens none.
 */
static void isolation(const char *dir)
{
	char cmd[1024], out[256];
	long user = -1, others = -1, domains = -1, auto_domains = -1, said = -1;

	snprintf(cmd, sizeof(cmd), "%s --quick --profile %s/profile --out %s/isolation --data %s "
		 "--suites real --setups stream,isolation --stream-setups auto,auto-isolated "
		 "--stream-s 1 --stream-workers 2 2>&1; echo \"status $?\"", TQBENCH_BIN, dir, dir,
		 TQ_DATA);
	tap_ok(test_run_status(cmd) == 0, "tqbench --setups stream,isolation");
	snprintf(cmd, sizeof(cmd), "awk -F, '$1 == \"auto-isolated\" { u = $17 > 0; o = $18 > 0; "
		 "d = $19 } $1 == \"auto\" { a = $19 } END { print u, o, d, a }' "
		 "%s/isolation/stream.csv", dir);
	if (!test_capture(cmd, out, sizeof(out)) &&
	    sscanf(out, "%ld %ld %ld %ld", &user, &others, &domains, &auto_domains) != 4)
		user = -1;
	tap_ok(user == 1 && others == 1 && domains == 1 && auto_domains == 0,
	       "stream.csv: auto-isolated's user and others both served, one domain open "
	       "(auto: %ld)", auto_domains);
	snprintf(cmd, sizeof(cmd), "grep -c \"^- per-user contexts' cost, stream: with 1 of 2 "
		 "workers one user in an OpenCL context of its own (auto-isolated over auto), that "
		 "user's throughput [0-9.]*, the others' [0-9.]*, all [0-9.]*; p99 \" "
		 "%s/isolation/summary.md", dir);
	if (test_capture(cmd, out, sizeof(out)) >= 0)
		said = atol(out);
	tap_ok(said == 1, "summary.md: the user's and the others' ratios (%ld lines)", said);
}

/*
 * The open loop, small: two clients, the phased mix at half the capacity,
 * three setups; and its usage errors, refused before anything runs.
 */
#define OL_TASKS	40	/* --ol-tasks: longer than --ol-s 0.3 gives on PoCL */

static void openloop(const char *dir)
{
	static const char *const bad[][2] = {
		{ "--ol-mixes BK200", "--ol-mixes" },
		{ "--ol-mixes phased,XY", "--ol-mixes" },
		{ "--ol-loads 0.5,0", "--ol-loads" },
		{ "--ol-setups fifo,bogus", "--ol-setups" },
		{ "--ol-clients 99", "--ol-clients" },
		{ "--ol-tasks -1", "--ol-tasks" },
		{ "--setups openloop --suites synthetic", "needs the real suite" },
	};
	char cmd[1024], out[4096];
	int n, rows, st;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(cmd, sizeof(cmd), "%s --profile %s/profile --out %s/ol %s 2>&1",
			 TQBENCH_BIN, dir, dir, bad[i][0]);
		st = test_capture(cmd, out, sizeof(out));
		tap_ok(st == 2 && strstr(out, bad[i][1]), "%s: a usage error (status %d)",
		       bad[i][0], st);
	}
	snprintf(cmd, sizeof(cmd), "%s --quick --profile %s/profile --out %s/ol --data %s "
		 "--suites real --setups openloop --ol-setups auto,flow,independent,auto-isolated "
		 "--ol-mixes phased --ol-loads 0.5 --ol-s 0.3 --ol-tasks %d --ol-clients 2 2>&1; "
		 "echo \"status $?\"", TQBENCH_BIN, dir, dir, TQ_DATA, OL_TASKS);
	tap_ok(test_run_status(cmd) == 0, "tqbench --setups openloop");
	snprintf(cmd, sizeof(cmd), "%s/ol", dir);
	rows = lines(cmd, "openloop.csv", out, sizeof(out));
	tap_ok(rows == 1 + 4 && !strncmp(out, "mix,setup,load", 14),
	       "openloop.csv: a row per setup (%d lines)", rows);
	n = lines(cmd, "openloop-capacity.csv", out, sizeof(out));
	tap_ok(n == 1 + 2, "openloop-capacity.csv: BK25 and BK75 (%d lines)", n);
	/* every task counted once: latencies positive and ordered, arrivals offered */
	snprintf(cmd, sizeof(cmd), "awk -F, 'NR > 1 && !($5 > 0 && $7 > 0 && $7 <= $8 && "
		 "$8 <= $9 && $4 > 0)' %s/ol/openloop.csv | wc -l", dir);
	test_capture(cmd, out, sizeof(out));
	tap_ok(rows == 1 + 4 && atoi(out) == 0,
	       "openloop.csv: tasks counted, p50 <= p99 <= p99.9 (%d bad)", atoi(out));
	/* --ol-tasks: each point ran long enough for them (Poisson: a few short is chance) */
	snprintf(cmd, sizeof(cmd), "awk -F, 'NR > 1 && !($5 >= %d && $18 >= 0.3)' "
		 "%s/ol/openloop.csv | wc -l", OL_TASKS * 3 / 4, dir);
	test_capture(cmd, out, sizeof(out));
	tap_ok(rows == 1 + 4 && atoi(out) == 0,
	       "openloop.csv: at least --ol-tasks counted per point (%d short)", atoi(out));
	/* auto-isolated: client 1 in a domain of its own, client 2 shared; each's figures */
	snprintf(cmd, sizeof(cmd), "echo $(awk -F, '$2 ~ /^auto/ && $21 > 0 && $23 > 0' "
		 "%s/ol/openloop.csv | wc -l) $(grep -c \"^- per-user contexts' cost, open loop: "
		 "half the clients .* 50%% [0-9.]*, [0-9.]*, [0-9.]*;$\" %s/ol/summary.md)", dir,
		 dir);
	test_capture(cmd, out, sizeof(out));
	tap_ok(!strncmp(out, "2 1", 3), "auto-isolated: the user's and the others' p99 apart, "
	       "and their ratios to auto in summary.md (rows, lines: %.3s)", out);
	snprintf(cmd, sizeof(cmd), "%s/ol", dir);
	n = lines(cmd, "openloop-phased.svg", out, sizeof(out));
	tap_ok(n > 3 && !strncmp(out, "<svg", 4), "openloop-phased.svg is an SVG");
	check_svg(cmd, "openloop-phased.svg");
	snprintf(cmd, sizeof(cmd), "grep -c '^## Open loop' %s/ol/summary.md", dir);
	test_capture(cmd, out, sizeof(out));
	tap_ok(atoi(out) == 1, "summary.md: the open loop's section");
}

/*
 * Unknown names and values that are not numbers: refused with status 2 and
 * the value named, before any device opens.
 */
static void bad_values(const char *dir)
{
	static const char *const bad[][3] = {
		{ TQBENCH_BIN, "--benches BK0,BK33", "--benches: unknown 'BK33'" },
		{ TQBENCH_BIN, "--setups nonsense", "--setups: unknown 'nonsense'" },
		{ TQBENCH_BIN, "--suites synthetic,", "--suites: unknown ''" },
		{ TQBENCH_BIN, "--stream-setups fifo,lifo", "--stream-setups: unknown 'lifo'" },
		{ TQBENCH_BIN, "--runs 3x", "--runs: '3x'" },
		{ TQBENCH_BIN, "--runs 65", "--runs: '65'" },
		{ TQBENCH_BIN, "--unit-ms ten", "--unit-ms: 'ten'" },
		{ TQBENCH_BIN, "--time-limit -1", "--time-limit: '-1'" },
		{ TQBENCH_BIN, "--seed 0x10", "--seed: '0x10'" },
		{ TQBENCH_BIN, "--setups qos", "--setups qos runs its clients as processes" },
		{ TQBENCH_BIN, "--workers process --setups qos --qos-deadline 5,,20",
		  "--qos-deadline: at most 4 multiples" },
		{ TQBENCH_BIN, "--workers process --setups qos --qos-deadline 1,2,3,4,5",
		  "--qos-deadline: at most 4 multiples" },
		{ TQBENCH_BIN, "--qos-tasks 7001", "--qos-tasks: '7001'" },
		{ TQCALIB_BIN, "--tasks MM,GEMM", "--tasks: unknown 'GEMM'" },
		{ TQCALIB_BIN, "--reps ''", "--reps: ''" },
		{ TQCALIB_BIN, "--max-size 4Q", "--max-size: '4Q'" },
		{ TQCALIB_BIN, "--kernel-ms nan", "--kernel-ms: 'nan'" },
	};
	char cmd[1024], out[4096];
	int st;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		/* tqbench's --profile is required; the file is not read before the check */
		snprintf(cmd, sizeof(cmd), "%s %s%s %s 2>&1", bad[i][0],
			 strcmp(bad[i][0], TQBENCH_BIN) ? "" : "--profile ",
			 strcmp(bad[i][0], TQBENCH_BIN) ? "" : dir, bad[i][1]);
		st = test_capture(cmd, out, sizeof(out));
		tap_ok(st == 2 && strstr(out, bad[i][2]), "%s %s: status 2 (got %d), says %s",
		       strrchr(bad[i][0], '/') + 1, bad[i][1], st, bad[i][2]);
	}
}

int main(void)
{
	static const char *const svgs[] = { "speedup-synthetic.svg", "speedup-real.svg",
					    "model.svg", "means.svg", "stream.svg" };
	char dir[] = "/tmp/tqbench-test.XXXXXX", cmd[1024], first[256];
	int st, n;

	if (!mkdtemp(dir))
		tap_skip_all("cannot make a temporary directory");
	nice_ticks();
	replot(dir);
	no_module(dir);
	bad_values(dir);
	snprintf(cmd, sizeof(cmd), "%s --quick -o %s/profile 2>&1; echo \"status $?\"",
		 TQCALIB_BIN, dir);
	st = test_run_status(cmd);
	if (st == 77) {
		tap_skip("tqcalib and tqbench on a device", "no OpenCL device");
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd))
			tap_diag("could not remove %s", dir);
		return tap_done();
	}
	tap_ok(st == 0, "tqcalib --quick");

	snprintf(cmd, sizeof(cmd), "%s --quick --profile %s/profile --out %s --data %s "
		 "--configs 3x1 --stream-s 0.3 --stream-workers 2 2>&1; echo \"status $?\"",
		 TQBENCH_BIN, dir, dir, TQ_DATA);
	tap_ok(test_run_status(cmd) == 0, "tqbench --quick");

	/*
	 * 2 suites x 5 benchmarks; per benchmark 6 NoReorder rows (worst, median,
	 * best as the trials ran them and as NoReorder's runs did), 5 + 5
	 * policies, 1
	 */
	n = lines(dir, "tqbench.csv", first, sizeof(first));
	tap_ok(n == 1 + 10 * 17, "tqbench.csv: a row per experiment and setup (%d lines)", n);
	snprintf(cmd, sizeof(cmd), "grep -c ',thread$' %s/tqbench.csv", dir);
	test_capture(cmd, first, sizeof(first));
	tap_ok(atoi(first) == 10 * 17, "tqbench.csv: every row says workers=thread (%d)",
	       atoi(first));
	/* the policies' rows: the idle time per TG spent on plans, a number (0 for most) */
	snprintf(cmd, sizeof(cmd), "awk -F, 'NR == 1 ? $14 != \"refine_us\" : "
		 "$5 ~ /^usched_/ && $14 !~ /^[0-9]+[.][0-9]+$/' %s/tqbench.csv | wc -l", dir);
	test_capture(cmd, first, sizeof(first));
	tap_ok(atoi(first) == 0, "tqbench.csv: refine_us in every policy's row (%d bad)", atoi(first));
	n = lines(dir, "perms.csv", first, sizeof(first));
	tap_ok(n == 1 + 10 * 6, "perms.csv: every order of 3 tasks, 10 times (%d lines)", n);
	n = lines(dir, "stream.csv", first, sizeof(first));
	tap_ok(n == 1 + 5, "stream.csv: fifo, paper, auto, flow, independent (%d lines)", n);
	/* the device is busy at least as long as its busiest engine, at most throughout */
	snprintf(cmd, sizeof(cmd), "awk -F, 'NR == 1 ? $9 != \"util_device\" : $4 > 0 && "
		 "($9 < $6 || $9 < $7 || $9 < $8 || $9 > 1.00001)' %s/stream.csv | wc -l", dir);
	test_capture(cmd, first, sizeof(first));
	tap_ok(atoi(first) == 0, "stream.csv: util_device within [busiest engine, 1] (%d bad)",
	       atoi(first));
	/* the share of completions found by polling: within [0, 1], none for independent */
	snprintf(cmd, sizeof(cmd), "awk -F, 'NR == 1 ? $16 != \"polled\" : $16 !~ /^[01][.][0-9]+$/ "
		 "|| $16 > 1 || ($1 == \"independent\" && $16 != 0)' %s/stream.csv | wc -l", dir);
	test_capture(cmd, first, sizeof(first));
	tap_ok(atoi(first) == 0, "stream.csv: polled a share in every row (%d bad)", atoi(first));
	tap_ok(lines(dir, "tg.csv", first, sizeof(first)) > 1, "tg.csv has TGs");
	/* per experiment 6 orders x 3 tasks of 3 or more commands each */
	n = lines(dir, "commands.csv", first, sizeof(first));
	tap_ok(n >= 1 + 10 * 6 * 9 && !strncmp(first, "suite,bench,T,N,order_no", 24),
	       "commands.csv: every command of every order (%d lines)", n);
	/* 10 experiments x 5 policies x 1 counted run x 3 tasks */
	n = lines(dir, "usched-tasks.csv", first, sizeof(first));
	tap_ok(n == 1 + 10 * 5 * 3, "usched-tasks.csv: every task of the policies' runs (%d lines)",
	       n);
	/* a slow machine may count none in the quick stream's window: the files must agree */
	n = lines(dir, "stream-tasks.csv", first, sizeof(first));
	tap_ok(stream_usched_tasks(dir) >= 0 && n == 1 + stream_usched_tasks(dir) &&
	       !strncmp(first, "setup,tg,task", 13),
	       "stream-tasks.csv: every task stream.csv counts through usched (%d lines)", n);
	n = lines(dir, "summary.md", first, sizeof(first));
	tap_ok(n > 20 && !strncmp(first, "<!--", 4), "summary.md written (%d lines)", n);
	for (size_t i = 0; i < sizeof(svgs) / sizeof(svgs[0]); i++) {
		n = lines(dir, svgs[i], first, sizeof(first));
		tap_ok(n > 3 && !strncmp(first, "<svg", 4), "%s is an SVG", svgs[i]);
		check_svg(dir, svgs[i]);
	}

	steady(dir);
	hygiene(dir);
	isolation(dir);
	kernel_queues(dir);
	openloop(dir);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		tap_diag("could not remove %s", dir);
	return tap_done();
}
