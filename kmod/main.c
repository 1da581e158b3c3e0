// SPDX-License-Identifier: GPL-2.0
/*
 * tqsubmit.ko - /dev/tqsubmit: many processes submit GPU tasks to one
 * scheduling daemon through shared rings.
 *
 * This file holds the device: module parameters, the file operations and
 * their dispatch by file kind, the ioctl table and the sysfs counters.
 * ctx.c holds client contexts, sched.c the scheduler's side. The ABI is
 * include/uapi/linux/tqsubmit.h; Documentation/userspace-api/tqsubmit.rst
 * describes it. A client, in short:
 *
 *	fd = open("/dev/tqsubmit", O_RDWR);
 *	struct tq_setup s = { .size = sizeof(s), .sq_entries = 64,
 *			      .arena_bytes = 1 << 20, .eventfd = efd };
 *	ioctl(fd, TQ_IOC_SETUP, &s);
 *	sq = mmap(NULL, s.sq_off.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED,
 *		  fd, s.sq_off.mmap_offset);
 *	... then the CQ and the arena likewise; write descriptors, publish the
 *	SQ producer, ring TQ_IOC_ENTER if TQ_RING_NEED_WAKEUP is set.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/nospec.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "tq.h"

struct tq_dev tq;
DEFINE_PER_CPU(struct tq_enter_stats, tq_enter_stats);

unsigned int tq_ring_entries_max = 4096;
module_param_named(ring_entries_max, tq_ring_entries_max, uint, 0644);
MODULE_PARM_DESC(ring_entries_max, "Most entries in a context's SQ or CQ (power of two)");

unsigned long tq_arena_bytes_max = 1UL << 30;
module_param_named(arena_bytes_max, tq_arena_bytes_max, ulong, 0644);
MODULE_PARM_DESC(arena_bytes_max, "Largest arena of a context, in bytes");

unsigned int tq_contexts_per_user = 64;
module_param_named(contexts_per_user, tq_contexts_per_user, uint, 0644);
MODULE_PARM_DESC(contexts_per_user, "Most contexts one user may hold");

unsigned int tq_inflight_max = 1024;
module_param_named(inflight_max, tq_inflight_max, uint, 0644);
MODULE_PARM_DESC(inflight_max, "Most tasks a context may have taken and not completed");

/* Answer what this module supports; any fd may ask. */
static int tq_ioc_query(struct file *file, void *arg)
{
	struct tq_query *q = arg;

	if (q->flags)
		return -EINVAL;
	q->features = TQ_FEATURES;
	q->abi_version = TQ_ABI_VERSION;
	q->desc_size = sizeof(struct tq_desc);
	q->cqe_size = sizeof(struct tq_cqe);
	q->event_size = sizeof(struct tq_event);
	q->completion_size = sizeof(struct tq_completion);
	q->max_ring_entries = tq_param_ring_max();
	q->max_arena_bytes = READ_ONCE(tq_arena_bytes_max);
	q->max_inflight = max(READ_ONCE(tq_inflight_max), 1U);
	q->max_contexts = READ_ONCE(tq_contexts_per_user);
	return 0;
}

union tq_ioctl_arg {
	struct tq_query query;
	struct tq_setup setup;
	struct tq_enter enter;
	struct tq_attach attach;
};

/**
 * struct tq_ioctl_op - one entry of the ioctl table
 * @size: the kernel's struct size
 * @min_size: the oldest struct the kernel accepts (its last needed input)
 * @copy_out: write the struct back on success
 * @fn: the handler, given the kernel's copy
 */
struct tq_ioctl_op {
	u32 size;
	u32 min_size;
	bool copy_out;
	int (*fn)(struct file *file, void *arg);
};

static const struct tq_ioctl_op tq_ioctl_ops[] = {
	[_IOC_NR(TQ_IOC_QUERY)] = {
		.size = sizeof(struct tq_query),
		.min_size = offsetofend(struct tq_query, flags),
		.copy_out = true,
		.fn = tq_ioc_query,
	},
	[_IOC_NR(TQ_IOC_SETUP)] = {
		.size = sizeof(struct tq_setup),
		.min_size = offsetofend(struct tq_setup, arena_offset),
		.copy_out = true,
		.fn = tq_ctx_setup,
	},
	[_IOC_NR(TQ_IOC_ENTER)] = {
		.size = sizeof(struct tq_enter),
		.min_size = offsetofend(struct tq_enter, flags),
		.fn = tq_ctx_enter,
	},
	[_IOC_NR(TQ_IOC_ATTACH)] = {
		.size = sizeof(struct tq_attach),
		.min_size = offsetofend(struct tq_attach, flags),
		.copy_out = true,
		.fn = tq_sched_attach,
	},
};

/*
 * One dispatcher for every command: match type, direction and number (the
 * size bits are ignored, the struct's size field rules), copy the argument
 * in as copy_struct_from_user() does (older shorter structs are zero-filled,
 * unknown non-zero tails are E2BIG), run the handler, copy back what the
 * caller's struct has room for.
 */
static long tq_ioctl(struct file *file, unsigned int cmd, unsigned long uarg)
{
	void __user *up = (void __user *)uarg;
	const struct tq_ioctl_op *op;
	union tq_ioctl_arg arg;
	unsigned int nr = _IOC_NR(cmd);
	u32 usize;
	int ret;

	if (_IOC_TYPE(cmd) != TQ_IOC_MAGIC || _IOC_DIR(cmd) != (_IOC_READ | _IOC_WRITE) ||
	    nr >= ARRAY_SIZE(tq_ioctl_ops) || !tq_ioctl_ops[nr].fn)
		return -ENOTTY;
	op = &tq_ioctl_ops[array_index_nospec(nr, ARRAY_SIZE(tq_ioctl_ops))];

	if (get_user(usize, (u32 __user *)up))
		return -EFAULT;
	if (usize < op->min_size)
		return -EINVAL;
	if (usize > PAGE_SIZE)
		return -E2BIG;
	ret = copy_struct_from_user(&arg, op->size, up, usize);
	if (ret)
		return ret;

	ret = op->fn(file, &arg);
	if (ret || !op->copy_out)
		return ret;
	if (copy_to_user(up, &arg, min_t(u32, usize, op->size)))
		return -EFAULT;
	return 0;
}

/* A fresh fd is neither kind until its first SETUP or ATTACH. */
static int tq_open(struct inode *inode, struct file *file)
{
	file->private_data = NULL;
	file->f_mode |= FMODE_NOWAIT;
	return stream_open(inode, file);
}

/* A context's client is gone, or the scheduler exits: see ctx.c, sched.c. */
static int tq_release(struct inode *inode, struct file *file)
{
	struct tq_ctx *ctx;

	if (tq_file_is_sched(file)) {
		tq_sched_detach();
		return 0;
	}
	ctx = tq_file_ctx(file);
	if (ctx)
		tq_ctx_close(ctx);
	return 0;
}

/* Contexts map their rings and arena; the scheduler maps arenas by id. */
static int tq_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct tq_ctx *ctx;
	int ret;

	ret = tq_vma_check(vma);
	if (ret)
		return ret;
	if (tq_file_is_sched(file))
		return tq_sched_mmap(vma);
	ctx = tq_file_ctx(file);
	return ctx ? tq_ctx_mmap(ctx, vma) : -ENODEV;
}

/* Only the scheduler reads events and writes completions. */
static ssize_t tq_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	return tq_file_is_sched(iocb->ki_filp) ? tq_sched_read(iocb, to) : -EINVAL;
}

static ssize_t tq_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	return tq_file_is_sched(iocb->ki_filp) ? tq_sched_write(iocb, from) : -EINVAL;
}

/* The scheduler polls for events, a context for completions. */
static __poll_t tq_poll(struct file *file, struct poll_table_struct *pt)
{
	struct tq_ctx *ctx;

	if (tq_file_is_sched(file))
		return tq_sched_poll(file, pt);
	ctx = tq_file_ctx(file);
	return ctx ? tq_ctx_poll(ctx, file, pt) : EPOLLERR;
}

/* Per-fd state in /proc/<pid>/fdinfo/<fd>. */
static void tq_show_fdinfo(struct seq_file *m, struct file *file)
{
	struct tq_ctx *ctx;

	if (tq_file_is_sched(file)) {
		tq_sched_fdinfo(m);
		return;
	}
	ctx = tq_file_ctx(file);
	if (ctx)
		tq_ctx_fdinfo(m, ctx);
}

static const struct file_operations tq_fops = {
	.owner		= THIS_MODULE,
	.open		= tq_open,
	.release	= tq_release,
	.unlocked_ioctl	= tq_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.mmap		= tq_mmap,
	.read_iter	= tq_read_iter,
	.write_iter	= tq_write_iter,
	.poll		= tq_poll,
	.show_fdinfo	= tq_show_fdinfo,
};

/* Each counter is a read-only attribute of the misc device. */
struct tq_stat_attr {
	struct device_attribute attr;
	atomic64_t *counter;
};

static ssize_t tq_stat_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct tq_stat_attr *sa = container_of(attr, struct tq_stat_attr, attr);

	return sysfs_emit(buf, "%lld\n", atomic64_read(sa->counter));
}

static struct tq_stat_attr tq_stat_attrs[] = {
	{ __ATTR(contexts, 0444, tq_stat_show, NULL), &tq.stats.contexts },
	{ __ATTR(submitted, 0444, tq_stat_show, NULL), &tq.stats.submitted },
	{ __ATTR(delivered, 0444, tq_stat_show, NULL), &tq.stats.delivered },
	{ __ATTR(completed, 0444, tq_stat_show, NULL), &tq.stats.completed },
	{ __ATTR(failed, 0444, tq_stat_show, NULL), &tq.stats.failed },
	{ __ATTR(rejected, 0444, tq_stat_show, NULL), &tq.stats.rejected },
	{ __ATTR(dropped, 0444, tq_stat_show, NULL), &tq.stats.dropped },
	{ __ATTR(in_flight, 0444, tq_stat_show, NULL), &tq.stats.in_flight },
	{ __ATTR(requeued, 0444, tq_stat_show, NULL), &tq.stats.requeued },
	{ __ATTR(abandoned, 0444, tq_stat_show, NULL), &tq.stats.abandoned },
};

/* The doorbell's per-CPU counters, summed. */
static u64 tq_enter_sum(bool absorbed)
{
	const struct tq_enter_stats *st;
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		st = per_cpu_ptr(&tq_enter_stats, cpu);
		sum += absorbed ? READ_ONCE(st->absorbed) : READ_ONCE(st->enters);
	}
	return sum;
}

static ssize_t enters_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n", tq_enter_sum(false));
}
static DEVICE_ATTR_RO(enters);

static ssize_t enters_absorbed_show(struct device *dev, struct device_attribute *attr,
				    char *buf)
{
	return sysfs_emit(buf, "%llu\n", tq_enter_sum(true));
}
static DEVICE_ATTR_RO(enters_absorbed);

static ssize_t scheduler_pid_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(tq.sched_nr));
}
static DEVICE_ATTR_RO(scheduler_pid);

/* Filled in by tq_init(): the counters, the doorbell's, scheduler_pid, NULL. */
static struct attribute *tq_attrs[ARRAY_SIZE(tq_stat_attrs) + 4];
ATTRIBUTE_GROUPS(tq);

static struct miscdevice tq_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= TQ_DEVICE_NAME,
	.fops	= &tq_fops,
	.groups	= tq_groups,
	.mode	= 0666,
};

/* The ABI's layout, pinned: user space compiled against it must agree. */
static void __init tq_check_layout(void)
{
	BUILD_BUG_ON(sizeof(struct tq_buf) != 16);
	BUILD_BUG_ON(sizeof(struct tq_scalar) != 16);
	BUILD_BUG_ON(sizeof(struct tq_desc) != 256);
	BUILD_BUG_ON(offsetof(struct tq_desc, user_data) != 8);
	BUILD_BUG_ON(offsetof(struct tq_desc, program) != 16);
	BUILD_BUG_ON(offsetof(struct tq_desc, global) != 24);
	BUILD_BUG_ON(offsetof(struct tq_desc, local) != 48);
	BUILD_BUG_ON(offsetof(struct tq_desc, after) != 60);
	BUILD_BUG_ON(offsetof(struct tq_desc, bufs) != 64);
	BUILD_BUG_ON(offsetof(struct tq_desc, scalars) != 192);
	BUILD_BUG_ON(sizeof(struct tq_cqe) != 64);
	BUILD_BUG_ON(offsetof(struct tq_cqe, result) != 16);
	BUILD_BUG_ON(offsetof(struct tq_cqe, queued_ns) != 24);
	BUILD_BUG_ON(offsetof(struct tq_cqe, end_ns) != 40);
	BUILD_BUG_ON(sizeof(struct tq_ring_offsets) != 32);
	BUILD_BUG_ON(sizeof(struct tq_query) != 56);
	BUILD_BUG_ON(sizeof(struct tq_setup) != 120);
	BUILD_BUG_ON(offsetof(struct tq_setup, sq_off) != 48);
	BUILD_BUG_ON(offsetof(struct tq_setup, arena_offset) != 112);
	BUILD_BUG_ON(offsetof(struct tq_setup, prio) != 36);
	BUILD_BUG_ON(sizeof(struct tq_enter) != 8);
	BUILD_BUG_ON(sizeof(struct tq_attach) != 16);
	BUILD_BUG_ON(sizeof(struct tq_ev_open) != 32);
	BUILD_BUG_ON(offsetof(struct tq_ev_open, prio) != 28);
	BUILD_BUG_ON(sizeof(struct tq_event) != 320);
	BUILD_BUG_ON(offsetof(struct tq_event, tag) != 16);
	BUILD_BUG_ON(offsetof(struct tq_event, seq) != 32);
	BUILD_BUG_ON(offsetof(struct tq_event, pred) != 40);
	BUILD_BUG_ON(offsetof(struct tq_event, task) != 64);
	BUILD_BUG_ON(sizeof(struct tq_completion) != 48);
	BUILD_BUG_ON(offsetof(struct tq_completion, status) != 16);
	BUILD_BUG_ON(offsetof(struct tq_completion, end_ns) != 40);
	BUILD_BUG_ON(sizeof(union tq_ioctl_arg) > 256);
	BUILD_BUG_ON(TQ_RING_ENTRIES % sizeof(struct tq_cqe));
}

static int __init tq_init(void)
{
	unsigned int i;

	tq_check_layout();
	mutex_init(&tq.lock);
	INIT_LIST_HEAD(&tq.live);
	INIT_LIST_HEAD(&tq.closed);
	INIT_LIST_HEAD(&tq.dirty);
	xa_init_flags(&tq.ctxs, XA_FLAGS_ALLOC1);
	init_waitqueue_head(&tq.wq);
	tq.need_wakeup = true;
	for (i = 0; i < ARRAY_SIZE(tq_stat_attrs); i++)
		tq_attrs[i] = &tq_stat_attrs[i].attr.attr;
	tq_attrs[i++] = &dev_attr_enters.attr;
	tq_attrs[i++] = &dev_attr_enters_absorbed.attr;
	tq_attrs[i] = &dev_attr_scheduler_pid.attr;
	return misc_register(&tq_misc);
}

static void __exit tq_exit(void)
{
	misc_deregister(&tq_misc);
	xa_destroy(&tq.ctxs);
}

module_init(tq_init);
module_exit(tq_exit);
MODULE_DESCRIPTION("tq: GPU task submission from many processes to one scheduler");
MODULE_LICENSE("GPL");
