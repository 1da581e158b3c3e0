// SPDX-License-Identifier: GPL-2.0
/*
 * instances.c - the evaluation's instances, which `tqsim eval` runs and
 * `tqsim bench` times: the paper's tables read from data/, the devices, and
 * the seeded random TGs drawn from the real-task ranges, each instance from
 * a stream of its own so that either command rebuilds the same TGs.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <tq/num.h>
#include <tq/rand.h>

#include "cli.h"

const int eval_sizes[EVAL_NSIZES] = { 4, 6, 8, 12, 16 };

static uint64_t rng = 0x5eed;	/* the instance being drawn, then eval's samples */

/*
 * Each instance draws from its own stream, so the bench can rebuild the
 * evaluation's TGs without running it. splitmix64's finalizer turns nearby
 * indices into unrelated xorshift seeds (xorshift64: sim-eval.md's TGs).
 */
static void seed_instance(uint64_t index)
{
	rng = tq_rand_mix(0x5eed + index * TQ_RAND_GAMMA) | 1;
}

double eval_uniform(double lo, double hi)
{
	return lo + (hi - lo) * (double)(tq_xorshift64(&rng) >> 11) * 0x1.0p-53;
}

/* ---- the data files ---- */

static FILE *open_data(const char *dir, const char *name)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		fprintf(stderr, "%s:0: cannot read: %s\n", path, strerror(errno));
	return f;
}

/* Next data line (comments and the header skipped), or NULL. */
static char *data_line(FILE *f, char *buf, size_t len, bool *header_seen)
{
	while (fgets(buf, len, f)) {
		buf[strcspn(buf, "\r\n")] = 0;
		if (!*buf || *buf == '#')
			continue;
		if (!*header_seen) {
			*header_seen = true;
			continue;
		}
		return buf;
	}
	return NULL;
}

int eval_load(const char *dir, struct eval_data *d)
{
	char buf[256], dev[32], dom[8], task[16];
	unsigned int nsyn = 0, nbk = 0;
	bool hdr = false;
	double v[6];
	FILE *f;

	if (!(f = open_data(dir, "synthetic_tasks.csv")))
		return -1;
	while (data_line(f, buf, sizeof(buf), &hdr))
		if (nsyn < 8 && sscanf(buf, "T%*d,%lf,%lf,%lf", &v[0], &v[1], &v[2]) == 3) {
			for (int s = 0; s < TQSIM_STAGES; s++)
				d->syn[nsyn][s] = v[s] * 10;	/* the paper's unit: 10 ms */
			nsyn++;
		}
	fclose(f);
	if (!(f = open_data(dir, "synthetic_benchmarks.csv")))
		return -1;
	hdr = false;
	while (data_line(f, buf, sizeof(buf), &hdr)) {
		int t[4];

		if (nbk < 5 && sscanf(buf, "BK%*d,T%d T%d T%d T%d", &t[0], &t[1], &t[2], &t[3]) == 4) {
			for (int i = 0; i < 4; i++)
				d->bk[nbk][i] = t[i] & 7;
			nbk++;
		}
	}
	fclose(f);
	if (!(f = open_data(dir, "real_task_ranges.csv")))
		return -1;
	hdr = false;
	while (data_line(f, buf, sizeof(buf), &hdr) && d->nreal < 24) {
		unsigned int i = d->nreal;

		if (sscanf(buf, "%31[^,],%15[^,],%7[^,],%lf,%lf,%lf,%lf,%lf,%lf", dev, task, dom,
			   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]) != 9)
			continue;
		d->real_dk[i] = !strcmp(dom, "DK");
		for (int s = 0; s < TQSIM_STAGES; s++) {
			/* two cells are garbled in the source (min > max): take them swapped */
			d->real[i][s][0] = fmin(v[2 * s], v[2 * s + 1]);
			d->real[i][s][1] = fmax(v[2 * s], v[2 * s + 1]);
		}
		d->nreal++;
	}
	fclose(f);
	if (nsyn != 8 || nbk != 5 || d->nreal != 24) {
		fprintf(stderr, "tqsim eval: %s: expected 8 synthetic tasks, 5 benchmarks and "
			"24 real tasks\n", dir);
		return -1;
	}
	return 0;
}

static const struct {
	unsigned int dma;
	double slow;
	const char *name;
} devs[] = {
	{ 2, 1.0, "dma 2, slow 1.00" },
	{ 2, 1.08, "dma 2, slow 1.08" },
	{ 1, 1.0, "dma 1" },	/* one copy engine: no overlap, slow has no effect */
};

static const int mixes[] = { 0, 25, 50, 75, 100 };
_Static_assert(sizeof(devs) / sizeof(devs[0]) == EVAL_DEVS &&
	       sizeof(mixes) / sizeof(mixes[0]) == EVAL_NMIXES, "cli.h's eval sizes");

const char *eval_dev_name(unsigned int i)
{
	return devs[i].name;
}

void eval_dev(struct tqsim_dev *dev, unsigned int i)
{
	tqsim_dev_init(dev);
	dev->dma = devs[i].dma;
	dev->slow[TQSIM_HTD] = dev->slow[TQSIM_DTH] = devs[i].slow;
}

/* ---- instances ---- */

/* A random TG of @T tasks, @dk_pct% dominant kernel, from one device's real tasks. */
static void random_tg(const struct eval_data *d, struct tqsim_tg *tg, unsigned int T, int dk_pct,
		      unsigned int device)
{
	unsigned int ndk = (T * dk_pct + 50) / 100;

	tqsim_tg_init(tg);
	for (unsigned int t = 0; t < T; t++) {
		bool dk = t < ndk;
		unsigned int pick[8], np = 0, i;
		double ms[TQSIM_STAGES];

		/* the device's tasks of that dominance (rows 8*device ..) */
		for (i = 8 * device; i < 8 * device + 8; i++)
			if (d->real_dk[i] == dk)
				pick[np++] = i;
		if (!np)		/* no such task on this device: any task */
			for (i = 8 * device; i < 8 * device + 8; i++)
				pick[np++] = i;
		i = pick[(unsigned int)eval_uniform(0, np)];
		for (int s = 0; s < TQSIM_STAGES; s++)
			ms[s] = eval_uniform(d->real[i][s][0], d->real[i][s][1]);
		tqsim_tg_add(tg, ms[0] * NS_PER_MS, ms[1] * NS_PER_MS, ms[2] * NS_PER_MS);
	}
}

/*
 * The TGs of one row of the random table: @seeds for each mix, tasks of a
 * device taken in turn, each instance from its own seed.
 */
unsigned int eval_row_tgs(const struct eval_data *d, unsigned int si, unsigned int di,
			  unsigned int seeds, struct tqsim_tg *tgs)
{
	unsigned int n = 0;

	for (unsigned int m = 0; m < EVAL_NMIXES; m++) {
		for (unsigned int k = 0; k < seeds; k++) {
			seed_instance(((si * EVAL_DEVS + di) * EVAL_NMIXES + m) * 1024 + k);
			random_tg(d, &tgs[n++], eval_sizes[si], mixes[m], (m + k) % 3);
		}
	}
	return n;
}

int eval_tgs(const char *dir, unsigned int T, unsigned int dev, unsigned int seeds,
	     struct tqsim_tg *tgs)
{
	static struct eval_data d;

	if (dev >= EVAL_DEVS || eval_load(dir, &d))
		return -1;
	for (unsigned int si = 0; si < EVAL_NSIZES; si++)
		if (eval_sizes[si] == (int)T)
			return eval_row_tgs(&d, si, dev, seeds, tgs);
	return -1;
}
