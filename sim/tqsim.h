/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * tqsim.h - the temporal model of a task group (TG) on a device with copy
 * engines, and the policies that choose the TG's launch order.
 *
 * The model is the event-driven simulator of Lazaro-Munoz et al. (see
 * Documentation/sim.md): a task is HtD -> K -> DtH, each stage a list of
 * commands; commands enter FIFO queues in TG order; HtD and DtH slow each
 * other down while both run on a device with two copy engines.
 *
 * Times are nanoseconds held in doubles. Nanoseconds because the daemon's
 * clock is CLOCK_MONOTONIC ns, so no scale conversion on its hot path;
 * doubles because the overlap slowdown makes every end time fractional, and
 * a double holds whole nanoseconds exactly up to 104 days.
 *
 * Nothing here allocates, does I/O or reads a clock, except the policy time
 * budget, which reads one clock in one function (tqsim_clock_ns()), and auto's
 * state (tqsim_auto_state_create(), once per caller, never per decision).
 * Every other object is a fixed-size struct the caller owns, so a daemon can
 * keep them in static storage and call in from its decision loop.
 */
#ifndef TQSIM_H
#define TQSIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TQSIM_MAX_TASKS	64	/* tasks in one TG */
#define TQSIM_MAX_CMDS	256	/* commands in one TG, all stages */
#define TQSIM_MAX_KQ	8	/* kernel queues of a device (tqsim_dev.kq) */

enum tqsim_stage {
	TQSIM_HTD,			/* host-to-device copies */
	TQSIM_K,			/* kernels */
	TQSIM_DTH,			/* device-to-host copies */
	TQSIM_STAGES
};

/* One task: its commands are tg->cmd_ns[first[s]] .. [first[s] + n[s] - 1]. */
struct tqsim_task {
	uint16_t first[TQSIM_STAGES];
	uint8_t n[TQSIM_STAGES];	/* 0: the stage is absent */
};

/* A task group. Build it with tqsim_tg_init() and tqsim_tg_add*(). */
struct tqsim_tg {
	unsigned int ntasks;
	unsigned int ncmds;
	struct tqsim_task task[TQSIM_MAX_TASKS];
	double cmd_ns[TQSIM_MAX_CMDS];	/* standalone duration of each command */
	/*
	 * Per task: the earliest its first command may start (ns from t = 0),
	 * e.g. when a predecessor in flight ends. 0 from tqsim_tg_add_task().
	 */
	double release[TQSIM_MAX_TASKS];
	/* Per task: the task it runs after (tqsim_tg_set_after()), -1: none. */
	int8_t after[TQSIM_MAX_TASKS];
	unsigned int nafter;		/* tasks with one */
	/*
	 * Per task: the share of the device its kernels fill, in (0, 1]
	 * (tqsim_tg_set_width()); 1 from tqsim_tg_add_task(). Read only on a
	 * device with concurrent kernels (tqsim_dev.kq > 1).
	 */
	double kwidth[TQSIM_MAX_TASKS];
};

void tqsim_tg_init(struct tqsim_tg *tg);
/* Start a new task; returns its index or -ENOSPC. */
int tqsim_tg_add_task(struct tqsim_tg *tg);
/*
 * Append a command to stage @s of the newest task. A task's commands are
 * added stage by stage (all HtD, then K, then DtH): -EINVAL otherwise, or
 * for a negative or non-finite duration; -ENOSPC when the TG is full.
 */
int tqsim_tg_add_cmd(struct tqsim_tg *tg, enum tqsim_stage s, double ns);
/* A task with at most one command per stage; 0 ns means the stage is absent. */
int tqsim_tg_add(struct tqsim_tg *tg, double htd_ns, double k_ns, double dth_ns);
/*
 * Task @t's first command (of its first present stage) starts no earlier
 * than @ns; its queue waits for it (FIFO). 0, or -EINVAL for a bad task or a
 * negative or non-finite time.
 */
int tqsim_tg_set_release(struct tqsim_tg *tg, unsigned int t, double ns);
/*
 * Precedence: task @t's first command starts no earlier than task @pred's
 * last command ends, as when an in-order queue waits for @pred's last event
 * (the commands behind it in its queue wait too). Chains only: @pred < @t
 * (so TG order is always feasible) and one predecessor per task; 0, or
 * -EINVAL. An order that puts a task before its predecessor would deadlock
 * the device's queues: its makespan is INFINITY. In an order that leaves a
 * predecessor out, the task waits for its nearest ancestor in the order.
 */
int tqsim_tg_set_after(struct tqsim_tg *tg, unsigned int t, unsigned int pred);
/* Task @t's kernel width (struct tqsim_tg); 0, or -EINVAL unless 0 < @w <= 1. */
int tqsim_tg_set_width(struct tqsim_tg *tg, unsigned int t, double w);
/* Total standalone work of stage @s of task @t. */
double tqsim_task_work(const struct tqsim_tg *tg, unsigned int t, enum tqsim_stage s);

/*
 * The device. With dma == 2, while an HtD and a DtH command run at once each
 * progresses at 1/slow[TQSIM_HTD] (resp. 1/slow[TQSIM_DTH]) of its standalone
 * rate. With dma == 1 there is one copy engine, busy until the later of
 * busy_until[TQSIM_HTD] and busy_until[TQSIM_DTH]; slow[] is unused.
 *
 * Command latencies (the paper's model has none; 0 by default): a command
 * waiting on another command's end starts dep_ns after it (K after its
 * task's HtD stage, DtH after its K stage, a task's first command after its
 * predecessor's last), and a command starts gap_ns after the previous one on
 * its engine ended (from busy_until too, when it is > 0). A release time
 * gets no latency.
 *
 * Launch cost (submit_ns, 0 by default): the host enqueues a TG's commands
 * one after the other, submit_ns each, task by task in the order (with two
 * copy engines a task's HtD, K and DtH commands; with one its HtD and K
 * commands, the DtH commands after the TG's last task, those up to a
 * predecessor's before its successor). A task's first command starts no
 * earlier than submit_ns times the commands launched before it: a release
 * time the order sets, which matters where short commands lead the TG.
 *
 * Concurrent kernels (kq > 1): the TG's kernels go to kq in-order queues
 * round-robin, the i-th task with a kernel (in the order) to queue i % kq,
 * and kernels on different queues run at once. While kernels of shares
 * w1, w2, ... (tqsim_tg.kwidth) run together, each progresses at
 * 1 / max(1, w1 + w2 + ...) of its standalone rate (kshare
 * TQSIM_SHARE_FAIR, the default): kernels that leave part of the device
 * idle overlap for free, those that fill it share it. TQSIM_SHARE_FIRST
 * serves them in the order they started instead, as a GPU's block
 * scheduler does: each runs at min(1, left / w) of its rate, left being
 * what the kernels started before it leave of the device (1 at first,
 * less w times their rate each). With two or more kernels running, each
 * is also 1 + kcost times slower (what they cost each other besides the
 * device's throughput: caches, memory; 0 by default).
 * Queue 0 is free from busy_until[TQSIM_K], queue i > 0 from kq_busy[i].
 * With kq == 1 kernels run one at a time, as in the paper.
 */
enum tqsim_kshare { TQSIM_SHARE_FAIR, TQSIM_SHARE_FIRST };

struct tqsim_dev {
	unsigned int dma;		/* copy engines: 1 or 2 */
	double slow[TQSIM_STAGES];		/* [TQSIM_HTD], [TQSIM_DTH] >= 1; [TQSIM_K] unused */
	double busy_until[TQSIM_STAGES];	/* ns from t = 0 each engine is still busy */
	double dep_ns;			/* a dependency's end to the waiting command's start */
	double gap_ns;			/* one engine: a command's end to the next one's start */
	double submit_ns;		/* the host's launch of one command */
	unsigned int kq;		/* kernel queues: 1..TQSIM_MAX_KQ */
	double kq_busy[TQSIM_MAX_KQ];	/* kq > 1: queue i > 0 busy until; [0] unused */
	unsigned int kshare;		/* kq > 1: enum tqsim_kshare */
	double kcost;			/* kq > 1: >= 0, the slowdown of overlapped kernels - 1 */
};

/* dma 2, one kernel queue, no slowdown, no latencies, all engines idle. */
void tqsim_dev_init(struct tqsim_dev *dev);
/* 0, or -EINVAL when dma, kq, slow[], a busy-until or a latency is out of range. */
int tqsim_dev_check(const struct tqsim_dev *dev);

/*
 * What a simulation gives. Engines are named by the stage they run; with
 * dma == 1 the copy engine's busy time is busy[TQSIM_HTD] + busy[TQSIM_DTH] and
 * engine_end[TQSIM_HTD] == engine_end[TQSIM_DTH]. With concurrent kernels,
 * busy[TQSIM_K] sums the kernels' run times (overlapped ones each count) and
 * engine_end[TQSIM_K] is the latest of kq_end[].
 */
struct tqsim_sim_result {
	double makespan;		/* t = 0 to the end of the last command */
	double busy[TQSIM_STAGES];		/* time the engine ran this TG's commands */
	double engine_end[TQSIM_STAGES];	/* when the engine is free again */
	double kq_end[TQSIM_MAX_KQ];	/* when each kernel queue is free again (kq of them) */
	double start[TQSIM_MAX_CMDS];	/* per command, indexed like tg->cmd_ns */
	double end[TQSIM_MAX_CMDS];
};

/*
 * Simulate the tasks order[0..n-1] (distinct task indices; a subset of the
 * TG is fine, the others are left out). Only makes sense on a checked
 * device. tqsim_makespan() is the fast path for policies: no per-command
 * record. An infeasible order (a task before its predecessor) gives
 * makespan INFINITY and no command times (NaN).
 */
void tqsim_simulate(const struct tqsim_tg *tg, const struct tqsim_dev *dev,
		 const uint8_t *order, unsigned int n, struct tqsim_sim_result *res);
double tqsim_makespan(const struct tqsim_tg *tg, const struct tqsim_dev *dev,
		   const uint8_t *order, unsigned int n);
/* Task @t's completion in @res (tqsim_simulate()'s): its last command's end. */
double tqsim_task_end(const struct tqsim_tg *tg, const struct tqsim_sim_result *res,
		      unsigned int t);

/*
 * A two-copy-engine simulation grown one task at a time, for searches over
 * order prefixes (the exact policy). tqsim_prefix_push() appends a task and
 * simulates up to the end of the last HtD so far: nothing before that time
 * depends on the tasks appended later, as long as each has an HtD stage (a
 * task without one could start its DtH earlier). So tqsim_prefix_* need
 * dev->dma == 2, one kernel queue and an HtD stage in every task. tqsim_prefix_finish() runs the
 * rest: the makespan tqsim_makespan() gives for the same order, to the bit.
 * With precedence, push each task after its predecessor (feasible orders).
 *
 * The per-position arrays sit in a struct tqsim_prefix_buf shared along a
 * search path (a push writes only the new position); the struct tqsim_prefix is
 * the rest, small enough to copy at each branch.
 */
struct tqsim_copyq {
	unsigned int pos, c;	/* head: command c of the stage of task pos */
	bool any;		/* the queue has a head */
	bool run;		/* the head is running */
	double rem;		/* standalone ns left of the running command */
	double start;
	double free;		/* the engine may start a command from then on (gap_ns in) */
};

struct tqsim_prefix {
	unsigned int n;		/* tasks in the prefix */
	unsigned int kpos;	/* tasks whose kernels are placed */
	double now;		/* where the simulation stopped: the last HtD's end */
	double kfree;		/* the K engine may start a kernel from then on */
	double makespan;	/* latest end so far */
	double launch;		/* the next task's launch: submit_ns per command before it */
	struct tqsim_copyq h, d;	/* the copy queues */
};

struct tqsim_prefix_buf {
	uint8_t order[TQSIM_MAX_TASKS];
	int8_t ppos[TQSIM_MAX_TASKS];	/* per position: its predecessor's, -1: none */
	/* when a command waiting on it may start: the stage's end + dep_ns */
	double hend[TQSIM_MAX_TASKS];	/* its HtD stage (its release until then) */
	double kend[TQSIM_MAX_TASKS];	/* its K stage, once placed */
	double dend[TQSIM_MAX_TASKS];	/* its DtH stage, once run */
};

void tqsim_prefix_init(struct tqsim_prefix *p, const struct tqsim_dev *dev);
void tqsim_prefix_push(const struct tqsim_tg *tg, const struct tqsim_dev *dev, struct tqsim_prefix_buf *buf,
		    struct tqsim_prefix *p, unsigned int task);
double tqsim_prefix_finish(const struct tqsim_tg *tg, const struct tqsim_dev *dev,
			struct tqsim_prefix_buf *buf, const struct tqsim_prefix *p);

/*
 * The device profile (text format "tq-profile 1", Documentation/sim.md):
 * transfer time = latency + bytes / bandwidth per direction, alone and with
 * the other direction running; kernel time = eta * m + gamma (the paper's
 * equation 1), and a kernel's width and demand by size, for concurrent
 * kernels: the share of the device tqsim_tg.kwidth holds is the one its
 * "concurrent" line names (width unless it says demand).
 */
#define TQSIM_PROFILE_KERNELS	32
#define TQSIM_NAME_MAX		32

struct tqsim_xfer_model {
	double lat_ns;			/* latency */
	double bytes_per_ns;		/* bandwidth; 1 byte/ns == 1 GB/s */
};

#define TQSIM_WIDTH_POINTS		10

struct tqsim_kernel_model {
	char name[TQSIM_NAME_MAX];
	double eta_ns;			/* per unit of the kernel's size m */
	double gamma_ns;		/* launch latency */
	/* its width (struct tqsim_tg) by size, m ascending; none: 1 */
	unsigned int nwidth;
	double width_m[TQSIM_WIDTH_POINTS], width[TQSIM_WIDTH_POINTS];
	/*
	 * its demand by size, m ascending; none: 1: its throughput alone (m
	 * over time) as a share of the best throughput it reached at any size
	 */
	unsigned int ndemand;
	double demand_m[TQSIM_WIDTH_POINTS], demand[TQSIM_WIDTH_POINTS];
};

/* Which of a kernel's shares tqsim_tg.kwidth holds: the profile's "concurrent" line. */
enum tqsim_share_src { TQSIM_SRC_WIDTH, TQSIM_SRC_DEMAND };

struct tqsim_profile {
	char device[64];
	unsigned int dma;
	/* [TQSIM_HTD] and [TQSIM_DTH]; alone, and overlapped by the other direction */
	struct tqsim_xfer_model alone[TQSIM_STAGES];
	struct tqsim_xfer_model overlapped[TQSIM_STAGES];
	unsigned int nkernels;
	struct tqsim_kernel_model kernel[TQSIM_PROFILE_KERNELS];
	double dep_ns, gap_ns;		/* tqsim_dev's command latencies; 0 if absent */
	double submit_ns;		/* tqsim_dev's launch cost per command; 0 if absent */
	/* "concurrent SOURCE FORM COST"; absent: width fair 0, the rule before issue 44 */
	unsigned int share_src;		/* enum tqsim_share_src */
	unsigned int kshare;		/* tqsim_dev's, enum tqsim_kshare */
	double kcost;			/* tqsim_dev's */
};

/* Where parsing stopped and why. */
struct tqsim_parse_err {
	unsigned int line;
	char reason[96];
};

/* Parse @len bytes of profile text; 0, or -EINVAL with @err filled in. */
int tqsim_profile_parse(struct tqsim_profile *p, const char *text, size_t len,
		     struct tqsim_parse_err *err);
/* Standalone time of one transfer of @bytes in direction @s. */
double tqsim_profile_xfer_ns(const struct tqsim_profile *p, enum tqsim_stage s, double bytes);
/* Time of kernel @name on size @m, or -1 when the profile lacks it. */
double tqsim_profile_kernel_ns(const struct tqsim_profile *p, const char *name, double m);
/*
 * Width of kernel @name on size @m: its width line's points, interpolated
 * in log m and held at the ends; 1 (it fills the device) without one.
 */
double tqsim_profile_kernel_width(const struct tqsim_profile *p, const char *name, double m);
/* Its demand likewise, from its demand line; 1 without one. */
double tqsim_profile_kernel_demand(const struct tqsim_profile *p, const char *name, double m);
/* The share tqsim_tg.kwidth takes: its width or its demand, as the profile's rule says. */
double tqsim_profile_kernel_share(const struct tqsim_profile *p, const char *name, double m);
/*
 * The kernel queues the model favours for the profile's kernels
 * (Documentation/sim.md, "Kernel queues from the profile"): for kq = 1 ..
 * @max_kq, the mean makespan of TQSIM_KQ_TGS seeded TGs of @tg_tasks
 * kernel-only tasks, each a kernel of the profile at a size that takes
 * 0.1-10 ms (log-uniform), run in TG order, into @mean_ns[kq - 1]; the
 * fewest queues whose mean is TQSIM_KQ_GAIN under the best of fewer.
 * Returns that count, or -ENODATA when no kernel of the profile has the
 * shares its rule reads (the model cannot tell: every count is alike).
 */
#define TQSIM_KQ_TGS	64
#define TQSIM_KQ_GAIN	0.02
int tqsim_profile_kqueues(const struct tqsim_profile *p, unsigned int tg_tasks, unsigned int max_kq,
			  double *mean_ns);
/* dma, the slowdowns (alone / overlapped bandwidth) and the latencies; busy_until = 0. */
void tqsim_profile_to_dev(const struct tqsim_profile *p, struct tqsim_dev *dev);

/*
 * Where a branch and bound ran out of time, to go on from there with the
 * next TG of the same tasks: the prefix it was in (@path[0..depth-1]) and,
 * at each depth of it and below it (done[0..depth]), the tasks whose
 * subtrees it had finished there (bits).
 */
struct tqsim_bb_cursor {
	bool valid;			/* false: none */
	unsigned int depth;
	uint8_t path[TQSIM_MAX_TASKS];
	uint64_t done[TQSIM_MAX_TASKS];
};

/* A reinsertion cut short: the positions before @pos tried (0: none), the best at @at. */
struct tqsim_ins {
	uint8_t pos, at;
	double best;
};

/*
 * The swap descents that begin a walk, first from fifo's order (stage 0),
 * then from the best order found (1), done (2): the adjacent pair of the
 * walk's order to try next, and how many steps in a row found nothing.
 */
struct tqsim_descent {
	uint8_t stage, at, fails;
};

/*
 * Where iterated greedy's walk stood when its budget ended, to go on from
 * there with the next TG of the same tasks: the walk's order, and the
 * iteration under way (nd > 0): its order so far (len tasks) and the tasks
 * it removed that are still to go back in, removed[next..nd-1], the first
 * of them perhaps part-way in (@ins); and its descents (@descent).
 */
struct tqsim_walk {
	bool valid;			/* false: none */
	uint8_t nd, next, len;
	struct tqsim_ins ins;
	struct tqsim_descent descent;
	uint8_t cur[TQSIM_MAX_TASKS];
	uint8_t seq[TQSIM_MAX_TASKS];
	uint8_t removed[TQSIM_MAX_TASKS];
};

/*
 * auto's state between calls (sim/auto_resume.c), for a caller that orders
 * the same tasks TG after TG (usched's plans): the earlier search to go on
 * from, how large a TG it proves that way, and the clock reading its budget
 * counts from. Opaque: set it with the calls below and hand it to auto in
 * pb->state; the other policies ignore it. It refers to the order, cursor
 * and walk it is given, without a copy: they must stay until the call that
 * reads them.
 */
struct tqsim_auto_state;

/* A state that resumes nothing, as pb->state NULL; NULL without memory. */
struct tqsim_auto_state *tqsim_auto_state_create(void);
void tqsim_auto_state_destroy(struct tqsim_auto_state *st);
/* Back to as created: no order, cursor or walk, default proof bound, auto's own start. */
void tqsim_auto_state_clear(struct tqsim_auto_state *st);
/*
 * Go on from @order, an order of these same tasks found before (usched keeps
 * the best one per recurring mix), or NULL: none. auto goes on from it with
 * iterated greedy; with @optimal it was proven optimal then and comes back
 * as it is, after one simulation, claimed optimal now only where the
 * engines' load proves it (the tasks' predicted times may have moved a
 * little since). With @stale it was made for times that have since moved:
 * neh's order is computed too and the search goes on from the better.
 */
void tqsim_auto_resume(struct tqsim_auto_state *st, const uint8_t *order, bool optimal, bool stale);
/*
 * With an order to resume (not stale), where the branch and bound of that
 * search stopped (its decision's cursor), or NULL: auto goes on from there
 * instead of starting the proof over, so a small TG that no single budget
 * proves gets proven over a few TGs. The subtrees done then are not searched
 * again, so the times should not have moved much since (usched: within its
 * plans' drift).
 */
void tqsim_auto_resume_cursor(struct tqsim_auto_state *st, const struct tqsim_bb_cursor *cursor);
/*
 * With an order to resume, where iterated greedy's walk stood at the end of
 * that search (its decision's walk, valid or not), or NULL. Not NULL says
 * the caller keeps the walk from TG to TG: iterated greedy then goes on from
 * it (not stale), and an iteration may span TGs, so a TG whose budget fits
 * less than one still moves the walk on.
 */
void tqsim_auto_resume_walk(struct tqsim_auto_state *st, const struct tqsim_walk *walk);
/*
 * With an order to resume, prove TGs of up to @n tasks (branch and bound
 * from the cursor before iterated greedy), chains or not; 0: 6 without
 * chains, 8 with. A caller with more time than a TG's budget (usched's idle
 * time) proves larger TGs over a few calls.
 */
void tqsim_auto_prove_max(struct tqsim_auto_state *st, unsigned int n);
/*
 * The tqsim_clock_ns() (tq_now_ns()) reading auto's budget counts from; 0: its
 * own entry. A caller that spends time on the TG before the call (usched
 * looks up its plan) sets it, so that the whole choice keeps to the budget.
 */
void tqsim_auto_start(struct tqsim_auto_state *st, uint64_t start_ns);
/*
 * A cursor and a walk with each task index i as map[i] (i < n), for a caller
 * that keeps them across TGs whose tasks come in another order (usched's
 * plans keep them in a canonical order). An index out of range stays as it
 * is, for auto to ignore; a cursor or walk that makes no sense comes out
 * invalid.
 */
void tqsim_bb_cursor_map(struct tqsim_bb_cursor *to, const struct tqsim_bb_cursor *from,
		      const uint8_t *map, unsigned int n);
void tqsim_walk_map(struct tqsim_walk *to, const struct tqsim_walk *from, const uint8_t *map,
		 unsigned int n);

/*
 * Ordering policies. A decision is an order of all tasks of the TG, its
 * simulated makespan, and a lower bound on the best makespan of any order,
 * so every decision can be reported as within X% of the bound.
 */
struct tqsim_decision {
	uint8_t order[TQSIM_MAX_TASKS];
	double makespan;
	double lower_bound;
	bool optimal;			/* proven: lower_bound == makespan */
	uint64_t evals;			/* simulations and search nodes spent */
	/* auto: where its branch and bound stopped unfinished (tqsim_auto_resume_cursor()) */
	struct tqsim_bb_cursor cursor;
	/* auto: where its iterated greedy's walk stood at its end (tqsim_auto_resume_walk()) */
	struct tqsim_walk walk;
	/* flow (tqsim_flow_refine()): the order's flow cost, tqsim_flow_cost() */
	double flow;
};

/* The problem handed to a policy. */
struct tqsim_problem {
	const struct tqsim_tg *tg;
	const struct tqsim_dev *dev;
	double budget_ns;	/* auto, exact: time allowed; 0: 1% of the fifo makespan */
	/*
	 * auto: if > 0, the time allowed instead, as this fraction of the
	 * device time of its seed order (neh's, or the resume order): from
	 * its first command's start, so that engines still busy with earlier
	 * TGs do not count, to its makespan. The order auto returns is no
	 * longer, so its time stays about this fraction of the TG's device
	 * time, however much better than fifo the TG can be ordered.
	 */
	double budget_frac;
	uint64_t seed;		/* auto's iterated greedy */
	/* auto: where to go on from and when its budget began; NULL: afresh, from its entry */
	const struct tqsim_auto_state *state;
	/*
	 * flow (tqsim_flow_cost()): tasks waiting behind this TG, each held up
	 * by its makespan, and arrivals per ns expected while it runs; 0 and
	 * 0: the TG's own total flow time alone.
	 */
	double flow_behind;
	double flow_rate;
};

/*
 * Scratch memory for the policies: the TG collapsed to one command per
 * stage (same makespan, fewer events), the search state and its stacks.
 * Internal; the caller only provides one so that no decision allocates.
 */
struct tqsim_bb_child {
	double lb;
	uint8_t task;
};

/* A search node: when each engine can take the next task, bounds on the prefix. */
struct tqsim_bb_state {
	double h, k, d;		/* earliest start of the next HtD, K and DtH */
	double cmax;		/* the prefix ends no earlier */
	double dres;		/* DtH work of the prefix still to run at h */
};

struct tqsim_bb_node {
	struct tqsim_bb_state st;
	struct tqsim_prefix pf;	/* the prefix simulated (two engines, every task has HtD) */
};

struct tqsim_ws {
	struct tqsim_tg tg;
	double work[TQSIM_MAX_TASKS][TQSIM_STAGES];
	bool all[TQSIM_STAGES];		/* every task has the stage */
	bool bb_sim;			/* exact's nodes simulate their prefix */
	bool conc;			/* kernels run at once (kq > 1): no branch and bound */
	bool released;			/* some task has a release time or a predecessor */
	/*
	 * Per task that heads a chain: the lower-indexed heads of chains just
	 * like its own (branch and bound tries only the first); 0: none.
	 */
	uint64_t twins[TQSIM_MAX_TASKS];
	bool has_twins;
	uint8_t johnson[2][TQSIM_MAX_TASKS];	/* HtD-K and K-DtH orders */
	struct tqsim_sim_result res;
	double root_lb;			/* the root's bound, once root_valid */
	bool root_valid;
	struct tqsim_bb_child child[TQSIM_MAX_TASKS][TQSIM_MAX_TASKS];
	struct tqsim_bb_node node[TQSIM_MAX_TASKS + 1];
	struct tqsim_prefix_buf pbuf;
	uint8_t cur[TQSIM_MAX_TASKS];
	uint8_t seq[TQSIM_MAX_TASKS];
	uint8_t tmp[TQSIM_MAX_TASKS];
	uint8_t removed[TQSIM_MAX_TASKS];
	uint64_t bb_done[TQSIM_MAX_TASKS];	/* per depth of the prefix: children finished */
	const struct tqsim_bb_cursor *bb_resume;	/* still on the way down its path; NULL: not */
	struct tqsim_bb_cursor bb_stop;	/* where branch and bound ran out of time */
	uint64_t bb_min_evals;		/* nor before this while bb_end_ns is ahead */
	uint64_t bb_floor_evals;	/* it may not stop before (progress from a cursor) */
	uint64_t bb_end_ns;		/* the whole budget's end; 0: none */
	const struct tqsim_walk *walk_from;	/* iterated greedy goes on from it; NULL: not */
	bool walk_kept;			/* the caller keeps the walk: iterations span TGs */
	uint64_t deadline_ns;		/* 0: none */
	/*
	 * if > 0: stop this many evaluations' time before the deadline, at
	 * the mean time an evaluation took since pace_ns (pace_evals then)
	 */
	unsigned int tail_evals;
	uint64_t pace_ns, pace_evals;
	uint64_t evals;
	uint64_t rng;
	bool timed_out;
};

struct tqsim_policy_ops {
	const char *name;
	/* 0, or -EINVAL for an empty TG or a bad device */
	int (*order)(const struct tqsim_problem *pb, struct tqsim_ws *ws, struct tqsim_decision *d);
};

extern const struct tqsim_policy_ops tqsim_policy_fifo;
extern const struct tqsim_policy_ops tqsim_policy_paper;
extern const struct tqsim_policy_ops tqsim_policy_neh;
extern const struct tqsim_policy_ops tqsim_policy_exact;
extern const struct tqsim_policy_ops tqsim_policy_auto;
/* auto's order, then the order of least flow cost found in the same budget (flow.c) */
extern const struct tqsim_policy_ops tqsim_policy_flow;

/*
 * The latency objective (flow.c): the sum of the tasks' completion times
 * from t = 0, plus @behind times the makespan, plus @rate * makespan^2 / 2
 * (arrivals during the TG wait on average half of it); INFINITY for an
 * infeasible order. @res gets the simulation.
 */
double tqsim_flow_cost(const struct tqsim_tg *tg, const struct tqsim_dev *dev, const uint8_t *order,
		    unsigned int n, double behind, double rate, struct tqsim_sim_result *res);
/*
 * From d's order (a feasible one: a policy's decision), the order of least
 * flow cost under pb->flow_behind and pb->flow_rate that fifo's order,
 * adjacent swaps and insertion by ascending work find within pb's budget
 * (budget_ns, else budget_frac, else 1%, of d's makespan). Rewrites d's
 * order, makespan and flow; d's lower bound stays the makespan's. 0, or
 * -EINVAL for an empty TG, a bad device or weights.
 */
int tqsim_flow_refine(const struct tqsim_problem *pb, struct tqsim_sim_result *res, struct tqsim_decision *d);

/*
 * Quality of service (qos.c): each task's class (higher first; 0 is the
 * default, above 0 the latency classes), its deadline (ns from t = 0; 0:
 * none) and its weight in its class's objective (0: 1).
 */
#define TQSIM_QOS_EXACT_MAX	8	/* a latency class's tasks ordered by every order, up to */

struct tqsim_qos {
	int8_t prio[TQSIM_MAX_TASKS];
	double deadline[TQSIM_MAX_TASKS];
	double weight[TQSIM_MAX_TASKS];
};

/*
 * The order of classes first, highest first (a predecessor takes its
 * successor's class where that is higher), each class's tasks after the
 * higher ones': a latency class's for the least weighted completion time
 * (every order of up to TQSIM_QOS_EXACT_MAX tasks, within pb->budget_ns
 * if > 0; flow's refinement of @base's order beyond), the others by @base
 * on the engines the higher classes leave busy. Then, where the order
 * misses deadlines, earliest deadline (least laxity) first inside each
 * class if that misses fewer (tqsim_qos_edf()). With every task in one
 * class <= 0 and no deadline, @base's decision as it is. d->lower_bound is
 * 0 otherwise (it orders for another objective). 0, or -EINVAL for an
 * empty TG or a bad device. @res is scratch.
 */
int tqsim_qos_order(const struct tqsim_problem *pb, const struct tqsim_policy_ops *base,
		    const struct tqsim_qos *q, struct tqsim_ws *ws, struct tqsim_sim_result *res,
		    struct tqsim_decision *d);
/* sum weight_i * end_i over class @prio's tasks in @order; INFINITY if infeasible. */
double tqsim_qos_wct(const struct tqsim_tg *tg, const struct tqsim_dev *dev, const struct tqsim_qos *q,
		     int prio, const uint8_t *order, unsigned int n, struct tqsim_sim_result *res);
/* Tasks of @order that end after their deadline; n + 1 if infeasible. */
unsigned int tqsim_qos_misses(const struct tqsim_tg *tg, const struct tqsim_dev *dev,
			      const struct tqsim_qos *q, const uint8_t *order, unsigned int n,
			      struct tqsim_sim_result *res);
/*
 * If @order misses deadlines, the order with each run of one class sorted
 * earliest deadline first (least laxity: deadline less standalone work;
 * no deadline last; a task kept after its predecessor) replaces it where
 * it misses fewer. Returns the misses of the order kept.
 */
unsigned int tqsim_qos_edf(const struct tqsim_tg *tg, const struct tqsim_dev *dev,
			   const struct tqsim_qos *q, uint8_t *order, unsigned int n,
			   struct tqsim_sim_result *res);
/*
 * The earliest a task of these stage times can end on @dev (its engines'
 * busy_until in): the admission test's lower bound, ns from t = 0.
 */
double tqsim_qos_earliest(const struct tqsim_dev *dev, double htd_ns, double k_ns, double dth_ns,
			  struct tqsim_sim_result *res);

/*
 * The online model of usched's classes, deadlines and shares (stream.c):
 * tasks arriving over time, TGs formed as the core forms them (core.c, 10)
 * and ordered by tqsim_qos_order(), each launched when the engines' work
 * left drops to @lead_ns (at once on an idle device).
 */
#define TQSIM_STREAM_SHARES	16
#define TQSIM_STREAM_MAX	4096	/* tasks in one run */
#define TQSIM_PRIO_MIN		(-1)
#define TQSIM_PRIO_MAX		2
#define TQSIM_PRIOS		(TQSIM_PRIO_MAX - TQSIM_PRIO_MIN + 1)
/* a class is active while it has tasks waiting, or for this long after its last arrival */
#define TQSIM_PRIO_ACTIVE_NS	1e9

struct tqsim_stream_task {
	double arrive;			/* ns; the tasks come sorted by it */
	double ns[TQSIM_STAGES];	/* one command per stage; 0: none */
	int prio;			/* TQSIM_PRIO_MIN..TQSIM_PRIO_MAX */
	double deadline;		/* ns after its arrival; 0: none */
	unsigned int share;		/* its group, < TQSIM_STREAM_SHARES */
	/* results */
	double launch, end;		/* its TG's launch, its last command's end */
	unsigned int tg;		/* its TG, from 1; 0: refused */
	bool refused, late;
};

struct tqsim_stream {
	const struct tqsim_policy_ops *base;	/* NULL: auto */
	unsigned int max_tg;		/* 0: 8 */
	double ahead_ns;		/* lower-class work ahead per engine; 0: 2 ms */
	double lead_ns;			/* 0: 300 us */
	bool flag;			/* deadlines: run and flag (else refuse) */
	bool shares;			/* weigh groups (else round-robin over tasks) */
	double weight[TQSIM_STREAM_SHARES];	/* 0: 1 */
	/* results */
	unsigned int tgs;
	double busy[TQSIM_STREAM_SHARES];	/* standalone engine time run per group */
	double end;			/* the last command's end */
};

/*
 * Run @n tasks through the model on @dev (its busy_until ignored). 0, or
 * -EINVAL for a bad device, unsorted or bad tasks. @ws is scratch.
 */
int tqsim_stream_run(struct tqsim_stream *s, const struct tqsim_dev *dev,
		     struct tqsim_stream_task *t, unsigned int n, struct tqsim_ws *ws);

/* @p to the next permutation of its n entries in lexicographic order; false after the last. */
bool tqsim_next_perm(uint8_t *p, unsigned int n);

/* NULL-terminated list of all policies, and lookup by name. */
extern const struct tqsim_policy_ops *const tqsim_policies[];
const struct tqsim_policy_ops *tqsim_policy_find(const char *name);

/*
 * The one clock the library reads (policy budgets): tq_now_ns() of
 * <tq/clock.h>, CLOCK_MONOTONIC ns, the clock its callers read, behind a
 * function of the library's own so that a test can put its own in front.
 */
uint64_t tqsim_clock_ns(void);

#endif /* TQSIM_H */
