/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tq_fuzz.h - what the fuzzer's two files share: tq_fuzz.c (the operations,
 * the workers, the checks at the end) and tq_fuzz_sock.c (tqsubmitd's
 * socket as its transport, and the hostility of its own). The generator, a
 * worker's contexts and results, failure, and the few helpers both use;
 * tq_fuzz_sock.c calls nothing of tq_fuzz.c.
 */
#ifndef TQ_FUZZ_H
#define TQ_FUZZ_H

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/mman.h>
#include <linux/tqsubmit.h>

#include "kernels/tqkernels.h"
#include "tq/rand.h"

#define MAX_CTX		6	/* fds a process holds at once */
#define MAX_CHILDREN	3
#define NR_OPS		18
#define ARG_MAX_SIZE	4096	/* an ioctl struct's largest size (PAGE_SIZE) */

/* ---- the generator: <tq/rand.h>'s ---- */

struct rng {
	uint64_t s;
};

static inline void rng_seed(struct rng *r, uint64_t seed)
{
	r->s = seed;
}

static inline uint64_t rnd64(struct rng *r)
{
	return tq_rand_next(&r->s);
}

/* Uniform in [0, n); n > 0. */
static inline uint32_t below(struct rng *r, uint32_t n)
{
	return (uint32_t)(((rnd64(r) >> 32) * n) >> 32);
}

static inline bool chance(struct rng *r, unsigned int percent)
{
	return below(r, 100) < percent;
}

/* ---- a worker (or child): its contexts, and its results in shared memory ---- */

struct result {
	uint64_t seed;
	uint64_t ops;
	uint64_t step;		/* of the failure */
	uint64_t tasks;		/* descriptors the kernel took, in checked contexts */
	uint64_t exempt;	/* contexts left unchecked on purpose */
	uint64_t dofork_seen;	/* children that saw a ring or arena after MADV_DOFORK */
	uint64_t children;
	uint64_t nop_refused;	/* NOPs of contexts usched does not serve */
	uint64_t op_ns[NR_OPS];	/* time spent in each operation */
	int failed;
	char msg[400];
};

struct map {
	void *p;
	size_t len;
};

struct ctx {
	int fd;			/* -1: slot free */
	int rings_fd, arena_fd;	/* the socket's memfds, from SETUP's reply; else -1 */
	bool is_ctx;		/* SETUP succeeded */
	unsigned int gen;	/* bumps at each reuse of the slot */
	struct tq_setup s;
	struct map sq, cq, arena;	/* the mappings the ring operations use */
	struct map extra;	/* one more mapping made by the mmap operation */
	bool extra_ring;	/* the socket's: extra maps the rings memfd */
	uint32_t tail;		/* descriptors written with their tag */
	uint32_t published;	/* the producer value we last published */
	uint32_t cq_head;
	uint32_t taken;		/* highest SQ consumer seen */
	uint8_t *count;		/* completions per SQ index */
	uint8_t *expect;	/* enum exp per SQ index */
	uint32_t cap;
	uint32_t prog, kern;	/* the VA built-in, once registered */
	uint32_t prog_idx, kern_idx;	/* SQ index of the PROGRAM/KERNEL asking for them */
	bool prog_asked, kern_asked;
	bool exempt;		/* indices corrupted or completions skipped on purpose */
	bool hostile_index;	/* an index was written out of the rules */
	bool broken;		/* the kernel said so (EBADFD, EPOLLERR) */
	bool dofork;		/* MADV_DOFORK on one of its mappings */
	int efd;
};

struct proc {
	struct rng r;
	unsigned int idx;	/* worker index */
	bool child;
	uint64_t step;
	struct result *res;
	struct ctx ctx[MAX_CTX];
	pid_t children[MAX_CHILDREN];
	unsigned int nchildren;
	uint64_t child_no;
	bool scribble;		/* a child: it writes its parent's SQ producers (socket) */
	const struct tqk_task *va;
	struct tqk_launch va_l;
};

static inline __attribute__((format(printf, 2, 3), noreturn)) void fail(struct proc *p,
									 const char *fmt, ...)
{
	struct result *res = p->res;
	va_list ap;
	int n;

	n = snprintf(res->msg, sizeof(res->msg), "%s %u seed 0x%016" PRIx64 " step %" PRIu64 ": ",
		     p->child ? "child of worker" : "worker", p->idx, res->seed, p->step);
	va_start(ap, fmt);
	vsnprintf(res->msg + n, sizeof(res->msg) - n, fmt, ap);
	va_end(ap);
	res->step = p->step;
	res->failed = 1;
	fprintf(stderr, "tq_fuzz: FAIL %s\n", res->msg);
	/* Its children would outlive it, some holding their contexts for ever (pause()). */
	for (unsigned int k = 0; k < p->nchildren; k++)
		kill(p->children[k], SIGKILL);
	_exit(1);
}

#define ERRS(...) ((const int[]){ __VA_ARGS__, 0 })

/* ---- mappings ---- */

extern bool sock;	/* tqsubmitd's client socket, else the module's device */

/* errno is one of the list (0-terminated); 0 passes for success. */
static inline bool errno_in(int err, const int *ok)
{
	for (; *ok; ok++)
		if (err == *ok)
			return true;
	return false;
}

static inline void unmap(struct map *m)
{
	if (m->p)
		munmap(m->p, m->len);
	m->p = NULL;
	m->len = 0;
}

/* What a region maps from: the context's fd, or on the socket the rings' or arena's memfd. */
static inline int region_fd(const struct ctx *c, bool arena)
{
	return !sock ? c->fd : arena ? c->arena_fd : c->rings_fd;
}

static inline uint32_t *sq_word(struct ctx *c, uint32_t off)
{
	return (uint32_t *)((char *)c->sq.p + off);
}

static inline uint32_t *cq_word(struct ctx *c, uint32_t off)
{
	return (uint32_t *)((char *)c->cq.p + off);
}

/* ---- the transport (tq_fuzz_sock.c) ---- */

int sock_call(struct proc *p, int fd, uint32_t cmd, void *arg, size_t buflen, bool bad,
	      const int *fds, unsigned int nfds, int *rfds, unsigned int *nrfds);
int sock_doorbell(int fd, const void *arg, size_t len);
void sock_ring(struct proc *p, int fd, const void *arg, size_t len);
int stray_fd(struct proc *p, int conn, int *tmp);
void sock_raw(struct proc *p, int fd);
void sock_mmap(struct proc *p, struct ctx *c, bool arena, uint64_t off, uint64_t len, int prot,
	       int flags);
void sock_hangup(struct proc *p, struct ctx *c);

#endif /* TQ_FUZZ_H */
