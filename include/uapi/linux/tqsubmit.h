/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * tqsubmit.h - the user-space ABI of /dev/tqsubmit (tqsubmit.ko).
 *
 * Processes (clients) submit GPU tasks through /dev/tqsubmit to one
 * scheduling daemon, which decides the order in which they run. Every open()
 * of the device is a file of one of two kinds, fixed by its first ioctl:
 *
 * Context (any process): TQ_IOC_SETUP sizes a submission ring (SQ) of
 *	struct tq_desc, a completion ring (CQ) of struct tq_cqe and a
 *	shmem-backed data arena, and optionally attaches an eventfd. The client
 *	mmap()s the three regions at the offsets TQ_IOC_SETUP reports, writes
 *	descriptors, publishes the SQ producer index and calls TQ_IOC_ENTER (the
 *	doorbell) only while the SQ's TQ_RING_NEED_WAKEUP flag is set.
 *
 * Scheduler (opened with CAP_SYS_ADMIN, at most one): TQ_IOC_ATTACH. read() returns
 *	whole struct tq_event records: a context opened, a task (a descriptor
 *	the kernel copied out of a client's SQ, validated and stamped), a
 *	context closed. write() takes whole struct tq_completion records; the
 *	kernel puts each in its client's CQ and signals the client. The
 *	scheduler maps a context's arena by mmap() of its own fd at the offset
 *	given in the context's TQ_EV_OPEN event.
 *
 * Either kind of fd works only in the address space that made it one (a
 * forked child gets EPERM), and no mapping is shared with a child, even
 * after madvise(MADV_DOFORK): that fails on the rings (EINVAL), and a child
 * that inherits an arena gets SIGBUS when it touches it.
 *
 * Every ioctl argument begins with __u32 size (sizeof the caller's struct)
 * and __u32 flags. The kernel accepts a shorter (older) struct, zero-filling
 * what the caller lacks, and accepts a longer one only if the bytes it does
 * not know are zero; otherwise E2BIG. It writes back at most size bytes.
 * Commands are matched on type and number; the size bits of the command are
 * ignored since the size field is authoritative.
 *
 * The ABI grows without breaking old clients: a new field takes space an
 * old client leaves zero (a reserved field, unused flag bits), zero keeps
 * the old behaviour, and a TQ_FEAT_* bit says the server knows it.
 * TQ_ABI_VERSION changes only for a change an old client could not live
 * with (none so far): a client refuses a server of another version.
 *
 * Documentation/userspace-api/tqsubmit.rst describes the lifetimes, the
 * barrier pairings of the rings and the errno contract.
 */
#ifndef _UAPI_LINUX_TQSUBMIT_H
#define _UAPI_LINUX_TQSUBMIT_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define TQ_DEVICE_NAME		"tqsubmit"
#define TQ_ABI_VERSION		1

/* Bits of the features word (struct tq_query, tq_setup, tq_attach). */
#define TQ_FEAT_NEED_WAKEUP	(1ULL << 0)	/* SQ flag TQ_RING_NEED_WAKEUP */
#define TQ_FEAT_PROGRAMS	(1ULL << 1)	/* TQ_OP_PROGRAM, TQ_OP_KERNEL */
#define TQ_FEAT_REQUEUE		(1ULL << 2)	/* tasks survive a scheduler's exit */
#define TQ_FEAT_POLL		(1ULL << 3)	/* context fd polls EPOLLIN on CQ entries */
#define TQ_FEAT_IDEMPOTENT	(1ULL << 4)	/* TQ_DESC_F_IDEMPOTENT, TQ_COMPL_F_STARTED */
#define TQ_FEAT_SOCKET		(1ULL << 5)	/* served by tqsubmitd over a socket, see below */
#define TQ_FEAT_CHAINS		(1ULL << 6)	/* TQ_DESC_F_AFTER, TQ_ATTACH_F_CHAINS */
#define TQ_FEAT_QOS		(1ULL << 7)	/* classes, deadlines: see enum tq_prio */

/* Fixed limits of this ABI version. */
#define TQ_MAX_BUFS		8
#define TQ_MAX_SCALARS		4
#define TQ_MAX_DIMS		3

/* Descriptor opcodes; 0 is invalid so that a zeroed slot is never a task. */
enum tq_op {
	TQ_OP_NOP	= 1,	/* no work; the scheduler completes it at once */
	TQ_OP_TASK	= 2,	/* HtD copies, one kernel, DtH copies */
	TQ_OP_PROGRAM	= 3,	/* register a program; cqe.result = program id */
	TQ_OP_KERNEL	= 4,	/* look up a kernel of a program; cqe.result = kernel id */
};

/* tq_desc.flags, bits 0 to 7 */
#define TQ_DESC_F_LOCAL		(1U << 0)	/* TASK: local[] is given */
#define TQ_DESC_F_BUILTIN	(1U << 1)	/* PROGRAM: bufs[0] names a built-in */
#define TQ_DESC_F_IDEMPOTENT	(1U << 2)	/* TASK: safe to run again (see below) */
#define TQ_DESC_F_AFTER		(1U << 3)	/* TASK: run after a task of mine (@after) */

/*
 * Quality of service (TQ_FEAT_QOS). A context has a priority class
 * (tq_setup.prio), and a TASK may name its own in bits 8 to 10 of its
 * flags (TQ_DESC_PRIO()); 0 names none: the context's class, and for the
 * context the scheduler's default (usched: normal). A higher class goes
 * first; which classes a user may take is the scheduler's policy, and a
 * task above it completes with -EPERM. A class above TQ_PRIO_MAX is
 * refused: SETUP with EINVAL, a descriptor with -EINVAL.
 *
 * A TASK may have a deadline: bits 16 to 31 of its flags (TQ_DESC_DEADLINE())
 * say within how many TQ_DEADLINE_UNIT_NS (100 us, so up to 6.5535 s) after
 * the server took it from the SQ (the cqe's @queued_ns) it should complete;
 * 0: none. A task the scheduler cannot complete in time either completes
 * at once with -ETIMEDOUT, never run, or runs and completes with
 * TQ_CQE_F_LATE: the scheduler's setting decides (usched.conf's deadline).
 * Both fields are a TASK's: on any other opcode the descriptor is refused
 * with -EINVAL. (The descriptor has no free bytes; the flags word's upper
 * bits are its only room.)
 */
enum tq_prio {
	TQ_PRIO_DEFAULT		= 0,	/* none named: see above */
	TQ_PRIO_BACKGROUND	= 1,	/* only what no other class wants */
	TQ_PRIO_NORMAL		= 2,
	TQ_PRIO_HIGH		= 3,
	TQ_PRIO_CRITICAL	= 4,	/* latency-critical: the top class */
};

#define TQ_PRIO_MAX		TQ_PRIO_CRITICAL

#define TQ_DESC_PRIO_SHIFT	8
#define TQ_DESC_PRIO_MASK	(7U << TQ_DESC_PRIO_SHIFT)
#define TQ_DESC_PRIO(p)		(((__u32)(p) << TQ_DESC_PRIO_SHIFT) & TQ_DESC_PRIO_MASK)
#define TQ_DESC_PRIO_OF(f)	(((f) & TQ_DESC_PRIO_MASK) >> TQ_DESC_PRIO_SHIFT)

#define TQ_DEADLINE_UNIT_NS	100000ULL
#define TQ_DEADLINE_MAX		0xffffU	/* in TQ_DEADLINE_UNIT_NS */
#define TQ_DESC_DEADLINE_SHIFT	16
#define TQ_DESC_DEADLINE_MASK	(TQ_DEADLINE_MAX << TQ_DESC_DEADLINE_SHIFT)
#define TQ_DESC_DEADLINE(n)	(((__u32)(n) << TQ_DESC_DEADLINE_SHIFT) & TQ_DESC_DEADLINE_MASK)
#define TQ_DESC_DEADLINE_OF(f)	(((f) & TQ_DESC_DEADLINE_MASK) >> TQ_DESC_DEADLINE_SHIFT)

/* tq_buf.dir: which copies the scheduler makes around the kernel. */
enum tq_dir {
	TQ_DIR_IN	= 1,	/* host to device before the kernel */
	TQ_DIR_OUT	= 2,	/* device to host after the kernel */
	TQ_DIR_INOUT	= 3,	/* both */
	TQ_DIR_SCRATCH	= 4,	/* device memory only; offset must be 0 */
};

/**
 * struct tq_buf - one buffer argument of a task
 * @offset: byte offset of the buffer in the context's arena
 * @len: length in bytes, at least 1; offset + len must lie in the arena
 *	(for TQ_DIR_SCRATCH only len is used: device bytes to allocate)
 * @dir: an enum tq_dir
 * @arg: index of the kernel argument this buffer is bound to
 * @resv: must be zero
 */
struct tq_buf {
	__u64	offset;
	__u32	len;
	__u8	dir;
	__u8	arg;
	__u16	resv;
};

/**
 * struct tq_scalar - one by-value argument of a task
 * @arg: index of the kernel argument
 * @size: argument size in bytes: 1, 2, 4 or 8
 * @resv: must be zero
 * @value: the argument's bytes are the first @size bytes of @value in memory
 *	order (memcpy the variable in); the bytes after them must be zero
 */
struct tq_scalar {
	__u8	arg;
	__u8	size;
	__u8	resv[6];
	__u64	value;
};

/**
 * struct tq_desc - a submission ring entry (256 bytes)
 * @opcode: an enum tq_op
 * @work_dim: TASK: 1 to TQ_MAX_DIMS; others: 0
 * @nr_bufs: number of used entries of @bufs
 * @nr_scalars: number of used entries of @scalars
 * @flags: TQ_DESC_F_*; TASK: also TQ_DESC_PRIO() and TQ_DESC_DEADLINE()
 * @user_data: returned unchanged in the completion
 * @program: TASK, KERNEL: a program id from a TQ_OP_PROGRAM completion
 * @kernel: TASK: a kernel id from a TQ_OP_KERNEL completion
 * @global: TASK: global work size per dimension (>= 1 below @work_dim, else 0)
 * @local: TASK with TQ_DESC_F_LOCAL: work-group size per dimension
 *	(>= 1 below @work_dim, else 0); all zero without the flag
 * @after: TASK with TQ_DESC_F_AFTER: how many descriptors back in this
 *	context's submission order its predecessor was submitted (1: the one
 *	just before), 1 .. the SQ's entries; zero without the flag
 * @bufs: buffer arguments; entries from @nr_bufs on must be zero
 * @scalars: scalar arguments; entries from @nr_scalars on must be zero
 *
 * TASK: the @arg indices of the used @bufs and @scalars together must be
 * exactly 0 .. nr_bufs + nr_scalars - 1. PROGRAM: @bufs[0] (TQ_DIR_IN) holds
 * OpenCL C source, or with TQ_DESC_F_BUILTIN the name of a built-in kernel of
 * kernels/; an optional @bufs[1] (TQ_DIR_IN) holds build options; text ends
 * at its first NUL or after len bytes. A PROGRAM whose build fails completes
 * with -ENOEXEC and the build log written over @bufs[0] (NUL-terminated,
 * truncated to fit; pad the source with NULs to make room), and cqe.result
 * is the log's length. KERNEL: @program and @bufs[0] (TQ_DIR_IN) holding a
 * kernel name. NOP: only @opcode and @user_data. Ids are the scheduler's and
 * are valid only in the context that registered them. Tasks of one context
 * may run in any order, unless chained.
 *
 * Chains (TQ_FEAT_CHAINS): a TASK with TQ_DESC_F_AFTER starts only after its
 * predecessor, the descriptor @after places before it in the order the
 * server took this context's descriptors (every descriptor counts, refused
 * ones too), has completed whole (its DtH copies done). If the predecessor
 * fails (any negative status: refused, cancelled, -EOWNERDEAD, ...) the
 * successor completes with -ECANCELED without running, and so does its own
 * successor, and so on. The predecessor must be a TASK (a descriptor with
 * opcode TQ_OP_TASK: one refused counts as failed), and at most one
 * successor may name it; else the successor is refused with -EINVAL, as it
 * is when @after reaches before the context's first descriptor or past the
 * SQ's entries. Chains survive requeue: a new scheduler gets a predecessor
 * before its successor, or the successor after the predecessor completed.
 * The scheduler sees chains only if it attached with TQ_ATTACH_F_CHAINS
 * (see struct tq_event's @seq and @pred); otherwise the server holds a
 * successor until its predecessor has completed.
 *
 * Requeue: when a scheduler exits with tasks it took and did not complete,
 * the kernel gives each to the next scheduler (TQ_EV_F_REQUEUED) unless the
 * scheduler had marked it started (TQ_COMPL_F_STARTED) and it is a TASK
 * without TQ_DESC_F_IDEMPOTENT: such a task may have run in part (an INOUT
 * buffer half written back), so it is completed with -EOWNERDEAD instead and
 * never run again. TQ_DESC_F_IDEMPOTENT says that running the task again,
 * whole, on the arena as a partial run may have left it, gives the right
 * result (no INOUT buffer, no OUT buffer that is also read); it is a TASK's
 * flag, and on any other opcode the descriptor is refused with -EINVAL. NOP,
 * PROGRAM and KERNEL are always requeued. The -EOWNERDEAD completion has
 * TQ_CQE_F_REQUEUED only if an earlier scheduler had held the task too;
 * its start_ns is when the task was marked started, its end_ns when the
 * kernel completed it.
 */
struct tq_desc {
	__u8	opcode;
	__u8	work_dim;
	__u8	nr_bufs;
	__u8	nr_scalars;
	__u32	flags;
	__u64	user_data;
	__u32	program;
	__u32	kernel;
	__u64	global[TQ_MAX_DIMS];
	__u32	local[TQ_MAX_DIMS];
	__u32	after;
	struct tq_buf bufs[TQ_MAX_BUFS];
	struct tq_scalar scalars[TQ_MAX_SCALARS];
};

/* tq_cqe.flags */
#define TQ_CQE_F_REQUEUED	(1U << 0)	/* delivered to more than one scheduler */
#define TQ_CQE_F_LATE		(1U << 1)	/* completed after its deadline */

/**
 * struct tq_cqe - a completion ring entry (64 bytes)
 * @user_data: the descriptor's user_data
 * @status: 0, or a negative errno: from the kernel for a descriptor it
 *	rejected (see the errno contract), or from the scheduler. A command
 *	that failed fails its task: -ENOMEM device or host memory, -EINVAL a
 *	launch the device refused, -EIO any other error of the device, -ENODEV
 *	the device was lost under it (the scheduler gets a new one, as after a
 *	kernel past its time limit). Schedulers also use: -E2BIG a size over
 *	its limit (work size, work-groups, program source or options);
 *	-EDQUOT a quota (programs, kernels or arena bytes of a context or a
 *	user); -EPERM the program policy refuses OpenCL C source from this
 *	user; -ENOENT a program or kernel id the context did not register;
 *	-ENOPKG no built-in of a TQ_DESC_F_BUILTIN PROGRAM's name; -ESRCH no
 *	kernel of a KERNEL's name in its program; -ETIME the kernel ran, or
 *	the build took, longer than its limit; -EOWNERDEAD the task may have
 *	run in part and is not run again (its scheduler exited, or the device
 *	was reset under it, and it is not TQ_DESC_F_IDEMPOTENT); -ETIMEDOUT
 *	its deadline cannot be met, and it did not run; -EPERM also: its
 *	class is above what the scheduler lets its user take
 * @flags: TQ_CQE_F_*
 * @result: PROGRAM: program id (-ENOEXEC: build log length); KERNEL: kernel
 *	id; otherwise 0
 * @queued_ns: CLOCK_MONOTONIC time the kernel took the descriptor from the SQ
 * @start_ns: CLOCK_MONOTONIC time the task started (0 if it did not run)
 * @end_ns: CLOCK_MONOTONIC time the task ended (0 if it did not run)
 * @resv: zero
 */
struct tq_cqe {
	__u64	user_data;
	__s32	status;
	__u32	flags;
	__u64	result;
	__u64	queued_ns;
	__u64	start_ns;
	__u64	end_ns;
	__u64	resv[2];
};

/* Ring flags word, written by the kernel only. */
#define TQ_RING_NEED_WAKEUP	(1U << 0)	/* SQ: call TQ_IOC_ENTER after publishing */
#define TQ_RING_BROKEN		(1U << 1)	/* SQ and CQ: an index was corrupted; */
						/* the context takes no more work */

/**
 * struct tq_ring_offsets - where a ring lies in the client's address space
 * @mmap_offset: the offset argument to pass to mmap()
 * @mmap_size: the length to pass to mmap()
 * @producer: byte offset in the mapping of the __u32 producer index
 * @consumer: byte offset of the __u32 consumer index
 * @flags: byte offset of the __u32 TQ_RING_* flags word
 * @entries: byte offset of the entry array
 *
 * Indices run freely and wrap at 2^32; an entry lives at index & (entries - 1).
 * SQ: the client writes the producer, the kernel the consumer. CQ: the
 * kernel writes the producer, the client the consumer.
 */
struct tq_ring_offsets {
	__u64	mmap_offset;
	__u64	mmap_size;
	__u32	producer;
	__u32	consumer;
	__u32	flags;
	__u32	entries;
};

/**
 * struct tq_query - TQ_IOC_QUERY: what this module supports (any fd)
 * @size: sizeof(struct tq_query)
 * @flags: must be zero
 * @features: out: TQ_FEAT_*
 * @abi_version: out: TQ_ABI_VERSION
 * @desc_size: out: sizeof(struct tq_desc)
 * @cqe_size: out: sizeof(struct tq_cqe)
 * @event_size: out: sizeof(struct tq_event)
 * @completion_size: out: sizeof(struct tq_completion)
 * @max_ring_entries: out: module parameter ring_entries_max
 * @max_arena_bytes: out: module parameter arena_bytes_max
 * @max_inflight: out: module parameter inflight_max
 * @max_contexts: out: module parameter contexts_per_user
 */
struct tq_query {
	__u32	size;
	__u32	flags;
	__u64	features;
	__u32	abi_version;
	__u32	desc_size;
	__u32	cqe_size;
	__u32	event_size;
	__u32	completion_size;
	__u32	max_ring_entries;
	__u64	max_arena_bytes;
	__u32	max_inflight;
	__u32	max_contexts;
};

/**
 * struct tq_setup - TQ_IOC_SETUP: make this fd a context (once)
 * @size: sizeof(struct tq_setup)
 * @flags: must be zero
 * @sq_entries: in: SQ entries wanted (1 .. max_ring_entries);
 *	out: rounded up to a power of two
 * @cq_entries: in: CQ entries wanted, 0 for twice @sq_entries; out: rounded
 *	up to a power of two, at least the SQ's
 * @arena_bytes: in: arena size (1 .. max_arena_bytes); out: rounded up to
 *	whole pages. Charged to the user's RLIMIT_MEMLOCK (unless CAP_IPC_LOCK)
 * @eventfd: in: an eventfd signalled when completions arrive, or -1
 * @ctx_id: out: the context's id, as the scheduler sees it
 * @max_inflight: out: tasks the context may have taken and not completed;
 *	min(inflight_max, cq entries). Beyond it descriptors wait in the SQ.
 * @prio: in: the context's class, an enum tq_prio (0: the default); a
 *	server without TQ_FEAT_QOS refuses a non-zero one (EINVAL)
 * @resv: must be zero
 * @features: out: TQ_FEAT_*
 * @sq_off: out: the SQ's mapping
 * @cq_off: out: the CQ's mapping
 * @arena_offset: out: mmap() offset of the arena; map @arena_bytes bytes
 */
struct tq_setup {
	__u32	size;
	__u32	flags;
	__u32	sq_entries;
	__u32	cq_entries;
	__u64	arena_bytes;
	__s32	eventfd;
	__u32	ctx_id;
	__u32	max_inflight;
	__u8	prio;
	__u8	resv[3];
	__u64	features;
	struct tq_ring_offsets sq_off;
	struct tq_ring_offsets cq_off;
	__u64	arena_offset;
};

/**
 * struct tq_enter - TQ_IOC_ENTER: the doorbell (context fd)
 * @size: sizeof(struct tq_enter)
 * @flags: must be zero
 *
 * Wakes the scheduler. Needed only when the SQ flags word has
 * TQ_RING_NEED_WAKEUP after the client published its SQ producer or its CQ
 * consumer (the latter matters when the SQ still holds descriptors: the
 * kernel stops taking them while the CQ has no room for their completions).
 * Without a scheduler it does nothing: descriptors wait in the SQ. It wakes
 * the scheduler only when that could take one of the context's descriptors
 * (the flag is set, the SQ holds one, a task slot and a CQ entry are free),
 * and once until the scheduler has looked at the context; any other call
 * returns 0 having done nothing (counted in sysfs enters_absorbed).
 */
struct tq_enter {
	__u32	size;
	__u32	flags;
};

/* tq_attach.flags */
#define TQ_ATTACH_F_CHAINS	(1U << 0)	/* this scheduler orders chained tasks itself */

/**
 * struct tq_attach - TQ_IOC_ATTACH: make this fd the scheduler (once)
 * @size: sizeof(struct tq_attach)
 * @flags: TQ_ATTACH_F_*; unknown bits are EINVAL
 * @features: out: TQ_FEAT_*
 *
 * TQ_ATTACH_F_CHAINS: the scheduler gets a chained task (TQ_DESC_F_AFTER)
 * while its predecessor is still in flight, with @pred naming it, and
 * keeps the chain's promises itself: it starts the successor after the
 * predecessor's completion, and completes it with -ECANCELED without
 * running it if the predecessor fails. Without the flag the server gives
 * the scheduler a successor only once its predecessor has completed with 0.
 *
 * The fd's opener must have had CAP_SYS_ADMIN in the initial user
 * namespace (EPERM): the credentials the fd was opened with decide, not the
 * caller's. EBUSY while another scheduler is attached.
 * The new scheduler first reads a TQ_EV_OPEN for every live context, then
 * their tasks, including those a previous scheduler took and did not
 * complete (marked TQ_EV_F_REQUEUED).
 */
struct tq_attach {
	__u32	size;
	__u32	flags;
	__u64	features;
};

#define TQ_IOC_MAGIC	0xE7
#define TQ_IOC_QUERY	_IOWR(TQ_IOC_MAGIC, 0x00, struct tq_query)
#define TQ_IOC_SETUP	_IOWR(TQ_IOC_MAGIC, 0x01, struct tq_setup)
#define TQ_IOC_ENTER	_IOWR(TQ_IOC_MAGIC, 0x02, struct tq_enter)
#define TQ_IOC_ATTACH	_IOWR(TQ_IOC_MAGIC, 0x03, struct tq_attach)

/* Scheduler events, read() from the scheduler fd. */
enum tq_event_type {
	TQ_EV_OPEN	= 1,	/* a context was set up; see @open */
	TQ_EV_TASK	= 2,	/* a validated descriptor; see @task and @tag */
	TQ_EV_CLOSE	= 3,	/* a context was closed; release it when done */
};

/* tq_event.flags */
#define TQ_EV_F_REQUEUED	(1U << 0)	/* a previous scheduler took this task */

/**
 * struct tq_ev_open - the context part of a TQ_EV_OPEN event
 * @arena_bytes: size of the context's arena
 * @arena_offset: mmap() offset on the scheduler fd that maps the arena
 *	(MAP_SHARED, @arena_bytes bytes); the mapping is the arena's shmem
 *	pages and stays valid after the context is closed
 * @sq_entries: the context's SQ entries
 * @cq_entries: the context's CQ entries
 * @max_inflight: the most tasks of this context the scheduler holds at once
 * @prio: the class the client set up the context with (tq_setup.prio, as
 *	given: 0 for none)
 * @resv: zero
 */
struct tq_ev_open {
	__u64	arena_bytes;
	__u64	arena_offset;
	__u32	sq_entries;
	__u32	cq_entries;
	__u32	max_inflight;
	__u8	prio;
	__u8	resv[3];
};

/**
 * struct tq_event - one record read() from the scheduler fd (320 bytes)
 * @type: an enum tq_event_type
 * @flags: TQ_EV_F_*
 * @ctx_id: the context
 * @pid: the context's process (thread-group id, in the reader's pid namespace)
 * @uid: the context owner's uid (in the reader's user namespace)
 * @tag: TASK: the kernel's name for this delivery, echoed in the completion
 * @submit_ns: TASK: CLOCK_MONOTONIC time the kernel took it from the SQ
 * @seq: TASK: its number in its context's submission order (from 1; every
 *	descriptor taken counts), the same at every delivery
 * @pred: TASK with TQ_DESC_F_AFTER, to a scheduler attached with
 *	TQ_ATTACH_F_CHAINS: the @seq of its predecessor, which this scheduler
 *	was given before it and had not completed when this was delivered (it
 *	may have completed it since); 0 when the predecessor had completed
 *	with 0, and always 0 without TQ_ATTACH_F_CHAINS
 * @resv: zero
 * @task: TASK: the validated descriptor
 * @open: OPEN: the context's sizes and arena
 *
 * read() needs room for at least one record (else EINVAL) and returns whole
 * records; it blocks while there is nothing to return unless the fd is
 * O_NONBLOCK (or the read is RWF_NOWAIT / io_uring's first attempt): EAGAIN.
 * The fd polls EPOLLIN when a read would return records.
 */
struct tq_event {
	__u16	type;
	__u16	flags;
	__u32	ctx_id;
	__u32	pid;
	__u32	uid;
	__u64	tag;
	__u64	submit_ns;
	__u64	seq;
	__u64	pred;
	__u64	resv[2];
	union {
		struct tq_desc task;
		struct tq_ev_open open;
	};
};

/* tq_completion.flags */
#define TQ_COMPL_F_RELEASE	(1U << 0)	/* let go of a closed context */
#define TQ_COMPL_F_STARTED	(1U << 1)	/* mark a task started; it stays outstanding */
#define TQ_COMPL_F_LATE		(1U << 2)	/* it completed after its deadline */

/**
 * struct tq_completion - one record write() to the scheduler fd (48 bytes)
 * @ctx_id: the context
 * @flags: TQ_COMPL_F_*
 * @tag: the tag of the TQ_EV_TASK being completed
 * @status: 0 or a negative errno (-4095 .. -1)
 * @resv: must be zero
 * @result: PROGRAM: program id (-ENOEXEC: build log length); KERNEL: kernel
 *	id; otherwise 0
 * @start_ns: CLOCK_MONOTONIC time the task started
 * @end_ns: CLOCK_MONOTONIC time the task ended
 *
 * A task completes once: a tag not outstanding is refused.
 * TQ_COMPL_F_LATE, on a completion of a TASK that has a deadline (else
 * EINVAL), gives the client's cqe TQ_CQE_F_LATE. With
 * TQ_COMPL_F_STARTED (@ctx_id and @tag set, every other field zero) the
 * record completes nothing: it tells the kernel that the task is about to
 * reach the device, which decides its fate if this scheduler exits before
 * completing it (see "Requeue" above struct tq_desc); a scheduler writes it
 * before it enqueues the task's first command. Marking a task again changes
 * nothing; a tag not outstanding (completed, say) is ENOENT. With
 * TQ_COMPL_F_RELEASE (only after the context's TQ_EV_CLOSE; every other field
 * zero) the scheduler declares it no longer uses the context's arena and the
 * kernel frees the context. write() takes whole records (else EINVAL); it
 * stops at the first bad record and returns the bytes consumed before it,
 * or EINVAL (ENOENT for an unknown context or tag) if that is the first.
 */
struct tq_completion {
	__u32	ctx_id;
	__u32	flags;
	__u64	tag;
	__s32	status;
	__u32	resv;
	__u64	result;
	__u64	start_ns;
	__u64	end_ns;
};

/*
 * The socket transport: tqsubmitd, a user-space server of this ABI for hosts
 * that cannot load the module. It keeps the same rings, arena, descriptors,
 * validation, events and completions; only the way to reach them differs.
 * tqsubmitd listens on two SOCK_SEQPACKET Unix sockets and answers every
 * command of one message with one reply message; each message is a struct
 * tq_sock_msg followed by the command's ioctl struct (its size field says
 * how long it is, with the same rules for shorter and longer structs; a
 * message whose length is not sizeof(struct tq_sock_msg) + size is EINVAL,
 * and so is one carrying file descriptors it should not). The reply holds
 * at most size bytes of the struct.
 *
 * Client socket (TQ_SOCKET_PATH; who may connect is the socket's file mode
 * and group): one connection is one context, closed when the connection is.
 *	TQ_IOC_QUERY	reply: struct tq_query, with TQ_FEAT_SOCKET
 *	TQ_IOC_SETUP	the request carries the eventfd (SCM_RIGHTS) when
 *			@eventfd >= 0, whose value is then ignored; the reply
 *			carries two file descriptors (SCM_RIGHTS): the rings
 *			(map the SQ at sq_off.mmap_offset and the CQ at
 *			cq_off.mmap_offset of the first) and the arena (the
 *			second, at arena_offset, which is 0). Both are memfds
 *			sealed against shrinking and growing.
 *	TQ_IOC_ENTER	the doorbell; no reply, unless the message is malformed
 *			(EINVAL, E2BIG; also ENTER before SETUP): a client
 *			that sends well-formed ENTERs never reads a reply to
 *			one. A broken context (EBADFD) shows in its flags.
 * The peer's credentials (SO_PEERCRED at connect) are the context's pid and
 * uid. A command the server does not know is answered -ENOTTY; ATTACH here,
 * or SETUP and ENTER on the scheduler socket, -EINVAL. The features word
 * has TQ_FEAT_SOCKET and not TQ_FEAT_POLL: the connection does not poll
 * readable on completions; wait on the eventfd.
 *
 * Scheduler socket (TQ_SCHED_SOCKET_PATH): TQ_IOC_QUERY, then TQ_IOC_ATTACH
 * (EPERM unless the peer is root or tqsubmitd's own user; EBUSY while another
 * scheduler is attached). After ATTACH's reply the connection is the
 * scheduler fd: each message from tqsubmitd is a whole number of struct
 * tq_event records (at most TQ_SOCK_EVENTS_MAX), and each TQ_EV_OPEN
 * record's arena comes with the message as a file descriptor (SCM_RIGHTS:
 * one per OPEN record, in record order; map it at open.arena_offset, which
 * is 0); each message to tqsubmitd is a whole number of struct
 * tq_completion records (at most TQ_SOCK_COMPLETIONS_MAX; a longer message
 * ends the attachment, as the scheduler's exit does). No errno comes back:
 * a bad record, or a message that is not whole records, is dropped and
 * counted. Records are taken in order, and those sent before the scheduler
 * closes the connection are taken before its exit is seen, so a
 * TQ_COMPL_F_STARTED mark holds once sent.
 */
#define TQ_SOCKET_PATH		"/run/tq/tqsubmit.sock"
#define TQ_SCHED_SOCKET_PATH	"/run/tq/sched.sock"
#define TQ_SOCK_EVENTS_MAX	64	/* records per message from tqsubmitd */
#define TQ_SOCK_COMPLETIONS_MAX	4096	/* records per message to tqsubmitd */

/**
 * struct tq_sock_msg - the head of a command or reply on a tqsubmitd socket
 * @cmd: the ioctl's command (TQ_IOC_*); a reply repeats it
 * @status: request: zero; reply: 0 or a negative errno, as the ioctl's
 */
struct tq_sock_msg {
	__u32	cmd;
	__s32	status;
};

#endif /* _UAPI_LINUX_TQSUBMIT_H */
