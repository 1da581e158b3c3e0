/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tq_util.h - raw-syscall helpers for the tqsubmit selftests and the raw-ABI
 * programs of selftests/ (tq_echod, the requeue test, the fuzzer) and tqsubmitd's
 * protocol test: a client context (setup, mappings, submit, reap) and a
 * scheduler (attach, read events, write completions), on
 * include/uapi/linux/tqsubmit.h alone.
 * Functions return 0 (or a count) or -errno. Barrier letters are those of
 * the comment block in kmod/tq.h.
 */
#ifndef TQ_SELFTEST_UTIL_H
#define TQ_SELFTEST_UTIL_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <linux/tqsubmit.h>
#include <tq/clock.h>

#include "tq_sysfs.h"

#define TQ_DEV		"/dev/tqsubmit"

/* tq_echod, the test scheduler (selftests/tq_echod.c); the build passes where it is. */
#ifndef TQ_ECHOD
#define TQ_ECHOD	"build/bin/tq_echod"
#endif

struct raw_client {
	int fd;
	struct tq_setup s;
	void *sq, *cq, *arena;
	uint32_t *sq_prod, *sq_cons, *sq_flags;
	uint32_t *cq_prod, *cq_cons, *cq_flags;
	struct tq_desc *sqes;
	struct tq_cqe *cqes;
	uint32_t sq_tail;	/* our producer */
	uint32_t cq_head;	/* our consumer */
};

static inline uint32_t raw_load_acquire(uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline void raw_store_release(uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

/* Set module parameter name to v; its old value in *old unless NULL. 0 or -1. */
static inline int raw_set_param(const char *name, long v, long *old)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/tqsubmit/parameters/%s", name);
	if (old) {
		f = fopen(path, "r");
		if (!f || fscanf(f, "%ld", old) != 1)
			return -1;
		fclose(f);
	}
	f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "%ld\n", v);
	return fclose(f) ? -1 : 0;
}

static inline void *raw_map(int fd, uint64_t off, uint64_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off);

	return p == MAP_FAILED ? NULL : p;
}

static inline void raw_client_close(struct raw_client *c)
{
	if (c->sq)
		munmap(c->sq, c->s.sq_off.mmap_size);
	if (c->cq)
		munmap(c->cq, c->s.cq_off.mmap_size);
	if (c->arena)
		munmap(c->arena, c->s.arena_bytes);
	if (c->fd >= 0)
		close(c->fd);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
}

/* Open a context of class @prio (tq_setup.prio) and map its three regions. */
static inline int raw_client_open_prio(struct raw_client *c, uint32_t sq_entries,
				      uint32_t cq_entries, uint64_t arena_bytes, int efd,
				      uint8_t prio)
{
	int err;

	memset(c, 0, sizeof(*c));
	c->fd = open(TQ_DEV, O_RDWR | O_CLOEXEC);
	if (c->fd < 0)
		return -errno;
	c->s.size = sizeof(c->s);
	c->s.sq_entries = sq_entries;
	c->s.cq_entries = cq_entries;
	c->s.arena_bytes = arena_bytes;
	c->s.eventfd = efd;
	c->s.prio = prio;
	if (ioctl(c->fd, TQ_IOC_SETUP, &c->s)) {
		err = -errno;
		goto out;
	}
	c->sq = raw_map(c->fd, c->s.sq_off.mmap_offset, c->s.sq_off.mmap_size);
	c->cq = raw_map(c->fd, c->s.cq_off.mmap_offset, c->s.cq_off.mmap_size);
	c->arena = raw_map(c->fd, c->s.arena_offset, c->s.arena_bytes);
	if (!c->sq || !c->cq || !c->arena) {
		err = -errno;
		goto out;
	}
	c->sq_prod = (uint32_t *)((char *)c->sq + c->s.sq_off.producer);
	c->sq_cons = (uint32_t *)((char *)c->sq + c->s.sq_off.consumer);
	c->sq_flags = (uint32_t *)((char *)c->sq + c->s.sq_off.flags);
	c->sqes = (struct tq_desc *)((char *)c->sq + c->s.sq_off.entries);
	c->cq_prod = (uint32_t *)((char *)c->cq + c->s.cq_off.producer);
	c->cq_cons = (uint32_t *)((char *)c->cq + c->s.cq_off.consumer);
	c->cq_flags = (uint32_t *)((char *)c->cq + c->s.cq_off.flags);
	c->cqes = (struct tq_cqe *)((char *)c->cq + c->s.cq_off.entries);
	return 0;
out:
	raw_client_close(c);
	return err;
}

static inline int raw_client_open(struct raw_client *c, uint32_t sq_entries, uint32_t cq_entries,
				  uint64_t arena_bytes, int efd)
{
	return raw_client_open_prio(c, sq_entries, cq_entries, arena_bytes, efd, 0);
}

static inline int raw_enter(int fd)
{
	struct tq_enter e = { .size = sizeof(e) };

	return ioctl(fd, TQ_IOC_ENTER, &e) ? -errno : 0;
}

/* J: after publishing an index, ring if the scheduler sleeps. */
static inline int raw_client_kick(struct raw_client *c)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);	/* J, matches I */
	if (__atomic_load_n(c->sq_flags, __ATOMIC_RELAXED) & TQ_RING_NEED_WAKEUP)
		return raw_enter(c->fd);
	return 0;
}

/* Queue up to n descriptors; returns how many fit. */
static inline int raw_client_submit(struct raw_client *c, const struct tq_desc *d, unsigned int n)
{
	uint32_t free = c->s.sq_entries - (c->sq_tail - raw_load_acquire(c->sq_cons)); /* D */
	unsigned int i;
	int err;

	if (n > free)
		n = free;
	for (i = 0; i < n; i++)
		c->sqes[(c->sq_tail + i) & (c->s.sq_entries - 1)] = d[i];
	c->sq_tail += n;
	raw_store_release(c->sq_prod, c->sq_tail);	/* A, matches B */
	err = raw_client_kick(c);
	return err ? err : (int)n;
}

/* Take up to max completions without waiting. */
static inline int raw_client_reap(struct raw_client *c, struct tq_cqe *out, unsigned int max)
{
	uint32_t avail = raw_load_acquire(c->cq_prod) - c->cq_head;	/* F, matches E */
	unsigned int i;
	int err;

	if (avail > max)
		avail = max;
	for (i = 0; i < avail; i++)
		out[i] = c->cqes[(c->cq_head + i) & (c->s.cq_entries - 1)];
	if (!avail)
		return 0;
	c->cq_head += avail;
	raw_store_release(c->cq_cons, c->cq_head);	/* G, matches H */
	/* The kernel may have stopped taking for lack of CQ room. */
	err = c->sq_tail != raw_load_acquire(c->sq_cons) ? raw_client_kick(c) : 0;
	return err ? err : (int)avail;
}

/* Wait up to timeout_ms for at least one completion. */
static inline int raw_client_wait(struct raw_client *c, struct tq_cqe *out, unsigned int max,
				 int timeout_ms)
{
	uint64_t end = tq_now_ns() + timeout_ms * 1000000ull;
	int n;

	for (;;) {
		struct pollfd p = { .fd = c->fd, .events = POLLIN };
		int64_t left = (int64_t)(end - tq_now_ns()) / 1000000;

		n = raw_client_reap(c, out, max);
		if (n)
			return n;
		if (left <= 0)
			return 0;
		if (poll(&p, 1, left) < 0 && errno != EINTR)
			return -errno;
	}
}

static inline void raw_nop(struct tq_desc *d, uint64_t user_data)
{
	memset(d, 0, sizeof(*d));
	d->opcode = TQ_OP_NOP;
	d->user_data = user_data;
}

/* A valid 1-D task with one IN buffer at the start of the arena. */
static inline void raw_task(struct tq_desc *d, uint64_t user_data)
{
	memset(d, 0, sizeof(*d));
	d->opcode = TQ_OP_TASK;
	d->user_data = user_data;
	d->work_dim = 1;
	d->global[0] = 64;
	d->nr_bufs = 1;
	d->bufs[0].offset = 0;
	d->bufs[0].len = 256;
	d->bufs[0].dir = TQ_DIR_IN;
	d->bufs[0].arg = 0;
}

/* Attach as the scheduler with TQ_ATTACH_F_* aflags: the fd, or -errno. */
static inline int raw_sched_open_flags(int flags, uint32_t aflags)
{
	struct tq_attach a = { .size = sizeof(a), .flags = aflags };
	int fd = open(TQ_DEV, O_RDWR | O_CLOEXEC | flags);
	int err;

	if (fd < 0)
		return -errno;
	if (ioctl(fd, TQ_IOC_ATTACH, &a)) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

/* Attach as the scheduler: the fd, or -errno. */
static inline int raw_sched_open(int flags)
{
	return raw_sched_open_flags(flags, 0);
}

/* Read up to max events, waiting up to timeout_ms for the first. */
static inline int raw_sched_read(int fd, struct tq_event *ev, unsigned int max, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t n;

	for (;;) {
		n = read(fd, ev, max * sizeof(*ev));
		if (n >= 0)
			return n / sizeof(*ev);
		if (errno != EAGAIN)
			return -errno;
		if (timeout_ms <= 0)
			return 0;
		n = poll(&p, 1, timeout_ms);
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
	}
}

/* Complete one task by its event, with a status. */
static inline int raw_sched_complete(int fd, const struct tq_event *ev, int status, uint64_t result)
{
	struct tq_completion c = {
		.ctx_id = ev->ctx_id,
		.tag = ev->tag,
		.status = status,
		.result = result,
		.start_ns = tq_now_ns(),
	};

	c.end_ns = c.start_ns;
	return write(fd, &c, sizeof(c)) == sizeof(c) ? 0 : -errno;
}

/* Mark a task started (TQ_COMPL_F_STARTED): 0 or -errno. */
static inline int raw_sched_mark(int fd, const struct tq_event *ev)
{
	struct tq_completion c = {
		.ctx_id = ev->ctx_id,
		.tag = ev->tag,
		.flags = TQ_COMPL_F_STARTED,
	};

	return write(fd, &c, sizeof(c)) == sizeof(c) ? 0 : -errno;
}

/*
 * Read events until @want TASK events came, @ms passed or a read failed
 * (its -errno in *@err, else 0); returns the events read (OPEN and CLOSE
 * ones too).
 */
static inline int raw_sched_gather(int fd, struct tq_event *ev, int max, int want, int ms,
				  int *err)
{
	uint64_t end = tq_now_ns() + ms * 1000000ull;
	int n = 0, tasks = 0, i, got;

	*err = 0;
	while (tasks < want && n < max) {
		int64_t left = (int64_t)(end - tq_now_ns()) / 1000000;

		if (left <= 0)
			break;
		got = raw_sched_read(fd, ev + n, max - n, left);
		if (got < 0)
			*err = got;
		if (got <= 0)
			break;
		for (i = n; i < n + got; i++)
			tasks += ev[i].type == TQ_EV_TASK;
		n += got;
	}
	return n;
}

/* raw_sched_gather(), or -errno where a read failed. */
static inline int raw_sched_collect(int fd, struct tq_event *ev, int max, int want, int ms)
{
	int err, n = raw_sched_gather(fd, ev, max, want, ms, &err);

	return err ? err : n;
}

/* Publish descriptors without the doorbell (tests of the doorbell itself). */
static inline void raw_client_publish(struct raw_client *c, const struct tq_desc *d, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		c->sqes[(c->sq_tail + i) & (c->s.sq_entries - 1)] = d[i];
	c->sq_tail += n;
	raw_store_release(c->sq_prod, c->sq_tail);	/* A, matches B */
}

static inline int raw_sched_release(int fd, uint32_t ctx_id)
{
	struct tq_completion c = { .ctx_id = ctx_id, .flags = TQ_COMPL_F_RELEASE };

	return write(fd, &c, sizeof(c)) == sizeof(c) ? 0 : -errno;
}

/* The descriptors process @pid holds (/proc/PID/fd), or -1. */
static inline int raw_fd_count(pid_t pid)
{
	struct dirent *e;
	char path[64];
	int n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	d = opendir(path);
	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

#endif /* TQ_SELFTEST_UTIL_H */
