/* SPDX-License-Identifier: GPL-2.0 */
/*
 * internal.h - the scheduling core's private objects, shared by its files:
 * core.c (the loop, create and destroy), submit.c (submission), form.c (TG
 * formation), jit.c (the launch decision), complete.c (the completion path),
 * exec.c (OpenCL execution), objects.c (regions, programs, kernels),
 * model.c (the models), plans.c and trace.c.
 * Documentation/usched.md and the essay at the top of core.c explain them.
 */
#ifndef USCHED_INTERNAL_H
#define USCHED_INTERNAL_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <tq/clock.h>
#include <tq/list.h>

#include "sim/tqsim.h"
#include "usched.h"

#define TG_MAX_INFLIGHT	8	/* TGs launched and not finished, at most (core.c, 4) */
#define LEAD_MARGIN_NS	300000	/* the default lead time: this + twice a TG's host time */
#define LEAD_MAX_NS	5000000	/* ... at most */
#define AUTO_BUDGET	0.0009	/* auto's default time per TG, of its predicted device time */
/*
 * exact's, in auto's: a TG of up to 8 tasks is proved well within it, a TG
 * of 16 chained tasks cannot stall the loop for seconds
 * (Documentation/design/usched-core.md)
 */
#define EXACT_BUDGET	100
#define REFINE_DEFAULT	0.01	/* idle time for a TG's plan, of its predicted device time */
#define IDLE_SLICE_NS	50000	/* usched_idle(): the loop answers events within this */
#define IDLE_PROVE_MAX	8	/* tasks the idle time proves, chains or not */
#define JIT_WAIT	UINT64_MAX	/* jit_when(): no launch until something happens */
#define POLL_RETRY_NS	50000	/* poll_when(): a task due but not done is asked again after this, */
#define POLL_RETRY_MAX	5	/* doubled each time up to 2^5 times, then every 1.6 ms */
#define MAX_KQUEUES	8
#define CLEAR_END	UINT64_MAX	/* task.clear_to: up to the device buffer's end */
#define WATCH_TICK_MIN	1000000		/* the watchdog looks for a kernel's start every */
#define WATCH_TICK_MAX	100000000	/* limit / 8 ns, within these */
#define WATCH_COMPILE_GRACE_NS	30000000000ull	/* a launch not seen running: + 30 s */
#define MAX_CMDS	(2 * USCHED_MAX_BUFS + 1)
/* Classes, deadlines and shares (core.c, 10) */
#define PRIOS		(USCHED_PRIO_MAX - USCHED_PRIO_MIN + 1)
#define PRIO_AHEAD_NS	2000000		/* opts.prio_ahead_ms's default */
#define PRIO_ACTIVE_NS	((uint64_t)TQSIM_PRIO_ACTIVE_NS)	/* a class is active this long after a submission */

/*
 * An id is its slot + 1 in the low IDTAB_SLOT_BITS and the slot's generation
 * above. A cleared slot is taken again, so that a table (and each walk of
 * it) stays as long as the most objects alive at once, not all there ever
 * were; its generation moves on, so that a stale id names nothing (until
 * that slot was taken 4096 times more).
 */
#define IDTAB_SLOT_BITS	20
struct idtab {
	void **slot;
	uint16_t *gen;		/* each slot's generation */
	uint32_t n, cap;	/* slots in use or cleared, allocated */
	uint32_t nfree;		/* cleared slots below n */
};

struct domain;

/* Host memory registered with the device (CL_MEM_USE_HOST_PTR), in a domain's context. */
struct region {
	struct domain *dom;
	char *base;
	size_t len;
	uint32_t id;
	unsigned int refs;	/* 1 while registered, + 1 per task that uses it */
	cl_mem mem;
	char *map;		/* base as the device mapped it: copies use this */
};

/*
 * Kernel time T = eta * m + gamma, fitted by least squares over recent
 * runs with exponential forgetting (means and co-moments, so no
 * cancellation); before the sizes spread, a prior (model.c).
 */
#define KM_SIZES	8	/* sizes whose own times a kernel model keeps */

/* The runs of one size m of a kernel. */
struct kmodel_size {
	double m;
	double n;		/* runs, its first (dropped) included; 0: unused */
	double mean_t;		/* exponentially weighted */
	uint64_t used;		/* the kmodel's clock at its last run */
};

struct kmodel {
	double gamma0;		/* prior launch latency */
	double eta0;		/* prior rate; < 0: none */
	bool warm;		/* the first run was seen (and dropped) */
	double n;		/* runs seen */
	double mean_m, mean_t;
	double c_mm, c_mt;	/* weighted co-moments */
	struct kmodel_size size[KM_SIZES];
	uint64_t clock;		/* runs added */
};

/*
 * The copies' slowdown while the other direction runs (model.c, 9): the
 * last XM_SAMPLES ratios of a copy stage's measured time to its standalone
 * prediction, from stages that the other direction covered throughout.
 */
#define XM_SAMPLES	31
#define XM_MIN		8	/* samples before they replace the prior */
#define XM_MOVE		0.01	/* the factor follows their median past this */
/*
 * Shorter copies are not samples: their time is latency and the stamps'
 * jitter, not bandwidth (Documentation/design/usched-core.md).
 */
#define XM_MIN_NS	100000

struct xmodel {
	double slow;		/* the factor now: the profile's until XM_MIN samples */
	double ratio[XM_SAMPLES];
	unsigned int n, next;
};

/* A copy stage of a finished task as it ran: the copy model's input. */
struct tg_copy {
	uint64_t start, end;	/* host ns */
	double pred;		/* its standalone prediction, ns */
};

struct prog;
struct tqk_task;

/* Launch shapes a kernel remembers: a new one may be compiled first (core.c, 7). */
#define KERN_SHAPES	8

struct kern {
	uint32_t id;
	struct prog *prog;
	cl_kernel k;
	unsigned int nargs;
	uint8_t arg_kind[USCHED_MAX_ARGS];	/* enum usched_arg_kind each argument needs */
	bool builtin_known;	/* builtin was looked up (core.c, under u->lock) */
	/* the launch shapes it has had, most recent KERN_SHAPES (loop thread only) */
	uint64_t shape[KERN_SHAPES];
	unsigned int nshape;
	const struct tqk_task *builtin;	/* the built-in task whose kernel it is; NULL: none */
	struct kmodel model;	/* loop thread only */
	char name[64];
};

struct prog {
	uint32_t id;
	struct domain *dom;	/* built or loaded in its context: a part of the cache key */
	uint64_t hash;
	unsigned int regs;	/* registrations not yet dropped */
	unsigned int refs;	/* regs + tasks queued or running */
	char *src;		/* source, NUL, options, NUL: the cache key */
	size_t keylen;
	cl_program prog;	/* NULL: the build failed */
	char *log;		/* the failed build's log */
	unsigned int nkerns;
	struct kern **kerns;
};

/*
 * A fair-share group (core.c, 10): an explicit one (usched_task.share), or
 * an owner's own (share 0). Kept while it has tasks or a weight was set.
 */
struct share {
	struct list node;	/* in u->shares */
	uint64_t key;
	bool owner_group;	/* key is an owner id */
	bool weighted;		/* usched_share_set() named it */
	unsigned int weight;
	unsigned int ntasks;	/* submitted, not completed */
	unsigned int ready[PRIOS];	/* ready, per class */
	double vtime[PRIOS];	/* engine time run in each class over its weight, ns */
};

struct owner {
	struct list node;	/* in usched.owners, in round-robin order */
	uint64_t id;
	struct list ready[PRIOS];	/* tasks that may join a TG, per class, in submission order */
	struct list blocked;	/* ORDERED tasks waiting for their predecessor to join a TG */
	struct task *last;	/* latest task submitted, until it completes */
	unsigned int ntasks;	/* submitted, not completed */
};

struct tg;

struct task {
	struct list node;	/* owner ready/blocked, u->cancelled, or none */
	struct list admit_node;	/* u->admit until the admission test (core.c, 10) */
	struct share *share;
	bool late;		/* opts.deadline FLAG: the model said it could not make it */
	struct task *done_next;	/* the done stack */
	struct task *batch_next;	/* the loop's tasks completing in one usched_process() */
	struct usched *u;
	struct usched_task t;
	struct owner *owner;
	struct kern *kern;
	struct region *reg[USCHED_MAX_BUFS];
	struct task *after;	/* ORDERED: the task this one waits for, until it completes */
	struct task *next_ordered;	/* the task waiting for this one */
	bool blocked;		/* on owner->blocked (under u->lock) */
	bool taken;		/* taken into a TG (under u->lock) */
	bool pred_failed;	/* LINKED, taken, and its predecessor failed: -ECANCELED */
	bool polled;		/* completed by the loop's poll: its callback, when it comes, frees it */
	bool cb;		/* a callback is set on its last event (exec_launch()) */
	struct tg *tg;
	double pred[USCHED_STAGES];	/* predicted standalone ns per stage */
	double kwidth;		/* its kernel's share: width or demand (sim/tqsim.h's struct tqsim_tg) */
	/*
	 * its kernel's predicted standalone time over its predicted run time:
	 * < 1 where the model has it share the device with concurrent kernels
	 */
	double kshare;
	uint64_t pred_end;	/* predicted end of its last command, less u->drift */
	cl_mem dev[USCHED_MAX_BUFS];
	uint64_t dev_bytes[USCHED_MAX_BUFS];
	uint64_t cleared;	/* device bytes zeroed for it (exec.c, memory hygiene) */
	/* bytes [from, to) of each device buffer it may reach or copy back unwritten */
	uint64_t clear_from[USCHED_MAX_BUFS];
	uint64_t clear_to[USCHED_MAX_BUFS];	/* CLEAR_END: the buffer's end, slack included */
	cl_event ev[MAX_CMDS];
	uint8_t ev_stage[MAX_CMDS];
	unsigned int nev;
	unsigned int kq;	/* the kernel queue it ran on */
	unsigned int kev;	/* its kernel's index in ev[] + 1; 0: no kernel enqueued */
	uint64_t limit_ns;	/* its kernel's time limit; 0: none (core.c, 7) */
	uint64_t k_seen;	/* when the watchdog saw its kernel start; 0: not yet */
	bool k_running;		/* k_seen is when its kernel's event said CL_RUNNING */
	bool first;		/* its kernel's first launch of its shape (the driver may compile it) */
	int err;		/* launch error (-errno), before any callback */
	/* the trace's arrow through it (trace.c); valid while trace_gen is the trace's */
	uint64_t trace_flow;
	uint64_t trace_decided;	/* when its TG's order was chosen */
	uint32_t trace_tg_tid;	/* its TG's lane */
	uint32_t trace_gen;
	unsigned int fault_ev;	/* tests: ev[] index + 1 of a command failing fault_err; 0: none */
	cl_int fault_err;
	struct usched_completion c;
};

struct tg {
	uint64_t seq;
	int prio;		/* its tasks' class (core.c, 10) */
	struct domain *dom;	/* of all its tasks (core.c, 9) */
	unsigned int n, left;
	unsigned int inflight;	/* TGs in flight when it was launched */
	struct task *task[USCHED_MAX_TG];	/* in launch order */
	uint64_t bytes;		/* of its tasks' buffers */
	uint64_t launch_ns;
	unsigned int kq_base;	/* the kernel queue its first kernel goes to (exec_launch()) */
	double pred_ns;		/* predicted first start to last end */
	uint64_t policy_ns;
	uint64_t host_ns;	/* forming, ordering and launching it */
	uint64_t first_start, last_end;		/* measured */
	double behind;		/* flow: tasks left waiting when it was formed */
	double rate;		/* flow: arrivals per ns expected then */
	enum usched_plan plan;
	struct tg_copy copy[2][USCHED_MAX_TG];	/* [0] HtD, [1] DtH stages, as they ran */
	unsigned int ncopy[2];
	double pred_stage[USCHED_STAGES];	/* its tasks' c.pred_ns, summed */
	double busy_stage[USCHED_STAGES];	/* their c.busy_ns */
	unsigned int trace_lane;	/* its lane on the trace's TG track, */
	uint32_t trace_gen;	/* held in this trace (trace.c); 0: none */
};

/* A task as a plan knows it: what it runs and what it copies (plans.c). */
struct plan_task {
	uint32_t kern;
	uint32_t depth;		/* predecessors in the TG */
	uint64_t m;
	double htd, dth;	/* predicted copy times: fixed by the sizes */
};

/* A TG's mix of tasks, canonically ordered (plans.c). */
struct plan_key {
	unsigned int n;
	struct plan_task task[USCHED_MAX_TG];
	int8_t after[USCHED_MAX_TG];	/* its predecessor's canonical index, -1: none */
};

/* plans_find()'s result, for plans_keep(). */
struct plan_match {
	struct plan_key key;
	uint64_t hash;
	uint8_t canon[USCHED_MAX_TG];	/* canonical index -> TG index */
	uint8_t rank[USCHED_MAX_TG];	/* TG index -> canonical index */
	double k_ns[USCHED_MAX_TG];	/* each task's predicted kernel time, canonically */
	double slow[2];			/* the copy model's HtD, DtH slowdowns */
	struct plan *plan;		/* the mix's plan; NULL: none yet */
	bool stale;			/* found, but made for times since moved past 5% */
	struct tqsim_bb_cursor cursor;	/* where its proof stopped (TG indices); within drift */
	struct tqsim_walk walk;		/* where its iterated greedy's walk stood (TG indices) */
	uint8_t order[USCHED_MAX_TG];	/* its order (TG indices): plans_resume() */
};

/*
 * What the launch decision looks at (core.c, 4); times are host ns. The
 * decision is a function of these alone so that it can be tested alone.
 */
struct jit_in {
	uint64_t now;
	unsigned int inflight;	/* TGs in flight */
	uint64_t ready;		/* tasks that could join the next TG */
	unsigned int max_tg;
	uint64_t busy[USCHED_STAGES];	/* predicted engine ends of the work in flight */
	double first[USCHED_STAGES];	/* earliest start on each engine after a launch */
	uint64_t lead_ns;
	unsigned int kqueues;		/* kernel queues; with more than one, */
	uint64_t kq_busy[MAX_KQUEUES];	/* each one's predicted end (busy[K]: the latest) */
	/*
	 * a class above the next TG's is active: launch when every engine has
	 * prio_ahead left at most (not_before; 0: now), whatever jit_when() says
	 */
	bool throttled;
	uint64_t not_before;
};


/*
 * Fault injection (tests only; exec.c, "Device errors"): the @nth command of
 * @stage enqueued after exec_fault_arm(), counting from 1, fails with @err.
 */
enum exec_fault_mode {
	FAULT_ENQUEUE,	/* its enqueue returns err */
	FAULT_EVENT,	/* it runs; its event reports err once over */
	FAULT_LOST,	/* its enqueue, and every one after, returns err: a lost context */
};

struct exec_fault {
	enum usched_stage stage;
	unsigned int nth;	/* 0: none armed */
	cl_int err;
	enum exec_fault_mode mode;
	unsigned int seen;	/* commands of @stage since armed */
	bool fired;		/* FAULT_LOST fired */
};

/* Free device buffers kept for reuse, by size class. */
struct pool {
	struct pool_buf *free;
	uint64_t free_bytes, max_bytes;
};

/*
 * An OpenCL context on the core's device, its queues and its buffer pool
 * (core.c, 9). The shared domain lives as long as the core; an isolation
 * domain (its key not USCHED_SHARED) while a region or program of it does:
 * each holds a reference, and a task holds its regions and program.
 */
struct domain {
	struct list node;	/* in u->domains; the shared one: none */
	uint64_t key;
	unsigned int refs;	/* under u->lock */
	cl_context ctx;
	cl_command_queue q[USCHED_STAGES];	/* [HTD], [DTH]; [K] unused */
	cl_command_queue kq[MAX_KQUEUES];
	cl_command_queue mq;	/* maps and unmaps, so they never wait behind copies */
	struct pool pool;	/* loop thread only */
};

struct trace;
struct owner_name;
#define OWNER_NAME_HASH	64

struct usched {
	pthread_mutex_t lock;	/* everything up to "loop thread only" */
	struct list owners;
	struct list cancelled;	/* cancelled tasks the loop has yet to complete */
	uint64_t nwaiting;	/* ready + blocked, all owners */
	uint64_t nready;	/* ready, all owners */
	uint64_t nready_prio[PRIOS];	/* ready, per class (core.c, 10) */
	uint64_t live_prio[PRIOS];	/* submitted and not completed, per class */
	uint64_t last_prio[PRIOS];	/* the class's last submission (host ns); 0: none */
	struct list admit;	/* tasks with a deadline not yet through admission */
	struct list shares;	/* fair-share groups */
	bool shares_on;		/* a task named a share or a weight was set: groups are weighed */
	double vclock[PRIOS];	/* per class: the virtual time of the group served last */
	uint64_t arr_last;	/* the last submission (host ns) */
	double arr_gap;		/* submissions' mean gap, smoothed (ns); 0: none yet */
	struct idtab regions, progs, kerns;
	struct list domains;	/* the isolation domains open */
	bool closing;
	struct usched_stats st;
	pthread_mutex_t build_lock;	/* one program build at a time */
	pthread_mutex_t domain_lock;	/* one domain opened at a time */

	/* set up by usched_create(), read-only afterwards */
	struct usched_opts o;
	char *policy_name;
	const struct tqsim_policy_ops *policy;
	bool flow;		/* the flow policy: latency-aware formation and order (core.c, 4) */
	cl_platform_id platform;
	cl_device_id device;
	struct domain shared;
	uint64_t max_alloc, global_mem, tg_bytes, inflight_max;	/* bytes */
	double budget;		/* auto's, of a TG's predicted makespan */
	uint64_t ahead_ns;	/* opts.prio_ahead_ms (core.c, 10) */
	double refine;		/* idle time for a plan, of its TG's predicted device time */
	struct tqsim_profile prof;
	int64_t clock_off;	/* host CLOCK_MONOTONIC ns - device ns */
	int efd;		/* submissions, completions */
	int tfd;		/* the launch timer */
	int epfd;		/* both: usched_fd() */
	pthread_t thread;
	bool threaded;

	/* written by OpenCL callbacks, drained by the loop */
	_Atomic(struct task *) done;
	atomic_uint callbacks;	/* task callbacks running now */
	/* tests only: park callbacks here, so that tasks complete by polling alone */
	atomic_bool hold_callbacks;
	_Atomic(struct task *) held;

	/* loop thread only */
	struct tqsim_dev dev;	/* slow[] follows xm[] */
	struct xmodel xm[2];	/* [0] HtD, [1] DtH */
	struct tg *inflight[TG_MAX_INFLIGHT];	/* in launch order */
	unsigned int awaiting;	/* tasks completed by polling whose callback has not come */
	unsigned int poll_misses;	/* polls in a row that found tasks due, none done */
	unsigned int ninflight;
	unsigned int limited;	/* tasks launched and not collected that have a time limit */
	uint64_t watch_at;	/* when the watchdog looks next; JIT_WAIT: nothing to watch */
	bool wedging;		/* a kernel overran its limit: usched_process() wedges the core */
	bool lost;		/* the device (or its context) is lost: wedging too */
	struct exec_fault fault;	/* tests only */
	uint64_t inflight_bytes;
	uint64_t timer_at;	/* when the timer is set to fire; JIT_WAIT: not set */
	double host_ns;		/* a TG's host time, smoothed */
	uint64_t tg_seq;
	uint64_t busy_abs[USCHED_STAGES];	/* predicted engine ends, host ns, less drift */
	uint64_t kq_busy_abs[MAX_KQUEUES];	/* likewise per kernel queue */
	int64_t drift;		/* how late the last task completed against its prediction */
	struct tqsim_tg simtg;
	struct tqsim_tg jit_tg;	/* flow: the tasks the next TG would take (jit_gather()) */
	struct tqsim_ws *ws;
	struct tqsim_auto_state *auto_state;	/* auto's start and plan (tg_order()) */
	struct tqsim_sim_result *res;
	struct plans *plans;	/* NULL: o.no_plans */
	struct plan_match *match;

	/* the trace (trace.c): any thread, under trace_lock */
	pthread_mutex_t trace_lock;
	struct trace *trace;	/* NULL: off */
	uint32_t trace_gen;	/* traces started */
	struct owner_name *owner_names[OWNER_NAME_HASH];
};

/* plans.c: auto's best order per recurring mix of tasks, on the loop thread */
struct plans *plans_create(void);
void plans_destroy(struct plans *p);
/*
 * The plan of the TG of @tasks, whose chains are in @tg, under the copy
 * model's @slow[0] (HtD) and @slow[1] (DtH): its order into @resume (TG
 * indices) and whether it was proven (m->stale: whether the times moved too
 * far since for it alone to be a good start; m->cursor: where its unfinished
 * proof stopped, if the times moved no more than for a proven order;
 * m->walk: where its iterated greedy's walk stood); false: none.
 */
bool plans_find(struct plans *p, struct task *const *tasks, const struct tqsim_tg *tg,
		const double *slow, struct plan_match *m, uint8_t *resume, bool *optimal);
/*
 * plans_find() for auto: set @st to go on from the plan's order, proof and
 * walk (kept in @m); false, @st untouched: none.
 */
bool plans_resume(struct plans *p, struct task *const *tasks, const struct tqsim_tg *tg,
		  const double *slow, struct plan_match *m, struct tqsim_auto_state *st,
		  bool *optimal);
/*
 * Keep @d, auto's decision for the TG plans_find() matched into @m, TG
 * number @seq; @proven: d's order is optimal (proven now or before).
 */
void plans_keep(struct plans *p, struct plan_match *m, const struct tqsim_decision *d,
		bool proven, uint64_t seq);
/*
 * Keep TG @seq's problem (@tg on the idle @dev) and auto's decision @d for
 * it, whose plan plans_keep() just kept from @m, for plans_refine() to go
 * on with, for @allowed_ns in all; 0 leaves nothing to go on with.
 */
void plans_arm(struct plans *p, const struct plan_match *m, const struct tqsim_tg *tg,
	       const struct tqsim_dev *dev, const struct tqsim_decision *d, uint64_t seq,
	       uint64_t allowed_ns);
/*
 * Go on with the armed plan's search for at most @slice_ns, in @ws, and
 * keep what it finds in the plan. Returns the ns spent (at least 1), 0 if
 * nothing is armed: none, proven, or its time spent.
 */
uint64_t plans_refine(struct plans *p, struct tqsim_ws *ws, uint64_t slice_ns);

/* Phase p of usched_create() began at since and ends now: its time noted; now. */
static inline uint64_t start_phase(struct usched *u, enum usched_start_phase p, uint64_t since)
{
	uint64_t now = tq_now_ns();

	u->st.start_ns[p] = now - since;
	return now;
}

/* The loop's eventfd: the loop has work (an OpenCL callback's task, a submission). */
static inline void wake(struct usched *u)
{
	eventfd_write(u->efd, 1);
}

/* submit.c: under u->lock */
/* Drop what a task holds. */
void task_unref(struct usched *u, struct task *t);
/* Make @t's ordered successor ready, if it waits for @t. */
void task_drop(struct usched *u, struct task *t, int status);
void task_unblock(struct usched *u, struct task *t);
/* Put @t on (take it off) its owner's ready list of its class, counted (3, 10). */
void ready_add(struct usched *u, struct task *t);
void ready_del(struct usched *u, struct task *t);
/* The class index of t (0 .. PRIOS - 1). */
static inline unsigned int task_prio(const struct task *t)
{
	return (unsigned int)(t->t.prio - USCHED_PRIO_MIN);
}
/* The highest class with a task ready, as an index; -1: none. */
int ready_top(const struct usched *u);
/* Whether a class above index @c is active at @now (core.c, 10). */
bool prio_above_active(const struct usched *u, unsigned int c, uint64_t now);

/* form.c: the loop thread */
/* The admission test of the tasks with a deadline submitted since the last (10); under u->lock. */
void tg_admit(struct usched *u);
/*
 * Take the next TG's tasks into @tasks, within @limit bytes (their sum in
 * @bytes); under u->lock. Returns how many.
 */
unsigned int tg_form(struct usched *u, struct task **tasks, uint64_t limit, uint64_t *bytes);
/* Order the TG's @tasks into tg->task[] with the policy, and predict its times. */
void tg_order(struct usched *u, struct tg *tg, struct task **tasks);

/* jit.c */
/* jit_when()'s inputs, and flow's candidates in u->jit_tg; under u->lock. */
void jit_gather(struct usched *u, struct jit_in *in);
/*
 * The kernel queues' predicted ends @busy into @d relative to @at, the
 * queue free first as the model's queue 0; returns that queue.
 */
unsigned int kq_place(const uint64_t *busy, unsigned int nq, uint64_t at, struct tqsim_dev *d);
/* When to launch the next TG: 0 now, JIT_WAIT not before an event, else at that time. */
uint64_t jit_when(const struct jit_in *in);
/*
 * The flow policy's launch decision: as jit_when() on an idle device, a
 * full TG, the in-flight cap or nothing ready; otherwise lead time before
 * the latest launch at which none of @tg's tasks (the next TG's, in fifo
 * order) would end later than if launched now, by the model on @dev with
 * in->busy (and with kernel queues, in->kq_busy) as its engines' busy-until.
 * @res is scratch.
 */
uint64_t jit_when_flow(const struct jit_in *in, const struct tqsim_tg *tg, const struct tqsim_dev *dev,
		       struct tqsim_sim_result *res);

/* complete.c: the loop thread */
/* A launched task is back: timestamps, buffers, its TG's accounting. */
void task_collect(struct usched *u, struct task *t);
/* Append the tasks polling finds done to the batch at *@tail, collected. */
void poll_done(struct usched *u, struct task **tail);
/* When poll_done() should look next; JIT_WAIT: nothing to poll. */
uint64_t poll_when(struct usched *u);
/*
 * The watchdog: append the tasks whose kernel overran its limit to the
 * batch at *@tail, collected with -ETIME; returns the batch's new tail.
 */
struct task **watch_limits(struct usched *u, struct task **tail);
/* Release the batch @list and the cancelled tasks, and run their callbacks. */
void batch_deliver(struct usched *u, struct task *list);
/* Tests only: let the callbacks parked while u->hold_callbacks was set through. */
void callbacks_release(struct usched *u);

/* objects.c: all under u->lock unless said otherwise */
uint32_t idtab_add(struct idtab *t, void *p);
void *idtab_get(const struct idtab *t, uint32_t id);
void idtab_clear(struct idtab *t, uint32_t id);
struct region *region_find(struct usched *u, const struct domain *dom, const void *p,
			   uint64_t len, int *err);
void region_put(struct usched *u, struct region *r);
struct kern *kern_get(struct usched *u, uint32_t id);	/* takes a program ref */
void prog_put(struct usched *u, struct prog *p);
/* The task's domain: its kernel's program's. */
static inline struct domain *task_domain(const struct task *t)
{
	return t->kern->prog->dom;
}
void objects_free(struct usched *u);

/* exec.c: the loop thread, but for the domains */
int exec_init(struct usched *u);
void exec_fini(struct usched *u);
/*
 * The domain of @key with a reference, opened if need be (any thread,
 * without u->lock); domain_put() drops one (under u->lock) and closes an
 * isolation domain at the last.
 */
int domain_get(struct usched *u, uint64_t key, struct domain **out);
void domain_put(struct usched *u, struct domain *dom);
/* The domain of @key with a reference, if it is open; under u->lock. */
struct domain *domain_find(struct usched *u, uint64_t key);
int exec_launch(struct usched *u, struct tg *tg);
void exec_collect(struct usched *u, struct task *t);
/* The callback of a task exec_collect() took by polling came: drop its last event. */
void exec_callback_came(struct task *t);
/* The execution status of t's command e; CL_SUBMITTED if its event cannot say. */
cl_int exec_cmd_status(const struct task *t, unsigned int e);
/* Tests: arm fault f (before submitting the tasks it is to hit); one at a time. */
void exec_fault_arm(struct usched *u, const struct exec_fault *f);
int exec_wait(cl_event ev);
int cl_errno(cl_int err, int fallback);

/* model.c */
void kmodel_init(struct kmodel *km, const struct tqsim_profile *p, const char *name);
void kmodel_add(struct kmodel *km, double m, double ns);
void kmodel_params(const struct kmodel *km, double *eta, double *gamma);
double kmodel_predict(const struct kmodel *km, double m);
void xmodel_init(struct xmodel *xm, double prior);
/*
 * Learn from copies @c of one direction that @o, the other's, may cover;
 * xm->slow becomes the samples' median (>= 1) when that moved past XM_MOVE.
 */
void xmodel_learn(struct xmodel *xm, const struct tg_copy *c, unsigned int nc,
		  const struct tg_copy *o, unsigned int no);
int model_init(struct usched *u);
void model_predict(struct usched *u, struct task *t);

/* trace.c: the loop thread, each a no-op while no trace is on */
/* A TG just launched: its predicted commands, its policy's time, its tasks' arrows. */
void trace_tg_launch(struct usched *u, struct tg *tg, struct task *const *tasks);
/* Command @e of a task being collected ran from @start to @end (host ns). */
void trace_cmd(struct usched *u, const struct task *t, unsigned int e, unsigned int cmd,
	       uint64_t start, uint64_t end);
/* A TG's last task was collected. */
void trace_tg_done(struct usched *u, const struct tg *tg);
/* A task's completion is being delivered at @now. */
void trace_task_done(struct usched *u, const struct task *t, uint64_t now);
/* The end of a usched_process(): what it wrote, readable. */
void trace_flush(struct usched *u);
/* usched_destroy(): stop the trace, forget the owners' names. */
void trace_fini(struct usched *u);
/* usched_stats()'s trace fields; any thread. */
void trace_stats(struct usched *u, struct usched_stats *s);

#endif /* USCHED_INTERNAL_H */
