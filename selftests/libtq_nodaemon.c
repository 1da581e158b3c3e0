// SPDX-License-Identifier: GPL-2.0
/*
 * Submitting with no scheduler attached: tq_submit succeeds, the tasks wait
 * in the SQ (nothing is taken, nothing completes), tq_wait times out. Then
 * tq_echod attaches and every task is delivered and completes once. A
 * second client that gives up before the scheduler comes leaves nothing.
 */
#include <sys/wait.h>

#include "selftests/tap.h"
#include "libtq_util.h"

#define TASKS	100

static int submit_nops(struct tq *tq, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct tq_desc *d = tq_get_desc(tq);

		if (!d)
			return -1;
		tq_prep_nop(d);
		tq_desc_set_data(d, i);
	}
	return tq_submit(tq);
}

int main(void)
{
	static unsigned char seen[TASKS];
	struct tq tq, quitter;
	struct tq_cqe *cqe;
	unsigned int got = 0, twice = 0;
	long long pending;
	pid_t echod;
	int ret;

	lt_require_vm();
	if (!lt_stat_ok(lt_stat("scheduler_pid") == 0, "scheduler_pid", "no scheduler attached"))
		return tap_done();
	if (!tap_ok(!tq_open(&tq, 128, 4096, 0) && !tq_open(&quitter, 8, 4096, 0), "tq_open x2"))
		return tap_done();
	tap_ok(submit_nops(&tq, TASKS) == TASKS, "tq_submit publishes %d tasks", TASKS);
	tap_ok(submit_nops(&quitter, 8) == 8, "the second client submits 8");
	ret = tq_wait(&tq, &cqe, 300);
	tap_ok(ret == -ETIME, "tq_wait times out: %s", tq_strerror(ret));
	/* the SQ's indices as the server keeps them: fdinfo; on the socket, the shared ones */
	if (lt_socket())
		tap_ok(*tq.sq.kconsumer == 0 && *tq.sq.kproducer == TASKS,
		       "the tasks wait in the SQ, none taken (consumer index 0)");
	else
		tap_ok(lt_fdinfo(0, tq.fd, "sq-tail") == TASKS &&
		       lt_fdinfo(0, tq.fd, "sq-head") == 0, "the tasks wait in the SQ, none taken");
	tq_close(&quitter);
	lt_stat_ok(lt_stat_wait("contexts", 1, 5000) == 1, "contexts",
		   "the client that gave up is gone");

	echod = lt_echod_start(NULL, NULL);
	tap_ok(echod > 0, "tq_echod attached");
	while (got < TASKS && !tq_wait(&tq, &cqe, 10000)) {
		if (cqe->user_data >= TASKS || seen[cqe->user_data]++ || cqe->status)
			twice++;
		tq_cqe_seen(&tq, cqe);
		got++;
	}
	tap_ok(got == TASKS && !twice, "all %d delivered once after the attach (%u bad)", TASKS,
	       twice);
	pending = lt_socket() ? 0 : lt_fdinfo(0, tq.fd, "pending");
	tap_ok(tq_wait(&tq, &cqe, 200) == -ETIME && pending == 0, "and nothing more");
	tq_close(&tq);
	tap_ok(WIFEXITED(lt_echod_stop(echod)), "tq_echod exits cleanly");
	lt_stat_ok(lt_stat_wait("contexts", 0, 5000) == 0, "contexts", "every context freed");
	return tap_done();
}
