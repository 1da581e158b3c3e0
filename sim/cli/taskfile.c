// SPDX-License-Identifier: GPL-2.0
/*
 * taskfile.c - the tqsim task file: CSV with the header
 * "name,htd_ms,k_ms,dth_ms", one task per line, '#' starts a comment. A time
 * of 0 means the stage is absent; "a+b+..." gives a stage several commands.
 * An optional fifth column "after" names the task's predecessor, a task on
 * an earlier line (tq_tg_set_after()), or is empty.
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
static const char *add_cell(struct tq_tg *tg, enum tq_stage s, char *cell)
{
	static const char *const col[TQ_STAGES] = { "htd_ms", "k_ms", "dth_ms" };
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
		if (tq_tg_add_cmd(tg, s, ms * NS_PER_MS)) {
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
static const char *add_after(struct tq_tg *tg, const struct taskset *ts, unsigned int t,
			     char *cell)
{
	cell = trim(cell);
	if (!*cell)
		return NULL;
	for (unsigned int p = 0; p < t; p++)
		if (!strcmp(ts->name[p], cell))
			return tq_tg_set_after(tg, t, p) ? "after: cannot set" : NULL;
	return "after: not the name of a task on an earlier line";
}

static int parse(const char *path, char *text, struct taskset *ts)
{
	unsigned int line = 0, header_line = 0, nfields = 4;
	bool header = false;
	char *l;

	tq_tg_init(&ts->tg);
	for (l = strsep(&text, "\n"); l; l = strsep(&text, "\n")) {
		char *f[6], *p = l, *hash = strchr(l, '#');
		unsigned int nf = 0;
		const char *why;
		int t;

		line++;
		if (hash)
			*hash = 0;
		if (!*trim(l))
			continue;
		while (nf < 6 && (f[nf] = strsep(&p, ",")))
			nf++;
		if (!header) {
			if (nf < 4 || nf > 5 || strcmp(trim(f[0]), "name") ||
			    strcmp(trim(f[1]), "htd_ms") || strcmp(trim(f[2]), "k_ms") ||
			    strcmp(trim(f[3]), "dth_ms") ||
			    (nf == 5 && strcmp(trim(f[4]), "after")))
				return bad(path, line,
					   "expected header 'name,htd_ms,k_ms,dth_ms[,after]'");
			header = true;
			header_line = line;
			nfields = nf;
			continue;
		}
		if (nf != nfields)
			return bad(path, line, "expected %u fields, got %s", nfields,
				   nf > nfields ? "more" : "fewer");
		f[0] = trim(f[0]);
		if (!*f[0])
			return bad(path, line, "empty task name");
		if (strlen(f[0]) >= TQ_NAME_MAX)
			return bad(path, line, "task name longer than %d bytes", TQ_NAME_MAX - 1);
		/* names go into JSON and SVG unescaped */
		if (f[0][strspn(f[0], NAME_CHARS)])
			return bad(path, line, "task name may only have letters, digits, '_', '-', '.'");
		t = tq_tg_add_task(&ts->tg);
		if (t < 0)
			return bad(path, line, "more than %d tasks", TQ_MAX_TASKS);
		strcpy(ts->name[t], f[0]);
		for (int s = 0; s < TQ_STAGES; s++)
			if ((why = add_cell(&ts->tg, s, f[s + 1])))
				return bad(path, line, "%s", why);
		if (nf == 5 && (why = add_after(&ts->tg, ts, t, f[4])))
			return bad(path, line, "%s", why);
	}
	if (!header)
		return bad(path, line ? line : 1, "no header line");
	if (!ts->tg.ntasks)
		return bad(path, header_line, "no tasks");
	return 0;
}

int taskfile_load(const char *path, struct taskset *ts)
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
	ret = parse(path, text, ts);
	free(text);
	return ret;
}
