/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * tq.h - libtq, the client library of /dev/tqsubmit (tqsubmit.ko) and of
 * tqsubmitd, the same ABI served over a socket where no module is loaded.
 *
 * A struct tq is one context: a submission ring (SQ) of struct tq_desc, a
 * completion ring (CQ) of struct tq_cqe and a data arena, all shared with the
 * kernel (or tqsubmitd) and, through it, with the scheduling daemon. tq_open
 * picks the transport: its flags, else $TQ_TRANSPORT (module, socket or
 * auto), else the module when /dev/tqsubmit exists, else the socket
 * ($TQ_SOCKET, default TQ_SOCKET_PATH). The application does not change.
 * A client:
 *
 *	struct tq tq;
 *	struct tq_desc *d;
 *	struct tq_cqe *cqe;
 *
 *	tq_open(&tq, 64, 1 << 20, 0);
 *	d = tq_get_desc(&tq);
 *	tq_prep_nop(d);
 *	tq_desc_set_data(d, 42);
 *	tq_submit(&tq);
 *	tq_wait(&tq, &cqe, -1);
 *	... cqe->user_data == 42, cqe->status ...
 *	tq_cqe_seen(&tq, cqe);
 *	tq_close(&tq);
 *
 * Every function returns 0 (or a count) on success and a negative errno on
 * failure; tq_strerror() explains tq's errno contract. Functions that return
 * a pointer return NULL on failure.
 *
 * Thread safety (libtq(7) says the same):
 *  1. The submission side (tq_get_desc, tq_sq_space, tq_sq_ready, the
 *     tq_prep_* helpers on this context's slots, tq_submit) must be used by
 *     one thread at a time.
 *  2. The completion side (tq_peek, tq_peek_batch, tq_wait, tq_cqe_seen,
 *     tq_cq_advance) must be used by one thread at a time. It may run
 *     concurrently with the submission side: the two rings are independent.
 *  3. tq_buf_alloc, tq_buf_free, tq_enter, tq_event_fd and tq_strerror are
 *     thread-safe.
 *  4. tq_register_program, tq_register_program_log, tq_register_builtin and
 *     tq_lookup_kernel use both sides: nothing else may use the context
 *     meanwhile.
 *  5. tq_open and tq_close: nothing else may use the context meanwhile.
 *  6. Distinct contexts are independent.
 *  7. fork(): the child does not inherit the context (the kernel maps its
 *     rings and arena only into the process that set it up). In the child,
 *     every call on the parent's contexts fails with -EPERM (tq_get_desc
 *     returns NULL, tq_peek_batch 0) except tq_close, which frees the
 *     child's copy without touching the parent's context. A child that wants
 *     tasks calls tq_open. libtq sees fork() through pthread_atfork(); a raw
 *     clone() without CLONE_VM is not seen.
 *
 * Memory ordering: the letters at each barrier below are those of the
 * comment block of kmod/tq.h (Documentation/userspace-api/tqsubmit.rst): the
 * client side is A (publish SQ producer), D (read SQ consumer), F (read CQ
 * producer), G (publish CQ consumer) and J (full barrier before reading the
 * need-wakeup flag).
 */
#ifndef LIBTQ_TQ_H
#define LIBTQ_TQ_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <linux/tqsubmit.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TQ_DEVICE_PATH		"/dev/" TQ_DEVICE_NAME

/* A wait ends with -EHOSTDOWN after this long (ms) with no scheduler attached: tq_wait(3). */
#define TQ_ENV_SCHED_WAIT	"TQ_SCHED_WAIT_MS"
#define TQ_SCHED_WAIT_MS	10000

/* Arena allocations start and end on this boundary (device DMA alignment). */
#define TQ_BUF_ALIGN		512

struct tq_arena;

/* The submission ring as the client sees it. */
struct tq_sq {
	unsigned int *kproducer;	/* written by us, read by the kernel */
	unsigned int *kconsumer;	/* written by the kernel */
	unsigned int *kflags;		/* TQ_RING_*, written by the kernel */
	struct tq_desc *descs;
	unsigned int mask;
	unsigned int entries;
	unsigned int head;		/* last consumer index seen */
	unsigned int tail;		/* next slot tq_get_desc() hands out */
	void *map;
	size_t map_size;
};

/* The completion ring as the client sees it. */
struct tq_cq {
	unsigned int *kproducer;	/* written by the kernel */
	unsigned int *kconsumer;	/* written by us */
	unsigned int *kflags;
	struct tq_cqe *cqes;
	unsigned int mask;
	unsigned int entries;
	unsigned int head;		/* our consumer index */
	void *map;
	size_t map_size;
};

/* tq.flags */
#define TQ_F_FORKED	(1U << 0)	/* this is a fork()ed copy: hands off */
#define TQ_F_SOCKET	(1U << 1)	/* served by tqsubmitd: fd is its socket */

/* tq_open() flags: force a transport (neither: $TQ_TRANSPORT, else auto). */
#define TQ_OPEN_MODULE	(1U << 0)	/* /dev/tqsubmit */
#define TQ_OPEN_SOCKET	(1U << 1)	/* tqsubmitd's socket, $TQ_SOCKET or TQ_SOCKET_PATH */
/* tq_open() flags, bits 8-10: the context's class, an enum tq_prio (0: the default) */
#define TQ_OPEN_PRIO_SHIFT	8
#define TQ_OPEN_PRIO_MASK	(7U << TQ_OPEN_PRIO_SHIFT)
#define TQ_OPEN_PRIO(p)		(((unsigned int)(p) << TQ_OPEN_PRIO_SHIFT) & TQ_OPEN_PRIO_MASK)
#define TQ_OPEN_PRIO_OF(f)	(((f) & TQ_OPEN_PRIO_MASK) >> TQ_OPEN_PRIO_SHIFT)

/**
 * struct tq - one context
 * @sq: the submission ring
 * @cq: the completion ring
 * @fd: the /dev/tqsubmit file, or (TQ_F_SOCKET) the connection to tqsubmitd,
 *	which polls POLLHUP when tqsubmitd dies
 * @event_fd: the eventfd the kernel (tqsubmitd) signals when it posts completions
 * @flags: TQ_F_*
 * @ctx_id: the context's id, as the scheduler sees it
 * @max_inflight: tasks the scheduler may hold at once; more wait in the SQ
 * @features: TQ_FEAT_* of the module (TQ_FEAT_SOCKET: of tqsubmitd)
 * @arena: the arena's mapping
 * @arena_bytes: its size
 * @alloc: the arena's allocator (private)
 * @next: on libtq's list of open contexts (private, for fork())
 * @prev: likewise
 *
 * The fields are readable; only libtq writes them.
 */
struct tq {
	struct tq_sq sq;
	struct tq_cq cq;
	int fd;
	int event_fd;
	unsigned int flags;
	unsigned int ctx_id;
	unsigned int max_inflight;
	uint64_t features;
	void *arena;
	size_t arena_bytes;
	struct tq_arena *alloc;
	struct tq *next;
	struct tq *prev;
};

int tq_open(struct tq *tq, unsigned int entries, size_t arena_bytes, unsigned int flags);
void tq_close(struct tq *tq);

int tq_buf_alloc(struct tq *tq, size_t len, void **ptr, uint64_t *offset);
int tq_buf_free(struct tq *tq, void *ptr);

int tq_enter(struct tq *tq);
int tq_wait(struct tq *tq, struct tq_cqe **cqe, int timeout_ms);

int tq_register_program(struct tq *tq, const char *src, size_t len, const char *options,
			uint32_t *program);
int tq_register_program_log(struct tq *tq, const char *src, size_t len, const char *options,
			    uint32_t *program, char *log, size_t log_len);
int tq_register_builtin(struct tq *tq, const char *name, uint32_t *program);
int tq_lookup_kernel(struct tq *tq, uint32_t program, const char *name, uint32_t *kernel);

const char *tq_strerror(int err);

/*
 * Fast paths. Shared indices are read and written with atomic builtins; the
 * kernel never trusts them, and libtq trusts the kernel's.
 */

/*
 * The next free SQ slot, zeroed, or NULL when the SQ is full (submit, then
 * reap completions) or the context is not this process's.
 */
static inline struct tq_desc *tq_get_desc(struct tq *tq)
{
	struct tq_sq *sq = &tq->sq;
	struct tq_desc *d;

	if (tq->flags & TQ_F_FORKED)
		return NULL;
	if (sq->tail - sq->head >= sq->entries) {
		/* D, matches C: the kernel has copied the slots it released. */
		sq->head = __atomic_load_n(sq->kconsumer, __ATOMIC_ACQUIRE);
		if (sq->tail - sq->head >= sq->entries)
			return NULL;
	}
	d = &sq->descs[sq->tail++ & sq->mask];
	memset(d, 0, sizeof(*d));
	return d;
}

/* Free SQ slots: how many tq_get_desc() calls would succeed now. */
static inline unsigned int tq_sq_space(struct tq *tq)
{
	struct tq_sq *sq = &tq->sq;

	if (tq->flags & TQ_F_FORKED)
		return 0;
	/* D, matches C. */
	sq->head = __atomic_load_n(sq->kconsumer, __ATOMIC_ACQUIRE);
	return sq->entries - (sq->tail - sq->head);
}

/* Descriptors taken with tq_get_desc() and not yet submitted. */
static inline unsigned int tq_sq_ready(const struct tq *tq)
{
	if (tq->flags & TQ_F_FORKED)
		return 0;
	return tq->sq.tail - __atomic_load_n(tq->sq.kproducer, __ATOMIC_RELAXED);
}

/*
 * Publish every descriptor taken since the last call; ring the doorbell only
 * if the scheduler asked for it. Returns the number published or -errno.
 */
static inline int tq_submit(struct tq *tq)
{
	struct tq_sq *sq = &tq->sq;
	unsigned int n, flags;

	if (tq->flags & TQ_F_FORKED)
		return -EPERM;
	n = tq_sq_ready(tq);
	if (!n)
		return 0;
	/* A, matches B: the kernel sees the descriptors before the index. */
	__atomic_store_n(sq->kproducer, sq->tail, __ATOMIC_RELEASE);
	/* J, matches I: either the kernel sees our index or we see its flag. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	flags = __atomic_load_n(sq->kflags, __ATOMIC_RELAXED);
	if (flags & TQ_RING_BROKEN)
		return -EBADFD;
	if (flags & TQ_RING_NEED_WAKEUP) {
		int ret = tq_enter(tq);

		if (ret)
			return ret;
	}
	return n;
}

/* The oldest unseen completion: 0 and *cqe, or -EAGAIN if there is none. */
static inline int tq_peek(struct tq *tq, struct tq_cqe **cqe)
{
	struct tq_cq *cq = &tq->cq;
	unsigned int tail;

	if (tq->flags & TQ_F_FORKED)
		return -EPERM;
	/* F, matches E: the entries are written before the index. */
	tail = __atomic_load_n(cq->kproducer, __ATOMIC_ACQUIRE);
	if (tail == cq->head)
		return -EAGAIN;
	*cqe = &cq->cqes[cq->head & cq->mask];
	return 0;
}

/* Up to @max unseen completions, oldest first; returns how many (>= 0). */
static inline unsigned int tq_peek_batch(struct tq *tq, struct tq_cqe **cqes, unsigned int max)
{
	struct tq_cq *cq = &tq->cq;
	unsigned int i, n;

	if (tq->flags & TQ_F_FORKED)
		return 0;
	/* F, matches E. */
	n = __atomic_load_n(cq->kproducer, __ATOMIC_ACQUIRE) - cq->head;
	if (n > max)
		n = max;
	for (i = 0; i < n; i++)
		cqes[i] = &cq->cqes[(cq->head + i) & cq->mask];
	return n;
}

/* Hand @n completions back to the kernel; their entries become invalid. */
static inline void tq_cq_advance(struct tq *tq, unsigned int n)
{
	struct tq_cq *cq = &tq->cq;

	if (tq->flags & TQ_F_FORKED)
		return;
	cq->head += n;
	/* G, matches H: we are done reading the entries before the kernel reuses them. */
	__atomic_store_n(cq->kconsumer, cq->head, __ATOMIC_RELEASE);
}

static inline void tq_cqe_seen(struct tq *tq, struct tq_cqe *cqe)
{
	(void)cqe;
	tq_cq_advance(tq, 1);
}

/* The eventfd to poll or epoll for completions; read it before reaping. */
static inline int tq_event_fd(const struct tq *tq)
{
	return tq->event_fd;
}

/* Descriptor helpers: fill a slot from tq_get_desc(), which zeroed it. */

static inline void tq_desc_set_data(struct tq_desc *d, uint64_t user_data)
{
	d->user_data = user_data;
}

/*
 * Mark a task safe to run again after a scheduler's crash: running it anew,
 * whole, on the arena as a partial run may have left it gives the right
 * result (no TQ_DIR_INOUT buffer, no OUT buffer that the kernel also reads).
 * An unmarked task that may have started when its scheduler died completes
 * with -EOWNERDEAD and is never run again; a marked one is run again
 * (TQ_CQE_F_REQUEUED). Only where tq->features has TQ_FEAT_IDEMPOTENT: an
 * older module refuses the flag (-EINVAL), and runs every task again.
 */
static inline void tq_desc_set_idempotent(struct tq_desc *d)
{
	d->flags |= TQ_DESC_F_IDEMPOTENT;
}

/*
 * Chain a task after one of this context's earlier descriptors: it starts
 * only once that task has completed whole, and if that task fails it
 * completes with -ECANCELED without running. @after counts descriptors back
 * in submission order (1: the one submitted just before; every descriptor
 * counts, NOPs and refused ones too), 1 .. the SQ's entries; the
 * predecessor must be a task no other descriptor names. Only where
 * tq->features has TQ_FEAT_CHAINS: an older server refuses it (-EINVAL).
 */
static inline void tq_desc_set_after(struct tq_desc *d, uint32_t after)
{
	d->flags |= TQ_DESC_F_AFTER;
	d->after = after;
}

/*
 * A class by name: "background", "normal", "high", "critical", or "" or
 * "default" for TQ_PRIO_DEFAULT; -EINVAL for anything else.
 */
static inline int tq_prio_parse(const char *name)
{
	static const char *const names[] = { "default", "background", "normal", "high",
					     "critical" };
	unsigned int i;

	if (!*name)
		return TQ_PRIO_DEFAULT;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return i;
	return -EINVAL;
}

/*
 * A task's own priority class (enum tq_prio), instead of its context's;
 * TQ_PRIO_DEFAULT goes back to the context's. -EINVAL for an unknown class.
 * Only where tq->features has TQ_FEAT_QOS: an older server refuses the
 * descriptor (-EINVAL).
 */
static inline int tq_desc_set_prio(struct tq_desc *d, unsigned int prio)
{
	if (prio > TQ_PRIO_MAX)
		return -EINVAL;
	d->flags = (d->flags & ~TQ_DESC_PRIO_MASK) | TQ_DESC_PRIO(prio);
	return 0;
}

/*
 * A task's deadline: it should complete within @us microseconds of its
 * submission (from the cqe's queued_ns), rounded up to the ABI's
 * TQ_DEADLINE_UNIT_NS (100 us); 0 takes it away. -ERANGE past
 * TQ_DEADLINE_MAX units (6.5535 s). One that cannot be met completes with
 * -ETIMEDOUT without running, or runs and completes with TQ_CQE_F_LATE: the
 * scheduler's setting decides. Only where tq->features has TQ_FEAT_QOS.
 */
static inline int tq_desc_set_deadline(struct tq_desc *d, uint64_t us)
{
	const uint64_t unit_us = TQ_DEADLINE_UNIT_NS / 1000;
	uint64_t n = us / unit_us + (us % unit_us != 0);

	if (n > TQ_DEADLINE_MAX)
		return -ERANGE;
	d->flags = (d->flags & ~TQ_DESC_DEADLINE_MASK) | TQ_DESC_DEADLINE(n);
	return 0;
}

static inline void tq_prep_nop(struct tq_desc *d)
{
	d->opcode = TQ_OP_NOP;
}

/* A kernel launch; @local may be NULL to let the scheduler choose. */
static inline void tq_prep_task(struct tq_desc *d, uint32_t program, uint32_t kernel,
				unsigned int work_dim, const size_t *global, const size_t *local)
{
	unsigned int i;

	d->opcode = TQ_OP_TASK;
	d->work_dim = work_dim;
	d->program = program;
	d->kernel = kernel;
	if (local)
		d->flags |= TQ_DESC_F_LOCAL;
	for (i = 0; i < work_dim && i < TQ_MAX_DIMS; i++) {
		d->global[i] = global[i];
		if (local)
			d->local[i] = local[i];
	}
}

/* Bind arena bytes [@offset, @offset + @len) to kernel argument @arg. */
static inline int tq_prep_buf(struct tq_desc *d, unsigned int arg, uint64_t offset, uint32_t len,
			      enum tq_dir dir)
{
	struct tq_buf *b;

	if (d->nr_bufs >= TQ_MAX_BUFS)
		return -E2BIG;
	b = &d->bufs[d->nr_bufs++];
	b->offset = offset;
	b->len = len;
	b->dir = dir;
	b->arg = arg;
	return 0;
}

/* Pass the @size (1, 2, 4 or 8) bytes at @value as kernel argument @arg. */
static inline int tq_prep_scalar(struct tq_desc *d, unsigned int arg, const void *value,
				 unsigned int size)
{
	struct tq_scalar *s;

	if (size != 1 && size != 2 && size != 4 && size != 8)
		return -EINVAL;
	if (d->nr_scalars >= TQ_MAX_SCALARS)
		return -E2BIG;
	s = &d->scalars[d->nr_scalars++];
	s->arg = arg;
	s->size = size;
	memcpy(&s->value, value, size);
	return 0;
}

/* Build OpenCL C source held in the arena; @opt_len 0: no build options. */
static inline void tq_prep_program(struct tq_desc *d, uint64_t src_offset, uint32_t src_len,
				   uint64_t opt_offset, uint32_t opt_len)
{
	d->opcode = TQ_OP_PROGRAM;
	tq_prep_buf(d, 0, src_offset, src_len, TQ_DIR_IN);
	if (opt_len)
		tq_prep_buf(d, 0, opt_offset, opt_len, TQ_DIR_IN);
}

/* Load the built-in kernels/ task whose name is held in the arena. */
static inline void tq_prep_builtin(struct tq_desc *d, uint64_t name_offset, uint32_t name_len)
{
	d->opcode = TQ_OP_PROGRAM;
	d->flags = TQ_DESC_F_BUILTIN;
	tq_prep_buf(d, 0, name_offset, name_len, TQ_DIR_IN);
}

/* Look up the kernel of @program whose name is held in the arena. */
static inline void tq_prep_kernel(struct tq_desc *d, uint32_t program, uint64_t name_offset,
				  uint32_t name_len)
{
	d->opcode = TQ_OP_KERNEL;
	d->program = program;
	tq_prep_buf(d, 0, name_offset, name_len, TQ_DIR_IN);
}

#ifdef __cplusplus
}
#endif

#endif /* LIBTQ_TQ_H */
