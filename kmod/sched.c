// SPDX-License-Identifier: GPL-2.0
/*
 * sched.c - the scheduler's side: attach and detach, read() of events,
 * write() of completions, poll() and the mapping of arenas.
 *
 * Tasks flow: a client's SQ entry is copied into a free slot of its context
 * (taken), validated, and copied to the scheduler in a TQ_EV_TASK event
 * (delivered) whose tag names the slot and its generation. The scheduler's
 * completion names the tag; the kernel writes the client's CQ entry and
 * frees the slot. A slot is taken only while the CQ has an entry free for
 * it, so completions always fit. When the scheduler exits, delivered slots
 * become pending again and go to the next scheduler first, except tasks it
 * had marked started (TQ_COMPL_F_STARTED) that are not idempotent: the
 * kernel completes those with -EOWNERDEAD, since they may have run in part.
 *
 * Chains: a TASK with TQ_DESC_F_AFTER names a predecessor; the slot links
 * both ways (@succ, @pred_slot and @ev.pred) while both are in use, and
 * the context's chain words (<tq/tqsubmit_check.h>) remember how recent
 * descriptors ended. A successor is delivered while its predecessor is in
 * flight only to a scheduler that attached with TQ_ATTACH_F_CHAINS, and
 * only once its predecessor was delivered to it; otherwise it is held
 * until the predecessor completes. When a task ends with an error, its
 * successor is cancelled unless the scheduler holds it, and so on down the
 * chain: each task has at most one successor, so that is a walk, not a
 * search.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/eventfd.h>
#include <linux/nospec.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/timekeeping.h>

#include "tq.h"

static void tq_eventfd_signal(struct eventfd_ctx *efd)
{
#ifdef TQ_EVENTFD_SIGNAL_1ARG	/* 6.8 dropped the count; see Kbuild */
	eventfd_signal(efd);
#else
	eventfd_signal(efd, 1);
#endif
}

/*
 * TQ_IOC_ATTACH: make a fresh fd the one scheduler. The opener's credentials
 * decide, as for other privileges that come with an fd: an fd opened without
 * CAP_SYS_ADMIN (in the initial user namespace) cannot be made the scheduler
 * by a privileged process it was passed to, and a daemon may open the device
 * before it drops its privileges.
 */
int tq_sched_attach(struct file *file, void *arg)
{
	struct tq_attach *a = arg;
	int ret = 0;

	if (a->flags & ~TQ_ATTACH_FLAGS)
		return -EINVAL;
	if (!file_ns_capable(file, &init_user_ns, CAP_SYS_ADMIN))
		return -EPERM;
	mutex_lock(&tq.lock);
	if (file->private_data) {
		ret = -EINVAL;
	} else if (tq.sched) {
		ret = -EBUSY;
	} else {
		tq.sched = file;
		tq.sched_pid = get_pid(task_tgid(current));
		WRITE_ONCE(tq.sched_nr, pid_nr(tq.sched_pid));
		tq.sched_mm = current->mm;
		mmgrab(tq.sched_mm);
		tq.sched_chains = a->flags & TQ_ATTACH_F_CHAINS;
		/* Whatever waits is news to this scheduler. */
		tq.idle_kick = atomic_read(&tq.kick) - 1;
		smp_store_release(&file->private_data, &tq);	/* see tq_file_ctx() */
	}
	mutex_unlock(&tq.lock);
	a->features = TQ_FEATURES;
	return ret;
}

/* The (kernel's copy of the) need-wakeup flag of every live context. */
static void tq_set_need_wakeup(bool on)
{
	struct tq_ctx *ctx;

	if (tq.need_wakeup == on)
		return;
	tq.need_wakeup = on;
	list_for_each_entry(ctx, &tq.live, node)
		tq_ctx_set_flags(ctx, on ? TQ_RING_NEED_WAKEUP : 0, on ? 0 : TQ_RING_NEED_WAKEUP);
}

/* Publish the completions written to each dirty context's CQ, then signal. */
static void tq_flush_dirty(void)
{
	struct tq_ctx *ctx, *tmp;
	bool kick = false;

	list_for_each_entry_safe(ctx, tmp, &tq.dirty, dirty) {
		list_del_init(&ctx->dirty);
		ctx->is_dirty = false;
		tq_cq_submit(&ctx->cq);
		if (ctx->efd)
			tq_eventfd_signal(ctx->efd);
		if (wq_has_sleeper(&ctx->wq))	/* K, matches L */
			wake_up_poll(&ctx->wq, EPOLLIN | EPOLLRDNORM);
		/*
		 * Freed slots may let descriptors waiting in the SQ through, and
		 * completions release held successors.
		 */
		if (READ_ONCE(*ctx->sq.producer) != ctx->sq.cached || !list_empty(&ctx->pending))
			kick = true;
	}
	if (kick)
		tq_kick();
}

/*
 * The next CQ entry, reserved when its task was taken; the caller writes
 * every field of it. NULL once the rings broke.
 */
static struct tq_cqe *tq_cq_next(struct tq_ctx *ctx)
{
	if (!ctx->cq.space) {
		int space = tq_cq_reserve(&ctx->cq);

		if (space <= 0) {
			/* Only a consumer index moved backwards gets here. */
			tq_ctx_break(ctx);
			return NULL;
		}
		ctx->cq.space = space;
	}
	ctx->cq.space--;
	ctx->completed++;
	if (!ctx->is_dirty) {
		ctx->is_dirty = true;
		list_add_tail(&ctx->dirty, &tq.dirty);
	}
	return tq_cq_entry(&ctx->cq, ctx->cq.cached++);
}

/* The kernel completes a task itself: its CQE, and the slot freed. */
static void tq_end(struct tq_ctx *ctx, struct tq_slot *slot, int status, u64 start, u64 end)
{
	struct tq_cqe *cqe = ctx->broken ? NULL : tq_cq_next(ctx);

	if (cqe)
		tq_cqe_write(cqe, slot->ev.task.user_data, status,
			     slot->requeued ? TQ_CQE_F_REQUEUED : 0, 0, slot->ev.submit_ns,
			     start, end);
	slot->started_ns = 0;
	slot->state = TQ_SLOT_FREE;
	list_move(&slot->node, &ctx->free);
	ctx->in_use--;
	atomic64_inc(&tq.stats.failed);
	atomic64_dec(&tq.stats.in_flight);
}

/*
 * Task @slot of @ctx ends with @status (the caller frees it afterwards): its
 * chain word says so, and its successor is settled. With 0 the successor
 * may go: a held one becomes pending. With an error it is cancelled
 * (-ECANCELED, never run), and its own successor after it, unless the
 * scheduler holds it: then the scheduler owes it -ECANCELED (@pred_failed).
 * A cancelled slot is free but untouched until the next take, so the walk
 * reads its @succ after freeing it.
 */
static void tq_chain_settle(struct tq_ctx *ctx, struct tq_slot *slot, int status)
{
	struct tq_slot *next;
	u32 succ;

	if (ctx->closed)	/* its successors are dropped, or delivered */
		return;
	for (;;) {
		tq_chain_end(ctx->chain, ctx->sq.nr, ctx->seq, slot->ev.seq, status);
		succ = slot->succ;
		slot->succ = 0;
		if (!succ)
			return;
		next = &ctx->slots[succ - 1];
		next->ev.pred = 0;
		switch (tq_chain_next(status, next->state)) {
		case TQ_SETTLE_STAY:
			return;
		case TQ_SETTLE_RELEASE:
			next->state = TQ_SLOT_PENDING;
			list_move_tail(&next->node, &ctx->pending);
			return;
		case TQ_SETTLE_OWED:
			next->pred_failed = 1;
			return;
		case TQ_SETTLE_CANCEL:
			break;
		}
		tq_end(ctx, next, -ECANCELED, 0, 0);
		slot = next;
		status = -ECANCELED;
	}
}

/*
 * Whether a task the exiting scheduler holds must not run again: it was
 * marked started and is a TASK that is not idempotent.
 */
static bool tq_slot_abandoned(const struct tq_slot *slot)
{
	return slot->started_ns && tq_desc_no_rerun(&slot->ev.task);
}

/*
 * The scheduler's file is released: what it took and did not complete goes
 * back to its contexts, in order, ahead of what they submit next, except
 * the tasks that may have run in part, which complete with -EOWNERDEAD
 * (their CQ entries were reserved when they were taken), and successors
 * whose predecessor had failed, which complete with -ECANCELED; their own
 * successors are cancelled after them. The closed contexts it held are
 * let go.
 */
void tq_sched_detach(void)
{
	struct tq_ctx *ctx, *tmp;
	struct tq_slot *slot, *next;
	u64 requeued = 0, abandoned = 0, now = ktime_get_ns();
	LIST_HEAD(ending);
	int status;

	mutex_lock(&tq.lock);
	list_for_each_entry(ctx, &tq.live, node) {
		list_for_each_entry_safe(slot, next, &ctx->delivered, node) {
			if (tq_slot_abandoned(slot) || slot->pred_failed) {
				list_move_tail(&slot->node, &ending);
				continue;
			}
			slot->state = TQ_SLOT_PENDING;
			slot->requeued = 1;
			slot->started_ns = 0;
			ctx->requeued++;
			requeued++;
		}
		list_splice_init(&ctx->delivered, &ctx->pending);
		/* In delivery order: a predecessor ends before its successor. */
		while (!list_empty(&ending)) {
			slot = list_first_entry(&ending, struct tq_slot, node);
			status = tq_slot_abandoned(slot) ? -EOWNERDEAD : -ECANCELED;
			if (status == -EOWNERDEAD) {
				ctx->abandoned++;
				abandoned++;
			}
			tq_chain_settle(ctx, slot, status);
			tq_end(ctx, slot, status, status == -EOWNERDEAD ? slot->started_ns : 0,
			       status == -EOWNERDEAD ? now : 0);
		}
		ctx->known = false;
	}
	atomic64_add(requeued, &tq.stats.requeued);
	atomic64_add(abandoned, &tq.stats.abandoned);
	list_for_each_entry_safe(ctx, tmp, &tq.closed, node) {
		list_del_init(&ctx->node);
		tq_ctx_unlink(ctx);
		tq_ctx_put(ctx);
	}
	tq.sched = NULL;
	put_pid(tq.sched_pid);
	tq.sched_pid = NULL;
	WRITE_ONCE(tq.sched_nr, 0);
	mmdrop(tq.sched_mm);
	tq.sched_mm = NULL;
	tq_set_need_wakeup(true);
	tq_flush_dirty();
	mutex_unlock(&tq.lock);
}

/**
 * struct tq_reader - one read() call's progress
 * @to: the reader's buffer
 * @left: events it still has room for
 * @delivered: TASK events copied
 * @fault: a copy to the buffer failed; stop
 * @now: the time tasks are taken, read once per call (0: not yet)
 */
struct tq_reader {
	struct iov_iter *to;
	size_t left;
	unsigned int delivered;
	bool fault;
	u64 now;
};

/* Copy one whole event to the reader; false (and stop) if it did not fit. */
static bool tq_emit(struct tq_reader *r, const struct tq_event *ev)
{
	if (copy_to_iter(ev, sizeof(*ev), r->to) != sizeof(*ev)) {
		r->fault = true;
		return false;
	}
	r->left--;
	return true;
}

/* An OPEN or CLOSE event of @ctx; its body is the caller's. */
static struct tq_event *tq_ctx_event(struct tq_ctx *ctx, u16 type)
{
	struct tq_event *ev = &tq.ev;

	memset(ev, 0, sizeof(*ev));
	ev->type = type;
	ev->ctx_id = ctx->id;
	ev->pid = ctx->ev_pid;
	ev->uid = ctx->ev_uid;
	return ev;
}

/*
 * Give the reader a pending or freshly taken task straight from its slot;
 * it becomes delivered only once the copy succeeded.
 */
static bool tq_deliver(struct tq_ctx *ctx, struct tq_slot *slot, struct tq_reader *r)
{
	struct tq_event *ev = &slot->ev;

	ev->type = TQ_EV_TASK;
	ev->flags = slot->requeued ? TQ_EV_F_REQUEUED : 0;
	ev->ctx_id = ctx->id;
	ev->pid = ctx->ev_pid;
	ev->uid = ctx->ev_uid;
	ev->tag = tq_slot_tag(slot->gen, slot - ctx->slots);
	if (!tq_emit(r, ev))
		return false;
	slot->gen++;
	slot->state = TQ_SLOT_DELIVERED;
	list_move_tail(&slot->node, &ctx->delivered);
	r->delivered++;
	return true;
}

/* A descriptor failed validation: its error completion, and no slot. */
static void tq_reject(struct tq_ctx *ctx, const struct tq_desc *d, int err, u64 now)
{
	struct tq_cqe *cqe = tq_cq_next(ctx);

	ctx->rejected++;
	if (cqe)
		tq_cqe_write(cqe, d->user_data, err, 0, 0, now, 0, 0);
}

/*
 * Whether a successor waits in the kernel: its predecessor is in flight and
 * the scheduler does not take chains, or has not been given the predecessor.
 */
static bool tq_chain_hold(struct tq_ctx *ctx, struct tq_slot *slot)
{
	return tq_chain_waits(slot->ev.pred, tq.sched_chains,
			      ctx->slots[slot->pred_slot].state);
}

static void tq_hold(struct tq_ctx *ctx, struct tq_slot *slot)
{
	slot->state = TQ_SLOT_HELD;
	list_move_tail(&slot->node, &ctx->held);
}

/*
 * Give the reader up to TQ_QUANTUM tasks of @ctx: requeued ones first, then
 * new ones from its SQ while it has free slots and unreserved CQ entries. Each descriptor is
 * copied once into a free slot, validated there and copied from there to the
 * reader. A bad one gets its error completion here and keeps no slot.
 */
static void tq_take(struct tq_ctx *ctx, struct tq_reader *r)
{
	size_t stop = r->left > TQ_QUANTUM ? r->left - TQ_QUANTUM : 0;
	struct tq_slot *slot;
	u32 taken = 0, inflight = 0, rejected = 0, pred;
	int avail, room;

	while (r->left > stop && !list_empty(&ctx->pending)) {
		slot = list_first_entry(&ctx->pending, struct tq_slot, node);
		if (tq_chain_hold(ctx, slot))
			tq_hold(ctx, slot);
		else if (!tq_deliver(ctx, slot, r))
			return;
	}
	if (r->left == stop)
		return;
	atomic_xchg(&ctx->rung, 0);	/* N, matches M */
	avail = tq_sq_peek(&ctx->sq);
	room = avail > 0 ? tq_cq_reserve(&ctx->cq) : 0;
	if (avail < 0 || room < 0) {
		tq_ctx_break(ctx);
		return;
	}
	room -= ctx->in_use;
	if (avail <= 0 || room <= 0)
		return;

	if (!r->now)
		r->now = ktime_get_ns();
	while (taken < avail && room > 0 && r->left > stop && !list_empty(&ctx->free)) {
		struct tq_desc *d;
		int err = 0, chain = 0;
		u64 seq;

		slot = list_first_entry(&ctx->free, struct tq_slot, node);
		d = &slot->ev.task;
		if (!tq_desc_copy(d, tq_sq_entry(&ctx->sq, ctx->sq.cached + taken)))
			err = tq_desc_check(d, ctx->arena_bytes);
		taken++;
		room--;
		seq = ++ctx->seq;
		if (!err) {
			chain = tq_chain_pred(d, seq, ctx->chain, ctx->sq.nr, &pred);
			err = min(chain, 0);
		}
		if (err) {
			/* A refusal, or -ECANCELED after a failed predecessor. */
			tq_chain_set(ctx->chain, ctx->sq.nr, seq, tq_chain_refused(d), 0);
			tq_reject(ctx, d, err, r->now);
			rejected++;
			continue;
		}
		tq_chain_set(ctx->chain, ctx->sq.nr, seq,
			     d->opcode == TQ_OP_TASK ? TQ_CHAIN_LIVE : TQ_CHAIN_NONE,
			     slot - ctx->slots);
		slot->ev.seq = seq;
		slot->ev.pred = 0;
		slot->pred_failed = 0;
		slot->succ = 0;
		if (chain > 0) {
			slot->ev.pred = ctx->slots[pred].ev.seq;
			slot->pred_slot = pred;
			ctx->slots[pred].succ = slot - ctx->slots + 1;
		}
		slot->ev.submit_ns = r->now;
		slot->requeued = 0;
		slot->started_ns = 0;
		ctx->in_use++;
		inflight++;
		if (tq_chain_hold(ctx, slot)) {
			tq_hold(ctx, slot);
			continue;
		}
		if (!tq_deliver(ctx, slot, r)) {
			/* The reader's buffer failed: the next read gets it. */
			slot->state = TQ_SLOT_PENDING;
			list_move_tail(&slot->node, &ctx->pending);
			break;
		}
	}
	tq_sq_release(&ctx->sq, taken);
	ctx->submitted += taken;
	atomic64_add(taken, &tq.stats.submitted);
	atomic64_add(inflight, &tq.stats.in_flight);
	if (rejected)
		atomic64_add(rejected, &tq.stats.rejected);
}

/*
 * One pass over the contexts: closes first, then each live context in turn
 * (its OPEN, then a quantum of its tasks). Returns whether it gave the
 * reader anything.
 */
static bool tq_fill(struct tq_reader *r)
{
	struct tq_ctx *ctx, *last = NULL;
	size_t left = r->left;

	list_for_each_entry(ctx, &tq.closed, node) {
		if (!r->left || r->fault)
			return left != r->left;
		if (ctx->known && !ctx->close_sent && tq_emit(r, tq_ctx_event(ctx, TQ_EV_CLOSE)))
			ctx->close_sent = true;
	}
	list_for_each_entry(ctx, &tq.live, node) {
		if (!r->left || r->fault)
			break;
		last = ctx;
		if (ctx->broken)
			continue;
		if (!ctx->known) {
			struct tq_event *ev;

			/* Ids as this scheduler sees them, for all its events. */
			ctx->ev_pid = pid_vnr(ctx->pid);
			ctx->ev_uid = from_kuid_munged(current_user_ns(), ctx->uid);
			ev = tq_ctx_event(ctx, TQ_EV_OPEN);
			ev->open.arena_bytes = ctx->arena_bytes;
			ev->open.arena_offset = (u64)ctx->id << TQ_SCHED_ARENA_SHIFT;
			ev->open.sq_entries = ctx->sq.nr;
			ev->open.cq_entries = ctx->cq.nr;
			ev->open.max_inflight = ctx->nr_slots;
			ev->open.prio = ctx->prio;
			if (!tq_emit(r, ev))
				break;
			ctx->known = true;
		}
		tq_take(ctx, r);
	}
	/* The reader is full: its next read starts after the last context served. */
	if (!r->left && last && !list_is_last(&last->node, &tq.live))
		list_rotate_to_front(last->node.next, &tq.live);
	return left != r->left;
}

/* Copy out as many whole events as fit; bytes copied, 0, or -EFAULT. */
static ssize_t tq_read_some(struct tq_reader *r)
{
	size_t want = r->left;

	while (r->left && !r->fault && tq_fill(r))
		;
	atomic64_add(r->delivered, &tq.stats.delivered);
	r->delivered = 0;
	if (r->left == want)
		return r->fault ? -EFAULT : 0;
	return (want - r->left) * sizeof(struct tq_event);
}

/*
 * read(): whole events. Before it sleeps (or says EAGAIN) it sets
 * TQ_RING_NEED_WAKEUP everywhere and looks once more, so a client that
 * published in between either is seen or sees the flag and rings.
 */
ssize_t tq_sched_read(struct kiocb *iocb, struct iov_iter *to)
{
	size_t want = iov_iter_count(to) / sizeof(struct tq_event);
	bool nowait = (iocb->ki_flags & IOCB_NOWAIT) || (iocb->ki_filp->f_flags & O_NONBLOCK);
	struct tq_reader r = { .to = to };
	ssize_t ret;
	int kick;

	if (!want)
		return -EINVAL;
	if (current->mm != tq.sched_mm)
		return -EPERM;
	for (;;) {
		mutex_lock(&tq.lock);
		kick = atomic_read(&tq.kick);
		r.left = want;
		ret = tq_read_some(&r);
		if (!ret) {
			tq_set_need_wakeup(true);
			smp_mb();	/* I, matches J */
			ret = tq_read_some(&r);
			if (!ret)
				WRITE_ONCE(tq.idle_kick, kick);
		}
		if (ret > 0)
			tq_set_need_wakeup(false);
		tq_flush_dirty();
		mutex_unlock(&tq.lock);
		if (ret)
			return ret;
		if (nowait)
			return -EAGAIN;
		if (wait_event_interruptible(tq.wq, atomic_read(&tq.kick) != kick))
			return -ERESTARTSYS;
	}
}

/**
 * struct tq_writer - one write() call's progress
 * @ctx: the context of the previous record; records come in runs
 * @completed: completions with status 0
 * @failed: completions with an error status
 */
struct tq_writer {
	struct tq_ctx *ctx;
	u64 completed;
	u64 failed;
};

/*
 * One completion record; 0 or the errno that stops the write. A record's
 * form is checked first (EINVAL), then what it names (ENOENT). RELEASE and
 * STARTED records carry nothing but their ids.
 */
static int tq_complete(struct tq_writer *w, const struct tq_completion *c)
{
	struct tq_ctx *ctx = w->ctx;
	struct tq_slot *slot;
	struct tq_cqe *cqe;
	int cqe_flags;
	u32 idx;

	if (tq_completion_check(c))
		return -EINVAL;
	if (!ctx || ctx->id != c->ctx_id)
		ctx = xa_load(&tq.ctxs, c->ctx_id);
	if (!ctx || !ctx->known)
		return -ENOENT;
	w->ctx = ctx;

	if (c->flags & TQ_COMPL_F_RELEASE) {
		if (!ctx->close_sent)
			return -EINVAL;
		w->ctx = NULL;
		list_del_init(&ctx->node);
		tq_ctx_unlink(ctx);
		tq_ctx_put(ctx);
		return 0;
	}

	idx = lower_32_bits(c->tag);
	if (idx >= ctx->nr_slots)
		return -ENOENT;
	slot = &ctx->slots[array_index_nospec(idx, ctx->nr_slots)];
	if (slot->state != TQ_SLOT_DELIVERED || slot->gen != upper_32_bits(c->tag))
		return -ENOENT;

	/* A mark changes only the task's fate should this scheduler exit. */
	if (c->flags & TQ_COMPL_F_STARTED) {
		if (!slot->started_ns)
			slot->started_ns = ktime_get_ns();
		return 0;
	}

	cqe_flags = tq_completion_cqe_flags(c, &slot->ev.task, slot->requeued);
	if (cqe_flags < 0)
		return cqe_flags;
	tq_chain_settle(ctx, slot, c->status);
	cqe = ctx->closed || ctx->broken ? NULL : tq_cq_next(ctx);
	if (cqe)
		tq_cqe_write(cqe, slot->ev.task.user_data, c->status, cqe_flags, c->result,
			     slot->ev.submit_ns, c->start_ns, c->end_ns);
	slot->started_ns = 0;
	slot->state = TQ_SLOT_FREE;
	list_move(&slot->node, &ctx->free);
	ctx->in_use--;
	if (c->status)
		w->failed++;
	else
		w->completed++;
	return 0;
}

/*
 * write(): whole completion records. It stops at the first bad one and
 * returns the bytes before it, or that record's errno if it is the first.
 */
ssize_t tq_sched_write(struct kiocb *iocb, struct iov_iter *from)
{
	const size_t size = sizeof(struct tq_completion);
	size_t len = iov_iter_count(from), done = 0;
	struct tq_writer w = {};
	int err = 0;

	if (!len || len % size)
		return -EINVAL;
	if (current->mm != tq.sched_mm)
		return -EPERM;
	mutex_lock(&tq.lock);
	while (done < len && !err) {
		size_t chunk = min(len - done, sizeof(tq.cmpl_stage));
		size_t got = copy_from_iter(tq.cmpl_stage, chunk, from);
		unsigned int i, n = got / size;

		for (i = 0; i < n && !err; i++) {
			err = tq_complete(&w, &tq.cmpl_stage[i]);
			if (!err)
				done += size;
		}
		if (!err && got < chunk)
			err = -EFAULT;
	}
	tq_flush_dirty();
	atomic64_add(w.completed, &tq.stats.completed);
	atomic64_add(w.failed, &tq.stats.failed);
	atomic64_sub(w.completed + w.failed, &tq.stats.in_flight);
	mutex_unlock(&tq.lock);
	return done ? done : err;
}

/* Readable unless the last read() found nothing and nothing kicked since. */
__poll_t tq_sched_poll(struct file *file, struct poll_table_struct *pt)
{
	__poll_t mask = EPOLLOUT | EPOLLWRNORM;

	poll_wait(file, &tq.wq, pt);
	smp_mb();	/* L, matches K in tq_kick() */
	if (atomic_read(&tq.kick) != READ_ONCE(tq.idle_kick))
		mask |= EPOLLIN | EPOLLRDNORM;
	return mask;
}

/*
 * The scheduler maps context N's arena at offset N << TQ_SCHED_ARENA_SHIFT,
 * from the address space that attached only (a child it forked holds the
 * fd, but gets none of its arenas; see "Fork" in ctx.c).
 */
int tq_sched_mmap(struct vm_area_struct *vma)
{
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT;
	u64 id = off >> TQ_SCHED_ARENA_SHIFT;
	struct tq_ctx *ctx;
	int ret;

	if (vma->vm_mm != tq.sched_mm)
		return -EPERM;
	if (off & ((1ULL << TQ_SCHED_ARENA_SHIFT) - 1) || !id || id > TQ_CTX_ID_MAX)
		return -EINVAL;
	/* No tq.lock here: read() holds it across faults, which take mmap_lock. */
	rcu_read_lock();
	ctx = xa_load(&tq.ctxs, id);
	if (ctx && !kref_get_unless_zero(&ctx->ref))
		ctx = NULL;
	rcu_read_unlock();
	if (!ctx)
		return -ENOENT;
	ret = tq_arena_map(ctx, vma);
	tq_ctx_put(ctx);
	return ret;
}

void tq_sched_fdinfo(struct seq_file *m)
{
	struct tq_ctx *ctx;
	unsigned int live = 0, closed = 0;

	mutex_lock(&tq.lock);
	list_for_each_entry(ctx, &tq.live, node)
		live++;
	list_for_each_entry(ctx, &tq.closed, node)
		closed++;
	seq_puts(m, "tq-scheduler:\t1\n");
	seq_printf(m, "live-contexts:\t%u\nclosed-contexts:\t%u\n", live, closed);
	seq_printf(m, "need-wakeup:\t%d\n", tq.need_wakeup);
	mutex_unlock(&tq.lock);
}
