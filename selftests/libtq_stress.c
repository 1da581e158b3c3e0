// SPDX-License-Identifier: GPL-2.0
/*
 * 16 client processes submit 10,000 tasks each through libtq to tq_echod;
 * every user_data completes exactly once, with status 0, and the module's
 * counters agree (tqsubmitd's, on the socket). Each task is a real
 * TQ_OP_TASK (a buffer and a scalar, ids from registering a built-in
 * program), so every descriptor passes the server's validation.
 */
#include <stdlib.h>
#include <sys/wait.h>

#include "selftests/tap.h"
#include "libtq_util.h"

#define CLIENTS		16
#define TASKS		10000
#define ENTRIES		128

/* Why a client failed: its exit status indexes this. */
static const char *const why[] = {
	"ok", "tq_open", "registration", "tq_submit", "tq_wait", "bad status",
	"user_data out of range", "user_data completed twice", "fdinfo counts disagree",
	"a completion after the last",
};

static int client(unsigned int id)
{
	static unsigned char seen[TASKS];
	size_t global[1] = { 256 };
	struct tq_cqe *cqes[ENTRIES];
	unsigned int sent = 0, done = 0, i, n;
	uint32_t prog, kern, scalar = 7;
	uint64_t off;
	struct tq tq;
	void *buf;
	int ret;

	if (tq_open(&tq, ENTRIES, 1 << 16, 0))
		return 1;
	if (tq_register_builtin(&tq, "VA", &prog) ||
	    tq_lookup_kernel(&tq, prog, "vec_add", &kern) ||
	    tq_buf_alloc(&tq, 4096, &buf, &off))
		return 2;
	while (done < TASKS) {
		struct tq_desc *d;
		struct tq_cqe *cqe;

		while (sent < TASKS && (d = tq_get_desc(&tq))) {
			tq_prep_task(d, prog, kern, 1, global, NULL);
			tq_prep_buf(d, 0, off, 4096, TQ_DIR_INOUT);
			tq_prep_scalar(d, 1, &scalar, sizeof(scalar));
			tq_desc_set_data(d, (uint64_t)id << 32 | sent++);
		}
		if (tq_submit(&tq) < 0)
			return 3;
		ret = tq_wait(&tq, &cqe, 20000);
		if (ret) {
			lt_fdinfo_dump(tq.fd);
			return 4;
		}
		n = tq_peek_batch(&tq, cqes, ENTRIES);
		for (i = 0; i < n; i++) {
			uint64_t ud = cqes[i]->user_data;

			if (cqes[i]->status)
				return 5;
			if (ud >> 32 != id || (uint32_t)ud >= TASKS)
				return 6;
			if (seen[(uint32_t)ud]++)
				return 7;
		}
		tq_cq_advance(&tq, n);
		done += n;
	}
	/* Two registrations and the tasks, each taken and completed once (no fdinfo on the socket). */
	if (!lt_socket() && (lt_fdinfo(0, tq.fd, "submitted") != TASKS + 2 ||
			     lt_fdinfo(0, tq.fd, "completed") != TASKS + 2))
		return 8;
	if (tq_wait(&tq, cqes, 100) != -ETIME)
		return 9;
	tq_close(&tq);
	return 0;
}

int main(void)
{
	long long completed0, submitted0;
	pid_t echod, pids[CLIENTS];
	int i, bad = 0, status;
	int64_t t0;

	lt_require_vm();
	echod = lt_echod_start("-b", "256");
	if (!tap_ok(echod > 0, "tq_echod attached"))
		return tap_done();
	completed0 = lt_stat("completed");
	submitted0 = lt_stat("submitted");

	t0 = lt_now_ms();
	for (i = 0; i < CLIENTS; i++) {
		pids[i] = fork();
		if (!pids[i])
			_exit(client(i));
	}
	for (i = 0; i < CLIENTS; i++) {
		unsigned int code;

		waitpid(pids[i], &status, 0);
		code = WIFEXITED(status) ? WEXITSTATUS(status) : 255;
		if (code) {
			bad++;
			tap_diag("client %d: %s", i,
				 code < sizeof(why) / sizeof(why[0]) ? why[code] : "died");
		}
	}
	tap_ok(!bad, "%d clients x %d tasks: each user_data completed exactly once", CLIENTS,
	       TASKS);
	tap_diag("%d tasks in %.1f s in this guest", CLIENTS * TASKS,
		 (lt_now_ms() - t0) / 1000.0);
	lt_stat_ok(lt_stat("submitted") - submitted0 == CLIENTS * (TASKS + 2) &&
		   lt_stat("completed") - completed0 == CLIENTS * (TASKS + 2), "submitted",
		   "server counters: %lld submitted, %lld completed",
		   lt_stat("submitted") - submitted0, lt_stat("completed") - completed0);
	lt_stat_ok(lt_stat("in_flight") == 0, "in_flight", "nothing in flight");
	lt_stat_ok(lt_stat_wait("contexts", 0, 5000) == 0, "contexts", "every context freed");
	tap_ok(WIFEXITED(lt_echod_stop(echod)), "tq_echod exits cleanly");
	return tap_done();
}
