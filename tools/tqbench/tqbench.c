// SPDX-License-Identifier: GPL-2.0
/*
 * tqbench - the paper's experiment (section 0.6), tq's ordering and model
 * accuracy against it, and a stream experiment beyond it.
 *
 *	tqbench --profile FILE [--out DIR] [--quick] [options]
 *
 * T workers each have N dependent tasks drawn from a benchmark: the paper's
 * synthetic BK0-BK100 (Tables 2, 3; SYN tuned to the time unit here) or
 * real-task mixes from kernels/ sized per device to Table 5's ranges. The
 * setups: NoReorder (every order of the T tasks per round, (T!)^N, or a 5%
 * sample of them; each run --runs times, median); then --trials trials of
 * NoReorder's worst, median and best orders, each policy's own order
 * and each policy through usched, once each; and independent contexts,
 * one per worker, as applications run without tq (--workers process: the
 * policies through the usched daemon, each worker a process submitting
 * through libtq and /dev/tqsubmit or tqsubmitd's socket). Then a stream: P
 * workers keep tasks in flight for --stream-s seconds through usched (fifo,
 * paper, auto; with --setups ...,hygiene auto again without memory hygiene,
 * for its cost as a ratio; with ...,isolation auto again with half the
 * workers in an isolation domain of their own) and through independent
 * contexts; with --workers
 * process also through the daemon (proc-fifo, proc-paper, proc-auto) and as
 * independent processes (proc-independent: each its own process and
 * context, as applications run today). With --setups qos and --workers
 * process: classes, shares and deadlines through the daemon (qos.c).
 *
 * Output: a table on stdout, and in --out: tqbench.csv (one row per
 * experiment and setup), perms.csv (every order run), tg.csv (usched's
 * predicted and measured makespan per TG), stream.csv, tasks.txt,
 * speedup-{synthetic,real}.svg (the paper's Figures 9 and 10), model.svg
 * (Figure 7), means.svg (Figure 11), stream.svg and summary.md; with
 * --workers process also usched.log and usched.prom (the daemon's), and
 * proc-tg.csv and proc-tasks.csv (its TGs and tasks, as tg.csv's); with
 * --setups qos qos.csv (the targets), qos-latency.csv, qos-shares.csv and
 * qos-deadlines.csv.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tools/tqbench/bench.h"
#include "tq/args.h"
#include "tq/clock.h"
#include "tq/version.h"
#include "usched/core/usched.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: tqbench --profile FILE [options]\n"
		"  or:  tqbench --replot DIR\n"
		"  --profile FILE        the device profile tqcalib wrote (required)\n"
		"  --out DIR             where the CSV, SVG and summary.md go\n"
		"                        (default: tqbench-out)\n"
		"  --data DIR            the paper's tables as CSV (default: data)\n"
		"  --device D            device index or name substring (default: first GPU)\n"
		"  --quick               a smoke run: small unit, 4x1 only, one run, short stream\n"
		"  --suites LIST         synthetic,real (default: both)\n"
		"  --benches LIST        BK0,BK25,... (default: every benchmark)\n"
		"  --setups LIST         noreorder,orders,policies,independent,stream\n"
		"                        (default: all), and hygiene: the stream runs auto\n"
		"                        a second time with usched's memory hygiene off\n"
		"                        (auto-noclear) for its cost, a ratio in summary.md;\n"
		"                        isolation: auto again with half the workers as one\n"
		"                        user in an OpenCL context of its own (auto-isolated,\n"
		"                        as usched's isolate-source), its cost to that user\n"
		"                        and to the others in summary.md;\n"
		"                        openloop (not in the default): Poisson clients at\n"
		"                        loads of the measured capacity, latency-throughput;\n"
		"                        qos (not in the default; --workers process): a\n"
		"                        critical client beside best-effort ones with and\n"
		"                        without priorities, two users' shares, deadlines\n"
		"                        (issue 45; qos.csv and summary.md's targets)\n"
		"  --configs LIST        TxN,... (default: 4x1,4x2,6x1,8x1; quick: 4x1)\n"
		"  --runs N              runs of each NoReorder order and of independent\n"
		"                        contexts, median (default 3; quick 1)\n"
		"  --trials N            trials in which NoReorder's worst, median and best\n"
		"                        orders, each policy's order and each policy through\n"
		"                        usched run once each, median (default 9; quick 1)\n"
		"  --perms-all N         run every order when there are at most N (default 24)\n"
		"  --perms-max N         else a 5%% sample, at most N orders\n"
		"                        (default 48; quick 12)\n"
		"  --unit-ms MS          synthetic time unit (default 10; quick 2)\n"
		"  --real-scale X        Table 5's times times X (default 1; quick 0.25)\n"
		"  --table5 DEVICE       which row of Table 5 (default \"NVIDIA K20c\")\n"
		"  --stream-s S          stream length per setup (default 8; quick 0.5)\n"
		"  --stream-workers P    stream workers (default 8)\n"
		"  --stream-depth D      tasks each stream worker keeps in flight (default 4)\n"
		"  --stream-setups LIST  only these of the stream's setups (default: all of\n"
		"                        fifo,paper,auto,flow,independent and, with --workers\n"
		"                        process, proc-fifo,proc-paper,proc-auto,\n"
		"                        proc-independent)\n"
		"  --ol-mixes LIST       the open loop's mixes: phased (BK25/BK75 phases), BKx,\n"
		"                        or BKx/BKy/... phases (default phased,BK50)\n"
		"  --ol-loads LIST       offered loads, fractions of the capacity\n"
		"                        (default 0.3,0.5,0.7,0.8,0.9,1.0,1.2; quick 0.5,1.2)\n"
		"  --ol-setups LIST      fifo,paper,neh,exact,auto,flow,independent and, with\n"
		"                        --workers process, proc-independent (each client a\n"
		"                        process of its own) (default fifo,paper,auto,flow,\n"
		"                        independent)\n"
		"  --ol-s S              seconds of arrivals per point (default 3; quick 0.4)\n"
		"  --ol-tasks N          and at least N counted arrivals: a point at a low\n"
		"                        load lasts longer, so its p99 has tasks above it\n"
		"                        (default 0: --ol-s alone)\n"
		"  --ol-phase-s S        a phase of a mix (default 0.5; quick 0.1)\n"
		"  --ol-clients P        the open loop's clients (default 8)\n"
		"  --qos-tasks N         the critical client's counted tasks, one every\n"
		"                        10 ms (default 1000; quick 100)\n"
		"  --qos-task NAME       its task: a real pool task (MM/2352) or a kernel's\n"
		"                        smallest (MM) (default: the pool's smallest)\n"
		"  --qos-s S             seconds of the shares' and the deadlines' runs\n"
		"                        (default 10; quick 1)\n"
		"  --qos-deadline LIST   a task's deadline, X times its time alone: a run\n"
		"                        for each X, at most 4 (default 5,20)\n"
		"  --max-tg N            usched's most tasks in one TG (default: usched's, 8)\n"
		"  --kernel-queues N     usched's kernel queues, 1..8 (default: usched's, 1);\n"
		"                        NoReorder and the fixed orders run on as many, the\n"
		"                        order's i-th kernel on queue i %% N, as usched's\n"
		"  --no-plans            usched's auto orders every TG afresh, not from the\n"
		"                        best order it kept for the same mix of tasks\n"
		"  --no-refine           nor goes on with a plan's search in its loop's idle\n"
		"                        time while the device runs the TG\n"
		"  --no-poll             usched completes a task when its OpenCL callback\n"
		"                        comes, not when it finds it done at its predicted end\n"
		"  --no-clear            usched hands device buffers from one owner's task to\n"
		"                        another's uncleared (measurement only: no hygiene)\n"
		"  --steady PCT          wait for a steady host before each NoReorder pass,\n"
		"                        trial and stream window, and run a pass or a trial\n"
		"                        again when the host's overlapped HtD copies ran\n"
		"                        more than PCT%% over the profile's slowdown\n"
		"                        (default 6 on a GPU with two copy engines, else 0:\n"
		"                        off)\n"
		"  --steady-wait S       the longest wait for a steady host (default 20)\n"
		"  --redo N              passes, and trials, run again per experiment at\n"
		"                        most (default 3)\n"
		"  --time-limit S        skip experiments that would start after S seconds\n"
		"  --seed N              the random draws (default 1)\n"
		"  --workers MODE        the policies' workers: thread (usched in-process,\n"
		"                        driven by tqbench; the default) or process (the\n"
		"                        usched daemon, one process per worker through\n"
		"                        libtq: /dev/tqsubmit when loaded (root), else\n"
		"                        tqsubmitd's socket; TQ_TRANSPORT forces either);\n"
		"                        the stream adds proc-independent (independent\n"
		"                        contexts each in a process of its own); the other\n"
		"                        setups run in-process either way\n"
		"  --usched PATH         the daemon for --workers process\n"
		"                        (default: the usched beside tqbench)\n"
		"  --tqsubmitd PATH      the socket's server tqbench starts when none\n"
		"                        listens on $TQ_SOCKET (default: beside tqbench)\n"
		"  --replot DIR          draw the SVGs in DIR again from its CSV files\n"
		"                        (tqbench.csv with perms.csv, stream.csv,\n"
		"                        openloop.csv) and run nothing\n"
		"  --version             print tq's version and exit\n");
}

static bool has(const char *list, const char *word)
{
	size_t len = strlen(word);

	for (const char *p = list; p && *p; p += strcspn(p, ","), p += *p == ',')
		if (!strncmp(p, word, len) && (p[len] == ',' || !p[len]))
			return true;
	return false;
}

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static const char *const suite_names[] = { "synthetic", "real" };
static const char *const setup_names[] = { "noreorder", "orders", "policies", "independent",
					   "stream", "hygiene", "isolation", "openloop", "qos" };
/* proc-*: --workers process only, the stream's clients as processes through the daemon */
static const char *const stream_setups[] = { "fifo", "paper", "auto", "flow", "auto-noclear",
					     "auto-isolated",
					     "independent", "proc-fifo", "proc-paper", "proc-auto",
					     "proc-independent" };

/* The names of --suites, --setups, --benches and --stream-setups, each known. */
static bool names_ok(const struct opts *o)
{
	char bench[MAX_BENCH][8];
	const char *benches[MAX_BENCH];

	for (unsigned int i = 0; i < MAX_BENCH; i++) {
		snprintf(bench[i], sizeof(bench[i]), "BK%u", bench_pcts[i]);
		benches[i] = bench[i];
	}
	return tq_arg_list("tqbench", "suites", o->suites, suite_names, ARRAY_LEN(suite_names)) &&
	       tq_arg_list("tqbench", "setups", o->setups, setup_names, ARRAY_LEN(setup_names)) &&
	       (!o->benches || tq_arg_list("tqbench", "benches", o->benches, benches, MAX_BENCH)) &&
	       (!o->stream_setups || tq_arg_list("tqbench", "stream-setups", o->stream_setups,
						 stream_setups, ARRAY_LEN(stream_setups)));
}

static unsigned int max3(unsigned int a, unsigned int b, unsigned int c)
{
	unsigned int m = a > b ? a : b;

	return m > c ? m : c;
}

static int parse_configs(struct opts *o, const char *s)
{
	o->ncfg = 0;
	while (*s && o->ncfg < MAX_CFG) {
		unsigned int T, N;
		int len;

		if (sscanf(s, "%ux%u%n", &T, &N, &len) != 2 || T < 2 || T > MAX_WORKERS ||
		    !N || T * N > MAX_SLOTS)
			return -1;
		o->cfg[o->ncfg][0] = T;
		o->cfg[o->ncfg++][1] = N;
		s += len;
		s += *s == ',';
	}
	return o->ncfg ? 0 : -1;
}

static int parse_opts(int argc, char **argv, struct opts *o, double *limit)
{
	enum { PROFILE = 256, OUT, DATA, DEVICE, QUICK, SUITES, SETUPS, CONFIGS, RUNS, PALL,
	       PMAX, UNIT, SCALE, TRIALS, TABLE5, SSECS, SWORK, SSETUPS, KQUEUES, SDEPTH, LIMIT, SEED, WORKERS, USCHED,
	       TQSUBMITD, BENCHES, MAXTG, NOPLANS, NOREFINE, NOPOLL, NOCLEAR, STEADY, SWAIT, REDO,
	       OLMIX, OLLOAD, OLSET, OLS, OLTASKS, OLPH, OLCL, REPLOT, QTASKS, QTASK, QSECS,
	       QDL };
	static const struct option lo[] = {
		{ "profile", required_argument, NULL, PROFILE },
		{ "out", required_argument, NULL, OUT },
		{ "data", required_argument, NULL, DATA },
		{ "device", required_argument, NULL, DEVICE },
		{ "quick", no_argument, NULL, QUICK },
		{ "suites", required_argument, NULL, SUITES },
		{ "setups", required_argument, NULL, SETUPS },
		{ "configs", required_argument, NULL, CONFIGS },
		{ "runs", required_argument, NULL, RUNS },
		{ "trials", required_argument, NULL, TRIALS },
		{ "perms-all", required_argument, NULL, PALL },
		{ "perms-max", required_argument, NULL, PMAX },
		{ "unit-ms", required_argument, NULL, UNIT },
		{ "real-scale", required_argument, NULL, SCALE },
		{ "table5", required_argument, NULL, TABLE5 },
		{ "stream-s", required_argument, NULL, SSECS },
		{ "stream-workers", required_argument, NULL, SWORK },
		{ "stream-setups", required_argument, NULL, SSETUPS },
		{ "kernel-queues", required_argument, NULL, KQUEUES },
		{ "stream-depth", required_argument, NULL, SDEPTH },
		{ "time-limit", required_argument, NULL, LIMIT },
		{ "seed", required_argument, NULL, SEED },
		{ "workers", required_argument, NULL, WORKERS },
		{ "usched", required_argument, NULL, USCHED },
		{ "tqsubmitd", required_argument, NULL, TQSUBMITD },
		{ "benches", required_argument, NULL, BENCHES },
		{ "max-tg", required_argument, NULL, MAXTG },
		{ "no-plans", no_argument, NULL, NOPLANS },
		{ "no-refine", no_argument, NULL, NOREFINE },
		{ "no-poll", no_argument, NULL, NOPOLL },
		{ "no-clear", no_argument, NULL, NOCLEAR },
		{ "steady", required_argument, NULL, STEADY },
		{ "steady-wait", required_argument, NULL, SWAIT },
		{ "redo", required_argument, NULL, REDO },
		{ "ol-mixes", required_argument, NULL, OLMIX },
		{ "ol-loads", required_argument, NULL, OLLOAD },
		{ "ol-setups", required_argument, NULL, OLSET },
		{ "ol-s", required_argument, NULL, OLS },
		{ "ol-tasks", required_argument, NULL, OLTASKS },
		{ "ol-phase-s", required_argument, NULL, OLPH },
		{ "ol-clients", required_argument, NULL, OLCL },
		{ "replot", required_argument, NULL, REPLOT },
		{ "qos-tasks", required_argument, NULL, QTASKS },
		{ "qos-task", required_argument, NULL, QTASK },
		{ "qos-s", required_argument, NULL, QSECS },
		{ "qos-deadline", required_argument, NULL, QDL },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *configs = NULL, *qos_dl = "5,20";
	bool ok = true;
	int ch;

	*o = (struct opts){ .data = "data", .out = "tqbench-out",
			    .suites = "synthetic,real",
			    .setups = "noreorder,orders,policies,independent,stream",
			    .table5 = "NVIDIA K20c", .stream_workers = 8, .stream_depth = 4,
			    .seed = 1, .steady_pct = -1, .steady_wait_s = 20, .redo = 3 };
	*limit = 0;
	while ((ch = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (ch) {
		case PROFILE: o->profile = optarg; break;
		case REPLOT: o->replot = optarg; break;
		case OUT: o->out = optarg; break;
		case DATA: o->data = optarg; break;
		case DEVICE: o->device = optarg; break;
		case QUICK: o->quick = true; break;
		case SUITES: o->suites = optarg; break;
		case SETUPS: o->setups = optarg; break;
		case CONFIGS: configs = optarg; break;
		case RUNS: ok &= tq_arg_uint("tqbench", "runs", optarg, 64, &o->runs); break;
		case TRIALS:
			ok &= tq_arg_uint("tqbench", "trials", optarg, MAX_TRIALS, &o->trials);
			break;
		case PALL:
			ok &= tq_arg_uint("tqbench", "perms-all", optarg, UINT_MAX, &o->perms_all);
			break;
		case PMAX:
			ok &= tq_arg_uint("tqbench", "perms-max", optarg, UINT_MAX, &o->perms_max);
			break;
		case UNIT: ok &= tq_arg_double("tqbench", "unit-ms", optarg, &o->unit_ms); break;
		case SCALE:
			ok &= tq_arg_double("tqbench", "real-scale", optarg, &o->real_scale);
			break;
		case TABLE5: o->table5 = optarg; break;
		case SSECS: ok &= tq_arg_double("tqbench", "stream-s", optarg, &o->stream_s); break;
		case SWORK:
			ok &= tq_arg_uint("tqbench", "stream-workers", optarg, MAX_WORKERS,
					  &o->stream_workers);
			break;
		case SDEPTH:
			ok &= tq_arg_uint("tqbench", "stream-depth", optarg, UINT_MAX,
					  &o->stream_depth);
			break;
		case LIMIT: ok &= tq_arg_double("tqbench", "time-limit", optarg, limit); break;
		case SEED:
			if (tq_parse_u64(optarg, false, &o->seed)) {
				fprintf(stderr, "tqbench: --seed: '%s' is not a number\n", optarg);
				ok = false;
			}
			break;
		case WORKERS:
			if (strcmp(optarg, "thread") && strcmp(optarg, "process")) {
				fprintf(stderr, "tqbench: --workers: thread or process, not '%s'\n",
					optarg);
				return -1;
			}
			o->process = !strcmp(optarg, "process");
			break;
		case USCHED: o->usched = optarg; break;
		case TQSUBMITD: o->tqsubmitd = optarg; break;
		case BENCHES: o->benches = optarg; break;
		case MAXTG:
			ok &= tq_arg_uint("tqbench", "max-tg", optarg, USCHED_MAX_TG, &o->max_tg);
			break;
		case KQUEUES:
			ok &= tq_arg_uint("tqbench", "kernel-queues", optarg, 8, &o->kqueues);
			break;
		case NOPLANS: o->no_plans = true; break;
		case NOREFINE: o->no_refine = true; break;
		case NOPOLL: o->no_poll = true; break;
		case NOCLEAR: o->no_clear = true; break;
		case STEADY:
			ok &= tq_arg_double("tqbench", "steady", optarg, &o->steady_pct);
			break;
		case SWAIT:
			ok &= tq_arg_double("tqbench", "steady-wait", optarg, &o->steady_wait_s);
			break;
		case REDO:
			ok &= tq_arg_uint("tqbench", "redo", optarg, UINT_MAX, &o->redo);
			break;
		case OLMIX: o->ol_mixes = optarg; break;
		case OLLOAD: o->ol_loads = optarg; break;
		case OLSET: o->ol_setups = optarg; break;
		case SSETUPS: o->stream_setups = optarg; break;
		case OLS: ok &= tq_arg_double("tqbench", "ol-s", optarg, &o->ol_s); break;
		case OLTASKS:
			ok &= tq_arg_uint("tqbench", "ol-tasks", optarg, OL_MAX_TASKS, &o->ol_tasks);
			break;
		case OLPH:
			ok &= tq_arg_double("tqbench", "ol-phase-s", optarg, &o->ol_phase_s);
			break;
		case OLCL:
			ok &= tq_arg_uint("tqbench", "ol-clients", optarg, MAX_WORKERS, &o->ol_clients);
			break;
		case QTASKS:
			ok &= tq_arg_uint("tqbench", "qos-tasks", optarg, QOS_MAX_TASKS,
					  &o->qos_tasks);
			break;
		case QTASK: o->qos_task = optarg; break;
		case QSECS: ok &= tq_arg_double("tqbench", "qos-s", optarg, &o->qos_s); break;
		case QDL: qos_dl = optarg; break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc || !(o->profile || o->replot)) {
		usage(stderr);
		return -1;
	}
	if (!ok || !names_ok(o))
		return -1;
	if (parse_configs(o, configs ? configs : o->quick ? "4x1" : "4x1,4x2,6x1,8x1")) {
		fprintf(stderr, "tqbench: --configs: TxN,... with 2 <= T <= %d, T*N <= %d\n",
			MAX_WORKERS, MAX_SLOTS);
		return -1;
	}
	o->runs = o->runs ? o->runs : o->quick ? 1 : 3;
	o->trials = o->trials ? o->trials : o->quick ? 1 : 9;
	o->perms_all = o->perms_all ? o->perms_all : 24;
	o->perms_max = o->perms_max ? o->perms_max : o->quick ? 12 : 48;
	o->unit_ms = o->unit_ms > 0 ? o->unit_ms : o->quick ? 2 : 10;
	o->real_scale = o->real_scale > 0 ? o->real_scale : o->quick ? 0.25 : 1;
	/* long enough that a stretch of copy-heavy draws does not move the busy shares */
	o->stream_s = o->stream_s > 0 ? o->stream_s : o->quick ? 0.5 : 8;
	if (o->stream_workers < 1 || o->stream_depth < 1) {
		fprintf(stderr, "tqbench: --stream-workers and --stream-depth are at least 1\n");
		return -1;
	}
	o->ol_mixes = o->ol_mixes ? o->ol_mixes : "phased,BK50";
	o->ol_loads = o->ol_loads ? o->ol_loads : o->quick ? "0.5,1.2" :
		      "0.3,0.5,0.7,0.8,0.9,1.0,1.2";
	o->ol_setups = o->ol_setups ? o->ol_setups : "fifo,paper,auto,flow,independent";
	o->ol_s = o->ol_s > 0 ? o->ol_s : o->quick ? 0.4 : 3;
	o->ol_phase_s = o->ol_phase_s > 0 ? o->ol_phase_s : o->quick ? 0.1 : 0.5;
	o->ol_clients = o->ol_clients ? o->ol_clients : 8;
	o->qos_tasks = o->qos_tasks ? o->qos_tasks : o->quick ? 100 : 1000;
	o->qos_s = o->qos_s > 0 ? o->qos_s : o->quick ? 1 : 10;
	for (const char *p = qos_dl; *p; p += *p == ',') {
		char *end;
		double x = strtod(p, &end);

		if (end == p || (*end && *end != ',') || !(x > 0 && x < 1e4) || o->qos_ndl == 4) {
			fprintf(stderr, "tqbench: --qos-deadline: at most 4 multiples in (0, 10000), "
				"not '%s'\n", qos_dl);
			return -1;
		}
		o->qos_deadline[o->qos_ndl++] = x;
		p = end;
	}
	if (has(o->setups, "qos") && !o->process) {
		fprintf(stderr, "tqbench: --setups qos runs its clients as processes through the "
			"daemon: add --workers process\n");
		return -1;
	}
	o->other_users = has(o->setups, "qos");
	if (openloop_parse(o)) {
		fprintf(stderr, "tqbench: --ol-mixes phased or BKx[/BKy...], --ol-loads fractions "
			"in (0, 4], --ol-setups of fifo,paper,neh,exact,auto,flow,independent\n");
		return -1;
	}
	return 0;
}

static int load_profile(struct env *e)
{
	struct tqsim_parse_err err;
	char *text;
	size_t len;
	FILE *f = fopen(e->o->profile, "r");

	if (!f) {
		perror(e->o->profile);
		return -errno;
	}
	text = malloc(1 << 16);
	len = text ? fread(text, 1, (1 << 16) - 1, f) : 0;
	fclose(f);
	if (!text)
		return -ENOMEM;
	if (tqsim_profile_parse(&e->prof, text, len, &err)) {
		fprintf(stderr, "%s:%u: %s\n", e->o->profile, err.line, err.reason);
		free(text);
		return -EINVAL;
	}
	free(text);
	tqsim_profile_to_dev(&e->prof, &e->dev);
	/* usched's kernel queues (its default: 1), for the fixed orders too */
	e->dev.kq = e->o->kqueues ? e->o->kqueues : 1;
	if (strncmp(e->prof.device, e->c.name, sizeof(e->prof.device) - 1))
		fprintf(stderr, "tqbench: warning: the profile is of '%s', running on '%s'\n",
			e->prof.device, e->c.name);
	return 0;
}

static FILE *out_open(const struct opts *o, const char *name, const char *header)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", o->out, name);
	f = fopen(path, "w");
	if (!f)
		perror(path);
	else if (header)
		fprintf(f, "%s\n", header);
	return f;
}

/* Largest bytes any pool task copies in, and out. */
static void pool_bytes(const struct suite *s, uint64_t *in, uint64_t *out)
{
	for (unsigned int i = 0; i < s->npool; i++) {
		uint64_t bi = 0, bo = 0;

		for (uint32_t k = 0; k < s->pool[i].l.nbufs; k++) {
			uint64_t b = (s->pool[i].l.buf[k].bytes + 4095) & ~4095ull;

			if (s->pool[i].dir[k] == BT_OUT)
				bo += b;
			else if (s->pool[i].dir[k] != BT_SCRATCH)
				bi += b;
		}
		*in = bi > *in ? bi : *in;
		*out = bo > *out ? bo : *out;
	}
}

struct files {
	FILE *csv, *perms, *tg, *stream, *tasks;
};

static int experiment(struct env *e, const struct suite *s, unsigned int b, unsigned int T,
		      unsigned int N, const struct files *fs, struct result *r)
{
	const struct opts *o = e->o;
	bool usched;
	int ret;

	fprintf(stderr, "== %s %s T=%u N=%u\n", s->name, s->bench[b], T, N);
	ret = result_init(e, s, b, T, N, o->seed * 1000003 + b * 101 + T * 11 + N, r);
	if (!ret && has(o->setups, "noreorder"))
		ret = run_noreorder(e, r);
	if (!ret && has(o->setups, "orders"))
		ret = policy_orders(e, r);
	if (ret) {
		fprintf(stderr, "tqbench: %s %s T=%u N=%u failed (%s); skipped\n", s->name,
			s->bench[b], T, N, strerror(-ret));
		return ret;
	}
	usched = has(o->setups, "policies");
	/* --workers process: in-process usched too, in the same run, for the ratio */
	ret = run_trials(e, r, has(o->setups, "orders"), usched, fs->tg);
	if (ret)
		fprintf(stderr, "tqbench: the trials failed (%s); going on without them\n",
			strerror(-ret));
	ret = usched && o->process ? run_procs(e, r) : 0;
	if (ret)
		fprintf(stderr, "tqbench: the daemon's runs failed (%s); going on without "
			"them\n", strerror(-ret));
	ret = has(o->setups, "independent") ? run_independent(e, r) : 0;
	if (ret)
		fprintf(stderr, "tqbench: independent contexts failed (%s); going on without "
			"them\n", strerror(-ret));
	report_row(stdout, fs->csv, fs->perms, r);
	return 0;
}

int main(int argc, char **argv)
{
	static struct suite suites[2];
	static struct ol_result ol;
	static struct qos_result qos;
	bool ol_ran = false, qos_ran = false, qos_failed = false;
	static struct stream_result sr[sizeof(stream_setups) / sizeof(stream_setups[0])];
	struct result *rs[MAX_CFG * 2 * MAX_BENCH];
	unsigned int nr = 0, ns = 0, nstream = 0;
	bool ol_failed = false;
	struct files fs = { 0 };
	char cmdline[1024] = "tqbench", path[600];
	uint64_t in_bytes = 0, out_bytes = 0;
	double limit, t0 = tq_now_s();
	bool skipped = false, experiments;
	struct opts o;
	struct env e = { .o = &o };
	/* every output file, closed at the end whatever opened */
	FILE **const outs[] = { &fs.csv, &fs.perms, &fs.tg, &fs.stream, &fs.tasks, &e.cmds,
				&e.stream_tasks, &e.usched_tasks };
	int ret = 1;

	tq_version_opt(argc, argv, "tqbench");
	for (int i = 1; i < argc; i++)
		snprintf(cmdline + strlen(cmdline), sizeof(cmdline) - strlen(cmdline), " %s",
			 argv[i]);
	if (parse_opts(argc, argv, &o, &limit))
		return 2;
	if (o.replot) {
		ret = replot(o.replot);
		if (ret)
			fprintf(stderr, "tqbench: --replot %s: %s\n", o.replot, strerror(-ret));
		return ret ? 1 : 0;
	}
	/* --setups stream alone: no experiment rows (they would be empty) */
	experiments = has(o.setups, "noreorder") || has(o.setups, "orders") ||
		      has(o.setups, "policies") || has(o.setups, "independent");
	/* the open loop and qos need the real suite */
	if ((has(o.setups, "openloop") || has(o.setups, "qos")) && !has(o.suites, "real")) {
		fprintf(stderr, "tqbench: --setups %s needs the real suite (--suites)\n",
			has(o.setups, "openloop") ? "openloop" : "qos");
		return 2;
	}
	if (o.process && proc_check(&o))
		return 1;
	/* independent clients as processes: forked before this process opens OpenCL */
	if (o.process && (has(o.setups, "stream") || has(o.setups, "qos") ||
			  (has(o.setups, "openloop") && has(o.ol_setups, "proc-independent"))) &&
	    indep_procs_start(&o, max3(o.stream_workers, o.ol_clients,
				       has(o.setups, "qos") ? QOS_CLIENTS : 0), indep_serve)) {
		fprintf(stderr, "tqbench: cannot start the independent client processes\n");
		return 1;
	}
	if (clx_open(&e.c, o.device))
		return 77;
	if (load_profile(&e))
		goto out;
	if (mkdir(o.out, 0755) && errno != EEXIST) {
		perror(o.out);
		goto out;
	}
	fprintf(stderr, "tqbench: %s (%s), dma %u, %s\n", e.c.name, e.c.platform, e.prof.dma,
		cmdline);
	fs.csv = out_open(&o, "tqbench.csv", "suite,bench,T,N,setup,makespan_ms,speedup,share,"
			  "predicted_ms,model_err,model_err_max,tgs,sched_us,refine_us,tg_ms,orders,workers");
	fs.perms = out_open(&o, "perms.csv", "suite,bench,T,N,order_no,order,measured_ms,"
			    "predicted_ms");
	fs.tg = out_open(&o, "tg.csv", "suite,bench,T,N,policy,tg,tasks,predicted_ms,"
			 "measured_ms,policy_us,inflight,host_us,plan,pred_htd_ms,meas_htd_ms,"
			 "pred_k_ms,meas_k_ms,pred_dth_ms,meas_dth_ms");
	fs.stream = out_open(&o, "stream.csv", "setup,workers,seconds,tasks,tasks_per_s,"
			     "util_htd,util_k,util_dth,util_device,busiest_load,p50_ms,p99_ms,tg_err,"
			     "sched_share,tasks_per_tg,polled,tput_user,tput_others,domains");
	fs.tasks = out_open(&o, "tasks.txt", NULL);
	e.cmds = out_open(&o, "commands.csv", "suite,bench,T,N,order_no,run,pos,task,stage,cmd,"
			  "alone_us,pred_start_us,pred_end_us,submit_us,start_us,end_us");
	e.stream_tasks = out_open(&o, "stream-tasks.csv", "setup,tg,task,queued_us,htd_start_us,"
				  "htd_end_us,k_start_us,k_end_us,dth_start_us,dth_end_us,"
				  "alone_htd_us,alone_k_us,alone_dth_us");
	e.usched_tasks = out_open(&o, "usched-tasks.csv", "suite,bench,T,N,policy,tg,slot,queued_us,"
				  "htd_start_us,htd_end_us,k_start_us,k_end_us,dth_start_us,"
				  "dth_end_us,m,pred_htd_us,meas_htd_us,pred_k_us,meas_k_us,"
				  "pred_dth_us,meas_dth_us");
	if (!fs.csv || !fs.perms || !fs.tg || !fs.stream || !fs.tasks || !e.cmds ||
	    !e.stream_tasks || !e.usched_tasks)
		goto out;

	if (has(o.suites, "synthetic")) {
		if (suite_synthetic(&e, &suites[ns]))
			goto out;
		ns++;
	}
	if (has(o.suites, "real")) {
		if (suite_real(&e, &suites[ns]))
			goto out;
		ns++;
	}
	for (unsigned int i = 0; i < ns; i++) {
		report_tasks(stdout, &suites[i]);
		report_tasks(fs.tasks, &suites[i]);
		pool_bytes(&suites[i], &in_bytes, &out_bytes);
	}
	if (runners_init(&e, in_bytes, out_bytes) || steady_init(&e))
		goto out;
	report_features(stdout, &e, "# ");

	for (unsigned int c = 0; c < o.ncfg; c++) {
		for (unsigned int i = 0; i < ns && experiments; i++) {
			for (unsigned int b = 0; b < suites[i].nbench; b++) {
				if (o.benches && !has(o.benches, suites[i].bench[b]))
					continue;
				if (limit && tq_now_s() - t0 > limit) {
					skipped = true;
					continue;
				}
				rs[nr] = calloc(1, sizeof(*rs[nr]));
				if (!rs[nr])
					goto out_results;
				if (experiment(&e, &suites[i], b, o.cfg[c][0], o.cfg[c][1], &fs,
					       rs[nr])) {
					result_fini(rs[nr]);
					free(rs[nr]);
					continue;
				}
				nr++;
			}
			/* usched's buffer pools and the other contexts' memory go */
			runners_reset(&e);
		}
		/* the stream after the first configuration: the rest is the most expendable */
		if (c || !has(o.setups, "stream"))
			continue;
		for (unsigned int i = 0; i < ns; i++) {
			if (suites[i].synthetic)
				continue;
			for (unsigned int k = 0; k < sizeof(sr) / sizeof(sr[0]); k++) {
				int err;

				if (!strcmp(stream_setups[k], "auto-noclear") &&
				    !has(o.setups, "hygiene"))
					continue;
				if (!strcmp(stream_setups[k], "auto-isolated") &&
				    !has(o.setups, "isolation"))
					continue;
				if (o.stream_setups && !has(o.stream_setups, stream_setups[k]))
					continue;
				if (!strcmp(stream_setups[k], "proc-independent")) {
					if (!o.process)
						continue;
					err = run_stream(&e, &suites[i], stream_setups[k],
							 &sr[nstream]);
				} else if (!strncmp(stream_setups[k], "proc-", 5)) {
					int p = 0;

					if (!o.process)
						continue;
					while (p < NPOL - 1 &&
					       strcmp(policy_names[p], stream_setups[k] + 5))
						p++;
					err = stream_procs(&e, &suites[i], p, &sr[nstream]);
				} else {
					err = run_stream(&e, &suites[i], stream_setups[k],
							 &sr[nstream]);
				}

				if (err) {
					fprintf(stderr, "tqbench: stream %s failed (%s)\n",
						stream_setups[k], strerror(-err));
					continue;
				}
				report_stream(stdout, fs.stream, &sr[nstream++]);
			}
		}
	}
	for (unsigned int i = 0; i < ns && has(o.setups, "openloop"); i++) {
		if (suites[i].synthetic)
			continue;
		/* a setup that failed is left out: the others' points are still written */
		if (run_openloop(&e, &suites[i], &ol)) {
			fprintf(stderr, "tqbench: the open loop failed\n");
			ol_failed = true;
		}
		ol_ran = ol.npts > 0;
		break;
	}
	for (unsigned int i = 0; i < ns && has(o.setups, "qos"); i++) {
		if (suites[i].synthetic)
			continue;
		if (limit && tq_now_s() - t0 > limit) {
			skipped = true;
			break;
		}
		qos_failed = run_qos(&e, &suites[i], &qos) != 0;
		if (qos_failed)
			fprintf(stderr, "tqbench: qos: a part failed; its rows say so\n");
		report_qos_table(stdout, &qos);
		qos_ran = true;
		break;
	}
	if (skipped)
		fprintf(stderr, "tqbench: --time-limit %.0f s reached; later experiments skipped\n",
			limit);
	ret = report_svg(o.out, rs, nr);
	ret = ret ?: report_stream_svg(o.out, sr, nstream);
	ret = ret ?: ol_ran ? report_openloop(o.out, &ol) : 0;
	ret = ret ?: qos_ran ? report_qos(o.out, &qos) : 0;
	snprintf(path, sizeof(path), "%s/summary.md", o.out);
	ret = ret ?: report_md(path, &e, rs, nr, sr, nstream, cmdline);
	if (!ret && (ol_ran || qos_ran)) {
		FILE *f = fopen(path, "a");

		ret = f ? 0 : -errno;
		ret = ret ?: ol_ran ? report_openloop_md(f, &ol) : 0;
		ret = ret ?: qos_ran ? report_qos_md(f, &qos) : 0;
		if (f && fclose(f))
			ret = -EIO;
	}
	openloop_free(&ol);
	if (ret)
		fprintf(stderr, "tqbench: cannot write the plots or the summary: %s\n",
			strerror(-ret));
	else
		fprintf(stderr, "tqbench: wrote %s/ in %.0f s\n", o.out, tq_now_s() - t0);
	if (e.proc_failed)
		fprintf(stderr, "tqbench: --workers process failed in %u experiment(s)\n",
			e.proc_failed);
	ret = ret || e.proc_failed || ol_failed || qos_failed ? 1 : 0;
out_results:
	for (unsigned int i = 0; i < nr; i++) {
		result_fini(rs[i]);
		free(rs[i]);
	}
	runners_fini(&e);
	steady_fini(&e);
out:
	for (size_t i = 0; i < sizeof(outs) / sizeof(outs[0]); i++)
		if (*outs[i])
			fclose(*outs[i]);
	clx_close(&e.c);
	indep_procs_stop(false);
	return ret;
}
