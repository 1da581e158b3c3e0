// SPDX-License-Identifier: GPL-2.0
/*
 * ctx.c - tqsubmitd's client contexts: setup, the doorbell, close and free;
 * what kmod/ctx.c does for the module, for contexts that live in memfds
 * instead of vmalloc and shmem. Function for function it follows the
 * module, so that both keep one behaviour; the checks and the ring
 * arithmetic themselves are shared (<tq/tqsubmit_check.h>,
 * <tq/tqsubmit_ring.h>).
 *
 * Lifetime of a context, as the module's:
 *  1. SETUP (tqd_setup) makes its memfds and slots, gives it an id and puts
 *     it on tqd.live. The client's connection owns it.
 *  2. The connection's end (tqd_ctx_close) drops the tasks the scheduler
 *     has not seen; if the scheduler knows the context it moves to
 *     tqd.closed until the scheduler releases it or goes, else it is freed.
 *  3. tqd_ctx_free() unmaps and closes its memfds; mappings the client or
 *     the scheduler still hold keep the pages.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tqsubmitd.h"

static long page_size(void)
{
	static long ps;

	if (!ps)
		ps = sysconf(_SC_PAGESIZE);
	return ps;
}

/* We keep our own copy of the flags; the shared word is never read. */
void tqd_ctx_set_flags(struct tqd_ctx *ctx, uint32_t set, uint32_t clear)
{
	ctx->sq_flags = (ctx->sq_flags | set) & ~clear;
	__atomic_store_n(ctx->sq.flags, ctx->sq_flags, __ATOMIC_RELAXED);
}

/* A ring index went out of range: stop taking work, tell the client. */
void tqd_ctx_break(struct tqd_ctx *ctx)
{
	ctx->broken = true;
	tqd_ctx_set_flags(ctx, TQ_RING_BROKEN, 0);
	__atomic_store_n(ctx->cq.flags, TQ_RING_BROKEN, __ATOMIC_RELAXED);
}

static struct list *ctx_bucket(uint32_t id)
{
	return &tqd.ctx_hash[id % TQD_CTX_HASH];
}

struct tqd_ctx *tqd_ctx_lookup(uint32_t id)
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
		if (!tqd_ctx_lookup(id))
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
		tqd.io->efd_cancel(ctx);
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
		tqd.io->efd_signal(ctx);
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
	tq_ring_init(&ctx->sq, base, sq_size, sq);
	tq_ring_init(&ctx->cq, (char *)base + sq_size, cq_size, cq);

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
	q->max_contexts = tqd.lim.contexts_per_user;	/* 0: no limit */
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

	ret = tq_setup_check(s);
	if (ret)
		return ret;
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
	if (tqd.lim.contexts_per_user && c->user->contexts > tqd.lim.contexts_per_user) {
		tqd_ctx_free(ctx);
		return -EMFILE;
	}
	ctx->id = ctx_alloc_id();
	if (!ctx->id) {
		tqd_ctx_free(ctx);
		return -ENOSPC;
	}
	ctx->efd = efd;
	ctx->prio = s->prio;
	ctx->conn = c;
	c->ctx = ctx;
	list_add_tail(&ctx->hash, ctx_bucket(ctx->id));
	tqd.nr_ctxs++;
	tqd_ctx_set_flags(ctx, tqd.need_wakeup ? TQ_RING_NEED_WAKEUP : 0, 0);
	list_add_tail(&ctx->node, &tqd.live);
	tqd.kick = true;

	s->sq_entries = sq;
	s->cq_entries = cq;
	s->arena_bytes = ctx->arena_bytes;
	s->ctx_id = ctx->id;
	s->max_inflight = ctx->nr_slots;
	s->features = TQD_FEATURES;
	tq_ring_offsets(&s->sq_off, &ctx->sq, 0);
	tq_ring_offsets(&s->cq_off, &ctx->cq, ctx->sq.size);
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
	return tq_can_take(&ctx->sq, &ctx->cq, pending, used, ctx->in_use, ctx->nr_slots);
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
	slot->state = TQ_SLOT_FREE;
	list_move(&slot->node, &ctx->free);
	ctx->in_use--;
	tqd.st.in_flight--;
}

/* Forget a context: tasks still held count as dropped; then free it. */
void tqd_ctx_unlink(struct tqd_ctx *ctx)
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
		tqd_ctx_unlink(ctx);
	}
}
