// SPDX-License-Identifier: GPL-2.0
/*
 * Chains through libtq (tq_desc_set_after()), on either transport, against
 * tq_echod, a scheduler that does not take chains itself: the server holds
 * each successor until its predecessor completed, so a chain of tasks
 * submitted at once completes in chain order; against tq_echod -e EIO the
 * head fails and the rest of its chain completes -ECANCELED, while a task
 * outside the chain fails on its own.
 */
#include "selftests/tap.h"
#include "libtq_util.h"

#define N	16

/* Submit a chain of n tasks (user_data base ..) and an unchained one (base + n). */
static int submit_chain(struct tq *tq, uint64_t base, unsigned int n)
{
	static const size_t global[1] = { 64 };
	struct tq_desc *d;
	unsigned int i;

	for (i = 0; i <= n; i++) {
		d = tq_get_desc(tq);
		if (!d)
			return -ENOSPC;
		tq_prep_task(d, 1, 1, 1, global, NULL);
		tq_desc_set_data(d, base + i);
		if (i && i < n)
			tq_desc_set_after(d, 1);
	}
	return tq_submit(tq) < 0 ? -EIO : 0;
}

/* Reap want completions into ud[] and st[], in order: the count. */
static unsigned int reap(struct tq *tq, uint64_t *ud, int *st, unsigned int want)
{
	unsigned int got = 0;
	int64_t end = lt_now_ms() + 20000;

	while (got < want && lt_now_ms() < end) {
		struct tq_cqe *cqe;

		if (tq_wait(tq, &cqe, 1000))
			continue;
		ud[got] = cqe->user_data;
		st[got++] = cqe->status;
		tq_cq_advance(tq, 1);
	}
	return got;
}

int main(void)
{
	uint64_t ud[N + 1];
	int st[N + 1], pos[N + 1];
	unsigned int i, got, ordered = 0, cancelled = 0;
	struct tq_desc d = { 0 };
	struct tq tq;
	pid_t echod;

	lt_require_vm();
	tq_desc_set_after(&d, 3);
	tap_ok(d.flags == TQ_DESC_F_AFTER && d.after == 3, "tq_desc_set_after sets the flag and after");
	if (tq_open(&tq, 64, 4096, 0)) {
		tap_ok(0, "tq_open");
		return tap_done();
	}
	tap_ok(tq.features & TQ_FEAT_CHAINS, "the server has TQ_FEAT_CHAINS");

	echod = lt_echod_start(NULL, NULL);
	tap_ok(echod > 0, "tq_echod attached");
	tap_ok(!submit_chain(&tq, 0, N), "a chain of %d tasks and one unchained, submitted at once", N);
	got = reap(&tq, ud, st, N + 1);
	for (i = 0; i <= N; i++)
		pos[i] = -1;
	for (i = 0; i < got; i++)
		if (ud[i] <= N && !st[i])
			pos[ud[i]] = i;
	for (i = 1; i < N; i++)
		ordered += pos[i] > pos[i - 1] && pos[i - 1] >= 0;
	tap_ok(got == N + 1 && ordered == N - 1,
	       "all complete with 0, the chain in its order (%u of %d links)", ordered, N - 1);
	lt_echod_stop(echod);

	echod = lt_echod_start("-e", "5");	/* EIO */
	tap_ok(echod > 0, "tq_echod -e EIO attached");
	tap_ok(!submit_chain(&tq, 100, 4), "a chain of 4 and one unchained");
	got = reap(&tq, ud, st, 5);
	for (i = 0; i < got; i++)
		cancelled += ud[i] > 100 && ud[i] < 104 && st[i] == -ECANCELED;
	for (i = 0; i < got && (ud[i] != 100 || st[i] != -EIO); i++)
		;
	tap_ok(got == 5 && i < got && cancelled == 3,
	       "the head fails (-EIO), the 3 after it complete -ECANCELED (%u)", cancelled);
	for (i = 0; i < got && (ud[i] != 104 || st[i] != -EIO); i++)
		;
	tap_ok(i < got, "the unchained task ran and failed on its own");
	lt_echod_stop(echod);
	tq_close(&tq);
	return tap_done();
}
