// SPDX-License-Identifier: GPL-2.0
/*
 * profile.c - the device profile: parse the "tq-profile 1" text format
 * (Documentation/sim.md) from memory, and derive command durations from it.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tqsim.h"

#define MAX_WORDS	12

static int fail(struct tqsim_parse_err *err, unsigned int line, const char *fmt, ...)
{
	va_list ap;

	err->line = line;
	va_start(ap, fmt);
	vsnprintf(err->reason, sizeof(err->reason), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* A finite number >= 0 that is the whole word. */
static bool number(const char *word, double *v)
{
	char *end;

	*v = strtod(word, &end);
	return end != word && !*end && isfinite(*v) && *v >= 0;
}

static int stage_of(const char *word)
{
	if (!strcmp(word, "htd"))
		return TQSIM_HTD;
	if (!strcmp(word, "dth"))
		return TQSIM_DTH;
	return -1;
}

static struct tqsim_kernel_model *kernel_find(const struct tqsim_profile *p, const char *name)
{
	for (unsigned int i = 0; i < p->nkernels; i++)
		if (!strcmp(p->kernel[i].name, name))
			return (struct tqsim_kernel_model *)&p->kernel[i];
	return NULL;
}

/* One line, comment stripped, split into words. */
struct line {
	char buf[256];
	char *word[MAX_WORDS];
	unsigned int nwords;
};

static bool split(struct line *l, const char *text, size_t len)
{
	char *p;

	if (len >= sizeof(l->buf))
		return false;
	memcpy(l->buf, text, len);
	l->buf[len] = 0;
	if ((p = strchr(l->buf, '#')))
		*p = 0;
	l->nwords = 0;
	for (p = strtok(l->buf, " \t\r"); p; p = strtok(NULL, " \t\r")) {
		if (l->nwords == MAX_WORDS)
			return false;
		l->word[l->nwords++] = p;
	}
	return true;
}

/* Words 1.. joined by single spaces again (free text). */
static const char *rest_of(struct line *l)
{
	if (l->nwords < 2)
		return "";
	for (unsigned int i = 2; i < l->nwords; i++)
		l->word[i][-1] = ' ';
	return l->word[1];
}

enum { SEEN_DEVICE = 1, SEEN_DMA = 2, SEEN_DEP = 4, SEEN_GAP = 8, SEEN_SUBMIT = 16, SEEN_CONC = 32 };

/*
 * "width NAME M:W ..." or "demand NAME M:D ...", after NAME's kernel line:
 * m > 0 ascending, 0 < w <= 1.
 */
static int parse_shares(struct tqsim_profile *p, struct line *l, unsigned int ln,
			struct tqsim_parse_err *err)
{
	struct tqsim_kernel_model *k = l->nwords >= 3 ? kernel_find(p, l->word[1]) : NULL;
	const char *key = l->word[0];
	bool width = !strcmp(key, "width");
	unsigned int *n;
	double *ms, *ws;

	if (l->nwords < 3 || l->nwords > 2 + TQSIM_WIDTH_POINTS)
		return fail(err, ln, "expected: %s NAME M:W ... (1 to %d points)", key,
			    TQSIM_WIDTH_POINTS);
	if (!k)
		return fail(err, ln, "%s of kernel %s before its kernel line", key, l->word[1]);
	n = width ? &k->nwidth : &k->ndemand;
	ms = width ? k->width_m : k->demand_m;
	ws = width ? k->width : k->demand;
	if (*n)
		return fail(err, ln, "%s %s given twice", key, l->word[1]);
	for (unsigned int i = 2; i < l->nwords; i++) {
		char *colon = strchr(l->word[i], ':');
		double m, w;

		if (!colon)
			return fail(err, ln, "expected M:W, got '%s'", l->word[i]);
		*colon = 0;
		if (!number(l->word[i], &m) || !number(colon + 1, &w) || !(m > 0) ||
		    !(w > 0 && w <= 1))
			return fail(err, ln, "%s point: m > 0 and 0 < w <= 1", key);
		if (*n && !(m > ms[*n - 1]))
			return fail(err, ln, "%s points must ascend in m", key);
		ms[*n] = m;
		ws[(*n)++] = w;
	}
	return 0;
}

/* "concurrent width|demand fair|first COST": the sharing rule (tqsim.h). */
static int parse_concurrent(struct tqsim_profile *p, struct line *l, unsigned int ln,
			    unsigned int *seen, struct tqsim_parse_err *err)
{
	double cost;

	if (l->nwords != 4 || (strcmp(l->word[1], "width") && strcmp(l->word[1], "demand")) ||
	    (strcmp(l->word[2], "fair") && strcmp(l->word[2], "first")) ||
	    !number(l->word[3], &cost))
		return fail(err, ln, "expected: concurrent width|demand fair|first COST (>= 0)");
	if (*seen & SEEN_CONC)
		return fail(err, ln, "concurrent given twice");
	*seen |= SEEN_CONC;
	p->share_src = strcmp(l->word[1], "width") ? TQSIM_SRC_DEMAND : TQSIM_SRC_WIDTH;
	p->kshare = strcmp(l->word[2], "fair") ? TQSIM_SHARE_FIRST : TQSIM_SHARE_FAIR;
	p->kcost = cost;
	return 0;
}

static int parse_line(struct tqsim_profile *p, struct line *l, unsigned int ln, unsigned int *seen,
		      bool *xfer_seen, struct tqsim_parse_err *err)
{
	const char *key = l->word[0];
	double v[2];

	if (!strcmp(key, "device")) {
		if (*seen & SEEN_DEVICE)
			return fail(err, ln, "device given twice");
		*seen |= SEEN_DEVICE;
		snprintf(p->device, sizeof(p->device), "%s", rest_of(l));
		return 0;
	}
	if (!strcmp(key, "dma")) {
		if (l->nwords != 2 || (strcmp(l->word[1], "1") && strcmp(l->word[1], "2")))
			return fail(err, ln, "dma must be 1 or 2");
		if (*seen & SEEN_DMA)
			return fail(err, ln, "dma given twice");
		*seen |= SEEN_DMA;
		p->dma = l->word[1][0] - '0';
		return 0;
	}
	if (stage_of(key) >= 0) {
		int s = stage_of(key), ov;
		struct tqsim_xfer_model *x;

		if (l->nwords != 4 || !number(l->word[2], &v[0]) || !number(l->word[3], &v[1]))
			return fail(err, ln, "expected: %s alone|overlapped LATENCY_NS GB_PER_S", key);
		if (!strcmp(l->word[1], "alone"))
			ov = 0;
		else if (!strcmp(l->word[1], "overlapped"))
			ov = 1;
		else
			return fail(err, ln, "'%s' is not alone or overlapped", l->word[1]);
		if (!(v[1] > 0))
			return fail(err, ln, "bandwidth must be > 0");
		if (xfer_seen[s * 2 + ov])
			return fail(err, ln, "%s %s given twice", key, l->word[1]);
		xfer_seen[s * 2 + ov] = true;
		x = ov ? &p->overlapped[s] : &p->alone[s];
		x->lat_ns = v[0];
		x->bytes_per_ns = v[1];
		return 0;
	}
	if (!strcmp(key, "latency")) {
		static const char *const names[] = { "dependency", "queue", "submit" };
		static const unsigned int bits[] = { SEEN_DEP, SEEN_GAP, SEEN_SUBMIT };
		double *const fields[] = { &p->dep_ns, &p->gap_ns, &p->submit_ns };
		int k = 0;

		while (l->nwords == 3 && k < 3 && strcmp(l->word[1], names[k]))
			k++;
		if (l->nwords != 3 || k == 3 || !number(l->word[2], &v[0]))
			return fail(err, ln, "expected: latency dependency|queue|submit NS");
		if (*seen & bits[k])
			return fail(err, ln, "latency %s given twice", l->word[1]);
		*seen |= bits[k];
		*fields[k] = v[0];
		return 0;
	}
	if (!strcmp(key, "kernel")) {
		struct tqsim_kernel_model *k;

		if (l->nwords != 4 || !number(l->word[2], &v[0]) || !number(l->word[3], &v[1]))
			return fail(err, ln, "expected: kernel NAME ETA_NS GAMMA_NS");
		if (strlen(l->word[1]) >= TQSIM_NAME_MAX)
			return fail(err, ln, "kernel name longer than %d bytes", TQSIM_NAME_MAX - 1);
		if (tqsim_profile_kernel_ns(p, l->word[1], 0) >= 0)
			return fail(err, ln, "kernel %s given twice", l->word[1]);
		if (p->nkernels == TQSIM_PROFILE_KERNELS)
			return fail(err, ln, "more than %d kernels", TQSIM_PROFILE_KERNELS);
		k = &p->kernel[p->nkernels++];
		snprintf(k->name, sizeof(k->name), "%s", l->word[1]);
		k->eta_ns = v[0];
		k->gamma_ns = v[1];
		return 0;
	}
	if (!strcmp(key, "width") || !strcmp(key, "demand"))
		return parse_shares(p, l, ln, err);
	if (!strcmp(key, "concurrent"))
		return parse_concurrent(p, l, ln, seen, err);
	return fail(err, ln, "unknown key '%s'", key);
}

int tqsim_profile_parse(struct tqsim_profile *p, const char *text, size_t len,
		     struct tqsim_parse_err *err)
{
	bool xfer_seen[TQSIM_STAGES * 2] = { false };
	unsigned int ln = 0, seen = 0;
	bool versioned = false;
	const char *end = text + len;
	struct line l;

	memset(p, 0, sizeof(*p));
	while (text < end) {
		const char *nl = memchr(text, '\n', end - text);
		size_t n = nl ? (size_t)(nl - text) : (size_t)(end - text);
		int ret;

		ln++;
		if (!split(&l, text, n))
			return fail(err, ln, "line too long or too many words");
		text += n + (nl != NULL);
		if (!l.nwords)
			continue;
		if (!versioned) {
			if (l.nwords != 2 || strcmp(l.word[0], "tq-profile"))
				return fail(err, ln, "expected 'tq-profile 1' first");
			if (strcmp(l.word[1], "1"))
				return fail(err, ln, "unsupported profile version %s", l.word[1]);
			versioned = true;
			continue;
		}
		ret = parse_line(p, &l, ln, &seen, xfer_seen, err);
		if (ret)
			return ret;
	}
	if (!versioned)
		return fail(err, ln, "empty profile");
	if (!(seen & SEEN_DMA))
		return fail(err, ln, "missing dma");
	if (!xfer_seen[TQSIM_HTD * 2] || !xfer_seen[TQSIM_DTH * 2])
		return fail(err, ln, "missing htd alone or dth alone");
	if (p->dma == 2 && (!xfer_seen[TQSIM_HTD * 2 + 1] || !xfer_seen[TQSIM_DTH * 2 + 1]))
		return fail(err, ln, "dma 2 needs htd overlapped and dth overlapped");
	return 0;
}

double tqsim_profile_xfer_ns(const struct tqsim_profile *p, enum tqsim_stage s, double bytes)
{
	return p->alone[s].lat_ns + bytes / p->alone[s].bytes_per_ns;
}

double tqsim_profile_kernel_ns(const struct tqsim_profile *p, const char *name, double m)
{
	for (unsigned int i = 0; i < p->nkernels; i++)
		if (!strcmp(p->kernel[i].name, name))
			return p->kernel[i].eta_ns * m + p->kernel[i].gamma_ns;
	return -1;
}

/* @n points (@ms ascending, @ws) at @m: interpolated in log m, held at the ends; none: 1. */
static double points_at(unsigned int n, const double *ms, const double *ws, double m)
{
	unsigned int i = 1;
	double a;

	if (!n)
		return 1;
	if (!(m > ms[0]))
		return ws[0];
	if (m >= ms[n - 1])
		return ws[n - 1];
	while (ms[i] < m)
		i++;
	a = log(m / ms[i - 1]) / log(ms[i] / ms[i - 1]);
	return ws[i - 1] + a * (ws[i] - ws[i - 1]);
}

double tqsim_profile_kernel_width(const struct tqsim_profile *p, const char *name, double m)
{
	const struct tqsim_kernel_model *k = kernel_find(p, name);

	return k ? points_at(k->nwidth, k->width_m, k->width, m) : 1;
}

double tqsim_profile_kernel_demand(const struct tqsim_profile *p, const char *name, double m)
{
	const struct tqsim_kernel_model *k = kernel_find(p, name);

	return k ? points_at(k->ndemand, k->demand_m, k->demand, m) : 1;
}

double tqsim_profile_kernel_share(const struct tqsim_profile *p, const char *name, double m)
{
	return p->share_src == TQSIM_SRC_DEMAND ? tqsim_profile_kernel_demand(p, name, m) :
						  tqsim_profile_kernel_width(p, name, m);
}

/* xorshift64*: the seeded TGs of tqsim_profile_kqueues() */
static double unit_rnd(uint64_t *st)
{
	*st ^= *st >> 12;
	*st ^= *st << 25;
	*st ^= *st >> 27;
	return (double)((*st * 0x2545F4914F6CDD1Dull) >> 11) / (double)(1ull << 53);
}

int tqsim_profile_kqueues(const struct tqsim_profile *p, unsigned int tg_tasks, unsigned int max_kq,
			  double *mean_ns)
{
	const struct tqsim_kernel_model *k[TQSIM_PROFILE_KERNELS];
	unsigned int nk = 0, best = 1;
	bool shares = false;
	struct tqsim_dev dev;
	uint8_t order[TQSIM_MAX_TASKS];

	if (tg_tasks < 1 || tg_tasks > TQSIM_MAX_TASKS || max_kq < 1 || max_kq > TQSIM_MAX_KQ)
		return -EINVAL;
	/* the kernels with a time model; those with shares tell the counts apart */
	for (unsigned int i = 0; i < p->nkernels; i++) {
		const struct tqsim_kernel_model *km = &p->kernel[i];

		if (!(km->eta_ns > 0))
			continue;
		k[nk++] = km;
		shares |= p->share_src == TQSIM_SRC_DEMAND ? km->ndemand > 0 : km->nwidth > 0;
	}
	if (!shares)
		return -ENODATA;
	for (unsigned int i = 0; i < tg_tasks; i++)
		order[i] = i;
	tqsim_profile_to_dev(p, &dev);
	for (unsigned int kq = 1; kq <= max_kq; kq++) {
		uint64_t st = 44;	/* the same TGs for every count */
		double sum = 0;

		dev.kq = kq;
		for (unsigned int g = 0; g < TQSIM_KQ_TGS; g++) {
			struct tqsim_tg tg;

			tqsim_tg_init(&tg);
			for (unsigned int i = 0; i < tg_tasks; i++) {
				const struct tqsim_kernel_model *km = k[(unsigned int)(unit_rnd(&st) * nk)];
				double t = 1e5 * pow(100, unit_rnd(&st));	/* 0.1-10 ms */
				double m = fmax(t - km->gamma_ns, 0) / km->eta_ns;

				tqsim_tg_add(&tg, 0, fmax(km->eta_ns * m + km->gamma_ns, 1), 0);
				tqsim_tg_set_width(&tg, i, tqsim_profile_kernel_share(p, km->name, m));
			}
			sum += tqsim_makespan(&tg, &dev, order, tg_tasks);
		}
		mean_ns[kq - 1] = sum / TQSIM_KQ_TGS;
		if (mean_ns[kq - 1] < (1 - TQSIM_KQ_GAIN) * mean_ns[best - 1])
			best = kq;
	}
	return best;
}

void tqsim_profile_to_dev(const struct tqsim_profile *p, struct tqsim_dev *dev)
{
	tqsim_dev_init(dev);
	dev->dma = p->dma;
	dev->dep_ns = p->dep_ns;
	dev->gap_ns = p->gap_ns;
	dev->submit_ns = p->submit_ns;
	dev->kshare = p->kshare;
	dev->kcost = p->kcost;
	if (p->dma != 2)
		return;
	/* the model's slowdown is the bandwidth ratio; latency is paid once */
	for (int s = TQSIM_HTD; s <= TQSIM_DTH; s += TQSIM_DTH - TQSIM_HTD)
		dev->slow[s] = fmax(1.0, p->alone[s].bytes_per_ns / p->overlapped[s].bytes_per_ns);
}
