// SPDX-License-Identifier: GPL-2.0
/*
 * The scheduler dies mid-batch and another takes over: one tq_echod is
 * killed with SIGKILL while it works (after 500 tasks), then tq_echod -n N
 * completes N tasks and exits at once, abandoning the rest of what it read,
 * three times; the module gives what they held back to the contexts, and
 * the next tq_echod gets it again. Through libtq, 4 clients see every user_data complete exactly
 * once, some of them marked TQ_CQE_F_REQUEUED.
 */
#include <signal.h>
#include <sys/wait.h>

#include "selftests/tap.h"
#include "libtq_util.h"

#define CLIENTS		4
#define TASKS		3000
#define ENTRIES		256

/* Exit status: 0, or what went wrong. */
static int client(int report)
{
	static unsigned char seen[TASKS];
	struct tq_cqe *cqes[ENTRIES];
	unsigned int sent = 0, done = 0, requeued = 0, i, n;
	int64_t end = lt_now_ms() + 60000;
	struct tq tq;

	if (tq_open(&tq, ENTRIES, 4096, 0))
		return 1;
	while (done < TASKS) {
		struct tq_desc *d;
		struct tq_cqe *cqe;
		int ret;

		while (sent < TASKS && (d = tq_get_desc(&tq))) {
			tq_prep_nop(d);
			tq_desc_set_data(d, sent++);
		}
		if (tq_submit(&tq) < 0)
			return 2;
		ret = tq_wait(&tq, &cqe, 1000);
		if (ret == -ETIME && lt_now_ms() < end)
			continue;	/* between schedulers */
		if (ret) {
			tap_diag("client %u: %u of %u completed, then: %s", getpid(), done, sent,
				 tq_strerror(ret));
			lt_fdinfo_dump(tq.fd);
			return 3;
		}
		n = tq_peek_batch(&tq, cqes, ENTRIES);
		for (i = 0; i < n; i++) {
			uint64_t ud = cqes[i]->user_data;

			if (cqes[i]->status || ud >= TASKS || seen[ud]++)
				return 4;
			requeued += !!(cqes[i]->flags & TQ_CQE_F_REQUEUED);
		}
		tq_cq_advance(&tq, n);
		done += n;
	}
	if (write(report, &requeued, sizeof(requeued)) != sizeof(requeued))
		return 5;
	tq_close(&tq);
	return 0;
}

int main(void)
{
	static const char *const limits[] = { "500", "1500", "2500" };
	unsigned int i, requeued = 0, r;
	long long requeued0;
	pid_t pids[CLIENTS], echod;
	int p[2], status, bad = 0;

	lt_require_vm();
	if (pipe(p))
		return 1;
	requeued0 = lt_stat("requeued");
	fflush(stdout);
	for (i = 0; i < CLIENTS; i++) {
		pids[i] = fork();
		if (!pids[i])
			_exit(client(p[1]));
	}
	close(p[1]);

	/*
	 * One scheduler is killed while it works, holding what it read: it
	 * kills itself after 500 tasks (a kill from here, once the server's
	 * counters showed it working, came thousands of tasks late on the
	 * socket and could leave the -n ones below too few to reach their N).
	 */
	echod = lt_echod_start("-k", "500");
	status = echod > 0 ? lt_echod_wait(echod, 60000) : -1;
	tap_ok(status >= 0 && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
	       "tq_echod attached and was killed (SIGKILL) after 500 tasks");
	if (status < 0)
		lt_echod_stop(echod);

	/* Three die after N tasks each; the last one finishes the job. */
	for (i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
		echod = lt_echod_start("-n", limits[i]);
		status = echod > 0 ? lt_echod_wait(echod, 60000) : -1;
		if (!tap_ok(status >= 0 && WIFEXITED(status) && !WEXITSTATUS(status),
			    "tq_echod -n %s attached, completed and exited mid-batch", limits[i]))
			tap_diag("%s; the server: %lld completed, %lld in flight, %lld requeued",
				 status < 0 ? "no exit in 60 s" : WIFEXITED(status) ?
				 "exit status nonzero" : "killed by a signal", lt_stat("completed"),
				 lt_stat("in_flight"), lt_stat("requeued"));
		if (status < 0)
			lt_echod_stop(echod);
	}
	echod = lt_echod_start(NULL, NULL);
	tap_ok(echod > 0, "the last tq_echod attached");

	for (i = 0; i < CLIENTS; i++) {
		waitpid(pids[i], &status, 0);
		bad += !WIFEXITED(status) || WEXITSTATUS(status);
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			tap_diag("client %u: status %#x", i, status);
	}
	while (read(p[0], &r, sizeof(r)) == sizeof(r))
		requeued += r;
	tap_ok(!bad, "%d clients x %d tasks: each user_data completed exactly once, status 0",
	       CLIENTS, TASKS);
	tap_ok(requeued > 0, "%u completions marked TQ_CQE_F_REQUEUED", requeued);
	lt_stat_ok(lt_stat("requeued") - requeued0 >= requeued, "requeued",
		   "the server counted %lld requeued tasks", lt_stat("requeued") - requeued0);
	lt_stat_ok(lt_stat("in_flight") == 0, "in_flight", "nothing in flight");
	tap_ok(WIFEXITED(lt_echod_stop(echod)), "tq_echod exits cleanly");
	lt_stat_ok(lt_stat_wait("contexts", 0, 5000) == 0, "contexts", "every context freed");
	return tap_done();
}
