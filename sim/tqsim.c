// SPDX-License-Identifier: GPL-2.0
/*
 * tqsim - the temporal model and the ordering policies from the command line.
 *
 *   tqsim makespan [DEVICE] [--order 2,0,1] [--timeline] [DRAW] TASKS
 *   tqsim order --policy NAME [--budget-us N] [--seed N] [DEVICE] [DRAW] TASKS
 *   tqsim perms [DEVICE] TASKS
 *   tqsim stream [--policy NAME] [QOS] [DEVICE] TASKS
 *   tqsim eval [--data DIR] [--out FILE.md] [--svg FILE.svg] [--seeds N]
 *   tqsim bench [--data DIR]
 *
 * TASKS: a task file, or a table of data/ ([--select NAME] FILE; see usage).
 *
 * DEVICE: --dma 1|2, --slow F | --slow-htd F --slow-dth F, --busy H,K,D (ms
 * each engine is busy at t = 0), --latency DEP,GAP[,SUBMIT] (ms, the command
 * latencies and the launch cost per command), --kernel-queues N (kernels
 * on N queues at once, sharing the device by the tasks' widths), --profile
 * FILE (dma, slowdowns and latencies from a device profile; the other
 * options override it).
 * DRAW: --trace FILE.json (Chrome trace events in usched's trace format,
 * sim/trace.h), --svg FILE.svg.
 * QOS: --weights W0,W1,... (the share groups' weights), --max-tg N,
 * --ahead-ms X, --deadline refuse|flag (the online model's settings, as
 * usched's: Documentation/usched.md, "Classes, deadlines and shares").
 * Results are JSON on stdout; bad input exits 2 with FILE:LINE: reason.
 * Documentation/sim.md has the details.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <tq/clock.h>
#include <tq/num.h>
#include <tq/version.h>

#include "cli/cli.h"

/* --help, laid out as help2man reads it (the installed tqsim(1) is made from it). */
static const char usage[] =
	"Usage: tqsim makespan [DEVICE] [--order I,J,...] [--timeline] [DRAW] TASKS\n"
	"  or:  tqsim order --policy NAME [--budget-us N] [--seed N] [DEVICE] [DRAW] TASKS\n"
	"  or:  tqsim perms [DEVICE] TASKS\n"
	"  or:  tqsim stream [--policy NAME] [QOS] [DEVICE] TASKS\n"
	"  or:  tqsim eval [--data DIR] [--out FILE.md] [--svg FILE.svg] [--seeds N]\n"
	"  or:  tqsim bench [--data DIR]\n"
	"The makespan of tasks on tq's device model, in the file's order or --order's\n"
	"(makespan); a policy's order (order); every order's (perms); the tasks arriving\n"
	"over time through usched's classes, deadlines and shares (stream); the\n"
	"evaluation of the policies on the paper's tables (eval); the policies' speed\n"
	"(bench).\n"
	"Output is JSON on stdout; bad input exits 2 with FILE:LINE: reason.\n"
	"\n"
	"Commands' options:\n"
	"  --order I,J,...      the tasks' order, 0-based indices (default: the file's)\n"
	"  --timeline           every command's start and end\n"
	"  --policy NAME        fifo, paper, neh, exact, auto or flow\n"
	"  --budget-us N        the policy's time budget\n"
	"  --seed N             the policy's random draws\n"
	"  --data DIR           the paper's tables (default data)\n"
	"  --out FILE.md        the evaluation's report\n"
	"  --seeds N            draws of the evaluation, 1 to 1024\n"
	"  --help               this text\n"
	"  --version            print tq's version and exit\n"
	"\n"
	"Device (DEVICE):\n"
	"  --dma 1|2            copy engines (default 2)\n"
	"  --slow F             overlapped copies' slowdown, both directions (default 1)\n"
	"  --slow-htd F         host-to-device's alone\n"
	"  --slow-dth F         device-to-host's alone\n"
	"  --busy H,K,D         ms each engine is busy at t = 0\n"
	"  --latency DEP,GAP[,SUBMIT]\n"
	"                       the command latencies and the launch cost per command, ms\n"
	"  --kernel-queues N    kernels on N queues at once, sharing the device by the\n"
	"                       tasks' widths\n"
	"  --profile FILE       dma, slowdowns and latencies from a device profile (the\n"
	"                       options above override it)\n"
	"\n"
	"Classes, deadlines and shares (QOS; order and stream):\n"
	"  --weights W0,W1,...  the weights of share groups 0, 1, ... (default 1 each):\n"
	"                       they weigh the latency classes' completion times, and\n"
	"                       stream gives the groups engine time in proportion\n"
	"  --max-tg N           stream: tasks per TG, 1 to 64 (default 8)\n"
	"  --ahead-ms X         stream: lower-class work ahead per engine while a\n"
	"                       higher class is active (default 2)\n"
	"  --deadline refuse|flag\n"
	"                       stream: a task that cannot make its deadline is\n"
	"                       refused (default) or runs flagged late\n"
	"\n"
	"Drawings (DRAW):\n"
	"  --trace FILE.json    the TG as usched's trace has it: Chrome JSON trace events\n"
	"                       (Perfetto opens it), each command on its engine's\n"
	"                       \"predicted\" track, the TG, each task's flow arrow\n"
	"  --svg FILE.svg       an SVG (eval: the evaluation's figure)\n"
	"\n"
	"Tasks (TASKS):\n"
	"  FILE, a CSV task file: the header line name,htd_ms,k_ms,dth_ms[,after][,width],\n"
	"  then one task a line: its name (letters, digits, _ - .), the times in ms of its\n"
	"  host-to-device copy, kernel and device-to-host copy (0: none; 1+0.5: two\n"
	"  commands), with the after column the name of the task on an earlier line it\n"
	"  must run after, or nothing, and with the width column the share of the device\n"
	"  its kernel fills, (0, 1], or nothing (1). More optional columns: prio, the\n"
	"  task's class, -1 to 2 (default 0; higher first); deadline_ms, its deadline\n"
	"  after its arrival (0: none); share, its share group, 0 to 15; arrive_ms, its\n"
	"  arrival for stream, no earlier than the line before's. '#' starts a comment.\n"
	"\n"
	"Or one of the paper's tables in data/:\n"
	"  data/synthetic_tasks.csv\n"
	"                       Table 2, tasks T0..T7 (unit 10 ms)\n"
	"  --select BK25 data/synthetic_benchmarks.csv\n"
	"                       a benchmark of Table 3 (BK0..BK100)\n"
	"  --select 'AMD R9' data/real_task_ranges.csv\n"
	"                       a device's tasks of Table 5, each time the middle of\n"
	"                       its range\n";

struct opts {
	struct tqsim_dev dev;
	const char *profile;
	int dma;			/* 0: not given */
	double slow[TQSIM_STAGES];		/* 0: not given */
	double busy_ms[TQSIM_STAGES];
	bool busy_given;
	double lat_ms[3];		/* dependency, queue gap, launch; < 0: not given */
	unsigned int kq;		/* kernel queues; 0: not given */
	const char *order;
	const char *policy;
	double budget_us;
	uint64_t seed;
	const char *trace;
	const char *svg;
	bool timeline;
	const char *file;
	const char *select;
	double weight[TQSIM_STREAM_SHARES];	/* 0: not given (1) */
	unsigned int max_tg;
	double ahead_ms;
	bool flag;
	struct taskset ts;
};

static int fail_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "tqsim: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n%s", usage);
	return EXIT_BAD_INPUT;
}

/* "a,b,c" of at most @max numbers; returns how many, or -1. */
static int parse_list(const char *s, double *v, int max)
{
	char buf[512], *tok, *save;
	int n = 0;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (n == max || tq_parse_double(tok, &v[n++]))
			return -1;
	return n;
}

enum {
	OPT_DMA = 256, OPT_SLOW, OPT_SLOW_HTD, OPT_SLOW_DTH, OPT_BUSY, OPT_LATENCY, OPT_PROFILE,
	OPT_ORDER, OPT_POLICY, OPT_BUDGET, OPT_SEED, OPT_TRACE, OPT_SVG, OPT_TIMELINE, OPT_SELECT,
	OPT_KQ, OPT_WEIGHTS, OPT_MAX_TG, OPT_AHEAD, OPT_DEADLINE,
};

static const struct option long_opts[] = {
	{ "dma", required_argument, NULL, OPT_DMA },
	{ "slow", required_argument, NULL, OPT_SLOW },
	{ "slow-htd", required_argument, NULL, OPT_SLOW_HTD },
	{ "slow-dth", required_argument, NULL, OPT_SLOW_DTH },
	{ "busy", required_argument, NULL, OPT_BUSY },
	{ "latency", required_argument, NULL, OPT_LATENCY },
	{ "profile", required_argument, NULL, OPT_PROFILE },
	{ "kernel-queues", required_argument, NULL, OPT_KQ },
	{ "order", required_argument, NULL, OPT_ORDER },
	{ "policy", required_argument, NULL, OPT_POLICY },
	{ "budget-us", required_argument, NULL, OPT_BUDGET },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "trace", required_argument, NULL, OPT_TRACE },
	{ "svg", required_argument, NULL, OPT_SVG },
	{ "timeline", no_argument, NULL, OPT_TIMELINE },
	{ "select", required_argument, NULL, OPT_SELECT },
	{ "weights", required_argument, NULL, OPT_WEIGHTS },
	{ "max-tg", required_argument, NULL, OPT_MAX_TG },
	{ "ahead-ms", required_argument, NULL, OPT_AHEAD },
	{ "deadline", required_argument, NULL, OPT_DEADLINE },
	{ NULL, 0, NULL, 0 }
};

static int parse_slow(const char *arg, double *v)
{
	if (tq_parse_double(arg, v) || *v < 1)
		return fail_usage("slowdown '%s' must be a number >= 1", arg);
	return 0;
}

/* Device from the profile, then the explicit options on top. */
static int make_device(struct opts *o)
{
	tqsim_dev_init(&o->dev);
	if (o->profile) {
		struct tqsim_profile prof;
		struct tqsim_parse_err err;
		size_t len;
		char *text = file_read(o->profile, &len);

		if (!text) {
			fprintf(stderr, "%s:0: cannot read: %s\n", o->profile, strerror(errno));
			return EXIT_BAD_INPUT;
		}
		if (tqsim_profile_parse(&prof, text, len, &err)) {
			fprintf(stderr, "%s:%u: %s\n", o->profile, err.line, err.reason);
			free(text);
			return EXIT_BAD_INPUT;
		}
		free(text);
		tqsim_profile_to_dev(&prof, &o->dev);
	}
	if (o->dma)
		o->dev.dma = o->dma;
	if (o->kq)
		o->dev.kq = o->kq;
	for (int s = 0; s < TQSIM_STAGES; s++) {
		if (o->slow[s])
			o->dev.slow[s] = o->slow[s];
		o->dev.busy_until[s] = o->busy_ms[s] * NS_PER_MS;
	}
	if (o->lat_ms[0] >= 0) {
		o->dev.dep_ns = o->lat_ms[0] * NS_PER_MS;
		o->dev.gap_ns = o->lat_ms[1] * NS_PER_MS;
		o->dev.submit_ns = o->lat_ms[2] * NS_PER_MS;
	}
	return 0;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	bool slow_both = false, slow_one = false;
	int c, ret;

	memset(o, 0, sizeof(*o));
	o->lat_ms[0] = -1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", long_opts, NULL)) != -1) {
		switch (c) {
		case OPT_DMA:
			if (strcmp(optarg, "1") && strcmp(optarg, "2"))
				return fail_usage("--dma must be 1 or 2, not '%s'", optarg);
			o->dma = optarg[0] - '0';
			break;
		case OPT_SLOW:
			slow_both = true;
			if ((ret = parse_slow(optarg, &o->slow[TQSIM_HTD])))
				return ret;
			o->slow[TQSIM_DTH] = o->slow[TQSIM_HTD];
			break;
		case OPT_SLOW_HTD:
		case OPT_SLOW_DTH:
			slow_one = true;
			if ((ret = parse_slow(optarg, &o->slow[c == OPT_SLOW_HTD ? TQSIM_HTD : TQSIM_DTH])))
				return ret;
			break;
		case OPT_BUSY:
			if (parse_list(optarg, o->busy_ms, TQSIM_STAGES) != TQSIM_STAGES ||
			    o->busy_ms[0] < 0 || o->busy_ms[1] < 0 || o->busy_ms[2] < 0)
				return fail_usage("--busy wants three times >= 0 in ms, not '%s'",
						  optarg);
			break;
		case OPT_LATENCY:
			o->lat_ms[2] = 0;
			if (parse_list(optarg, o->lat_ms, 3) < 2 || o->lat_ms[0] < 0 ||
			    o->lat_ms[1] < 0 || o->lat_ms[2] < 0)
				return fail_usage("--latency wants two or three times >= 0 in ms, not '%s'",
						  optarg);
			break;
		case OPT_PROFILE:
			o->profile = optarg;
			break;
		case OPT_KQ: {
			double v;

			if (tq_parse_double(optarg, &v) || v != floor(v) || v < 1 || v > TQSIM_MAX_KQ)
				return fail_usage("--kernel-queues must be 1 to 8, not '%s'", optarg);
			o->kq = (unsigned int)v;
			break;
		}
		case OPT_ORDER:
			o->order = optarg;
			break;
		case OPT_POLICY:
			o->policy = optarg;
			break;
		case OPT_BUDGET:
			if (tq_parse_double(optarg, &o->budget_us) || o->budget_us <= 0)
				return fail_usage("--budget-us must be a number > 0, not '%s'", optarg);
			break;
		case OPT_SEED:
			if (tq_parse_u64(optarg, false, &o->seed))
				return fail_usage("--seed must be a number, not '%s'", optarg);
			break;
		case OPT_TRACE:
			o->trace = optarg;
			break;
		case OPT_SVG:
			o->svg = optarg;
			break;
		case OPT_TIMELINE:
			o->timeline = true;
			break;
		case OPT_SELECT:
			o->select = optarg;
			break;
		case OPT_WEIGHTS: {
			int n = parse_list(optarg, o->weight, TQSIM_STREAM_SHARES);

			for (int i = 0; i < n; i++)
				if (!(o->weight[i] > 0 && o->weight[i] <= 10000))
					n = -1;
			if (n < 1)
				return fail_usage("--weights wants 1 to 16 weights in (0, 10000], not '%s'",
						  optarg);
			break;
		}
		case OPT_MAX_TG: {
			double v;

			if (tq_parse_double(optarg, &v) || v != floor(v) || v < 1 || v > TQSIM_MAX_TASKS)
				return fail_usage("--max-tg must be 1 to 64, not '%s'", optarg);
			o->max_tg = (unsigned int)v;
			break;
		}
		case OPT_AHEAD:
			if (tq_parse_double(optarg, &o->ahead_ms) || !(o->ahead_ms > 0) ||
			    o->ahead_ms > 1000)
				return fail_usage("--ahead-ms must be a number in (0, 1000], not '%s'",
						  optarg);
			break;
		case OPT_DEADLINE:
			if (strcmp(optarg, "refuse") && strcmp(optarg, "flag"))
				return fail_usage("--deadline must be refuse or flag, not '%s'", optarg);
			o->flag = !strcmp(optarg, "flag");
			break;
		default:
			return fail_usage("%s", "bad option");
		}
	}
	if (slow_both && slow_one)
		return fail_usage("%s", "give --slow or --slow-htd/--slow-dth, not both");
	if (optind != argc - 1)
		return fail_usage("%s", "expected one task file or table");
	o->file = argv[optind];
	if ((ret = make_device(o)))
		return ret;
	if (taskfile_load(o->file, o->select, &o->ts))
		return EXIT_BAD_INPUT;
	return 0;
}

static void print_order(const uint8_t *order, unsigned int n)
{
	printf("[");
	for (unsigned int i = 0; i < n; i++)
		printf("%s%u", i ? ", " : "", order[i]);
	printf("]");
}

static void print_device(const struct tqsim_dev *dev)
{
	printf("  \"dma\": %u,\n  \"slow_htd\": %g,\n  \"slow_dth\": %g,\n", dev->dma,
	       dev->slow[TQSIM_HTD], dev->slow[TQSIM_DTH]);
	/* only when set, so the output of a device without them stays as it was */
	if (dev->dep_ns || dev->gap_ns)
		printf("  \"dep_ms\": %.6f,\n  \"gap_ms\": %.6f,\n", dev->dep_ns / NS_PER_MS,
		       dev->gap_ns / NS_PER_MS);
	if (dev->submit_ns)
		printf("  \"submit_ms\": %.6f,\n", dev->submit_ns / NS_PER_MS);
	if (dev->kq > 1)
		printf("  \"kernel_queues\": %u,\n", dev->kq);
}

static int draw(const struct opts *o, const uint8_t *order)
{
	unsigned int n = o->ts.tg.ntasks;

	if (o->trace && draw_trace(o->trace, &o->ts, &o->dev, order, n))
		return 1;
	if (o->svg && draw_svg(o->svg, &o->ts, &o->dev, order, n))
		return 1;
	return 0;
}

/* --order: a permutation of 0..n-1, each task after its predecessor. */
static int parse_order(const struct opts *o, uint8_t *order)
{
	unsigned int n = o->ts.tg.ntasks;
	double v[TQSIM_MAX_TASKS + 1];
	bool seen[TQSIM_MAX_TASKS] = { false };

	if (!o->order) {
		for (unsigned int i = 0; i < n; i++)
			order[i] = i;
		return 0;
	}
	if (parse_list(o->order, v, TQSIM_MAX_TASKS + 1) != (int)n)
		return fail_usage("--order '%s' must list every task index once", o->order);
	for (unsigned int i = 0; i < n; i++) {
		if (v[i] < 0 || v[i] >= n || v[i] != floor(v[i]) || seen[(int)v[i]])
			return fail_usage("--order '%s' must list every task index once", o->order);
		seen[(int)v[i]] = true;
		order[i] = v[i];
	}
	if (tqsim_makespan(&o->ts.tg, &o->dev, order, n) == INFINITY)
		return fail_usage("--order '%s' puts a task before its predecessor", o->order);
	return 0;
}

static int cmd_makespan(int argc, char **argv)
{
	static const char *const stage[TQSIM_STAGES] = { "htd", "k", "dth" };
	static struct opts o;
	static struct tqsim_sim_result res;
	uint8_t order[TQSIM_MAX_TASKS];
	const char *sep = "";
	int ret = parse_opts(argc, argv, &o);

	if (ret || (ret = parse_order(&o, order)))
		return ret;
	tqsim_simulate(&o.ts.tg, &o.dev, order, o.ts.tg.ntasks, &res);
	printf("{\n  \"makespan_ms\": %.6f,\n  \"order\": ", res.makespan / NS_PER_MS);
	print_order(order, o.ts.tg.ntasks);
	printf(",\n");
	print_device(&o.dev);
	printf("  \"busy_ms\": {\"htd\": %.6f, \"k\": %.6f, \"dth\": %.6f}",
	       res.busy[TQSIM_HTD] / NS_PER_MS, res.busy[TQSIM_K] / NS_PER_MS,
	       res.busy[TQSIM_DTH] / NS_PER_MS);
	if (o.timeline) {
		printf(",\n  \"commands\": [");
		for (unsigned int t = 0; t < o.ts.tg.ntasks; t++) {
			const struct tqsim_task *task = &o.ts.tg.task[t];

			for (int s = 0; s < TQSIM_STAGES; s++) {
				for (unsigned int c = 0; c < task->n[s]; c++) {
					unsigned int i = task->first[s] + c;

					printf("%s\n    {\"task\": %u, \"name\": \"%s\", \"stage\": \"%s\", "
					       "\"cmd\": %u, \"start_ms\": %.6f, \"end_ms\": %.6f}",
					       sep, t, o.ts.name[t], stage[s], c,
					       res.start[i] / NS_PER_MS, res.end[i] / NS_PER_MS);
					sep = ",";
				}
			}
		}
		printf("\n  ]");
	}
	printf("\n}\n");
	return draw(&o, order);
}

/* The policy's order; with classes, deadlines or shares in the file, tqsim_qos_order()'s over it. */
static int order_run(const struct opts *o, const struct tqsim_policy_ops *pol,
		     const struct tqsim_problem *pb, struct tqsim_ws *ws, struct tqsim_decision *d)
{
	static struct tqsim_sim_result res;

	if (!o->ts.qos_given)
		return pol->order(pb, ws, d);
	return tqsim_qos_order(pb, pol, &o->ts.qos, ws, &res, d);
}

/* Each class's weighted completion time and the deadlines missed, of @order. */
static void print_qos(const struct opts *o, const uint8_t *order)
{
	static struct tqsim_sim_result res;
	unsigned int n = o->ts.tg.ntasks;
	const char *sep = "";

	printf("  \"wct_ms\": {");
	for (int c = TQSIM_PRIO_MAX; c >= TQSIM_PRIO_MIN; c--) {
		bool any = false;

		for (unsigned int i = 0; i < n; i++)
			any |= o->ts.qos.prio[i] == c;
		if (!any)
			continue;
		printf("%s\"%d\": %.6f", sep, c,
		       tqsim_qos_wct(&o->ts.tg, &o->dev, &o->ts.qos, c, order, n, &res) / NS_PER_MS);
		sep = ", ";
	}
	printf("},\n  \"deadlines_missed\": %u,\n",
	       tqsim_qos_misses(&o->ts.tg, &o->dev, &o->ts.qos, order, n, &res));
}

static int cmd_order(int argc, char **argv)
{
	static struct opts o;
	static struct tqsim_ws ws;
	const struct tqsim_policy_ops *pol;
	struct tqsim_decision d;
	struct tqsim_problem pb;
	uint64_t t0, t1;
	int ret = parse_opts(argc, argv, &o);

	if (ret)
		return ret;
	if (!o.policy)
		return fail_usage("%s", "order needs --policy");
	pol = tqsim_policy_find(o.policy);
	if (!pol)
		return fail_usage("unknown policy '%s'", o.policy);
	pb = (struct tqsim_problem){ .tg = &o.ts.tg, .dev = &o.dev, .budget_ns = o.budget_us * 1e3,
				  .seed = o.seed };
	for (unsigned int i = 0; i < o.ts.tg.ntasks; i++)
		o.ts.qos.weight[i] = o.weight[o.ts.share[i]];
	/* time a second, warm run: the first pays for faulting in @ws */
	order_run(&o, pol, &pb, &ws, &d);
	t0 = tq_now_ns();
	ret = order_run(&o, pol, &pb, &ws, &d);
	t1 = tq_now_ns();
	if (ret) {
		fprintf(stderr, "tqsim: policy %s failed: %s\n", pol->name, strerror(-ret));
		return 1;
	}
	printf("{\n  \"policy\": \"%s\",\n  \"order\": ", pol->name);
	print_order(d.order, o.ts.tg.ntasks);
	printf(",\n  \"makespan_ms\": %.6f,\n  \"lower_bound_ms\": %.6f,\n"
	       "  \"gap_pct\": %.3f,\n  \"optimal\": %s,\n",
	       d.makespan / NS_PER_MS, d.lower_bound / NS_PER_MS,
	       d.lower_bound > 0 ? 100 * (d.makespan / d.lower_bound - 1) : 0,
	       d.optimal ? "true" : "false");
	print_device(&o.dev);
	if (o.ts.qos_given)
		print_qos(&o, d.order);
	printf("  \"evals\": %llu,\n  \"policy_us\": %.3f\n}\n",
	       (unsigned long long)d.evals, (t1 - t0) / 1e3);
	return draw(&o, d.order);
}

static int cmd_perms(int argc, char **argv)
{
	enum { MAX_PERM_TASKS = 10 };
	static struct opts o;
	uint8_t p[TQSIM_MAX_TASKS], best[TQSIM_MAX_TASKS], worst[TQSIM_MAX_TASKS];
	size_t count = 1, k = 0;
	double *ms, sum = 0, lo = 0, hi = 0, median;
	unsigned int n;
	int ret = parse_opts(argc, argv, &o);

	if (ret)
		return ret;
	n = o.ts.tg.ntasks;
	if (n > MAX_PERM_TASKS) {
		fprintf(stderr, "tqsim: perms: %u tasks have %u! orders; at most %d tasks, "
			"use 'tqsim order --policy exact' instead\n", n, n, MAX_PERM_TASKS);
		return EXIT_BAD_INPUT;
	}
	for (unsigned int i = 2; i <= n; i++)
		count *= i;
	ms = malloc(count * sizeof(*ms));
	if (!ms) {
		fprintf(stderr, "tqsim: out of memory\n");
		return 1;
	}
	for (unsigned int i = 0; i < n; i++)
		p[i] = i;
	do {
		ms[k] = tqsim_makespan(&o.ts.tg, &o.dev, p, n);
		if (ms[k] == INFINITY)
			continue;	/* a task before its predecessor */
		sum += ms[k];
		if (!k || ms[k] < lo) {
			lo = ms[k];
			memcpy(best, p, n);
		}
		if (!k || ms[k] > hi) {
			hi = ms[k];
			memcpy(worst, p, n);
		}
		k++;
	} while (tqsim_next_perm(p, n));
	count = k;	/* the feasible orders; TG order is one */
	median = tq_median(ms, count);
	printf("{\n  \"tasks\": %u,\n  \"permutations\": %zu,\n", n, count);
	print_device(&o.dev);
	printf("  \"best_ms\": %.6f,\n  \"worst_ms\": %.6f,\n  \"median_ms\": %.6f,\n"
	       "  \"mean_ms\": %.6f,\n  \"best_order\": ", ms[0] / NS_PER_MS,
	       ms[count - 1] / NS_PER_MS, median / NS_PER_MS, sum / count / NS_PER_MS);
	print_order(best, n);
	printf(",\n  \"worst_order\": ");
	print_order(worst, n);
	printf("\n}\n");
	free(ms);
	return 0;
}

/* The task file's tasks arriving at arrive_ms through the online model (tqsim_stream_run()). */
static int cmd_stream(int argc, char **argv)
{
	static struct opts o;
	static struct tqsim_ws ws;
	struct tqsim_stream_task t[TQSIM_MAX_TASKS];
	struct tqsim_stream s = { 0 };
	unsigned int n;
	const char *sep = "";
	int ret = parse_opts(argc, argv, &o);

	if (ret)
		return ret;
	s.base = o.policy ? tqsim_policy_find(o.policy) : &tqsim_policy_auto;
	if (!s.base)
		return fail_usage("unknown policy '%s'", o.policy);
	if (o.ts.tg.nafter)
		return fail_usage("%s", "stream: tasks arrive on their own, without 'after'");
	s.max_tg = o.max_tg;
	s.ahead_ns = o.ahead_ms * NS_PER_MS;
	s.flag = o.flag;
	n = o.ts.tg.ntasks;
	for (unsigned int g = 0; g < TQSIM_STREAM_SHARES; g++) {
		s.weight[g] = o.weight[g];
		s.shares |= o.weight[g] > 0;
	}
	for (unsigned int i = 0; i < n; i++) {
		t[i] = (struct tqsim_stream_task){
			.arrive = o.ts.arrive_ms[i] * NS_PER_MS, .prio = o.ts.qos.prio[i],
			.deadline = o.ts.qos.deadline[i], .share = o.ts.share[i],
		};
		for (int st = 0; st < TQSIM_STAGES; st++)
			t[i].ns[st] = tqsim_task_work(&o.ts.tg, i, st);
	}
	ret = tqsim_stream_run(&s, &o.dev, t, n, &ws);
	if (ret) {
		fprintf(stderr, "%s:0: stream: a task without work or a bad device\n", o.file);
		return EXIT_BAD_INPUT;
	}
	printf("{\n  \"tgs\": %u,\n  \"end_ms\": %.6f,\n", s.tgs, s.end / NS_PER_MS);
	print_device(&o.dev);
	printf("  \"busy_ms\": {");
	for (unsigned int g = 0; g < TQSIM_STREAM_SHARES; g++) {
		if (!(s.busy[g] > 0))
			continue;
		printf("%s\"%u\": %.6f", sep, g, s.busy[g] / NS_PER_MS);
		sep = ", ";
	}
	printf("},\n  \"tasks\": [");
	for (unsigned int i = 0; i < n; i++)
		printf("%s\n    {\"name\": \"%s\", \"prio\": %d, \"share\": %u, \"tg\": %u, "
		       "\"arrive_ms\": %.6f, \"launch_ms\": %.6f, \"end_ms\": %.6f, "
		       "\"refused\": %s, \"late\": %s}", i ? "," : "", o.ts.name[i], t[i].prio,
		       t[i].share, t[i].tg, t[i].arrive / NS_PER_MS, t[i].launch / NS_PER_MS,
		       t[i].end / NS_PER_MS, t[i].refused ? "true" : "false",
		       t[i].late ? "true" : "false");
	printf("\n  ]\n}\n");
	return 0;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*run)(int argc, char **argv);
	} cmds[] = {
		{ "makespan", cmd_makespan },
		{ "order", cmd_order },
		{ "perms", cmd_perms },
		{ "stream", cmd_stream },
		{ "eval", cmd_eval },
		{ "bench", cmd_bench },
	};

	tq_version_opt(argc, argv, "tqsim");
	if (argc < 2) {
		fputs(usage, stderr);
		return EXIT_BAD_INPUT;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fputs(usage, stdout);
		return 0;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].run(argc - 1, argv + 1);
	return fail_usage("unknown command '%s'", argv[1]);
}
