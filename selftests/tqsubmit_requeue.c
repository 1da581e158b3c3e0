// SPDX-License-Identifier: GPL-2.0
/*
 * tqsubmit_requeue - the requeue path under stress, in one guest: each
 * iteration starts several clients and a random sequence of schedulers
 * (tq_echod) that exit mid-batch after N tasks, are killed with SIGKILL or
 * are told to stop with SIGTERM at random moments, with random batch sizes,
 * some marking what they read started (-s), then one that finishes the
 * job. Clients submit NOPs, TASKs and idempotent TASKs in turn. Every task
 * of every client completes exactly once, with status 0, or -EOWNERDEAD
 * for a TASK without TQ_DESC_F_IDEMPOTENT (its scheduler had marked it
 * started and went away); a client that closes early loses its tasks
 * to the dropped counter; once the last scheduler is gone nothing is in
 * flight, no context is left, and the counters balance:
 * submitted = completed + failed + rejected + dropped.
 *
 * Usage: tqsubmit_requeue [ITERATIONS [SEED]]   (root, in the test VM)
 */
#include <signal.h>
#include <stdbool.h>
#include <sys/wait.h>
#include <tq/rand.h>

#include "selftests/tap.h"
#include "selftests/kmod/tq_util.h"

#define ITERS		50
#define CLIENTS		3	/* that wait for all their tasks, plus one that quits */
#define TASKS		512
#define MAX_SQ		128
#define CLIENT_MS	20000

/* A small, seeded generator, so that a failing iteration can be replayed. */
static unsigned int rnd(uint64_t *s)
{
	return tq_rand_next(s) >> 33;
}

static long long ms_now(void)
{
	return tq_now_ns() / 1000000;
}

/* Task i is a NOP, a TASK or an idempotent TASK, in turn. */
static void make_task(struct tq_desc *d, unsigned int i)
{
	if (i % 3 == 0) {
		raw_nop(d, i);
		return;
	}
	raw_task(d, i);
	if (i % 3 == 2)
		d->flags = TQ_DESC_F_IDEMPOTENT;
}

/* The statuses task i may complete with. */
static bool status_ok(unsigned int i, int status)
{
	return !status || (status == -EOWNERDEAD && i % 3 == 1);
}

/*
 * Submit TASKS tasks as the SQ has room and reap them; every user_data
 * must come back once, with a status status_ok() allows. A quitter closes
 * after a few completions. Returns the exit status: 0, or which check
 * failed.
 */
static int client(unsigned int seed, bool quit)
{
	uint64_t rs = seed;
	static uint8_t seen[TASKS];
	struct tq_desc d[MAX_SQ];
	struct tq_cqe cqe[2 * MAX_SQ];
	unsigned int sq = 16 << rnd(&rs) % 4, next = 0, done = 0, stop_at = TASKS;
	long long end = ms_now() + CLIENT_MS;
	struct raw_client c;
	int i, n;

	if (quit)
		stop_at = rnd(&rs) % 64;
	if (raw_client_open(&c, sq, 0, 4096, -1))
		return 1;
	while (done < stop_at) {
		for (n = 0; n < (int)sq && next + n < TASKS; n++)
			make_task(&d[n], next + n);
		n = n ? raw_client_submit(&c, d, n) : 0;
		if (n < 0)
			return 2;
		next += n;
		n = raw_client_wait(&c, cqe, 2 * MAX_SQ, 100);
		if (n < 0)
			return 3;
		for (i = 0; i < n; i++) {
			if (cqe[i].user_data >= next || !status_ok(cqe[i].user_data, cqe[i].status) ||
			    seen[cqe[i].user_data]++) {
				printf("# client %d: bad completion of %llu, status %d\n", getpid(),
				       (unsigned long long)cqe[i].user_data, cqe[i].status);
				return 4;
			}
		}
		done += n;
		if (ms_now() > end) {
			printf("# client %d: %u of %u submitted tasks completed (sq %u)\n",
			       getpid(), done, next, sq);
			fflush(stdout);
			return 5;
		}
	}
	/* Nothing more may come. */
	if (!quit && raw_client_wait(&c, cqe, 1, 20))
		return 6;
	raw_client_close(&c);
	return 0;
}

static pid_t echod(bool mark, const char *batch, const char *opt, const char *val)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		execl(TQ_ECHOD, "tq_echod", mark ? "-qs" : "-q", "-b", batch, opt, val,
		      (char *)NULL);
		_exit(127);
	}
	return pid;
}

/* Reap @pid within @ms; false if it is still running. */
static bool reap(pid_t pid, int ms, int *status)
{
	long long end = ms_now() + ms;

	while (waitpid(pid, status, WNOHANG) != pid) {
		if (ms_now() > end)
			return false;
		usleep(1000);
	}
	return true;
}

/* Wait up to @ms for a sysfs counter to reach @want. */
static long long stat_wait(const char *name, long long want, int ms)
{
	long long end = ms_now() + ms, v;

	while ((v = raw_stat(name)) != want && ms_now() < end)
		usleep(2000);
	return v;
}

static const char *const counters[] = {
	"submitted", "completed", "failed", "rejected", "dropped", "requeued", "abandoned",
};

enum { SUBMITTED, COMPLETED, FAILED, REJECTED, DROPPED, REQUEUED, ABANDONED, NR_COUNTERS };

static void snap(long long *v)
{
	int i;

	for (i = 0; i < NR_COUNTERS; i++)
		v[i] = raw_stat(counters[i]);
}

/* One iteration; its description goes into @what. Returns true if it passed. */
static bool iteration(unsigned int seed, char *what, size_t len, long long *requeued,
		      long long *abandoned)
{
	static const char *const batches[] = { "1", "7", "32", "64", "1024" };
	uint64_t rs = seed;
	long long before[NR_COUNTERS], after[NR_COUNTERS];
	pid_t pids[CLIENTS + 1], sched;
	int i, status, nsched, bad = 0;
	size_t at = 0;
	char num[16];

	snap(before);
	for (i = 0; i <= CLIENTS; i++) {
		unsigned int s = seed * 31 + i;

		fflush(stdout);
		pids[i] = fork();
		if (pids[i] == 0)
			_exit(client(s, i == CLIENTS));
	}

	/* Schedulers that go away at random moments. */
	nsched = 1 + rnd(&rs) % 3;
	while (nsched--) {
		const char *b = batches[rnd(&rs) % 5];
		int mode = rnd(&rs) % 3;
		bool mark = rnd(&rs) % 2;

		if (mode == 0) {
			snprintf(num, sizeof(num), "%u", 1 + rnd(&rs) % (TASKS / 2));
			at += snprintf(what + at, len - at, " -n%s/b%s%s", num, b, mark ? "/s" : "");
			sched = echod(mark, b, "-n", num);
			/* If the clients finish first it would wait for ever. */
			if (!reap(sched, 3000, &status)) {
				kill(sched, SIGTERM);
				waitpid(sched, &status, 0);
			}
		} else {
			int us = rnd(&rs) % 20000;

			at += snprintf(what + at, len - at, " %s@%dus/b%s%s",
				       mode == 1 ? "kill" : "term", us, b, mark ? "/s" : "");
			sched = echod(mark, b, NULL, NULL);
			usleep(us);
			kill(sched, mode == 1 ? SIGKILL : SIGTERM);
			waitpid(sched, &status, 0);
		}
		/* SIGTERM kills it outright before it has set its handler. */
		if (!(WIFEXITED(status) && !WEXITSTATUS(status)) &&
		    !(WIFSIGNALED(status) && WTERMSIG(status) == (mode == 1 ? SIGKILL : SIGTERM))) {
			printf("# tq_echod: status %#x\n", status);
			bad++;
		}
	}

	/* One that finishes the job. */
	sched = echod(false, "64", NULL, NULL);
	for (i = 0; i <= CLIENTS; i++) {
		waitpid(pids[i], &status, 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			printf("# client %d: status %#x\n", i, status);
			bad++;
		}
	}
	kill(sched, SIGTERM);
	waitpid(sched, &status, 0);

	/* Its io_uring may hold its file a little after it exits. */
	if (stat_wait("scheduler_pid", 0, 5000) || stat_wait("in_flight", 0, 1000) ||
	    stat_wait("contexts", 0, 1000)) {
		printf("# left: scheduler %lld, in flight %lld, contexts %lld\n",
		       raw_stat("scheduler_pid"), raw_stat("in_flight"), raw_stat("contexts"));
		bad++;
	}
	snap(after);
	for (i = 0; i < NR_COUNTERS; i++)
		after[i] -= before[i];
	if (after[SUBMITTED] != after[COMPLETED] + after[FAILED] + after[REJECTED] +
	    after[DROPPED]) {
		printf("# submitted %lld != completed %lld + failed %lld + rejected %lld + dropped %lld\n",
		       after[SUBMITTED], after[COMPLETED], after[FAILED], after[REJECTED],
		       after[DROPPED]);
		bad++;
	}
	*requeued += after[REQUEUED];
	*abandoned += after[ABANDONED];
	return !bad;
}

int main(int argc, char **argv)
{
	unsigned int iters = argc > 1 ? strtoul(argv[1], NULL, 0) : ITERS;
	unsigned int seed = argc > 2 ? strtoul(argv[2], NULL, 0) : (unsigned int)getpid();
	long long requeued = 0, abandoned = 0;
	unsigned int i;

	if (access(TQ_DEV, R_OK | W_OK))
		tap_skip_all("no " TQ_DEV " (runs in the test VM)");
	if (geteuid())
		tap_skip_all("needs root to run tq_echod");
	if (access(TQ_ECHOD, X_OK))
		tap_skip_all(TQ_ECHOD " is not built");
	if (raw_stat("scheduler_pid") || raw_stat("contexts"))
		tap_skip_all("another scheduler or client is using the module");

	tap_diag("seed %u", seed);
	for (i = 0; i < iters; i++) {
		unsigned int s = seed + i;
		char what[256] = "";

		tap_ok(iteration(s, what, sizeof(what), &requeued, &abandoned),
		       "seed %u:%s: %d clients x %d tasks exactly once, counters balance", s, what,
		       CLIENTS, TASKS);
	}
	tap_ok(requeued > 0, "%lld tasks requeued", requeued);
	tap_ok(abandoned > 0, "%lld started tasks completed with -EOWNERDEAD", abandoned);
	return tap_done();
}
