// SPDX-License-Identifier: GPL-2.0
/*
 * tqstat - tq's counters, as vmstat shows the kernel's.
 *
 *	tqstat [--sysfs DIR] [--socket PATH] [--metrics FILE] [INTERVAL [COUNT]]
 *	tqstat [--sysfs DIR] [--socket PATH] [--metrics FILE] --once
 *
 * Three sources: the module's sysfs attributes (DIR, by default
 * /sys/class/misc/tqsubmit), the same counters of tqsubmitd, the module's
 * user-space twin, asked on its client socket (PATH, by default $TQ_SOCKET
 * or /run/tq/tqsubmit.sock), and the Prometheus text file usched writes
 * (FILE, by default $TQ_METRICS or /run/tq/usched.prom). Any may be
 * missing; tqstat says which and shows the others. The module and
 * tqsubmitd are the two transports: one missing is named only when the
 * other is missing too. --once prints every
 * counter as "name value", one per line. Otherwise the first line holds
 * the values now and each later line, every INTERVAL seconds (default 1),
 * the rate per second of each running total and the level of each gauge
 * (*_info metrics, which carry labels rather than numbers, and histograms
 * only in --once; usched's refusals by limit make one column, their sum).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <linux/tqsubmit.h>
#include <tq/clock.h>
#include <tq/version.h>

#include "counters.h"

#define DEF_SYSFS	"/sys/class/misc/tqsubmit"
#define DEF_METRICS	"/run/tq/usched.prom"
#define NSRC		3	/* the module, tqsubmitd, usched's metrics */

struct source {
	const char *what;	/* "module", "tqsubmitd" or "metrics" */
	const char *path;
	int (*read)(const char *path, struct ctr_set *set);
	const char *hint;	/* why it may be missing */
	int err;		/* from the last read */
	struct ctr_set now, prev;
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: tqstat [--sysfs DIR] [--socket PATH] [--metrics FILE] "
		   "[--once | INTERVAL [COUNT]]\n"
		   "  --sysfs DIR     the module's counters (default " DEF_SYSFS ")\n"
		   "  --socket PATH   tqsubmitd's counters, on its client socket (default\n"
		   "                  $TQ_SOCKET or " TQ_SOCKET_PATH ")\n"
		   "  --metrics FILE  usched's Prometheus metrics (default $TQ_METRICS or "
		   DEF_METRICS ")\n"
		   "  --once, -1      print every counter once, as \"name value\" lines\n"
		   "  --version       print tq's version and exit\n");
}

static void read_source(struct source *s)
{
	s->prev = s->now;
	s->err = s->read(s->path, &s->now);
}

static void say_missing(const struct source *s)
{
	fprintf(stderr, "tqstat: no %s counters: %s: %s (%s)\n", s->what, s->path,
		strerror(-s->err), s->hint);
}

/* usched_tasks_total{engine="htd"} -> tasks:htd, to keep columns narrow. */
static void short_name(const char *name, char *out, size_t size)
{
	size_t base = strcspn(name, "{"), o;
	const char *p = name;

	if (!strncmp(p, "usched_", 7) || !strncmp(p, "tq_", 3)) {
		size_t skip = p[0] == 'u' ? 7 : 3;

		p += skip;
		base -= skip;
	}
	if (base > 6 && !strncmp(p + base - 6, "_total", 6))
		base -= 6;
	o = snprintf(out, size, "%.*s", (int)base, p);
	/* each label's value after a colon */
	for (const char *l = strchr(name, '='); l && o < size; l = strchr(l + 1, '=')) {
		size_t n = strcspn(l + 1, ",}");

		o += snprintf(out + o, size - o, ":%.*s", (int)n, l + 1);
	}
}

static int width_of(const char *shortname)
{
	int w = strlen(shortname);

	return w < 8 ? 8 : w;
}

static void print_value(int width, double v)
{
	int prec = (v != floor(v) && fabs(v) < 100) ? 2 : 0;

	printf(" %*.*f", width, prec, v);
}

static void print_header(const struct source *src, const struct ctr_set *cols,
			 unsigned int nsrc)
{
	char sn[CTR_NAME], bar[1024];

	/* a dashed group line over each source's columns, then the names */
	for (unsigned int s = 0; s < nsrc; s++) {
		size_t w = 0, len = strlen(src[s].what);

		if (!cols[s].n)
			continue;
		for (unsigned int i = 0; i < cols[s].n; i++) {
			short_name(cols[s].c[i].name, sn, sizeof(sn));
			w += 1 + width_of(sn);
		}
		w = w - 1 < sizeof(bar) - 1 ? w - 1 : sizeof(bar) - 1;
		memset(bar, '-', w);
		bar[w] = 0;
		if (len + 2 <= w)
			memcpy(bar + (w - len) / 2, src[s].what, len);
		printf(" %s", bar);
	}
	putchar('\n');
	for (unsigned int s = 0; s < nsrc; s++) {
		for (unsigned int i = 0; i < cols[s].n; i++) {
			short_name(cols[s].c[i].name, sn, sizeof(sn));
			printf(" %*s", width_of(sn), sn);
		}
	}
	putchar('\n');
}

/*
 * One line over the columns fixed at the start (cols). rates: counters as
 * per-second rates over dt; else values as they are.
 */
static void print_line(struct source *src, const struct ctr_set *cols, unsigned int nsrc,
		       bool rates, double dt)
{
	char sn[CTR_NAME];

	for (unsigned int s = 0; s < nsrc; s++) {
		for (unsigned int i = 0; i < cols[s].n; i++) {
			const struct counter *c = &cols[s].c[i];
			const struct counter *now = ctr_find(&src[s].now, c->name);
			const struct counter *old = ctr_find(&src[s].prev, c->name);
			int w;

			short_name(c->name, sn, sizeof(sn));
			w = width_of(sn);
			if (src[s].err || !now)
				printf(" %*s", w, "-");
			else if (!rates || c->gauge)
				print_value(w, now->value);
			else if (!old)
				printf(" %*s", w, "-");
			else
				print_value(w, (now->value - old->value) / dt);
		}
	}
	putchar('\n');
	fflush(stdout);
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void once(struct source *src, unsigned int nsrc)
{
	for (unsigned int s = 0; s < nsrc; s++) {
		if (src[s].err) {
			printf("# %s %s: not available: %s (%s)\n", src[s].what, src[s].path,
			       strerror(-src[s].err), src[s].hint);
			continue;
		}
		printf("# %s %s\n", src[s].what, src[s].path);
		for (unsigned int i = 0; i < src[s].now.n; i++)
			printf("%s %.*f\n", src[s].now.c[i].name,
			       src[s].now.c[i].value == floor(src[s].now.c[i].value) ? 0 : 6,
			       src[s].now.c[i].value);
	}
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "sysfs", required_argument, NULL, 's' },
		{ "metrics", required_argument, NULL, 'm' },
		{ "socket", required_argument, NULL, 'S' },
		{ "once", no_argument, NULL, '1' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	static struct source src[NSRC] = {
		{ .what = "module", .path = DEF_SYSFS, .read = ctr_read_sysfs,
		  .hint = "is tqsubmit.ko loaded?" },
		{ .what = "tqsubmitd", .path = TQ_SOCKET_PATH, .read = ctr_read_sock,
		  .hint = "is tqsubmitd running?" },
		{ .what = "metrics", .path = DEF_METRICS, .read = ctr_read_prom,
		  .hint = "is usched running with metrics on?" },
	};
	static struct ctr_set cols[NSRC];
	double interval = 1, t0;
	long count = -1;
	bool one = false;
	int c;

	tq_version_opt(argc, argv, "tqstat");
	if (getenv("TQ_METRICS"))
		src[2].path = getenv("TQ_METRICS");
	if (getenv("TQ_SOCKET") && *getenv("TQ_SOCKET"))
		src[1].path = getenv("TQ_SOCKET");
	while ((c = getopt_long(argc, argv, "1h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			src[0].path = optarg;
			break;
		case 'm':
			src[2].path = optarg;
			break;
		case 'S':
			src[1].path = optarg;
			break;
		case '1':
			one = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		char *end;

		interval = strtod(argv[optind++], &end);
		if (*end || !(interval > 0)) {
			fprintf(stderr, "tqstat: bad interval '%s'\n", argv[optind - 1]);
			return 2;
		}
	}
	if (optind < argc) {
		char *end;

		count = strtol(argv[optind++], &end, 10);
		if (*end || count < 1) {
			fprintf(stderr, "tqstat: bad count '%s'\n", argv[optind - 1]);
			return 2;
		}
	}
	if (optind < argc || (one && count > 0)) {
		usage(stderr);
		return 2;
	}

	for (int s = 0; s < NSRC; s++)
		read_source(&src[s]);
	if (one) {
		once(src, NSRC);
		return src[0].err && src[1].err && src[2].err ? 1 : 0;
	}
	for (int s = 0; s < NSRC; s++)
		if (src[s].err && (s == 2 || src[!s].err))
			say_missing(&src[s]);
	if (src[0].err && src[1].err && src[2].err)
		return 1;
	/*
	 * Every counter but the *_info ones, which carry labels, not numbers, and
	 * histograms, whose buckets make no column (the totals they refine do).
	 */
	for (int s = 0; s < NSRC; s++) {
		for (unsigned int i = 0; !src[s].err && i < src[s].now.n; i++) {
			const char *name = src[s].now.c[i].name;
			size_t base = strcspn(name, "{");

			if ((base < 5 || strncmp(name + base - 5, "_info", 5)) &&
			    !src[s].now.c[i].hist &&
			    (base != strlen(CTR_LIMITS) || strncmp(name, CTR_LIMITS, base) ||
			     !name[base]))
				cols[s].c[cols[s].n++] = src[s].now.c[i];
		}
	}

	print_header(src, cols, NSRC);
	print_line(src, cols, NSRC, false, 0);
	t0 = tq_now_s();
	for (long i = 1; count < 0 || i < count; i++) {
		double t1;

		sleep_s(interval);
		for (int s = 0; s < NSRC; s++) {
			bool had = !src[s].err;

			read_source(&src[s]);
			if (had && src[s].err)
				say_missing(&src[s]);
		}
		t1 = tq_now_s();
		print_line(src, cols, NSRC, true, t1 - t0);
		t0 = t1;
	}
	return 0;
}
