// SPDX-License-Identifier: GPL-2.0
/*
 * A client that forks. The defined behaviour (tq.h, libtq(7)): the child
 * does not have the parent's context. The kernel does not copy its mappings;
 * libtq's calls on it in the child fail with -EPERM (tq_get_desc gives
 * NULL); tq_close in the child frees the child's copy without unmapping
 * (the range may hold something else by then) and without disturbing the
 * parent; the child may open a context of its own. The parent's context
 * works before, during and after the child. On the socket (tqsubmitd) libtq
 * keeps its mappings out of the child (MADV_DONTFORK) and the same holds,
 * but the inherited connection is a socket: it maps nothing, and a
 * doorbell message on it cannot be told from the parent's (skipped).
 */
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "selftests/tap.h"
#include "libtq_util.h"

/* The child's checks, in order; it reports one byte per check. */
static const char *const child_checks[] = {
	"child: the arena is not mapped",
	"child: the SQ is not mapped",
	"child: tq_get_desc gives NULL",
	"child: tq_submit is EPERM",
	"child: tq_peek and tq_wait are EPERM",
	"child: tq_buf_alloc and tq_buf_free are EPERM",
	"child: tq_enter is EPERM",
	"child: the inherited fd refuses the doorbell (EPERM)",
	"child: the inherited fd refuses mmap (EPERM)",
	"child: tq_close leaves whatever is mapped at the old range",
	"child: a context of its own works",
};
#define NR_CHECKS	(sizeof(child_checks) / sizeof(child_checks[0]))

static int mapped(void *p)
{
	unsigned char v;

	return mincore((void *)((uintptr_t)p & ~4095UL), 4096, &v) == 0;
}

/* Submit @n NOPs and reap them; 0 if each came back once, in time. */
static int round_trip(struct tq *tq, unsigned int n, uint64_t base)
{
	struct tq_cqe *cqe;
	unsigned int i, got = 0;

	for (i = 0; i < n; i++) {
		struct tq_desc *d = tq_get_desc(tq);

		if (!d)
			return -1;
		tq_prep_nop(d);
		tq_desc_set_data(d, base + i);
	}
	if (tq_submit(tq) != (int)n)
		return -1;
	while (got < n) {
		if (tq_wait(tq, &cqe, 10000) || cqe->status || cqe->user_data - base >= n)
			return -1;
		tq_cqe_seen(tq, cqe);
		got++;
	}
	return 0;
}

static void child(struct tq *tq, int out)
{
	unsigned char r[NR_CHECKS] = { 0 };
	struct tq_enter e = { .size = sizeof(e) };
	void *arena = tq->arena, *buf, *p;
	size_t arena_bytes = tq->arena_bytes;
	struct tq_cqe *cqe;
	struct tq mine;
	uint64_t off;
	int k = 0;

	r[k++] = !mapped(tq->arena);
	r[k++] = !mapped(tq->sq.map);
	r[k++] = tq_get_desc(tq) == NULL;
	r[k++] = tq_submit(tq) == -EPERM;
	r[k++] = tq_peek(tq, &cqe) == -EPERM && tq_wait(tq, &cqe, 0) == -EPERM;
	r[k++] = tq_buf_alloc(tq, 64, &buf, &off) == -EPERM && tq_buf_free(tq, arena) == -EPERM;
	r[k++] = tq_enter(tq) == -EPERM;
	r[k++] = lt_socket() || (ioctl(tq->fd, TQ_IOC_ENTER, &e) == -1 && errno == EPERM);
	p = mmap(NULL, tq->sq.map_size, PROT_READ | PROT_WRITE, MAP_SHARED, tq->fd, 0);
	r[k++] = p == MAP_FAILED && (lt_socket() || errno == EPERM);

	/* Something else of the child's lives where the arena was. */
	p = mmap(arena, arena_bytes, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	tq_close(tq);
	r[k++] = p == arena && mapped(arena) && tq->fd == -1;

	r[k++] = !tq_open(&mine, 8, 4096, 0) && !round_trip(&mine, 8, 1000);
	tq_close(&mine);
	if (write(out, r, sizeof(r)) != sizeof(r))
		_exit(1);
	_exit(0);
}

int main(void)
{
	unsigned char r[NR_CHECKS];
	unsigned int i;
	int p[2], status;
	struct tq tq;
	pid_t echod, pid;

	lt_require_vm();
	echod = lt_echod_start(NULL, NULL);
	if (!tap_ok(echod > 0, "tq_echod attached"))
		return tap_done();
	if (!tap_ok(!tq_open(&tq, 16, 1 << 16, 0), "parent: tq_open"))
		return tap_done();
	tap_ok(!round_trip(&tq, 16, 0), "parent: 16 tasks before the fork");

	if (pipe(p))
		return 1;
	fflush(stdout);
	pid = fork();
	if (!pid) {
		close(p[0]);
		child(&tq, p[1]);
	}
	close(p[1]);
	/* While the child runs: the parent's context is unaffected. */
	tap_ok(!round_trip(&tq, 16, 100), "parent: 16 tasks while the child runs");
	if (read(p[0], r, sizeof(r)) != sizeof(r))
		memset(r, 0, sizeof(r));
	waitpid(pid, &status, 0);
	tap_ok(WIFEXITED(status) && !WEXITSTATUS(status), "child exited cleanly");
	for (i = 0; i < NR_CHECKS; i++) {
		if (lt_socket() && i == 7)
			tap_skip(child_checks[i], "on the socket one connection is shared and "
				 "tqsubmitd cannot tell the child's message; libtq refuses (above)");
		else
			tap_ok(r[i], "%s%s", child_checks[i],
			       lt_socket() && i == 8 ? " (a socket: not with EPERM)" : "");
	}

	tap_ok(!round_trip(&tq, 16, 200), "parent: 16 tasks after the child closed and exited");
	if (lt_socket())
		tap_skip("parent: fdinfo counts 48 completions", LT_NO_FDINFO);
	else
		tap_ok(lt_fdinfo(0, tq.fd, "completed") == 48,
		       "parent: fdinfo counts 48 completions");
	tq_close(&tq);
	lt_stat_ok(lt_stat_wait("contexts", 0, 5000) == 0, "contexts", "every context freed");
	tap_ok(WIFEXITED(lt_echod_stop(echod)), "tq_echod exits cleanly");
	return tap_done();
}
