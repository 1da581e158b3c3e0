// SPDX-License-Identifier: GPL-2.0
/*
 * test_marks.c - the daemon's side of requeue semantics and of device
 * recovery, natively (no module, no device): loop_started() writes one
 * TQ_COMPL_F_STARTED record per task, synchronously and only when the
 * module has TQ_FEAT_IDEMPOTENT; a record refused is counted, not retried
 * for ever; loop_wedged() writes every queued completion, then re-executes
 * the program with its arguments and the recovery count in the environment,
 * every other file descriptor closed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon.h"
#include "selftests/tap.h"

/* The core's user_data of a daemon task is its struct dtask, which holds the tag. */
static struct dtask dt[3] = { { .tag = 0x1001 }, { .tag = 0x1002 }, { .tag = 0x2001 } };
static const struct usched_start tasks[3] = {
	{ (uint64_t)1234 << 32 | 7, (uintptr_t)&dt[0] },
	{ (uint64_t)1234 << 32 | 7, (uintptr_t)&dt[1] },
	{ (uint64_t)99 << 32 | 8, (uintptr_t)&dt[2] },
};

/* The records in the pipe, at most max; how many. */
static int drain(int fd, struct tq_completion *c, int max)
{
	ssize_t n = read(fd, c, max * sizeof(*c));

	return n < 0 ? 0 : n / (int)sizeof(*c);
}

static void test_started(void)
{
	struct daemon d = { .features = TQ_FEAT_IDEMPOTENT };
	struct tq_completion c[8];
	struct dctx ctx = { .id = 7, .pid = 1234 };
	int p[2], n, ok = 1;

	tap_ok(ctx_owner(&ctx) == tasks[0].owner && (uint32_t)ctx_owner(&ctx) == 7,
	       "ctx_owner(): the pid above, the context id in the low 32 bits");
	if (pipe2(p, O_NONBLOCK)) {
		tap_ok(0, "pipe");
		return;
	}
	d.fd = p[1];
	loop_started(&d, tasks, 3);
	n = drain(p[0], c, 8);
	for (int i = 0; i < n; i++) {
		struct tq_completion want = { .ctx_id = (uint32_t)tasks[i].owner,
					      .flags = TQ_COMPL_F_STARTED,
					      .tag = dt[i].tag };

		ok &= !memcmp(&c[i], &want, sizeof(want));
	}
	tap_ok(n == 3 && ok, "with TQ_FEAT_IDEMPOTENT: a started mark per task, all else zero "
	       "(%d records)", n);
	d.features = TQ_FEAT_REQUEUE;
	loop_started(&d, tasks, 3);
	tap_ok(drain(p[0], c, 8) == 0, "without it: no record (the module would refuse them)");
	close(p[0]);	/* the writes now fail (EPIPE; SIGPIPE is ignored) */
	d.features = TQ_FEAT_IDEMPOTENT;
	loop_started(&d, tasks, 3);
	tap_ok(d.st.write_errors == 3, "a refused mark is counted and skipped (%llu)",
	       (unsigned long long)d.st.write_errors);
	close(p[1]);
}

/* The re-executed image: arguments, environment, and no fd but 0-2 left open. */
static int reexecuted(const char *fd)
{
	const char *r = getenv(USCHED_RECOVERIES_ENV);

	if (!r || strcmp(r, "3"))
		return 10;
	if (fcntl(atoi(fd), F_GETFD) != -1 || errno != EBADF)
		return 11;
	return 0;
}

static void test_wedged(void)
{
	struct tq_completion c[4], want = { .ctx_id = 7, .tag = 0x1001, .status = -ETIME };
	char fdarg[16], self[] = "daemon-marks", flag[] = "--reexecuted";
	char *argv[] = { self, flag, fdarg, NULL };
	int p[2], st = -1, n;
	pid_t pid;

	if (pipe(p)) {
		tap_ok(0, "pipe");
		return;
	}
	snprintf(fdarg, sizeof(fdarg), "%d", p[1]);
	pid = fork();
	if (!pid) {
		struct daemon d = { .fd = p[1], .argv = argv };

		close(p[0]);
		d.st.recoveries = 2;
		complete_task(&d, 7, 0x1001, -ETIME, 0, 0, 0, 0);
		loop_wedged(&d);	/* does not return */
		_exit(99);
	}
	close(p[1]);
	n = drain(p[0], c, 4);
	waitpid(pid, &st, 0);
	close(p[0]);
	tap_ok(n == 1 && !memcmp(&c[0], &want, sizeof(want)),
	       "loop_wedged(): the queued -ETIME completion written before the exec (%d)", n);
	tap_ok(WIFEXITED(st) && WEXITSTATUS(st) == 0, "then re-executed with its arguments, "
	       "recovery 3 in the environment, the other fds closed (status %d)",
	       WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--reexecuted"))
		return reexecuted(argv[2]);
	signal(SIGPIPE, SIG_IGN);
	dlog_init(true, false);
	test_started();
	test_wedged();
	return tap_done();
}
