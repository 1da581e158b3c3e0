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

enum { SEEN_DEVICE = 1, SEEN_DMA = 2, SEEN_DEP = 4, SEEN_GAP = 8, SEEN_SUBMIT = 16 };

/* "width NAME M:W ...", after NAME's kernel line: m > 0 ascending, 0 < w <= 1. */
static int parse_width(struct tqsim_profile *p, struct line *l, unsigned int ln,
		       struct tqsim_parse_err *err)
{
	struct tqsim_kernel_model *k = l->nwords >= 3 ? kernel_find(p, l->word[1]) : NULL;

	if (l->nwords < 3 || l->nwords > 2 + TQSIM_WIDTH_POINTS)
		return fail(err, ln, "expected: width NAME M:W ... (1 to %d points)",
			    TQSIM_WIDTH_POINTS);
	if (!k)
		return fail(err, ln, "width of kernel %s before its kernel line", l->word[1]);
	if (k->nwidth)
		return fail(err, ln, "width %s given twice", l->word[1]);
	for (unsigned int i = 2; i < l->nwords; i++) {
		char *colon = strchr(l->word[i], ':');
		double m, w;

		if (!colon)
			return fail(err, ln, "expected M:W, got '%s'", l->word[i]);
		*colon = 0;
		if (!number(l->word[i], &m) || !number(colon + 1, &w) || !(m > 0) ||
		    !(w > 0 && w <= 1))
			return fail(err, ln, "width point: m > 0 and 0 < w <= 1");
		if (k->nwidth && !(m > k->width_m[k->nwidth - 1]))
			return fail(err, ln, "width points must ascend in m");
		k->width_m[k->nwidth] = m;
		k->width[k->nwidth++] = w;
	}
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
	if (!strcmp(key, "width"))
		return parse_width(p, l, ln, err);
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

double tqsim_profile_kernel_width(const struct tqsim_profile *p, const char *name, double m)
{
	const struct tqsim_kernel_model *k = kernel_find(p, name);
	unsigned int i = 1;
	double a;

	if (!k || !k->nwidth)
		return 1;
	if (!(m > k->width_m[0]))
		return k->width[0];
	if (m >= k->width_m[k->nwidth - 1])
		return k->width[k->nwidth - 1];
	while (k->width_m[i] < m)
		i++;
	a = log(m / k->width_m[i - 1]) / log(k->width_m[i] / k->width_m[i - 1]);
	return k->width[i - 1] + a * (k->width[i] - k->width[i - 1]);
}

void tqsim_profile_to_dev(const struct tqsim_profile *p, struct tqsim_dev *dev)
{
	tqsim_dev_init(dev);
	dev->dma = p->dma;
	dev->dep_ns = p->dep_ns;
	dev->gap_ns = p->gap_ns;
	dev->submit_ns = p->submit_ns;
	if (p->dma != 2)
		return;
	/* the model's slowdown is the bandwidth ratio; latency is paid once */
	for (int s = TQSIM_HTD; s <= TQSIM_DTH; s += TQSIM_DTH - TQSIM_HTD)
		dev->slow[s] = fmax(1.0, p->alone[s].bytes_per_ns / p->overlapped[s].bytes_per_ns);
}
