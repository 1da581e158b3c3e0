// SPDX-License-Identifier: GPL-2.0
/*
 * tqsubmit_life - lifetimes under abuse: clients killed with tasks in flight
 * (200 times, then the module must unload), schedulers that exit mid-batch
 * or are killed and restarted (every task completes exactly once), and many
 * client processes at once against tq_echod. Runs as root in the test VM.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "tq_util.h"

/* Wait up to @ms for a counter to reach @want; returns its last value. */
static long long wait_stat(const char *name, long long want, int ms)
{
	long long v = raw_stat(name);

	while (v != want && ms > 0) {
		usleep(10000);
		ms -= 10;
		v = raw_stat(name);
	}
	return v;
}

static pid_t spawn_echod(const char *arg1, const char *arg2)
{
	pid_t pid = fork();

	if (pid == 0) {
		execl(TQ_ECHOD, "tq_echod", "-q", "-b", "64", arg1, arg2, (char *)NULL);
		_exit(127);
	}
	return pid;
}

FIXTURE(life) {
	int sfd;
};

FIXTURE_SETUP(life)
{
	self->sfd = -1;
	if (access(TQ_ECHOD, X_OK))
		SKIP(return, "%s is not built", TQ_ECHOD);
}

FIXTURE_TEARDOWN(life)
{
	if (self->sfd >= 0)
		close(self->sfd);
}

#define KILLS		200
#define KILL_TASKS	16

/*
 * A client submits and is killed: before the scheduler saw it, with its
 * tasks delivered and then completed, half-completed, or never completed.
 * Nothing may leak: every context goes, in_flight returns to zero.
 */
TEST_F_TIMEOUT(life, kill_clients_in_flight, 300)
{
	struct tq_event ev[64];
	long long base = raw_stat("contexts");
	int it, i, n;

	ASSERT_EQ(0, base);
	self->sfd = raw_sched_open(O_NONBLOCK);
	ASSERT_LE(0, self->sfd);
	for (it = 0; it < KILLS; it++) {
		struct tq_event held[KILL_TASKS];
		int mode = it % 4, nheld = 0, status, p[2];
		uint32_t id = 0;
		char c;
		pid_t pid;

		ASSERT_EQ(0, pipe(p));
		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0) {
			struct raw_client cl;
			struct tq_desc d[KILL_TASKS];

			if (raw_client_open(&cl, KILL_TASKS, 0, 1 << 16, -1))
				_exit(1);
			for (i = 0; i < KILL_TASKS; i++)
				raw_task(&d[i], i);
			if (raw_client_submit(&cl, d, KILL_TASKS) != KILL_TASKS)
				_exit(1);
			if (write(p[1], "x", 1) != 1)
				_exit(1);
			pause();
			_exit(0);
		}
		close(p[1]);
		ASSERT_EQ(1, read(p[0], &c, 1));
		close(p[0]);

		/* Modes 1-3: take some tasks before the kill. */
		while (mode && nheld < KILL_TASKS / 2) {
			n = raw_sched_read(self->sfd, ev, 64, 2000);
			ASSERT_LT(0, n);
			for (i = 0; i < n; i++) {
				if (ev[i].type == TQ_EV_OPEN)
					id = ev[i].ctx_id;
				else if (ev[i].type == TQ_EV_TASK && nheld < KILL_TASKS)
					held[nheld++] = ev[i];
			}
		}
		if (mode == 2) {
			for (i = 0; i < nheld / 2; i++)
				EXPECT_EQ(0, raw_sched_complete(self->sfd, &held[i], 0, 0));
		}
		ASSERT_EQ(0, kill(pid, SIGKILL));
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		if (!mode)
			continue;

		/* The close arrives; complete (mode 3) or not, then let go. */
		for (n = 0; n <= 0;) {
			n = raw_sched_read(self->sfd, ev, 64, 2000);
			ASSERT_LT(0, n);
			for (i = 0; i < n; i++)
				if (ev[i].type == TQ_EV_CLOSE)
					EXPECT_EQ(id, ev[i].ctx_id);
			n = ev[n - 1].type == TQ_EV_CLOSE;
		}
		if (mode == 3) {
			for (i = 0; i < nheld; i++)
				EXPECT_EQ(0, raw_sched_complete(self->sfd, &held[i], 0, 0));
		}
		EXPECT_EQ(0, raw_sched_release(self->sfd, id));
	}
	EXPECT_EQ(base, wait_stat("contexts", base, 5000));
	EXPECT_EQ(0, raw_stat("in_flight"));
	close(self->sfd);
	self->sfd = -1;
	EXPECT_EQ(0, raw_stat("scheduler_pid"));
}

#define TOTAL	3000
#define SQ	256

struct feeder {
	struct raw_client c;
	uint8_t seen[TOTAL];
	unsigned int next, done, dup, requeued;
};

/* Keep the SQ full and reap; returns completions so far. */
static int feed(struct feeder *f, int ms)
{
	struct tq_desc d[SQ];
	struct tq_cqe cqe[SQ];
	unsigned int i, n = 0;
	int got;

	while (f->next + n < TOTAL && n < SQ) {
		raw_nop(&d[n], f->next + n);
		n++;
	}
	got = n ? raw_client_submit(&f->c, d, n) : 0;
	if (got < 0)
		return got;
	f->next += got;
	got = raw_client_wait(&f->c, cqe, SQ, ms);
	if (got < 0)
		return got;
	for (i = 0; i < (unsigned int)got; i++) {
		if (cqe[i].user_data >= TOTAL || cqe[i].status) {
			f->dup++;
			continue;
		}
		if (f->seen[cqe[i].user_data]++)
			f->dup++;
		if (cqe[i].flags & TQ_CQE_F_REQUEUED)
			f->requeued++;
		f->done++;
	}
	return f->done;
}

/*
 * The scheduler exits mid-batch, is killed, restarts: what it took and did
 * not complete is delivered again to the next one; every task completes
 * exactly once and the client sees only delay.
 */
TEST_F_TIMEOUT(life, scheduler_restarts_exactly_once, 300)
{
	struct feeder *f = calloc(1, sizeof(*f));
	long long requeued = raw_stat("requeued");
	int status, i;
	pid_t pid;

	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, raw_client_open(&f->c, SQ, 2 * SQ, 4096, -1));
	/* A full SQ first, so that reads come in full batches. */
	ASSERT_EQ(0, feed(f, 0));

	/* 1: exits after 100 tasks, in its second batch of 64. */
	pid = spawn_echod("-n", "100");
	ASSERT_LT(0, pid);
	while (waitpid(pid, &status, WNOHANG) == 0)
		ASSERT_LE(0, feed(f, 50));
	EXPECT_EQ(0, WEXITSTATUS(status));
	/* Its io_uring may let go of the file a little after it exits. */
	for (i = 0; i < 500 && raw_stat("requeued") == requeued; i++)
		usleep(10000);
	EXPECT_LT(requeued, raw_stat("requeued")) TH_LOG("nothing was requeued");
	EXPECT_LE(100, f->done);

	/* 2: killed outright partway. */
	pid = spawn_echod(NULL, NULL);
	ASSERT_LT(0, pid);
	while (f->done < TOTAL / 2)
		ASSERT_LE(0, feed(f, 50));
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));

	/* 3: finishes the job. */
	pid = spawn_echod(NULL, NULL);
	ASSERT_LT(0, pid);
	for (i = 0; f->done < TOTAL && i < 2000; i++)
		ASSERT_LE(0, feed(f, 50));
	EXPECT_EQ(0, feed(f, 200) - TOTAL);	/* and nothing more */
	ASSERT_EQ(0, kill(pid, SIGTERM));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));

	EXPECT_EQ(TOTAL, f->done);
	EXPECT_EQ(0, f->dup);
	for (i = 0; i < TOTAL; i++)
		EXPECT_EQ(1, f->seen[i]);
	EXPECT_LT(0, f->requeued);
	TH_LOG("%u of %d completions were of requeued tasks", f->requeued, TOTAL);
	raw_client_close(&f->c);
	free(f);
	EXPECT_EQ(0, wait_stat("in_flight", 0, 5000));
}

#define CLIENTS		8
#define PER_CLIENT	2000

/* Client processes at once against tq_echod: each completes exactly once. */
TEST_F_TIMEOUT(life, many_clients_against_echod, 300)
{
	pid_t echod, pid[CLIENTS];
	int i, status, failed = 0;

	echod = spawn_echod("-m", NULL);
	ASSERT_LT(0, echod);
	for (i = 0; i < CLIENTS; i++) {
		pid[i] = fork();
		ASSERT_LE(0, pid[i]);
		if (pid[i] == 0) {
			static uint8_t seen[PER_CLIENT];
			struct raw_client c;
			struct tq_desc d[32];
			struct tq_cqe cqe[64];
			unsigned int next = 0, done = 0;
			int k, n;

			if (raw_client_open(&c, 64, 128, 1 << 16, -1))
				_exit(1);
			while (done < PER_CLIENT) {
				for (k = 0; k < 32 && next + k < PER_CLIENT; k++)
					raw_nop(&d[k], next + k);
				n = k ? raw_client_submit(&c, d, k) : 0;
				if (n < 0)
					_exit(2);
				next += n;
				n = raw_client_wait(&c, cqe, 64, 10000);
				if (n <= 0)
					_exit(3);
				for (k = 0; k < n; k++) {
					if (cqe[k].user_data >= PER_CLIENT ||
					    seen[cqe[k].user_data]++ || cqe[k].status)
						_exit(4);
				}
				done += n;
			}
			_exit(raw_client_wait(&c, cqe, 1, 100) == 0 ? 0 : 5);
		}
	}
	for (i = 0; i < CLIENTS; i++) {
		ASSERT_EQ(pid[i], waitpid(pid[i], &status, 0));
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			TH_LOG("client %d: status %#x", i, status);
			failed++;
		}
	}
	EXPECT_EQ(0, failed);
	kill(echod, SIGTERM);
	ASSERT_EQ(echod, waitpid(echod, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(0, wait_stat("contexts", 0, 5000));
}

/* Last (tests run in order): with nothing left open the module unloads, and loads again. */
TEST_F(life, module_unloads)
{
	const char *ko = raw_module_path();
	int fd, ret = -1, i;

	if (access(ko, R_OK))
		SKIP(return, "%s not found (run from the repository)", ko);
	EXPECT_EQ(0, wait_stat("contexts", 0, 5000));
	/* An exited scheduler's io_uring may hold its file a little longer. */
	for (i = 0; i < 500 && ret; i++) {
		ret = syscall(SYS_delete_module, "tqsubmit", O_NONBLOCK);
		if (ret && errno != EWOULDBLOCK && errno != EBUSY)
			break;
		if (ret)
			usleep(10000);
	}
	ASSERT_EQ(0, ret) TH_LOG("delete_module: %s", strerror(errno));
	EXPECT_NE(0, access(TQ_DEV, F_OK));
	fd = open(ko, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, syscall(SYS_finit_module, fd, "", 0));
	close(fd);
	fd = open(TQ_DEV, O_RDWR);
	EXPECT_LE(0, fd);
	close(fd);
	EXPECT_EQ(0, raw_stat("contexts"));
}

TEST_HARNESS_MAIN
