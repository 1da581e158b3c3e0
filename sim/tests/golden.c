// SPDX-License-Identifier: GPL-2.0
/*
 * sim-golden: hand-computed timelines. Each sim/tests/golden/NAME.csv is a
 * task file whose comments derive the timeline by hand and whose
 * "# args:" line gives tqsim's options; NAME.json is the expected output of
 * "tqsim makespan --timeline ARGS NAME.csv", compared byte for byte.
 * TQ_GOLDEN_UPDATE=1 rewrites the .json files (check them by hand after).
 */
#include <dirent.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "selftests/tap.h"

#define GOLDEN_DIR	"sim/tests/golden"

static char *slurp(FILE *f)
{
	size_t cap = 4096, n = 0, got;
	char *buf = malloc(cap);

	while (buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (n + 1 == cap) {
			char *p = realloc(buf, cap *= 2);

			if (!p) {
				free(buf);
				return NULL;
			}
			buf = p;
		}
	}
	if (buf)
		buf[n] = 0;
	return buf;
}

static char *read_path(const char *path)
{
	FILE *f = fopen(path, "r");
	char *s;

	if (!f)
		return NULL;
	s = slurp(f);
	fclose(f);
	return s;
}

/* The text after "# args:" in the task file, or "". */
static void args_of(const char *csv, char *args, size_t len)
{
	const char *p = strstr(csv, "# args:");

	*args = 0;
	if (p) {
		p += strlen("# args:");
		snprintf(args, len, "%.*s", (int)strcspn(p, "\n"), p);
	}
}

/* Print the first differing line of the two outputs. */
static void show_diff(const char *want, const char *got)
{
	int line = 1;

	while (*want && *want == *got) {
		line += *want == '\n';
		want++;
		got++;
	}
	tap_diag("line %d: want '%.*s'", line, (int)strcspn(want, "\n"), want);
	tap_diag("line %d:  got '%.*s'", line, (int)strcspn(got, "\n"), got);
}

static void check_case(const char *name, bool update)
{
	char path[512], args[256], cmd[1024];
	char *csv, *got = NULL, *want;
	FILE *p;
	int rc;

	snprintf(path, sizeof(path), "%s/%s.csv", GOLDEN_DIR, name);
	csv = read_path(path);
	if (!csv) {
		tap_ok(0, "%s: cannot read %s", name, path);
		return;
	}
	args_of(csv, args, sizeof(args));
	snprintf(cmd, sizeof(cmd), "%s makespan --timeline %s %s", TQSIM_BIN, args, path);
	p = popen(cmd, "r");
	if (p) {
		got = slurp(p);
		rc = pclose(p);
	}
	if (!p || !got || rc) {
		tap_ok(0, "%s: '%s' failed", name, cmd);
		goto out;
	}
	snprintf(path, sizeof(path), "%s/%s.json", GOLDEN_DIR, name);
	if (update) {
		FILE *f = fopen(path, "w");

		tap_ok(f && fputs(got, f) >= 0 && !fclose(f), "%s: wrote %s", name, path);
		goto out;
	}
	want = read_path(path);
	if (!tap_ok(want && !strcmp(want, got), "%s: timeline as computed by hand (%s)", name,
		    *args ? args : "defaults") && want)
		show_diff(want, got);
	free(want);
out:
	free(got);
	free(csv);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(void)
{
	bool update = getenv("TQ_GOLDEN_UPDATE") != NULL;
	DIR *dir = opendir(GOLDEN_DIR);
	char *names[64];
	size_t n = 0;
	struct dirent *e;

	if (!dir)
		tap_skip_all("run from the top of the tree: no " GOLDEN_DIR);
	while ((e = readdir(dir)) && n < 64) {
		size_t len = strlen(e->d_name);

		if (len > 4 && !strcmp(e->d_name + len - 4, ".csv"))
			names[n++] = strndup(e->d_name, len - 4);
	}
	closedir(dir);
	qsort(names, n, sizeof(names[0]), cmp_str);
	tap_ok(n >= 7, "%zu golden cases", n);
	for (size_t i = 0; i < n; i++) {
		check_case(names[i], update);
		free(names[i]);
	}
	return tap_done();
}
