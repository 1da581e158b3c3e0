/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench.h - tqbench's pieces: the task sets (tasks.c); what the setups run
 * on (runners.c); the experiments' setups: fixed orders (orders.c), the
 * trials (trials.c), independent contexts (independent.c), the daemon and
 * worker processes (proc*.c, proc.h); the stream (stream.c), the open loop
 * (openloop*.c, openloop.h), independent clients as processes (indep.c,
 * indep_serve.c); the host probe (steady.c); and the reports (report*.c,
 * svg.c: table, CSV, SVG, markdown).
 *
 * An experiment is T workers with N dependent tasks each, T * N task
 * slots; slot r * T + w is worker w's task of round r. An order lists the
 * slots in launch order; NoReorder orders are N permutations of T, one per
 * round, as in the paper's section 0.6.2.
 */
#ifndef TQ_BENCH_H
#define TQ_BENCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "kernels/cl/clu_calib.h"
#include "sim/tqsim.h"
#include "kernels/clx.h"

#define MAX_SLOTS	64		/* T * N */
#define MAX_POOL	64		/* candidate tasks of a suite */
#define MAX_BENCH	5		/* BK0, BK25, BK50, BK75, BK100 */
#define MAX_CFG		8
#define NPOL		5		/* fifo, paper, neh, exact, auto */
#define POL_FLOW	NPOL		/* usched's flow policy: the stream and the open loop */
#define MAX_WORKERS	16
#define MAX_TRIALS	64

struct opts {
	const char *profile;		/* tqcalib's */
	const char *data;		/* the paper's tables as CSV */
	const char *out;		/* directory for CSV, SVG, markdown */
	const char *device;
	const char *suites;		/* "synthetic,real" */
	const char *benches;		/* "BK0,BK50"; NULL: all */
	const char *setups;		/* "noreorder,policies,independent,stream" */
	const char *replot;		/* --replot DIR: draw DIR's SVGs again, run nothing */
	bool quick;
	double unit_ms;			/* synthetic time unit */
	double real_scale;		/* Table 5's times times this */
	const char *table5;		/* which device's row of Table 5 */
	unsigned int ncfg;
	unsigned int cfg[MAX_CFG][2];	/* T, N */
	unsigned int runs;		/* of each NoReorder order, and independent */
	unsigned int trials;		/* of the references, the policies' orders, usched */
	unsigned int perms_all;		/* every permutation up to this many */
	unsigned int perms_max;		/* else a 5% sample, at most this many */
	double stream_s;
	unsigned int stream_workers;
	unsigned int stream_depth;
	const char *stream_setups;	/* NULL: all */
	unsigned int max_tg;		/* usched's; 0: its default */
	unsigned int kqueues;		/* usched's kernel queues; 0: its default */
	bool no_plans;			/* usched's auto orders every TG afresh */
	bool no_refine;			/* nor goes on with a plan in the loop's idle time */
	bool no_poll;			/* usched completes tasks by their callbacks alone */
	bool no_clear;			/* usched hands buffers between owners uncleared */
	unsigned int isolate_owners;	/* owners 1..N in an isolation domain (0: none) */
	double steady_pct;		/* a steady host's tolerance (steady.c); 0: off, < 0: auto */
	double steady_wait_s;		/* the longest wait for a steady host */
	unsigned int redo;		/* unsteady passes, and trials, run again per experiment */
	uint64_t seed;
	bool process;			/* policies: the daemon and worker processes */
	const char *usched;		/* the daemon */
	const char *tqsubmitd;		/* the socket's server, if tqbench starts it */
	/* the open loop (openloop.c) */
	const char *ol_mixes;		/* "phased,BK50" */
	const char *ol_loads;		/* fractions of the capacity: "0.3,0.5,..." */
	const char *ol_setups;		/* "fifo,paper,auto,flow,independent" */
	double ol_s;			/* seconds of arrivals per point, at least */
	unsigned int ol_tasks;		/* counted arrivals per point, at least */
	double ol_phase_s;		/* a phase of a mix */
	unsigned int ol_clients;
	/* quality of service (qos.c) */
	unsigned int qos_tasks;		/* the critical client's counted tasks */
	const char *qos_task;		/* its task: a pool task or a kernel's name; NULL: smallest */
	double qos_s;			/* seconds of the shares' and the deadlines' runs */
	unsigned int qos_ndl;
	double qos_deadline[4];		/* a task's deadline, times its time alone: a point each */
	bool other_users;		/* clients run as other uids: tqbench's tqsubmitd open to all */
};

extern const char *const policy_names[NPOL];
/* Table 3's benchmarks, BKx: x% of the tasks dominant-kernel (tasks.c) */
extern const unsigned int bench_pcts[MAX_BENCH];
/* policy_names[p], or "flow" for POL_FLOW */
const char *pol_name(int p);

/* A suite: candidate tasks, measured alone, and how its benchmarks draw from them. */
struct suite {
	const char *name;		/* "synthetic" or "real" */
	bool synthetic;			/* benchmarks are members[], else pct[] of DK tasks */
	unsigned int npool;
	struct btask pool[MAX_POOL];
	unsigned int nbench;
	char bench[MAX_BENCH][8];	/* "BK0" ... */
	unsigned int pct[MAX_BENCH];	/* dominant-kernel share */
	/* synthetic: the four pool tasks of each benchmark (Table 3) */
	unsigned int members[MAX_BENCH][4];
};

enum { REF_WORST, REF_MEDIAN, REF_BEST, NREF };

/* How long NoReorder's copies ran over their standalone times (orders.c, copy_stretch()). */
struct copy_stretch {
	double drift_sum;		/* those that ran alone: duration / standalone */
	unsigned int drift_n;
	double ov_sum[2];		/* those the other way covered: HtD, DtH */
	unsigned int ov_n[2];
};

/* Everything measured on one experiment. */
struct result {
	const struct suite *s;
	unsigned int bench, T, N;
	unsigned int nslots;
	struct btask slot[MAX_SLOTS];
	double share[MAX_SLOTS];	/* each slot's kernel share, as usched's model takes it */
	unsigned int nperms;
	uint64_t perm_space;		/* (T!)^N */
	uint8_t (*perm)[MAX_SLOTS];	/* nperms orders */
	double *perm_ms;		/* median measured makespan of each */
	double *perm_pred_ms;		/* the model's, from standalone times; N == 1 */
	/*
	 * NoReorder's worst, median and best orders by their medians, run
	 * again in the trials beside the policies: chosen on one set of runs,
	 * timed on another (the least of many noisy medians is too good).
	 */
	bool refs;
	unsigned int ref_perm[NREF];
	double ref_ms[NREF];		/* their medians in the trials */
	uint8_t pol_order[NPOL][MAX_SLOTS];	/* each policy's order from standalone times */
	double fixed_ms[NPOL];		/* that order run as a fixed order */
	double fixed_pred_ms[NPOL];
	double pol_ms[NPOL];		/* through usched (median); 0: not run */
	double pol_sched_ns[NPOL];	/* mean policy time per TG */
	double pol_refine_ns[NPOL];	/* mean idle time per TG going on with its plan */
	double pol_tg_ms[NPOL];		/* mean measured TG makespan */
	double pol_tg_err[NPOL];	/* geometric mean |pred - meas| / meas over TGs */
	unsigned int pol_tgs[NPOL];
	/* each counted TG's policy time over its device time (in-process only) */
	double pol_sched_max[NPOL];	/* the largest */
	unsigned int pol_sched_over[NPOL];	/* TGs above 0.1% */
	unsigned int pol_sched_n[NPOL];	/* TGs counted */
	bool pol_proc;			/* the policies ran as worker processes too */
	/* --workers process: the policies through the daemon, beside pol_* in-process */
	double proc_ms[NPOL];		/* median; 0: not run */
	double proc_sched_ns[NPOL];
	double proc_refine_ns[NPOL];
	double proc_tg_ms[NPOL];
	unsigned int proc_tgs[NPOL];
	double indep_ms;		/* independent contexts (median); 0: not run */
	struct copy_stretch stretch;
	double pol_copy_slow[NPOL][2];	/* usched's copy model after the runs: HtD, DtH */
	/* NoReorder's passes and the trials: run again, and kept though unsteady */
	unsigned int redone[2], unsteady[2];
};

struct stream_result {
	char setup[24];
	unsigned int workers;
	double secs;
	uint64_t tasks;
	double tput;			/* tasks per second */
	double util[CLX_STAGES];	/* busy / wall per engine; < 0: unknown */
	double device_util;		/* any engine busy / wall; < 0: unknown */
	double bound_util;		/* the busiest engine's standalone load / wall */
	double p50_ms, p99_ms;
	double tg_err;			/* usched's mean |pred / meas - 1| */
	double sched_share;		/* policy time / TG makespan */
	double tg_size;			/* mean tasks per TG */
	double polled;			/* share of completions usched found by polling */
	double cleared;			/* device bytes usched cleared per task completed */
	double tput_user, tput_others;	/* tasks/s of workers 1..P/2 ("a user") and the rest */
	unsigned int domains;		/* usched's isolation domains open at the end */
};

/* The open loop (openloop.c) */
#define OL_MAX_PHASES	8
#define OL_MAX_MIXES	6
#define OL_MAX_LOADS	12
#define OL_MAX_TASKS	20000	/* --ol-tasks: within the workers' OLP_MAX each */
#define OL_MAX_SETUPS	12

/* A mix: a cycle of phases, each a share of dominant-kernel tasks. */
struct ol_mix {
	char name[24];
	unsigned int nphase;
	unsigned int pct[OL_MAX_PHASES];
};

/* A phase's capacity, tasks per second: a backlog through usched's auto, and independent. */
struct ol_cap {
	unsigned int pct;
	double usched, indep;
};

/* One setup at one load of one mix. */
struct ol_point {
	char mix[24];
	char setup[24];
	double load;			/* offered, a fraction of the capacity */
	double secs;			/* seconds of arrivals */
	double offered;			/* arrivals counted per second */
	uint64_t tasks;			/* arrivals counted */
	double tput;			/* completions in the window per second */
	double p50, p99, p999, mean;	/* latency, ms: arrival to delivery */
	double p50_user, p99_user;	/* of clients 1..P/2 ("a user") */
	double p50_others, p99_others;	/* of the rest */
	double util[CLX_STAGES], device_util;
	double tg_size, sched_share;	/* usched's */
	double lag_ms;			/* the clients' latest submission after its arrival */
	double detect_ms;		/* usched in-process: delivery after the last command's end, mean; -1: n/a */
	int err;			/* the point failed: no figures */
};

struct ol_result {
	unsigned int nmix, nload, ncap, npts, clients;
	struct ol_mix mix[OL_MAX_MIXES];
	double load[OL_MAX_LOADS];
	struct ol_cap cap[OL_MAX_MIXES * OL_MAX_PHASES];
	struct ol_point *pt;
	double secs, phase_s;
	unsigned int min_tasks;
};

/* The host probe of steady.c. */
struct steady {
	bool on;
	bool spoiled;			/* a probe since steady_wait() was slow */
	double limit;			/* steady: the probe's HtD within this of standalone */
	double alone_ns;		/* the probe's HtD alone */
	double last_s;			/* when it last probed */
	struct clu_cal mem;		/* the probe's copies (kernels/cl/clu_calib.h) */
	/* for the summary */
	unsigned int probes, slow_probes, waits;
	double waited_s;
};

/* The device session tqbench runs in. */
struct env {
	struct opts *o;
	struct clx c;
	struct tqsim_profile prof;
	/*
	 * the model's device, from the profile, with usched's kernel queues:
	 * the fixed orders run on as many (run_order())
	 */
	struct tqsim_dev dev;
	uint64_t out_base;		/* tasks' host layout: inputs at 0, outputs here */
	size_t arena_len;
	void *arena;			/* c's host memory, shared by every task slot */
	struct clu_region reg;
	unsigned int proc_failed;	/* experiments whose process runs failed */
	FILE *cmds;			/* NoReorder's command timelines; NULL: off */
	FILE *stream_tasks;		/* the stream's counted tasks, stage by stage; NULL: off */
	FILE *usched_tasks;		/* the policies' counted runs, task by task; NULL: off */
	struct steady steady;
};

/* tasks.c */
int suite_synthetic(struct env *e, struct suite *s);
int suite_real(struct env *e, struct suite *s);
int measure_alone(struct env *e, struct btask *b, unsigned int reps);
uint64_t bench_rnd(uint64_t *st);
int result_init(struct env *e, const struct suite *s, unsigned int bench, unsigned int T,
		unsigned int N, uint64_t seed, struct result *r);
void result_fini(struct result *r);
/* Standalone-time TG of the slots in r, one task per slot. */
void result_tg(const struct result *r, struct tqsim_tg *tg);
double predict_ms(const struct env *e, const struct result *r, const uint8_t *order);

/* runners.c: what the setups run on, opened on first use */
int runners_init(struct env *e, uint64_t in_bytes, uint64_t out_bytes);
/* Close the usched instances and independent contexts (they reopen on use). */
void runners_reset(struct env *e);
void runners_fini(struct env *e);
/*
 * usched p's in-process core (POL_FLOW included); the usched task of btask
 * b (runner_btask) or of pool task pool_i of s laid out in the arena
 * (runner_task); its loop run on this thread until the collector co has
 * every task it waits for (runner_collect), or until finished(arg) with
 * every completion to fn (runner_drive: the stream and the open loop);
 * independent worker w's own context and registered memory.
 */
struct usched;
struct usched_task;
struct usched_completion;
typedef void (*runner_done_fn)(void *arg, const struct usched_completion *c);
int runner_usched(struct env *e, int p, struct usched **u);
int runner_btask(int p, const struct btask *b, uint64_t owner, uint64_t user,
		 struct usched_task *t);
int runner_task(struct env *e, int p, unsigned int pool_i, const struct suite *s, uint64_t owner,
		struct usched_task *t);
/* What the counted TGs of one policy add up to. */
struct tg_tally {
	double err_sum;			/* of log(|predicted - measured| / measured) */
	unsigned int nerr;
	double sched_max;		/* policy time over device time, the largest */
	unsigned int sched_over, sched_n;	/* TGs above 0.1%, TGs */
};

/*
 * Tasks of a closed run, gathered by the completion callback; or, with
 * hook, every completion to it until finished(hook_arg) (runner_drive()).
 */
struct coll {
	unsigned int want, got, failed;
	uint64_t first, last;		/* CLOCK_MONOTONIC ns */
	/* every TG finished: a line of tg.csv each, and their errors */
	FILE *tgcsv;
	FILE *tasks;			/* usched-tasks.csv, with tgcsv */
	const char *tag;
	struct tg_tally *tally;		/* with tgcsv */
	/* the open loop's: every completion goes there, and it says when to stop */
	runner_done_fn hook;
	bool (*finished)(void *arg);
	void *hook_arg;
};

int runner_collect(int p, struct coll *co);
int runner_drive(int p, runner_done_fn fn, bool (*finished)(void *arg), void *arg);
int runner_indep(struct env *e, unsigned int w, struct clx **c, struct clu_region **r);

/* orders.c: fixed orders on tqbench's context */
int run_noreorder(struct env *e, struct result *r);
int policy_orders(struct env *e, struct result *r);
/* The first start and the last end of commands' profiling stamps, ns. */
struct span {
	uint64_t first, last;
};

void span_add(struct span *sp, const struct binst *in);
int insts_init(struct clx *c, const struct result *r, struct binst *in);
void insts_fini(const struct result *r, struct binst *in);
/* Run one order of r's slots on tqbench's context; its makespan in *ms. */
int run_order(struct env *e, const struct result *r, struct binst *in, const uint8_t *order,
	      double *ms);
/* A file's lines held back until a pass or trial is kept. */
struct held {
	FILE *f;			/* NULL where the file is off */
	char *buf;
	size_t len;
};

/* Hold what would go to dst (NULL: off); 0 or -ENOMEM. */
int held_open(struct held *h, FILE *dst);
/* Write what was held to dst if keep, and let it go. */
void held_close(struct held *h, FILE *dst, bool keep);

/* trials.c */
int run_trials(struct env *e, struct result *r, bool orders, bool usched, FILE *tgcsv);

/* independent.c */
int run_independent(struct env *e, struct result *r);

/* stream.c */
int run_stream(struct env *e, const struct suite *real, const char *setup,
	       struct stream_result *sr);
/* The stream's next task of a worker whose draws are at *rng: a pool index of s. */
unsigned int stream_draw(const struct suite *s, uint64_t *rng);
/* Each engine's busy share of [lo, hi] (the union of iv's intervals), and the device's. */
void busy_shares(double (*iv)[CLX_STAGES][2], size_t n, double lo, double hi, double *util,
		 double *device);

/* openloop.c */
/* Check --ol-mixes, --ol-loads, --ol-setups: 0 or -EINVAL. */
int openloop_parse(struct opts *o);
int run_openloop(struct env *e, const struct suite *real, struct ol_result *res);
/*
 * The capacity at each share pcts[j] of dominant-kernel tasks: a backlog from
 * P clients through usched's auto and through independent contexts (cap[j]).
 */
int openloop_capacity(struct env *e, const struct suite *s, const char *what, unsigned int P,
		      const unsigned int *pcts, unsigned int npct, double secs, struct ol_cap *cap);
void openloop_free(struct ol_result *res);

/* qos.c: classes, deadlines and shares through the daemon (issue 45) */
#define QOS_CLIENTS	9		/* the critical client and 8 best-effort ones */
#define QOS_MAX_TASKS	7000		/* --qos-tasks: within OLP_MAX arrivals a point */
enum { QOS_PRIO, QOS_NORMAL, QOS_INDEP, QOS_ALONE, QOS_NSETUP };
extern const char *const qos_setup_names[QOS_NSETUP];

/* The critical client beside the best-effort ones, in one setup. */
struct qos_point {
	int err;			/* the setup failed: no figures; 1: not run */
	unsigned int crit_n;		/* the critical client's counted tasks */
	double crit_p50, crit_p99;	/* their latency, ms: arrival to completion seen */
	unsigned int be_n;		/* best-effort arrivals counted */
	double be_offered, be_tput;	/* best-effort arrivals, completions per second */
};

struct qos_result {
	/* 1: the critical client beside best-effort ones at qos_load of the capacity */
	char crit_task[32];
	double crit_alone_ms;		/* its time alone (the suite's) */
	double period_ms;
	unsigned int be_clients;
	double load;			/* offered by the best-effort clients */
	double cap, cap_usched, cap_indep;	/* BK50 tasks per second: the better setup's */
	double secs;			/* of each setup's arrivals */
	struct qos_point pt[QOS_NSETUP];
	/* 2: two users at shares under saturation, engine time from the daemon's metrics */
	int share_err;			/* 1: not run (share_why says why) */
	char share_why[96];
	uint32_t uid[2];
	unsigned int weight[2];
	double engine_s[2];		/* the window's, all stages */
	double tasks[2];		/* completed ok in the window */
	double share_secs;
	/* 3: deadlines at dl_load of the capacity, a point per multiple of the time alone */
	double dl_load, dl_secs;
	unsigned int ndl;
	struct qos_dl {
		int err;
		double x;			/* the deadline, times the task's time alone */
		uint64_t tasks, refused, late, failed;	/* counted arrivals */
		double p99;			/* admitted tasks' latency, ms */
	} dl[4];
};

/* Run the three parts on the real suite: 0, or the first failure (the others still run). */
int run_qos(struct env *e, const struct suite *real, struct qos_result *q);
/* qos.csv, qos-latency.csv, qos-shares.csv, qos-deadlines.csv; summary.md's section; stdout's */
int report_qos(const char *dir, const struct qos_result *q);
int report_qos_md(FILE *f, const struct qos_result *q);
void report_qos_table(FILE *f, const struct qos_result *q);

/* indep.c: independent clients as processes (setup "proc-independent") */
enum { IC_SETUP = 1, IC_STREAM, IC_OPENLOOP, IC_RESET };
/* A command's header, and a reply's; then len bytes of payload. */
struct ic_hdr {
	uint32_t cmd;
	int32_t status;			/* replies */
	uint64_t len;			/* payload bytes after the header */
};

/* IC_SETUP's payload */
struct ic_setup {
	size_t arena_len;
	uint64_t out_base;
	char device[128];
	struct suite s;
};

/* A growing buffer: a client's reply */
struct obuf {
	char *p;
	size_t len, cap;
};
int obuf_put(struct obuf *ob, const void *p, size_t len);
/* A client's body: commands on sock, answered, until it closes; then it exits. */
typedef void (*indep_serve_fn)(struct opts *o, int sock);
/* Fork n clients, each running serve; before tqbench touches OpenCL. */
int indep_procs_start(struct opts *o, unsigned int n, indep_serve_fn serve);
/* How many there are (0: none, the setup cannot run). */
unsigned int indep_procs(void);
/* End them (now: killed, else when they have finished); a failed command ends them too. */
void indep_procs_stop(bool now);
/* Give clients 0..n-1 e's layout, its device and the suite s. */
int indep_procs_setup(struct env *e, const struct suite *s, unsigned int n);
/* Close every client's context and buffers. */
void indep_procs_reset(void);
/* A command to client w, and its reply: the client's status, or -errno. */
int indep_send(unsigned int w, uint32_t cmd, const void *req, size_t len);
int indep_recv(unsigned int w, struct obuf *reply);
/* All of len bytes on fd, sent or received; 0 or -errno (-EPIPE at the peer's end). */
int indep_put(int fd, const void *buf, size_t len);
int indep_get(int fd, void *buf, size_t len);
/* indep_serve.c: the clients' side */
void indep_serve(struct opts *o, int sock) __attribute__((noreturn));
/* The clients' sides of IC_STREAM (stream.c) and IC_OPENLOOP (openloop_indep.c). */
int indep_stream_client(struct env *e, const struct suite *s, const void *req, size_t len,
			struct obuf *out);
int openloop_indep_client(struct env *e, const struct suite *s, const void *req, size_t len,
			  struct obuf *out);
/* Free the open loop's independent buffers (before their contexts close). */
void openloop_indep_forget(void);

/* steady.c */
int steady_init(struct env *e);
void steady_fini(struct env *e);
/* Before a pass or a trial: wait (at most steady_wait_s) until the host is steady. */
void steady_wait(struct env *e);
/* Between its runs: probe now and then. */
void steady_tick(struct env *e);
/* After it: whether every probe since steady_wait() found the host steady. */
bool steady_end(struct env *e);

/* proc_daemon.c: --workers process can run here: the module, no other scheduler, the daemon. */
int proc_check(struct opts *o);
/* proc.c: the experiment's policies through the daemon, T x N worker processes */
int run_procs(struct env *e, struct result *r);
/*
 * proc_openloop.c: the stream through the daemon with worker processes,
 * policy p (setup "proc-POLICY").
 */
int stream_procs(struct env *e, const struct suite *real, int p, struct stream_result *sr);
/*
 * The open loop through the daemon: policy p's usched and P worker
 * processes for a setup's points. Per point: fill narr, at and pool for each
 * worker and t0, then ol_procs_go(); done and status come back (0: never
 * completed). TGs' mean size and the policy's share of their time from the
 * daemon's metrics.
 */
#define OLP_MAX		8192		/* arrivals per worker and point */
#define OLP_DEPTH_MAX	64		/* the stream's tasks in flight per worker */
struct olp_shm {
	/* the stream (stream_procs): depth tasks in flight each, drawn from seed + w */
	bool stream;
	uint32_t depth;
	uint64_t seed;
	uint64_t from_ns, end_ns;	/* counted: completions in [from_ns, end_ns] */
	uint32_t nlat[MAX_WORKERS];
	double lat[MAX_WORKERS][OLP_MAX];	/* submission to completion, ms */
	/* a point of the open loop */
	uint64_t t0;			/* CLOCK_MONOTONIC ns of at = 0 */
	uint32_t narr[MAX_WORKERS];
	uint64_t at[MAX_WORKERS][OLP_MAX];	/* ns from t0 */
	uint32_t pool[MAX_WORKERS][OLP_MAX];	/* the suite's pool task */
	uint64_t done[MAX_WORKERS][OLP_MAX];	/* the completion seen, CLOCK_MONOTONIC */
	int32_t status[MAX_WORKERS][OLP_MAX];
	uint32_t flags[MAX_WORKERS][OLP_MAX];	/* the cqe's: TQ_CQE_F_LATE */
	/* quality of service: each worker's tasks' class, and each task's deadline */
	uint8_t prio[MAX_WORKERS];		/* enum tq_prio; 0: the context's */
	uint32_t deadline_us[MAX_WORKERS][OLP_MAX];	/* 0: none */
};
/*
 * conf: the daemon's usched.conf (NULL: none); uid: each worker's user
 * (NULL: tqbench's own; tqbench must be root to give another).
 */
struct olp_shm *ol_procs_open(struct env *e, const struct suite *s, int p, unsigned int P,
			      const uint32_t *uid, const char *conf);
int ol_procs_go(double secs, double *tg_size, double *sched_share);
/*
 * The stream (sh->stream) run, and the daemon's device time (all stages)
 * and tasks completed ok of each of n uids between from_ns and end_ns.
 */
int ol_procs_stream_uids(unsigned int n, const uint32_t *uid, double *engine_s, double *tasks);
/* The daemon and workers stopped (failed: killed); 0, or the daemon's failure. */
int ol_procs_close(bool failed);

/*
 * report.c: the table and the CSV rows; the device features every setup
 * had (one line after @prefix: "# " in the table, "- " in summary.md)
 */
void report_features(FILE *f, const struct env *e, const char *prefix);
void report_tasks(FILE *f, const struct suite *s);
void report_row(FILE *table, FILE *csv, FILE *perms, const struct result *r);
void report_stream(FILE *table, FILE *csv, const struct stream_result *sr);
/* report_svg.c */
int report_svg(const char *dir, struct result *const *rs, unsigned int n);
int report_stream_svg(const char *dir, const struct stream_result *sr, unsigned int n);
/* report_md.c: summary.md */
int report_md(const char *path, const struct env *e, struct result *const *rs, unsigned int n,
	      const struct stream_result *sr, unsigned int nstream, const char *cmdline);
/* report_openloop.c: openloop.csv, openloop-capacity.csv, openloop-MIX.svg, summary.md's part */
int report_openloop(const char *dir, const struct ol_result *res);
int report_openloop_svg(const char *dir, const struct ol_result *res);
int report_openloop_md(FILE *f, const struct ol_result *res);
/* replot.c: --replot DIR, the SVGs again from DIR's CSV files */
int replot(const char *dir);

#endif /* TQ_BENCH_H */
