// SPDX-License-Identifier: GPL-2.0
/*
 * tqsubmit_started - what happens to a task whose scheduler goes away:
 * TQ_COMPL_F_STARTED marks (and their errors), TQ_DESC_F_IDEMPOTENT, and
 * requeue across a scheduler's close and kill: a marked TASK without the
 * flag completes with -EOWNERDEAD and is never delivered again; every
 * other task is requeued; every task completes exactly once and the
 * counters balance. Runs as root in the test VM.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "tq_util.h"

enum kind { K_NOP, K_TASK, K_IDEM, K_IDEM_LOCAL, K_PROGRAM, K_KERNEL, NR_KINDS };

static const char *const kind_names[] = { "NOP", "TASK", "TASK|IDEMPOTENT",
	"TASK|IDEMPOTENT|LOCAL", "PROGRAM", "KERNEL" };

static void make(struct tq_desc *d, enum kind k, uint64_t user_data)
{
	if (k == K_NOP) {
		raw_nop(d, user_data);
		return;
	}
	raw_task(d, user_data);
	switch (k) {
	case K_IDEM_LOCAL:
		d->flags = TQ_DESC_F_LOCAL;
		d->local[0] = 16;
		/* fall through */
	case K_IDEM:
		d->flags |= TQ_DESC_F_IDEMPOTENT;
		break;
	case K_PROGRAM:
	case K_KERNEL:
		memset(d, 0, sizeof(*d));
		d->opcode = k == K_PROGRAM ? TQ_OP_PROGRAM : TQ_OP_KERNEL;
		d->flags = k == K_PROGRAM ? TQ_DESC_F_BUILTIN : 0;
		d->program = k == K_KERNEL ? 1 : 0;
		d->user_data = user_data;
		d->nr_bufs = 1;
		d->bufs[0] = (struct tq_buf){ .offset = 0, .len = 8, .dir = TQ_DIR_IN };
		break;
	default:
		break;
	}
}

/* Whether the kernel gives up on this kind when it was marked started. */
static bool abandoned_kind(enum kind k)
{
	return k == K_TASK;
}

static const char *const counters[] = {
	"submitted", "completed", "failed", "rejected", "dropped", "requeued", "abandoned",
	"in_flight",
};

enum { SUBMITTED, COMPLETED, FAILED, REJECTED, DROPPED, REQUEUED, ABANDONED, IN_FLIGHT,
	NR_COUNTERS };

struct snap {
	long long v[NR_COUNTERS];
};

static void snap(struct snap *s)
{
	int i;

	for (i = 0; i < NR_COUNTERS; i++)
		s->v[i] = raw_stat(counters[i]);
}

static long long delta(const struct snap *base, int which)
{
	return raw_stat(counters[which]) - base->v[which];
}

/* Wait up to @ms for the scheduler to be gone (an io_uring may hold it). */
static bool no_scheduler(int ms)
{
	while (raw_stat("scheduler_pid") && ms > 0) {
		usleep(10000);
		ms -= 10;
	}
	return !raw_stat("scheduler_pid");
}

FIXTURE(st) {
	struct raw_client c;
	int sfd;
	struct tq_event ev[64];
	struct tq_cqe cqe[64];
};

FIXTURE_SETUP(st)
{
	self->sfd = -1;
	ASSERT_TRUE(no_scheduler(5000));
	ASSERT_EQ(0, raw_client_open(&self->c, 32, 0, 1 << 16, -1));
}

FIXTURE_TEARDOWN(st)
{
	raw_client_close(&self->c);
	if (self->sfd >= 0)
		close(self->sfd);
}

TEST_F(st, feature_bits)
{
	struct tq_query q = { .size = sizeof(q) };
	struct tq_attach a = { .size = sizeof(a) };
	int fd;

	EXPECT_NE(0, self->c.s.features & TQ_FEAT_IDEMPOTENT);
	ASSERT_EQ(0, ioctl(self->c.fd, TQ_IOC_QUERY, &q));
	EXPECT_NE(0, q.features & TQ_FEAT_IDEMPOTENT);
	fd = open(TQ_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, TQ_IOC_ATTACH, &a));
	EXPECT_NE(0, a.features & TQ_FEAT_IDEMPOTENT);
	close(fd);
}

/* TQ_DESC_F_IDEMPOTENT is a TASK's flag: EINVAL on every other opcode. */
TEST_F(st, idempotent_flag_per_opcode)
{
	static const uint8_t ops[] = { TQ_OP_NOP, TQ_OP_TASK, TQ_OP_PROGRAM, TQ_OP_KERNEL };
	static const enum kind kinds[] = { K_NOP, K_TASK, K_PROGRAM, K_KERNEL };
	struct tq_desc d[4];
	int i, n, got = 0;

	for (i = 0; i < 4; i++) {
		make(&d[i], kinds[i], ops[i]);
		d[i].flags |= TQ_DESC_F_IDEMPOTENT;
	}
	ASSERT_EQ(4, raw_client_submit(&self->c, d, 4));
	self->sfd = raw_sched_open(O_NONBLOCK);
	ASSERT_LE(0, self->sfd);
	n = raw_sched_collect(self->sfd, self->ev, 64, 1, 5000);
	for (i = 0; i < n; i++) {
		if (self->ev[i].type != TQ_EV_TASK)
			continue;
		EXPECT_EQ(TQ_OP_TASK, self->ev[i].task.opcode);
		EXPECT_EQ(TQ_DESC_F_IDEMPOTENT, self->ev[i].task.flags);
		EXPECT_EQ(0, raw_sched_complete(self->sfd, &self->ev[i], 0, 0));
	}
	while (got < 4) {
		n = raw_client_wait(&self->c, self->cqe + got, 64 - got, 5000);
		ASSERT_LT(0, n);
		got += n;
	}
	for (i = 0; i < 4; i++) {
		uint64_t op = self->cqe[i].user_data;

		EXPECT_EQ(op == TQ_OP_TASK ? 0 : -EINVAL, self->cqe[i].status)
			TH_LOG("opcode %llu", (unsigned long long)op);
	}
}

/*
 * The scheduler closes holding one task of each kind, marked or not: only
 * the marked TASK without the flag completes, with -EOWNERDEAD; the rest
 * come back, flagged requeued, to the next scheduler.
 */
TEST_F(st, close_with_marked_and_unmarked)
{
	struct tq_desc d[2 * NR_KINDS];
	struct snap base;
	int i, n, tasks = 0, seen[2 * NR_KINDS] = { 0 };
	char path[64], info[2048];
	uint64_t t0 = tq_now_ns();
	ssize_t len;
	int fd;

	/* user_data: kind, +NR_KINDS for the marked copy. */
	for (i = 0; i < 2 * NR_KINDS; i++)
		make(&d[i], i % NR_KINDS, i);
	snap(&base);
	ASSERT_EQ(2 * NR_KINDS, raw_client_submit(&self->c, d, 2 * NR_KINDS));
	self->sfd = raw_sched_open(O_NONBLOCK);
	ASSERT_LE(0, self->sfd);
	n = raw_sched_collect(self->sfd, self->ev, 64, 2 * NR_KINDS, 5000);
	for (i = 0; i < n; i++) {
		if (self->ev[i].type != TQ_EV_TASK)
			continue;
		tasks++;
		EXPECT_EQ(0, self->ev[i].flags);
		if (self->ev[i].task.user_data >= NR_KINDS)
			EXPECT_EQ(0, raw_sched_mark(self->sfd, &self->ev[i]));
	}
	ASSERT_EQ(2 * NR_KINDS, tasks);
	/* Marks complete nothing. */
	EXPECT_EQ(0, raw_client_reap(&self->c, self->cqe, 64));
	EXPECT_EQ(2 * NR_KINDS, delta(&base, IN_FLIGHT));
	close(self->sfd);
	self->sfd = -1;

	ASSERT_EQ(1, raw_client_wait(&self->c, self->cqe, 64, 5000));
	EXPECT_EQ(NR_KINDS + K_TASK, self->cqe[0].user_data);
	EXPECT_EQ(-EOWNERDEAD, self->cqe[0].status);
	EXPECT_EQ(0, self->cqe[0].flags);	/* one scheduler held it */
	EXPECT_LE(t0, self->cqe[0].queued_ns);
	EXPECT_LE(self->cqe[0].queued_ns, self->cqe[0].start_ns);	/* the mark's time */
	EXPECT_LE(self->cqe[0].start_ns, self->cqe[0].end_ns);
	EXPECT_EQ(0, self->cqe[0].result);
	EXPECT_EQ(1, delta(&base, ABANDONED));
	EXPECT_EQ(1, delta(&base, FAILED));
	EXPECT_EQ(2 * NR_KINDS - 1, delta(&base, REQUEUED));
	EXPECT_EQ(2 * NR_KINDS - 1, delta(&base, IN_FLIGHT));

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", self->c.fd);
	fd = open(path, O_RDONLY);
	ASSERT_LE(0, fd);
	len = read(fd, info, sizeof(info) - 1);
	close(fd);
	ASSERT_LT(0, len);
	info[len] = 0;
	EXPECT_NE(NULL, strstr(info, "abandoned:\t1\n"));

	/* The next scheduler gets the others, and completes them. */
	self->sfd = raw_sched_open(O_NONBLOCK);
	ASSERT_LE(0, self->sfd);
	n = raw_sched_collect(self->sfd, self->ev, 64, 2 * NR_KINDS - 1, 5000);
	tasks = 0;
	for (i = 0; i < n; i++) {
		if (self->ev[i].type != TQ_EV_TASK)
			continue;
		tasks++;
		EXPECT_EQ(TQ_EV_F_REQUEUED, self->ev[i].flags);
		EXPECT_NE(NR_KINDS + K_TASK, self->ev[i].task.user_data);
		EXPECT_EQ(0, raw_sched_complete(self->sfd, &self->ev[i], 0, 0));
	}
	EXPECT_EQ(2 * NR_KINDS - 1, tasks);
	for (tasks = 0; tasks < 2 * NR_KINDS - 1; tasks += n) {
		n = raw_client_wait(&self->c, self->cqe + tasks, 64 - tasks, 5000);
		ASSERT_LT(0, n);
	}
	for (i = 0; i < tasks; i++) {
		uint64_t k = self->cqe[i].user_data;

		ASSERT_GT(2 * NR_KINDS, k);
		seen[k]++;
		EXPECT_EQ(0, self->cqe[i].status) TH_LOG("%s", kind_names[k % NR_KINDS]);
		EXPECT_EQ(TQ_CQE_F_REQUEUED, self->cqe[i].flags);
	}
	for (i = 0; i < 2 * NR_KINDS; i++)
		EXPECT_EQ(i == NR_KINDS + K_TASK ? 0 : 1, seen[i]);
	EXPECT_EQ(0, delta(&base, IN_FLIGHT));
	EXPECT_EQ(delta(&base, SUBMITTED), delta(&base, COMPLETED) + delta(&base, FAILED));
}

/* A mark lasts one delivery: the next scheduler decides afresh. */
TEST_F(st, mark_lasts_one_delivery)
{
	struct tq_desc d[2];
	int n, i;

	make(&d[0], K_IDEM, 1);
	make(&d[1], K_TASK, 2);
	ASSERT_EQ(2, raw_client_submit(&self->c, d, 2));

	/* 1: marks the idempotent one and leaves: it is requeued. */
	self->sfd = raw_sched_open(O_NONBLOCK);
	ASSERT_LE(0, self->sfd);
	n = raw_sched_collect(self->sfd, self->ev, 64, 2, 5000);
	for (i = 0; i < n; i++)
		if (self->ev[i].type == TQ_EV_TASK && self->ev[i].task.user_data == 1)
			EXPECT_EQ(0, raw_sched_mark(self->sfd, &self->ev[i]));
	close(self->sfd);
	EXPECT_EQ(0, raw_client_reap(&self->c, self->cqe, 64));

	/* 2: marks the other, the one that must not rerun, and leaves. */
	self->sfd = raw_sched_open(O_NONBLOCK);
	ASSERT_LE(0, self->sfd);
	n = raw_sched_collect(self->sfd, self->ev, 64, 2, 5000);
	for (i = 0; i < n; i++)
		if (self->ev[i].type == TQ_EV_TASK && self->ev[i].task.user_data == 2)
			EXPECT_EQ(0, raw_sched_mark(self->sfd, &self->ev[i]));
	close(self->sfd);
	ASSERT_EQ(1, raw_client_wait(&self->c, self->cqe, 64, 5000));
	EXPECT_EQ(2, self->cqe[0].user_data);
	EXPECT_EQ(-EOWNERDEAD, self->cqe[0].status);
	EXPECT_EQ(TQ_CQE_F_REQUEUED, self->cqe[0].flags);	/* two schedulers held it */

	/* 3: the idempotent one again, unmarked now; it completes. */
	self->sfd = raw_sched_open(O_NONBLOCK);
	ASSERT_LE(0, self->sfd);
	n = raw_sched_collect(self->sfd, self->ev, 64, 1, 5000);
	ASSERT_EQ(2, n);
	EXPECT_EQ(1, self->ev[1].task.user_data);
	EXPECT_EQ(TQ_EV_F_REQUEUED, self->ev[1].flags);
	EXPECT_EQ(0, raw_sched_complete(self->sfd, &self->ev[1], 0, 0));
	ASSERT_EQ(1, raw_client_wait(&self->c, self->cqe, 64, 5000));
	EXPECT_EQ(1, self->cqe[0].user_data);
	EXPECT_EQ(0, self->cqe[0].status);
}

/* A marked task that completes keeps its scheduler's status and times. */
TEST_F(st, marked_then_completed)
{
	struct tq_completion c;
	struct tq_desc d;
	struct snap base;
	int n;

	make(&d, K_TASK, 5);
	snap(&base);
	ASSERT_EQ(1, raw_client_submit(&self->c, &d, 1));
	self->sfd = raw_sched_open(O_NONBLOCK);
	ASSERT_LE(0, self->sfd);
	n = raw_sched_collect(self->sfd, self->ev, 64, 1, 5000);
	ASSERT_EQ(2, n);
	EXPECT_EQ(0, raw_sched_mark(self->sfd, &self->ev[1]));
	c = (struct tq_completion){ .ctx_id = self->ev[1].ctx_id, .tag = self->ev[1].tag,
				    .status = -EIO, .start_ns = 10, .end_ns = 20 };
	ASSERT_EQ(sizeof(c), write(self->sfd, &c, sizeof(c)));
	close(self->sfd);
	self->sfd = -1;
	ASSERT_EQ(1, raw_client_wait(&self->c, self->cqe, 64, 5000));
	EXPECT_EQ(-EIO, self->cqe[0].status);
	EXPECT_EQ(10, self->cqe[0].start_ns);
	EXPECT_EQ(20, self->cqe[0].end_ns);
	EXPECT_EQ(0, raw_client_wait(&self->c, self->cqe, 64, 100));
	EXPECT_EQ(0, delta(&base, ABANDONED));
	EXPECT_EQ(0, delta(&base, REQUEUED));
	EXPECT_EQ(1, delta(&base, FAILED));
}

/* STARTED records: well-formed or EINVAL, naming an outstanding task or ENOENT. */
TEST_F(st, started_record_errors)
{
	struct tq_completion good, c[2];
	struct tq_desc d[2];
	struct snap base;
	int n;

	make(&d[0], K_TASK, 1);
	make(&d[1], K_NOP, 2);
	ASSERT_EQ(2, raw_client_submit(&self->c, d, 2));
	self->sfd = raw_sched_open(O_NONBLOCK);
	ASSERT_LE(0, self->sfd);
	n = raw_sched_collect(self->sfd, self->ev, 64, 2, 5000);
	ASSERT_EQ(3, n);
	good = (struct tq_completion){ .ctx_id = self->ev[1].ctx_id, .tag = self->ev[1].tag,
				       .flags = TQ_COMPL_F_STARTED };
	snap(&base);

#define BAD(field, value, err) do {						\
		c[0] = good;							\
		c[0].field = value;						\
		EXPECT_EQ(-1, write(self->sfd, c, sizeof(c[0])))		\
			TH_LOG("%s = %s", #field, #value);			\
		EXPECT_EQ(err, errno) TH_LOG("%s = %s", #field, #value);	\
	} while (0)
	BAD(ctx_id, 0, ENOENT);
	BAD(ctx_id, 0x3fffff, ENOENT);
	BAD(tag, good.tag | 0xffff, ENOENT);		/* no such slot */
	BAD(tag, good.tag ^ (1ull << 32), ENOENT);	/* another delivery */
	BAD(status, -EIO, EINVAL);
	BAD(status, 1, EINVAL);
	BAD(result, 1, EINVAL);
	BAD(start_ns, 1, EINVAL);
	BAD(end_ns, 1, EINVAL);
	BAD(resv, 1, EINVAL);
	BAD(flags, TQ_COMPL_F_STARTED | TQ_COMPL_F_RELEASE, EINVAL);
	BAD(flags, TQ_COMPL_F_STARTED | (1u << 2), EINVAL);
	/* A malformed record names an unknown context: its form is judged first. */
	c[0] = good;
	c[0].ctx_id = 0;
	c[0].result = 1;
	EXPECT_EQ(-1, write(self->sfd, c, sizeof(c[0])));
	EXPECT_EQ(EINVAL, errno);
#undef BAD

	/* Twice is fine: the task is marked. A good record then a bad one: one taken. */
	EXPECT_EQ(sizeof(good), write(self->sfd, &good, sizeof(good)));
	c[0] = good;
	c[1] = good;
	c[1].status = -1;
	EXPECT_EQ(sizeof(c[0]), write(self->sfd, c, sizeof(c)));
	/* The NOP may be marked too; it is requeued whatever happens. */
	c[0] = good;
	c[0].tag = self->ev[2].tag;
	EXPECT_EQ(sizeof(c[0]), write(self->sfd, c, sizeof(c[0])));
	/* Marks completed nothing and moved no counter. */
	EXPECT_EQ(0, raw_client_reap(&self->c, self->cqe, 64));
	EXPECT_EQ(0, delta(&base, COMPLETED));
	EXPECT_EQ(0, delta(&base, FAILED));
	EXPECT_EQ(0, delta(&base, IN_FLIGHT));

	/* After its completion, a tag is unknown. */
	EXPECT_EQ(0, raw_sched_complete(self->sfd, &self->ev[1], 0, 0));
	EXPECT_EQ(-ENOENT, raw_sched_mark(self->sfd, &self->ev[1]));
	EXPECT_EQ(0, raw_sched_complete(self->sfd, &self->ev[2], 0, 0));
	EXPECT_EQ(-ENOENT, raw_sched_mark(self->sfd, &self->ev[2]));
	ASSERT_EQ(2, raw_client_wait(&self->c, self->cqe, 64, 5000));
	EXPECT_EQ(0, self->cqe[0].status);
	EXPECT_EQ(0, self->cqe[1].status);
}

/* A context closed while its marked task is held: the task is only dropped. */
TEST(marked_task_of_closed_context)
{
	struct raw_client c;
	struct tq_event ev[8];
	struct tq_desc d;
	long long dropped = raw_stat("dropped"), abandoned = raw_stat("abandoned");
	int sfd, n;

	ASSERT_TRUE(no_scheduler(5000));
	ASSERT_EQ(0, raw_client_open(&c, 8, 0, 4096, -1));
	make(&d, K_TASK, 1);
	ASSERT_EQ(1, raw_client_submit(&c, &d, 1));
	sfd = raw_sched_open(O_NONBLOCK);
	ASSERT_LE(0, sfd);
	n = raw_sched_collect(sfd, ev, 8, 1, 5000);
	ASSERT_EQ(2, n);
	EXPECT_EQ(0, raw_sched_mark(sfd, &ev[1]));
	raw_client_close(&c);
	/* Closed, not yet released: its tasks may still be marked. */
	EXPECT_EQ(0, raw_sched_mark(sfd, &ev[1]));
	close(sfd);
	EXPECT_EQ(dropped + 1, raw_stat("dropped"));
	EXPECT_EQ(abandoned, raw_stat("abandoned"));
	EXPECT_EQ(0, raw_stat("contexts"));
}

/*
 * A scheduler killed with SIGKILL holding marked tasks of every kind: the
 * marked plain TASKs complete with -EOWNERDEAD, the rest reach the next
 * scheduler; each task completes exactly once.
 */
#define PER_KIND	4

TEST_F(st, killed_scheduler)
{
	struct tq_desc d[PER_KIND * NR_KINDS];
	int total = PER_KIND * NR_KINDS, i, n, got = 0, p[2], status, dead = 0;
	int seen[PER_KIND * NR_KINDS] = { 0 };
	struct snap base;
	pid_t pid;
	char ch;

	for (i = 0; i < total; i++)
		make(&d[i], i % NR_KINDS, i);
	snap(&base);
	ASSERT_EQ(total, raw_client_submit(&self->c, d, total));
	ASSERT_EQ(0, pipe(p));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct tq_event ev[64];
		int fd = raw_sched_open(O_NONBLOCK), k, m;

		if (fd < 0)
			_exit(1);
		m = raw_sched_collect(fd, ev, 64, total, 5000);
		for (k = 0; k < m; k++)
			if (ev[k].type == TQ_EV_TASK && raw_sched_mark(fd, &ev[k]))
				_exit(2);
		if (write(p[1], "m", 1) != 1)
			_exit(3);
		pause();
		_exit(4);
	}
	close(p[1]);
	ASSERT_EQ(1, read(p[0], &ch, 1));
	close(p[0]);
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSIGNALED(status));
	ASSERT_TRUE(no_scheduler(5000));
	EXPECT_EQ(PER_KIND, delta(&base, ABANDONED));
	EXPECT_EQ(total - PER_KIND, delta(&base, REQUEUED));

	self->sfd = raw_sched_open(O_NONBLOCK);
	ASSERT_LE(0, self->sfd);
	n = raw_sched_collect(self->sfd, self->ev, 64, total - PER_KIND, 5000);
	for (i = 0; i < n; i++) {
		if (self->ev[i].type != TQ_EV_TASK)
			continue;
		EXPECT_FALSE(abandoned_kind(self->ev[i].task.user_data % NR_KINDS));
		EXPECT_EQ(0, raw_sched_complete(self->sfd, &self->ev[i], 0, 0));
	}
	while (got < total) {
		n = raw_client_wait(&self->c, self->cqe, 64, 5000);
		ASSERT_LT(0, n);
		for (i = 0; i < n; i++) {
			uint64_t u = self->cqe[i].user_data;
			bool gone = abandoned_kind(u % NR_KINDS);

			ASSERT_GT(total, u);
			seen[u]++;
			EXPECT_EQ(gone ? -EOWNERDEAD : 0, self->cqe[i].status);
			dead += self->cqe[i].status == -EOWNERDEAD;
		}
		got += n;
	}
	for (i = 0; i < total; i++)
		EXPECT_EQ(1, seen[i]);
	EXPECT_EQ(PER_KIND, dead);
	EXPECT_EQ(0, raw_client_wait(&self->c, self->cqe, 64, 100));
	EXPECT_EQ(0, delta(&base, IN_FLIGHT));
	EXPECT_EQ(delta(&base, SUBMITTED), delta(&base, COMPLETED) + delta(&base, FAILED));
}

/*
 * tq_echod -s marks each batch before completing it, and -n makes it exit
 * mid-batch: what it marked and left is abandoned or requeued by kind, and
 * a second tq_echod finishes the job. Exactly once, counters balanced.
 */
TEST_F(st, echod_marks_and_exits_midbatch)
{
	struct tq_desc d[32];
	int i, n, got = 0, status, dead = 0, seen[32] = { 0 };
	struct snap base;
	pid_t pid;

	if (access(TQ_ECHOD, X_OK))
		SKIP(return, "%s is not built", TQ_ECHOD);
	for (i = 0; i < 32; i++)
		make(&d[i], i % NR_KINDS, i);
	snap(&base);
	ASSERT_EQ(32, raw_client_submit(&self->c, d, 32));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		execl(TQ_ECHOD, "tq_echod", "-q", "-s", "-n", "5", (char *)NULL);
		_exit(127);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, WEXITSTATUS(status));
	ASSERT_TRUE(no_scheduler(5000));
	EXPECT_LT(0, delta(&base, ABANDONED));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		execl(TQ_ECHOD, "tq_echod", "-q", (char *)NULL);
		_exit(127);
	}
	while (got < 32) {
		n = raw_client_wait(&self->c, self->cqe, 64, 10000);
		ASSERT_LT(0, n);
		for (i = 0; i < n; i++) {
			uint64_t u = self->cqe[i].user_data;

			ASSERT_GT(32, u);
			seen[u]++;
			if (self->cqe[i].status == -EOWNERDEAD) {
				EXPECT_TRUE(abandoned_kind(u % NR_KINDS));
				dead++;
			} else {
				EXPECT_EQ(0, self->cqe[i].status);
			}
		}
		got += n;
	}
	kill(pid, SIGTERM);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	for (i = 0; i < 32; i++)
		EXPECT_EQ(1, seen[i]);
	EXPECT_EQ(dead, delta(&base, ABANDONED));
	EXPECT_TRUE(no_scheduler(5000));
	EXPECT_EQ(0, delta(&base, IN_FLIGHT));
	EXPECT_EQ(delta(&base, SUBMITTED), delta(&base, COMPLETED) + delta(&base, FAILED));
}

TEST_HARNESS_MAIN
