// SPDX-License-Identifier: GPL-2.0
/*
 * tqbench-ring - the transport's speed against io_uring's, in one run on one
 * machine (the test VM is TCG, so only ratios mean anything).
 *
 * Throughput: tasks per second from clients through /dev/tqsubmit to
 * tq_echod and back, against an io_uring NOP loop (IORING_OP_NOP), both in
 * batches. Per core: operations per busy CPU-second of the whole machine
 * (/proc/stat), since tq uses a client and a daemon and io_uring one
 * process. Round trip: one task submitted and its completion awaited,
 * against one NOP submitted and awaited.
 *
 * The machine is shared and noisy: the batch throughput of both is measured
 * in alternating rounds, and the median of the rounds' ratios is the result.
 *
 * Usage: tqbench-ring [-t SECONDS] [-b BATCH] [-c CLIENTS] [-r ROUNDS]
 * (root, module loaded, in the test VM: make bench-ring)
 */
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <liburing.h>
#include <sys/wait.h>

#include "libtq_util.h"

#define MAX_SAMPLES	(1 << 20)
#define MAX_ROUNDS	15

static int seconds = 3;
static unsigned int batch = 32;
static unsigned int clients = 4;
static unsigned int rounds = 3;

/* What one phase measured. */
struct result {
	double ops;		/* operations completed */
	double wall_s;
	double busy_s;		/* busy CPU-seconds of the whole machine */
	double median_us;	/* round trips only */
	double p99_us;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

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

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

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
	uint64_t end = now_ns() + seconds * 1000000000ULL, t;
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	double ops = 0;
	unsigned int i, head, n;

	if (io_uring_queue_init(2 * b, &ring, 0))
		return -1;
	while ((t = now_ns()) < end) {
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
			lat[(*nlat)++] = now_ns() - t;
	}
	io_uring_queue_exit(&ring);
	return ops;
}

/* tq: batches of @b NOP tasks; each batch submitted, then all of it reaped. */
static double tq_loop(unsigned int b, uint64_t *lat, size_t *nlat)
{
	uint64_t end = now_ns() + seconds * 1000000000ULL, t, ud = 0;
	struct tq_cqe *cqes[256], *cqe;
	double ops = 0;
	unsigned int i, n;
	struct tq tq;

	if (tq_open(&tq, b, 4096, 0))
		return -1;
	while ((t = now_ns()) < end) {
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
			lat[(*nlat)++] = now_ns() - t;
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
	uint64_t end = now_ns() + seconds * 1000000000ULL, ud = 0;
	struct tq_cqe *cqes[1024], *cqe;
	double ops = 0;
	unsigned int i, n;
	struct tq tq;

	(void)lat;
	(void)nlat;
	if (tq_open(&tq, 1024, 4096, 0))
		return -1;
	while (now_ns() < end) {
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
	uint64_t end = now_ns() + seconds * 1000000000ULL, t;
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
	while ((t = now_ns()) < end) {
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			return -1;
		ops++;
		if (lat && *nlat < MAX_SAMPLES)
			lat[(*nlat)++] = now_ns() - t;
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
		t0 = now_ns();
		r->ops = loop(b, lat, &nlat);
		r->wall_s = (now_ns() - t0) / 1e9;
		r->busy_s = busy_seconds() - busy0;
		percentiles(r, lat, nlat);
		free(lat);
		return r->ops > 0;
	}
	if (pipe(p))
		return 0;
	fflush(stdout);
	busy0 = busy_seconds();
	t0 = now_ns();
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
	r->wall_s = (now_ns() - t0) / 1e9;
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

int main(int argc, char **argv)
{
	struct result nop_r[MAX_ROUNDS], tq_r[MAX_ROUNDS], tq1, tqn, tq_sync;
	struct result nop_rtt, tq_rtt, pipe_rtt1, tq_rtt1;
	double ratio[MAX_ROUNDS];
	cpu_set_t cpus, all;
	unsigned int r;
	char name[64];
	pid_t echod;
	int opt, ok;

	while ((opt = getopt(argc, argv, "t:b:c:r:")) != -1) {
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
		default:
			fprintf(stderr, "usage: %s [-t SECONDS] [-b BATCH] [-c CLIENTS] "
				"[-r ROUNDS]\n", argv[0]);
			return 2;
		}
	}
	if (seconds < 1 || !batch || batch > 256 || !clients || !rounds || rounds > MAX_ROUNDS) {
		fprintf(stderr, "tqbench-ring: bad arguments\n");
		return 2;
	}
	if (access(TQ_DEVICE_PATH, R_OK | W_OK) || geteuid() || access(TQ_ECHOD, X_OK)) {
		fprintf(stderr, "tqbench-ring: needs root, %s and %s (run it in the test VM)\n",
			TQ_DEVICE_PATH, TQ_ECHOD);
		return 1;
	}

	printf("tqbench-ring: %ld CPUs, %d s per phase, batches of %u\n",
	       sysconf(_SC_NPROCESSORS_ONLN), seconds, batch);
	printf("%-40s %10s %10s %10s %10s\n", "phase", "ops/s", "ops/CPU-s", "median us",
	       "p99 us");
	/*
	 * Per core: the io_uring loop, and tq's client and daemon together,
	 * on CPU 0 alone.
	 */
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	sched_getaffinity(0, sizeof(all), &all);
	sched_setaffinity(0, sizeof(cpus), &cpus);
	echod = lt_echod_start("-b", "1024");
	ok = echod > 0;
	for (r = 0; ok && r < rounds; r++) {
		ok = phase(&nop_r[r], uring_loop, 1, batch, 0) &&
		     phase(&tq_r[r], tq_pipe_loop, 1, batch, 0);
		ratio[r] = per_cpu(&tq_r[r]) / per_cpu(&nop_r[r]);
	}
	ok = ok && phase(&nop_rtt, uring_loop, 1, 1, 1) && phase(&pipe_rtt1, pipe_loop, 1, 1, 1) &&
	     phase(&tq_rtt1, tq_loop, 1, 1, 1);
	lt_echod_stop(echod);

	/* Where the scheduler puts them. */
	sched_setaffinity(0, sizeof(all), &all);
	echod = ok ? lt_echod_start("-b", "1024") : -1;
	ok = echod > 0 && phase(&tq1, tq_pipe_loop, 1, batch, 0) &&
	     phase(&tqn, tq_pipe_loop, clients, batch, 0) &&
	     phase(&tq_sync, tq_loop, 1, batch, 0) && phase(&tq_rtt, tq_loop, 1, 1, 1);
	lt_echod_stop(echod);
	if (!ok) {
		fprintf(stderr, "tqbench-ring: a loop or tq_echod failed\n");
		return 1;
	}

	printf("on CPU 0 only:\n");
	for (r = 0; r < rounds; r++) {
		snprintf(name, sizeof(name), "io_uring NOP, batch %u, round %u", batch, r + 1);
		show(name, &nop_r[r]);
		snprintf(name, sizeof(name), "tq NOP, 1 client, batch %u, round %u", batch, r + 1);
		show(name, &tq_r[r]);
	}
	show("io_uring NOP round trip", &nop_rtt);
	show("pipe ping-pong round trip", &pipe_rtt1);
	show("tq NOP round trip", &tq_rtt1);
	printf("on any CPU:\n");
	snprintf(name, sizeof(name), "tq NOP, 1 client, batch %u", batch);
	show(name, &tq1);
	snprintf(name, sizeof(name), "tq NOP, %u clients, batch %u", clients, batch);
	show(name, &tqn);
	snprintf(name, sizeof(name), "tq NOP, 1 client, batch %u, wait each", batch);
	show(name, &tq_sync);
	show("tq NOP round trip", &tq_rtt);

	qsort(ratio, rounds, sizeof(ratio[0]), cmp_double);
	printf("ratio tq/io_uring, per busy CPU-s, batch %u, one CPU: %.3f (median of %u rounds, "
	       "%.3f..%.3f; target >= 0.25)\n", batch, ratio[rounds / 2], rounds, ratio[0],
	       ratio[rounds - 1]);
	printf("ratio tq/io_uring, per busy CPU-s, %u clients on any CPU: %.3f "
	       "(last round's NOP)\n", clients, per_cpu(&tqn) / per_cpu(&nop_r[rounds - 1]));
	printf("ratio tq/io_uring, median round trip: %.0f\n",
	       tq_rtt1.median_us / nop_rtt.median_us);
	printf("ratio tq/pipe ping-pong, median round trip: %.2f\n",
	       tq_rtt1.median_us / pipe_rtt1.median_us);
	return 0;
}
