/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * tqsubmit_check.h - the pure checks and sizes of the tqsubmit ABI, compiled
 * into both of its servers: the module (kmod/) and tqsubmitd, its user-space
 * twin (usched/tqsubmitd/). Whatever a client can observe about validation, the
 * rounding of ring and arena sizes or the ring layout comes from here, so
 * that the two transports cannot drift apart.
 *
 * Nothing here touches shared memory except tq_desc_copy(), which reads each
 * word of an SQ entry once (READ_ONCE in the kernel, a relaxed atomic load in
 * user space). Types are the __u ones of <linux/types.h>; errors are negative
 * errno values.
 */
#ifndef _TQ_TQSUBMIT_CHECK_H
#define _TQ_TQSUBMIT_CHECK_H

#ifdef __KERNEL__
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/stddef.h>
#include <linux/string.h>
#define TQ_LOAD_ONCE(x)		READ_ONCE(x)
#else
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#define TQ_LOAD_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#endif
#include <linux/types.h>
#include <linux/tqsubmit.h>

/* Where each part of a ring lies in its mapping (reported in tq_ring_offsets). */
#define TQ_RING_PRODUCER	0
#define TQ_RING_CONSUMER	64
#define TQ_RING_FLAGS		128
#define TQ_RING_ENTRIES		256

#define TQ_RING_HARD_MAX	65536U	/* ceiling for ring_entries_max */
#define TQ_ERRNO_MAX		4095	/* completion status: -TQ_ERRNO_MAX .. 0 */

/* The features both servers have; tqsubmitd adds TQ_FEAT_SOCKET. */
#define TQ_FEATURES	(TQ_FEAT_NEED_WAKEUP | TQ_FEAT_PROGRAMS | TQ_FEAT_REQUEUE | \
			 TQ_FEAT_POLL | TQ_FEAT_IDEMPOTENT | TQ_FEAT_CHAINS | TQ_FEAT_QOS)

/* The TQ_IOC_ATTACH flags both servers know. */
#define TQ_ATTACH_FLAGS	TQ_ATTACH_F_CHAINS

static inline __u32 tq_roundup_pow2(__u32 n)
{
	__u32 p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

/* The ring_entries_max limit as applied: 1 .. TQ_RING_HARD_MAX, a power of two. */
static inline __u32 tq_ring_max(__u32 param)
{
	__u32 n = param < 1 ? 1 : param > TQ_RING_HARD_MAX ? TQ_RING_HARD_MAX : param;
	__u32 p = 1;

	while (p <= n / 2)
		p <<= 1;
	return p;
}

/* Bytes of a ring's mapping: the header page part, then the entries, in whole pages. */
static inline __u64 tq_ring_bytes(__u32 nr, __u32 entry_size, __u64 page_size)
{
	__u64 n = TQ_RING_ENTRIES + (__u64)nr * entry_size;

	return (n + page_size - 1) & ~(page_size - 1);
}

/* Task slots of a context: min(inflight_max, cq entries), at least 1. */
static inline __u32 tq_nr_slots(__u32 inflight_max, __u32 cq)
{
	__u32 n = inflight_max ? inflight_max : 1;

	return n < cq ? n : cq;
}

static inline bool tq_zero(const void *p, size_t n)
{
#ifdef __KERNEL__
	return !memchr_inv(p, 0, n);
#else
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
#endif
}

/* TQ_IOC_SETUP's flags, reserved bytes and class: 0 or -EINVAL. */
static inline int tq_setup_check(const struct tq_setup *s)
{
	if (s->flags || !tq_zero(s->resv, sizeof(s->resv)) || s->prio > TQ_PRIO_MAX)
		return -EINVAL;
	return 0;
}

/**
 * tq_setup_sizes() - check and round TQ_IOC_SETUP's sizes
 * @s: the caller's struct, passed by tq_setup_check()
 * @ring_max: tq_ring_max() of the limit
 * @arena_max: the largest arena
 * @page_size: the arena's rounding
 * @sq: out: SQ entries
 * @cq: out: CQ entries
 * @arena: out: arena bytes
 *
 * Return: 0, -ERANGE (ring entries), -EINVAL (no arena), -EFBIG (arena too
 * large) or -EBADF (an eventfd below -1).
 */
static inline int tq_setup_sizes(const struct tq_setup *s, __u32 ring_max, __u64 arena_max,
				 __u64 page_size, __u32 *sq, __u32 *cq, __u64 *arena)
{
	__u32 c;

	if (!s->sq_entries || s->sq_entries > ring_max || s->cq_entries > ring_max)
		return -ERANGE;
	if (!s->arena_bytes)
		return -EINVAL;
	if (s->arena_bytes > arena_max)
		return -EFBIG;
	if (s->eventfd < -1)
		return -EBADF;
	*sq = tq_roundup_pow2(s->sq_entries);
	c = s->cq_entries ? s->cq_entries : (2 * *sq < ring_max ? 2 * *sq : ring_max);
	*cq = tq_roundup_pow2(c > *sq ? c : *sq);
	*arena = (s->arena_bytes + page_size - 1) & ~(page_size - 1);
	return 0;
}

/* A buffer in use: a known direction, non-empty, inside the arena. */
static inline int tq_buf_check(const struct tq_buf *b, __u64 arena_bytes)
{
	if (b->resv || !b->len)
		return -EINVAL;
	switch (b->dir) {
	case TQ_DIR_SCRATCH:
		return b->offset ? -EINVAL : 0;
	case TQ_DIR_IN:
	case TQ_DIR_OUT:
	case TQ_DIR_INOUT:
		break;
	default:
		return -EINVAL;
	}
	if (b->offset > arena_bytes || b->len > arena_bytes - b->offset)
		return -EFAULT;
	return 0;
}

static inline int tq_task_check(const struct tq_desc *d, __u64 arena_bytes)
{
	unsigned int nargs = d->nr_bufs + d->nr_scalars;
	__u32 seen = 0;
	unsigned int i;
	int ret;

	if (d->flags & ~(TQ_DESC_F_LOCAL | TQ_DESC_F_IDEMPOTENT | TQ_DESC_F_AFTER |
			 TQ_DESC_PRIO_MASK | TQ_DESC_DEADLINE_MASK))
		return -EINVAL;
	if (TQ_DESC_PRIO_OF(d->flags) > TQ_PRIO_MAX)
		return -EINVAL;
	if (!d->work_dim || d->work_dim > TQ_MAX_DIMS)
		return -EINVAL;
	for (i = 0; i < TQ_MAX_DIMS; i++) {
		bool used = i < d->work_dim;
		bool local = used && (d->flags & TQ_DESC_F_LOCAL);

		if (used != !!d->global[i] || local != !!d->local[i])
			return -EINVAL;
	}
	for (i = 0; i < d->nr_bufs; i++) {
		const struct tq_buf *b = &d->bufs[i];

		ret = tq_buf_check(b, arena_bytes);
		if (ret)
			return ret;
		if (b->arg >= nargs || (seen & (1U << b->arg)))
			return -EINVAL;
		seen |= 1U << b->arg;
	}
	for (i = 0; i < d->nr_scalars; i++) {
		const struct tq_scalar *s = &d->scalars[i];

		if (s->size != 1 && s->size != 2 && s->size != 4 && s->size != 8)
			return -EINVAL;
		if (!tq_zero(s->resv, sizeof(s->resv)) ||
		    !tq_zero((const __u8 *)&s->value + s->size, sizeof(s->value) - s->size))
			return -EINVAL;
		if (s->arg >= nargs || (seen & (1U << s->arg)))
			return -EINVAL;
		seen |= 1U << s->arg;
	}
	return 0;
}

/* PROGRAM: source (or a built-in's name) and options; KERNEL: a name. */
static inline int tq_prog_check(const struct tq_desc *d, __u64 arena_bytes)
{
	unsigned int max_bufs = d->opcode == TQ_OP_PROGRAM ? 2 : 1;
	__u32 flags = d->opcode == TQ_OP_PROGRAM ? TQ_DESC_F_BUILTIN : 0;
	unsigned int i;
	int ret;

	if (d->flags & ~flags)
		return -EINVAL;
	if (d->work_dim || d->nr_scalars || d->kernel ||
	    (d->opcode == TQ_OP_PROGRAM && d->program) ||
	    !tq_zero(d->global, sizeof(d->global)) || !tq_zero(d->local, sizeof(d->local)))
		return -EINVAL;
	if (!d->nr_bufs)
		return -EINVAL;
	if (d->nr_bufs > max_bufs)
		return -E2BIG;
	for (i = 0; i < d->nr_bufs; i++) {
		if (d->bufs[i].dir != TQ_DIR_IN || d->bufs[i].arg)
			return -EINVAL;
		ret = tq_buf_check(&d->bufs[i], arena_bytes);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * tq_desc_copy() - copy a descriptor out of an SQ, and see a clean NOP
 * @dst: the server's copy
 * @src: the SQ entry, which the client may be rewriting
 *
 * Each word is read once; the words after @user_data are ORed on the way,
 * so the common NOP needs no second look at its 240 bytes of zeros.
 *
 * Return: true for a valid NOP; otherwise tq_desc_check() decides.
 */
static inline bool tq_desc_copy(struct tq_desc *dst, const struct tq_desc *src)
{
	const __u64 *s = (const __u64 *)src;
	__u64 *d = (__u64 *)dst, tail = 0;
	unsigned int i;

	d[0] = TQ_LOAD_ONCE(s[0]);
	d[1] = TQ_LOAD_ONCE(s[1]);
	/* d[2] on is struct tq_desc from @program: all zero in a NOP. */
	for (i = 2; i < sizeof(*dst) / sizeof(__u64); i++) {
		d[i] = TQ_LOAD_ONCE(s[i]);
		tail |= d[i];
	}
	return dst->opcode == TQ_OP_NOP && !tail &&
	       !(dst->work_dim | dst->nr_bufs | dst->nr_scalars | dst->flags);
}

/**
 * tq_desc_check() - validate a descriptor copied out of an SQ
 * @d: the copy; the client may be rewriting the original
 * @arena_bytes: the context's arena size
 *
 * Return: 0, or the status of the error completion the client gets:
 * -EOPNOTSUPP unknown opcode, -E2BIG a count above its maximum, -EFAULT a
 * buffer outside the arena, -EINVAL anything else.
 */
static inline int tq_desc_check(const struct tq_desc *d, __u64 arena_bytes)
{
	if (d->opcode < TQ_OP_NOP || d->opcode > TQ_OP_KERNEL)
		return -EOPNOTSUPP;
	if (d->nr_bufs > TQ_MAX_BUFS || d->nr_scalars > TQ_MAX_SCALARS)
		return -E2BIG;
	/* @after's range is the chain check's (tq_chain_pred()), which knows the SQ. */
	if (!d->after != !(d->flags & TQ_DESC_F_AFTER) ||
	    !tq_zero(&d->bufs[d->nr_bufs], (TQ_MAX_BUFS - d->nr_bufs) * sizeof(d->bufs[0])) ||
	    !tq_zero(&d->scalars[d->nr_scalars],
		     (TQ_MAX_SCALARS - d->nr_scalars) * sizeof(d->scalars[0])))
		return -EINVAL;

	switch (d->opcode) {
	case TQ_OP_NOP:
		if (d->work_dim || d->nr_bufs || d->nr_scalars || d->flags ||
		    !tq_zero(&d->program, sizeof(*d) - offsetof(struct tq_desc, program)))
			return -EINVAL;
		return 0;
	case TQ_OP_TASK:
		return tq_task_check(d, arena_bytes);
	default:
		return tq_prog_check(d, arena_bytes);
	}
}

/*
 * Whether a task its exiting scheduler had marked started must not run
 * again: a TASK without TQ_DESC_F_IDEMPOTENT (it may have run in part).
 */
static inline bool tq_desc_no_rerun(const struct tq_desc *d)
{
	return d->opcode == TQ_OP_TASK && !(d->flags & TQ_DESC_F_IDEMPOTENT);
}

/*
 * Chains (TQ_DESC_F_AFTER). Each server numbers the descriptors it takes
 * from a context's SQ (the event's seq: 1, 2, ...) and keeps one word per
 * number for the last SQ-entries numbers, in an array of that many words
 * indexed by seq & (entries - 1): what became of the descriptor, and
 * whether a successor named it. A descriptor's word is written when it is
 * taken (tq_chain_set()) and when its task ends (tq_chain_end()); a
 * successor's check reads its predecessor's word before its own is
 * written, so the word is always its predecessor's (@after <= entries).
 */
#define TQ_CHAIN_NONE		0U	/* not a TASK (NOP, PROGRAM, KERNEL) */
#define TQ_CHAIN_LIVE		1U	/* a TASK in a slot; the slot is word >> TQ_CHAIN_SHIFT */
#define TQ_CHAIN_OK		2U	/* a TASK completed with 0 */
#define TQ_CHAIN_FAIL		3U	/* a TASK refused, or completed with an error */
#define TQ_CHAIN_STATE		3U
#define TQ_CHAIN_NAMED		4U	/* a successor named it (at most one may) */
#define TQ_CHAIN_SHIFT		3

/* A descriptor taken: its word (@state, and @slot for TQ_CHAIN_LIVE). */
static inline void tq_chain_set(__u32 *words, __u32 nr, __u64 seq, __u32 state, __u32 slot)
{
	words[seq & (nr - 1)] = state | slot << TQ_CHAIN_SHIFT;
}

/* The word a refused descriptor leaves: a TASK's failed, anything else's none. */
static inline __u32 tq_chain_refused(const struct tq_desc *d)
{
	return d->opcode == TQ_OP_TASK ? TQ_CHAIN_FAIL : TQ_CHAIN_NONE;
}

/*
 * Descriptor @seq ended with @status; @last is the context's latest number.
 * A TASK's word is rewritten unless a later descriptor's has replaced it
 * (then no successor can name it any more); other words stay none.
 */
static inline void tq_chain_end(__u32 *words, __u32 nr, __u64 last, __u64 seq, int status)
{
	__u32 *w = &words[seq & (nr - 1)];

	if (last - seq < nr && (*w & TQ_CHAIN_STATE) != TQ_CHAIN_NONE)
		*w = (*w & TQ_CHAIN_NAMED) | (status ? TQ_CHAIN_FAIL : TQ_CHAIN_OK);
}

/**
 * tq_chain_pred() - where a valid descriptor's predecessor stands
 * @d: the descriptor, passed by tq_desc_check()
 * @seq: its number; its own word is not written yet
 * @words: the context's words (see above)
 * @nr: their number, the SQ's entries
 * @slot: out: the predecessor's slot, when it is live
 *
 * Marks the predecessor named.
 *
 * Return: 0 nothing to wait for (no TQ_DESC_F_AFTER, or the predecessor
 * completed with 0), 1 the predecessor is live in *@slot, -ECANCELED it
 * failed, -EINVAL no such predecessor: @after before the first descriptor
 * or past the SQ's entries, not a TASK, or named by another successor.
 */
static inline int tq_chain_pred(const struct tq_desc *d, __u64 seq, __u32 *words, __u32 nr,
				__u32 *slot)
{
	__u32 *w, st;

	if (!(d->flags & TQ_DESC_F_AFTER))
		return 0;
	if (d->after > nr || d->after >= seq)
		return -EINVAL;
	w = &words[(seq - d->after) & (nr - 1)];
	st = *w & TQ_CHAIN_STATE;
	if (st == TQ_CHAIN_NONE || (*w & TQ_CHAIN_NAMED))
		return -EINVAL;
	*w |= TQ_CHAIN_NAMED;
	if (st == TQ_CHAIN_FAIL)
		return -ECANCELED;
	if (st == TQ_CHAIN_OK)
		return 0;
	*slot = *w >> TQ_CHAIN_SHIFT;
	return 1;
}

/*
 * The form of one completion record, before what it names: 0 or -EINVAL.
 * RELEASE and STARTED records carry nothing but their ids; LATE is a
 * completion's.
 */
static inline int tq_completion_check(const struct tq_completion *c)
{
	const __u32 marks = TQ_COMPL_F_RELEASE | TQ_COMPL_F_STARTED;

	if (c->resv || (c->flags & ~(marks | TQ_COMPL_F_LATE)) ||
	    (c->flags & marks) == marks)
		return -EINVAL;
	if ((c->flags & marks) &&
	    ((c->flags & TQ_COMPL_F_LATE) || c->status || c->result || c->start_ns || c->end_ns))
		return -EINVAL;
	if ((c->flags & TQ_COMPL_F_RELEASE) && c->tag)
		return -EINVAL;
	if (c->status > 0 || c->status < -TQ_ERRNO_MAX)
		return -EINVAL;
	return 0;
}

/*
 * The flags of the cqe that completion @c (passed by tq_completion_check(),
 * no mark) gives task @d, or -EINVAL: LATE on a task without a deadline.
 */
static inline int tq_completion_cqe_flags(const struct tq_completion *c,
					  const struct tq_desc *d, bool requeued)
{
	if ((c->flags & TQ_COMPL_F_LATE) && !TQ_DESC_DEADLINE_OF(d->flags))
		return -EINVAL;
	return (requeued ? TQ_CQE_F_REQUEUED : 0) |
	       (c->flags & TQ_COMPL_F_LATE ? TQ_CQE_F_LATE : 0);
}

#endif /* _TQ_TQSUBMIT_CHECK_H */
