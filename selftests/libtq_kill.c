// SPDX-License-Identifier: GPL-2.0
/*
 * A client killed with SIGKILL while it has tasks in flight, 200 times,
 * through libtq: with tq_echod attached (tasks taken, delivered, completed
 * but not reaped), and with no scheduler at all (tasks waiting in the SQ).
 * Nothing leaks: the contexts counter returns to 0 and, at the end, the
 * module unloads. It is loaded again for the tests that follow. On the
 * socket (tqsubmitd): its counters say the same, when it has them, and
 * instead of the unload, tqsubmitd's memory and fds are back where they
 * were after the first round.
 */
#include <dirent.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "selftests/tap.h"
#include "libtq_util.h"

#define ROUNDS		200
#define NO_DAEMON	50	/* the last rounds run without a scheduler */

/* The client's SQ producer and CQ consumer, shared with the parent (socket only). */
static unsigned int *shared_idx;

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
		if (shared_idx) {
			__atomic_store_n(&shared_idx[0], tq.sq.tail, __ATOMIC_RELAXED);
			__atomic_store_n(&shared_idx[1], tq.cq.head, __ATOMIC_RELAXED);
		}
		/* Tell the parent which fd to look at, once. */
		if (fd < 0 && write(ready, &tq.fd, sizeof(tq.fd)) == sizeof(tq.fd))
			fd = tq.fd;
		if (n % 3 == 0)
			tq_cq_advance(&tq, tq_peek_batch(&tq, cqes, 64));
		sched_yield();
	}
}

/*
 * Tasks the context holds: in its SQ, taken, or completed and not reaped.
 * On the socket no fdinfo: the client reports its indices through @idx
 * (SQ producer minus CQ consumer: submitted and not reaped).
 */
static long long in_flight(pid_t pid, int fd, const unsigned int *idx)
{
	if (idx)
		return (unsigned int)(idx[0] - idx[1]);
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
		held = in_flight(pid, fd, shared_idx);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	if (fd < 0 || !WIFSIGNALED(status))
		return -1;
	return held > 0;
}

/* tqsubmitd's resident KiB and open fds (TQ_SERVER_PID), or -1. */
static long long server_use(const char *what)
{
	const char *pid = getenv("TQ_SERVER_PID");
	char path[64], line[128];
	long long v = -1;
	FILE *f;

	if (!pid)
		return -1;
	if (!strcmp(what, "fds")) {
		DIR *dir;

		snprintf(path, sizeof(path), "/proc/%s/fd", pid);
		dir = opendir(path);
		if (!dir)
			return -1;
		for (v = 0; readdir(dir); v++)
			;
		closedir(dir);
		return v;
	}
	snprintf(path, sizeof(path), "/proc/%s/status", pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %lld", &v) == 1)
			break;
	if (f)
		fclose(f);
	return v;
}

/* Load the module again after the test's rmmod. */
static int insmod_again(void)
{
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "insmod '%s'", raw_module_path());
	return system(cmd);
}

int main(void)
{
	unsigned int i, killed = 0, held = 0;
	long long contexts, fds0 = -1, rss0 = -1;
	pid_t echod;
	int ret;

	lt_require_vm();
	if (lt_socket()) {
		shared_idx = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
				  -1, 0);
		if (shared_idx == MAP_FAILED)
			return 1;
	}
	if (!lt_stat_ok(lt_stat("contexts") == 0, "contexts", "no contexts to begin with"))
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
		if (!i) {
			usleep(100000);	/* the first round's context gone */
			fds0 = server_use("fds");
			rss0 = server_use("rss");
		}
	}
	tap_ok(killed == ROUNDS, "%u clients killed after submitting (%u)", ROUNDS, killed);
	tap_ok(held >= ROUNDS / 2, "%u of them held tasks just before SIGKILL", held);
	contexts = lt_stat_wait("contexts", 0, 10000);
	lt_stat_ok(contexts == 0, "contexts", "contexts counter back to 0 (%lld)", contexts);
	lt_stat_ok(lt_stat("in_flight") == 0, "in_flight", "nothing in flight (%lld)",
		   lt_stat("in_flight"));
	tap_diag("dropped %lld, requeued %lld, completed %lld", lt_stat("dropped"),
		 lt_stat("requeued"), lt_stat("completed"));
	fflush(stdout);
	if (lt_socket()) {
		long long fds = server_use("fds"), rss = server_use("rss");

		if (fds0 < 0) {
			tap_skip("tqsubmitd's fds and memory back", "no TQ_SERVER_PID");
			return tap_done();
		}
		/* 200 contexts of 64 KiB arenas leaked would be 12 MiB and 400 memfds */
		/* tq_echod, attached then, is gone: one fewer */
		tap_ok(fds >= 0 && fds <= fds0, "tqsubmitd holds no more fds than after round 1 "
		       "(%lld, %lld)", fds, fds0);
#ifdef __SANITIZE_ADDRESS__
		/* ASan's quarantine holds what is freed: memory says nothing there */
		(void)rss;
		(void)rss0;
		tap_skip("tqsubmitd's memory back", "an ASan build");
#else
		tap_ok(rss < rss0 + 4096, "tqsubmitd's memory within 4 MiB of round 1's (%lld KiB, "
		       "%lld KiB)", rss, rss0);
#endif
		return tap_done();
	}
	tap_ok(system("rmmod tqsubmit") == 0, "rmmod tqsubmit");
	tap_ok(insmod_again() == 0 && raw_stat("contexts") == 0, "insmod again for the next tests");
	return tap_done();
}
