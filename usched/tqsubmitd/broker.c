// SPDX-License-Identifier: GPL-2.0
/*
 * broker.c - tqsubmitd's state machine: what kmod/ctx.c and kmod/sched.c do
 * for the module, for contexts that live in memfds instead of vmalloc and
 * shmem, and a scheduler that is a socket instead of a file. Function for
 * function it follows the module, so that both keep one behaviour; the
 * checks themselves are shared (<tq/tqsubmit_check.h>).
 *
 * Lifetime of a context, as the module's:
 *  1. SETUP (tqd_setup) makes its memfds and slots, gives it an id and puts
 *     it on tqd.live. The client's connection owns it.
 *  2. The connection's end (tqd_ctx_close) drops the tasks the scheduler
 *     has not seen; if the scheduler knows the context it moves to
 *     tqd.closed until the scheduler releases it or goes, else it is freed.
 *  3. tqd_ctx_free() unmaps and closes its memfds; mappings the client or
 *     the scheduler still hold keep the pages.
 *
 * Tasks flow as in the module: a descriptor is copied from the SQ into a
 * free slot (taken), checked there, and copied into a TQ_EV_TASK of the
 * batch the scheduler is sent (delivered); its completion names the slot
 * by tag. A slot is taken only while the CQ has an entry for it. Chains
 * (TQ_DESC_F_AFTER) link slots and hold or cancel successors as the
 * module's do (kmod/sched.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "tqsubmitd.h"

struct tqd tqd;

#define TQD_FEATURES	((TQ_FEATURES & ~TQ_FEAT_POLL) | TQ_FEAT_SOCKET)

static long page_size(void)
{
	static long ps;

	if (!ps)
		ps = sysconf(_SC_PAGESIZE);
	return ps;
}

void tqd_init(const struct tqd_limits *lim)
{
	unsigned int i;

	tqd.lim = *lim;
	tqd.euid = geteuid();
	list_init(&tqd.live);
	list_init(&tqd.closed);
	list_init(&tqd.dirty);
	list_init(&tqd.users);
	list_init(&tqd.conns);
	for (i = 0; i < TQD_CTX_HASH; i++)
		list_init(&tqd.ctx_hash[i]);
	tqd.need_wakeup = true;
}

/* ---- users ------------------------------------------------------------- */

struct tqd_user *tqd_user_get(uid_t uid)
{
	struct list *p, *n;
	struct tqd_user *u;

	list_for_each_safe(p, n, &tqd.users) {
		u = list_entry(p, struct tqd_user, node);
		if (u->uid == uid)
			return u;
	}
	u = calloc(1, sizeof(*u));
	if (!u)
		return NULL;
	u->uid = uid;
	list_add(&u->node, &tqd.users);
	return u;
}

/* Forget a user that holds nothing any more. */
void tqd_user_put(struct tqd_user *u)
{
	if (u && !u->contexts && !u->conns && !u->bytes) {
		list_del_init(&u->node);
		free(u);
	}
}

/* ---- the rings: the module's six verbs (kmod/tq.h) ------------------------ */

/* Descriptors available in the SQ, or -EBADMSG if its producer is corrupt. */
static int sq_peek(struct tqd_ring *sq)
{
	uint32_t avail = __atomic_load_n(sq->producer, __ATOMIC_ACQUIRE) - sq->cached;	/* B, matches A */

	return avail > sq->nr ? -EBADMSG : (int)avail;
}

static struct tq_desc *sq_entry(struct tqd_ring *sq, uint32_t i)
{
	return (struct tq_desc *)sq->entries + (i & (sq->nr - 1));
}

static void sq_release(struct tqd_ring *sq, uint32_t n)
{
	sq->cached += n;
	__atomic_store_n(sq->consumer, sq->cached, __ATOMIC_RELEASE);	/* C, matches D */
}

/* Free CQ entries, or -EBADMSG if the client corrupted its consumer. */
static int cq_reserve(struct tqd_ring *cq)
{
	uint32_t used = cq->cached - __atomic_load_n(cq->consumer, __ATOMIC_ACQUIRE);	/* H, matches G */

	return used > cq->nr ? -EBADMSG : (int)(cq->nr - used);
}

static struct tq_cqe *cq_entry(struct tqd_ring *cq, uint32_t i)
{
	return (struct tq_cqe *)cq->entries + (i & (cq->nr - 1));
}

static void cq_submit(struct tqd_ring *cq)
{
	__atomic_store_n(cq->producer, cq->cached, __ATOMIC_RELEASE);	/* E, matches F */
}

static void ring_init(struct tqd_ring *r, void *base, size_t size, uint32_t nr)
{
	r->base = base;
	r->size = size;
	r->producer = (uint32_t *)((char *)base + TQ_RING_PRODUCER);
	r->consumer = (uint32_t *)((char *)base + TQ_RING_CONSUMER);
	r->flags = (uint32_t *)((char *)base + TQ_RING_FLAGS);
	r->entries = (char *)base + TQ_RING_ENTRIES;
	r->nr = nr;
}

static void ring_offsets(struct tq_ring_offsets *o, const struct tqd_ring *r, uint64_t off)
{
	o->mmap_offset = off;
	o->mmap_size = r->size;
	o->producer = TQ_RING_PRODUCER;
	o->consumer = TQ_RING_CONSUMER;
	o->flags = TQ_RING_FLAGS;
	o->entries = TQ_RING_ENTRIES;
}

/* We keep our own copy of the flags; the shared word is never read. */
static void ctx_set_flags(struct tqd_ctx *ctx, uint32_t set, uint32_t clear)
{
	ctx->sq_flags = (ctx->sq_flags | set) & ~clear;
	__atomic_store_n(ctx->sq.flags, ctx->sq_flags, __ATOMIC_RELAXED);
}

/* A ring index went out of range: stop taking work, tell the client. */
static void ctx_break(struct tqd_ctx *ctx)
{
	ctx->broken = true;
	ctx_set_flags(ctx, TQ_RING_BROKEN, 0);
	__atomic_store_n(ctx->cq.flags, TQ_RING_BROKEN, __ATOMIC_RELAXED);
}

/* ---- contexts -------------------------------------------------------------- */

static struct list *ctx_bucket(uint32_t id)
{
	return &tqd.ctx_hash[id % TQD_CTX_HASH];
}

static struct tqd_ctx *ctx_lookup(uint32_t id)
{
	struct list *p, *n, *b = ctx_bucket(id);

	list_for_each_safe(p, n, b) {
		struct tqd_ctx *ctx = list_entry(p, struct tqd_ctx, hash);

		if (ctx->id == id)
			return ctx;
	}
	return NULL;
}

/* The next free id, cyclic in 1 .. TQD_CTX_ID_MAX as the module's; 0 if none. */
static uint32_t ctx_alloc_id(void)
{
	uint32_t i, id;

	if (tqd.nr_ctxs >= TQD_CTX_ID_MAX)
		return 0;
	for (i = 0; i < TQD_CTX_ID_MAX; i++) {
		id = tqd.next_id % TQD_CTX_ID_MAX + 1;
		tqd.next_id = id;
		if (!ctx_lookup(id))
			return id;
	}
	return 0;
}

static int memfd_sealed(const char *name, size_t size)
{
	int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);

	if (fd < 0)
		return -errno;
	if (ftruncate(fd, size) ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

void tqd_ctx_free(struct tqd_ctx *ctx)
{
	/* The eventfd write in flight names ctx: free when it is done. */
	if (ctx->efd_op.busy) {
		ctx->unlinked = true;
		tqd_efd_cancel(ctx);
		return;
	}
	if (ctx->sq.base)
		munmap(ctx->sq.base, ctx->rings_size);
	if (ctx->rings_fd >= 0)
		close(ctx->rings_fd);
	if (ctx->arena_fd >= 0)
		close(ctx->arena_fd);
	if (ctx->efd >= 0)
		close(ctx->efd);
	free(ctx->slots);
	free(ctx->chain);
	if (ctx->user) {
		ctx->user->bytes -= ctx->charged;
		ctx->user->contexts--;
		tqd_user_put(ctx->user);
	}
	tqd.st.contexts--;
	free(ctx);
}

/* An eventfd write finished; the context may be waiting for it to go. */
void tqd_efd_done(struct tqd_ctx *ctx)
{
	ctx->efd_op.busy = false;
	if (ctx->unlinked) {
		tqd_ctx_free(ctx);
		return;
	}
	if (ctx->efd_again) {
		ctx->efd_again = false;
		tqd_efd_signal(ctx);
	}
}

/* Allocate everything a context needs; nothing is visible yet. */
static struct tqd_ctx *ctx_alloc(struct tqd_conn *c, uint32_t sq, uint32_t cq,
				 uint64_t arena_bytes, int *err)
{
	size_t sq_size = tq_ring_bytes(sq, sizeof(struct tq_desc), page_size());
	size_t cq_size = tq_ring_bytes(cq, sizeof(struct tq_cqe), page_size());
	struct tqd_ctx *ctx = calloc(1, sizeof(*ctx));
	uint32_t i;
	void *base;

	if (!ctx) {
		*err = -ENOMEM;
		return NULL;
	}
	tqd.st.contexts++;
	ctx->rings_fd = ctx->arena_fd = ctx->efd = -1;
	list_init(&ctx->free);
	list_init(&ctx->pending);
	list_init(&ctx->delivered);
	list_init(&ctx->held);
	list_init(&ctx->node);
	list_init(&ctx->dirty);
	list_init(&ctx->hash);
	ctx->efd_op.type = OP_EFD;
	ctx->efd_op.owner = ctx;
	ctx->efd_one = 1;
	ctx->pid = c->pid;
	ctx->uid = c->uid;
	ctx->user = c->user;
	ctx->user->contexts++;

	/* The arena and rings stand in for locked memory: a per-user byte limit. */
	ctx->rings_size = sq_size + cq_size;
	if (ctx->user->bytes + arena_bytes + ctx->rings_size > tqd.lim.user_bytes_max) {
		*err = -ENOMEM;
		goto fail;
	}
	ctx->charged = arena_bytes + ctx->rings_size;
	ctx->user->bytes += ctx->charged;

	ctx->rings_fd = memfd_sealed("tqsubmit-rings", ctx->rings_size);
	if (ctx->rings_fd < 0) {
		*err = ctx->rings_fd == -EMFILE || ctx->rings_fd == -ENFILE ? -ENOMEM : ctx->rings_fd;
		goto fail;
	}
	base = mmap(NULL, ctx->rings_size, PROT_READ | PROT_WRITE, MAP_SHARED, ctx->rings_fd, 0);
	if (base == MAP_FAILED) {
		*err = -ENOMEM;
		goto fail;
	}
	ring_init(&ctx->sq, base, sq_size, sq);
	ring_init(&ctx->cq, (char *)base + sq_size, cq_size, cq);

	ctx->arena_bytes = arena_bytes;
	ctx->arena_fd = memfd_sealed("tqsubmit-arena", arena_bytes);
	if (ctx->arena_fd < 0) {
		*err = -ENOMEM;
		goto fail;
	}

	/* Each task taken holds a CQ entry, so the CQ can never overflow. */
	ctx->nr_slots = tq_nr_slots(tqd.lim.inflight_max, cq);
	ctx->slots = calloc(ctx->nr_slots, sizeof(*ctx->slots));
	if (!ctx->slots) {
		*err = -ENOMEM;
		goto fail;
	}
	for (i = 0; i < ctx->nr_slots; i++)
		list_add_tail(&ctx->slots[i].node, &ctx->free);
	ctx->chain = calloc(sq, sizeof(*ctx->chain));
	if (!ctx->chain) {
		*err = -ENOMEM;
		goto fail;
	}
	return ctx;

fail:
	tqd_ctx_free(ctx);
	return NULL;
}

void tqd_query(struct tq_query *q)
{
	q->features = TQD_FEATURES;
	q->abi_version = TQ_ABI_VERSION;
	q->desc_size = sizeof(struct tq_desc);
	q->cqe_size = sizeof(struct tq_cqe);
	q->event_size = sizeof(struct tq_event);
	q->completion_size = sizeof(struct tq_completion);
	q->max_ring_entries = tq_ring_max(tqd.lim.ring_entries_max);
	q->max_arena_bytes = tqd.lim.arena_bytes_max;
	q->max_inflight = tqd.lim.inflight_max ? tqd.lim.inflight_max : 1;
	q->max_contexts = tqd.lim.contexts_per_user;
}

/*
 * TQ_IOC_SETUP, as tq_ctx_setup(): efd is the eventfd the message carried
 * (owned by the caller until success), -1 for none, or the errno of a bad
 * one (-EBADF missing, -EINVAL not an eventfd), reported after the sizes as
 * the module reports it.
 */
int tqd_setup(struct tqd_conn *c, struct tq_setup *s, int efd)
{
	uint32_t ring_max = tq_ring_max(tqd.lim.ring_entries_max);
	struct tqd_ctx *ctx;
	__u64 arena;
	uint32_t sq, cq;
	int ret;

	if (s->flags || s->resv)
		return -EINVAL;
	if (c->ctx)
		return -EINVAL;
	ret = tq_setup_sizes(s, ring_max, tqd.lim.arena_bytes_max, page_size(), &sq, &cq, &arena);
	if (ret)
		return ret;
	if (s->eventfd >= 0 && efd < 0)
		return efd;
	if (s->eventfd < 0 && efd >= 0)
		return -EINVAL;

	ctx = ctx_alloc(c, sq, cq, arena, &ret);
	if (!ctx)
		return ret;
	if (c->user->contexts > tqd.lim.contexts_per_user) {
		tqd_ctx_free(ctx);
		return -EMFILE;
	}
	ctx->id = ctx_alloc_id();
	if (!ctx->id) {
		tqd_ctx_free(ctx);
		return -ENOSPC;
	}
	ctx->efd = efd;
	ctx->conn = c;
	c->ctx = ctx;
	list_add_tail(&ctx->hash, ctx_bucket(ctx->id));
	tqd.nr_ctxs++;
	ctx_set_flags(ctx, tqd.need_wakeup ? TQ_RING_NEED_WAKEUP : 0, 0);
	list_add_tail(&ctx->node, &tqd.live);
	tqd.kick = true;

	s->sq_entries = sq;
	s->cq_entries = cq;
	s->arena_bytes = ctx->arena_bytes;
	s->ctx_id = ctx->id;
	s->max_inflight = ctx->nr_slots;
	s->features = TQD_FEATURES;
	ring_offsets(&s->sq_off, &ctx->sq, 0);
	ring_offsets(&s->cq_off, &ctx->cq, ctx->sq.size);
	s->arena_offset = 0;
	return 0;
}

/* Whether a doorbell could give the scheduler work (tq_ctx_can_take()). */
static bool ctx_can_take(struct tqd_ctx *ctx)
{
	uint32_t pending, used;

	if (!tqd.sched || !(ctx->sq_flags & TQ_RING_NEED_WAKEUP))
		return false;
	pending = __atomic_load_n(ctx->sq.producer, __ATOMIC_RELAXED) - ctx->sq.cached;
	if (!pending)
		return false;
	used = ctx->cq.cached - __atomic_load_n(ctx->cq.consumer, __ATOMIC_RELAXED);
	/* A corrupt index: let the next look find it and break the rings. */
	if (pending > ctx->sq.nr || used > ctx->cq.nr)
		return true;
	return ctx->in_use < ctx->nr_slots && ctx->cq.nr - used > ctx->in_use;
}

/*
 * TQ_IOC_ENTER, as tq_ctx_enter(): wakes the loop's look at the SQs only
 * when the scheduler could take something, once until that look (@rung).
 */
int tqd_enter(struct tqd_conn *c, const struct tq_enter *e)
{
	struct tqd_ctx *ctx = c->ctx;

	if (!ctx || e->flags)
		return -EINVAL;
	if (ctx->broken)
		return -EBADFD;
	tqd.st.enters++;
	if (!ctx_can_take(ctx) || ctx->rung) {
		tqd.st.enters_absorbed++;
		return 0;
	}
	ctx->rung = true;	/* M: cleared by the look (N) */
	tqd.kick = true;
	return 0;
}

/* Free a slot; the caller accounts for why. */
static void slot_free(struct tqd_ctx *ctx, struct tqd_slot *slot)
{
	slot->succ = 0;
	slot->state = SLOT_FREE;
	list_move(&slot->node, &ctx->free);
	ctx->in_use--;
	tqd.st.in_flight--;
}

/* Forget a context: tasks still held count as dropped; then free it. */
static void ctx_unlink(struct tqd_ctx *ctx)
{
	struct list *p, *n;

	list_del_init(&ctx->hash);
	tqd.nr_ctxs--;
	if (ctx->is_dirty) {
		list_del_init(&ctx->dirty);
		ctx->is_dirty = false;
	}
	list_for_each_safe(p, n, &ctx->delivered) {
		slot_free(ctx, list_entry(p, struct tqd_slot, node));
		tqd.st.dropped++;
	}
	tqd_ctx_free(ctx);
}

/* The client's connection ended (tq_ctx_close()). */
void tqd_ctx_close(struct tqd_ctx *ctx)
{
	struct list *p, *n;

	list_del_init(&ctx->node);
	ctx->closed = true;
	ctx->conn = NULL;
	list_for_each_safe(p, n, &ctx->pending) {
		slot_free(ctx, list_entry(p, struct tqd_slot, node));
		tqd.st.dropped++;
	}
	list_for_each_safe(p, n, &ctx->held) {
		slot_free(ctx, list_entry(p, struct tqd_slot, node));
		tqd.st.dropped++;
	}
	if (tqd.sched && ctx->known) {
		list_add_tail(&ctx->node, &tqd.closed);
		tqd.kick = true;
	} else {
		ctx_unlink(ctx);
	}
}

/* ---- the scheduler ------------------------------------------------------- */

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
		ctx_set_flags(list_entry(p, struct tqd_ctx, node), on ? TQ_RING_NEED_WAKEUP : 0,
			      on ? 0 : TQ_RING_NEED_WAKEUP);
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
		cq_submit(&ctx->cq);
		if (ctx->efd >= 0)
			tqd_efd_signal(ctx);
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
		int space = cq_reserve(&ctx->cq);

		if (space <= 0) {
			/* Only a consumer index moved backwards gets here. */
			ctx_break(ctx);
			return NULL;
		}
		ctx->cq.space = space;
	}
	ctx->cq.space--;
	ctx->completed++;
	ctx_mark_dirty(ctx);
	return cq_entry(&ctx->cq, ctx->cq.cached++);
}

static void cqe_write(struct tq_cqe *cqe, uint64_t user_data, int status, uint32_t flags,
		      uint64_t result, uint64_t queued, uint64_t start, uint64_t end)
{
	struct tq_cqe v = {
		.user_data = user_data, .status = status, .flags = flags, .result = result,
		.queued_ns = queued, .start_ns = start, .end_ns = end,
	};

	/* Every field, since the entry is reused; the client may be reading. */
	memcpy(cqe, &v, sizeof(v));
}

/* We complete a task ourselves: its CQE, and the slot freed (tq_end()). */
static void end(struct tqd_ctx *ctx, struct tqd_slot *slot, int status, uint64_t start,
		uint64_t stop)
{
	struct tq_cqe *cqe = ctx->broken ? NULL : cq_next(ctx);

	if (cqe)
		cqe_write(cqe, slot->ev.task.user_data, status,
			  slot->requeued ? TQ_CQE_F_REQUEUED : 0, 0, slot->ev.submit_ns, start, stop);
	slot->started_ns = 0;
	slot->state = SLOT_FREE;
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
		if (!status) {
			if (next->state == SLOT_HELD) {
				next->state = SLOT_PENDING;
				list_move_tail(&next->node, &ctx->pending);
			}
			return;
		}
		if (next->state == SLOT_DELIVERED) {
			next->pred_failed = 1;
			return;
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
			slot->state = SLOT_PENDING;
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
		ctx_unlink(ctx);
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
	ev->tag = (uint64_t)(slot->gen + 1) << 32 | (uint32_t)(slot - ctx->slots);
	tqd.batch[tqd.batch_n++] = *ev;
	slot->gen++;
	slot->state = SLOT_DELIVERED;
	list_move_tail(&slot->node, &ctx->delivered);
	tqd.st.delivered++;
}

/* A descriptor failed validation: its error completion, and no slot. */
static void reject(struct tqd_ctx *ctx, const struct tq_desc *d, int err, uint64_t now)
{
	struct tq_cqe *cqe = cq_next(ctx);

	ctx->rejected++;
	if (cqe)
		cqe_write(cqe, d->user_data, err, 0, 0, now, 0, 0);
}

/* A successor waits here (tq_chain_hold()). */
static bool chain_hold(struct tqd_ctx *ctx, struct tqd_slot *slot)
{
	return slot->ev.pred && (!tqd.sched_chains ||
				 ctx->slots[slot->pred_slot].state != SLOT_DELIVERED);
}

static void hold(struct tqd_ctx *ctx, struct tqd_slot *slot)
{
	slot->state = SLOT_HELD;
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
	avail = sq_peek(&ctx->sq);
	room = avail > 0 ? cq_reserve(&ctx->cq) : 0;
	if (avail < 0 || room < 0) {
		ctx_break(ctx);
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
		if (!tq_desc_copy(d, sq_entry(&ctx->sq, ctx->sq.cached + taken)))
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
	sq_release(&ctx->sq, taken);
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
		tqd_sched_send();
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
	uint32_t idx;

	if (tq_completion_check(c))
		return -EINVAL;
	if (!ctx || ctx->id != c->ctx_id)
		ctx = ctx_lookup(c->ctx_id);
	if (!ctx || !ctx->known)
		return -ENOENT;
	*cache = ctx;

	if (c->flags & TQ_COMPL_F_RELEASE) {
		if (!ctx->close_sent)
			return -EINVAL;
		*cache = NULL;
		list_del_init(&ctx->node);
		ctx_unlink(ctx);
		return 0;
	}

	idx = (uint32_t)c->tag;
	if (idx >= ctx->nr_slots)
		return -ENOENT;
	slot = &ctx->slots[idx];
	if (slot->state != SLOT_DELIVERED || slot->gen != (uint32_t)(c->tag >> 32))
		return -ENOENT;

	/* A mark changes only the task's fate should this scheduler go. */
	if (c->flags & TQ_COMPL_F_STARTED) {
		if (!slot->started_ns)
			slot->started_ns = tq_now_ns();
		return 0;
	}

	chain_settle(ctx, slot, c->status);
	cqe = ctx->closed || ctx->broken ? NULL : cq_next(ctx);
	if (cqe)
		cqe_write(cqe, slot->ev.task.user_data, c->status,
			  slot->requeued ? TQ_CQE_F_REQUEUED : 0, c->result, slot->ev.submit_ns,
			  c->start_ns, c->end_ns);
	slot->started_ns = 0;
	slot->state = SLOT_FREE;
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
			tqd_log(TQD_DEBUG, "completion %u of ctx %u tag %#llx dropped: %s", i,
				c[i].ctx_id, (unsigned long long)c[i].tag, strerror(-err));
		}
	}
	tqd_flush_dirty();
	tqd.st.completed += completed;
	tqd.st.failed += failed;
	tqd.st.in_flight -= completed + failed;
}

/* ---- statistics ---------------------------------------------------------- */

int tqd_stats_text(char *buf, size_t size)
{
	const struct tqd_counters *s = &tqd.st;

	return snprintf(buf, size,
			"# TYPE contexts gauge\ncontexts %llu\n"
			"submitted %llu\ndelivered %llu\ncompleted %llu\nfailed %llu\n"
			"rejected %llu\ndropped %llu\n"
			"# TYPE in_flight gauge\nin_flight %llu\n"
			"requeued %llu\nabandoned %llu\nenters %llu\nenters_absorbed %llu\n"
			"# TYPE scheduler_pid gauge\nscheduler_pid %d\n"
			"# TYPE connections gauge\nconnections %llu\nbad_messages %llu\nbad_records %llu\n"
			"stalled_sends %llu\n",
			(unsigned long long)s->contexts, (unsigned long long)s->submitted,
			(unsigned long long)s->delivered, (unsigned long long)s->completed,
			(unsigned long long)s->failed, (unsigned long long)s->rejected,
			(unsigned long long)s->dropped, (unsigned long long)s->in_flight,
			(unsigned long long)s->requeued, (unsigned long long)s->abandoned,
			(unsigned long long)s->enters, (unsigned long long)s->enters_absorbed,
			tqd.sched ? (int)tqd.sched->pid : 0,
			(unsigned long long)s->connections, (unsigned long long)s->bad_messages,
			(unsigned long long)s->bad_records, (unsigned long long)s->stalled_sends);
}
