/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * tqsubmit_ring.h - the pure part of the rings and task slots of the
 * tqsubmit ABI, compiled into both of its servers: the module (kmod/) and
 * tqsubmitd (usched/tqsubmitd/). Each server keeps its own locking, memory
 * barriers and memory: it loads a shared index once, with the barrier its
 * pairing names (kmod/tq.h, A-N), and hands the value to the arithmetic
 * here; it stores its own indexes likewise. What is left is the same
 * computation on both sides: the layout of a ring's mapping, the index
 * arithmetic of the six ring verbs, the tags, the completion entries, and
 * the decisions of the chains.
 */
#ifndef _TQ_TQSUBMIT_RING_H
#define _TQ_TQSUBMIT_RING_H

#ifdef __KERNEL__
#include <linux/errno.h>
#include <linux/stddef.h>
#else
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#endif
#include <linux/types.h>
#include <linux/tqsubmit.h>
#include <tq/tqsubmit_check.h>

/**
 * struct tq_ring - a server's view of one ring it maps
 * @base: the server's mapping of the ring (the module's vmalloc_user()
 *	memory, tqsubmitd's mapping of its memfd)
 * @size: bytes of @base (whole pages)
 * @producer: the shared producer index
 * @consumer: the shared consumer index
 * @flags: the shared flags word (server-written)
 * @entries: the entry array
 * @nr: number of entries, a power of two
 * @cached: the server's own index: SQ consumer or CQ producer
 * @space: CQ: entries known free at the last look at the consumer
 */
struct tq_ring {
	void *base;
	size_t size;
	__u32 *producer;
	__u32 *consumer;
	__u32 *flags;
	void *entries;
	__u32 nr;
	__u32 cached;
	__u32 space;
};

/* Point @r's parts into @base, @size bytes holding @nr entries. */
static inline void tq_ring_init(struct tq_ring *r, void *base, size_t size, __u32 nr)
{
	r->base = base;
	r->size = size;
	r->producer = (__u32 *)((char *)base + TQ_RING_PRODUCER);
	r->consumer = (__u32 *)((char *)base + TQ_RING_CONSUMER);
	r->flags = (__u32 *)((char *)base + TQ_RING_FLAGS);
	r->entries = (char *)base + TQ_RING_ENTRIES;
	r->nr = nr;
}

/* What TQ_IOC_SETUP reports of a ring mapped at @off. */
static inline void tq_ring_offsets(struct tq_ring_offsets *o, const struct tq_ring *r, __u64 off)
{
	o->mmap_offset = off;
	o->mmap_size = r->size;
	o->producer = TQ_RING_PRODUCER;
	o->consumer = TQ_RING_CONSUMER;
	o->flags = TQ_RING_FLAGS;
	o->entries = TQ_RING_ENTRIES;
}

/*
 * The six ring verbs' arithmetic. The server consumes the SQ and produces
 * the CQ: peek, entry, release on the SQ; reserve, entry, submit on the
 * CQ. Release and submit are only the server's stores; the rest is here.
 */

/* Descriptors available in the SQ at @producer, or -EBADMSG if it is corrupt. */
static inline int tq_sq_avail(const struct tq_ring *sq, __u32 producer)
{
	__u32 avail = producer - sq->cached;

	return avail > sq->nr ? -EBADMSG : (int)avail;
}

static inline struct tq_desc *tq_sq_entry(struct tq_ring *sq, __u32 i)
{
	return (struct tq_desc *)sq->entries + (i & (sq->nr - 1));
}

/* Free CQ entries at @consumer, or -EBADMSG if the client corrupted it. */
static inline int tq_cq_free(const struct tq_ring *cq, __u32 consumer)
{
	__u32 used = cq->cached - consumer;

	return used > cq->nr ? -EBADMSG : (int)(cq->nr - used);
}

static inline struct tq_cqe *tq_cq_entry(struct tq_ring *cq, __u32 i)
{
	return (struct tq_cqe *)cq->entries + (i & (cq->nr - 1));
}

/*
 * Whether a doorbell could give the scheduler work, from a context's SQ
 * descriptors not taken (@pending), CQ entries not consumed (@used) and
 * slots in use: a slot is free and the CQ has an entry for its completion.
 * A corrupt index says yes: the scheduler's look finds it and breaks the
 * rings.
 */
static inline bool tq_can_take(const struct tq_ring *sq, const struct tq_ring *cq,
			       __u32 pending, __u32 used, __u32 in_use, __u32 nr_slots)
{
	if (pending > sq->nr || used > cq->nr)
		return true;
	return in_use < nr_slots && cq->nr - used > in_use;
}

/* Write every field of a CQ entry: it is reused, and the client may be reading. */
static inline void tq_cqe_write(struct tq_cqe *cqe, __u64 user_data, int status, __u32 flags,
				__u64 result, __u64 queued, __u64 start, __u64 end)
{
	cqe->user_data = user_data;
	cqe->status = status;
	cqe->flags = flags;
	cqe->result = result;
	cqe->queued_ns = queued;
	cqe->start_ns = start;
	cqe->end_ns = end;
	cqe->resv[0] = 0;
	cqe->resv[1] = 0;
}

enum tq_slot_state {
	TQ_SLOT_FREE,
	TQ_SLOT_PENDING,	/* taken from the SQ, waiting for a scheduler */
	TQ_SLOT_DELIVERED,	/* given to the scheduler, not completed */
	TQ_SLOT_HELD,		/* a successor kept back until its predecessor completes */
};

/*
 * A TASK event's tag: the slot's index, and its generation after this
 * delivery (the server bumps @gen once the event is given).
 */
static inline __u64 tq_slot_tag(__u32 gen, __u32 idx)
{
	return (__u64)(gen + 1) << 32 | idx;
}

/*
 * Whether a successor waits in the server: its predecessor is in flight
 * (@pred, its number, is set) and the scheduler does not take chains, or
 * the predecessor (in @pred_state) has not been given to it.
 */
static inline bool tq_chain_waits(__u64 pred, bool chains, __u8 pred_state)
{
	return pred && (!chains || pred_state != TQ_SLOT_DELIVERED);
}

/* What becomes of the successor of a task that ended (tq_chain_next()). */
enum tq_settle {
	TQ_SETTLE_STAY,		/* the predecessor succeeded; it was not held */
	TQ_SETTLE_RELEASE,	/* the predecessor succeeded: a held one becomes pending */
	TQ_SETTLE_OWED,		/* it failed, and the scheduler holds the successor:
				 * the scheduler owes it -ECANCELED (@pred_failed)
				 */
	TQ_SETTLE_CANCEL,	/* it failed: the successor ends with -ECANCELED,
				 * never run, and the walk goes on to its own
				 */
};

/* The successor, in @state, of a task that ended with @status. */
static inline enum tq_settle tq_chain_next(int status, __u8 state)
{
	if (!status)
		return state == TQ_SLOT_HELD ? TQ_SETTLE_RELEASE : TQ_SETTLE_STAY;
	return state == TQ_SLOT_DELIVERED ? TQ_SETTLE_OWED : TQ_SETTLE_CANCEL;
}

#endif /* _TQ_TQSUBMIT_RING_H */
