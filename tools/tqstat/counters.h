/* SPDX-License-Identifier: GPL-2.0 */
/*
 * counters.h - tqstat's sources of numbers: the module's sysfs
 * attributes (one integer per file), tqsubmitd's counters (the same names,
 * asked on its socket) and usched's metrics file (Prometheus text
 * format), read into one flat list of named values.
 */
#ifndef TQSTAT_COUNTERS_H
#define TQSTAT_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>

#define CTR_FAMILIES	256	/* "# TYPE" lines a file's gauges and histograms are known by */
/* usched's refusals by limit: the snapshot shows their sum, --all each one too. */
#define CTR_LIMITS	"tq_limit_refused_total"

/* A sample's name and labels are kept whole; a longer one is skipped, never cut. */
#define CTR_NAME	1024

struct counter {
	char *name;		/* sysfs file name, or metric{label="value",...} as written */
	double value;
	bool gauge;		/* a level (shown as is), not a running total (shown as a rate) */
	bool hist;		/* a histogram's bucket, sum or count (only in --all) */
};

/* As many as the source has (usched's per-client series are thousands); zeroed before use. */
struct ctr_set {
	unsigned int n, cap;
	struct counter *c;
};

/* Free a set's counters; it may be read into again. */
void ctr_free(struct ctr_set *set);

/*
 * Every attribute of dir that holds one integer. 0, or -errno when the
 * directory cannot be read (the module is not loaded).
 */
int ctr_read_sysfs(const char *dir, struct ctr_set *set);

/*
 * Samples of Prometheus text: "name{labels} value [timestamp]" lines, with
 * "# TYPE name gauge" marking gauges and "# TYPE name histogram" the
 * name_bucket, name_sum and name_count series. Lines that are not samples are skipped.
 * CTR_LIMITS{limit="..."} samples are also summed into one CTR_LIMITS counter.
 * Returns the number of counters kept.
 */
int ctr_parse_prom(const char *text, size_t len, struct ctr_set *set);
/* The same from a file: 0, or -errno when it cannot be read. */
int ctr_read_prom(const char *path, struct ctr_set *set);

/*
 * tqsubmitd's counters: its TQD_SOCK_STATS reply on the client socket at
 * path (Prometheus text). 0, or -errno when there is no tqsubmitd there.
 */
int ctr_read_sock(const char *path, struct ctr_set *set);

/* The counter called name, or NULL. */
const struct counter *ctr_find(const struct ctr_set *set, const char *name);

#endif /* TQSTAT_COUNTERS_H */
