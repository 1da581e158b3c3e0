// SPDX-License-Identifier: GPL-2.0
/*
 * ctx.c - client contexts: setup, mappings, the doorbell, close and free.
 * Descriptors are validated by the checks of <tq/tqsubmit_check.h>, which
 * tqsubmitd shares.
 *
 * Lifetime of a context:
 *  1. TQ_IOC_SETUP allocates its rings, task table and arena, charges them to
 *     the owner's locked memory, gives it an id and puts it on tq.live, where
 *     the scheduler finds it. The client's file holds the reference.
 *  2. close() drops the tasks the scheduler has not seen. If the scheduler
 *     knows the context, the reference passes to tq.closed until the
 *     scheduler releases it (TQ_COMPL_F_RELEASE) or exits; else it is
 *     dropped at once.
 *  3. The last reference frees everything, after an RCU grace period for
 *     the lock-free lookup of the scheduler's mmap(). Arena pages still
 *     mapped by anyone live on with their mappings.
 */
#include <linux/cred.h>
#include <linux/eventfd.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/seq_file.h>
#include <linux/shmem_fs.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "tq.h"

/* Charge pages to the user's locked memory, as io_uring did before memcg. */
static int tq_charge(struct user_struct *user, unsigned long pages)
{
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	bool unlimited = capable(CAP_IPC_LOCK);
	unsigned long cur, new;

	cur = atomic_long_read(&user->locked_vm);
	do {
		new = cur + pages;
		if (!unlimited && new > limit)
			return -ENOMEM;
	} while (!atomic_long_try_cmpxchg(&user->locked_vm, &cur, new));
	return 0;
}

static int tq_ring_alloc(struct tq_ring *r, u32 nr, size_t entry_size)
{
	size_t size = tq_ring_bytes(nr, entry_size, PAGE_SIZE);
	void *base = vmalloc_user(size);

	if (!base)
		return -ENOMEM;
	tq_ring_init(r, base, size, nr);
	return 0;
}

static void tq_ctx_free(struct kref *ref)
{
	struct tq_ctx *ctx = container_of(ref, struct tq_ctx, ref);

	if (ctx->locked_pages)
		atomic_long_sub(ctx->locked_pages, &ctx->user->locked_vm);
	if (ctx->arena)
		fput(ctx->arena);
	vfree(ctx->sq.base);
	vfree(ctx->cq.base);
	kvfree(ctx->slots);
	kvfree(ctx->chain);
	if (ctx->efd)
		eventfd_ctx_put(ctx->efd);
	put_pid(ctx->pid);
	if (ctx->user)
		free_uid(ctx->user);
	if (ctx->mm)
		mmdrop(ctx->mm);
	atomic64_dec(&tq.stats.contexts);
	kfree_rcu(ctx, rcu);
}

void tq_ctx_put(struct tq_ctx *ctx)
{
	kref_put(&ctx->ref, tq_ctx_free);
}

/* Allocate everything a context needs; nothing is visible yet. */
static struct tq_ctx *tq_ctx_alloc(u32 sq, u32 cq, u64 arena_bytes, int efd)
{
	struct tq_ctx *ctx;
	unsigned long pages;
	u32 i;
	int ret;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL_ACCOUNT);
	if (!ctx)
		return ERR_PTR(-ENOMEM);
	atomic64_inc(&tq.stats.contexts);
	kref_init(&ctx->ref);
	INIT_LIST_HEAD(&ctx->node);
	INIT_LIST_HEAD(&ctx->dirty);
	INIT_LIST_HEAD(&ctx->free);
	INIT_LIST_HEAD(&ctx->pending);
	INIT_LIST_HEAD(&ctx->delivered);
	INIT_LIST_HEAD(&ctx->held);
	init_waitqueue_head(&ctx->wq);
	ctx->pid = get_pid(task_tgid(current));
	ctx->user = get_uid(current_user());
	ctx->uid = current_uid();
	ctx->mm = current->mm;
	mmgrab(ctx->mm);

	if (efd >= 0) {
		ctx->efd = eventfd_ctx_fdget(efd);
		if (IS_ERR(ctx->efd)) {
			ret = PTR_ERR(ctx->efd);
			ctx->efd = NULL;
			goto out_put;
		}
	}

	ret = tq_ring_alloc(&ctx->sq, sq, sizeof(struct tq_desc));
	if (ret)
		goto out_put;
	ret = tq_ring_alloc(&ctx->cq, cq, sizeof(struct tq_cqe));
	if (ret)
		goto out_put;

	/* Each task taken holds a CQ entry, so the CQ can never overflow. */
	ctx->nr_slots = tq_nr_slots(READ_ONCE(tq_inflight_max), cq);
	ctx->slots = kvcalloc(ctx->nr_slots, sizeof(*ctx->slots), GFP_KERNEL_ACCOUNT);
	if (!ctx->slots) {
		ret = -ENOMEM;
		goto out_put;
	}
	for (i = 0; i < ctx->nr_slots; i++)
		list_add_tail(&ctx->slots[i].node, &ctx->free);
	ctx->chain = kvcalloc(sq, sizeof(*ctx->chain), GFP_KERNEL_ACCOUNT);
	if (!ctx->chain) {
		ret = -ENOMEM;
		goto out_put;
	}

	ctx->arena_bytes = arena_bytes;
	ctx->arena = shmem_file_setup("tqsubmit-arena", ctx->arena_bytes, VM_NORESERVE);
	if (IS_ERR(ctx->arena)) {
		ret = PTR_ERR(ctx->arena);
		ctx->arena = NULL;
		goto out_put;
	}

	pages = (ctx->arena_bytes + ctx->sq.size + ctx->cq.size) >> PAGE_SHIFT;
	ret = tq_charge(ctx->user, pages);
	if (ret)
		goto out_put;
	ctx->locked_pages = pages;
	return ctx;

out_put:
	tq_ctx_put(ctx);
	return ERR_PTR(ret);
}

static unsigned int tq_user_contexts(struct user_struct *user)
{
	struct tq_ctx *ctx;
	unsigned int n = 0;

	list_for_each_entry(ctx, &tq.live, node)
		n += ctx->user == user;
	list_for_each_entry(ctx, &tq.closed, node)
		n += ctx->user == user;
	return n;
}

/* TQ_IOC_SETUP: make a fresh fd a context. */
int tq_ctx_setup(struct file *file, void *arg)
{
	struct tq_setup *s = arg;
	u32 ring_max = tq_param_ring_max();
	struct tq_ctx *ctx;
	u64 arena;
	u32 sq, cq;
	int ret;

	ret = tq_setup_check(s);
	if (ret)
		return ret;
	if (READ_ONCE(file->private_data))
		return -EINVAL;
	ret = tq_setup_sizes(s, ring_max, READ_ONCE(tq_arena_bytes_max), PAGE_SIZE, &sq, &cq,
			     &arena);
	if (ret)
		return ret;

	ctx = tq_ctx_alloc(sq, cq, arena, s->eventfd);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	ctx->prio = s->prio;

	mutex_lock(&tq.lock);
	if (file->private_data) {
		ret = -EINVAL;
		goto out_unlock;
	}
	if (tq_user_contexts(ctx->user) >= READ_ONCE(tq_contexts_per_user)) {
		ret = -EMFILE;
		goto out_unlock;
	}
	ret = xa_alloc_cyclic(&tq.ctxs, &ctx->id, ctx, XA_LIMIT(1, TQ_CTX_ID_MAX),
			      &tq.next_id, GFP_KERNEL);
	if (ret < 0)
		goto out_unlock;
	tq_ctx_set_flags(ctx, tq.need_wakeup ? TQ_RING_NEED_WAKEUP : 0, 0);
	list_add_tail(&ctx->node, &tq.live);
	smp_store_release(&file->private_data, ctx);	/* see tq_file_ctx() */
	mutex_unlock(&tq.lock);
	tq_kick();

	s->sq_entries = sq;
	s->cq_entries = cq;
	s->arena_bytes = ctx->arena_bytes;
	s->ctx_id = ctx->id;
	s->max_inflight = ctx->nr_slots;
	s->features = TQ_FEATURES;
	tq_ring_offsets(&s->sq_off, &ctx->sq, TQ_OFF_SQ);
	tq_ring_offsets(&s->cq_off, &ctx->cq, TQ_OFF_CQ);
	s->arena_offset = TQ_OFF_ARENA;
	return 0;

out_unlock:
	mutex_unlock(&tq.lock);
	tq_ctx_put(ctx);
	return ret;
}

/*
 * Whether a doorbell could give the scheduler work: it is attached and idle
 * (the need-wakeup flag is set), and the kernel could take a descriptor
 * now: the SQ holds one, a task slot is free and the CQ has an entry for
 * its completion. The fields are the kernel's, read without tq.lock: a
 * stale value errs towards a spurious wake-up, except while the scheduler
 * frees slots or goes idle, and then it looks at the SQ itself (after
 * completions in tq_flush_dirty(), before sleeping by I).
 */
static bool tq_ctx_can_take(struct tq_ctx *ctx)
{
	u32 pending, used, in_use;

	if (!READ_ONCE(tq.sched) || !(READ_ONCE(ctx->sq_flags) & TQ_RING_NEED_WAKEUP))
		return false;
	pending = READ_ONCE(*ctx->sq.producer) - READ_ONCE(ctx->sq.cached);
	if (!pending)
		return false;
	in_use = READ_ONCE(ctx->in_use);
	used = READ_ONCE(ctx->cq.cached) - READ_ONCE(*ctx->cq.consumer);
	return tq_can_take(&ctx->sq, &ctx->cq, pending, used, in_use, ctx->nr_slots);
}

/*
 * TQ_IOC_ENTER: the doorbell. It wakes the scheduler only when it could take
 * something, and once until the scheduler has looked at this context
 * (@rung): a storm of ENTERs costs the caller its system calls and nobody
 * else anything. The rest are absorbed, and counted.
 */
int tq_ctx_enter(struct file *file, void *arg)
{
	struct tq_ctx *ctx = tq_file_ctx(file);
	struct tq_enter *e = arg;

	if (!ctx)
		return -EINVAL;
	if (e->flags)
		return -EINVAL;
	if (ctx->mm != current->mm)
		return -EPERM;
	if (READ_ONCE(ctx->broken))
		return -EBADFD;
	this_cpu_inc(tq_enter_stats.enters);
	if (!tq_ctx_can_take(ctx) || atomic_xchg(&ctx->rung, 1)) {	/* M, matches N */
		this_cpu_inc(tq_enter_stats.absorbed);
		return 0;
	}
	tq_kick();
	return 0;
}

/* Ring and arena mappings: shared, never executable. */
int tq_vma_check(struct vm_area_struct *vma)
{
	if (!(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;
	if (vma->vm_flags & VM_EXEC)
		return -EPERM;
	return 0;
}

/*
 * Fork. Every mapping is VM_DONTCOPY, but madvise(MADV_DOFORK) clears that
 * flag, and a child would then share the rings or the arena. The rings are
 * also VM_IO, which makes MADV_DOFORK fail with EINVAL: nothing needs
 * get_user_pages() on a ring (io_uring's rings are VM_IO too). The arena
 * cannot be VM_IO: get_user_pages() refuses VM_IO, and the scheduler's
 * OpenCL driver pins its arena mappings through it (CL_MEM_USE_HOST_PTR:
 * pinned memory's fast copies), as a client may for O_DIRECT I/O into its
 * arena. So an arena mapping keeps shmem's faults behind one check
 * instead: the faulting address space must be the one that made the
 * mapping. A shared file mapping's page tables are not copied at fork, so
 * a child reaches an inherited arena only by faulting: it gets SIGBUS, and
 * get_user_pages() from it EFAULT.
 */
static const struct vm_operations_struct *tq_shmem_vm_ops;

/* Set at mmap() time: the mapping's own address space; a fork's copy differs. */
static bool tq_arena_vma_owned(struct vm_area_struct *vma)
{
	return vma->vm_private_data == vma->vm_mm;
}

static vm_fault_t tq_arena_fault(struct vm_fault *vmf)
{
	if (!tq_arena_vma_owned(vmf->vma))
		return VM_FAULT_SIGBUS;
	return tq_shmem_vm_ops->fault(vmf);
}

/* Fault-around maps pages without ->fault(): the same check, or map none. */
static vm_fault_t tq_arena_map_pages(struct vm_fault *vmf, pgoff_t start, pgoff_t end)
{
	if (!tq_arena_vma_owned(vmf->vma))
		return 0;
	return tq_shmem_vm_ops->map_pages(vmf, start, end);
}

static const struct vm_operations_struct tq_arena_vm_ops = {
	.fault		= tq_arena_fault,
	.map_pages	= tq_arena_map_pages,
};

/*
 * Map the arena's shmem pages themselves: the vma becomes the shmem file's,
 * so the OpenCL driver can pin it like any memfd mapping, and it outlives
 * the context without our help. Its faults go through the check above.
 */
int tq_arena_map(struct tq_ctx *ctx, struct vm_area_struct *vma)
{
	const struct vm_operations_struct *ops;
	int ret;

	if (vma->vm_end - vma->vm_start != ctx->arena_bytes)
		return -EINVAL;
	vma_set_file(vma, ctx->arena);
	vma->vm_pgoff = 0;
	ret = call_mmap(ctx->arena, vma);
	if (ret)
		return ret;
	/* shmem's operations are one static table; keep it for the wrappers. */
	ops = cmpxchg(&tq_shmem_vm_ops, NULL, vma->vm_ops) ?: vma->vm_ops;
	if (ops != vma->vm_ops || !ops->fault || !ops->map_pages)
		return -ENODEV;
	vma->vm_ops = &tq_arena_vm_ops;
	vma->vm_private_data = vma->vm_mm;
	tq_vm_flags_mod(vma, VM_DONTCOPY | VM_DONTEXPAND, VM_MAYEXEC);
	return 0;
}

/* The client maps its SQ, CQ and arena, each whole, at the reported offsets. */
int tq_ctx_mmap(struct tq_ctx *ctx, struct vm_area_struct *vma)
{
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT;
	struct tq_ring *ring;

	if (ctx->mm != current->mm)
		return -EPERM;
	if (off == TQ_OFF_ARENA)
		return tq_arena_map(ctx, vma);
	if (off == TQ_OFF_SQ)
		ring = &ctx->sq;
	else if (off == TQ_OFF_CQ)
		ring = &ctx->cq;
	else
		return -EINVAL;
	if (vma->vm_end - vma->vm_start != ring->size)
		return -EINVAL;
	/* VM_IO: MADV_DOFORK fails on it (see "Fork" above). */
	tq_vm_flags_mod(vma, VM_IO | VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP, VM_MAYEXEC);
	return remap_vmalloc_range(vma, ring->base, 0);
}

/* Readable when the CQ holds completions; an error once the rings broke. */
__poll_t tq_ctx_poll(struct tq_ctx *ctx, struct file *file, struct poll_table_struct *pt)
{
	__poll_t mask = 0;

	poll_wait(file, &ctx->wq, pt);
	smp_mb();	/* L, matches K in tq_flush_dirty() */
	if (READ_ONCE(*ctx->cq.producer) != READ_ONCE(*ctx->cq.consumer))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (READ_ONCE(ctx->broken))
		mask |= EPOLLERR;
	return mask;
}

/* The kernel keeps its own copy of the flags; the shared word is never read. */
void tq_ctx_set_flags(struct tq_ctx *ctx, u32 set, u32 clear)
{
	ctx->sq_flags = (ctx->sq_flags | set) & ~clear;
	WRITE_ONCE(*ctx->sq.flags, ctx->sq_flags);
}

/* A ring index went out of range: stop taking work, tell the client. */
void tq_ctx_break(struct tq_ctx *ctx)
{
	WRITE_ONCE(ctx->broken, true);
	tq_ctx_set_flags(ctx, TQ_RING_BROKEN, 0);
	WRITE_ONCE(*ctx->cq.flags, TQ_RING_BROKEN);
	wake_up_poll(&ctx->wq, EPOLLERR);
}

/* Free a slot; the caller accounts for why. */
static void tq_slot_free(struct tq_ctx *ctx, struct tq_slot *slot)
{
	slot->succ = 0;
	slot->state = TQ_SLOT_FREE;
	list_move(&slot->node, &ctx->free);
	ctx->in_use--;
	atomic64_dec(&tq.stats.in_flight);
}

/* Forget a context (under tq.lock): tasks still held count as dropped. */
void tq_ctx_unlink(struct tq_ctx *ctx)
{
	struct tq_slot *slot, *tmp;
	unsigned int n = 0;

	xa_erase(&tq.ctxs, ctx->id);
	list_for_each_entry_safe(slot, tmp, &ctx->delivered, node) {
		tq_slot_free(ctx, slot);
		n++;
	}
	atomic64_add(n, &tq.stats.dropped);
}

/* The client closed its fd: no mapping of the rings is left. */
void tq_ctx_close(struct tq_ctx *ctx)
{
	struct tq_slot *slot, *tmp;
	unsigned int n = 0;
	bool keep;

	mutex_lock(&tq.lock);
	list_del_init(&ctx->node);
	ctx->closed = true;
	list_for_each_entry_safe(slot, tmp, &ctx->pending, node) {
		tq_slot_free(ctx, slot);
		n++;
	}
	list_for_each_entry_safe(slot, tmp, &ctx->held, node) {
		tq_slot_free(ctx, slot);
		n++;
	}
	atomic64_add(n, &tq.stats.dropped);
	keep = tq.sched && ctx->known;
	if (keep)
		list_add_tail(&ctx->node, &tq.closed);
	else
		tq_ctx_unlink(ctx);
	mutex_unlock(&tq.lock);
	if (keep)
		tq_kick();
	else
		tq_ctx_put(ctx);
}

void tq_ctx_fdinfo(struct seq_file *m, struct tq_ctx *ctx)
{
	struct tq_slot *slot;
	unsigned int delivered = 0;

	mutex_lock(&tq.lock);
	list_for_each_entry(slot, &ctx->delivered, node)
		delivered++;
	seq_printf(m, "tq-ctx:\t%u\n", ctx->id);
	seq_printf(m, "pid:\t%d\n", pid_vnr(ctx->pid));
	seq_printf(m, "sq-entries:\t%u\nsq-head:\t%u\nsq-tail:\t%u\n",
		   ctx->sq.nr, ctx->sq.cached, READ_ONCE(*ctx->sq.producer));
	seq_printf(m, "cq-entries:\t%u\ncq-head:\t%u\ncq-tail:\t%u\n",
		   ctx->cq.nr, READ_ONCE(*ctx->cq.consumer), ctx->cq.cached);
	seq_printf(m, "arena-bytes:\t%llu\n", ctx->arena_bytes);
	seq_printf(m, "max-inflight:\t%u\n", ctx->nr_slots);
	seq_printf(m, "pending:\t%u\ndelivered:\t%u\n", ctx->in_use - delivered, delivered);
	seq_printf(m, "submitted:\t%llu\ncompleted:\t%llu\nrejected:\t%llu\nrequeued:\t%llu\n",
		   ctx->submitted, ctx->completed, ctx->rejected, ctx->requeued);
	seq_printf(m, "abandoned:\t%llu\n", ctx->abandoned);
	seq_printf(m, "need-wakeup:\t%d\nbroken:\t%d\nscheduler-knows:\t%d\n",
		   !!(ctx->sq_flags & TQ_RING_NEED_WAKEUP), ctx->broken, ctx->known);
	mutex_unlock(&tq.lock);
}
