// SPDX-License-Identifier: GPL-2.0
/*
 * sched.c - tqsubmitd's scheduler side: attach and detach, the batches of
 * events the scheduler is sent, the completion records it sends back; what
 * kmod/sched.c does for the module, for a scheduler that is a socket
 * instead of a file. Function for function it follows the module.
 *
 * Tasks flow as in the module: a descriptor is copied from the SQ into a
 * free slot (taken), checked there, and copied into a TQ_EV_TASK of the
 * batch the scheduler is sent (delivered); its completion names the slot
 * by tag. A slot is taken only while the CQ has an entry for it. Chains
 * (TQ_DESC_F_AFTER) link slots and hold or cancel successors as the
 * module's do.
 */
#include <errno.h>
#include <string.h>

#include "tqsubmitd.h"

/* TQ_IOC_ATTACH: root, or tqsubmitd's own user, and one at a time. */
int tqd_attach(struct tqd_conn *c, struct tq_attach *a)
{
	if (a->flags & ~TQ_ATTACH_FLAGS)
		return -EINVAL;
	if (c->uid != 0 && c->uid != tqd.euid)
		return -EPERM;
	if (c->attached)
		return -EINVAL;
	if (tqd.sched)
		return -EBUSY;
	tqd.sched = c;
	tqd.sched_chains = a->flags & TQ_ATTACH_F_CHAINS;
	c->attached = true;
	tqd.kick = true;
	a->features = TQD_FEATURES;
	return 0;
}

/* The need-wakeup flag of every live context (our copy, and the shared word). */
static void set_need_wakeup(bool on)
{
	struct list *p, *n;

	if (tqd.need_wakeup == on)
		return;
	tqd.need_wakeup = on;
	list_for_each_safe(p, n, &tqd.live)
		tqd_ctx_set_flags(list_entry(p, struct tqd_ctx, node),
				  on ? TQ_RING_NEED_WAKEUP : 0, on ? 0 : TQ_RING_NEED_WAKEUP);
}

static void ctx_mark_dirty(struct tqd_ctx *ctx)
{
	if (!ctx->is_dirty) {
		ctx->is_dirty = true;
		list_add_tail(&ctx->dirty, &tqd.dirty);
	}
}

/* Publish the completions written to each dirty context's CQ, then signal. */
void tqd_flush_dirty(void)
{
	while (!list_empty(&tqd.dirty)) {
		struct tqd_ctx *ctx = list_first(&tqd.dirty, struct tqd_ctx, dirty);

		list_del_init(&ctx->dirty);
		ctx->is_dirty = false;
		tqd_cq_submit(&ctx->cq);
		if (ctx->efd >= 0)
			tqd.io->efd_signal(ctx);
		/* Freed slots may let descriptors waiting in the SQ through, held successors go. */
		if (__atomic_load_n(ctx->sq.producer, __ATOMIC_RELAXED) != ctx->sq.cached ||
		    !list_empty(&ctx->pending))
			tqd.kick = true;
	}
}

/* The next CQ entry, reserved when its task was taken; NULL once the rings broke. */
static struct tq_cqe *cq_next(struct tqd_ctx *ctx)
{
	if (!ctx->cq.space) {
		int space = tqd_cq_reserve(&ctx->cq);

		if (space <= 0) {
			/* Only a consumer index moved backwards gets here. */
			tqd_ctx_break(ctx);
			return NULL;
		}
		ctx->cq.space = space;
	}
	ctx->cq.space--;
	ctx->completed++;
	ctx_mark_dirty(ctx);
	return tq_cq_entry(&ctx->cq, ctx->cq.cached++);
}

/* We complete a task ourselves: its CQE, and the slot freed (tq_end()). */
static void end(struct tqd_ctx *ctx, struct tqd_slot *slot, int status, uint64_t start,
		uint64_t stop)
{
	struct tq_cqe *cqe = ctx->broken ? NULL : cq_next(ctx);

	if (cqe)
		tq_cqe_write(cqe, slot->ev.task.user_data, status,
			     slot->requeued ? TQ_CQE_F_REQUEUED : 0, 0, slot->ev.submit_ns,
			     start, stop);
	slot->started_ns = 0;
	slot->state = TQ_SLOT_FREE;
	list_move(&slot->node, &ctx->free);
	ctx->in_use--;
	tqd.st.failed++;
	tqd.st.in_flight--;
}

/*
 * Task slot of ctx ends with status (the caller frees it afterwards): its
 * chain word, and its successor settled (tq_chain_settle()): released with
 * 0; with an error cancelled, down the chain, unless the scheduler holds it.
 */
static void chain_settle(struct tqd_ctx *ctx, struct tqd_slot *slot, int status)
{
	struct tqd_slot *next;
	uint32_t succ;

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
		end(ctx, next, -ECANCELED, 0, 0);	/* free, its succ intact */
		slot = next;
		status = -ECANCELED;
	}
}

static bool slot_abandoned(const struct tqd_slot *slot)
{
	return slot->started_ns && tq_desc_no_rerun(&slot->ev.task);
}

/*
 * The scheduler's connection ended (tq_sched_detach()): what it took and did
 * not complete goes back to its contexts, in order, ahead of what they
 * submit next, except started tasks that may have run in part, which
 * complete with -EOWNERDEAD; the closed contexts it held are let go.
 */
void tqd_detach(void)
{
	uint64_t requeued = 0, abandoned = 0, now = tq_now_ns();
	struct list *p, *n, *q, *m, ending;

	list_init(&ending);
	list_for_each_safe(p, n, &tqd.live) {
		struct tqd_ctx *ctx = list_entry(p, struct tqd_ctx, node);

		list_for_each_safe(q, m, &ctx->delivered) {
			struct tqd_slot *slot = list_entry(q, struct tqd_slot, node);

			if (slot_abandoned(slot) || slot->pred_failed) {
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
			struct tqd_slot *slot = list_first(&ending, struct tqd_slot, node);
			bool dead = slot_abandoned(slot);
			int status = dead ? -EOWNERDEAD : -ECANCELED;

			if (dead) {
				ctx->abandoned++;
				abandoned++;
			}
			chain_settle(ctx, slot, status);
			end(ctx, slot, status, dead ? slot->started_ns : 0, dead ? now : 0);
		}
		ctx->known = false;
		ctx->rung = false;
	}
	tqd.st.requeued += requeued;
	tqd.st.abandoned += abandoned;
	list_for_each_safe(p, n, &tqd.closed) {
		struct tqd_ctx *ctx = list_entry(p, struct tqd_ctx, node);

		list_del_init(&ctx->node);
		tqd_ctx_unlink(ctx);
	}
	tqd.sched = NULL;
	set_need_wakeup(true);
	tqd_flush_dirty();
}

/* ---- events: one batch (message) for the scheduler --------------------------- */

static unsigned int batch_left(void)
{
	return TQ_SOCK_EVENTS_MAX - tqd.batch_n;
}

static struct tq_event *batch_ctx_event(struct tqd_ctx *ctx, uint16_t type)
{
	struct tq_event *ev = &tqd.batch[tqd.batch_n++];

	memset(ev, 0, sizeof(*ev));
	ev->type = type;
	ev->ctx_id = ctx->id;
	ev->pid = ctx->pid;
	ev->uid = ctx->uid;
	return ev;
}

/* A pending or freshly taken task into the batch: it is delivered. */
static void deliver(struct tqd_ctx *ctx, struct tqd_slot *slot)
{
	struct tq_event *ev = &slot->ev;

	ev->type = TQ_EV_TASK;
	ev->flags = slot->requeued ? TQ_EV_F_REQUEUED : 0;
	ev->ctx_id = ctx->id;
	ev->pid = ctx->pid;
	ev->uid = ctx->uid;
	ev->tag = tq_slot_tag(slot->gen, (uint32_t)(slot - ctx->slots));
	tqd.batch[tqd.batch_n++] = *ev;
	slot->gen++;
	slot->state = TQ_SLOT_DELIVERED;
	list_move_tail(&slot->node, &ctx->delivered);
	tqd.st.delivered++;
}

/* A descriptor failed validation: its error completion, and no slot. */
static void reject(struct tqd_ctx *ctx, const struct tq_desc *d, int err, uint64_t now)
{
	struct tq_cqe *cqe = cq_next(ctx);

	ctx->rejected++;
	if (cqe)
		tq_cqe_write(cqe, d->user_data, err, 0, 0, now, 0, 0);
}

/* A successor waits here (tq_chain_hold()). */
static bool chain_hold(struct tqd_ctx *ctx, struct tqd_slot *slot)
{
	return tq_chain_waits(slot->ev.pred, tqd.sched_chains, ctx->slots[slot->pred_slot].state);
}

static void hold(struct tqd_ctx *ctx, struct tqd_slot *slot)
{
	slot->state = TQ_SLOT_HELD;
	list_move_tail(&slot->node, &ctx->held);
}

/*
 * Up to TQD_QUANTUM tasks of ctx into the batch (tq_take()): requeued ones
 * first, then new ones from its SQ while it has free slots and unreserved
 * CQ entries. Returns whether it took or rejected anything.
 */
static bool take(struct tqd_ctx *ctx, uint64_t *now)
{
	unsigned int left = batch_left();
	unsigned int stop = left > TQD_QUANTUM ? left - TQD_QUANTUM : 0;
	uint32_t taken = 0, inflight = 0, rejected = 0, pred = 0;
	struct tqd_slot *slot;
	bool held = false;
	int avail, room;

	while (batch_left() > stop && !list_empty(&ctx->pending)) {
		slot = list_first(&ctx->pending, struct tqd_slot, node);
		if (chain_hold(ctx, slot)) {
			hold(ctx, slot);
			held = true;
		} else {
			deliver(ctx, slot);
		}
	}
	if (batch_left() == stop)
		return held || left != batch_left();
	ctx->rung = false;	/* N: this is the look the doorbell asked for */
	avail = tqd_sq_peek(&ctx->sq);
	room = avail > 0 ? tqd_cq_reserve(&ctx->cq) : 0;
	if (avail < 0 || room < 0) {
		tqd_ctx_break(ctx);
		return left != batch_left();
	}
	room -= ctx->in_use;
	if (avail <= 0 || room <= 0)
		return left != batch_left();

	if (!*now)
		*now = tq_now_ns();
	while ((int)taken < avail && room > 0 && batch_left() > stop && !list_empty(&ctx->free)) {
		struct tq_desc *d;
		int err = 0, chain = 0;
		uint64_t seq;

		slot = list_first(&ctx->free, struct tqd_slot, node);
		d = &slot->ev.task;
		/* Copied once, then checked: the client may be rewriting the entry. */
		if (!tq_desc_copy(d, tq_sq_entry(&ctx->sq, ctx->sq.cached + taken)))
			err = tq_desc_check(d, ctx->arena_bytes);
		taken++;
		room--;
		seq = ++ctx->seq;
		if (!err) {
			chain = tq_chain_pred(d, seq, ctx->chain, ctx->sq.nr, &pred);
			err = chain < 0 ? chain : 0;
		}
		if (err) {
			/* A refusal, or -ECANCELED after a failed predecessor. */
			tq_chain_set(ctx->chain, ctx->sq.nr, seq, tq_chain_refused(d), 0);
			reject(ctx, d, err, *now);
			rejected++;
			continue;
		}
		tq_chain_set(ctx->chain, ctx->sq.nr, seq,
			     d->opcode == TQ_OP_TASK ? TQ_CHAIN_LIVE : TQ_CHAIN_NONE,
			     (uint32_t)(slot - ctx->slots));
		slot->ev.seq = seq;
		slot->ev.pred = 0;
		slot->pred_failed = 0;
		slot->succ = 0;
		if (chain > 0) {
			slot->ev.pred = ctx->slots[pred].ev.seq;
			slot->pred_slot = pred;
			ctx->slots[pred].succ = (uint32_t)(slot - ctx->slots) + 1;
		}
		slot->ev.submit_ns = *now;
		slot->requeued = 0;
		slot->started_ns = 0;
		ctx->in_use++;
		inflight++;
		if (chain_hold(ctx, slot))
			hold(ctx, slot);
		else
			deliver(ctx, slot);
	}
	tqd_sq_release(&ctx->sq, taken);
	ctx->submitted += taken;
	tqd.st.submitted += taken;
	tqd.st.in_flight += inflight;
	tqd.st.rejected += rejected;
	return taken || left != batch_left();
}

/* The live list starts at entry from now on (list_rotate_to_front()). */
static void live_rotate_to(struct list *entry)
{
	struct list *h = &tqd.live;

	h->prev->next = h->next;
	h->next->prev = h->prev;
	list_add_between(h, entry->prev, entry);
}

/*
 * One pass over the contexts (tq_fill()): closes first, then each live
 * context in turn, its OPEN, then a quantum of its tasks. Returns whether
 * it did anything.
 */
static bool fill_pass(uint64_t *now)
{
	struct tqd_ctx *last = NULL;
	bool did = false;
	struct list *p, *n;

	list_for_each_safe(p, n, &tqd.closed) {
		struct tqd_ctx *ctx = list_entry(p, struct tqd_ctx, node);

		if (!batch_left())
			return did;
		if (ctx->known && !ctx->close_sent) {
			batch_ctx_event(ctx, TQ_EV_CLOSE);
			ctx->close_sent = true;
			did = true;
		}
	}
	list_for_each_safe(p, n, &tqd.live) {
		struct tqd_ctx *ctx = list_entry(p, struct tqd_ctx, node);

		if (!batch_left())
			break;
		last = ctx;
		if (ctx->broken)
			continue;
		if (!ctx->known) {
			struct tq_event *ev = batch_ctx_event(ctx, TQ_EV_OPEN);

			ev->open.arena_bytes = ctx->arena_bytes;
			ev->open.arena_offset = 0;
			ev->open.sq_entries = ctx->sq.nr;
			ev->open.cq_entries = ctx->cq.nr;
			ev->open.max_inflight = ctx->nr_slots;
			ev->open.prio = ctx->prio;
			tqd.batch_fds[tqd.batch_nfds++] = ctx->arena_fd;
			ctx->known = true;
			did = true;
		}
		did |= take(ctx, now);
	}
	/* The batch is full: the next one starts after the last context served. */
	if (!batch_left() && last && last->node.next != &tqd.live)
		live_rotate_to(last->node.next);
	return did;
}

/*
 * Build one batch of events and send it (loop.c keeps it if the socket is
 * full). Returns whether anything happened: events, or rejections.
 */
bool tqd_fill(void)
{
	unsigned int passes = 0;
	uint64_t now = 0;
	bool did = false;

	if (!tqd.sched)
		return false;
	tqd.batch_n = 0;
	tqd.batch_nfds = 0;
	/*
	 * Rejections take no room in the batch: a client that keeps writing bad
	 * descriptors as fast as it reaps their errors would keep a pass going,
	 * so a batch gets a few passes and the loop's other work comes between.
	 */
	while (batch_left() && passes++ < TQD_PASSES && fill_pass(&now))
		did = true;
	if (tqd.batch_n) {
		set_need_wakeup(false);
		tqd.io->sched_send();
	}
	tqd_flush_dirty();
	return did;
}

/*
 * The loop found nothing to do: set TQ_RING_NEED_WAKEUP everywhere and look
 * once more (I), so that a client that published meanwhile is either seen
 * now or sees the flag and rings.
 */
void tqd_idle_check(void)
{
	if (!tqd.sched)
		return;
	set_need_wakeup(true);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);	/* I, matches J */
	if (tqd_fill())
		tqd.kick = true;
}

/* ---- completions --------------------------------------------------------- */

/* One completion record (tq_complete()); 0 or why it is dropped. */
static int complete_one(struct tqd_ctx **cache, const struct tq_completion *c,
			uint64_t *completed, uint64_t *failed)
{
	struct tqd_ctx *ctx = *cache;
	struct tqd_slot *slot;
	struct tq_cqe *cqe;
	int cqe_flags;
	uint32_t idx;

	if (tq_completion_check(c))
		return -EINVAL;
	if (!ctx || ctx->id != c->ctx_id)
		ctx = tqd_ctx_lookup(c->ctx_id);
	if (!ctx || !ctx->known)
		return -ENOENT;
	*cache = ctx;

	if (c->flags & TQ_COMPL_F_RELEASE) {
		if (!ctx->close_sent)
			return -EINVAL;
		*cache = NULL;
		list_del_init(&ctx->node);
		tqd_ctx_unlink(ctx);
		return 0;
	}

	idx = (uint32_t)c->tag;
	if (idx >= ctx->nr_slots)
		return -ENOENT;
	slot = &ctx->slots[idx];
	if (slot->state != TQ_SLOT_DELIVERED || slot->gen != (uint32_t)(c->tag >> 32))
		return -ENOENT;

	/* A mark changes only the task's fate should this scheduler go. */
	if (c->flags & TQ_COMPL_F_STARTED) {
		if (!slot->started_ns)
			slot->started_ns = tq_now_ns();
		return 0;
	}

	cqe_flags = tq_completion_cqe_flags(c, &slot->ev.task, slot->requeued);
	if (cqe_flags < 0)
		return cqe_flags;
	chain_settle(ctx, slot, c->status);
	cqe = ctx->closed || ctx->broken ? NULL : cq_next(ctx);
	if (cqe)
		tq_cqe_write(cqe, slot->ev.task.user_data, c->status, cqe_flags, c->result,
			     slot->ev.submit_ns, c->start_ns, c->end_ns);
	slot->started_ns = 0;
	slot->state = TQ_SLOT_FREE;
	list_move(&slot->node, &ctx->free);
	ctx->in_use--;
	if (c->status)
		(*failed)++;
	else
		(*completed)++;
	return 0;
}

/* A message of completion records from the scheduler: each taken in order. */
void tqd_completions(const struct tq_completion *c, unsigned int n)
{
	uint64_t completed = 0, failed = 0;
	struct tqd_ctx *cache = NULL;
	unsigned int i;

	for (i = 0; i < n; i++) {
		int err = complete_one(&cache, &c[i], &completed, &failed);

		if (err) {
			tqd.st.bad_records++;
			tqd_log(LOG_DEBUG, "completion %u of ctx %u tag %#llx dropped: %s", i,
				c[i].ctx_id, (unsigned long long)c[i].tag, strerror(-err));
		}
	}
	tqd_flush_dirty();
	tqd.st.completed += completed;
	tqd.st.failed += failed;
	tqd.st.in_flight -= completed + failed;
}
