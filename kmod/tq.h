/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tq.h - tqsubmit.ko's private types: the device, contexts, task slots and
 * the ring helpers.
 *
 * Locking: one mutex, tq.lock, guards the context lists, the id table's
 * writers, every task slot and the scheduler's state. The fast paths that
 * run without it are the client's doorbell (a few loads of its own context,
 * and an atomic and a wake-up only when the scheduler can take something),
 * poll() and mmap(); mmap() must not take it, because read() and write() hold it
 * while they copy to and from the scheduler's memory, which may fault and
 * take mmap_lock. It finds a context through the id table under RCU and a
 * reference instead.
 *
 * Calls go one way: main.c (the device's file operations) calls sched.c
 * and ctx.c, and sched.c calls ctx.c; ctx.c wakes the scheduler through
 * tq_kick(), an inline here. Every file reads main.c's data (tq, the
 * parameters).
 */
#ifndef _TQ_KMOD_H
#define _TQ_KMOD_H

#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/poll.h>
#include <linux/rcupdate.h>
#include <linux/types.h>
#include <linux/uio.h>
#include <linux/wait.h>
#include <linux/xarray.h>
#include <linux/tqsubmit.h>
#include <tq/tqsubmit_check.h>
#include <tq/tqsubmit_ring.h>

/*
 * Barriers of the rings. Each site names its letter and the one it pairs
 * with. SQ: the client produces, the kernel consumes. CQ: the kernel
 * produces, the client consumes.
 *
 * A: the client writes descriptors, then store-releases the SQ producer.
 * B: the kernel load-acquires the SQ producer, then copies descriptors.
 *    Pairs with A: the kernel never sees an index before its descriptor.
 * C: the kernel copies descriptors out, then store-releases the SQ consumer.
 * D: the client load-acquires the SQ consumer, then reuses those slots.
 *    Pairs with C: the client never overwrites a slot still being copied.
 * E: the kernel writes completions, then store-releases the CQ producer.
 * F: the client load-acquires the CQ producer, then reads completions.
 * G: the client reads completions, then store-releases the CQ consumer.
 * H: the kernel load-acquires the CQ consumer, then overwrites those slots.
 * I: the kernel sets TQ_RING_NEED_WAKEUP, smp_mb(), then reads the SQ
 *    producers and CQ consumers once more before it sleeps.
 * J: the client publishes its SQ producer or CQ consumer (A or G), smp_mb(),
 *    then reads the flags word. Pairs with I: either the kernel sees the new
 *    index or the client sees the flag and rings the doorbell.
 * K: a waker publishes its news (the kick count, a CQ producer), then
 *    wq_has_sleeper() (a full barrier) looks for waiters.
 * L: poll() queues its waiter, smp_mb(), then reads the news. Pairs with K:
 *    either the waker sees the waiter or poll() sees the news. Without it
 *    the queueing store may pass the load (store buffering), and an
 *    io_uring read armed on poll() would sleep through the doorbell.
 * M: the doorbell sets its context's @rung (a full barrier), then kicks.
 * N: the scheduler clears @rung (a full barrier), then reads the SQ
 *    producer. Pairs with M: a doorbell that finds @rung set and rings no
 *    further published its descriptors before a look that will see them.
 */

/*
 * The ring layout (TQ_RING_PRODUCER ...) is in <tq/tqsubmit_check.h>; struct
 * tq_ring, the slot states and the verbs' arithmetic, which tqsubmitd
 * shares, in <tq/tqsubmit_ring.h>.
 */

/* mmap() offsets of a context's regions (reported, not part of the ABI). */
#define TQ_OFF_SQ		0x00000000ULL
#define TQ_OFF_CQ		0x10000000ULL
#define TQ_OFF_ARENA		0x20000000ULL
/* On the scheduler fd, context N's arena is at N << TQ_SCHED_ARENA_SHIFT. */
#define TQ_SCHED_ARENA_SHIFT	40
#define TQ_CTX_ID_MAX		((1U << 22) - 1)

#define TQ_STAGE		32	/* completions staged per copy from the scheduler */
#define TQ_QUANTUM		32	/* tasks of one context per turn in a read() */

/**
 * struct tq_slot - one task the kernel took from a context's SQ
 * @node: on the context's free, pending or delivered list
 * @gen: bumped at each delivery; the high half of its tag
 * @state: an enum tq_slot_state
 * @requeued: a scheduler exited while holding it
 * @pred_failed: delivered with @ev.pred set, and that predecessor failed:
 *	the scheduler owes it -ECANCELED (the kernel gives it that if the
 *	scheduler exits first)
 * @pred_slot: while @ev.pred is set, the predecessor's slot
 * @succ: the slot (plus one) of the successor waiting for this task, or 0
 * @started_ns: when the scheduler holding it marked it started
 *	(TQ_COMPL_F_STARTED), or 0
 * @ev: the task's event as the scheduler reads it: @ev.task is the validated
 *	copy of the descriptor (the SQ entry is reused once taken),
 *	@ev.submit_ns when it was taken, @ev.seq its number and @ev.pred its
 *	live predecessor's (0 once that completed with 0); the rest of the
 *	header is written at each delivery, and @ev.resv stays zero. The event goes to the reader
 *	from here, in one copy.
 */
struct tq_slot {
	struct list_head node;
	u32 gen;
	u8 state;
	u8 requeued;
	u8 pred_failed;
	u32 pred_slot;
	u32 succ;
	u64 started_ns;
	struct tq_event ev;
};

/**
 * struct tq_ctx - a client context: one open() of /dev/tqsubmit after SETUP
 * @ref: held by the client's file, or by the closed list; mmap() of the
 *	scheduler fd takes a temporary one
 * @rcu: frees the context after lock-free id lookups are done with it
 * @node: on tq.live, then on tq.closed until the scheduler lets go
 * @dirty: on a read()/write() call's list of contexts to signal
 * @id: the id the scheduler sees
 * @pid: the process that set it up
 * @user: the owner, charged for @locked_pages
 * @uid: the owner's uid
 * @ev_pid: @pid as the scheduler sees it; set with its TQ_EV_OPEN
 * @ev_uid: @uid likewise
 * @mm: the address space allowed to map it and ring the doorbell
 * @arena: the shmem file behind the arena
 * @arena_bytes: arena size
 * @locked_pages: pages charged to @user
 * @efd: eventfd signalled on completions, or NULL
 * @wq: poll() waiters on the context fd
 * @sq: submission ring
 * @cq: completion ring
 * @slots: the task table, @nr_slots entries
 * @nr_slots: tasks this context may have taken and not completed
 * @free: free slots
 * @pending: slots waiting for a scheduler, oldest first
 * @delivered: slots the scheduler holds, in delivery order
 * @held: successors waiting for their predecessors (TQ_SLOT_HELD)
 * @seq: the number of the last descriptor taken (struct tq_event's seq)
 * @chain: one word per recent descriptor, @sq.nr of them (see
 *	tq_chain_pred() in <tq/tqsubmit_check.h>)
 * @in_use: slots pending or delivered; each has a CQ entry reserved
 * @rung: the doorbell woke the scheduler and it has not looked at this
 *	context since (M, N); further doorbells are absorbed
 * @known: the scheduler has read this context's TQ_EV_OPEN
 * @closed: the client has closed it
 * @close_sent: the scheduler has read its TQ_EV_CLOSE
 * @broken: the client corrupted a ring index
 * @is_dirty: on a @dirty list
 * @sq_flags: the kernel's copy of the SQ flags word
 * @submitted: descriptors taken from the SQ
 * @completed: completions posted
 * @rejected: descriptors refused by validation
 * @requeued: tasks given back by an exiting scheduler
 * @abandoned: started tasks completed with -EOWNERDEAD by the kernel when
 *	their scheduler exited
 */
struct tq_ctx {
	struct kref ref;
	struct rcu_head rcu;
	struct list_head node;
	struct list_head dirty;
	u32 id;
	struct pid *pid;
	struct user_struct *user;
	kuid_t uid;
	u32 ev_pid;
	u32 ev_uid;
	struct mm_struct *mm;
	struct file *arena;
	u64 arena_bytes;
	u8 prio;
	unsigned long locked_pages;
	struct eventfd_ctx *efd;
	wait_queue_head_t wq;
	struct tq_ring sq;
	struct tq_ring cq;
	struct tq_slot *slots;
	u32 nr_slots;
	struct list_head free;
	struct list_head pending;
	struct list_head delivered;
	struct list_head held;
	u64 seq;
	u32 *chain;
	u32 in_use;
	atomic_t rung;
	bool known;
	bool closed;
	bool close_sent;
	bool broken;
	bool is_dirty;
	u32 sq_flags;
	u64 submitted;
	u64 completed;
	u64 rejected;
	u64 requeued;
	u64 abandoned;
};

/* Global counters, shown in sysfs. */
struct tq_stats {
	atomic64_t contexts;
	atomic64_t submitted;
	atomic64_t delivered;
	atomic64_t completed;
	atomic64_t failed;
	atomic64_t rejected;
	atomic64_t dropped;
	atomic64_t in_flight;
	atomic64_t requeued;
	atomic64_t abandoned;
};

/*
 * The doorbell's counters, per CPU so that a storm of ENTERs from many
 * threads shares no cache line; sysfs shows their sums.
 */
struct tq_enter_stats {
	u64 enters;
	u64 absorbed;
};

DECLARE_PER_CPU(struct tq_enter_stats, tq_enter_stats);

/**
 * struct tq_dev - the device; there is one
 * @lock: see the top of this file
 * @live: contexts set up and not closed, in delivery round-robin order
 * @closed: closed contexts the scheduler still holds
 * @ctxs: id -> context, for write() and the scheduler's mmap()
 * @next_id: cyclic id allocation
 * @sched: the scheduler's file, or NULL
 * @sched_pid: its process
 * @sched_nr: its pid in the initial namespace, for sysfs
 * @sched_mm: the address space that attached; the only one that may read,
 *	write or map through the scheduler's fd
 * @sched_chains: it attached with TQ_ATTACH_F_CHAINS
 * @wq: the scheduler's read() and poll() waiters
 * @kick: bumped by anything that may give the scheduler work
 * @idle_kick: @kick's value when read() last found nothing
 * @need_wakeup: TQ_RING_NEED_WAKEUP is set in the live contexts' SQs
 * @dirty: contexts with completions to publish before tq.lock is dropped
 * @ev: an OPEN or CLOSE event being copied to the scheduler
 * @cmpl_stage: completions staged from one copy from the scheduler
 * @stats: the sysfs counters
 */
struct tq_dev {
	struct mutex lock;	/* see the top of this file */
	struct list_head live;
	struct list_head closed;
	struct xarray ctxs;
	u32 next_id;
	struct file *sched;
	struct pid *sched_pid;
	pid_t sched_nr;
	struct mm_struct *sched_mm;
	bool sched_chains;
	wait_queue_head_t wq;
	atomic_t kick;
	int idle_kick;
	bool need_wakeup;
	struct list_head dirty;
	struct tq_event ev;
	struct tq_completion cmpl_stage[TQ_STAGE];
	struct tq_stats stats;
};

extern struct tq_dev tq;

/* Module parameters, read once per use. */
extern unsigned int tq_ring_entries_max;
extern unsigned long tq_arena_bytes_max;
extern unsigned int tq_contexts_per_user;
extern unsigned int tq_inflight_max;

static inline u32 tq_param_ring_max(void)
{
	return tq_ring_max(READ_ONCE(tq_ring_entries_max));
}

/* The six ring verbs: the kernel's loads and stores around <tq/tqsubmit_ring.h>. */

/* Descriptors available in the SQ, or -EBADMSG if its producer is corrupt. */
static inline int tq_sq_peek(struct tq_ring *sq)
{
	return tq_sq_avail(sq, smp_load_acquire(sq->producer));	/* B, matches A */
}

static inline void tq_sq_release(struct tq_ring *sq, u32 n)
{
	sq->cached += n;
	smp_store_release(sq->consumer, sq->cached);	/* C, matches D */
}

/* Free CQ entries, or -EBADMSG if the client corrupted its consumer. */
static inline int tq_cq_reserve(struct tq_ring *cq)
{
	return tq_cq_free(cq, smp_load_acquire(cq->consumer));	/* H, matches G */
}

static inline void tq_cq_submit(struct tq_ring *cq)
{
	smp_store_release(cq->producer, cq->cached);	/* E, matches F */
}

/* Something may have given the scheduler work: wake its read() or poll(). */
static inline void tq_kick(void)
{
	atomic_inc(&tq.kick);
	if (wq_has_sleeper(&tq.wq))	/* K, matches L */
		wake_up_interruptible_poll(&tq.wq, EPOLLIN | EPOLLRDNORM);
}

/* ctx.c */
int tq_ctx_setup(struct file *file, void *arg);
int tq_ctx_enter(struct file *file, void *arg);
int tq_ctx_mmap(struct tq_ctx *ctx, struct vm_area_struct *vma);
int tq_arena_map(struct tq_ctx *ctx, struct vm_area_struct *vma);
__poll_t tq_ctx_poll(struct tq_ctx *ctx, struct file *file, struct poll_table_struct *pt);
void tq_ctx_close(struct tq_ctx *ctx);
void tq_ctx_put(struct tq_ctx *ctx);
void tq_ctx_unlink(struct tq_ctx *ctx);
void tq_ctx_fdinfo(struct seq_file *m, struct tq_ctx *ctx);
void tq_ctx_set_flags(struct tq_ctx *ctx, u32 set, u32 clear);
void tq_ctx_break(struct tq_ctx *ctx);
int tq_vma_check(struct vm_area_struct *vma);

/* sched.c */
int tq_sched_attach(struct file *file, void *arg);
void tq_sched_detach(void);
void tq_sched_fdinfo(struct seq_file *m);
ssize_t tq_sched_read(struct kiocb *iocb, struct iov_iter *to);
ssize_t tq_sched_write(struct kiocb *iocb, struct iov_iter *from);
__poll_t tq_sched_poll(struct file *file, struct poll_table_struct *pt);
int tq_sched_mmap(struct vm_area_struct *vma);

/* File kinds: private_data is NULL (fresh), &tq (the scheduler) or a context. */
static inline struct tq_ctx *tq_file_ctx(struct file *file)
{
	/* Pairs with the release in SETUP or ATTACH: the object is complete. */
	void *p = smp_load_acquire(&file->private_data);

	return p == &tq ? NULL : p;
}

static inline bool tq_file_is_sched(struct file *file)
{
	return smp_load_acquire(&file->private_data) == &tq;	/* as above */
}

/* vm_flags became read-only in 6.3, with helpers to change them (Kbuild probes). */
static inline void tq_vm_flags_mod(struct vm_area_struct *vma, vm_flags_t set, vm_flags_t clear)
{
#ifdef TQ_HAVE_VM_FLAGS_MOD
	vm_flags_mod(vma, set, clear);
#else
	vma->vm_flags = (vma->vm_flags | set) & ~clear;
#endif
}

#endif /* _TQ_KMOD_H */
