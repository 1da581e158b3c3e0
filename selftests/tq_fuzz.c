// SPDX-License-Identifier: GPL-2.0
/*
 * tq_fuzz - random, seeded sequences of everything a client can do to
 * /dev/tqsubmit, from several processes at once, against the real scheduler
 * (usched) in the test VM; or natively the same to tqsubmitd's client
 * socket (TQ_TRANSPORT=socket, or no module: tq_fuzz_sock.c is that transport).
 *
 *	tq_fuzz [--seed S] [--seconds N] [--procs P] [--proc I] [--steps N] [--verbose]
 *
 * Each worker process draws its operations from its own generator, seeded
 * from the master seed and its index, so `tq_fuzz --seed S` replays a run and
 * `--proc I` replays worker I alone (--steps stops it after N operations,
 * --verbose prints each one). Replays choose the same operations; what the
 * kernel and the scheduler answer, and when, may still differ.
 *
 * Operations: open, ioctl (QUERY, SETUP with random and edge sizes, ENTER
 * one by one and in storms, ATTACH attempts, unknown commands, short, long
 * and non-zero-tailed structs, bad pointers), read/write on a client fd,
 * mmap (right and wrong offsets, sizes, protections, MAP_PRIVATE, mprotect
 * and mremap after), ring writes (valid descriptors of every opcode, real
 * built-in tasks, malformed descriptors, garbage in reserved fields, slots
 * rewritten after publishing, hostile producer and consumer indices),
 * munmap (whole and partial), madvise (MADV_DONTNEED, MADV_DOFORK,
 * MADV_REMOVE, ...), close, fork (the child probes the inherited fds and
 * mappings, then fuzzes contexts of its own) and SIGKILL of its children.
 *
 * Invariants, each failure printed with the seeds and the step:
 *  - every descriptor the kernel took (counted from the SQ consumer index it
 *    published) gets exactly one completion, with its user_data, while its
 *    context stays open and unbroken: checked when each context's life ends
 *    (contexts closed abruptly, or whose indices were corrupted on purpose,
 *    are exempt, but their fate must not hang anything else);
 *  - a malformed descriptor completes with an error, a NOP with 0, every
 *    status within -4095..0, reserved completion fields zero;
 *  - a context breaks only when its indices were corrupted;
 *  - every ioctl, mmap and syscall fails only with an errno of the contract
 *    (Documentation/userspace-api/tqsubmit.rst), and the mappings the
 *    contract forbids (PROT_EXEC, MAP_PRIVATE, wrong size) are refused;
 *  - ATTACH never succeeds while usched is attached;
 * and, once every worker is gone: the scheduler is still the one attached,
 * nothing is in flight, every context was released, the module's counters
 * balance (submitted = completed + failed + rejected + dropped), and the
 * kernel log shows no BUG, WARNING or Oops; on the socket, instead of the
 * kernel log, tqsubmitd still runs and holds as many descriptors as before
 * ($TQ_SERVER_PID's /proc/PID/fd). The script around it
 * (selftests/tq_fuzz.sh) starts usched and checks that it still serves an
 * honest client afterwards.
 *
 * Tolerated either way while the module changes: TQ_DESC_F_IDEMPOTENT on a
 * TASK (EINVAL from an older module), a rate-limited ENTER (EAGAIN/EBUSY),
 * ATTACH judged on the opener's credentials (EBUSY) or at ioctl time
 * (EPERM), MADV_DOFORK refused or honoured (a child that sees a mapping is
 * counted in the summary, not failed: selftests/kmod/tqsubmit_abi owns that).
 */
#include <getopt.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <sys/eventfd.h>
#include <sys/klog.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <tq_transport.h>

#include "selftests/tap.h"
#include "selftests/kmod/tq_util.h"
#include "selftests/tq_fuzz.h"

#define MAX_PROCS	32
#define CHILD_STEPS	60
#define MAX_INDEX	(1u << 20)	/* descriptors tracked per context */
#define DRAIN_MS	240000	/* a context's last tasks, builds included, under TCG */
#define STALL_MS	60000	/* then which of them wait is reported */
#define TEXT_OFF	0	/* arena: names of built-ins and kernels */
#define TASK_OFF	4096	/* arena: buffers of real tasks */
#define MAGIC		0xf5ull
#define NOBODY		65534

/* A seed of its own for worker (or child) idx of a run seeded with seed. */
static uint64_t derive_seed(uint64_t seed, uint64_t idx)
{
	uint64_t x = seed ^ (idx + 1) * 0xd1b54a32d192ed03ull;

	return tq_rand_next(&x);
}

/* ---- what a run shares: per-process results in shared memory ---- */

static struct {
	uint64_t seed;
	unsigned int seconds, procs;
	int only;		/* --proc: -1 for all */
	uint64_t steps;		/* --steps: 0 for no limit */
	bool verbose;
} opt = { .seconds = 60, .procs = 4, .only = -1 };

static struct query {
	struct tq_query q;
} mod;

/* ---- one process's state ---- */

enum exp { EXP_ANY, EXP_OK, EXP_FAIL };

static struct result *results;	/* MAX_PROCS workers, then their children's */

#define say(p, ...) do { if (opt.verbose) { fprintf(stderr, "[%u%s:%" PRIu64 "] ", (p)->idx, \
	(p)->child ? "c" : "", (p)->step); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } \
	} while (0)

static int sys_ret(long ret)
{
	return ret < 0 ? errno : 0;
}

/*
 * ---- the transport: the module's device, or tqsubmitd's client socket ----
 * (tq_fuzz_sock.c, when TQ_TRANSPORT=socket or there is no module)
 */

/* A client fd: the device opened, or a connection to tqsubmitd; -errno. */
static int t_open(bool nonblock)
{
	int fd;

	if (!sock) {
		fd = open(TQ_DEV, O_RDWR | O_CLOEXEC | (nonblock ? O_NONBLOCK : 0));
		return fd < 0 ? -errno : fd;
	}
	fd = tqt_connect(tqt_client_path());
	if (fd >= 0 && nonblock)
		fcntl(fd, F_SETFL, O_NONBLOCK);
	return fd;
}

/* An fd to ATTACH on: the device, or a connection to the scheduler socket; -errno. */
static int t_open_sched(void)
{
	int fd;

	if (sock)
		return tqt_connect(tqt_sched_path());
	fd = open(TQ_DEV, O_RDWR | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* A server counter: the module's sysfs file, or tqsubmitd's; -1 if none. */
static long long t_stat(const char *name)
{
	return sock ? tqt_stat(tqt_client_path(), name) : raw_stat(name);
}

/*
 * One command on a client fd: the ioctl, or on the socket its message and
 * reply. arg holds buflen bytes and starts with its size field. With bad
 * the call is malformed the transport's way (a bad pointer; a message of
 * the wrong length, head status or descriptors). fds go with the message
 * (the socket's SETUP: its eventfd), the reply's come into rfds (*nrfds at
 * most). Returns 0 or the errno.
 */
static int t_call(struct proc *p, int fd, unsigned long cmd, void *arg, size_t buflen, bool bad,
		  const int *fds, unsigned int nfds, int *rfds, unsigned int *nrfds)
{
	void *a = arg;

	if (sock)
		return sock_call(p, fd, cmd, arg, buflen, bad, fds, nfds, rfds, nrfds);
	if (bad)
		a = chance(&p->r, 50) ? NULL : (void *)(uintptr_t)(4096 * (1 + below(&p->r, 15)));
	return sys_ret(ioctl(fd, cmd, a));
}

/* ---- guarded reads: a mapping zapped by MADV_DONTNEED may SIGBUS ---- */

static sigjmp_buf probe_env;
static volatile sig_atomic_t probing;
static struct proc *self;	/* for the fault handler's message */
static const char *current_op;

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (probing)
		siglongjmp(probe_env, 1);
	/* Dying anyway: say where, for the replay. */
	fail(self, "signal %d at address %p in op %s", sig, si->si_addr, current_op);
}

/* 0 if the byte at addr reads, -1 if touching it faults. */
static int probe_read(const void *addr)
{
	int ret = 0;

	probing = 1;
	if (sigsetjmp(probe_env, 1))
		ret = -1;
	else
		(void)*(volatile const char *)addr;
	probing = 0;
	return ret;
}

/* ---- tags: user_data names worker, slot, generation and SQ index ---- */

static uint64_t tag(struct proc *p, unsigned int slot, const struct ctx *c, uint32_t i)
{
	return MAGIC << 56 | (uint64_t)(p->idx & 0x3f) << 50 | (uint64_t)p->child << 49 |
	       (uint64_t)slot << 44 | (uint64_t)(c->gen & 0xfff) << 32 | i;
}

/* ---- mappings ---- */

static int map_region(struct ctx *c, struct map *m, uint64_t off, uint64_t len)
{
	void *a = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
		       region_fd(c, m == &c->arena), off);

	if (a == MAP_FAILED)
		return -errno;
	m->p = a;
	m->len = len;
	return 0;
}

static struct tq_desc *sqe(struct ctx *c, uint32_t i)
{
	return (struct tq_desc *)((char *)c->sq.p + c->s.sq_off.entries) +
	       (i & (c->s.sq_entries - 1));
}

static struct tq_cqe *cqe_at(struct ctx *c, uint32_t i)
{
	return (struct tq_cqe *)((char *)c->cq.p + c->s.cq_off.entries) +
	       (i & (c->s.cq_entries - 1));
}

/* (Re)map whichever of the three regions is missing; false if one cannot be. */
static bool ctx_mapped(struct ctx *c)
{
	if (!c->is_ctx)
		return false;
	if (!c->sq.p && map_region(c, &c->sq, c->s.sq_off.mmap_offset, c->s.sq_off.mmap_size))
		return false;
	if (!c->cq.p && map_region(c, &c->cq, c->s.cq_off.mmap_offset, c->s.cq_off.mmap_size))
		return false;
	if (!c->arena.p && map_region(c, &c->arena, c->s.arena_offset, c->s.arena_bytes))
		return false;
	return true;
}

/* ---- contexts ---- */

/* A free slot: no fd, no memory; its generation is the caller's. */
static void ctx_reset(struct ctx *c)
{
	memset(c, 0, sizeof(*c));
	c->fd = c->efd = c->rings_fd = c->arena_fd = -1;
}

/* Close what the slot holds, without unmapping (a child's mappings are its parent's). */
static void ctx_close_fds(struct ctx *c)
{
	int fds[4] = { c->fd, c->efd, c->rings_fd, c->arena_fd };

	for (int k = 0; k < 4; k++)
		if (fds[k] >= 0)
			close(fds[k]);
	free(c->count);
	free(c->expect);
}

static void ctx_forget(struct ctx *c)
{
	unsigned int gen = c->gen + 1;

	unmap(&c->sq);
	unmap(&c->cq);
	unmap(&c->arena);
	unmap(&c->extra);
	ctx_close_fds(c);
	ctx_reset(c);
	c->gen = gen;
}

static bool track(struct ctx *c, uint32_t i)
{
	if (i >= MAX_INDEX)
		return false;
	if (i >= c->cap) {
		uint32_t cap = c->cap ? c->cap * 2 : 256;
		uint8_t *n1, *n2;

		while (cap <= i)
			cap *= 2;
		n1 = realloc(c->count, cap);
		n2 = n1 ? realloc(c->expect, cap) : NULL;
		if (!n1 || !n2) {
			if (n1)
				c->count = n1;
			return false;
		}
		memset(n1 + c->cap, 0, cap - c->cap);
		memset(n2 + c->cap, 0, cap - c->cap);
		c->count = n1;
		c->expect = n2;
		c->cap = cap;
	}
	return true;
}

/* Read the kernel's SQ consumer; its jumps are bounded by what we wrote. */
static void see_consumer(struct proc *p, struct ctx *c)
{
	uint32_t cons = raw_load_acquire(sq_word(c, c->s.sq_off.consumer));	/* D, matches C */

	if (c->exempt)
		return;
	if (cons - c->taken > c->tail - c->taken)
		fail(p, "ctx %u: SQ consumer %u outside [%u, %u]", c->s.ctx_id, cons, c->taken,
		     c->tail);
	c->taken = cons;
}

static void check_cqe(struct proc *p, unsigned int slot, struct ctx *c, const struct tq_cqe *e)
{
	uint32_t i = (uint32_t)e->user_data;

	if (c->exempt)
		return;
	if (e->user_data != tag(p, slot, c, i))
		fail(p, "ctx %u: completion with user_data 0x%" PRIx64 " not of this context",
		     c->s.ctx_id, (uint64_t)e->user_data);
	if (i >= c->tail || i >= c->cap)
		fail(p, "ctx %u: completion for SQ index %u, only %u written", c->s.ctx_id, i,
		     c->tail);
	if (c->count[i]++)
		fail(p, "ctx %u: SQ index %u completed twice", c->s.ctx_id, i);
	if (e->status > 0 || e->status < -4095)
		fail(p, "ctx %u: index %u: status %d out of range", c->s.ctx_id, i, e->status);
	if (e->flags & ~(TQ_CQE_F_REQUEUED | TQ_CQE_F_LATE) || e->resv[0] || e->resv[1])
		fail(p, "ctx %u: index %u: flags 0x%x or reserved fields set", c->s.ctx_id, i,
		     e->flags);
	/*
	 * usched refuses every task, NOPs too, of a context it does not serve:
	 * one whose arena it cannot map (-ENOMEM) or that is over an arena quota.
	 */
	if (c->expect[i] == EXP_OK && (e->status == -ENOMEM || e->status == -EDQUOT))
		p->res->nop_refused++;
	else if (c->expect[i] == EXP_OK && e->status)
		fail(p, "ctx %u: index %u: a valid NOP completed with %d", c->s.ctx_id, i,
		     e->status);
	if (c->expect[i] == EXP_FAIL && !e->status)
		fail(p, "ctx %u: index %u: a malformed descriptor completed with 0", c->s.ctx_id,
		     i);
	if (c->prog_asked && i == c->prog_idx && !e->status)
		c->prog = e->result;
	if (c->kern_asked && i == c->kern_idx && !e->status)
		c->kern = e->result;
}

/* J: ring when the scheduler sleeps, or always; note what the kernel says. */
static void enter(struct proc *p, struct ctx *c, bool always)
{
	struct tq_enter e = { .size = sizeof(e) };
	int err;

	__atomic_thread_fence(__ATOMIC_SEQ_CST);	/* J, matches I */
	if (!always && !(__atomic_load_n(sq_word(c, c->s.sq_off.flags), __ATOMIC_RELAXED) &
			 TQ_RING_NEED_WAKEUP))
		return;
	if (sock) {
		sock_ring(p, c->fd, &e, sizeof(e));
		return;
	}
	err = sys_ret(ioctl(c->fd, TQ_IOC_ENTER, &e));
	if (err == EBADFD)
		c->broken = true;
	else if (!errno_in(err, ERRS(EAGAIN, EBUSY)) && err)
		fail(p, "ctx %u: ENTER: %s", c->s.ctx_id, strerror(err));
}

/* Take up to max completions; advance the consumer over them. */
static unsigned int reap(struct proc *p, unsigned int slot, struct ctx *c, unsigned int max)
{
	uint32_t prod = raw_load_acquire(cq_word(c, c->s.cq_off.producer));	/* F, matches E */
	uint32_t n = prod - c->cq_head, i;

	if (c->exempt) {
		c->cq_head = prod;
		raw_store_release(cq_word(c, c->s.cq_off.consumer), prod);
		return 0;
	}
	if (n > c->s.cq_entries)
		fail(p, "ctx %u: CQ producer %u is %u ahead of our consumer", c->s.ctx_id, prod, n);
	if (n > max)
		n = max;
	for (i = 0; i < n; i++) {
		struct tq_cqe e = *cqe_at(c, c->cq_head + i);

		check_cqe(p, slot, c, &e);
	}
	c->cq_head += n;
	raw_store_release(cq_word(c, c->s.cq_off.consumer), c->cq_head);	/* G, matches H */
	if (n && c->published != c->taken)
		enter(p, c, false);
	return n;
}

/*
 * Wait for completions up to timeout_ms; whether the context broke. The
 * module's fd polls readable, and EPOLLERR once broken; the socket's
 * connection does neither: wait on the eventfd (else a little), and read
 * TQ_RING_BROKEN from both flags words, which tqsubmitd sets together.
 */
static bool poll_broken(struct ctx *c, int timeout_ms)
{
	struct pollfd pf = { .fd = c->fd, .events = POLLIN };
	eventfd_t v;

	if (!sock) {
		if (poll(&pf, 1, timeout_ms) > 0 && pf.revents & POLLERR)
			c->broken = true;
		return c->broken;
	}
	pf.fd = c->efd;
	if (c->efd >= 0 && poll(&pf, 1, timeout_ms) > 0)
		eventfd_read(c->efd, &v);
	else if (c->efd < 0 && timeout_ms)
		usleep(1000 * (timeout_ms < 2 ? timeout_ms : 2));
	if (c->sq.p && c->cq.p &&
	    __atomic_load_n(sq_word(c, c->s.sq_off.flags), __ATOMIC_RELAXED) & TQ_RING_BROKEN &&
	    __atomic_load_n(cq_word(c, c->s.cq_off.flags), __ATOMIC_RELAXED) & TQ_RING_BROKEN)
		c->broken = true;
	return c->broken;
}

/*
 * A context's last tasks have waited STALL_MS: say which ones (the entries
 * are still in the SQ, unless a race rewrote them) and what the flags
 * words say, so that a failure after DRAIN_MS tells where they stopped.
 */
static void stall_report(struct proc *p, struct ctx *c)
{
	unsigned int shown = 0;

	fprintf(stderr, "worker %u: ctx %u: waiting %d s: taken %u of %u, flags sq 0x%x cq 0x%x%s\n",
		p->idx, c->s.ctx_id, STALL_MS / 1000, c->taken, c->tail,
		__atomic_load_n(sq_word(c, c->s.sq_off.flags), __ATOMIC_RELAXED),
		__atomic_load_n(cq_word(c, c->s.cq_off.flags), __ATOMIC_RELAXED),
		c->hostile_index ? ", an index was corrupted" : "");
	for (uint32_t i = 0; i < c->tail && shown < 16; i++) {
		const struct tq_desc *d = sqe(c, i);

		if (i < c->taken && c->count[i])
			continue;
		shown++;
		fprintf(stderr, "worker %u: ctx %u: entry %u %s: opcode %u flags 0x%x "
			"program %u kernel %u dim %u global %llu,%llu,%llu bufs %u\n", p->idx,
			c->s.ctx_id, i, i < c->taken ? "taken, no completion" : "not taken",
			d->opcode, d->flags, d->program, d->kernel, d->work_dim,
			(unsigned long long)d->global[0], (unsigned long long)d->global[1],
			(unsigned long long)d->global[2], d->nr_bufs);
	}
}

/*
 * The end of a context's life: everything written is published, taken and
 * completed exactly once. Exempt and broken contexts only have to close.
 */
static void ctx_end(struct proc *p, unsigned int slot, struct ctx *c)
{
	uint64_t end = tq_now_ns() + DRAIN_MS * 1000000ull;
	bool done = false, stalled = false;

	if (c->is_ctx && !c->exempt && ctx_mapped(c)) {
		raw_store_release(sq_word(c, c->s.sq_off.producer), c->tail);	/* A, matches B */
		c->published = c->tail;
		while (!done && tq_now_ns() < end) {
			if (!stalled && tq_now_ns() > end - (DRAIN_MS - STALL_MS) * 1000000ull) {
				stalled = true;
				stall_report(p, c);
			}
			enter(p, c, true);
			if (poll_broken(c, 100))
				break;
			reap(p, slot, c, UINT32_MAX);
			see_consumer(p, c);
			done = c->taken == c->tail;
			for (uint32_t i = 0; done && i < c->taken; i++)
				done = c->count[i] == 1;
		}
		if (!c->broken && !done) {
			uint32_t missing = 0;

			for (uint32_t i = 0; i < c->taken; i++)
				missing += !c->count[i];
			fail(p, "ctx %u: after %d s, %u of %u taken tasks have no completion, "
			     "%u of %u written not taken", c->s.ctx_id, DRAIN_MS / 1000, missing,
			     c->taken, c->tail - c->taken, c->tail);
		}
		if (c->broken && !c->hostile_index)
			fail(p, "ctx %u: broke without a corrupted index", c->s.ctx_id);
		if (done)
			p->res->tasks += c->taken;
		else
			p->res->exempt++;
	} else if (c->is_ctx) {
		p->res->exempt++;
	}
	ctx_forget(c);
}

/* ---- descriptors ---- */

static void fill_valid(struct proc *p, struct ctx *c, struct tq_desc *d, uint8_t *exp)
{
	uint32_t n = c->s.arena_bytes > TEXT_OFF + 64 ? below(&p->r, 8) : 0;
	char *text = (char *)c->arena.p + TEXT_OFF;

	memset(d, 0, sizeof(*d));
	*exp = EXP_ANY;
	switch (n) {
	case 0:
	case 1:
	case 2:
		d->opcode = TQ_OP_NOP;
		*exp = EXP_OK;
		return;
	case 3:
		/* The VA built-in and its kernel: what real tasks need. */
		if (!c->prog_asked || chance(&p->r, 10)) {
			strcpy(text, "VA");
			d->opcode = TQ_OP_PROGRAM;
			d->flags = TQ_DESC_F_BUILTIN;
			d->nr_bufs = 1;
			d->bufs[0] = (struct tq_buf){ .offset = TEXT_OFF, .len = 3, .dir = TQ_DIR_IN };
			c->prog_asked = true;
			c->prog_idx = c->tail;
			return;
		}
		d->opcode = TQ_OP_KERNEL;
		d->program = chance(&p->r, 80) ? c->prog : below(&p->r, 5);
		strcpy(text + 16, p->va->kernel);
		d->nr_bufs = 1;
		d->bufs[0] = (struct tq_buf){ .offset = TEXT_OFF + 16, .len = 32, .dir = TQ_DIR_IN };
		if (d->program == c->prog && c->prog && !c->kern_asked) {
			c->kern_asked = true;
			c->kern_idx = c->tail;
		}
		return;
	case 4:
		if (chance(&p->r, 1)) {
			/* OpenCL C source, good or not: the build path (slow: rare). */
			static const char *const src[] = {
				"__kernel void k(__global int *a) { a[get_global_id(0)] = 1; }",
				"__kernel void k(__global int *a) { a[0] = ; }",
				"#include \"/etc/passwd\"\n",
				"",
			};
			const char *s = src[below(&p->r, 4)];

			snprintf(text + 64, 192, "%s", s);
			d->opcode = TQ_OP_PROGRAM;
			d->nr_bufs = 1;
			d->bufs[0] = (struct tq_buf){ .offset = TEXT_OFF + 64, .len = 192,
						      .dir = TQ_DIR_IN };
			return;
		}
		/* otherwise a task naming ids that may not exist */
		__attribute__((fallthrough));
	case 5:
		d->opcode = TQ_OP_TASK;
		d->work_dim = 1 + below(&p->r, 3);
		d->program = below(&p->r, 4);
		d->kernel = below(&p->r, 4);
		for (int i = 0; i < d->work_dim; i++)
			d->global[i] = 1 + below(&p->r, 64);
		if (chance(&p->r, 20))
			d->flags |= TQ_DESC_F_IDEMPOTENT;
		return;
	default:
		break;
	}
	/*
	 * A real VA task once its kernel is known, its buffers past TASK_OFF;
	 * now and then only: under emulation each takes about a second.
	 */
	if (!c->kern || c->s.arena_bytes < TASK_OFF + 3 * p->va_l.buf[0].bytes ||
	    chance(&p->r, 75)) {
		d->opcode = TQ_OP_NOP;
		*exp = EXP_OK;
		return;
	}
	d->opcode = TQ_OP_TASK;
	d->program = c->prog;
	d->kernel = c->kern;
	d->work_dim = 1;
	d->global[0] = p->va_l.global[0];
	if (chance(&p->r, 50)) {
		d->flags |= TQ_DESC_F_LOCAL;
		d->local[0] = p->va_l.local[0];
	}
	if (chance(&p->r, 30))
		d->flags |= TQ_DESC_F_IDEMPOTENT;
	d->nr_bufs = p->va_l.nbufs;
	for (uint32_t i = 0; i < p->va_l.nbufs; i++) {
		uint32_t len = p->va_l.buf[i].bytes;

		d->bufs[i] = (struct tq_buf){
			.offset = TASK_OFF + i * len,
			.len = len,
			.dir = p->va_l.buf[i].dir,
			.arg = i,
		};
	}
	if (chance(&p->r, 10)) {
		/*
		 * Hostile but valid for the module: a shorter buffer, another
		 * direction. The work size stays: each new one costs PoCL a
		 * compile, and huge ones are the hostile suite's.
		 */
		struct tq_buf *b = &d->bufs[below(&p->r, d->nr_bufs)];

		b->len = 1 + below(&p->r, b->len);
		if (chance(&p->r, 50))
			b->dir = 1 + below(&p->r, 3);
	}
}

/* Break one rule of the validation; the kernel must reject it. */
static void make_malformed(struct proc *p, struct ctx *c, struct tq_desc *d)
{
	bool prog_asked = c->prog_asked, kern_asked = c->kern_asked;
	uint32_t prog_idx = c->prog_idx, kern_idx = c->kern_idx;
	unsigned int rule = below(&p->r, 16);
	uint8_t exp;

	/* Rules 0-6 spoil a valid descriptor; the others build one from zero. */
	fill_valid(p, c, d, &exp);
	c->prog_asked = prog_asked;
	c->kern_asked = kern_asked;
	c->prog_idx = prog_idx;
	c->kern_idx = kern_idx;
	if (rule >= 7)
		memset(d, 0, sizeof(*d));
	switch (rule) {
	case 0:
		d->opcode = chance(&p->r, 30) ? 0 : 5 + below(&p->r, 251);
		break;
	case 1: {
		/* AFTER without @after, or no opcode's flag (8-10, 16-31: a TASK's QoS) */
		static const uint8_t bit[] = { 3, 4, 5, 6, 7, 11, 12, 13, 14, 15 };

		d->flags |= 1u << bit[below(&p->r, sizeof(bit))];
		break;
	}
	case 2:
		d->after = 1 + below(&p->r, 0xffff);	/* without TQ_DESC_F_AFTER */
		break;
	case 3:
		d->nr_bufs = TQ_MAX_BUFS + 1 + below(&p->r, 8);
		break;
	case 4:
		d->nr_scalars = TQ_MAX_SCALARS + 1 + below(&p->r, 8);
		break;
	case 5:	/* an unused buffer entry not zero */
		d->bufs[TQ_MAX_BUFS - 1].len = 1;
		break;
	case 6:	/* an unused scalar entry not zero */
		d->scalars[TQ_MAX_SCALARS - 1].value = 1;
		break;
	case 7:	/* a buffer past the arena */
		d->opcode = TQ_OP_TASK;
		d->work_dim = 1;
		d->global[0] = 1;
		d->nr_bufs = 1;
		d->bufs[0] = (struct tq_buf){ .dir = TQ_DIR_IN };
		d->bufs[0].offset = chance(&p->r, 50) ? c->s.arena_bytes : ~0ull - below(&p->r, 64);
		d->bufs[0].len = 1 + below(&p->r, 4096);
		break;
	case 8:	/* zero length, bad direction, reserved bits */
		d->opcode = TQ_OP_TASK;
		d->work_dim = 1;
		d->global[0] = 1;
		d->nr_bufs = 1;
		d->bufs[0] = (struct tq_buf){ .len = 8, .dir = TQ_DIR_IN };
		switch (below(&p->r, 4)) {
		case 0: d->bufs[0].len = 0; break;
		case 1: d->bufs[0].dir = chance(&p->r, 50) ? 0 : 5 + below(&p->r, 250); break;
		case 2: d->bufs[0].resv = 1; break;
		default: d->bufs[0].dir = TQ_DIR_SCRATCH; d->bufs[0].offset = 512; break;
		}
		break;
	case 9:	/* work dimensions */
		d->opcode = TQ_OP_TASK;
		switch (below(&p->r, 4)) {
		case 0: d->work_dim = chance(&p->r, 50) ? 0 : 4 + below(&p->r, 250); break;
		case 1: d->work_dim = 1; d->global[0] = 0; break;
		case 2: d->work_dim = 1; d->global[0] = 1; d->global[2] = 1; break;
		default: d->work_dim = 1; d->global[0] = 1; d->local[0] = 1; break;
		}
		break;
	case 10:	/* argument indices: a duplicate or a gap */
		d->opcode = TQ_OP_TASK;
		d->work_dim = 1;
		d->global[0] = 1;
		d->nr_bufs = 2;
		d->bufs[0] = (struct tq_buf){ .len = 8, .dir = TQ_DIR_IN };
		d->bufs[1] = (struct tq_buf){ .offset = 8, .len = 8, .dir = TQ_DIR_OUT,
					      .arg = chance(&p->r, 50) ? 0 : 2 + below(&p->r, 200) };
		break;
	case 11:	/* scalars: a bad size, bytes past the size */
		d->opcode = TQ_OP_TASK;
		d->work_dim = 1;
		d->global[0] = 1;
		d->nr_scalars = 1;
		d->scalars[0].size = chance(&p->r, 50) ? 3 : 4;
		d->scalars[0].value = chance(&p->r, 50) ? 1ull << 40 : 1;
		if (d->scalars[0].size == 4 && !(d->scalars[0].value >> 32))
			d->scalars[0].resv[1] = 1;
		break;
	case 12:	/* PROGRAM with three buffers, or none */
		d->opcode = TQ_OP_PROGRAM;
		d->nr_bufs = chance(&p->r, 50) ? 0 : 3;
		for (int i = 0; i < d->nr_bufs; i++)
			d->bufs[i] = (struct tq_buf){ .len = 1, .dir = TQ_DIR_IN };
		break;
	case 13:	/* a NOP with more than user_data */
		d->opcode = TQ_OP_NOP;
		d->global[0] = 1;
		break;
	case 14:	/* KERNEL without its name buffer, or with an OUT one */
		d->opcode = TQ_OP_KERNEL;
		d->program = 1;
		if (chance(&p->r, 50)) {
			d->nr_bufs = 1;
			d->bufs[0] = (struct tq_buf){ .len = 4, .dir = TQ_DIR_OUT };
		}
		break;
	default:	/* a BUILTIN flag on a TASK */
		d->opcode = TQ_OP_TASK;
		d->flags |= TQ_DESC_F_BUILTIN;
		d->work_dim = 1;
		d->global[0] = 1;
		break;
	}
}

/* ---- operations ---- */

static int pick_ctx(struct proc *p, bool need_ctx)
{
	unsigned int start = below(&p->r, MAX_CTX);

	for (unsigned int k = 0; k < MAX_CTX; k++) {
		unsigned int i = (start + k) % MAX_CTX;

		if (p->ctx[i].fd >= 0 && (!need_ctx || p->ctx[i].is_ctx))
			return i;
	}
	return -1;
}

static void op_open(struct proc *p)
{
	for (unsigned int i = 0; i < MAX_CTX; i++) {
		struct ctx *c = &p->ctx[i];

		if (c->fd >= 0)
			continue;
		c->fd = t_open(chance(&p->r, 20));
		if (c->fd < 0 && !errno_in(-c->fd, ERRS(EMFILE, ENFILE, ENOMEM)))
			fail(p, "open: %s", strerror(-c->fd));
		say(p, "open slot %u fd %d", i, c->fd);
		c->fd = c->fd < 0 ? -1 : c->fd;
		return;
	}
}

/*
 * An ioctl argument's size: the struct's own, or shorter, longer (zeros
 * after it), longer with a non-zero tail byte (*tail_set), or past a page.
 * buf holds buflen bytes, zeroed, at least real + 128.
 */
static uint32_t arg_size(struct proc *p, uint32_t real, char *buf, size_t buflen,
			 bool *tail_set)
{
	uint32_t longer = real + 8 * (1 + below(&p->r, 16));

	*tail_set = false;
	if (buflen < real + 128)
		fail(p, "arg_size: a %zu-byte buffer for a %u-byte struct", buflen, real);
	switch (below(&p->r, 10)) {
	case 0:
		return below(&p->r, real);
	case 1:
		return longer;
	case 2:
		buf[real + below(&p->r, longer - real)] = 1 + below(&p->r, 255);
		*tail_set = true;
		return longer;
	case 3:
		return chance(&p->r, 50) ? 4097 : ~0u - below(&p->r, 16);
	default:
		return real;
	}
}

static void op_query(struct proc *p)
{
	char buf[4096 + 64] = { 0 };
	struct tq_query *q = (struct tq_query *)buf;
	int fd = pick_ctx(p, false), err;
	bool tail, bad = false, bad_arg;

	if (fd < 0)
		return;
	fd = p->ctx[fd].fd;
	q->size = arg_size(p, sizeof(*q), buf, sizeof(buf), &tail);
	if (chance(&p->r, 5)) {
		q->flags = 1u << below(&p->r, 32);
		bad = true;
	}
	bad_arg = chance(&p->r, 3);
	err = t_call(p, fd, TQ_IOC_QUERY, buf, sizeof(buf), bad_arg, NULL, 0, NULL, NULL);
	if (!errno_in(err, ERRS(EINVAL, E2BIG, EFAULT)) && err)
		fail(p, "QUERY: %s", strerror(err));
	if (!err && (bad_arg || tail || bad))
		fail(p, "QUERY accepted a bad argument (size %u)", q->size);
	if (!err && q->size >= sizeof(*q) && (q->desc_size != sizeof(struct tq_desc) ||
					      q->cqe_size != sizeof(struct tq_cqe)))
		fail(p, "QUERY: record sizes %u/%u", q->desc_size, q->cqe_size);
}

static uint64_t pick_arena(struct proc *p)
{
	static const uint64_t edge[] = { 0, 1, 4095, 4096, 4097, 1 << 16, 1 << 20 };

	switch (below(&p->r, 12)) {
	case 0: return edge[below(&p->r, 7)];
	case 1: return chance(&p->r, 20) ? mod.q.max_arena_bytes : mod.q.max_arena_bytes + 1;
	case 2: return ~0ull - below(&p->r, 4096);
	default: return 4096 * (1 + below(&p->r, 512));	/* up to 2 MiB */
	}
}

static uint32_t pick_entries(struct proc *p, bool cq)
{
	switch (below(&p->r, 10)) {
	case 0: return cq ? 0 : below(&p->r, 4);
	case 1: return mod.q.max_ring_entries + below(&p->r, 2);
	case 2: return ~0u - below(&p->r, 2);
	case 3: return 1 + below(&p->r, mod.q.max_ring_entries);
	default: return 1 + below(&p->r, 64);
	}
}

static void op_setup(struct proc *p)
{
	char buf[4096 + 64] = { 0 };
	struct tq_setup *s = (struct tq_setup *)buf;
	int i = pick_ctx(p, false), err, efd = -1, fds[2] = { -1, -1 }, tmp = -1, rfds[2];
	unsigned int nfds = 0, nrfds = 2;
	bool tail, bad = false, bad_arg;
	struct ctx *c;

	if (i < 0)
		return;
	c = &p->ctx[i];
	s->size = arg_size(p, sizeof(*s), buf, sizeof(buf), &tail);
	s->sq_entries = pick_entries(p, false);
	s->cq_entries = pick_entries(p, true);
	s->arena_bytes = pick_arena(p);
	s->eventfd = -1;
	switch (below(&p->r, 8)) {
	case 0:
		efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		s->eventfd = efd;
		fds[nfds++] = efd;	/* the socket's: it rides along */
		break;
	case 1:
		s->eventfd = chance(&p->r, 50) ? 0 : 1000 + below(&p->r, 1000);	/* not an eventfd */
		/* On the socket: none along (EBADF), or another kind of fd (EINVAL). */
		if (sock && chance(&p->r, 50))
			fds[nfds++] = stray_fd(p, c->fd, &tmp);
		bad = true;
		break;
	default:
		break;
	}
	if (chance(&p->r, 5)) {
		s->flags = 1u << below(&p->r, 32);
		bad = true;
	}
	if (chance(&p->r, 5)) {
		s->resv[below(&p->r, 3)] = 1;
		bad = true;
	}
	if (chance(&p->r, 5)) {
		s->prio = below(&p->r, 256);
		bad = bad || s->prio > TQ_PRIO_MAX;
	}
	bad_arg = chance(&p->r, 3);
	err = t_call(p, c->fd, TQ_IOC_SETUP, buf, sizeof(buf), bad_arg, fds, fds[0] >= 0 ? nfds : 0,
		     rfds, &nrfds);
	if (tmp >= 0)
		close(tmp);
	say(p, "setup slot %d sq %u cq %u arena %" PRIu64 ": %s", i, s->sq_entries,
	    s->cq_entries, (uint64_t)s->arena_bytes, strerror(err));
	if (!errno_in(err, ERRS(EINVAL, ERANGE, EFBIG, EMFILE, ENOMEM, EBADF, E2BIG, EFAULT)) &&
	    err)
		fail(p, "SETUP: %s", strerror(err));
	if (!err && (c->is_ctx || bad || bad_arg || tail))
		fail(p, "SETUP accepted a bad call (size %u, kind %s)", s->size,
		     c->is_ctx ? "context" : "fresh");
	if (err) {
		if (efd >= 0)
			close(efd);
		return;
	}
	if (sock && nrfds != 2)
		fail(p, "SETUP's reply carried %u descriptors, not the rings' and the arena's",
		     nrfds);
	if (sock) {
		c->rings_fd = rfds[0];
		c->arena_fd = rfds[1];
	}
	if (s->size < sizeof(*s)) {
		/* A context whose offsets we did not get back: only closing is left. */
		if (efd >= 0)
			close(efd);
		ctx_forget(c);
		return;
	}
	if (s->sq_entries & (s->sq_entries - 1) || s->cq_entries < s->sq_entries ||
	    s->arena_bytes % 4096 || !s->max_inflight)
		fail(p, "SETUP returned sq %u cq %u arena %" PRIu64 " inflight %u", s->sq_entries,
		     s->cq_entries, (uint64_t)s->arena_bytes, s->max_inflight);
	c->s = *s;
	c->is_ctx = true;
	c->efd = efd;
	if (!ctx_mapped(c) && !errno_in(errno, ERRS(ENOMEM)))
		fail(p, "mapping a fresh context's regions: %s", strerror(errno));
}

static void op_enter(struct proc *p)
{
	char buf[256] = { 0 };
	struct tq_enter *e = (struct tq_enter *)buf;
	int i = pick_ctx(p, false), err, n = chance(&p->r, 10) ? 200 + below(&p->r, 2000) : 1;
	bool tail, bad_arg, malformed;
	struct ctx *c;

	if (i < 0)
		return;
	c = &p->ctx[i];
	e->size = arg_size(p, sizeof(*e), buf, sizeof(buf), &tail);
	if (chance(&p->r, 5))
		e->flags = 1u << below(&p->r, 32);
	bad_arg = chance(&p->r, 3);
	malformed = !c->is_ctx || tail || e->flags || bad_arg || e->size < sizeof(*e) ||
		    e->size > ARG_MAX_SIZE;
	say(p, "enter x%d slot %d", n, i);
	for (int k = 0; k < n; k++) {	/* an ENTER storm */
		/* On the socket only a malformed doorbell is answered. */
		if (sock && !malformed) {
			sock_ring(p, c->fd, buf, e->size);
			continue;
		}
		err = t_call(p, c->fd, TQ_IOC_ENTER, buf, sizeof(buf), bad_arg, NULL, 0, NULL,
			     NULL);
		if (err == EBADFD && c->is_ctx) {
			c->broken = true;
			continue;
		}
		if (!errno_in(err, ERRS(EINVAL, E2BIG, EFAULT, EAGAIN, EBUSY)) && err)
			fail(p, "ENTER: %s", strerror(err));
		if (!err && malformed)
			fail(p, "ENTER accepted a bad call (size %u flags 0x%x, %s)", e->size,
			     e->flags, c->is_ctx ? "context" : "fresh fd");
	}
}

static void op_attach(struct proc *p)
{
	struct tq_attach a = { .size = sizeof(a) };
	int i = pick_ctx(p, false), err, fd;

	/* A client fd, or a fresh one: the device, or the scheduler socket (root's: 0600). */
	fd = i >= 0 && chance(&p->r, 50) ? p->ctx[i].fd : t_open_sched();
	if (fd < 0)
		return;
	err = t_call(p, fd, TQ_IOC_ATTACH, &a, sizeof(a), false, NULL, 0, NULL, NULL);
	if (!err)
		fail(p, "ATTACH succeeded while usched is attached");
	if (!errno_in(err, ERRS(EBUSY, EPERM, EINVAL)))
		fail(p, "ATTACH: %s", strerror(err));
	if (i < 0 || fd != p->ctx[i].fd)
		close(fd);
}

static void op_unknown_ioctl(struct proc *p)
{
	int i = pick_ctx(p, false), err;
	unsigned int type = below(&p->r, 256);
	char buf[256] = { 0 };
	unsigned long cmd;

	if (i < 0)
		return;
	*(uint32_t *)buf = below(&p->r, sizeof(buf));	/* the socket's message: random bytes */
	switch (below(&p->r, 4)) {
	case 0: cmd = _IOWR(TQ_IOC_MAGIC, 4 + below(&p->r, 252), struct tq_query);
		/* tqsubmitd's counters: TQD_SOCK_STATS, known on the socket */
		cmd += sock && _IOC_NR(cmd) == _IOC_NR(TQD_SOCK_STATS);
		break;
	case 1: cmd = _IOWR(type == TQ_IOC_MAGIC ? 0 : type, below(&p->r, 4), struct tq_query);
		break;
	case 2: cmd = _IOR(TQ_IOC_MAGIC, below(&p->r, 4), struct tq_query); break;
	default: cmd = chance(&p->r, 50) ? _IO(TQ_IOC_MAGIC, below(&p->r, 4)) :
				       _IOW(TQ_IOC_MAGIC, below(&p->r, 4), struct tq_query); break;
	}
	err = t_call(p, p->ctx[i].fd, cmd, buf, sizeof(buf), false, NULL, 0, NULL, NULL);
	if (err != ENOTTY)
		fail(p, "ioctl 0x%lx: %s, want ENOTTY", cmd, err ? strerror(err) : "success");
}

static void op_readwrite(struct proc *p)
{
	int i = pick_ctx(p, false), err;
	char buf[1024] = { 0 };
	size_t len;

	if (i < 0)
		return;
	if (sock) {
		sock_raw(p, p->ctx[i].fd);
		return;
	}
	len = 1 + below(&p->r, sizeof(buf) - 1);
	if (chance(&p->r, 50))
		err = sys_ret(read(p->ctx[i].fd, buf, len));
	else
		err = sys_ret(write(p->ctx[i].fd, buf, len));
	if (err != EINVAL)
		fail(p, "read/write on a client fd: %s, want EINVAL",
		     err ? strerror(err) : "success");
}

static void op_mmap(struct proc *p)
{
	int i = pick_ctx(p, false), prot = PROT_READ | PROT_WRITE, flags = MAP_SHARED, err;
	uint64_t off, len, right_off = 0, right_len = 0;
	bool right, arena = false;
	struct ctx *c;
	void *a;

	if (i < 0)
		return;
	c = &p->ctx[i];
	if (c->is_ctx) {
		switch (below(&p->r, 3)) {
		case 0: right_off = c->s.sq_off.mmap_offset; right_len = c->s.sq_off.mmap_size; break;
		case 1: right_off = c->s.cq_off.mmap_offset; right_len = c->s.cq_off.mmap_size; break;
		default: right_off = c->s.arena_offset; right_len = c->s.arena_bytes; arena = true;
			break;
		}
	}
	off = right_off;
	len = right_len ? right_len : 4096;
	switch (below(&p->r, 8)) {
	case 0: off += 4096 * (1 + below(&p->r, 4)); break;
	case 1: off = 4096ull * below(&p->r, 1 << 20); break;
	case 2: len = len > 4096 ? len - 4096 : len + 4096; break;
	case 3: len += 4096; break;
	case 4: prot |= PROT_EXEC; break;
	case 5: flags = MAP_PRIVATE; break;
	case 6: prot = chance(&p->r, 50) ? PROT_READ : PROT_NONE; break;
	default: break;
	}
	if (sock) {
		say(p, "mmap slot %d %s off 0x%" PRIx64 " len %" PRIu64 " prot %d flags %d", i,
		    !c->is_ctx ? "connection" : arena ? "arena" : "rings", off, len, prot, flags);
		sock_mmap(p, c, arena, off, len, prot, flags);
		return;
	}
	right = c->is_ctx && off == right_off && len == right_len && flags == MAP_SHARED &&
		!(prot & PROT_EXEC);
	a = mmap(NULL, len, prot, flags, c->fd, off);
	err = a == MAP_FAILED ? errno : 0;
	say(p, "mmap slot %d off 0x%" PRIx64 " len %" PRIu64 " prot %d flags %d: %s", i, off, len,
	    prot, flags, strerror(err));
	if (!err && !right)
		fail(p, "mmap off 0x%" PRIx64 " len %" PRIu64 " prot %d flags %d succeeded", off,
		     len, prot, flags);
	if (err && right && err != ENOMEM)
		fail(p, "mmap of a region as reported: %s", strerror(err));
	if (err && !errno_in(err, ERRS(EINVAL, EPERM, ENODEV, ENOMEM, EACCES)))
		fail(p, "mmap: %s", strerror(err));
	if (err)
		return;
	if (prot & PROT_WRITE) {
		/* Never executable later, never larger. */
		if (!mprotect(a, len, PROT_READ | PROT_EXEC))
			fail(p, "mprotect added PROT_EXEC to a tqsubmit mapping");
		if (mremap(a, len, len + 4096, 0) != MAP_FAILED)
			fail(p, "mremap grew a tqsubmit mapping");
	}
	unmap(&c->extra);
	c->extra = (struct map){ a, len };
}

/* Write descriptors at the tail; publish them (usually) and ring as asked. */
static void op_submit(struct proc *p)
{
	int i = pick_ctx(p, true);
	unsigned int n = 1 + below(&p->r, 8);
	struct ctx *c;

	if (i < 0)
		return;
	c = &p->ctx[i];
	if (!ctx_mapped(c))
		return;
	see_consumer(p, c);
	for (unsigned int k = 0; k < n && c->tail - c->taken < c->s.sq_entries; k++) {
		struct tq_desc d;
		uint8_t exp;

		if (!track(c, c->tail))
			break;
		switch (below(&p->r, 10)) {
		case 0:
		case 1:
			make_malformed(p, c, &d);
			exp = EXP_FAIL;
			break;
		case 2:	/* garbage: anything may come of it */
			for (size_t b = 0; b < sizeof(d); b += 8)
				*(uint64_t *)((char *)&d + b) = rnd64(&p->r);
			if (chance(&p->r, 50))
				d.opcode = 1 + below(&p->r, 4);
			exp = EXP_ANY;
			break;
		default:
			fill_valid(p, c, &d, &exp);
			break;
		}
		d.user_data = tag(p, i, c, c->tail);
		*sqe(c, c->tail) = d;
		c->expect[c->tail] = exp;
		c->tail++;
	}
	if (chance(&p->r, 85)) {
		raw_store_release(sq_word(c, c->s.sq_off.producer), c->tail);	/* A, matches B */
		c->published = c->tail;
		enter(p, c, chance(&p->r, 5));
	}
}

/* Rewrite slots already published: the kernel copies each once, either version. */
static void op_race(struct proc *p)
{
	int i = pick_ctx(p, true);
	struct ctx *c;

	if (i < 0)
		return;
	c = &p->ctx[i];
	if (!ctx_mapped(c) || c->exempt)
		return;
	see_consumer(p, c);
	for (uint32_t k = c->taken; k != c->published; k++) {
		struct tq_desc d;
		uint8_t exp;

		if (chance(&p->r, 50))
			make_malformed(p, c, &d);
		else
			fill_valid(p, c, &d, &exp);
		d.user_data = tag(p, i, c, k);
		*sqe(c, k) = d;
		c->expect[k] = EXP_ANY;
		/* The kernel may have taken the old one: any registration is off. */
		if (c->prog_asked && k == c->prog_idx)
			c->prog_asked = false;
		if (c->kern_asked && k == c->kern_idx)
			c->kern_asked = false;
	}
}

static void op_reap(struct proc *p)
{
	int i = pick_ctx(p, true);
	struct ctx *c;

	if (i < 0)
		return;
	c = &p->ctx[i];
	if (!ctx_mapped(c))
		return;
	if (chance(&p->r, 20))
		poll_broken(c, below(&p->r, 20));
	reap(p, i, c, chance(&p->r, 30) ? 1 + below(&p->r, 4) : UINT32_MAX);
	see_consumer(p, c);
}

/* Indices out of the rules: the context may break, and is no longer checked. */
static void op_hostile_index(struct proc *p)
{
	int i = pick_ctx(p, true);
	struct ctx *c;
	uint32_t v;

	if (i < 0)
		return;
	c = &p->ctx[i];
	if (!ctx_mapped(c))
		return;
	switch (below(&p->r, 7)) {
	case 0:	/* producer far ahead */
		c->hostile_index = true;
		v = c->tail + c->s.sq_entries + 1 + below(&p->r, 1000);
		raw_store_release(sq_word(c, c->s.sq_off.producer), v);
		c->exempt = true;
		break;
	case 1:	/* producer anywhere */
		c->hostile_index = true;
		raw_store_release(sq_word(c, c->s.sq_off.producer), (uint32_t)rnd64(&p->r));
		c->exempt = true;
		break;
	case 2:	/* producer back: below the kernel's consumer, that breaks it */
		c->hostile_index = true;
		see_consumer(p, c);
		v = c->taken - below(&p->r, 4);
		raw_store_release(sq_word(c, c->s.sq_off.producer), v);
		/* The kernel may take all that was published: only that value is harmless. */
		if (v != c->published)
			c->exempt = true;
		break;
	case 3:	/* CQ consumer past the producer or far back */
		c->hostile_index = true;
		raw_store_release(cq_word(c, c->s.cq_off.consumer),
				 c->cq_head + (chance(&p->r, 50) ? 1 + c->s.cq_entries :
					       ~below(&p->r, 1000)));
		c->exempt = true;
		break;
	case 4:	/* the kernel-written words: it keeps its own copies */
		c->hostile_index = true;
		*sq_word(c, c->s.sq_off.consumer) = (uint32_t)rnd64(&p->r);
		*cq_word(c, c->s.cq_off.producer) = (uint32_t)rnd64(&p->r);
		c->exempt = true;
		break;
	case 5:	/* the flags words: never read by the kernel */
		/* On the socket its break shows only there: neither forged nor wiped. */
		v = sock ? TQ_RING_BROKEN : 0;
		for (int k = 0; k < 2; k++) {
			uint32_t *w = k ? cq_word(c, c->s.cq_off.flags) :
					  sq_word(c, c->s.sq_off.flags);
			uint32_t r = (uint32_t)rnd64(&p->r);

			__atomic_fetch_and(w, r | v, __ATOMIC_RELAXED);
			__atomic_fetch_or(w, r & ~v, __ATOMIC_RELAXED);
		}
		break;
	default:	/* skip completions unread: they are lost to us */
		v = raw_load_acquire(cq_word(c, c->s.cq_off.producer));
		raw_store_release(cq_word(c, c->s.cq_off.consumer), v);
		c->cq_head = v;
		c->exempt = true;
		break;
	}
	say(p, "hostile index slot %d exempt %d", i, c->exempt);
}

/* Scribble on the arena: the scheduler reads it whenever it likes. */
static void op_arena(struct proc *p)
{
	int i = pick_ctx(p, true);
	struct ctx *c;

	if (i < 0)
		return;
	c = &p->ctx[i];
	if (!ctx_mapped(c))
		return;
	for (unsigned int k = 0, n = below(&p->r, 64); k < n; k++) {
		uint64_t limit = c->s.arena_bytes < (1 << 16) ? c->s.arena_bytes : 1 << 16;
		uint64_t off = below(&p->r, limit) & ~7ull;

		*(uint64_t *)((char *)c->arena.p + off) = rnd64(&p->r);
	}
}

static struct map *pick_map(struct proc *p, struct ctx *c, bool *ring)
{
	struct map *m[4] = { &c->sq, &c->cq, &c->arena, &c->extra };
	unsigned int k = below(&p->r, 4);

	*ring = k < 2 || (k == 3 && (sock ? c->extra_ring : c->extra.len != c->s.arena_bytes));
	return m[k]->p ? m[k] : NULL;
}

static void op_munmap(struct proc *p)
{
	int i = pick_ctx(p, true);
	struct map *m;
	bool ring;
	struct ctx *c;

	if (i < 0)
		return;
	c = &p->ctx[i];
	m = pick_map(p, c, &ring);
	if (!m)
		return;
	if (m->len > 4096 && chance(&p->r, 30)) {
		/* A hole in the middle or off one end: the rest goes too. */
		size_t pg = 4096 * below(&p->r, m->len / 4096);

		if (munmap((char *)m->p + pg, 4096))
			fail(p, "munmap of one page: %s", strerror(errno));
		if (pg)
			munmap(m->p, pg);
		if (pg + 4096 < m->len)
			munmap((char *)m->p + pg + 4096, m->len - pg - 4096);
		m->p = NULL;
		m->len = 0;
	} else {
		unmap(m);
	}
	say(p, "munmap slot %d", i);
}

static void op_madvise(struct proc *p)
{
	static const int advice[] = { MADV_DONTNEED, MADV_DOFORK, MADV_DONTFORK, MADV_WILLNEED,
				      MADV_NORMAL, MADV_RANDOM, MADV_SEQUENTIAL, MADV_REMOVE,
				      MADV_HUGEPAGE, MADV_DONTDUMP, MADV_DODUMP, MADV_COLD,
				      MADV_PAGEOUT, MADV_FREE };
	int i = pick_ctx(p, true), adv = advice[below(&p->r, 14)], err;
	struct map *m;
	bool ring;
	struct ctx *c;

	if (i < 0)
		return;
	c = &p->ctx[i];
	m = pick_map(p, c, &ring);
	if (!m)
		return;
	err = sys_ret(madvise(m->p, m->len, adv));
	say(p, "madvise slot %d advice %d: %s", i, adv, strerror(err));
	if (err && !errno_in(err, ERRS(EINVAL, EPERM, EAGAIN, ENOMEM, EBUSY, ENODEV, EOPNOTSUPP,
					EACCES)))
		fail(p, "madvise %d: %s", adv, strerror(err));
	if (!err && adv == MADV_DOFORK)
		c->dofork = true;
	if (!err && adv == MADV_REMOVE && !ring)
		c->exempt = true;	/* the scheduler may read a hole mid-task: no check of data */
	if (!err && adv == MADV_REMOVE && ring && sock) {
		/* The socket's rings are a memfd: the hole zeroes every index. */
		c->hostile_index = true;
		c->exempt = true;
	}
	if (!err && (adv == MADV_DONTNEED || adv == MADV_REMOVE || adv == MADV_FREE) &&
	    probe_read(m->p)) {
		/* A ring mapping does not fault back in: drop it, map it again later. */
		unmap(m);
	}
}

static void op_close(struct proc *p)
{
	int i = pick_ctx(p, false);
	struct ctx *c;

	if (i < 0)
		return;
	c = &p->ctx[i];
	if (chance(&p->r, 30)) {
		/* Abruptly, tasks in flight, maybe still mapped (that keeps it open). */
		c->exempt = true;
		say(p, "close slot %d abruptly", i);
		if (sock && chance(&p->r, 50)) {
			sock_hangup(p, c);
		} else if (chance(&p->r, 50)) {
			close(c->fd);
			c->fd = -1;
		}
	}
	say(p, "close slot %d", i);
	ctx_end(p, i, c);
}

/* ---- fork and children ---- */

static void fuzz_loop(struct proc *p, uint64_t deadline_ns, uint64_t max_steps);

/* The child's first look: the parent's fds and mappings are not its own. */
static void child_probe(struct proc *p)
{
	for (unsigned int i = 0; i < MAX_CTX; i++) {
		struct ctx *c = &p->ctx[i];
		struct tq_enter e = { .size = sizeof(e) };
		struct map *m[4] = { &c->sq, &c->cq, &c->arena, &c->extra };
		unsigned char vec[1];
		int err;

		if (c->fd < 0 || !c->is_ctx)
			continue;
		if (sock) {
			/*
			 * The parent's connection and memfds are the child's too:
			 * a doorbell owes no reply (the parent may have hung up),
			 * and a scribbling child (its parent exempted them all)
			 * moves the SQ producer where it is still mapped.
			 */
			sock_doorbell(c->fd, &e, sizeof(e));
			if (p->scribble && c->sq.p && !mincore(c->sq.p, 1, vec))
				raw_store_release(sq_word(c, c->s.sq_off.producer),
						  (uint32_t)rnd64(&p->r));
			continue;
		}
		err = sys_ret(ioctl(c->fd, TQ_IOC_ENTER, &e));
		if (err != EPERM && err != EBADFD)
			fail(p, "ENTER on the parent's context from a child: %s, want EPERM",
			     err ? strerror(err) : "success");
		if (mmap(NULL, c->s.arena_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, c->fd,
			 c->s.arena_offset) != MAP_FAILED)
			fail(p, "mmap of the parent's arena from a child succeeded");
		for (int k = 0; k < 4; k++) {
			if (!m[k]->p)
				continue;
			if (!mincore(m[k]->p, 1, vec) || errno != ENOMEM)
				p->res->dofork_seen++;
		}
	}
	if (!geteuid()) {
		/* ATTACH from a file (a connection) root opened, after dropping root. */
		int fd = t_open_sched(), err;
		struct tq_attach a = { .size = sizeof(a) };

		if (fd >= 0 && chance(&p->r, 30) && !setresuid(NOBODY, NOBODY, NOBODY)) {
			err = t_call(p, fd, TQ_IOC_ATTACH, &a, sizeof(a), false, NULL, 0, NULL,
				     NULL);
			if (!errno_in(err, ERRS(EPERM, EBUSY)))
				fail(p, "ATTACH after dropping root: %s",
				     err ? strerror(err) : "success");
		}
		if (fd >= 0)
			close(fd);
	}
	/* Drop the inherited fds; the mappings are the parent's, not ours to unmap. */
	for (unsigned int i = 0; i < MAX_CTX; i++) {
		ctx_close_fds(&p->ctx[i]);
		ctx_reset(&p->ctx[i]);
	}
}

static void op_fork(struct proc *p)
{
	uint64_t seed = rnd64(&p->r), n;
	bool scribble = sock && chance(&p->r, 5);
	struct result *res;
	pid_t pid;

	if (p->child || p->nchildren >= MAX_CHILDREN)
		return;
	n = p->child_no++;
	res = &results[MAX_PROCS + p->idx * 64 + n % 64];
	memset(res, 0, sizeof(*res));
	res->seed = seed;
	for (unsigned int i = 0; i < MAX_CTX; i++) {
		struct ctx *c = &p->ctx[i];

		if (c->dofork)
			c->exempt = true;	/* the child may share its rings */
		if (scribble && c->is_ctx)
			c->exempt = c->hostile_index = true;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return;
	if (!pid) {
		p->child = true;
		p->scribble = scribble;
		p->res = res;
		p->step = 0;
		p->nchildren = 0;
		rng_seed(&p->r, seed);
		child_probe(p);
		/* Some children only wait to be killed, holding their contexts. */
		fuzz_loop(p, UINT64_MAX, 1 + below(&p->r, CHILD_STEPS));
		if (chance(&p->r, 40))
			pause();
		for (unsigned int i = 0; i < MAX_CTX; i++)
			if (p->ctx[i].fd >= 0)
				ctx_end(p, i, &p->ctx[i]);
		_exit(0);
	}
	say(p, "fork child %d seed 0x%" PRIx64, pid, seed);
	p->children[p->nchildren++] = pid;
	p->res->children++;
}

/* Reap a child; its failure is ours. */
static void child_done(struct proc *p, unsigned int k, bool kill_it)
{
	pid_t pid = p->children[k];
	int st;

	if (kill_it)
		kill(pid, SIGKILL);
	if (waitpid(pid, &st, kill_it ? 0 : WNOHANG) <= 0)
		return;
	p->children[k] = p->children[--p->nchildren];
	if (WIFEXITED(st) && WEXITSTATUS(st))
		fail(p, "a child failed (its line above; replay its parent)");
	if (WIFSIGNALED(st) && WTERMSIG(st) != SIGKILL)
		fail(p, "a child died of signal %d", WTERMSIG(st));
}

static void op_kill(struct proc *p)
{
	if (!p->nchildren)
		return;
	child_done(p, below(&p->r, p->nchildren), chance(&p->r, 60));
}

/* ---- the loop ---- */

/* Weights on the module and on the socket, whose raw messages are readwrite's. */
#define OP(name, weight, wsock) { op_##name, { weight, wsock }, #name }
static const struct {
	void (*fn)(struct proc *p);
	unsigned int weight[2];
	const char *name;
} ops[NR_OPS] = {
	OP(open, 6, 6), OP(query, 3, 3), OP(setup, 8, 8), OP(enter, 4, 4), OP(attach, 1, 1),
	OP(unknown_ioctl, 2, 2), OP(readwrite, 1, 4), OP(mmap, 5, 3), OP(submit, 24, 24),
	OP(race, 3, 3), OP(reap, 20, 20), OP(hostile_index, 1, 1), OP(arena, 3, 3),
	OP(munmap, 2, 2), OP(madvise, 3, 3), OP(close, 4, 4), OP(fork, 1, 1), OP(kill, 1, 1),
};

static void fuzz_loop(struct proc *p, uint64_t deadline_ns, uint64_t max_steps)
{
	unsigned int total = 0;

	for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
		total += ops[k].weight[sock];
	while ((!max_steps || p->step < max_steps) && tq_now_ns() < deadline_ns) {
		unsigned int w = below(&p->r, total);
		uint64_t t0 = tq_now_ns();
		size_t k = 0;

		while (w >= ops[k].weight[sock])
			w -= ops[k++].weight[sock];
		p->step++;
		current_op = ops[k].name;
		ops[k].fn(p);
		p->res->ops++;
		p->res->op_ns[k] += tq_now_ns() - t0;
		for (unsigned int c = 0; c < p->nchildren; c++)
			child_done(p, c, false);
	}
}

static void worker(unsigned int idx, uint64_t deadline_ns)
{
	struct proc p = { .idx = idx };
	struct sigaction sa = { .sa_sigaction = on_fault, .sa_flags = SA_NODEFER | SA_SIGINFO };

	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGSEGV, &sa, NULL);
	p.res = &results[idx];
	self = &p;
	rng_seed(&p.r, p.res->seed);
	for (unsigned int i = 0; i < MAX_CTX; i++)
		ctx_reset(&p.ctx[i]);
	p.va = tqk_find("VA");
	if (!p.va || tqk_plan(p.va, (struct tqk_size){ 1024, 1 }, &p.va_l))
		fail(&p, "no VA built-in");
	/* Odd workers are an ordinary user, with room for a few arenas. */
	if (idx % 2 && !geteuid()) {
		struct rlimit rl = { 64 << 20, 64 << 20 };

		setrlimit(RLIMIT_MEMLOCK, &rl);
		if (setresgid(NOBODY, NOBODY, NOBODY) || setresuid(NOBODY, NOBODY, NOBODY))
			fail(&p, "cannot become uid %d: %s", NOBODY, strerror(errno));
	}
	fuzz_loop(&p, deadline_ns, opt.steps);
	for (unsigned int i = 0; i < MAX_CTX; i++)
		if (p.ctx[i].fd >= 0)
			ctx_end(&p, i, &p.ctx[i]);
	while (p.nchildren)
		child_done(&p, 0, true);
	_exit(0);
}

/* ---- the master ---- */

/* Lines of the kernel log that show a kernel bug. */
static int klog_bugs(bool print)
{
	static const char *const bad[] = { "BUG:", "WARNING:", "Oops", "general protection",
					   "refcount_t", "Call Trace", "KASAN", NULL };
	int len = klogctl(10, NULL, 0), n = 0;
	char *buf, *line, *save;

	if (len <= 0)
		return -1;
	buf = calloc(1, len + 1);
	if (!buf)
		return -1;
	len = klogctl(3, buf, len);
	if (len < 0) {
		free(buf);
		return -1;
	}
	buf[len] = 0;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		for (int k = 0; bad[k]; k++) {
			if (strstr(line, bad[k])) {
				n++;
				if (print)
					tap_diag("kernel: %s", line);
				break;
			}
		}
	}
	free(buf);
	return n;
}

static bool at_rest(long long contexts0)
{
	return t_stat("in_flight") == 0 && t_stat("contexts") <= contexts0;
}

/* The server's limits (TQ_IOC_QUERY) into q: 0, or -errno when there is no server. */
static int query_server(struct tq_query *q)
{
	int fd = t_open(false), ret;

	if (fd < 0)
		return fd;
	q->size = sizeof(*q);
	if (sock)
		ret = tqt_call(fd, TQ_IOC_QUERY, q, sizeof(*q), NULL, 0, NULL, NULL);
	else
		ret = ioctl(fd, TQ_IOC_QUERY, q) ? -errno : 0;
	close(fd);
	return ret;
}

/* How many descriptors tqsubmitd ($TQ_SERVER_PID, selftests/socket_env.sh) holds; -1 unknown. */
static int server_fds(void)
{
	const char *pid = getenv("TQ_SERVER_PID");

	return pid && *pid ? raw_fd_count(atoi(pid)) : -1;
}

/* tqsubmitd at the end: running, and holding the descriptors it held before the run. */
static void check_server(int fds0)
{
	int fds1 = server_fds();

	if (fds0 < 0) {
		tap_skip("tqsubmitd's descriptors", "no $TQ_SERVER_PID (selftests/socket_env.sh "
			 "sets it)");
		return;
	}
	/* A connection of the counters' may still be closing. */
	for (int k = 0; k < 100 && fds1 != fds0; k++) {
		usleep(100000);
		fds1 = server_fds();
	}
	tap_ok(fds1 == fds0, "tqsubmitd (pid %s) runs and holds %d descriptors, as before (%d)",
	       getenv("TQ_SERVER_PID"), fds1, fds0);
}

static void usage(void)
{
	fprintf(stderr, "usage: tq_fuzz [--seed S] [--seconds N] [--procs P] [--proc I] "
		"[--steps N] [--verbose]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "seconds", required_argument, NULL, 't' },
		{ "procs", required_argument, NULL, 'p' },
		{ "proc", required_argument, NULL, 'i' },
		{ "steps", required_argument, NULL, 'n' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t nops = 0, tasks = 0, exempt = 0, dofork = 0, children = 0, refused = 0, t0;
	uint64_t deadline;
	long long sched, contexts0, sub, comp, fail_, rej, drop;
	int o, bugs0 = 0, bugs1, kind, fds0 = -1;
	pid_t pids[MAX_PROCS];
	double secs;

	opt.seed = tq_now_ns() ^ (uint64_t)getpid() << 32;
	while ((o = getopt_long(argc, argv, "s:t:p:i:n:v", lo, NULL)) != -1) {
		switch (o) {
		case 's': opt.seed = strtoull(optarg, NULL, 0); break;
		case 't': opt.seconds = strtoul(optarg, NULL, 0); break;
		case 'p': opt.procs = strtoul(optarg, NULL, 0); break;
		case 'i': opt.only = atoi(optarg); break;
		case 'n': opt.steps = strtoull(optarg, NULL, 0); break;
		case 'v': opt.verbose = true; break;
		default: usage();
		}
	}
	kind = tqt_pick();
	if (!opt.procs || opt.procs > MAX_PROCS || opt.only >= (int)opt.procs || kind < 0)
		usage();
	sock = kind == TQT_SOCKET;
	printf("# tq_fuzz --seed 0x%016" PRIx64 " --seconds %u --procs %u, on the %s\n", opt.seed,
	       opt.seconds, opt.procs, tqt_name(kind));
	if (query_server(&mod.q))
		tap_skip_all(sock ? "no tqsubmitd answers on $TQ_SOCKET (selftests/socket_env.sh "
			     "starts one)" : "no " TQ_DEV " (run in the test VM)");
	sched = t_stat("scheduler_pid");
	if (sched <= 0)
		tap_skip_all("no scheduler attached (start usched: selftests/tq_fuzz.sh)");
	if (geteuid())
		tap_skip_all("needs root (workers drop to uid 65534 by turns)");
	results = mmap(NULL, (MAX_PROCS + MAX_PROCS * 64) * sizeof(*results),
		       PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (results == MAP_FAILED)
		tap_skip_all("no memory");
	contexts0 = t_stat("contexts");
	if (sock) {
		usleep(100000);	/* the counters' connection closes */
		fds0 = server_fds();
	} else {
		bugs0 = klog_bugs(false);
	}

	t0 = tq_now_ns();
	deadline = t0 + opt.seconds * 1000000000ull;
	fflush(NULL);
	for (unsigned int i = 0; i < opt.procs; i++) {
		pids[i] = 0;
		results[i].seed = derive_seed(opt.seed, i);
		if (opt.only >= 0 && (int)i != opt.only)
			continue;
		pids[i] = fork();
		if (!pids[i])
			worker(i, deadline);
	}
	for (unsigned int i = 0; i < opt.procs; i++) {
		struct result *r = &results[i];
		int st = 0;

		if (pids[i] <= 0)
			continue;
		waitpid(pids[i], &st, 0);
		if (!r->failed && !(WIFEXITED(st) && !WEXITSTATUS(st)))
			snprintf(r->msg, sizeof(r->msg), "worker %u seed 0x%016" PRIx64
				 " died (status 0x%x) after %" PRIu64 " ops", i, r->seed, st, r->ops);
		for (unsigned int k = 0; k < 64; k++) {
			struct result *c = &results[MAX_PROCS + i * 64 + k];

			nops += c->ops;
			tasks += c->tasks;
			refused += c->nop_refused;
			if (c->failed)
				tap_diag("%s", c->msg);
		}
		if (!tap_ok(!r->failed && WIFEXITED(st) && !WEXITSTATUS(st),
			    "worker %u (seed 0x%016" PRIx64 "): %" PRIu64 " ops, %" PRIu64
			    " tasks checked, %" PRIu64 " children", i, r->seed, r->ops, r->tasks,
			    r->children))
			tap_diag("%s; replay: tq_fuzz --seed 0x%016" PRIx64 " --procs %u --proc %u"
				 " --steps %" PRIu64 " --verbose", r->msg, opt.seed, opt.procs, i,
				 r->step ? r->step : r->ops);
		nops += r->ops;
		tasks += r->tasks;
		exempt += r->exempt;
		dofork += r->dofork_seen;
		refused += r->nop_refused;
		children += r->children;
	}
	secs = (tq_now_ns() - t0) / 1e9;
	{
		double op_s[NR_OPS] = { 0 };

		for (unsigned int i = 0; i < opt.procs; i++)
			for (unsigned int k = 0; k < NR_OPS; k++)
				op_s[k] += results[i].op_ns[k] / 1e9;
		printf("# workers' time by operation (s):");
		for (unsigned int k = 0; k < NR_OPS; k++)
			printf(" %s %.1f", ops[k].name, op_s[k]);
		printf("\n");
	}
	for (unsigned int i = 0; i < MAX_PROCS * 64; i++)
		dofork += results[MAX_PROCS + i].dofork_seen;

	/* Every context released and nothing in flight, then the books balance. */
	for (int k = 0; k < 600 && !at_rest(contexts0); k++)
		usleep(100000);
	tap_ok(t_stat("scheduler_pid") == sched, "usched (pid %lld) is still the scheduler", sched);
	tap_ok(at_rest(contexts0), "at rest: in_flight %lld, contexts %lld (were %lld)",
	       t_stat("in_flight"), t_stat("contexts"), contexts0);
	sub = t_stat("submitted");
	comp = t_stat("completed");
	fail_ = t_stat("failed");
	rej = t_stat("rejected");
	drop = t_stat("dropped");
	tap_ok(sub == comp + fail_ + rej + drop + t_stat("in_flight"),
	       "counters balance: submitted %lld = completed %lld + failed %lld + rejected %lld"
	       " + dropped %lld", sub, comp, fail_, rej, drop);
	if (sock) {
		check_server(fds0);
	} else {
		bugs1 = klog_bugs(false);
		if (!tap_ok(bugs0 >= 0 && bugs1 == bugs0,
			    "kernel log: no BUG, WARNING or Oops (%d new)", bugs1 - bugs0))
			klog_bugs(true);
	}
	printf("# seed 0x%016" PRIx64 ": %" PRIu64 " ops in %.1f s by %u workers and %" PRIu64
	       " children: %.0f ops/s, %.3f process-hours; %" PRIu64 " tasks checked, %" PRIu64
	       " contexts exempt, MADV_DOFORK mappings seen by children: %" PRIu64 "\n", opt.seed,
	       nops, secs, opt.only >= 0 ? 1 : opt.procs, children, nops / secs,
	       (opt.only >= 0 ? 1 : opt.procs) * secs / 3600, tasks, exempt, dofork);
	if (refused)
		printf("# %" PRIu64 " NOPs refused with their context (-ENOMEM: usched could not"
		       " map the arena; -EDQUOT: over an arena quota)\n", refused);
	if (tap_failed)
		printf("# FAILED: replay with tq_fuzz --seed 0x%016" PRIx64 " --procs %u\n",
		       opt.seed, opt.procs);
	return tap_done();
}
