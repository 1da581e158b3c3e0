// SPDX-License-Identifier: GPL-2.0
/*
 * tqsubmit_enter - the doorbell's discipline: TQ_IOC_ENTER wakes the
 * scheduler only when it sleeps and could take a descriptor, once until
 * the scheduler has looked; every other ENTER is absorbed and counted
 * (enters, enters_absorbed). A client calling ENTER in a loop neither
 * wakes the scheduler nor slows other clients. Runs as root in the test VM.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "tq_util.h"

#define STORM	20000

/* Whether the scheduler fd polls readable now. */
static bool sched_ready(int sfd)
{
	struct pollfd p = { .fd = sfd, .events = POLLIN };

	return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

/* Read until the scheduler would sleep; returns the TASK events seen. */
static int go_idle(int sfd, struct tq_event *ev, int max)
{
	int n, tasks = 0, i;

	while ((n = raw_sched_read(sfd, ev, max, 0)) > 0)
		for (i = 0; i < n; i++)
			tasks += ev[i].type == TQ_EV_TASK;
	return tasks;
}

/* ENTERs that kicked (enters - enters_absorbed) since @base. */
struct bell {
	long long enters, absorbed;
};

static void bell_snap(struct bell *b)
{
	b->enters = raw_stat("enters");
	b->absorbed = raw_stat("enters_absorbed");
}

static long long bell_kicks(const struct bell *base)
{
	struct bell now;

	bell_snap(&now);
	return (now.enters - base->enters) - (now.absorbed - base->absorbed);
}

static int storm(int fd, int n)
{
	int i, err;

	for (i = 0; i < n; i++) {
		err = raw_enter(fd);
		if (err)
			return err;
	}
	return 0;
}

FIXTURE(bell) {
	struct raw_client c;
	int sfd;
	struct tq_event ev[64];
};

FIXTURE_SETUP(bell)
{
	self->sfd = -1;
	ASSERT_EQ(0, raw_client_open(&self->c, 8, 8, 4096, -1));
	ASSERT_EQ(0, raw_stat("scheduler_pid"));
}

FIXTURE_TEARDOWN(bell)
{
	raw_client_close(&self->c);
	if (self->sfd >= 0)
		close(self->sfd);
}

TEST_F(bell, counters_exist)
{
	EXPECT_LE(0, raw_stat("enters"));
	EXPECT_LE(0, raw_stat("enters_absorbed"));
	EXPECT_LE(raw_stat("enters_absorbed"), raw_stat("enters"));
}

/* No scheduler: descriptors wait, and the doorbell does nothing at all. */
TEST_F(bell, no_scheduler)
{
	struct tq_desc d;
	struct bell b;

	raw_nop(&d, 1);
	raw_client_publish(&self->c, &d, 1);
	EXPECT_NE(0, *self->c.sq_flags & TQ_RING_NEED_WAKEUP);
	bell_snap(&b);
	ASSERT_EQ(0, storm(self->c.fd, 1000));
	EXPECT_EQ(1000, raw_stat("enters") - b.enters);
	EXPECT_EQ(0, bell_kicks(&b));
}

/* An idle scheduler and an empty SQ: nothing to wake it for. */
TEST_F(bell, nothing_pending)
{
	struct bell b;

	self->sfd = raw_sched_open(O_NONBLOCK);
	ASSERT_LE(0, self->sfd);
	go_idle(self->sfd, self->ev, 64);
	ASSERT_NE(0, *self->c.sq_flags & TQ_RING_NEED_WAKEUP);
	ASSERT_FALSE(sched_ready(self->sfd));
	bell_snap(&b);
	ASSERT_EQ(0, storm(self->c.fd, STORM));
	EXPECT_EQ(0, bell_kicks(&b));
	EXPECT_FALSE(sched_ready(self->sfd));
}

/* One wake-up per batch, however often the client rings for it. */
TEST_F(bell, once_per_batch)
{
	struct tq_desc d;
	struct bell b;
	int round;

	self->sfd = raw_sched_open(O_NONBLOCK);
	ASSERT_LE(0, self->sfd);
	go_idle(self->sfd, self->ev, 64);
	for (round = 0; round < 3; round++) {
		raw_nop(&d, round);
		raw_client_publish(&self->c, &d, 1);
		ASSERT_FALSE(sched_ready(self->sfd));
		bell_snap(&b);
		ASSERT_EQ(0, storm(self->c.fd, 1000));
		EXPECT_EQ(1, bell_kicks(&b));
		EXPECT_TRUE(sched_ready(self->sfd));
		ASSERT_EQ(1, go_idle(self->sfd, self->ev, 64));
		EXPECT_EQ(round, self->ev[0].task.user_data);
		EXPECT_EQ(0, raw_sched_complete(self->sfd, &self->ev[0], 0, 0));
		/* Taken: ringing again is absorbed. */
		go_idle(self->sfd, self->ev, 64);
		bell_snap(&b);
		ASSERT_EQ(0, storm(self->c.fd, 100));
		EXPECT_EQ(0, bell_kicks(&b));
		EXPECT_FALSE(sched_ready(self->sfd));
		ASSERT_EQ(1, raw_client_reap(&self->c, (struct tq_cqe[1]){}, 1));
	}
}

/* A busy scheduler (the flag is clear) takes new work without a doorbell. */
TEST_F(bell, busy_scheduler)
{
	struct tq_desc d[2];
	struct bell b;
	int n;

	self->sfd = raw_sched_open(O_NONBLOCK);
	ASSERT_LE(0, self->sfd);
	raw_nop(&d[0], 1);
	raw_nop(&d[1], 2);
	raw_client_publish(&self->c, d, 1);
	ASSERT_EQ(2, raw_sched_read(self->sfd, self->ev, 64, 1000));	/* OPEN, task */
	EXPECT_EQ(0, *self->c.sq_flags & TQ_RING_NEED_WAKEUP);
	raw_client_publish(&self->c, d + 1, 1);
	bell_snap(&b);
	EXPECT_EQ(0, raw_enter(self->c.fd));
	EXPECT_EQ(0, bell_kicks(&b));
	n = raw_sched_read(self->sfd, self->ev + 2, 62, 1000);
	ASSERT_EQ(1, n);
	EXPECT_EQ(2, self->ev[2].task.user_data);
	EXPECT_EQ(0, raw_sched_complete(self->sfd, &self->ev[1], 0, 0));
	EXPECT_EQ(0, raw_sched_complete(self->sfd, &self->ev[2], 0, 0));
}

/*
 * A client whose CQ is full holds its own descriptors back: ringing for
 * them is absorbed until it reaps, and reaping rings once.
 */
TEST_F(bell, full_cq_storm)
{
	struct tq_desc d[8];
	struct tq_cqe cqe[8];
	struct bell b;
	int i, n;

	for (i = 0; i < 8; i++)
		raw_nop(&d[i], i);
	self->sfd = raw_sched_open(O_NONBLOCK);
	ASSERT_LE(0, self->sfd);
	ASSERT_EQ(8, raw_client_submit(&self->c, d, 8));
	n = raw_sched_collect(self->sfd, self->ev, 64, 8, 5000);
	for (i = 0; i < n; i++)
		if (self->ev[i].type == TQ_EV_TASK)
			ASSERT_EQ(0, raw_sched_complete(self->sfd, &self->ev[i], 0, 0));
	/* Eight completions unreaped fill the CQ; eight more wait in the SQ. */
	raw_client_publish(&self->c, d, 8);
	go_idle(self->sfd, self->ev, 64);
	ASSERT_EQ(8, raw_load_acquire(self->c.sq_cons));
	bell_snap(&b);
	ASSERT_EQ(0, storm(self->c.fd, STORM));
	EXPECT_EQ(0, bell_kicks(&b));
	EXPECT_FALSE(sched_ready(self->sfd));

	ASSERT_EQ(8, raw_client_reap(&self->c, cqe, 8));	/* rings */
	EXPECT_EQ(1, bell_kicks(&b));
	EXPECT_TRUE(sched_ready(self->sfd));
	EXPECT_EQ(8, go_idle(self->sfd, self->ev, 64));
	for (i = 0; i < 8; i++)
		EXPECT_EQ(0, raw_sched_complete(self->sfd, &self->ev[i], 0, 0));
}

/*
 * A client that has max_inflight tasks at the scheduler: ringing is
 * absorbed; a completion frees a slot and the kernel wakes the scheduler.
 */
TEST_F(bell, slots_full_storm)
{
	struct raw_client c;
	struct tq_desc d[6];
	struct tq_event held[4];
	struct bell b;
	long old;
	int i, n, nheld = 0;

	ASSERT_EQ(0, raw_set_param("inflight_max", 2, &old));
	n = raw_client_open(&c, 8, 0, 4096, -1);
	ASSERT_EQ(0, raw_set_param("inflight_max", old, NULL));
	ASSERT_EQ(0, n);
	ASSERT_EQ(2, c.s.max_inflight);
	for (i = 0; i < 6; i++)
		raw_nop(&d[i], i);
	self->sfd = raw_sched_open(O_NONBLOCK);
	ASSERT_LE(0, self->sfd);
	ASSERT_EQ(6, raw_client_submit(&c, d, 6));
	n = raw_sched_collect(self->sfd, self->ev, 64, 2, 5000);
	for (i = 0; i < n; i++)
		if (self->ev[i].type == TQ_EV_TASK)
			held[nheld++] = self->ev[i];
	ASSERT_EQ(2, nheld);
	go_idle(self->sfd, self->ev, 64);
	bell_snap(&b);
	ASSERT_EQ(0, storm(c.fd, STORM));
	EXPECT_EQ(0, bell_kicks(&b));
	EXPECT_FALSE(sched_ready(self->sfd));
	ASSERT_EQ(0, raw_sched_complete(self->sfd, &held[0], 0, 0));
	EXPECT_TRUE(sched_ready(self->sfd));
	EXPECT_EQ(1, go_idle(self->sfd, self->ev, 64));
	EXPECT_EQ(0, raw_sched_complete(self->sfd, &held[1], 0, 0));
	EXPECT_EQ(0, raw_sched_complete(self->sfd, &self->ev[0], 0, 0));
	raw_client_close(&c);
}

/* A thread asleep in read() is woken by the doorbell. */
static void *blocking_reader(void *arg)
{
	int *fd = arg;
	static struct tq_event ev[4];
	static ssize_t n;

	n = read(*fd, ev, sizeof(ev));
	return n > 0 ? ev : NULL;
}

TEST_F(bell, wakes_blocking_read)
{
	struct tq_event *got;
	struct tq_desc d;
	pthread_t t;
	int fd;

	fd = raw_sched_open(0);
	ASSERT_LE(0, fd);
	self->sfd = fd;
	ASSERT_EQ(1, raw_sched_read(fd, self->ev, 1, 1000));	/* the OPEN; blocking */
	ASSERT_EQ(0, pthread_create(&t, NULL, blocking_reader, &fd));
	usleep(200000);
	raw_nop(&d, 9);
	ASSERT_EQ(1, raw_client_submit(&self->c, &d, 1));	/* rings */
	ASSERT_EQ(0, pthread_join(t, (void **)&got));
	ASSERT_NE(NULL, got);
	EXPECT_EQ(TQ_EV_TASK, got[0].type);
	EXPECT_EQ(9, got[0].task.user_data);
	EXPECT_EQ(0, raw_sched_complete(fd, &got[0], 0, 0));
}

/* RWF_NOWAIT on a blocking fd: EAGAIN rather than sleep. */
TEST_F(bell, nowait_read)
{
	struct iovec iov = { .iov_base = self->ev, .iov_len = sizeof(self->ev) };

	self->sfd = raw_sched_open(0);
	ASSERT_LE(0, self->sfd);
	ASSERT_EQ(1, raw_sched_read(self->sfd, self->ev, 1, 1000));
	EXPECT_EQ(-1, preadv2(self->sfd, &iov, 1, -1, RWF_NOWAIT));
	EXPECT_EQ(EAGAIN, errno);
}

/*
 * The storm against tq_echod: a client stuck on its full CQ calls ENTER in
 * a loop, first alone (not one of its ENTERs wakes the scheduler), then
 * while two others run 2000 tasks each (they all finish).
 */
#define HONEST		2
#define HONEST_TASKS	2000
#define STORMS		(10 * STORM)

static int honest_client(void)
{
	static uint8_t seen[HONEST_TASKS];
	struct tq_desc d[32];
	struct tq_cqe cqe[64];
	struct raw_client c;
	unsigned int next = 0, done = 0;
	int k, n;

	if (raw_client_open(&c, 32, 64, 4096, -1))
		return 1;
	while (done < HONEST_TASKS) {
		for (k = 0; k < 32 && next + k < HONEST_TASKS; k++)
			raw_nop(&d[k], next + k);
		n = k ? raw_client_submit(&c, d, k) : 0;
		if (n < 0)
			return 2;
		next += n;
		n = raw_client_wait(&c, cqe, 64, 20000);
		if (n <= 0)
			return 3;
		for (k = 0; k < n; k++)
			if (cqe[k].user_data >= HONEST_TASKS || seen[cqe[k].user_data]++ ||
			    cqe[k].status)
				return 4;
		done += n;
	}
	raw_client_close(&c);
	return 0;
}

/* Get stuck on a full CQ, say so on @out, then storm once per byte on @in. */
static int stormer(int in, int out)
{
	struct raw_client c;
	struct tq_desc d[4];
	char ch;
	int i;

	if (raw_client_open(&c, 4, 4, 4096, -1))
		return 1;
	for (i = 0; i < 4; i++)
		raw_nop(&d[i], i);
	if (raw_client_submit(&c, d, 4) != 4)
		return 2;
	/* Wait for the four completions, reap none, and queue four more. */
	for (i = 0; i < 10000 && raw_load_acquire(c.cq_prod) != 4; i++)
		usleep(1000);
	if (raw_load_acquire(c.cq_prod) != 4)
		return 3;
	raw_client_publish(&c, d, 4);
	if (write(out, "r", 1) != 1)
		return 4;
	while (read(in, &ch, 1) == 1) {
		if (storm(c.fd, STORMS))
			return 5;
		if (write(out, "d", 1) != 1)
			return 6;
	}
	return 0;
}

TEST(storm_against_echod)
{
	pid_t echod, storm_pid, honest[HONEST];
	int i, go[2], done[2], status, failed = 0;
	long long absorbed;
	struct bell b;
	char ch;

	if (access(TQ_ECHOD, X_OK))
		SKIP(return, "%s is not built", TQ_ECHOD);
	echod = fork();
	ASSERT_LE(0, echod);
	if (echod == 0) {
		execl(TQ_ECHOD, "tq_echod", "-q", (char *)NULL);
		_exit(127);
	}
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(done));
	storm_pid = fork();
	ASSERT_LE(0, storm_pid);
	if (storm_pid == 0) {
		close(go[1]);
		close(done[0]);
		_exit(stormer(go[0], done[1]));
	}
	close(go[0]);
	close(done[1]);
	ASSERT_EQ(1, read(done[0], &ch, 1));

	/* Alone: every ENTER absorbed, the scheduler never woken. */
	bell_snap(&b);
	ASSERT_EQ(1, write(go[1], "g", 1));
	ASSERT_EQ(1, read(done[0], &ch, 1));
	EXPECT_EQ(0, bell_kicks(&b));
	EXPECT_EQ(STORMS, raw_stat("enters_absorbed") - b.absorbed);

	/* With honest clients: they finish, and the storm still wakes no one. */
	bell_snap(&b);
	for (i = 0; i < HONEST; i++) {
		honest[i] = fork();
		ASSERT_LE(0, honest[i]);
		if (honest[i] == 0)
			_exit(honest_client());
	}
	ASSERT_EQ(1, write(go[1], "g", 1));
	for (i = 0; i < HONEST; i++) {
		ASSERT_EQ(honest[i], waitpid(honest[i], &status, 0));
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			TH_LOG("honest client %d: status %#x", i, status);
			failed++;
		}
	}
	EXPECT_EQ(0, failed);
	ASSERT_EQ(1, read(done[0], &ch, 1));
	absorbed = raw_stat("enters_absorbed") - b.absorbed;
	EXPECT_LE(STORMS, absorbed);
	TH_LOG("with %d clients of %d tasks: %lld ENTERs woke the scheduler, %lld absorbed",
	       HONEST, HONEST_TASKS, bell_kicks(&b), absorbed);
	close(go[1]);
	ASSERT_EQ(storm_pid, waitpid(storm_pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
	close(done[0]);

	kill(echod, SIGTERM);
	ASSERT_EQ(echod, waitpid(echod, &status, 0));
	/* Its io_uring may hold its file a little after it exits. */
	for (i = 0; i < 500 && raw_stat("scheduler_pid"); i++)
		usleep(10000);
	EXPECT_EQ(0, raw_stat("scheduler_pid"));
}

TEST_HARNESS_MAIN
