// SPDX-License-Identifier: GPL-2.0
/*
 * counters.c - read the module's sysfs counters, tqsubmitd's (its stats
 * reply on the client socket) and usched's metrics file.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <linux/tqsubmit.h>
#include <tq/tqsubmitd.h>
#include <tq_transport.h>

#include "counters.h"

/* Module attributes that are levels, not running totals (the rest are totals). */
static const char *const sysfs_gauges[] = { "contexts", "in_flight", "scheduler_pid" };

void ctr_free(struct ctr_set *set)
{
	for (unsigned int i = 0; i < set->n; i++)
		free(set->c[i].name);
	free(set->c);
	*set = (struct ctr_set){ 0 };
}

/* Empty it for a new reading, keeping the array. */
static void ctr_clear(struct ctr_set *set)
{
	for (unsigned int i = 0; i < set->n; i++)
		free(set->c[i].name);
	set->n = 0;
}

static struct counter *ctr_add(struct ctr_set *set, const char *name, double v, bool gauge)
{
	struct counter *c;

	if (set->n == set->cap) {
		unsigned int cap = set->cap ? 2 * set->cap : 256;

		c = realloc(set->c, cap * sizeof(*c));
		if (!c)
			return NULL;
		set->c = c;
		set->cap = cap;
	}
	c = &set->c[set->n];
	c->name = strdup(name);
	if (!c->name)
		return NULL;
	set->n++;
	c->value = v;
	c->gauge = gauge;
	c->hist = false;
	return c;
}

const struct counter *ctr_find(const struct ctr_set *set, const char *name)
{
	for (unsigned int i = 0; i < set->n; i++)
		if (!strcmp(set->c[i].name, name))
			return &set->c[i];
	return NULL;
}

/* The file's whole content as one integer (a trailing newline allowed). */
static bool read_int(int dirfd, const char *name, double *v)
{
	char buf[32], *end;
	ssize_t len;
	int fd;

	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return false;
	buf[len] = 0;
	*v = (double)strtoll(buf, &end, 10);
	return end != buf && (!*end || !strcmp(end, "\n"));
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct counter *)a)->name, ((const struct counter *)b)->name);
}

int ctr_read_sysfs(const char *path, struct ctr_set *set)
{
	struct dirent *de;
	DIR *dir;

	ctr_clear(set);
	dir = opendir(path);
	if (!dir)
		return -errno;
	while ((de = readdir(dir))) {
		bool gauge = false;
		struct stat st;
		double v;

		/* dev ("10:123") and uevent are not integers; subdirectories are skipped */
		if (fstatat(dirfd(dir), de->d_name, &st, 0) || !S_ISREG(st.st_mode) ||
		    !read_int(dirfd(dir), de->d_name, &v))
			continue;
		for (size_t i = 0; i < sizeof(sysfs_gauges) / sizeof(sysfs_gauges[0]); i++)
			gauge |= !strcmp(de->d_name, sysfs_gauges[i]);
		if (!ctr_add(set, de->d_name, v, gauge))
			break;
	}
	closedir(dir);
	/* readdir order is arbitrary: sort so columns stay put between runs */
	qsort(set->c, set->n, sizeof(set->c[0]), by_name);
	return 0;
}

/* Gauges and histograms named by "# TYPE" lines seen so far. */
struct types {
	unsigned int n;
	char name[CTR_FAMILIES][CTR_NAME];
	bool hist[CTR_FAMILIES];
};

/*
 * One more counter, family, the sum of family{...}'s samples, when there
 * are any: 1 if it was added.
 */
static int ctr_sum_family(struct ctr_set *set, const char *family)
{
	size_t len = strlen(family);
	bool any = false;
	double sum = 0;

	for (unsigned int i = 0; i < set->n; i++) {
		if (!strncmp(set->c[i].name, family, len) && set->c[i].name[len] == '{') {
			sum += set->c[i].value;
			any = true;
		}
	}
	return any && ctr_add(set, family, sum, false) ? 1 : 0;
}

/* The type entry of metric's family (a histogram's series drop a suffix), or -1. */
static int type_of(const struct types *ty, const char *metric)
{
	static const char *const suffix[] = { "", "_bucket", "_sum", "_count" };
	size_t len = strcspn(metric, "{");

	for (unsigned int i = 0; i < ty->n; i++) {
		size_t tl = strlen(ty->name[i]);

		for (unsigned int s = 0; s < (ty->hist[i] ? 4 : 1); s++)
			if (tl + strlen(suffix[s]) == len && !strncmp(ty->name[i], metric, tl) &&
			    !strncmp(metric + tl, suffix[s], len - tl))
				return i;
	}
	return -1;
}

/* "# TYPE name gauge" or "# TYPE name histogram": remember name. */
static void parse_type(struct types *ty, const char *line)
{
	char name[CTR_NAME], type[16];
	bool hist;

	if (sscanf(line, "# TYPE %1023s %15s", name, type) != 2 || ty->n == CTR_FAMILIES)
		return;
	hist = !strcmp(type, "histogram");
	if (!hist && strcmp(type, "gauge"))
		return;
	snprintf(ty->name[ty->n], CTR_NAME, "%s", name);
	ty->hist[ty->n++] = hist;
}

/*
 * One sample line into name (the metric and its labels as written, quotes
 * and escapes kept) and value; false if it is not one, or its name does not
 * fit.
 */
static bool parse_sample(const char *line, char *name, double *v)
{
	size_t i = strcspn(line, " \t{");
	bool quoted = false;
	char *end;

	if (!i)
		return false;
	if (line[i] == '{') {
		/* to the '}' outside a quoted value; \" and \\ inside one */
		for (i++; line[i] && (quoted || line[i] != '}'); i++) {
			if (quoted && line[i] == '\\' && line[i + 1])
				i++;
			else if (line[i] == '"')
				quoted = !quoted;
		}
		if (line[i] != '}')
			return false;
		i++;
	}
	if (i >= CTR_NAME)
		return false;
	memcpy(name, line, i);
	name[i] = 0;
	*v = strtod(line + i, &end);
	if (end == line + i)
		return false;
	/* an optional timestamp, then nothing */
	strtoll(end, &end, 10);
	while (*end == ' ' || *end == '\t' || *end == '\r')
		end++;
	return !*end && !isnan(*v);
}

static int ctr_add_typed(struct ctr_set *set, const char *name, double v,
			 const struct types *ty)
{
	int t = type_of(ty, name);
	struct counter *c = ctr_add(set, name, v, t >= 0 && !ty->hist[t]);

	if (c)
		c->hist = t >= 0 && ty->hist[t];
	return c != NULL;
}

int ctr_parse_prom(const char *text, size_t len, struct ctr_set *set)
{
	struct types *ty = calloc(1, sizeof(*ty));
	const char *end = text + len;
	char line[CTR_NAME + 128], name[CTR_NAME];
	int kept = 0;

	ctr_clear(set);
	if (!ty)
		return 0;
	while (text < end) {
		const char *nl = memchr(text, '\n', end - text);
		size_t n = nl ? (size_t)(nl - text) : (size_t)(end - text);
		double v;

		if (n < sizeof(line)) {
			memcpy(line, text, n);
			line[n] = 0;
			if (line[0] == '#')
				parse_type(ty, line);
			else if (parse_sample(line, name, &v))
				kept += ctr_add_typed(set, name, v, ty);
		}
		text += n + (nl != NULL);
	}
	free(ty);
	kept += ctr_sum_family(set, CTR_LIMITS);
	return kept;
}

/* All of f, in a buffer to free(); NULL on a read error or without memory. */
static char *read_stream(FILE *f, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap), *b;

	while (buf) {
		n += fread(buf + n, 1, cap - n, f);
		if (ferror(f)) {
			free(buf);
			return NULL;
		}
		if (n < cap) {
			*len = n;
			return buf;
		}
		b = realloc(buf, 2 * cap);
		if (!b)
			free(buf);
		buf = b;
		cap *= 2;
	}
	return NULL;
}

int ctr_read_prom(const char *path, struct ctr_set *set)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int ret = 0;

	ctr_clear(set);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	/* the writer replaces the file by rename, so one open file is one version, read whole */
	buf = read_stream(f, &len);
	if (!buf)
		ret = ferror(f) ? -EIO : -ENOMEM;
	else
		ctr_parse_prom(buf, len, set);
	free(buf);
	fclose(f);
	return ret;
}

int ctr_read_sock(const char *path, struct ctr_set *set)
{
	char buf[sizeof(struct tq_sock_msg) + TQD_STATS_MAX];
	struct tq_sock_msg h = { .cmd = TQD_SOCK_STATS };
	struct tqd_stats req = { .size = sizeof(req) };
	struct pollfd p;
	ssize_t n;
	int fd, ret = 0;

	ctr_clear(set);
	fd = tqt_connect(path);
	if (fd < 0)
		return fd;
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), &req, sizeof(req));
	if (send(fd, buf, sizeof(h) + sizeof(req), MSG_NOSIGNAL) < 0) {
		ret = -errno;
		goto out;
	}
	/* tqsubmitd answers at once; a second is plenty. */
	p = (struct pollfd){ .fd = fd, .events = POLLIN };
	if (poll(&p, 1, 1000) != 1) {
		ret = -ETIMEDOUT;
		goto out;
	}
	n = recv(fd, buf, sizeof(buf), 0);
	if (n < (ssize_t)sizeof(h)) {
		ret = n < 0 ? -errno : -EPROTO;
		goto out;
	}
	memcpy(&h, buf, sizeof(h));
	if (h.cmd != TQD_SOCK_STATS || h.status) {
		ret = h.status ? h.status : -EPROTO;
		goto out;
	}
	ctr_parse_prom(buf + sizeof(h), n - sizeof(h), set);
out:
	close(fd);
	return ret;
}
