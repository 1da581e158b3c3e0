/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * tqcl.h - the private header of libtqcl.so, the OpenCL layer that runs
 * unmodified OpenCL programs' copy-kernel-copy work through tq.
 *
 * ocl-icd loads the layer through OPENCL_LAYERS and hands it the next
 * dispatch table (tqcl_next); every OpenCL call of the program reaches one
 * of our functions first. Objects stay the driver's: the layer only keeps a
 * record beside each one it may capture for (a context, queue, buffer,
 * program, kernel), and answers for the user events it returns in place of
 * the commands it captured.
 *
 * Every buffer has an authoritative copy: the driver's buffer (TQCL_DEV),
 * the shadow in tq's arena (TQCL_ARENA), or both alike (TQCL_BOTH). A
 * captured write copies into the shadow, a captured kernel is one tq task
 * over the shadows, a captured read copies out of it. Whatever the layer
 * passes through to the driver first finds the driver's buffers up to date
 * (tqcl_sync_dev) and ordered after the captured work of its queue.
 *
 * Locking: one mutex (tqcl.lock) guards every record; tqcl.cond is broadcast
 * whenever a task or registration completes. The lock is never held across
 * a call that can run the program's callbacks (clSetUserEventStatus, and
 * whatever the program's own blocking calls do).
 */
#ifndef TQCL_H
#define TQCL_H

#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_0_APIS
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define CL_USE_DEPRECATED_OPENCL_2_0_APIS
#include <CL/cl_layer.h>
#include <pthread.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <tq/clock.h>

#include "libtq/tq.h"

extern struct _cl_icd_dispatch tqcl_next;	/* the next layer or the loader */

/* Why a call passed through to the driver; tqcl_stats_print names them. */
enum tqcl_why {
	W_CAPTURE,		/* 0: not passed through */
	W_OFF,			/* TQCL_DISABLE, or tq could not be opened */
	W_QUEUE_OOO,		/* out-of-order queue */
	W_QUEUE_PROFILING,	/* profiling queue (TQCL_PROFILING=1 captures them) */
	W_QUEUE_OTHER,		/* a queue with properties the layer does not know, or on-device */
	W_CTX_DEVICES,		/* a context of several devices, or not TQCL_DEVICE's */
	W_WAIT_FOREIGN,		/* waits for an event of the driver's not yet complete */
	W_QUEUE_BUSY,		/* the queue still runs commands passed through before */
	W_INVALID,		/* invalid arguments: the driver gives the error */
	W_BUF_UNKNOWN,		/* not a buffer from clCreateBuffer (image, pipe, sub-buffer) */
	W_BUF_ALIASED,		/* a buffer with sub-buffers, or USE_HOST_PTR/SVM-backed */
	W_BUF_BIG,		/* a buffer over 4 GiB or over the arena */
	W_ARENA_FULL,		/* no arena room for the shadow */
	W_KERN_UNKNOWN,		/* a kernel of a program not built from source by the program */
	W_KERN_ARGS,		/* local memory, image, sampler, pipe, unknown or unset arguments */
	W_KERN_LIMITS,		/* over TQ_MAX_BUFS buffers or TQ_MAX_SCALARS scalars */
	W_KERN_SCALAR,		/* a by-value argument not of 1, 2, 4 or 8 bytes */
	W_KERN_ALIAS,		/* one buffer bound to two arguments, one of them writable */
	W_KERN_SVM,		/* SVM pointers or exec info set on the kernel */
	W_KERN_OFFSET,		/* a global work offset */
	W_KERN_SHAPE,		/* a work size tq cannot express (0, over 2^32 locals, ...) */
	W_PROG_GLOBALS,		/* program-scope variables (they live on the device) */
	W_PROG_REFUSED,		/* usched refused the program or kernel (policy, build, quota) */
	W_ON_DEVICE,		/* a read of data only the driver's buffer holds */
	W_MAPPED,		/* a buffer mapped at the time */
	W_COMMAND,		/* a command the layer never captures */
	W_NR
};

/* What the layer counts; printed at exit (TQCL_STATS). */
struct tqcl_stats {
	uint64_t cap_write, cap_read, cap_kernel, cap_write_bytes, cap_read_bytes;
	uint64_t tasks_ok, tasks_replayed, tasks_failed;
	uint64_t sync_to_arena, sync_to_dev, sync_bytes;
	uint64_t pass_write, pass_read, pass_kernel, pass_other;
	uint64_t why[W_NR];
	uint64_t progs_registered, kerns_registered;
	uint64_t wait_ns;		/* time programs' threads waited inside the layer */
	uint64_t layer_ns;		/* time spent inside captured calls */
	/*
	 * Where a captured task's time goes, summed over the tasks tq ran
	 * (tq_timed of them): submitted to its first command's start (the
	 * transport, usched's queue and launch), on the device (first start to
	 * last end), from its end to the reaper's seeing it (usched's
	 * completion and the transport); the wait from that to the program's
	 * thread running again (t_wakes reads that waited for a task); the
	 * copies into and out of the arena.
	 */
	uint64_t tq_timed, t_queue_ns, t_device_ns, t_deliver_ns;
	uint64_t t_wakes, t_wake_ns, t_copy_in_ns, t_copy_out_ns;
};

/* The layer's own command records answer for these events. */
enum tqcl_cmd { C_WRITE, C_READ, C_KERNEL };

/* One pointer-keyed hash chain link; each record starts with one. */
struct tqcl_node {
	const void *key;
	struct tqcl_node *next;
};

struct tqcl_map {
	struct tqcl_node **b;
	size_t nb, n;
};

enum tqcl_home { TQCL_DEV, TQCL_ARENA, TQCL_BOTH };

struct tqcl_ctx {
	struct tqcl_node node;
	cl_context ctx;
	cl_device_id dev;		/* its one device, or NULL: never captured */
	cl_command_queue q;		/* ours, for syncing buffers */
	int refs;			/* the program's references */
	bool capture;
};

struct tqcl_queue {
	struct tqcl_node node;
	cl_command_queue q;
	struct tqcl_ctx *c;
	cl_command_queue_properties props;
	int refs;
	bool capture;
	enum tqcl_why why;		/* when !capture */
	struct tqcl_op *fifo, *fifo_tail; /* captured commands not yet complete, in order */
	unsigned int nfifo;
	cl_event last_real;		/* the last command passed through (our reference) */
};

struct tqcl_mem {
	struct tqcl_node node;
	cl_mem m;
	struct tqcl_ctx *c;
	size_t size;
	cl_mem_flags flags;
	int refs;
	bool nocap;			/* aliased: never captured */
	enum tqcl_home home;
	void *shadow;			/* in the arena, or NULL */
	uint64_t off;
	unsigned int readers;		/* tasks and deferred reads using the shadow */
	unsigned int writers;		/* tasks writing the shadow */
	unsigned int mapped;		/* maps not yet unmapped */
};

/*
 * One tq kernel of a program: shared by every cl_kernel of that program and
 * name, looked up once. tq has no way to give a kernel back: usched keeps
 * it (in its quota too) while the tq context lives; this record goes with
 * the program's.
 */
struct tqcl_pkern {
	struct tqcl_pkern *next;
	int tq_state;			/* as tqcl_prog's */
	uint32_t tq_id;
	char name[];
};

struct tqcl_prog {
	struct tqcl_node node;
	cl_program p;
	struct tqcl_ctx *c;
	char *src;			/* NULL: not from source */
	size_t len;
	char *opts;			/* of the last successful build */
	int refs;
	int tq_state;			/* 0 not registered, 1 pending, 2 ok, < 0 refused */
	uint32_t tq_id;
	struct tqcl_pkern *kerns;	/* the tq kernels of this program, by name */
	bool globals_checked, globals;
};

#define TQCL_MAX_ARGS	64

enum tqcl_argk { A_UNSET, A_BUF, A_SCALAR, A_OTHER };

struct tqcl_arg {
	uint8_t kind;			/* enum tqcl_argk, as set */
	uint8_t size;
	uint8_t info;			/* from arg info: 0 unknown, 1 buffer, 2 scalar, 3 never */
	uint8_t ro;			/* a __constant or const pointer: the kernel only reads it */
	uint64_t val;			/* the scalar's bytes, or the cl_mem */
};

struct tqcl_kern {
	struct tqcl_node node;
	cl_kernel k;
	struct tqcl_prog *p;
	char name[128];
	unsigned int nargs;
	int refs;
	bool svm;
	bool bad_args;			/* more args than we track, or no name */
	struct tqcl_pkern *tqk;		/* p's tq kernel of this name; NULL until needed */
	struct tqcl_arg arg[TQCL_MAX_ARGS];
};

/* A registration (PROGRAM or KERNEL descriptor) in flight. */
struct tqcl_reg {
	int done, status;
	uint64_t result;
};

struct tqcl_task {
	struct tqcl_op *op;
	struct tqcl_kern *k;		/* referenced (kernel record refs) */
	unsigned int nmem;
	struct tqcl_mem *mem[TQ_MAX_BUFS];
	bool wr[TQ_MAX_BUFS];
	struct tq_desc d;		/* as submitted: the replay needs it */
	uint64_t user_data;
};

/* A captured command; its event is a user event of the context. */
struct tqcl_op {
	struct tqcl_node node;		/* keyed by ev in tqcl.evs */
	cl_event ev;			/* our reference */
	enum tqcl_cmd cmd;
	struct tqcl_queue *q;		/* valid while in_fifo */
	cl_command_queue queue;		/* referenced until the op is freed */
	cl_command_queue_properties props;
	struct tqcl_op *next;		/* in q's fifo */
	bool in_fifo, pushed, done, signalled, app_has;
	int app_refs;
	cl_int status;			/* CL_COMPLETE or a negative error once done */
	cl_int shown;			/* CL_QUEUED .. CL_COMPLETE as clGetEventInfo says */
	uint64_t t_queued, t_submit, t_start, t_end;
	struct tqcl_task *task;
};

struct tqcl {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool inited, disabled, tq_tried, tq_ok, profiling, forked;
	int stats_fd;			/* -1: no stats; 2: stderr */
	char stats_path[512];
	const char *device;		/* TQCL_DEVICE */
	size_t arena_bytes;
	unsigned int prio;		/* TQCL_PRIO: the context's class, an enum tq_prio */
	struct tq tq;
	pthread_t reaper, signaller;
	struct tqcl_map ctxs, queues, mems, progs, kerns, evs;
	struct tqcl_stats st;
	uint64_t seq;
	uint64_t last_reap_ns;		/* when the reaper last completed a task */
};

extern struct tqcl tqcl;

/* objects.c */
void *tqcl_map_get(struct tqcl_map *m, const void *key);
int tqcl_map_put(struct tqcl_map *m, struct tqcl_node *n, const void *key);
void tqcl_map_del(struct tqcl_map *m, const void *key);
struct tqcl_ctx *tqcl_ctx_get(cl_context ctx);
void tqcl_ctx_put(struct tqcl_ctx *c);
void tqcl_mem_drop(struct tqcl_mem *b);
void tqcl_kern_drop(struct tqcl_kern *k);
void tqcl_prog_drop(struct tqcl_prog *p);
void tqcl_queue_drop(struct tqcl_queue *q);
void tqcl_kern_init_args(struct tqcl_kern *k);

/* capture.c */
bool tqcl_tq_ready(void);
void tqcl_wait(void);
int tqcl_sync_arena(struct tqcl_mem *b, bool need_data);
int tqcl_sync_dev(struct tqcl_mem *b, bool will_write);
void tqcl_mem_idle(struct tqcl_mem *b, bool for_write);
int tqcl_register_kernel(struct tqcl_kern *k);
int tqcl_submit_task(struct tqcl_task *t);
struct tqcl_op *tqcl_op_new(struct tqcl_queue *q, enum tqcl_cmd cmd, cl_int *err);
void tqcl_op_push(struct tqcl_op *op);
void tqcl_signal_ready(void);
void tqcl_queue_drain(struct tqcl_queue *q);
void tqcl_op_unref(struct tqcl_op *op);
cl_int tqcl_errno_to_cl(int err);

#define LOCK()		pthread_mutex_lock(&tqcl.lock)
#define UNLOCK()	pthread_mutex_unlock(&tqcl.lock)

/* What a pass-through was: a write, read, kernel or other command. */
enum { K_WRITE, K_READ, K_KERNEL, K_OTHER };

/* copy.c */
void tqcl_copy(void *dst, const void *src, size_t len);

/* stats.c */
void tqcl_count_pass(enum tqcl_why why, int kind);
void tqcl_stats_print(void);

/* track.c: every tracked type's retain and release go through these two */
/* A retain succeeded (err 0): the record of obj, if any, counts one more at offset off. */
cl_int tqcl_ref_retained(cl_int err, struct tqcl_map *m, const void *obj, size_t off);
/* fn(record) under the lock, where the layer has a record of obj. */
void tqcl_rec_apply(struct tqcl_map *m, const void *obj, void (*fn)(void *rec));

/* l_RetainX(x): struct rec's field refs in tqcl.map counts it. */
#define RETAIN(fn, type, map, rec, refs)					\
	static cl_int CL_API_CALL l_##fn(type obj)				\
	{									\
		return tqcl_ref_retained(tqcl_next.cl##fn(obj), &tqcl.map, obj, \
					 offsetof(struct rec, refs));		\
	}

/* l_ReleaseX(x): drop(record), then the driver's release. */
#define RELEASE(fn, type, map, drop)						\
	static cl_int CL_API_CALL l_##fn(type obj)				\
	{									\
		tqcl_rec_apply(&tqcl.map, obj, drop);				\
		return tqcl_next.cl##fn(obj);					\
	}

/* events.c */
/* A clGet*Info answer: the n bytes at v into value (of size bytes), n into *size_ret. */
cl_int tqcl_info_ret(const void *v, size_t n, size_t size, void *value, size_t *size_ret);

/* pass.c */
/* A command passing through: its wait list and event as the driver gets them. */
struct pass {
	struct tqcl_queue *q;
	cl_uint nw;
	const cl_event *wl;
	cl_event *buf;
	cl_event *evp, tmp, *app;
};

/*
 * Before a command passes through (takes the lock and drops it): the n
 * buffers mems (wr[i]: written; wr NULL: all) hold their data in the
 * driver, and it waits for the queue's captured commands. Counted as
 * passed for why, as kind. Returns 0 or the CL error of a sync.
 */
cl_int tqcl_pass_begin(struct pass *p, cl_command_queue queue, cl_mem *mems, const bool *wr,
		       unsigned int n, cl_uint nw, const cl_event *wl, cl_event *ev,
		       enum tqcl_why why, int kind);
/* After it, err its result: its event is the queue's last command passed through. */
void tqcl_pass_end(struct pass *p, cl_int err);

/*
 * Pass call through for why, counted as kind, and return its error: the n
 * buffers mems (wr[i]: written; wr NULL: all) go to the driver first, and
 * it is ordered after the queue's captured commands. call names the wait
 * list and event as p.nw, p.wl, p.evp.
 */
#define PASS_WHY(call, why, queue, mems, wr, n, kind, nw, wl, ev)		\
	do {									\
		struct pass p;							\
		cl_int e = tqcl_pass_begin(&p, queue, mems, wr, n, nw, wl, ev,	\
					   why, kind);				\
		if (!e)								\
			e = call;						\
		tqcl_pass_end(&p, e);						\
		return e;							\
	} while (0)

/*
 * Each file's overrides into the layer's dispatch table t (clInitLayer(),
 * api.c); every other entry stays the next one's.
 */
#define OVERRIDE(t, f)	((t)->cl##f = l_##f)
void tqcl_override_track(struct _cl_icd_dispatch *t);
void tqcl_override_program(struct _cl_icd_dispatch *t);
void tqcl_override_events(struct _cl_icd_dispatch *t);
void tqcl_override_enqueue(struct _cl_icd_dispatch *t);
void tqcl_override_pass(struct _cl_icd_dispatch *t);

#endif /* TQCL_H */
