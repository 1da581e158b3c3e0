// SPDX-License-Identifier: GPL-2.0
/*
 * A client killed with SIGKILL while it has tasks in flight, 200 times,
 * through libtq: with tq_echod attached (tasks taken, delivered, completed
 * but not reaped), and with no scheduler at all (tasks waiting in the SQ).
 * Nothing leaks: the contexts counter returns to 0 and, at the end, the
 * module unloads. It is loaded again for the tests that follow.
 */
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "tap.h"
#include "libtq_util.h"

#define ROUNDS		200
#define NO_DAEMON	50	/* the last rounds run without a scheduler */
#define MODULE		"kmod/tqsubmit.ko"

/* Submit forever and reap only now and then, so tasks stay in flight. */
static void client(int ready)
{
	unsigned long long n = 0;
	struct tq_cqe *cqes[64];
	struct tq tq;
	int fd = -1;

	if (tq_open(&tq, 64, 1 << 16, 0))
		_exit(1);
	for (;;) {
		struct tq_desc *d;

		while ((d = tq_get_desc(&tq))) {
			tq_prep_nop(d);
			tq_desc_set_data(d, n++);
		}
		tq_submit(&tq);
		/* Tell the parent which fd to look at, once. */
		if (fd < 0 && write(ready, &tq.fd, sizeof(tq.fd)) == sizeof(tq.fd))
			fd = tq.fd;
		if (n % 3 == 0)
			tq_cq_advance(&tq, tq_peek_batch(&tq, cqes, 64));
		sched_yield();
	}
}

/* Tasks the context holds: in its SQ, taken, or completed and not reaped. */
static long long in_flight(pid_t pid, int fd)
{
	return lt_fdinfo(pid, fd, "sq-tail") - lt_fdinfo(pid, fd, "sq-head") +
	       lt_fdinfo(pid, fd, "pending") + lt_fdinfo(pid, fd, "delivered") +
	       lt_fdinfo(pid, fd, "cq-tail") - lt_fdinfo(pid, fd, "cq-head");
}

/* One client, killed; 1 if it had tasks in flight just before, -1 if it failed. */
static int round_one(unsigned int i)
{
	int p[2], status, fd = -1;
	long long held = 0;
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (!pid) {
		close(p[0]);
		client(p[1]);
	}
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return -1;
	}
	/* Kill it once it has submitted, at a varying point after. */
	if (read(p[0], &fd, sizeof(fd)) != sizeof(fd))
		fd = -1;
	close(p[0]);
	usleep((i * 7919) % 5000);
	if (fd >= 0)
		held = in_flight(pid, fd);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	if (fd < 0 || !WIFSIGNALED(status))
		return -1;
	return held > 0;
}

int main(void)
{
	unsigned int i, killed = 0, held = 0;
	long long contexts;
	pid_t echod;
	int ret;

	lt_require_vm();
	if (!tap_ok(tq_stat("contexts") == 0, "no contexts to begin with"))
		return tap_done();
	echod = lt_echod_start("-b", "32");
	if (!tap_ok(echod > 0, "tq_echod attached"))
		return tap_done();
	for (i = 0; i < ROUNDS; i++) {
		if (i == ROUNDS - NO_DAEMON)
			tap_ok(WIFEXITED(lt_echod_stop(echod)), "tq_echod stopped after %u rounds",
			       i);
		ret = round_one(i);
		killed += ret >= 0;
		held += ret > 0;
	}
	tap_ok(killed == ROUNDS, "%u clients killed after submitting (%u)", ROUNDS, killed);
	tap_ok(held >= ROUNDS / 2, "%u of them held tasks just before SIGKILL", held);
	contexts = lt_stat_wait("contexts", 0, 10000);
	tap_ok(contexts == 0, "contexts counter back to 0 (%lld)", contexts);
	tap_ok(tq_stat("in_flight") == 0, "nothing in flight (%lld)", tq_stat("in_flight"));
	tap_diag("dropped %lld, requeued %lld, completed %lld", tq_stat("dropped"),
		 tq_stat("requeued"), tq_stat("completed"));
	fflush(stdout);
	tap_ok(system("rmmod tqsubmit") == 0, "rmmod tqsubmit");
	tap_ok(system("insmod " MODULE) == 0 && tq_stat("contexts") == 0,
	       "insmod again for the next tests");
	return tap_done();
}
