/* SPDX-License-Identifier: GPL-2.0 */
/*
 * daemon.h - usched, the system-wide service: what its files share.
 *
 * usched.c	main: options, start-up, shutdown
 * conf.c	the configuration file and the flags that override it
 * loop.c	the io_uring event loop: events in, completions out
 * ctx.c	client contexts: arenas, id tables, descriptors -> core tasks
 * build.c	program builds: worker threads, each build in a child process
 * build_child.c	usched-build, that child: one OpenCL build, its binary back
 * state.c	the id tables kept in a file so that a restart keeps them
 * cache.c	the calibration and program binaries kept so that a restart is quick
 * metrics.c	metrics in Prometheus text format
 * log.c	the log
 */
#ifndef USCHED_DAEMON_H
#define USCHED_DAEMON_H

#include <limits.h>
#include <liburing.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <syslog.h>
#include <sys/types.h>

#include <linux/tqsubmit.h>
#include <tq/clock.h>

#include "tq_transport.h"
#include "usched/core/usched.h"

#define USCHED_CONFIG		"/etc/tq/usched.conf"
/* Where SIGUSR1 (tqstat --trace start) writes the trace when no trace is set. */
#define USCHED_TRACE_DEFAULT	"/run/tq/usched-trace.json"
#define USCHED_DEVNODE		"/dev/" TQ_DEVICE_NAME

/*
 * Limits and the program policy: global values in struct dconf, overridden
 * per user and per group by the file's [user ...] and [group ...] sections
 * (conf.c). Every numeric limit is 0 for none.
 */
enum dlim {
	DLIM_WORK_ITEMS,	/* a task's global work size, all dimensions multiplied */
	DLIM_WORK_GROUPS,	/* its work-groups, when it gives local sizes */
	DLIM_SOURCE,		/* bytes of a program's source */
	DLIM_OPTIONS,		/* bytes of its build options */
	DLIM_BUILD_TIME,	/* ns a build may take */
	DLIM_BUILD_MEMORY,	/* bytes of data a build process may use */
	DLIM_KERNEL_TIME,	/* ns a kernel may run (0: the daemon's default, 10 s) */
	DLIM_CTX_PROGRAMS,	/* programs registered by one context */
	DLIM_USER_PROGRAMS,	/* by all the contexts of one user */
	DLIM_CTX_KERNELS,
	DLIM_USER_KERNELS,
	DLIM_CTX_ARENA,		/* arena bytes of one context */
	DLIM_USER_ARENA,	/* of all the open contexts of one user */
	DLIM_ALLOW_SOURCE,	/* 1: may register OpenCL C source; 0: built-ins only */
	/* 1: without allow-source, source and all else in an isolation domain of its uid */
	DLIM_ISOLATE_SOURCE,
	DLIM_MAX_PRIO,		/* the highest class its tasks may take, a TQ_PRIO_* (max-prio) */
	DLIM_SHARE,		/* its fair-share group's weight, 1 .. USCHED_SHARE_MAX */
	DLIM_N
};

struct dlimits {
	uint64_t v[DLIM_N];
};

/* A [user NAME|UID] or [group NAME|GID] section: the keys it sets. */
struct dsection {
	bool group;
	uint32_t id;		/* uid or gid, the name resolved when the file is read */
	uint32_t set;		/* bit i: v[i] was set */
	struct dlimits lim;
};

/* What a context's fair-share group is (share-by). */
enum dshare_by {
	DSHARE_UID,		/* its uid */
	DSHARE_CGROUP,		/* its process's v2 cgroup when it opened */
};

/* Configuration: the file's keys are the long options' names. */
struct dconf {
	char *config;		/* the file read, or NULL */
	char *device_at;	/* FILE:LINE that set device, or NULL: a flag or none */
	bool check_config;	/* --check-config: check, do not run */
	char *platform;		/* NULL: any */
	char *device;		/* NULL: the first */
	char *policy;		/* NULL: the core's default */
	unsigned int max_tg;	/* 0: the core's default */
	unsigned int kernel_queues;	/* 0: the core's default; DCONF_AUTO: auto */
	unsigned int copy_engines;	/* 0: profile or probe */
	char *profile;
	char *metrics;		/* .prom file, or NULL */
	char *metrics_group;	/* its group, a name or gid; NULL: usched's own */
	unsigned int metrics_interval;	/* seconds; 0: only at exit and on SIGHUP */
	unsigned int metrics_clients;	/* uids and cgroups labelled, each; the rest "other" */
	char *trace;		/* traced from the start there; NULL: on SIGUSR1 only */
	uint64_t trace_max;	/* bytes; 0: the core's USCHED_TRACE_MAX */
	char *tg_log;		/* a CSV line per TG appended there, or NULL */
	char *task_log;		/* a CSV line per task */
	char *state;		/* id tables, or NULL: a restart forgets them */
	char *devnode;
	char *transport;	/* auto, module or socket (tq_transport.h) */
	char *socket;		/* tqsubmitd's client socket, for the one we start */
	char *sched_socket;	/* tqsubmitd's scheduler socket */
	char *tqsubmitd;	/* the program we start; NULL: next to usched; "": never */
	bool foreground;
	bool verbose;
	bool no_plans;
	bool no_refine;
	bool no_poll;

	/* Quality of service: the core's settings (usched_opts) and the share groups */
	uint64_t prio_ahead_ns;	/* prio-ahead; 0: the core's default (2 ms) */
	unsigned int deadline;	/* an enum usched_deadline */
	unsigned int share_by;	/* an enum dshare_by */

	/* Limits: the global values, the sections, and the build workers' settings. */
	struct dlimits lim;
	struct dsection *sect;
	unsigned int nsect;
	unsigned int build_jobs;	/* builds at once */
	unsigned int user_build_jobs;	/* of them, builds of one user at once */
	char *build_helper;	/* the usched-build program; NULL: next to usched */
	uint64_t state_max;	/* bytes of the state file; 0: no limit */
	char *cache;		/* the cache directory; NULL: beside the state file; "none": off */
	uint64_t cache_max;	/* bytes of its entries; 0: no limit */
	bool recalibrate;	/* measure the transfers even if the cache has them */
};

void dconf_init(struct dconf *c);
/* kernel-queues = auto */
#define DCONF_AUTO		UINT_MAX
/* auto without kernel shares to weigh */
#define DCONF_KQ_UNKNOWN	2
/*
 * kernel-queues = auto: the count tqsim_profile_kqueues() favours for the
 * kernels of @profile (NULL or "": none), up to 4, into @kq, and why, a
 * line for the log, into @why. Without a profile, or one without kernel
 * shares, DCONF_KQ_UNKNOWN. 0, or -errno for a profile that cannot be
 * read or parsed (@why says where).
 */
int dconf_kqueues_auto(const char *profile, unsigned int *kq, char *why, size_t len);
void dconf_free(struct dconf *c);
/* One setting, from the file or a flag; 0 or -EINVAL with *why set. */
int dconf_set(struct dconf *c, const char *key, const char *val, const char **why);
/* Read a file of "key = value" lines, then its drop-ins; -ENOENT if it is missing. */
int dconf_load(struct dconf *c, const char *path, char *err, size_t errlen);
/*
 * What the reading could not check: the transport from the environment, and
 * the device the settings name among OpenCL's. 0, else say so as @prog and
 * -EINVAL.
 */
int dconf_check(const struct dconf *c, const char *prog);
/*
 * The command line: --config first (default USCHED_CONFIG, optional then),
 * then every other flag over it. 0, 1 (--help shown), or -EINVAL.
 */
int dconf_args(struct dconf *c, int argc, char **argv);
/*
 * The limits of a user with these groups: a [user] section's key beats the
 * group sections', which beat the global value; of several groups' values
 * the most generous wins (no limit, else the largest; allow-source and
 * isolate-source yes).
 * Root may register source unless a section of its says otherwise.
 */
void dconf_limits(const struct dconf *c, uint32_t uid, const uint32_t *gids,
		  unsigned int ngids, struct dlimits *out);
/* The same for a uid, its groups from the user database (all 0 if unknown). */
void dconf_user_limits(const struct dconf *c, uint32_t uid, struct dlimits *out);
/* A limit's name as usched.conf and the metrics spell it. */
const char *dlim_name(enum dlim i);
/* Move the limits, sections and build settings of a new reading into c (SIGHUP). */
void dconf_take_limits(struct dconf *c, struct dconf *from);

/* A program or kernel a context registered; its client id is index + 1. */
struct dprog {
	uint32_t core;		/* the core's id; 0 while a (re)build is pending */
	bool builtin;
	char *text;		/* source or built-in name, NUL-terminated */
	char *opts;		/* build options or NULL */
};

struct dkern {
	uint32_t core;
	uint32_t prog;		/* the client's program id */
	char *name;
};

/*
 * A TASK usched took (ctx.c): the core's user_data names it, so its
 * completion finds its tag and its place in a chain (TQ_DESC_F_AFTER).
 */
struct dtask {
	uint64_t tag;
	uint64_t seq;		/* tq_event.seq */
	struct dtask *succ;	/* a successor held here until this task ends */
	struct tq_event *ev;	/* held: its event, until its predecessor ends */
	uint64_t bytes[2];	/* copied if it succeeds: host to device, device to host */
	bool deadline;		/* it has one: its completion may say TQ_COMPL_F_LATE */
};

/* What became of a recent TASK of a context, by its seq. */
struct dlink {
	uint64_t seq;
	struct dtask *live;	/* held or in the core; NULL once it ended */
	int status;		/* how it ended */
};

/* Accounting's labels: a context's uid, its cgroup (struct dacct). */
enum { DACCT_UID, DACCT_CGROUP, DACCT_KINDS };

struct dctx {
	struct dctx *next;	/* hash chain */
	uint32_t id;
	uint32_t pid;
	uint32_t uid;
	uint64_t domain;	/* the core's domain of its arena and programs (ctx_domain()) */
	void *arena;
	uint64_t arena_bytes;
	uint32_t region;
	unsigned int inflight;	/* tasks and builds taken and not completed */
	bool closing;		/* TQ_EV_CLOSE seen: release when inflight is 0 */
	struct dprog *progs;
	uint32_t nprogs;
	struct dkern *kerns;
	uint32_t nkerns;

	/* Quality of service (ctx.c) */
	uint8_t prio;		/* its class, a TQ_PRIO_* (tq_setup.prio; none named: normal) */
	uint64_t share;		/* its fair-share group (usched_task.share): ctx_share() */
	bool said_prio;		/* logged: a task of its class above max-prio */

	/* Limits (ctx.c) */
	struct duser *user;	/* its uid's limits and totals */
	int refused;		/* not served: every task fails with this (-EDQUOT) */
	uint32_t building;	/* PROGRAMs taken, not yet completed: they count as programs */

	/* Chains (ctx.c) */
	struct dlink *links;	/* by seq & (nlinks - 1): the SQ's entries of them */
	uint32_t nlinks;
	struct dtask *last;	/* the latest task given the core, until it ends */

	/* Accounting (metrics.c): its uid's and its cgroup's, from its open on */
	struct dacct *acct[DACCT_KINDS];
};

/* One uid's resolved limits, cached, and what its contexts hold together. */
struct duser {
	struct duser *next;	/* hash chain */
	uint32_t uid;
	struct dlimits lim;
	uint64_t programs;	/* registered and being built, over its contexts */
	uint64_t kernels;
	uint64_t arena;		/* arena bytes of its contexts being served */
	unsigned int running;	/* builds running now */
	bool said_isolated;	/* logged: its source runs in a context of its own */
	bool said_refused;	/* logged: its source is refused (allow-source) */
};

/* A program build handed to the build thread, and its result. */
struct dbuild {
	struct dbuild *next;
	uint32_t ctx;
	uint64_t domain;	/* its context's */
	struct duser *user;	/* for the workers' fairness: its running builds */
	uint64_t tag;
	bool builtin;
	uint64_t time_limit_ns;	/* 0: none */
	uint64_t memory_limit;	/* 0: none */
	uint64_t log_off;	/* bufs[0], where a failed build's log goes */
	uint32_t log_len;
	char *text;
	char *opts;
	int status;
	uint32_t core;
	char *log;
	bool crashed;		/* the build process died of a signal not ours */
	uint64_t start_ns, end_ns;
};

/* A histogram: observations per bucket (not cumulative), the last bucket +Inf. */
#define DHIST_MAX	20

struct dhist {
	uint64_t bucket[DHIST_MAX];
	uint64_t count;
	double sum;
};

/* A task's latencies: submission to its first command's start, to its last's end, to our record. */
enum dlat { DLAT_QUEUE, DLAT_DEVICE, DLAT_DELIVERY, DLAT_N };

/* What the tasks of one uid or cgroup got (metrics.c). */
struct dacct {
	char *label;		/* the uid in decimal or the cgroup's path; NULL: "other" */
	uint64_t engine_ns[USCHED_STAGES];	/* measured, per stage */
	uint64_t bytes[2];	/* htd, dth */
	uint64_t tasks[3];	/* the core finished: ok, error, cancelled */
	uint64_t refused;	/* counted in dstats.refused too */
	struct dhist lat[DLAT_N];	/* uids only */
};

/*
 * The labelled ones, at most metrics-clients, in the order first seen and
 * kept until exit; those after go to other. So no series moves between
 * labels, which would break rate().
 */
struct dacct_set {
	struct dacct **v;
	unsigned int n;
	struct dacct other;
};

/* The daemon's own counters, next to the core's struct usched_stats. */
struct dstats {
	uint64_t events[4];	/* by enum tq_event_type */
	uint64_t requeued;	/* TQ_EV_F_REQUEUED tasks */
	uint64_t rejected;	/* descriptors the daemon completed with an error */
	uint64_t builds;
	uint64_t build_errors;
	uint64_t completions;	/* records the module took */
	uint64_t write_errors;	/* records it refused */
	uint64_t contexts;	/* open now */
	/* re-executions after a kernel overran its limit or the device was lost (loop_wedged()) */
	uint64_t recoveries;
	/* Per TG, from the core's tg_done callback */
	double tg_err_max;	/* largest |predicted / measured - 1| */
	struct dhist tg_err;	/* |predicted / measured - 1| */
	struct dhist tg_span[2];	/* makespan in seconds: predicted, measured */
	struct dhist tg_tasks;	/* tasks in the TG */
	struct dhist tg_policy;	/* seconds the policy took to order it */

	/* Limits: tasks and contexts refused (or builds stopped), by limit */
	uint64_t refused[DLIM_N];
	uint64_t build_crashes;	/* build processes that died, most often of their memory limit */
	uint64_t state_dropped;	/* records the state file had no room for */
	uint64_t users;		/* uids with limits resolved */

	/* Start-up, ns: reading the settings, attaching, and from the start to ready (0 until then) */
	uint64_t start_settings_ns, start_attach_ns, start_ready_ns;
	/* The cache (cache.c), counted by the build workers too */
	uint64_t cache_hits;	/* programs loaded from it */
	uint64_t cache_built;	/* programs built from source: not in it, or not usable */
	uint64_t cache_stored;	/* entries written */
	uint64_t cache_dropped;	/* entries that did not match or that the driver refused */
	uint64_t cache_evicted;	/* entries removed to stay within cache-max */

	/* Per uid and per cgroup (DACCT_*), and the latencies of every task */
	unsigned int acct_max;	/* metrics-clients, as at start */
	struct dacct_set acct[DACCT_KINDS];
	struct dhist lat[DLAT_N];
};

#define DCTX_HASH	256
#define DUSER_HASH	64

struct daemon {
	struct dconf conf;
	int argc;		/* for SIGHUP's second reading */
	char **argv;
	struct usched *u;
	int fd;			/* the scheduler's fd of /dev/tqsubmit, or tqsubmitd's socket */
	int transport;		/* TQT_MODULE or TQT_SOCKET */
	const char *where;	/* the device's or the socket's path, for messages */
	bool lost;		/* tqsubmitd closed the connection: exit 1 */
	int sigfd;
	struct io_uring ring;
	uint64_t started_ns;

	struct dctx *ctx[DCTX_HASH];
	unsigned long held;	/* tasks and builds taken and not completed */

	/* Completions: queued here, moved to wbuf while a write is in flight. */
	struct tq_completion *out, *wbuf;
	size_t nout, nw, woff, cap;
	bool writing;

	struct tq_event *ev;	/* the read buffer */
	size_t nev;		/* its records */
	struct msghdr rmsg;	/* the socket's: a message, and the arenas' fds */
	struct iovec riov;
	union tqt_rights *rctl;
	bool reading;
	bool core_armed;
	bool timer_armed;
	bool metrics_gid_set;	/* metrics_gid resolved from conf.metrics_group */
	gid_t metrics_gid;
	bool build_armed;

	/* The build workers' queue and results; efd wakes the loop. */
	pthread_t *builders;
	unsigned int nbuilders;
	pthread_mutex_t blk;
	pthread_cond_t bcond;
	struct dbuild *bq, *bdone;
	bool bstop;
	int build_efd;
	bool builder_started;
	int *build_pids;	/* per worker, its child's pid, or 0 */
	char *build_helper;	/* the resolved usched-build path */
	uint32_t *builtins;	/* per kernels/ task, the core id the daemon keeps; 0: none */

	/* Limits */
	struct duser *users[DUSER_HASH];
	uint64_t state_bytes;	/* the state file's size */

	/* The cache: its directory (NULL: off) and its device's key (cache.c) */
	char *cache_dir;
	char *cache_key;
	pthread_mutex_t cache_lock;

	int state_fd;
	char *saved;		/* the state file as found at start-up */
	size_t nsaved;
	bool stopping;		/* SIGINT/SIGTERM: finish what was taken, then exit */
	bool quit;		/* a second signal: exit now */
	bool reload;		/* SIGHUP */
	uint64_t cmd_log_at;	/* a second of device errors logged from then (ctx.c) */
	unsigned int cmd_log_n;	/* lines in that second */
	uint64_t cmd_log_dropped;	/* errors not logged since the last line */
	struct dstats st;
	uint64_t features;	/* TQ_FEAT_* the attach reported */

	/* The model against the device, per TG and per task (metrics.c) */
	FILE *tg_log, *task_log;
	char policy[16];	/* the core's, for their lines */
};

/* Logging: stderr in the foreground, syslog otherwise. */
void dlog_init(bool foreground, bool verbose);
void dlog(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define dbg(...)	dlog(LOG_DEBUG, __VA_ARGS__)
#define info(...)	dlog(LOG_INFO, __VA_ARGS__)
#define warn(...)	dlog(LOG_WARNING, __VA_ARGS__)
#define err(...)	dlog(LOG_ERR, __VA_ARGS__)

/* loop.c */
int loop_init(struct daemon *d);
int loop_run(struct daemon *d);
void loop_fini(struct daemon *d);
/*
 * Start the core's trace in conf.trace (else USCHED_TRACE_DEFAULT), mode
 * 0640 in metrics-group, or stop it (SIGUSR1, SIGUSR2); the metrics say so.
 */
void loop_trace(struct daemon *d, bool start);
/* Write the queued completion records with plain write()s: on the way out. */
void loop_flush_sync(struct daemon *d);
/* usched_opts.started: the TQ_COMPL_F_STARTED marks of a TG, written at once. */
void loop_started(void *arg, const struct usched_start *t, unsigned int n);
/*
 * usched_opts.wedged: a kernel overran its time limit or the device was
 * lost. Write every completion queued (the culprit's -ETIME or -ENODEV
 * among them), then re-execute
 * usched so that the device's OpenCL context dies with this image; the
 * module hands the other tasks to the new one. Does not return.
 */
void loop_wedged(void *arg);
/* The environment variable that carries the recoveries across re-executions. */
#define USCHED_RECOVERIES_ENV	"USCHED_RECOVERIES"

/* ctx.c */
/* A context's records for the loop's next write (d->out): a task's completion, its release. */
void complete_task(struct daemon *d, uint32_t ctx, uint64_t tag, int status, uint32_t flags,
		   uint64_t result, uint64_t start_ns, uint64_t end_ns);
void release_ctx(struct daemon *d, uint32_t ctx);
/*
 * The class, deadline and share of context @c's task @t, taken at @submit_ns,
 * into @ut (usched_task.prio, deadline_ns, share): 0, or -EPERM when the
 * class is above @max_prio (the user's max-prio).
 */
int ctx_task_qos(const struct dctx *c, const struct tq_desc *t, uint64_t submit_ns,
		 uint64_t max_prio, struct usched_task *ut);
/* A context's share group: its uid's, or its cgroup's (share-by). */
uint64_t ctx_share(unsigned int share_by, uint32_t uid, uint32_t pid);
/* The uapi's classes by name, "default" for TQ_PRIO_DEFAULT (qos.c). */
extern const char *const dprio_name[TQ_PRIO_MAX + 1];
/*
 * A context's owner in the core: its id in the low 32 bits, its pid above,
 * so that a context id the module recycles is another owner, whose tasks
 * never get the old one's pooled device buffers uncleared (exec.c).
 */
static inline uint64_t ctx_owner(const struct dctx *c)
{
	return (uint64_t)c->pid << 32 | c->id;
}

struct dctx *ctx_find(struct daemon *d, uint32_t id);
/* arena_fd: tqsubmitd's memfd of the arena (the caller closes it), or -1 on the module */
void ctx_open(struct daemon *d, const struct tq_event *ev, int arena_fd);
void ctx_close(struct daemon *d, const struct tq_event *ev);
void ctx_task(struct daemon *d, const struct tq_event *ev);

/* The task a core user_data names. */
static inline struct dtask *dtask_of(uint64_t user_data)
{
	return (struct dtask *)(uintptr_t)user_data;
}
void ctx_build_done(struct daemon *d, struct dbuild *b);
void ctx_complete(void *arg, const struct usched_completion *c);
/* Free a context's memory and unmap its arena; its core objects are the caller's. */
void ctx_free(struct dctx *c);
/* Drop every context without releasing it (the module does at our exit). */
void ctx_free_all(struct daemon *d);
uint32_t ctx_prog_add(struct dctx *c, bool builtin, const char *text, const char *opts);
uint32_t ctx_kern_add(struct dctx *c, uint32_t prog, const char *name);
/* Fill a just-opened context's tables from the state file; 1 if there were any. */
int ctx_restore(struct daemon *d, struct dctx *c);
/* The cached limits of a uid, resolved at its first context; NULL without memory. */
struct duser *user_get(struct daemon *d, uint32_t uid);
/* SIGHUP: take the new reading's limits and resolve every known uid again. */
void users_reload(struct daemon *d, struct dconf *from);
void users_free(struct daemon *d);
/*
 * The arithmetic of the task limits: 0, or -E2BIG with *which set to
 * DLIM_WORK_ITEMS or DLIM_WORK_GROUPS. local NULL: the driver chooses.
 */
int limit_work(const struct dlimits *l, unsigned int dim, const uint64_t *global,
	       const uint32_t *local, enum dlim *which);
/* The length of a NUL-or-len-ended text in [p, p + len), scanning at most max + 1 bytes. */
size_t text_len(const char *p, size_t len, size_t max);

/* build.c */
int build_start(struct daemon *d);
void build_stop(struct daemon *d);
void build_queue(struct daemon *d, struct dbuild *b);
struct dbuild *build_take_done(struct daemon *d);
void build_free(struct dbuild *b);
/* How build_in_child() runs the child, and what it tells of it. */
struct dchild {
	const char *path;	/* the usched-build program */
	const char *platform, *device;	/* names of the device to build for */
	uint64_t time_limit_ns;	/* 0: none */
	uint64_t memory_limit;	/* RLIMIT_DATA; 0: none */
	void (*started)(void *arg, int pid);	/* the child exists (pid) or is gone (0) */
	void *arg;
	bool crashed;		/* out: it died of a signal not ours */
};

/*
 * One build in a child process: 0 with the program binary in *bin, -ENOEXEC
 * with the log in *log, -ETIME at the time limit (the child killed), -E2BIG
 * for a binary too large to take, or another -errno.
 */
int build_in_child(struct dchild *ch, const char *src, const char *opts, unsigned char **bin,
		   size_t *binlen, char **log);
/*
 * Source into the core: from its cache, else built in a child and loaded
 * (usched_prog_add_binary()). build_in_child()'s statuses; *log to free().
 */
int build_source(struct daemon *d, uint64_t domain, const char *src, const char *opts,
		 uint64_t time_limit_ns, uint64_t memory_limit, uint32_t *core, char **log,
		 bool *crashed, void (*started)(void *arg, int pid), void *arg);
/*
 * The built-in task @name (kernels/'s table) into the core: its source by
 * build_source(), without limits, and in the shared domain kept registered
 * by the daemon from its first build on; -ENOPKG for no such built-in.
 */
int build_builtin(struct daemon *d, uint64_t domain, const char *name, uint32_t *core,
		  char **log, bool *crashed, void (*started)(void *arg, int pid), void *arg);

/* state.c */
int state_open(struct daemon *d);
void state_close(struct daemon *d);
/* A program or kernel a context registered, as the file keeps it (state_next()). */
struct state_rec {
	bool prog;		/* a program, else a kernel */
	uint32_t arg;		/* a program: builtin or not; a kernel: its program's id */
	const char *text;	/* len bytes: the source or built-in name, or the kernel's name */
	size_t len;
	const char *opts;	/* opts_len bytes: a program's build options */
	size_t opts_len;
};
/*
 * The next record of context @c (its id and pid, and the id its table gives
 * next) in the file read at start-up, from *@pos on (0 at first); false at
 * the end or a torn record. @r points into the file's copy.
 */
bool state_next(const struct daemon *d, size_t *pos, const struct dctx *c, struct state_rec *r);
void state_add_prog(struct daemon *d, struct dctx *c, uint32_t id);
void state_add_kern(struct daemon *d, struct dctx *c, uint32_t id);
/* Rewrite the file without the contexts that are gone. */
void state_compact(struct daemon *d);

/* mkdir -p the directories above @path. */
void state_make_dirs(const char *path);

/* cache.c */
/* The directory from the settings, made if need be (else the cache is off); 0 or -ENOMEM. */
int cache_open(struct daemon *d);
/* The device's key, once the core has one; until then no program is kept. */
int cache_device(struct daemon *d);
void cache_close(struct daemon *d);
/* Program entries in the cache now. */
unsigned int cache_programs(struct daemon *d);
/* usched_opts.calib_load and calib_save, their argument the daemon. */
int cache_calib_load(void *arg, const char *dev, struct tqsim_profile *p);
void cache_calib_save(void *arg, const char *dev, const struct tqsim_profile *p);
/* A program of (src, opts) from the cache into the core's @domain: 0, or -ENOENT (build it). */
int cache_prog_load(struct daemon *d, uint64_t domain, const char *src, const char *opts,
		    uint32_t *core);
/* Keep a program's binary just built. */
void cache_prog_save(struct daemon *d, const char *src, const char *opts, const void *bin,
		     size_t len);

/* metrics.c */
/* The file at path, mode 0640 in group gid ((gid_t)-1: usched's own). */
int metrics_write(const char *path, gid_t gid, unsigned int interval,
		  const struct usched_stats *s, const struct dstats *ds, double uptime_s);
void metrics_fprint(FILE *f, const struct usched_stats *s, const struct dstats *ds,
		    double uptime_s);
/*
 * The accounting of a context opened by @pid of @uid: its uid's and its
 * cgroup's entries (struct dacct_set), the other ones past the cap.
 */
void metrics_acct_open(struct dstats *ds, struct dacct *acct[DACCT_KINDS], uint32_t uid,
		       uint32_t pid);
/* A task the core finished, its record queued at @now_ns, into @acct and ds's latencies. */
void metrics_acct_task(struct dstats *ds, struct dacct *const acct[DACCT_KINDS],
		       const struct usched_completion *c, const uint64_t bytes[2], uint64_t now_ns);
void metrics_acct_free(struct dstats *ds);
/* The v2 cgroup of @pid ("0::PATH" of /proc/PID/cgroup) into buf, else "unknown". */
void metrics_cgroup(uint32_t pid, char *buf, size_t len);
/* usched_opts.tg_done with a struct dstats: one finished TG into the histograms. */
void metrics_tg(void *arg, const struct usched_tg_stat *s);
/*
 * The logs of the model against the device (tg-log, task-log): opened for
 * appending, a header first when new; NULL for no path, or on error (said).
 */
FILE *metrics_log_open(const char *path, const char *header);
extern const char metrics_tg_header[], metrics_task_header[];
void metrics_tg_line(FILE *f, const char *policy, const struct usched_tg_stat *s);
void metrics_task_line(FILE *f, const char *policy, uint32_t ctx, uint32_t pid,
		       const char *kernel, const struct usched_completion *c);

#endif /* USCHED_DAEMON_H */
