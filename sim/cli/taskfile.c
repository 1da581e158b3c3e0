// SPDX-License-Identifier: GPL-2.0
/*
 * taskfile.c - tqsim's input: a task file, or one of the paper's tables in
 * data/ (data/README.md), told apart by the header line. '#' starts a
 * comment everywhere.
 *
 * Task file: CSV with the header "name,htd_ms,k_ms,dth_ms", one task per
 * line. A time of 0 means the stage is absent; "a+b+..." gives a stage
 * several commands. Optional columns after those, in either order: "after"
 * names the task's predecessor, a task on an earlier line
 * (tqsim_tg_set_after()), or is empty; "width" is the share of the device its
 * kernel fills, in (0, 1] (tqsim_tg_set_width()), or empty for 1. For the
 * classes, deadlines and shares (tqsim_qos_order(), tqsim_stream_run()):
 * "prio" its class, -1 to 2 (empty: 0); "deadline_ms" its deadline, after
 * its arrival (empty or 0: none); "share" its fair-share group, 0 to 15
 * (empty: 0); "arrive_ms" its arrival, for tqsim stream, no earlier than
 * the line before's (empty: 0).
 *
 * The tables, as data/ has them: Table 2 (synthetic_tasks.csv, times in
 * the paper's unit of 10 ms) is a TG of its tasks; Table 3
 * (synthetic_benchmarks.csv) with a benchmark name (--select BK25) is that
 * benchmark's tasks from Table 2 in the same directory; Table 5
 * (real_task_ranges.csv) with a device (--select "AMD R9") is that
 * device's tasks, each command at the middle of its range.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-."

char *file_read(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0, n = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (n + 4096 + 1 > cap) {
			char *p = realloc(buf, cap = 2 * cap + 4096 + 1);

			if (!p) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = p;
		}
		size_t got = fread(buf + n, 1, cap - n - 1, f);

		n += got;
		if (!got)
			break;
	}
	if (ferror(f)) {
		free(buf);
		buf = NULL;
	} else {
		buf[n] = 0;
		*len = n;
	}
	fclose(f);
	return buf;
}

static int bad(const char *path, unsigned int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%u: ", path, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = 0;
	return s;
}

/* One stage's cell: "0", "1.5" or "1+0.5+2" (ms). Returns a reason or NULL. */
static const char *add_cell(struct tqsim_tg *tg, enum tqsim_stage s, char *cell)
{
	static const char *const col[TQSIM_STAGES] = { "htd_ms", "k_ms", "dth_ms" };
	static char why[80];
	bool list = strchr(cell, '+') != NULL;
	char *part, *save;

	for (part = strtok_r(cell, "+", &save); part; part = strtok_r(NULL, "+", &save)) {
		char *end;
		double ms;

		part = trim(part);
		ms = strtod(part, &end);
		if (end == part || *end || !isfinite(ms)) {
			snprintf(why, sizeof(why), "%s: '%s' is not a number", col[s], part);
			return why;
		}
		if (ms < 0 || (ms == 0 && list)) {
			snprintf(why, sizeof(why), "%s: %s is not a duration > 0", col[s], part);
			return why;
		}
		if (ms == 0)
			return NULL;	/* a lone 0: the stage is absent */
		if (tqsim_tg_add_cmd(tg, s, ms * NS_PER_MS)) {
			snprintf(why, sizeof(why), "%s: too many commands", col[s]);
			return why;
		}
	}
	if (!part && !list && !*trim(cell)) {
		snprintf(why, sizeof(why), "%s is empty", col[s]);
		return why;
	}
	return NULL;
}

/* The "after" cell of task @t: empty, or the name of an earlier task. */
static const char *add_after(struct tqsim_tg *tg, const struct taskset *ts, unsigned int t,
			     char *cell)
{
	cell = trim(cell);
	if (!*cell)
		return NULL;
	for (unsigned int p = 0; p < t; p++)
		if (!strcmp(ts->name[p], cell))
			return tqsim_tg_set_after(tg, t, p) ? "after: cannot set" : NULL;
	return "after: not the name of a task on an earlier line";
}

/* What a header line says the file is. */
enum table { TASK_FILE, TABLE2, TABLE3, TABLE5, FIGURES, NOT_A_TABLE };

static const char *const table_header[] = {
	[TABLE2] = "name,htd,k,dth,class",
	[TABLE3] = "benchmark,tasks",
	[TABLE5] = "device,task,dominance,htd_min,htd_max,k_min,k_max,dth_min,dth_max",
	[FIGURES] = "metric,device,value,note",
};

#define MAX_FIELDS	10
#define PAPER_UNIT_MS	10	/* Table 2's unit of time */

/* A task file's optional columns: where each is, -1 for none (header_table()). */
static int col_after, col_width, col_prio, col_deadline, col_share, col_arrive;

static enum table header_table(char **f, unsigned int nf, unsigned int *nfields)
{
	char joined[128] = "";

	col_after = col_width = col_prio = col_deadline = col_share = col_arrive = -1;
	if (nf >= 4 && nf <= MAX_FIELDS && !strcmp(trim(f[0]), "name") && !strcmp(trim(f[1]), "htd_ms") &&
	    !strcmp(trim(f[2]), "k_ms") && !strcmp(trim(f[3]), "dth_ms")) {
		bool ok = true;

		for (unsigned int i = 4; i < nf; i++) {
			const char *h = trim(f[i]);
			int *col = !strcmp(h, "after") ? &col_after :
				   !strcmp(h, "width") ? &col_width :
				   !strcmp(h, "prio") ? &col_prio :
				   !strcmp(h, "deadline_ms") ? &col_deadline :
				   !strcmp(h, "share") ? &col_share :
				   !strcmp(h, "arrive_ms") ? &col_arrive : NULL;

			ok &= col && *col < 0;
			if (col)
				*col = i;
		}
		if (ok) {
			*nfields = nf;
			return TASK_FILE;
		}
		col_after = col_width = col_prio = col_deadline = col_share = col_arrive = -1;
	}
	for (unsigned int i = 0; i < nf; i++) {
		if (strlen(joined) + strlen(trim(f[i])) + 2 > sizeof(joined))
			return NOT_A_TABLE;
		strcat(strcat(joined, i ? "," : ""), trim(f[i]));
	}
	for (enum table t = TABLE2; t <= FIGURES; t++) {
		if (!strcmp(joined, table_header[t])) {
			*nfields = nf;
			return t;
		}
	}
	return NOT_A_TABLE;
}

/* A task name: the rules the JSON and SVG output need. */
static const char *check_name(const char *name)
{
	static char why[64];

	if (!*name)
		return "empty task name";
	if (strlen(name) >= TQSIM_NAME_MAX) {
		snprintf(why, sizeof(why), "task name longer than %d bytes", TQSIM_NAME_MAX - 1);
		return why;
	}
	/* names go into JSON and SVG unescaped */
	if (name[strspn(name, NAME_CHARS)])
		return "task name may only have letters, digits, '_', '-', '.'";
	return NULL;
}

static const char *new_task(struct taskset *ts, const char *name, int *t)
{
	static char why_full[32];
	const char *why = check_name(name);

	if (why)
		return why;
	*t = tqsim_tg_add_task(&ts->tg);
	if (*t < 0) {
		snprintf(why_full, sizeof(why_full), "more than %d tasks", TQSIM_MAX_TASKS);
		return why_full;
	}
	strcpy(ts->name[*t], name);
	return NULL;
}

static const char *number(const char *cell, const char *col, double *v)
{
	static char why[80];
	char *end;

	*v = strtod(cell, &end);
	if (end == cell || *end || !isfinite(*v) || *v < 0) {
		snprintf(why, sizeof(why), "%s: '%s' is not a number >= 0", col, cell);
		return why;
	}
	return NULL;
}

/* The "width" cell of task @t: empty (1), or a number in (0, 1]. */
static const char *add_width(struct tqsim_tg *tg, unsigned int t, char *cell)
{
	double w;

	cell = trim(cell);
	if (!*cell)
		return NULL;
	if (number(cell, "width", &w) || tqsim_tg_set_width(tg, t, w))
		return "width: not a number in (0, 1]";
	return NULL;
}

/* An optional integer cell in [lo, hi]: empty leaves *v as it is. */
static const char *integer(char *cell, const char *col, int lo, int hi, int *v)
{
	static char why[80];
	char *end;
	long x;

	cell = trim(cell);
	if (!*cell)
		return NULL;
	x = strtol(cell, &end, 10);
	if (end == cell || *end || x < lo || x > hi) {
		snprintf(why, sizeof(why), "%s: '%s' is not an integer from %d to %d", col, cell, lo,
			 hi);
		return why;
	}
	*v = (int)x;
	return NULL;
}

/* The classes', deadlines', shares' and arrivals' cells of task @t (empty: defaults). */
static const char *add_qos(struct taskset *ts, unsigned int t, char **f)
{
	const char *why;
	int v = 0;
	double ms = 0;

	ts->qos.prio[t] = 0;
	ts->qos.deadline[t] = 0;
	ts->share[t] = 0;
	ts->arrive_ms[t] = 0;
	if (col_prio >= 0 && (why = integer(f[col_prio], "prio", TQSIM_PRIO_MIN, TQSIM_PRIO_MAX, &v)))
		return why;
	ts->qos.prio[t] = v;
	v = 0;
	if (col_share >= 0 && (why = integer(f[col_share], "share", 0, TQSIM_STREAM_SHARES - 1, &v)))
		return why;
	ts->share[t] = v;
	if (col_deadline >= 0 && *trim(f[col_deadline]) &&
	    (why = number(trim(f[col_deadline]), "deadline_ms", &ms)))
		return why;
	ts->qos.deadline[t] = ms * NS_PER_MS;
	ms = 0;
	if (col_arrive >= 0 && *trim(f[col_arrive]) &&
	    (why = number(trim(f[col_arrive]), "arrive_ms", &ms)))
		return why;
	if (t && ms < ts->arrive_ms[t - 1])
		return "arrive_ms: earlier than the line before's";
	ts->arrive_ms[t] = ms;
	ts->qos_given |= col_prio >= 0 || col_deadline >= 0 || col_share >= 0;
	return NULL;
}

/* A task file's line: name, the three stages' cells, maybe after, width and the qos columns. */
static const char *task_file_row(struct taskset *ts, char **f, unsigned int nf)
{
	const char *why;
	int t;

	(void)nf;	/* the header's count, checked by the caller */
	if ((why = new_task(ts, trim(f[0]), &t)))
		return why;
	for (int s = 0; s < TQSIM_STAGES; s++)
		if ((why = add_cell(&ts->tg, s, f[s + 1])))
			return why;
	if (col_after >= 0 && (why = add_after(&ts->tg, ts, t, f[col_after])))
		return why;
	if (col_width >= 0 && (why = add_width(&ts->tg, t, f[col_width])))
		return why;
	return add_qos(ts, t, f);
}

/* Table 2's line: name, htd, k, dth in units of 10 ms, class DK or DT. */
static const char *table2_row(struct taskset *ts, char **f)
{
	static const char *const col[TQSIM_STAGES] = { "htd", "k", "dth" };
	double v[TQSIM_STAGES];
	const char *why;
	int t;

	for (int s = 0; s < TQSIM_STAGES; s++)
		if ((why = number(trim(f[s + 1]), col[s], &v[s])))
			return why;
	if (strcmp(trim(f[4]), "DK") && strcmp(trim(f[4]), "DT"))
		return "class: not DK or DT";
	if ((why = new_task(ts, trim(f[0]), &t)))
		return why;
	for (int s = 0; s < TQSIM_STAGES; s++)
		if (v[s] > 0 && tqsim_tg_add_cmd(&ts->tg, s, v[s] * PAPER_UNIT_MS * NS_PER_MS))
			return "too many commands";
	return NULL;
}

/*
 * Table 5's line of device @select: the task at the middle of each range;
 * min and max are taken either way round (two cells of the source are
 * garbled, as data/README.md says).
 */
static const char *table5_row(struct taskset *ts, char **f)
{
	static const char *const col[2 * TQSIM_STAGES] = { "htd_min", "htd_max", "k_min", "k_max",
							 "dth_min", "dth_max" };
	double v[2 * TQSIM_STAGES];
	const char *why;
	int t;

	for (int i = 0; i < 2 * TQSIM_STAGES; i++)
		if ((why = number(trim(f[3 + i]), col[i], &v[i])))
			return why;
	if ((why = new_task(ts, trim(f[1]), &t)))
		return why;
	for (int s = 0; s < TQSIM_STAGES; s++) {
		double ms = (v[2 * s] + v[2 * s + 1]) / 2;

		if (ms > 0 && tqsim_tg_add_cmd(&ts->tg, s, ms * NS_PER_MS))
			return "too many commands";
	}
	return NULL;
}

/* Table 3's line of benchmark @select: its tasks (names of Table 2) from @t2. */
static const char *table3_row(struct taskset *ts, const struct taskset *t2, char *list)
{
	static char why[TQSIM_NAME_MAX + 64];
	char *name, *save;

	for (name = strtok_r(list, " \t", &save); name; name = strtok_r(NULL, " \t", &save)) {
		unsigned int i;
		const char *err;
		int t;

		for (i = 0; i < t2->tg.ntasks && strcmp(t2->name[i], name); i++)
			;
		if (i == t2->tg.ntasks) {
			snprintf(why, sizeof(why), "tasks: '%.*s' is not a task of %s", TQSIM_NAME_MAX,
				 name, "synthetic_tasks.csv");
			return why;
		}
		if ((err = new_task(ts, name, &t)))
			return err;
		for (int s = 0; s < TQSIM_STAGES; s++)
			for (unsigned int c = 0; c < t2->tg.task[i].n[s]; c++)
				if (tqsim_tg_add_cmd(&ts->tg, s,
						  t2->tg.cmd_ns[t2->tg.task[i].first[s] + c]))
					return "too many commands";
	}
	return NULL;
}

static int load(const char *path, const char *select, struct taskset *ts, enum table *table);

/* Table 2, which Table 3 names its tasks from: synthetic_tasks.csv beside @path. */
static struct taskset *load_table2(const char *path)
{
	const char *slash = strrchr(path, '/');
	struct taskset *t2 = malloc(sizeof(*t2));
	char p2[4096];
	enum table table;

	if (!t2) {
		fprintf(stderr, "%s:0: out of memory\n", path);
		return NULL;
	}
	snprintf(p2, sizeof(p2), "%.*s%s", slash ? (int)(slash + 1 - path) : 0, path,
		 "synthetic_tasks.csv");
	if (load(p2, NULL, t2, &table)) {
		free(t2);
		return NULL;
	}
	if (table != TABLE2) {
		bad(p2, 1, "not the paper's Table 2 (header '%s')", table_header[TABLE2]);
		free(t2);
		return NULL;
	}
	return t2;
}

static int parse(const char *path, char *text, const char *select, struct taskset *ts,
		 enum table *table)
{
	unsigned int line = 0, header_line = 0, nfields = 0;
	bool header = false, selected = false;
	struct taskset *t2 = NULL;
	int ret = -1;
	char *l;

	tqsim_tg_init(&ts->tg);
	memset(&ts->qos, 0, sizeof(ts->qos));
	memset(ts->share, 0, sizeof(ts->share));
	memset(ts->arrive_ms, 0, sizeof(ts->arrive_ms));
	ts->qos_given = false;
	*table = NOT_A_TABLE;
	for (l = strsep(&text, "\n"); l; l = strsep(&text, "\n")) {
		char *f[MAX_FIELDS + 1], *p = l, *hash = strchr(l, '#');
		const char *why = NULL;
		unsigned int nf = 0;

		line++;
		if (hash)
			*hash = 0;
		if (!*trim(l))
			continue;
		while (nf < MAX_FIELDS + 1 && (f[nf] = strsep(&p, ",")))
			nf++;
		if (!header) {
			*table = header_table(f, nf, &nfields);
			if (*table == NOT_A_TABLE) {
				bad(path, line, "expected header 'name,htd_ms,k_ms,dth_ms[,after][,width]', "
				    "or one of data/'s tables (tqsim --help; more columns: prio, "
				    "deadline_ms, share, arrive_ms)");
				goto out;
			}
			if (*table == FIGURES) {
				bad(path, line, "the paper's headline figures, not tasks: give a task "
				    "file, synthetic_tasks.csv, synthetic_benchmarks.csv or "
				    "real_task_ranges.csv");
				goto out;
			}
			if (select && *table != TABLE3 && *table != TABLE5) {
				bad(path, line, "--select picks a row of synthetic_benchmarks.csv "
				    "or real_task_ranges.csv, not of this file");
				goto out;
			}
			if (!select && (*table == TABLE3 || *table == TABLE5)) {
				bad(path, line, "which %s? --select NAME, a name of its first column",
				    *table == TABLE3 ? "benchmark" : "device");
				goto out;
			}
			if (*table == TABLE3 && !(t2 = load_table2(path)))
				goto out;
			header = true;
			header_line = line;
			continue;
		}
		if (nf != nfields) {
			bad(path, line, "expected %u fields, got %s", nfields,
			    nf > nfields ? "more" : "fewer");
			goto out;
		}
		switch (*table) {
		case TASK_FILE:
			why = task_file_row(ts, f, nf);
			break;
		case TABLE2:
			why = table2_row(ts, f);
			break;
		case TABLE3:
		case TABLE5:
			if (strcmp(trim(f[0]), select))
				continue;
			selected = true;
			why = *table == TABLE3 ? table3_row(ts, t2, f[1]) : table5_row(ts, f);
			break;
		default:
			break;
		}
		if (why) {
			bad(path, line, "%s", why);
			goto out;
		}
	}
	if (!header) {
		bad(path, line ? line : 1, "no header line");
		goto out;
	}
	if (select && !selected) {
		bad(path, header_line, "no %s '%s'", *table == TABLE3 ? "benchmark" : "device",
		    select);
		goto out;
	}
	if (!ts->tg.ntasks) {
		bad(path, header_line, "no tasks");
		goto out;
	}
	ret = 0;
out:
	free(t2);
	return ret;
}

static int load(const char *path, const char *select, struct taskset *ts, enum table *table)
{
	size_t len;
	char *text = file_read(path, &len);
	int ret;

	if (!text) {
		fprintf(stderr, "%s:0: cannot read: %s\n", path, strerror(errno));
		return -1;
	}
	if (strlen(text) != len) {
		free(text);
		return bad(path, 1, "file contains a NUL byte");
	}
	ret = parse(path, text, select, ts, table);
	free(text);
	return ret;
}

int taskfile_load(const char *path, const char *select, struct taskset *ts)
{
	enum table table;

	return load(path, select, ts, &table);
}
