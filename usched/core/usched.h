/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * usched.h - tq's scheduling core: tasks from many owners (processes or
 * threads) grouped into task groups (TGs), each TG ordered by a sim/ policy
 * and run on one OpenCL device with copies overlapped with kernels.
 *
 * The daemon (usched/daemon/usched.c) feeds it from /dev/tqsubmit; a process can
 * also use it directly (the in-process path) with usched_start()'s thread:
 *
 *	struct usched_opts o = { .complete = done, .complete_arg = me };
 *	struct usched *u;
 *
 *	usched_create(&o, &u);
 *	usched_start(u);
 *	usched_region_add(u, USCHED_SHARED, arena, arena_bytes, &region);
 *	usched_prog_builtin(u, USCHED_SHARED, "VA", &prog);
 *	usched_kernel_get(u, prog, "vec_add", &kernel);
 *	... fill a struct usched_task whose buffers lie in the arena ...
 *	usched_submit(u, &task);	from any thread
 *	... done(me, &completion) runs once per task, on the core's thread ...
 *	usched_destroy(u);		runs what was submitted, then frees all
 *
 * A daemon instead polls usched_fd() and calls usched_process() when it is
 * readable. Documentation/usched.md describes the design.
 *
 * Functions return 0 or a negative errno. Every function but
 * usched_process() may be called from any thread.
 */
#ifndef USCHED_H
#define USCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define USCHED_MAX_BUFS		8
#define USCHED_MAX_ARGS		16
#define USCHED_MAX_SCALAR	8	/* bytes of one by-value argument */
#define USCHED_MAX_TG		64	/* the largest max_tg */
#define USCHED_OWNER_ALL	UINT64_MAX	/* usched_cancel(): every owner */

struct usched;

/* The three stages of a task, and the engines that run them. */
enum usched_stage {
	USCHED_HTD,
	USCHED_K,
	USCHED_DTH,
	USCHED_STAGES
};

/**
 * struct usched_completion - what usched_opts.complete gets, once per task
 * @user_data: the task's user_data
 * @owner: the task's owner
 * @status: 0; -ECANCELED (usched_cancel(), not yet run when the core was
 *	wedged, or a USCHED_TASK_LINKED task whose predecessor failed);
 *	-ENOMEM (device or host memory: CL_MEM_OBJECT_ALLOCATION_FAILURE,
 *	CL_OUT_OF_HOST_MEMORY, or CL_OUT_OF_RESOURCES from an enqueue while
 *	the context still takes commands); -EINVAL (the device refused the
 *	launch: an enqueue's CL_INVALID_*, argument types, work sizes); -EIO
 *	(a command failed, on the device or at its enqueue, with another
 *	error); -ENODEV (CL_OUT_OF_RESOURCES or CL_DEVICE_NOT_AVAILABLE on the
 *	device, or from an enqueue after which the context takes no command:
 *	the device is lost and the core wedged, see usched_opts.wedged);
 *	-ETIME (its kernel ran past its time limit: the core is wedged);
 *	-EOWNERDEAD (in flight when the core was wedged: it may have run in
 *	part)
 * @cl_error: the OpenCL error of the command that failed it (-ENOMEM,
 *	-EINVAL, -EIO, -ENODEV); 0: none
 * @cl_stage: that command's stage (enum usched_stage)
 * @flags: USCHED_DONE_*
 * @tg: sequence number (from 1) of the TG the task ran in; 0 if it did not
 * @queued_ns: when the task was submitted (CLOCK_MONOTONIC ns)
 * @start_ns: when its first command started (CLOCK_MONOTONIC ns; 0 if none)
 * @end_ns: when its last command ended
 * @stage_start: per stage, the first command's start (0 for an absent stage)
 * @stage_end: per stage, the last command's end
 * @kernel: the task's usched_task.kernel
 * @m: the size its kernel model took (usched_task.m, or its default)
 * @pred_ns: per stage, its commands' time in the model's schedule of the TG
 *	(overlapped copies slowed as the model slows them); 0 if it ran in no TG
 * @busy_ns: per stage, its commands' time as measured (end - start, summed)
 */
struct usched_completion {
	uint64_t user_data;
	uint64_t owner;
	int status;
	uint64_t tg;
	uint64_t queued_ns;
	uint64_t start_ns;
	uint64_t end_ns;
	uint64_t stage_start[USCHED_STAGES];
	uint64_t stage_end[USCHED_STAGES];
	uint32_t kernel;
	uint64_t m;
	double pred_ns[USCHED_STAGES];
	uint64_t busy_ns[USCHED_STAGES];
	int32_t cl_error;
	uint32_t cl_stage;
	uint32_t flags;
};

/* Called on the core's thread (usched_process()'s caller); may submit. */
typedef void (*usched_complete_fn)(void *arg, const struct usched_completion *c);

/* How auto used a plan, the best order kept for the TG's mix (usched/core/plans.c). */
enum usched_plan {
	USCHED_PLAN_NONE,	/* no plan: ordered afresh, or not auto */
	USCHED_PLAN_RESUMED,	/* the search went on from the plan's order */
	USCHED_PLAN_PROVEN,	/* the plan's order, proven optimal before */
	USCHED_PLANS		/* how many */
};

/*
 * One finished TG; makespans run from its first command's start to its
 * last's end. Times are CLOCK_MONOTONIC ns.
 */
struct usched_tg_stat {
	uint64_t seq;
	uint32_t ntasks;
	uint32_t inflight;	/* TGs already in flight when it was launched */
	double predicted_ns;	/* by the model, for the order the policy chose */
	double measured_ns;	/* from the device's profiling timestamps */
	uint64_t policy_ns;	/* time the policy took to choose the order */
	uint64_t host_ns;	/* forming, ordering and launching it, policy included */
	uint64_t launch_ns;	/* when it was launched */
	uint64_t start_ns;	/* its first command's start (0: none ran) */
	uint64_t end_ns;	/* its last command's end */
	uint32_t plan;		/* an enum usched_plan */
	/*
	 * Per stage, over its tasks: their commands' time in the model's
	 * schedule (usched_completion.pred_ns) and as measured (busy_ns).
	 */
	double pred_stage_ns[USCHED_STAGES];
	double busy_stage_ns[USCHED_STAGES];
};

/* Called on the core's thread once per finished TG, before its tasks' completions. */
typedef void (*usched_tg_fn)(void *arg, const struct usched_tg_stat *s);

/* A task about to reach the device (usched_opts.started). */
struct usched_start {
	uint64_t owner;
	uint64_t user_data;
};

/*
 * Called on the core's thread with a TG's @n tasks just before the core
 * enqueues the first of their commands; when it returns they go to the
 * device. A daemon records there that they may have run (TQ_COMPL_F_STARTED).
 */
typedef void (*usched_started_fn)(void *arg, const struct usched_start *t, unsigned int n);

/*
 * Called on the core's thread once, when a kernel ran past its time limit
 * or the device was lost, after that task's -ETIME or -ENODEV completion
 * and before any other task's. OpenCL cannot stop a running kernel, nor
 * use a lost context again: the device is lost to this process until its
 * OpenCL context goes, which only the process's end does for certain.
 * A daemon re-executes itself here. When it returns (or without one) the
 * core completes the other tasks in flight with -EOWNERDEAD and those
 * waiting with -ECANCELED, and refuses new ones (-ENOTRECOVERABLE).
 */
typedef void (*usched_wedged_fn)(void *arg);

/*
 * A transfer calibration kept across starts (a daemon's cache), for the
 * device that usched_device_key() names @key: load fills *@p and returns 0
 * to use it instead of measuring; save keeps one just measured.
 */
struct tqsim_profile;
typedef int (*usched_calib_load_fn)(void *arg, const char *key, struct tqsim_profile *p);
typedef void (*usched_calib_save_fn)(void *arg, const char *key, const struct tqsim_profile *p);

/**
 * struct usched_opts - usched_create()'s options; zero means the default
 * @platform: platform by index ("1") or name substring (case-insensitive);
 *	NULL: every platform
 * @device: device by index within the platforms chosen, or name substring;
 *	NULL: the first
 * @policy: a sim/ ordering policy (fifo, paper, neh, exact, auto, flow: the
 *	latency-aware one, its own TG formation too, core.c 4); NULL: auto
 * @max_tg: most tasks in one TG, 1..USCHED_MAX_TG; 0: 8
 * @kqueues: kernel queues, 1..8; 0: 1
 * @dma: copy engines: 1 or 2; 0: the profile's, else a startup probe
 * @profile: device profile file (sim/'s "tq-profile 1" format) for the
 *	transfer model and kernel priors; NULL: calibrate transfers at startup
 * @trace: trace there from the start, as usched_trace_start() would; NULL: none
 * @complete: completion callback
 * @complete_arg: its first argument
 * @lead_us: launch the next TG this long before the device would run out
 *	of work; 0: 300 us plus twice the measured host time of a TG's launch
 * @budget: auto's time per TG as a fraction of the TG's predicted
 *	device time, at every TG size, the plan's lookup included; 0: 0.0009
 *	(a tenth under 0.1% for the rest of the choice and the host's jitter)
 * @tg_done: per-TG callback (every finished TG); NULL: none
 * @tg_arg: its first argument
 * @no_plans: auto orders every TG afresh, not from the best order found
 *	for the same mix of tasks before (usched/core/plans.c)
 * @refine: the loop's idle time (usched_idle()) that the plan of a TG may
 *	take while the device runs it, as a fraction of the TG's predicted
 *	device time; 0: 0.01
 * @no_refine: the loop's idle time is not used for plans
 * @no_poll: a task completes when its OpenCL callback comes, not when the
 *	loop finds its last command done at its predicted end (core.c, 5;
 *	for measuring what polling gains)
 * @no_clear: device buffers go from one owner's task to another's as the
 *	last left them (exec.c, memory hygiene): for measuring what clearing
 *	costs only, never with owners that do not trust each other
 * @time_limit_ns: the longest a task's kernel may run when its own
 *	time_limit_ns is 0; 0: no limit (core.c, 7: the watchdog)
 * @started: the TG's tasks just before they reach the device; NULL: none
 * @started_arg: its first argument
 * @wedged: a kernel overran its limit or the device was lost; NULL: none
 * @wedged_arg: its first argument
 * @calib_load: with no @profile, asked for a kept calibration before
 *	measuring one; NULL: always measure
 * @calib_save: given the calibration just measured; NULL: none
 * @calib_arg: their first argument
 * @prio_ahead_ms: the predicted device time of lower-class work the core
 *	enqueues ahead of the highest class waiting, per engine (core.c, 10);
 *	0: 2 ms
 * @deadline: an enum usched_deadline
 * @trace_max: @trace's bound in bytes; 0: USCHED_TRACE_MAX
 *
 * The strings are read by usched_create() only.
 */
struct usched_opts {
	const char *platform;
	const char *device;
	const char *policy;
	unsigned int max_tg;
	unsigned int kqueues;
	unsigned int dma;
	const char *profile;
	const char *trace;
	usched_complete_fn complete;
	void *complete_arg;
	unsigned int lead_us;
	double budget;
	usched_tg_fn tg_done;
	void *tg_arg;
	bool no_plans;
	double refine;
	bool no_refine;
	bool no_poll;
	bool no_clear;
	uint64_t time_limit_ns;
	usched_started_fn started;
	void *started_arg;
	usched_wedged_fn wedged;
	void *wedged_arg;
	usched_calib_load_fn calib_load;
	usched_calib_save_fn calib_save;
	void *calib_arg;
	double prio_ahead_ms;
	unsigned int deadline;
	uint64_t trace_max;
};

/* Which copies surround the kernel, as in the uapi's enum tq_dir. */
enum usched_dir {
	USCHED_IN = 1,		/* host to device before the kernel */
	USCHED_OUT = 2,		/* device to host after it */
	USCHED_INOUT = 3,	/* both */
	USCHED_SCRATCH = 4,	/* device memory only */
};

/**
 * struct usched_buf - one buffer of a task
 * @host: inside a region registered with usched_region_add(); unused for
 *	USCHED_SCRATCH. The host bytes must stay put until the task completes.
 * @len: bytes, at least 1
 * @dir: an enum usched_dir
 */
struct usched_buf {
	void *host;
	uint64_t len;
	uint32_t dir;
};

enum usched_arg_kind {
	USCHED_ARG_BUF = 1,	/* a __global buffer: buf indexes usched_task.buf[] */
	USCHED_ARG_SCALAR = 2,	/* by value: the first size bytes of val */
};

struct usched_arg {
	uint32_t kind;
	uint32_t buf;
	uint32_t size;
	unsigned char val[USCHED_MAX_SCALAR];
};

/* usched_task.flags */
#define USCHED_TASK_ORDERED	(1u << 0)	/* start after the owner's previous task ends */
/* With ORDERED: if that task fails, complete with -ECANCELED instead of running. */
#define USCHED_TASK_LINKED	(1u << 1)
/* The trace names the task trace_id, not user_data (a daemon's client's own id). */
#define USCHED_TASK_TRACE_ID	(1u << 2)

/**
 * struct usched_task - one task: HtD copies, one kernel, DtH copies
 * @owner: the submitter (a process's context id, a thread); TGs are filled
 *	round-robin over owners
 * @user_data: returned in the completion
 * @queued_ns: CLOCK_MONOTONIC ns it was queued by its submitter; 0: now
 * @m: the kernel model's size (T = eta * m + gamma); 0: a built-in kernel's
 *	(kernels/) size as its plan has it, any other kernel's the product of
 *	global[]
 * @kernel: from usched_kernel_get()
 * @flags: USCHED_TASK_*
 * @dim: work dimensions, 1..3
 * @global: global work size per dimension
 * @local: work-group size per dimension; all zero: the driver chooses
 * @nbufs: used entries of @buf
 * @nargs: used entries of @arg: kernel argument i is @arg[i]
 * @time_limit_ns: the longest the kernel may run before the task fails with
 *	-ETIME; 0: opts.time_limit_ns
 * @prio: its class, an enum usched_prio: higher classes go first (core.c,
 *	10); 0 (USCHED_PRIO_NORMAL) for a task that names none
 * @deadline_ns: CLOCK_MONOTONIC ns by which it should complete; 0: none
 *	(opts.deadline says what happens to one that cannot make it)
 * @share: the fair-share group its engine time counts to (a uid, a
 *	cgroup id: usched_share_set() weighs it); 0: its owner, weight 1
 * @trace_id: with USCHED_TASK_TRACE_ID, the id the trace gives it
 */
struct usched_task {
	uint64_t owner;
	uint64_t user_data;
	uint64_t queued_ns;
	uint64_t m;
	uint32_t kernel;
	uint32_t flags;
	uint32_t dim;
	uint32_t nbufs;
	uint32_t nargs;
	size_t global[3];
	size_t local[3];
	struct usched_buf buf[USCHED_MAX_BUFS];
	struct usched_arg arg[USCHED_MAX_ARGS];
	uint64_t time_limit_ns;
	int32_t prio;
	uint64_t deadline_ns;
	uint64_t share;
	uint64_t trace_id;
};

/* usched_task.prio: the classes, lowest to highest; 0 is the default. */
enum usched_prio {
	USCHED_PRIO_BACKGROUND = -1,	/* only what no other class wants */
	USCHED_PRIO_NORMAL = 0,
	USCHED_PRIO_HIGH = 1,
	USCHED_PRIO_CRITICAL = 2,	/* latency-critical: the top class */
};
#define USCHED_PRIO_MIN		USCHED_PRIO_BACKGROUND
#define USCHED_PRIO_MAX		USCHED_PRIO_CRITICAL

/* usched_opts.deadline: a task whose deadline the model says it cannot make */
enum usched_deadline {
	USCHED_DEADLINE_REFUSE = 0,	/* completes at once with -ETIMEDOUT, never runs */
	USCHED_DEADLINE_FLAG = 1,	/* runs; its completion says USCHED_DONE_LATE */
};

/* usched_completion.flags */
#define USCHED_DONE_LATE	(1u << 0)	/* it had a deadline and completed after it */

/* What usched_create() spent its time on (usched_stats.start_ns). */
enum usched_start_phase {
	USCHED_START_DEVICE,	/* the OpenCL platform and device opened, the context */
	USCHED_START_QUEUES,
	USCHED_START_CLOCK,	/* the device clock's offset to the host's */
	USCHED_START_CALIB,	/* the transfer model: a profile read, a kept one, or measured */
	USCHED_START_PHASES
};
const char *usched_start_phase_name(unsigned int phase);

/* Where the transfer model came from (usched_stats.calib). */
enum usched_calib { USCHED_CALIB_PROFILE, USCHED_CALIB_MEASURED, USCHED_CALIB_KEPT };

/* Counters since usched_create(), for metrics. */
struct usched_stats {
	uint64_t submitted;
	uint64_t completed;	/* with any status, cancelled included */
	uint64_t failed;	/* status other than 0 and -ECANCELED */
	uint64_t cancelled;
	uint64_t tgs;		/* TGs finished */
	uint64_t bytes_htd;
	uint64_t bytes_dth;
	uint64_t bytes_cleared;	/* device bytes zeroed before a task of another owner used them */
	uint64_t timeouts;	/* tasks whose kernel ran past its time limit (-ETIME) */
	uint64_t domains;	/* isolation domains open now */
	uint64_t isolated;	/* tasks completed that ran in an isolation domain's TG */
	/* failed tasks (not -ECANCELED) by the stage of the command that failed them */
	uint64_t cmd_failed[USCHED_STAGES];
	bool wedged;		/* the core takes no more tasks: a kernel overran its limit, */
	bool lost;		/* or the device was lost (-ENODEV) */
	uint64_t policy_ns;
	uint64_t refine_ns;	/* usched_idle() going on with plans, off the critical path */
	uint64_t polled;	/* completed by the loop's poll, before their callback */
	uint64_t planned[USCHED_PLANS];	/* TGs finished, by enum usched_plan */
	uint64_t waiting;	/* queue depth: submitted, not yet in a TG */
	uint64_t running;	/* in a TG, not yet complete */
	double predicted_ns_sum;	/* over finished TGs */
	double measured_ns_sum;
	double abs_err_sum;	/* sum of |predicted / measured - 1| */
	double pred_stage_ns_sum[USCHED_STAGES];	/* usched_tg_stat's, over finished TGs */
	double busy_stage_ns_sum[USCHED_STAGES];
	struct usched_tg_stat last;	/* the last TG finished */
	unsigned int dma;
	double copy_slow[2];	/* HtD, DtH: the model's slowdown when the other runs */
	unsigned int kqueues;
	unsigned int max_tg;
	char policy[16];
	char device[128];
	uint64_t start_ns[USCHED_START_PHASES];
	unsigned int calib;	/* enum usched_calib */
	bool tracing;		/* a trace is being written (usched_trace_start()) */
	bool trace_full;	/* it reached its bound: nothing more is written */
	uint64_t trace_bytes;	/* written to it so far */
	uint64_t refused;	/* deadlines the model said they could not make: -ETIMEDOUT */
	uint64_t late;		/* completions flagged USCHED_DONE_LATE */
};

int usched_create(const struct usched_opts *o, struct usched **out);
/*
 * Stop taking tasks, run every task submitted so far to completion (cancel
 * first what should not run), then free everything. Not from the callback.
 * A wedged core (usched_opts.wedged) completes what it holds and returns
 * without waiting for the kernel that does not end: its OpenCL objects,
 * which that kernel still uses, are left to the process's exit.
 */
void usched_destroy(struct usched *u);

/* The in-process path: a thread that runs usched_process() when needed. */
int usched_start(struct usched *u);

/*
 * The daemon's path: usched_fd() is a file descriptor (an epoll fd) that
 * becomes readable when there is work for usched_process(): a completion,
 * a submission, or the time to launch the next TG. Poll it for reading;
 * never read it. One caller at a time; never together with usched_start().
 * usched_process() returns 0, or -ENOTRECOVERABLE once the core is wedged.
 */
int usched_fd(struct usched *u);
int usched_process(struct usched *u);
/*
 * The loop has nothing to do: usched_process() ran. While the device runs
 * a TG whose mix's plan is not yet proven optimal, this goes on with that
 * plan's search for one slice (50 us at most, and no closer than that to
 * the device's predicted idle), so that the next TG of the mix finds a
 * better or proven order. True: it did, call it again; false: usched_fd()
 * is readable, or nothing is left to do until the next TG. usched_start()'s
 * thread calls it itself.
 */
bool usched_idle(struct usched *u);

/*
 * Isolation domains. A region or program is registered in a domain: an
 * OpenCL context on the core's device with queues and device buffers of
 * its own. USCHED_SHARED is the one every caller trusts; any other key
 * names an isolation domain, opened at its first registration and closed
 * when its last region and program are gone (their tasks done), so that
 * code of one key (the daemon's: a uid + 1) cannot reach another's device
 * memory. A task's kernel and regions must be of one domain (-EINVAL
 * otherwise), and so must an ORDERED task's and its predecessor's. TGs
 * never mix domains (Documentation/usched.md); the order, the model and
 * the launch decision are the same for all.
 */
#define USCHED_SHARED	0

/*
 * Register host memory once, in domain @domain, so copies from it are
 * asynchronous and run at full speed (CL_MEM_USE_HOST_PTR). Page-aligned
 * memory is best. A region removed while tasks still use it goes away when
 * the last one completes.
 */
int usched_region_add(struct usched *u, uint64_t domain, void *base, size_t len, uint32_t *id);
int usched_region_del(struct usched *u, uint32_t id);

/*
 * Register an OpenCL C program in domain @domain. Each distinct (domain,
 * source, options) is built once; registering it again returns the same id
 * and takes a reference.
 * A build error returns -ENOEXEC and, when log is not NULL, the build log in
 * *log (NUL-terminated, for the caller to free()); the shared domain keeps
 * it for the next registration of the same source. Builds run on the
 * caller's thread.
 */
int usched_prog_add(struct usched *u, uint64_t domain, const char *src, size_t len,
		    const char *options, uint32_t *id, char **log);
/* A built-in task of kernels/ by name ("MM", "VA", ...); -ENOENT if none. */
int usched_prog_builtin(struct usched *u, uint64_t domain, const char *name, uint32_t *id);
/*
 * A build done elsewhere (the daemon's build process, its own OpenCL
 * context on the same device): it builds with USCHED_BUILD_OPTS before the
 * options, so that the kernels' argument kinds are known, and hands back
 * clGetProgramInfo(CL_PROGRAM_BINARIES), which any domain loads.
 * usched_prog_find() takes a reference on (domain, src, options) if it is
 * built already (-ENOENT if not); usched_prog_add_binary() loads such a
 * binary into the domain's context and caches it under (domain, src,
 * options) as usched_prog_add() would, or takes the one cached meanwhile;
 * -ENOEXEC if the driver refuses the binary. usched_device_names() gives
 * the names by which the build process finds the device.
 */
#define USCHED_BUILD_OPTS	"-cl-kernel-arg-info"
int usched_prog_find(struct usched *u, uint64_t domain, const char *src, size_t len,
		     const char *options, uint32_t *id);
int usched_prog_add_binary(struct usched *u, uint64_t domain, const char *src, size_t len,
			   const char *options, const void *bin, size_t binlen, uint32_t *id);
int usched_device_names(struct usched *u, char *platform, size_t plen, char *device,
			size_t dlen);
/*
 * What a built program or a calibration is valid for, as text (lines of
 * "name value"): the device (its CL_DEVICE_UUID_KHR where the driver has
 * cl_khr_device_uuid, else its PCI address where it has cl_khr_pci_bus_info,
 * and its platform, vendor and name), CL_DRIVER_VERSION and CL_DEVICE_VERSION.
 * 0, or -ENOSPC when @len is short.
 */
int usched_device_key(struct usched *u, char *key, size_t len);
/*
 * Whether usched_opts' @platform and @device name an OpenCL device, without
 * opening it (a daemon's settings check): 0, or -ENODEV with @names the
 * devices of the platforms chosen, "0: NAME, 1: NAME", as @device counts them.
 */
int usched_device_check(const char *platform, const char *device, char *names, size_t len);
/* Drop a reference; the program and its kernels go when tasks are done with them. */
int usched_prog_put(struct usched *u, uint32_t id);
/* A kernel of a program, by its __kernel function name; -ENOENT if none. */
int usched_kernel_get(struct usched *u, uint32_t prog, const char *name, uint32_t *id);

/*
 * Queue a task (the struct is copied). -EINVAL for a malformed task: its
 * shape, an argument of the wrong kind, or, for the kernel of a built-in
 * task of kernels/, a launch that is not the task's plan for a size it
 * takes or a buffer shorter than that size needs (tqk_launch_check(): the
 * kernel could otherwise reach other owners' buffers); -ENOENT for an
 * unknown kernel, -EFAULT for a buffer outside every region,
 * -EFBIG for a buffer larger than the device allows, -ESHUTDOWN once
 * usched_destroy() has begun, -ENOTRECOVERABLE once the core is wedged
 * (usched_opts.wedged).
 */
int usched_submit(struct usched *u, const struct usched_task *t);

/*
 * Complete every task of owner (USCHED_OWNER_ALL: of all owners) not yet in
 * a TG with -ECANCELED. Tasks already launched run to completion.
 */
int usched_cancel(struct usched *u, uint64_t owner);

/*
 * The weight of fair-share group @share (usched_task.share) inside each
 * class: under saturation groups get engine time in proportion to their
 * weights. 1..USCHED_SHARE_MAX; a group never set weighs 1. -EINVAL out of
 * range.
 */
#define USCHED_SHARE_MAX	10000
int usched_share_set(struct usched *u, uint64_t share, unsigned int weight);

/*
 * The trace: Chrome JSON trace events (Perfetto opens them; sim/trace.h,
 * Documentation/usched.md "The trace"): per engine the commands as they ran
 * and as the model predicted them, the TGs and the policy's time, and per
 * owner each task from submission to delivery, linked by flow arrows.
 * usched_trace_start() writes it to @fd (the core's from then on, closed at
 * the stop or on error), at most @max_bytes (0: USCHED_TRACE_MAX), flushed
 * as each usched_process() ends, so it is readable while it grows; -EBUSY
 * if a trace is on. usched_trace_stop() ends it as valid JSON: 0, -ENOENT
 * if none is on, -EIO if a write failed. Any thread; usched_destroy() stops
 * it too.
 */
#define USCHED_TRACE_MAX	(256ull << 20)
int usched_trace_start(struct usched *u, int fd, uint64_t max_bytes);
int usched_trace_stop(struct usched *u);
/*
 * What the trace calls @owner: its process @pid, user @uid and command
 * name @comm (a daemon's client contexts). An owner never named is the
 * calling process's own. @comm NULL forgets the owner (its last task done).
 */
int usched_owner_name(struct usched *u, uint64_t owner, uint32_t pid, uint32_t uid,
		      const char *comm);

void usched_stats(struct usched *u, struct usched_stats *s);
/* "none", "resumed" or "proven"; "?" for a value out of range. */
const char *usched_plan_name(uint32_t plan);

#ifdef __cplusplus
}
#endif

#endif /* USCHED_H */
