// SPDX-License-Identifier: GPL-2.0
/*
 * sim-cli: the tqsim command-line contract. Bad task files exit 2 with
 * "FILE:LINE: reason" on stderr; bad options exit 2; the JSON of makespan,
 * order and perms carries the documented keys; --trace and --svg write
 * their files.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "selftests/tap.h"
#include "selftests/testutil.h"

static char dir[] = "/tmp/tqsim-cli-XXXXXX";

static void put(const char *name, const char *text)
{
	test_write(dir, name, text);
}

/* Run "tqsim ARGS" in @dir; returns the exit status, output in @out. */
static int run(const char *args, bool want_stderr, char *out, size_t len)
{
	char cmd[1024], top[512];

	if (!getcwd(top, sizeof(top)))
		return -1;
	snprintf(cmd, sizeof(cmd), "cd %s && %s/%s %s %s", dir, top, TQSIM_BIN, args,
		 want_stderr ? "2>&1 >/dev/null" : "2>/dev/null");
	return test_capture(cmd, out, len);
}

static const char header[] = "name,htd_ms,k_ms,dth_ms\n";

static void test_bad_files(void)
{
	static const struct {
		const char *text;	/* NULL: header, then body */
		const char *body;
		const char *want;	/* the start of stderr */
	} cases[] = {
		{ "a,1,2,3\n", NULL,
		  "bad.csv:1: expected header 'name,htd_ms,k_ms,dth_ms[,after][,width]'" },
		{ "name,htd_ms,k_ms,dth_ms,width,width\n", NULL, "bad.csv:1: expected header" },
		{ "name,htd_ms,k_ms,dth_ms,width\na,1,1,1,1.5\n", NULL,
		  "bad.csv:2: width: not a number in (0, 1]" },
		{ "name,htd_ms,k_ms,dth_ms,width\na,1,1,1,0\n", NULL,
		  "bad.csv:2: width: not a number in (0, 1]" },
		{ "name,htd_ms,k_ms,dth_ms,before\n", NULL, "bad.csv:1: expected header" },
		{ "name,htd_ms,k_ms,dth_ms,after\na,1,1,1\n", NULL,
		  "bad.csv:2: expected 5 fields, got fewer" },
		{ "name,htd_ms,k_ms,dth_ms,after\na,1,1,1,b\nb,1,1,1,\n", NULL,
		  "bad.csv:2: after: not the name of a task on an earlier line" },
		{ "name,htd_ms,k_ms,dth_ms,after\na,1,1,1,a\n", NULL,
		  "bad.csv:2: after: not the name of a task on an earlier line" },
		{ NULL, "a,1,2\n", "bad.csv:2: expected 4 fields, got fewer" },
		{ NULL, "a,1,2,3,4\n", "bad.csv:2: expected 4 fields, got more" },
		{ NULL, "a,x,2,3\n", "bad.csv:2: htd_ms: 'x' is not a number" },
		{ NULL, "a,1,-2,3\n", "bad.csv:2: k_ms: -2 is not a duration > 0" },
		{ NULL, "a,1,2,1+0\n", "bad.csv:2: dth_ms: 0 is not a duration > 0" },
		{ NULL, "a,1,2,\n", "bad.csv:2: dth_ms is empty" },
		{ NULL, ",1,2,3\n", "bad.csv:2: empty task name" },
		{ NULL, "a<b,1,2,3\n", "bad.csv:2: task name may only have" },
		{ "# comment\n\nname,htd_ms,k_ms,dth_ms\n# more\na,1,1,1\nb,1,1,nan\n", NULL,
		  "bad.csv:6: dth_ms: 'nan' is not a number" },
		{ NULL, "", "bad.csv:1: no tasks" },
		{ "", NULL, "bad.csv:1: no header line" },
	};
	char out[4096], body[8192];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc;

		if (cases[i].text)
			put("bad.csv", cases[i].text);
		else {
			snprintf(body, sizeof(body), "%s%s", header, cases[i].body);
			put("bad.csv", body);
		}
		rc = run("makespan bad.csv", true, out, sizeof(out));
		tap_ok(rc == 2 && !strncmp(out, cases[i].want, strlen(cases[i].want)),
		       "bad task file %zu: exit 2, '%s' (got %d '%.*s')", i, cases[i].want, rc,
		       (int)strcspn(out, "\n"), out);
	}
	strcpy(body, header);
	for (int t = 0; t < 65; t++)
		strcat(body, "t,1,1,1\n");
	put("bad.csv", body);
	tap_ok(run("order --policy neh bad.csv", true, out, sizeof(out)) == 2 &&
	       !strncmp(out, "bad.csv:66: more than 64 tasks", 30), "65 tasks: exit 2 at line 66");
	tap_ok(run("makespan missing.csv", true, out, sizeof(out)) == 2 &&
	       !strncmp(out, "missing.csv:0: cannot read", 26), "missing file: exit 2");
}

static void test_bad_options(void)
{
	static const char *const cases[] = {
		"makespan --dma 3 bk.csv",
		"makespan --slow 0.5 bk.csv",
		"makespan --slow 1.1 --slow-htd 1.2 bk.csv",
		"makespan --busy 1,2 bk.csv",
		"makespan --latency 0.008 bk.csv",
		"makespan --latency 0.008,-1 bk.csv",
		"makespan --order 0,1,2 bk.csv",
		"makespan --order 0,1,2,2 bk.csv",
		"makespan --order 0,1,2,4 bk.csv",
		"order bk.csv",
		"order --policy nope bk.csv",
		"order --policy auto --budget-us 0 bk.csv",
		"makespan",
		"makespan bk.csv bk.csv",
		"frobnicate bk.csv",
		"makespan --profile bad.profile bk.csv",
		"makespan --kernel-queues 0 bk.csv",
		"makespan --kernel-queues 9 bk.csv",
		"makespan --kernel-queues 1.5 bk.csv",
	};
	char out[4096], body[4096];

	put("bad.profile", "tq-profile 1\ndma 7\n");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		tap_ok(run(cases[i], true, out, sizeof(out)) == 2 && *out, "'tqsim %s': exit 2",
		       cases[i]);
	run("makespan --profile bad.profile bk.csv", true, out, sizeof(out));
	tap_ok(!strncmp(out, "bad.profile:2: dma must be 1 or 2", 33), "profile errors give FILE:LINE");
	strcpy(body, header);
	for (int t = 0; t < 11; t++)
		strcat(body, "t,1,2,1\n");
	put("eleven.csv", body);
	tap_ok(run("perms eleven.csv", true, out, sizeof(out)) == 2 && strstr(out, "at most 10"),
	       "perms refuses 11 tasks with a clear message");
}

static void test_outputs(void)
{
	char out[8192], body[128], *p;
	double best = 0, worst = 0, median = 0;
	FILE *f;
	size_t n;

	tap_ok(!run("perms bk.csv", false, out, sizeof(out)) &&
	       (p = strstr(out, "\"best_ms\":")) && sscanf(p, "\"best_ms\": %lf", &best) == 1 &&
	       (p = strstr(out, "\"worst_ms\":")) && sscanf(p, "\"worst_ms\": %lf", &worst) == 1 &&
	       (p = strstr(out, "\"median_ms\":")) &&
	       sscanf(p, "\"median_ms\": %lf", &median) == 1 && strstr(out, "\"mean_ms\":") &&
	       best == 21 && worst == 31 && median == 26,
	       "perms on BK50: best 21, median 26, worst 31 ms");
	tap_ok(!run("order --policy exact bk.csv", false, out, sizeof(out)) &&
	       strstr(out, "\"order\": [") && strstr(out, "\"makespan_ms\": 21.000000") &&
	       strstr(out, "\"lower_bound_ms\":") && strstr(out, "\"policy_us\":") &&
	       strstr(out, "\"optimal\": true"), "order --policy exact prints the optimum as JSON");
	tap_ok(!run("makespan --order 2,0,1,3 --trace t.json --svg t.svg bk.csv", false, out,
		    sizeof(out)) && strstr(out, "\"makespan_ms\": 31.000000"),
	       "makespan --order 2,0,1,3 is the worst order, 31 ms");
	snprintf(out, sizeof(out), "%s/t.json", dir);
	f = fopen(out, "r");
	if (f) {
		size_t n = fread(out, 1, sizeof(out) - 1, f);
		int events = 0;

		out[n] = 0;
		fclose(f);
		/* usched's format (sim/trace.h): the array form, a TG slice and the commands */
		for (p = out; (p = strstr(p, "\"ph\": \"X\"")); p++)
			events += !strncmp(p - 14, "\"cat\": \"HtD\"", 12) ||
				  !strncmp(p - 12, "\"cat\": \"K\"", 10) ||
				  !strncmp(p - 14, "\"cat\": \"DtH\"", 12);
		tap_ok(!strncmp(out, "[\n", 2) && strstr(out, "\n]\n") && events == 12 &&
		       strstr(out, "\"name\": \"TG 1\"") && strstr(out, "\"HtD predicted\""),
		       "--trace writes trace events, one per command (%d), the TG, predicted tracks",
		       events);
	} else {
		tap_ok(0, "--trace writes trace events");
	}
	snprintf(out, sizeof(out), "%s/t.svg", dir);
	f = fopen(out, "r");
	if (f) {
		size_t n = fread(out, 1, sizeof(out) - 1, f);

		out[n] = 0;
		fclose(f);
		tap_ok(!strncmp(out, "<svg", 4) && strstr(out, "</svg>\n") &&
		       strstr(out, "#3b75c4") && strstr(out, "#4caf50") && strstr(out, "#f39c12"),
		       "--svg draws the Gantt chart in blue, green and orange");
	} else {
		tap_ok(0, "--svg draws the Gantt chart");
	}
	/* BK50 with T5 after T4: half the orders are feasible */
	put("chain.csv", "name,htd_ms,k_ms,dth_ms,after\nT0,1,8,1,\nT1,2,7,1,\nT4,6,2,2,\n"
	    "T5,2,2,6,T4\n");
	tap_ok(!run("perms chain.csv", false, out, sizeof(out)) &&
	       strstr(out, "\"permutations\": 12,") && (p = strstr(out, "\"best_ms\":")) &&
	       sscanf(p, "\"best_ms\": %lf", &best) == 1 && best >= 21,
	       "after: perms counts the 12 feasible orders (best %.3f ms)", best);
	snprintf(body, sizeof(body), "\"makespan_ms\": %.6f", best);
	tap_ok(!run("order --policy exact chain.csv", false, out, sizeof(out)) && strstr(out, body),
	       "after: exact finds perms' best");
	tap_ok(run("makespan --order 3,0,1,2 chain.csv", true, out, sizeof(out)) == 2 &&
	       strstr(out, "before its predecessor"), "after: an infeasible --order exits 2");
	/* two kernels of half the device each: serial on one queue, at once on two */
	put("wide.csv", "name,htd_ms,k_ms,dth_ms,width,after\nA,2,10,1,0.5,\nB,2,10,1,,\n"
	    "C,2,10,1,0.5,\n");
	tap_ok(!run("makespan wide.csv", false, out, sizeof(out)) &&
	       strstr(out, "\"makespan_ms\": 33.000000"), "width: one kernel queue runs kernels one by one");
	tap_ok(!run("makespan --kernel-queues 2 --trace wk.json wide.csv", false, out, sizeof(out)) &&
	       strstr(out, "\"kernel_queues\": 2") && strstr(out, "\"makespan_ms\": 28.000000"),
	       "--kernel-queues 2: A and B share the device (1.5 of it), C follows A on its queue");
	snprintf(body, sizeof(body), "%s/wk.json", dir);
	f = fopen(body, "r");
	n = f ? fread(out, 1, sizeof(out) - 1, f) : 0;
	out[n] = 0;
	if (f)
		fclose(f);
	tap_ok(strstr(out, "\"name\": \"K1 predicted\"") && strstr(out, "\"cat\": \"K\""),
	       "--kernel-queues 2: the trace has a track for the second kernel queue");
	put("ok.profile", "tq-profile 1\ndma 1\nhtd alone 0 10\ndth alone 0 10\n");
	tap_ok(!run("makespan --profile ok.profile bk.csv", false, out, sizeof(out)) &&
	       strstr(out, "\"dma\": 1"), "--profile sets the copy engines");
}

int main(void)
{
	char cmd[64];

	if (access(TQSIM_BIN, X_OK))
		tap_skip_all("no " TQSIM_BIN "; run from the top of the tree after make");
	if (!mkdtemp(dir))
		tap_skip_all("cannot create a temporary directory");
	put("bk.csv", "name,htd_ms,k_ms,dth_ms\nT0,1,8,1\nT1,2,7,1\nT4,6,2,2\nT5,2,2,6\n");
	test_bad_files();
	test_bad_options();
	test_outputs();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		tap_diag("could not remove %s", dir);
	return tap_done();
}
