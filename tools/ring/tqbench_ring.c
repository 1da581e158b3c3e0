// SPDX-License-Identifier: GPL-2.0
/*
 * tqbench-ring - the transports' speed against io_uring's, in one run on one
 * machine (the test VM is TCG, so only ratios mean anything).
 *
 * Throughput: tasks per second from clients through /dev/tqsubmit (the
 * module) and through tqsubmitd's socket to tq_echod and back, against an
 * io_uring NOP loop (IORING_OP_NOP), all in batches. Each transport that is
 * here is measured: the module with root and /dev/tqsubmit, the socket with
 * a tqsubmitd of the bench's own ($TQSUBMITD, else the one built beside
 * tq_echod) on sockets in a temporary directory. Per core: operations per
 * busy CPU-second of the whole machine (/proc/stat), since tq uses a client
 * and a daemon (and tqsubmitd) and io_uring one process. Round trip: one
 * task submitted and its completion awaited, against one NOP submitted and
 * awaited.
 *
 * The machine is shared and noisy: the batch throughput of both is measured
 * in alternating rounds, and the median of the rounds' ratios is the result.
 *
 * Usage: tqbench-ring [-t SECONDS] [-b BATCH] [-c CLIENTS] [-r ROUNDS]
 *                     [-T module|socket]
 * (-T: that transport only; make bench-ring runs it here, the socket alone,
 * and in the test VM, both)
 */
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <liburing.h>
#include <sys/wait.h>
#include <tq/clock.h>
#include <tq/num.h>
#include <tq/version.h>

#include "selftests/libtq_util.h"

#define MAX_SAMPLES	(1 << 20)
#define MAX_ROUNDS	15

static int seconds = 3;
static unsigned int batch = 32;
static unsigned int clients = 4;
static unsigned int rounds = 3;
static unsigned int open_flags;		/* the transport of the tq loops: TQ_OPEN_* */

/* What one phase measured. */
struct result {
	double ops;		/* operations completed */
	double wall_s;
	double busy_s;		/* busy CPU-seconds of the whole machine */
	double median_us;	/* round trips only */
	double p99_us;
};

/* Busy CPU-seconds of all CPUs since boot: everything but idle and iowait. */
static double busy_seconds(void)
{
	unsigned long long v[10] = { 0 };
	FILE *f = fopen("/proc/stat", "r");
	double busy;

	if (!f || fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
			 &v[3], &v[4], &v[5], &v[6], &v[7]) != 8) {
		if (f)
			fclose(f);
		return 0;
	}
	fclose(f);
	busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
	return busy / sysconf(_SC_CLK_TCK);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void percentiles(struct result *r, uint64_t *lat, size_t n)
{
	if (!n)
		return;
	qsort(lat, n, sizeof(*lat), cmp_u64);
	r->median_us = lat[n / 2] / 1000.0;
	r->p99_us = lat[n * 99 / 100] / 1000.0;
}

/* io_uring: batches of @b NOPs, each batch submitted and awaited at once. */
static double uring_loop(unsigned int b, uint64_t *lat, size_t *nlat)
{
	uint64_t end = tq_now_ns() + seconds * 1000000000ULL, t;
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	double ops = 0;
	unsigned int i, head, n;

	if (io_uring_queue_init(2 * b, &ring, 0))
		return -1;
	while ((t = tq_now_ns()) < end) {
		for (i = 0; i < b; i++)
			io_uring_prep_nop(io_uring_get_sqe(&ring));
		if (io_uring_submit_and_wait(&ring, b) != (int)b)
			return -1;
		n = 0;
		io_uring_for_each_cqe(&ring, head, cqe)
			n++;
		io_uring_cq_advance(&ring, n);
		ops += n;
		if (lat && *nlat < MAX_SAMPLES)
			lat[(*nlat)++] = tq_now_ns() - t;
	}
	io_uring_queue_exit(&ring);
	return ops;
}

/* tq: batches of @b NOP tasks; each batch submitted, then all of it reaped. */
static double tq_loop(unsigned int b, uint64_t *lat, size_t *nlat)
{
	uint64_t end = tq_now_ns() + seconds * 1000000000ULL, t, ud = 0;
	struct tq_cqe *cqes[256], *cqe;
	double ops = 0;
	unsigned int i, n;
	struct tq tq;

	if (tq_open(&tq, b, 4096, open_flags))
		return -1;
	while ((t = tq_now_ns()) < end) {
		for (i = 0; i < b; i++) {
			struct tq_desc *d = tq_get_desc(&tq);

			tq_prep_nop(d);
			tq_desc_set_data(d, ud++);
		}
		if (tq_submit(&tq) != (int)b)
			return -1;
		for (n = 0; n < b; ) {
			unsigned int got;

			if (tq_wait(&tq, &cqe, 10000))
				return -1;
			got = tq_peek_batch(&tq, cqes, 256);
			tq_cq_advance(&tq, got);
			n += got;
		}
		ops += n;
		if (lat && *nlat < MAX_SAMPLES)
			lat[(*nlat)++] = tq_now_ns() - t;
	}
	tq_close(&tq);
	return ops;
}

/*
 * tq, pipelined: submit batches of @b while the SQ has room for one, reap
 * whatever has completed, and sleep only when neither is possible. The
 * module and the daemon then see the deep queue a busy client gives them.
 */
static double tq_pipe_loop(unsigned int b, uint64_t *lat, size_t *nlat)
{
	uint64_t end = tq_now_ns() + seconds * 1000000000ULL, ud = 0;
	struct tq_cqe *cqes[1024], *cqe;
	double ops = 0;
	unsigned int i, n;
	struct tq tq;

	(void)lat;
	(void)nlat;
	if (tq_open(&tq, 1024, 4096, open_flags))
		return -1;
	while (tq_now_ns() < end) {
		int busy = 0;

		while (tq_sq_space(&tq) >= b) {
			for (i = 0; i < b; i++) {
				struct tq_desc *d = tq_get_desc(&tq);

				tq_prep_nop(d);
				tq_desc_set_data(d, ud++);
			}
			if (tq_submit(&tq) != (int)b)
				return -1;
			busy = 1;
		}
		n = tq_peek_batch(&tq, cqes, 1024);
		tq_cq_advance(&tq, n);
		ops += n;
		if (!busy && !n && tq_wait(&tq, &cqe, 10000))
			return -1;
	}
	tq_close(&tq);
	return ops;
}

/* Two processes pass a byte back and forth: the cost of any cross-process wake-up. */
static double pipe_loop(unsigned int b, uint64_t *lat, size_t *nlat)
{
	uint64_t end = tq_now_ns() + seconds * 1000000000ULL, t;
	int ab[2], ba[2];
	double ops = 0;
	pid_t pid;
	char c = 0;

	(void)b;
	if (pipe(ab) || pipe(ba))
		return -1;
	pid = fork();
	if (!pid) {
		close(ab[1]);
		close(ba[0]);
		while (read(ab[0], &c, 1) == 1 && write(ba[1], &c, 1) == 1)
			;
		_exit(0);
	}
	close(ab[0]);
	close(ba[1]);
	while ((t = tq_now_ns()) < end) {
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			return -1;
		ops++;
		if (lat && *nlat < MAX_SAMPLES)
			lat[(*nlat)++] = tq_now_ns() - t;
	}
	close(ab[1]);
	waitpid(pid, NULL, 0);
	close(ba[0]);
	return ops;
}

/*
 * Run @loop in @nproc child processes at once; sum their operations and
 * measure the machine's busy time meanwhile. With @lat, one process and its
 * round-trip samples.
 */
static int phase(struct result *r, double (*loop)(unsigned int, uint64_t *, size_t *),
		 unsigned int nproc, unsigned int b, int rtt)
{
	uint64_t *lat = NULL;
	size_t nlat = 0;
	double busy0, ops;
	uint64_t t0;
	int p[2], status, ok = 1;
	unsigned int i;

	memset(r, 0, sizeof(*r));
	if (rtt) {
		/* One process: measure here, no pipe. */
		lat = malloc(MAX_SAMPLES * sizeof(*lat));
		busy0 = busy_seconds();
		t0 = tq_now_ns();
		r->ops = loop(b, lat, &nlat);
		r->wall_s = (tq_now_ns() - t0) / 1e9;
		r->busy_s = busy_seconds() - busy0;
		percentiles(r, lat, nlat);
		free(lat);
		return r->ops > 0;
	}
	if (pipe(p))
		return 0;
	fflush(stdout);
	busy0 = busy_seconds();
	t0 = tq_now_ns();
	for (i = 0; i < nproc; i++) {
		if (!fork()) {
			ops = loop(b, NULL, NULL);
			_exit(write(p[1], &ops, sizeof(ops)) != sizeof(ops));
		}
	}
	close(p[1]);
	for (i = 0; i < nproc; i++) {
		wait(&status);
		ok &= WIFEXITED(status) && !WEXITSTATUS(status);
	}
	r->wall_s = (tq_now_ns() - t0) / 1e9;
	r->busy_s = busy_seconds() - busy0;
	while (read(p[0], &ops, sizeof(ops)) == sizeof(ops))
		r->ops += ops > 0 ? ops : 0;
	close(p[0]);
	return ok && r->ops > 0;
}

static double per_cpu(const struct result *r)
{
	return r->busy_s > 0 ? r->ops / r->busy_s : 0;
}

static void show(const char *name, const struct result *r)
{
	printf("%-40s %10.0f %10.0f", name, r->ops / r->wall_s, per_cpu(r));
	if (r->median_us > 0)
		printf(" %10.1f %10.1f\n", r->median_us, r->p99_us);
	else
		printf(" %10s %10s\n", "-", "-");
}

/* One transport's figures. */
struct tres {
	const char *name;
	unsigned int flags;	/* TQ_OPEN_* */
	pid_t echod;
	struct result r[MAX_ROUNDS], rtt1, one, many, sync, rtt;
	double ratio[MAX_ROUNDS];
};

/* tq_echod on @t's transport (it reads TQ_TRANSPORT, as libtq). */
static pid_t echod_on(struct tres *t)
{
	setenv("TQ_TRANSPORT", t->flags == TQ_OPEN_SOCKET ? "socket" : "module", 1);
	return lt_echod_start("-b", "1024");
}

int main(int argc, char **argv)
{
	struct result nop_r[MAX_ROUNDS], nop_rtt, pipe_rtt1;
	static struct tres tr[2];
	unsigned int r, k, nt = 0;
	const char *only = NULL;
	char name[80], dir[64];
	cpu_set_t cpus, all;
	pid_t tqd = -1;
	int opt, ok;

	tq_version_opt(argc, argv, "tqbench-ring");
	while ((opt = getopt(argc, argv, "t:b:c:r:T:")) != -1) {
		switch (opt) {
		case 't':
			seconds = atoi(optarg);
			break;
		case 'b':
			batch = atoi(optarg);
			break;
		case 'c':
			clients = atoi(optarg);
			break;
		case 'r':
			rounds = atoi(optarg);
			break;
		case 'T':
			only = optarg;
			break;
		default:
			fprintf(stderr, "usage: %s [-t SECONDS] [-b BATCH] [-c CLIENTS] "
				"[-r ROUNDS] [-T module|socket]\n", argv[0]);
			return 2;
		}
	}
	if (seconds < 1 || !batch || batch > 256 || !clients || !rounds || rounds > MAX_ROUNDS ||
	    (only && strcmp(only, "module") && strcmp(only, "socket"))) {
		fprintf(stderr, "tqbench-ring: bad arguments\n");
		return 2;
	}
	if (access(TQ_ECHOD, X_OK)) {
		fprintf(stderr, "tqbench-ring: %s: %s\n", TQ_ECHOD, strerror(errno));
		return 1;
	}
	if ((!only || !strcmp(only, "module")) && !access(TQ_DEVICE_PATH, R_OK | W_OK) &&
	    !geteuid())
		tr[nt++] = (struct tres){ .name = "module", .flags = TQ_OPEN_MODULE };
	else if (only && !strcmp(only, "module"))
		fprintf(stderr, "tqbench-ring: the module needs root and %s\n", TQ_DEVICE_PATH);
	if (!only || !strcmp(only, "socket")) {
		tqd = lt_tqsubmitd_start(NULL, dir);
		if (tqd > 0)
			tr[nt++] = (struct tres){ .name = "socket", .flags = TQ_OPEN_SOCKET };
	}
	if (!nt || (only && nt != 1)) {
		fprintf(stderr, "tqbench-ring: no transport to measure (the module needs root and "
			"%s; the socket tqsubmitd)\n", TQ_DEVICE_PATH);
		return 1;
	}

	printf("tqbench-ring: %ld CPUs, %d s per phase, batches of %u; transports:",
	       sysconf(_SC_NPROCESSORS_ONLN), seconds, batch);
	for (k = 0; k < nt; k++)
		printf(" %s", tr[k].name);
	printf("\n%-44s %10s %10s %10s %10s\n", "phase", "ops/s", "ops/CPU-s", "median us",
	       "p99 us");
	/*
	 * Per core: the io_uring loop, and tq's client and daemon (and
	 * tqsubmitd) together, on CPU 0 alone; each round runs the NOPs and
	 * then each transport, so that a round's ratios share its NOPs.
	 */
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	sched_getaffinity(0, sizeof(all), &all);
	sched_setaffinity(0, sizeof(cpus), &cpus);
	if (tqd > 0)
		sched_setaffinity(tqd, sizeof(cpus), &cpus);
	ok = 1;
	for (k = 0; k < nt; k++)
		ok &= (tr[k].echod = echod_on(&tr[k])) > 0;
	for (r = 0; ok && r < rounds; r++) {
		ok = phase(&nop_r[r], uring_loop, 1, batch, 0);
		for (k = 0; ok && k < nt; k++) {
			open_flags = tr[k].flags;
			ok = phase(&tr[k].r[r], tq_pipe_loop, 1, batch, 0);
			tr[k].ratio[r] = per_cpu(&tr[k].r[r]) / per_cpu(&nop_r[r]);
		}
	}
	ok = ok && phase(&nop_rtt, uring_loop, 1, 1, 1) && phase(&pipe_rtt1, pipe_loop, 1, 1, 1);
	for (k = 0; ok && k < nt; k++) {
		open_flags = tr[k].flags;
		ok = phase(&tr[k].rtt1, tq_loop, 1, 1, 1);
	}
	for (k = 0; k < nt; k++)
		lt_echod_stop(tr[k].echod);

	/* Where the scheduler puts them. */
	sched_setaffinity(0, sizeof(all), &all);
	if (tqd > 0)
		sched_setaffinity(tqd, sizeof(all), &all);
	for (k = 0; ok && k < nt; k++) {
		open_flags = tr[k].flags;
		tr[k].echod = echod_on(&tr[k]);
		ok = tr[k].echod > 0 && phase(&tr[k].one, tq_pipe_loop, 1, batch, 0) &&
		     phase(&tr[k].many, tq_pipe_loop, clients, batch, 0) &&
		     phase(&tr[k].sync, tq_loop, 1, batch, 0) && phase(&tr[k].rtt, tq_loop, 1, 1, 1);
		lt_echod_stop(tr[k].echod);
	}
	if (tqd > 0)
		lt_tqsubmitd_stop(tqd, dir);
	if (!ok) {
		fprintf(stderr, "tqbench-ring: a loop or tq_echod failed\n");
		return 1;
	}

	printf("on CPU 0 only:\n");
	for (r = 0; r < rounds; r++) {
		snprintf(name, sizeof(name), "io_uring NOP, batch %u, round %u", batch, r + 1);
		show(name, &nop_r[r]);
		for (k = 0; k < nt; k++) {
			snprintf(name, sizeof(name), "tq %s NOP, 1 client, batch %u, round %u",
				 tr[k].name, batch, r + 1);
			show(name, &tr[k].r[r]);
		}
	}
	show("io_uring NOP round trip", &nop_rtt);
	show("pipe ping-pong round trip", &pipe_rtt1);
	for (k = 0; k < nt; k++) {
		snprintf(name, sizeof(name), "tq %s NOP round trip", tr[k].name);
		show(name, &tr[k].rtt1);
	}
	printf("on any CPU:\n");
	for (k = 0; k < nt; k++) {
		snprintf(name, sizeof(name), "tq %s NOP, 1 client, batch %u", tr[k].name, batch);
		show(name, &tr[k].one);
		snprintf(name, sizeof(name), "tq %s NOP, %u clients, batch %u", tr[k].name, clients,
			 batch);
		show(name, &tr[k].many);
		snprintf(name, sizeof(name), "tq %s NOP, 1 client, batch %u, wait each", tr[k].name,
			 batch);
		show(name, &tr[k].sync);
		snprintf(name, sizeof(name), "tq %s NOP round trip", tr[k].name);
		show(name, &tr[k].rtt);
	}

	for (k = 0; k < nt; k++) {
		const char *n = tr[k].name;
		double *ratio = tr[k].ratio;

		qsort(ratio, rounds, sizeof(ratio[0]), tq_cmp_double);
		printf("ratio tq %s/io_uring, per busy CPU-s, batch %u, one CPU: %.3f (median of %u "
		       "rounds, %.3f..%.3f; target >= 0.25)\n", n, batch, ratio[rounds / 2], rounds,
		       ratio[0], ratio[rounds - 1]);
		printf("ratio tq %s/io_uring, per busy CPU-s, %u clients on any CPU: %.3f "
		       "(last round's NOP)\n", n, clients,
		       per_cpu(&tr[k].many) / per_cpu(&nop_r[rounds - 1]));
		printf("ratio tq %s/io_uring, median round trip: %.0f\n", n,
		       tr[k].rtt1.median_us / nop_rtt.median_us);
		printf("ratio tq %s/pipe ping-pong, median round trip: %.2f\n", n,
		       tr[k].rtt1.median_us / pipe_rtt1.median_us);
	}
	if (nt == 2)
		printf("ratio tq socket/module, per busy CPU-s, batch %u, one CPU: %.3f; median "
		       "round trip: %.2f\n", batch, tr[1].ratio[rounds / 2] / tr[0].ratio[rounds / 2],
		       tr[1].rtt1.median_us / tr[0].rtt1.median_us);
	return 0;
}
