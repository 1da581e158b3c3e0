/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fit.h - tqcalib's pairs (issue 44): what tqcalib --pairs measures (two
 * kernels side by side on two queues, and each alone), and tqcalib --fit,
 * which fits the model's sharing rule (sim/tqsim.h, struct tqsim_dev:
 * kshare, kcost, and which share a kernel has) on the pairs a committed
 * split names and validates it on the pairs it holds out. No OpenCL here:
 * the test links it alone.
 */
#ifndef TQCALIB_FIT_H
#define TQCALIB_FIT_H

#include <stdbool.h>
#include <stdio.h>

#include "sim/tqsim.h"

#define PAIR_NAME	24	/* "CONV.M" */
#define PAIR_KEY	(2 * PAIR_NAME)
#define PAIR_MAX	4096	/* rows of a CSV, keys of a split */

/* The CSV's header: tqcalib --pairs writes it, --fit wants it. */
#define PAIR_CSV_HEADER \
	"key,a,b,a_n,a_iters,a_m,a_kind,a_bw_share,a_demand,a_width,a_alone_ns," \
	"b_n,b_iters,b_m,b_kind,b_bw_share,b_demand,b_width,b_alone_ns," \
	"a_start_ns,a_end_ns,b_start_ns,b_end_ns,reps"

enum { ROLE_NONE, ROLE_FIT, ROLE_HOLD };

/*
 * One pair measured: a launched first on one kernel queue, b right after
 * on another; each alone (ns, median), and together its start and end
 * from the pair's first start (medians). Key: the unordered pair as the
 * split names it.
 */
struct pair_row {
	char key[PAIR_KEY], a[PAIR_NAME], b[PAIR_NAME];
	double demand[2], width[2], alone[2];	/* [0] a, [1] b */
	double start[2], end[2];
	int role;
};

/* The split: each key's role. */
struct pair_split {
	unsigned int n;
	char key[PAIR_MAX][PAIR_KEY];
	int role[PAIR_MAX];
};

/* A sharing rule: which share a kernel has (enum tqsim_share_src), the form and the cost. */
struct pair_rule {
	unsigned int src, kshare;
	double kcost;
};

/* How well a rule predicts a set of pairs: relative errors, as fractions. */
struct pair_stats {
	unsigned int n;
	double end_mean;		/* mean over pairs of (|a's end error| + |b's|) / 2 */
	double end_median, end_p90;	/* of every kernel's |end error| */
	double ms_median, ms_p90;	/* of each pair's |makespan error| */
};

/* Read a split file; 0, or -EINVAL / -errno with @err ("FILE:LINE: why"). */
int pair_split_read(const char *path, struct pair_split *sp, char *err, size_t len);
/* Read tqcalib --pairs's CSV into @rows (up to PAIR_MAX), roles from @sp; as above. */
int pair_csv_read(const char *path, const struct pair_split *sp, struct pair_row *rows,
		  unsigned int *n, unsigned int *unlisted, char *err, size_t len);
/* The model's ends of @r's two kernels under @ru (sim/concurrent.c, two kernel queues). */
void pair_predict(const struct pair_row *r, const struct pair_rule *ru, double *end);
/* @ru's errors over the rows of @role (ROLE_NONE: all). */
void pair_score(const struct pair_row *rows, unsigned int n, int role, const struct pair_rule *ru,
		struct pair_stats *st);
/*
 * The pairs that took longer side by side than one after the other (the
 * second started when it did or when the first ended alone): where a
 * second kernel queue lost.
 */
unsigned int pair_lost(const struct pair_row *rows, unsigned int n);
/*
 * The fit: every source (width, demand), form (fair, first) and cost 0 to
 * 0.5 by 0.01, scored on the fit rows by end_mean; the least wins (ties:
 * the lower cost, then the order above). A report on @out (each form's
 * best beside the rule before issue 44, on fit and held-out rows) and the
 * profile line in @line. 0, or -ENODATA with fewer than 3 fit rows.
 */
int pair_fit(const struct pair_row *rows, unsigned int n, struct pair_rule *best, FILE *out,
	     char *line, size_t len);

#endif /* TQCALIB_FIT_H */
