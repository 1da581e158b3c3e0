// SPDX-License-Identifier: GPL-2.0
/*
 * libtq's ring code without the module: the inline fast paths of tq.h run
 * against rings in ordinary memory, laid out at offsets other than the
 * module's, with indices that wrap at 2^32, and a thread playing the kernel.
 * The registration helpers run against a thread playing kernel and
 * scheduler, over an arena in ordinary memory.
 */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include "selftests/tap.h"
#include "internal.h"

#define SQ_N	8
#define CQ_N	16

/* A layout unlike the module's, to show libtq follows the reported offsets. */
static struct tq_setup layout(unsigned int sq_n, unsigned int cq_n)
{
	struct tq_setup s = {
		.sq_entries = sq_n,
		.cq_entries = cq_n,
		.sq_off = { .producer = 8, .consumer = 72, .flags = 136, .entries = 512 },
		.cq_off = { .producer = 16, .consumer = 80, .flags = 144, .entries = 256 },
	};

	s.sq_off.mmap_size = 512 + sq_n * sizeof(struct tq_desc);
	s.cq_off.mmap_size = 256 + cq_n * sizeof(struct tq_cqe);
	return s;
}

/* Fresh fake rings whose indices all start at @start. */
static void fake_open(struct tq *tq, unsigned int sq_n, unsigned int cq_n, unsigned int start)
{
	struct tq_setup s = layout(sq_n, cq_n);
	char *sq = malloc(s.sq_off.mmap_size), *cq = malloc(s.cq_off.mmap_size);

	memset(sq, 0xa5, s.sq_off.mmap_size);
	memset(cq, 0xa5, s.cq_off.mmap_size);
	*(unsigned int *)(sq + s.sq_off.producer) = start;
	*(unsigned int *)(sq + s.sq_off.consumer) = start;
	*(unsigned int *)(sq + s.sq_off.flags) = 0;
	*(unsigned int *)(cq + s.cq_off.producer) = start;
	*(unsigned int *)(cq + s.cq_off.consumer) = start;
	*(unsigned int *)(cq + s.cq_off.flags) = 0;
	memset(tq, 0, sizeof(*tq));
	tq->fd = -1;
	tq->event_fd = -1;
	tq_rings_init(tq, &s, sq, cq);
}

static void fake_close(struct tq *tq)
{
	free(tq->sq.map);
	free(tq->cq.map);
}

/* The kernel's side: post a completion for @user_data. */
static void kpost(struct tq *tq, uint64_t user_data)
{
	unsigned int p = *tq->cq.kproducer;

	tq->cq.cqes[p & tq->cq.mask] = (struct tq_cqe){ .user_data = user_data };
	__atomic_store_n(tq->cq.kproducer, p + 1, __ATOMIC_RELEASE);
}

static void test_sq(void)
{
	const unsigned int start = 0xfffffffcU;	/* wraps after 4 */
	struct tq tq;
	struct tq_desc *d[SQ_N + 1];
	unsigned int i;
	int ok = 1, zero = 1;

	fake_open(&tq, SQ_N, CQ_N, start);
	for (i = 0; i < SQ_N; i++) {
		d[i] = tq_get_desc(&tq);
		ok &= d[i] == &tq.sq.descs[(start + i) & (SQ_N - 1)];
		if (d[i]) {
			zero &= d[i]->opcode == 0 && d[i]->user_data == 0 && d[i]->bufs[7].len == 0;
			tq_prep_nop(d[i]);
			tq_desc_set_data(d[i], i);
		}
	}
	tap_ok(ok, "%u slots in index order across the wrap", SQ_N);
	tap_ok(tq_sq_space(&tq) == 0, "tq_sq_space: none left");
	tap_ok(zero, "slots come zeroed");
	tap_ok(tq_get_desc(&tq) == NULL, "a full SQ gives NULL");
	tap_ok(*tq.sq.kproducer == start, "nothing published before tq_submit");
	tap_ok(tq_sq_ready(&tq) == SQ_N, "tq_sq_ready counts the unsubmitted");
	tap_ok(tq_submit(&tq) == SQ_N, "tq_submit publishes them all");
	tap_ok(*tq.sq.kproducer == start + SQ_N, "producer index wrapped to %u",
	       *tq.sq.kproducer);
	tap_ok(tq_submit(&tq) == 0, "a second tq_submit has nothing to do");
	tap_ok(tq_get_desc(&tq) == NULL, "still full while the kernel consumes nothing");

	/* The kernel takes three. */
	__atomic_store_n(tq.sq.kconsumer, start + 3, __ATOMIC_RELEASE);
	for (i = 0, ok = 1; i < 3; i++) {
		d[i] = tq_get_desc(&tq);
		ok &= d[i] && d[i] == &tq.sq.descs[(start + SQ_N + i) & (SQ_N - 1)];
		if (d[i])
			tq_prep_nop(d[i]);
	}
	tap_ok(ok && !tq_get_desc(&tq), "the three slots the kernel released, no more");
	__atomic_store_n(tq.sq.kconsumer, start + 5, __ATOMIC_RELEASE);
	tap_ok(tq_sq_space(&tq) == 2, "tq_sq_space sees the kernel's consumer move");
	__atomic_store_n(tq.sq.kconsumer, start + 3, __ATOMIC_RELEASE);
	tq_sq_space(&tq);

	/* The doorbell: fd -1 makes it visible as EBADF. */
	*tq.sq.kflags = TQ_RING_NEED_WAKEUP;
	tap_ok(tq_submit(&tq) == -EBADF, "need-wakeup rings the doorbell");
	tap_ok(*tq.sq.kproducer == start + SQ_N + 3, "published before ringing");
	d[0] = tq_get_desc(&tq);
	tap_ok(d[0] == NULL, "full again");
	__atomic_store_n(tq.sq.kconsumer, start + SQ_N + 3, __ATOMIC_RELEASE);
	d[0] = tq_get_desc(&tq);
	tq_prep_nop(d[0]);
	*tq.sq.kflags = 0;
	tap_ok(tq_submit(&tq) == 1, "no need-wakeup, no doorbell");
	d[0] = tq_get_desc(&tq);
	tq_prep_nop(d[0]);
	*tq.sq.kflags = TQ_RING_BROKEN;
	tap_ok(tq_submit(&tq) == -EBADFD, "a broken ring is EBADFD");
	fake_close(&tq);
}

static void test_cq(void)
{
	const unsigned int start = 0xfffffff0U;
	struct tq_cqe *cqe, *batch[CQ_N];
	struct tq tq;
	unsigned int i, n;
	int ok = 1;

	fake_open(&tq, SQ_N, CQ_N, start);
	tap_ok(tq_peek(&tq, &cqe) == -EAGAIN, "empty CQ: EAGAIN");
	tap_ok(tq_peek_batch(&tq, batch, CQ_N) == 0, "empty CQ: empty batch");
	for (i = 0; i < 10 * CQ_N; i++) {
		kpost(&tq, 1000 + i);
		ok &= !tq_peek(&tq, &cqe) && cqe->user_data == 1000 + i;
		tq_cqe_seen(&tq, cqe);
		ok &= *tq.cq.kconsumer == start + i + 1;
	}
	tap_ok(ok, "one at a time across the wrap, consumer published each time");
	for (i = 0; i < 5; i++)
		kpost(&tq, i);
	n = tq_peek_batch(&tq, batch, 3);
	tap_ok(n == 3 && batch[0]->user_data == 0 && batch[2]->user_data == 2,
	       "a batch is capped by max");
	tq_cq_advance(&tq, n);
	n = tq_peek_batch(&tq, batch, CQ_N);
	tap_ok(n == 2 && batch[0]->user_data == 3 && batch[1]->user_data == 4,
	       "the rest, in order");
	tq_cq_advance(&tq, n);
	tap_ok(tq_peek(&tq, &cqe) == -EAGAIN && *tq.cq.kconsumer == *tq.cq.kproducer,
	       "drained; consumer caught up with the producer");
	fake_close(&tq);
}

static void test_forked(void)
{
	struct tq_cqe *cqe;
	struct tq tq;

	fake_open(&tq, SQ_N, CQ_N, 0);
	kpost(&tq, 7);
	tq.flags |= TQ_F_FORKED;
	tap_ok(tq_get_desc(&tq) == NULL, "forked: tq_get_desc is NULL");
	tap_ok(tq_submit(&tq) == -EPERM, "forked: tq_submit is EPERM");
	tap_ok(tq_peek(&tq, &cqe) == -EPERM, "forked: tq_peek is EPERM");
	tap_ok(tq_enter(&tq) == -EPERM, "forked: tq_enter is EPERM");
	tap_ok(tq_wait(&tq, &cqe, 0) == -EPERM, "forked: tq_wait is EPERM");
	fake_close(&tq);
}

static void test_prep(void)
{
	size_t global[3] = { 1024, 8, 1 }, local[3] = { 64, 1, 1 };
	uint16_t h = 0xbeef;
	double x = 2.5;
	struct tq_desc d = { 0 };
	int i, ok = 1;

	tq_prep_task(&d, 3, 4, 2, global, local);
	tap_ok(d.opcode == TQ_OP_TASK && d.work_dim == 2 && d.program == 3 && d.kernel == 4 &&
	       d.global[0] == 1024 && d.global[1] == 8 && d.global[2] == 0 &&
	       d.local[1] == 1 && d.local[2] == 0 && d.flags == TQ_DESC_F_LOCAL,
	       "tq_prep_task fills dims below work_dim only");
	for (i = 0; i < TQ_MAX_BUFS; i++)
		ok &= !tq_prep_buf(&d, i, 4096 * i, 100, TQ_DIR_IN);
	tap_ok(ok && d.nr_bufs == TQ_MAX_BUFS, "%d buffers", TQ_MAX_BUFS);
	tap_ok(tq_prep_buf(&d, 9, 0, 1, TQ_DIR_OUT) == -E2BIG && d.nr_bufs == TQ_MAX_BUFS,
	       "one more is E2BIG and changes nothing");
	tap_ok(tq_prep_scalar(&d, 8, &x, 3) == -EINVAL, "a 3-byte scalar is EINVAL");
	tap_ok(!tq_prep_scalar(&d, 8, &h, 2) && d.scalars[0].size == 2 &&
	       !memcmp(&d.scalars[0].value, &h, 2) &&
	       !memchr(((char *)&d.scalars[0].value) + 2, 1, 6),
	       "a 2-byte scalar: its bytes first, zeros after");
	for (i = 1; i < TQ_MAX_SCALARS; i++)
		tq_prep_scalar(&d, 8 + i, &x, 8);
	tap_ok(tq_prep_scalar(&d, 20, &x, 8) == -E2BIG, "scalar %d is E2BIG", TQ_MAX_SCALARS + 1);

	memset(&d, 0, sizeof(d));
	tq_prep_task(&d, 1, 2, 1, global, NULL);
	tap_ok(!d.flags && !d.local[0], "no local size: no flag, zero local[]");
	tq_desc_set_idempotent(&d);
	tap_ok(d.flags == TQ_DESC_F_IDEMPOTENT, "tq_desc_set_idempotent sets its flag alone");
	tq_prep_task(&d, 1, 2, 2, global, local);
	tap_ok(d.flags == (TQ_DESC_F_IDEMPOTENT | TQ_DESC_F_LOCAL),
	       "and tq_prep_task keeps it");

	memset(&d, 0, sizeof(d));
	tq_prep_program(&d, 512, 100, 0, 0);
	tap_ok(d.opcode == TQ_OP_PROGRAM && d.nr_bufs == 1 && d.bufs[0].dir == TQ_DIR_IN &&
	       d.bufs[0].offset == 512 && d.bufs[0].len == 100, "program without options");
	memset(&d, 0, sizeof(d));
	tq_prep_program(&d, 512, 100, 1024, 7);
	tap_ok(d.nr_bufs == 2 && d.bufs[1].offset == 1024 && d.bufs[1].arg == 0,
	       "program with options");
	memset(&d, 0, sizeof(d));
	tq_prep_builtin(&d, 0, 2);
	tap_ok(d.opcode == TQ_OP_PROGRAM && d.flags == TQ_DESC_F_BUILTIN && d.nr_bufs == 1,
	       "built-in program");
	memset(&d, 0, sizeof(d));
	tq_prep_kernel(&d, 5, 0, 4);
	tap_ok(d.opcode == TQ_OP_KERNEL && d.program == 5 && d.nr_bufs == 1, "kernel lookup");
}

/* One client thread, one fake kernel thread, a tiny SQ: index math under load. */
#define FLOW_TASKS	400000

static void *fake_kernel(void *arg)
{
	struct tq *tq = arg;
	unsigned int sq_head = *tq->sq.kconsumer, done = 0;

	while (done < FLOW_TASKS) {
		unsigned int tail = __atomic_load_n(tq->sq.kproducer, __ATOMIC_ACQUIRE);
		unsigned int cq_used = *tq->cq.kproducer -
				       __atomic_load_n(tq->cq.kconsumer, __ATOMIC_ACQUIRE);

		/* Take only what the CQ has room for, as the module does. */
		while (sq_head != tail && cq_used < tq->cq.entries) {
			struct tq_desc *d = &tq->sq.descs[sq_head & tq->sq.mask];

			kpost(tq, d->opcode == TQ_OP_NOP ? d->user_data : ~0ULL);
			sq_head++;
			cq_used++;
			done++;
		}
		__atomic_store_n(tq->sq.kconsumer, sq_head, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void test_flow(void)
{
	struct tq_cqe *batch[CQ_N];
	uint64_t next_sub = 0, next_seen = 0;
	struct tq tq;
	pthread_t k;
	int order = 1;

	fake_open(&tq, 4, 8, 0xffff0000U);
	pthread_create(&k, NULL, fake_kernel, &tq);
	while (next_seen < FLOW_TASKS) {
		struct tq_desc *d;
		unsigned int i, n;

		while (next_sub < FLOW_TASKS && (d = tq_get_desc(&tq))) {
			tq_prep_nop(d);
			tq_desc_set_data(d, next_sub++);
		}
		tq_submit(&tq);
		n = tq_peek_batch(&tq, batch, CQ_N);
		for (i = 0; i < n; i++)
			order &= batch[i]->user_data == next_seen++;
		tq_cq_advance(&tq, n);
	}
	pthread_join(k, NULL);
	tap_ok(order, "%d tasks through a 4-entry SQ and 8-entry CQ, in order, once each",
	       FLOW_TASKS);
	fake_close(&tq);
}

/*
 * Registration with a build log: a thread answers each PROGRAM descriptor
 * as the scheduler does, writing its log over bufs[0], and signals the
 * eventfd as the kernel does.
 */
struct fake_sched {
	struct tq *tq;
	unsigned int n;		/* descriptors to answer */
	int status[4];
	const char *log[4];	/* written over bufs[0]; NULL: none */
	int no_nul[4];		/* fill the whole buffer, no NUL */
	uint32_t len[4];	/* out: each bufs[0].len seen */
};

static void *fake_sched(void *arg)
{
	struct fake_sched *f = arg;
	struct tq *tq = f->tq;
	unsigned int head = *tq->sq.kconsumer, i;

	for (i = 0; i < f->n; i++) {
		const struct tq_desc *d;
		struct tq_cqe *c;
		unsigned int p;
		char *dst;
		size_t n = 0;

		while (__atomic_load_n(tq->sq.kproducer, __ATOMIC_ACQUIRE) == head)
			usleep(100);
		d = &tq->sq.descs[head & tq->sq.mask];
		f->len[i] = d->bufs[0].len;
		dst = (char *)tq->arena + d->bufs[0].offset;
		if (f->no_nul[i]) {
			n = d->bufs[0].len;
			memset(dst, 'x', n);
		} else if (f->log[i]) {
			n = strnlen(f->log[i], d->bufs[0].len - 1);
			memcpy(dst, f->log[i], n);
			dst[n] = 0;
		}
		p = *tq->cq.kproducer;
		c = &tq->cq.cqes[p & tq->cq.mask];
		*c = (struct tq_cqe){ .user_data = d->user_data, .status = f->status[i],
				      .result = f->status[i] ? n : 7 };
		__atomic_store_n(tq->sq.kconsumer, ++head, __ATOMIC_RELEASE);
		__atomic_store_n(tq->cq.kproducer, p + 1, __ATOMIC_RELEASE);
		eventfd_write(tq->event_fd, 1);
	}
	return NULL;
}

static void test_register_log(void)
{
	static const char src[] = "__kernel void k(void) { nope; }";
	static const char msg[] = "1:25: error: use of undeclared identifier 'nope'";
	struct fake_sched f = {
		.n = 4,
		.status = { -ENOEXEC, -ENOEXEC, -ENOEXEC, 0 },
		.log = { msg, msg, NULL, msg },
		.no_nul = { 0, 0, 1, 0 },
	};
	const size_t arena_bytes = 64 << 10;
	char log[256], small[16];
	uint32_t prog = 0;
	struct tq_arena a;
	struct tq tq;
	pthread_t t;
	void *whole;
	int ret;

	fake_open(&tq, SQ_N, CQ_N, 0);
	tq.event_fd = eventfd(0, EFD_NONBLOCK);
	tq.arena = aligned_alloc(4096, arena_bytes);
	tq.arena_bytes = arena_bytes;
	tq.alloc = &a;
	tq_arena_init(&a, arena_bytes);
	f.tq = &tq;
	pthread_create(&t, NULL, fake_sched, &f);

	memset(log, '?', sizeof(log));
	ret = tq_register_program_log(&tq, src, sizeof(src) - 1, NULL, &prog, log, sizeof(log));
	tap_ok(ret == -ENOEXEC && !strcmp(log, msg), "a failed build: -ENOEXEC and the log (%d)",
	       ret);
	tap_ok(f.len[0] == sizeof(log), "the source went out NUL-padded to the log's size (%u)",
	       f.len[0]);
	ret = tq_register_program_log(&tq, src, sizeof(src) - 1, NULL, &prog, small,
				      sizeof(small));
	tap_ok(ret == -ENOEXEC && strlen(small) == sizeof(small) - 1 &&
	       !strncmp(small, msg, sizeof(small) - 1),
	       "a log longer than the caller's buffer is cut short, NUL-terminated");
	ret = tq_register_program_log(&tq, src, sizeof(src) - 1, NULL, &prog, log, sizeof(log));
	tap_ok(ret == -ENOEXEC && strlen(log) == sizeof(log) - 1,
	       "a log without its NUL stays within the caller's buffer");
	memset(log, '?', sizeof(log));
	ret = tq_register_program_log(&tq, src, sizeof(src) - 1, NULL, &prog, log, sizeof(log));
	tap_ok(ret == 0 && prog == 7 && log[0] == 0, "a build that works: the id, an empty log");
	pthread_join(t, NULL);

	f = (struct fake_sched){ .tq = &tq, .n = 1, .status = { -ENOEXEC }, .log = { msg } };
	pthread_create(&t, NULL, fake_sched, &f);
	ret = tq_register_program(&tq, src, sizeof(src) - 1, NULL, &prog);
	pthread_join(t, NULL);
	tap_ok(ret == -ENOEXEC && f.len[0] == sizeof(src) - 1,
	       "tq_register_program: the source as given, the error status");
	tap_ok(!tq_buf_alloc(&tq, arena_bytes, &whole, NULL),
	       "every registration gave its arena bytes back");
	tap_ok(tq_register_program_log(&tq, src, sizeof(src) - 1, NULL, &prog, log,
				       sizeof(log)) == -ENOMEM && log[0] == 0,
	       "no arena room: -ENOMEM, an empty log");
	tq_buf_free(&tq, whole);
	tq_arena_fini(&a);
	free(tq.arena);
	close(tq.event_fd);
	fake_close(&tq);
}

static void test_misc(void)
{
	struct tq tq;
	int ret;

	tap_ok(!strcmp(tq_strerror(-EBADFD), tq_strerror(EBADFD)) &&
	       strstr(tq_strerror(-EBADFD), "broke") != NULL, "tq_strerror takes -errno or errno");
	tap_ok(tq_strerror(-EXDEV) != NULL && tq_strerror(-100000) != NULL,
	       "tq_strerror always gives a string");
	tap_ok(tq_open(&tq, 8, 4096, 1U << 5) == -EINVAL && tq.fd == -1,
	       "unknown open flags: EINVAL");
	tap_ok(tq_open(&tq, 8, 4096, TQ_OPEN_PRIO(TQ_PRIO_MAX + 1)) == -EINVAL && tq.fd == -1,
	       "an unknown class at open: EINVAL");
	{
		struct tq_desc d = { .flags = TQ_DESC_F_LOCAL };

		tap_ok(!tq_desc_set_prio(&d, TQ_PRIO_HIGH) &&
		       d.flags == (TQ_DESC_F_LOCAL | TQ_DESC_PRIO(TQ_PRIO_HIGH)) &&
		       tq_desc_set_prio(&d, TQ_PRIO_MAX + 1) == -EINVAL &&
		       TQ_DESC_PRIO_OF(d.flags) == TQ_PRIO_HIGH &&
		       !tq_desc_set_prio(&d, TQ_PRIO_DEFAULT) && d.flags == TQ_DESC_F_LOCAL,
		       "tq_desc_set_prio: sets, refuses an unknown class, clears");
		tap_ok(!tq_desc_set_deadline(&d, 1) && TQ_DESC_DEADLINE_OF(d.flags) == 1 &&
		       !tq_desc_set_deadline(&d, 250) && TQ_DESC_DEADLINE_OF(d.flags) == 3 &&
		       !tq_desc_set_deadline(&d, 6553500) &&
		       TQ_DESC_DEADLINE_OF(d.flags) == TQ_DEADLINE_MAX &&
		       tq_desc_set_deadline(&d, 6553501) == -ERANGE &&
		       TQ_DESC_DEADLINE_OF(d.flags) == TQ_DEADLINE_MAX &&
		       !tq_desc_set_deadline(&d, 0) && d.flags == TQ_DESC_F_LOCAL,
		       "tq_desc_set_deadline: rounds up to 100 us, -ERANGE past 6.5535 s, clears");
		tap_ok(tq_prio_parse("critical") == TQ_PRIO_CRITICAL &&
		       tq_prio_parse("background") == TQ_PRIO_BACKGROUND &&
		       tq_prio_parse("") == TQ_PRIO_DEFAULT &&
		       tq_prio_parse("default") == TQ_PRIO_DEFAULT &&
		       tq_prio_parse("High") == -EINVAL, "tq_prio_parse: the names, and no other");
	}
	if (access(TQ_DEVICE_PATH, F_OK) == 0) {
		tap_skip("tq_open without the module", "%s exists here", TQ_DEVICE_PATH);
		return;
	}
	ret = tq_open(&tq, 8, 4096, 0);
	tap_ok(ret == -ENXIO && tq.fd == -1, "without the module tq_open is ENXIO (%d)", ret);
	tq_close(&tq);
}

int main(void)
{
	test_sq();
	test_cq();
	test_forked();
	test_prep();
	test_flow();
	test_register_log();
	test_misc();
	return tap_done();
}
