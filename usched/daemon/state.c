// SPDX-License-Identifier: GPL-2.0
/*
 * state.c - the id tables, kept in a file so that a restarted usched
 * honours the program and kernel ids its predecessor gave out.
 *
 * The module re-delivers every task a dead scheduler held, but those tasks
 * name programs and kernels by ids only the dead scheduler knew. So each
 * registration is appended to the state file (on a tmpfs: /run/tq) before
 * its completion is written, as a header line and the raw text:
 *
 *	P <ctx> <pid> <id> <builtin> <textlen> <optslen>\n<text><opts>\n
 *	K <ctx> <pid> <id> <prog> <namelen>\n<name>\n
 *
 * At start-up the file is read whole; a context the module announces again
 * (same id and pid) gets its tables back and its programs rebuilt (the
 * driver's cache makes that quick). The file is rewritten from the live
 * contexts, through a temporary name, whenever one is released, which also
 * drops what a crash left of contexts that are gone. A torn last record (a
 * crash in mid-append) ends the reading.
 *
 * The file holds only live contexts' records, each bounded by the limits
 * (max-source, the program and kernel quotas); state-max bounds it whole: a
 * record that would take it past that is not kept (a restart forgets that
 * id, and the tasks that use it fail -ENOENT) and is counted.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon.h"

static int state_reopen(struct daemon *d)
{
	d->state_fd = open(d->conf.state, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	return d->state_fd < 0 ? -errno : 0;
}

/* As systemd's RuntimeDirectory would. */
void state_make_dirs(const char *path)
{
	char *p = strdup(path), *s;

	if (!p)
		return;
	for (s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = 0;
		mkdir(p, 0700);
		*s = '/';
	}
	free(p);
}

int state_open(struct daemon *d)
{
	struct stat sb;
	ssize_t n;
	int fd;

	d->state_fd = -1;
	if (!d->conf.state)
		return 0;
	state_make_dirs(d->conf.state);
	fd = open(d->conf.state, O_RDONLY | O_CLOEXEC);
	d->state_bytes = 0;
	if (fd >= 0 && !fstat(fd, &sb) && sb.st_size > 0) {
		d->state_bytes = sb.st_size;
		d->saved = malloc(sb.st_size);
		if (d->saved) {
			n = read(fd, d->saved, sb.st_size);
			d->nsaved = n > 0 ? n : 0;
		}
	}
	if (fd >= 0)
		close(fd);
	return state_reopen(d);
}

void state_close(struct daemon *d)
{
	if (d->state_fd >= 0)
		close(d->state_fd);
	d->state_fd = -1;
	free(d->saved);
	d->saved = NULL;
	d->nsaved = 0;
}

static int rec_prog(FILE *f, const struct dctx *c, uint32_t id)
{
	const struct dprog *p = &c->progs[id - 1];
	size_t olen = p->opts ? strlen(p->opts) : 0;

	fprintf(f, "P %u %u %u %d %zu %zu\n", c->id, c->pid, id, p->builtin, strlen(p->text),
		olen);
	fputs(p->text, f);
	if (olen)
		fputs(p->opts, f);
	return fputc('\n', f) == EOF ? -EIO : 0;
}

static int rec_kern(FILE *f, const struct dctx *c, uint32_t id)
{
	const struct dkern *k = &c->kerns[id - 1];

	fprintf(f, "K %u %u %u %u %zu\n%s\n", c->id, c->pid, id, k->prog, strlen(k->name),
		k->name);
	return ferror(f) ? -EIO : 0;
}

/* One record in a buffer to free(); NULL without memory. */
static char *record(struct dctx *c, uint32_t id, bool prog, size_t *len)
{
	char *buf = NULL;
	FILE *f;

	*len = 0;
	f = open_memstream(&buf, len);
	if (!f)
		return NULL;
	if (prog)
		rec_prog(f, c, id);
	else
		rec_kern(f, c, id);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Room for len more bytes under state-max? If not, count the record dropped. */
static bool room(struct daemon *d, uint64_t used, size_t len)
{
	if (!d->conf.state_max || used + len <= d->conf.state_max)
		return true;
	d->st.state_dropped++;
	return false;
}

/* One record, with one write() so that a crash tears at most the last. */
static void state_append(struct daemon *d, struct dctx *c, uint32_t id, bool prog)
{
	size_t len;
	char *buf;

	if (d->state_fd < 0)
		return;
	buf = record(c, id, prog, &len);
	if (!buf)
		return;
	if (!room(d, d->state_bytes, len))
		warn("%s: full (state-max): a restart will forget context %u's %s %u",
		     d->conf.state, c->id, prog ? "program" : "kernel", id);
	else if (write(d->state_fd, buf, len) != (ssize_t)len)
		warn("%s: cannot append: %m; a restart will forget ids", d->conf.state);
	else
		d->state_bytes += len;
	free(buf);
}

void state_add_prog(struct daemon *d, struct dctx *c, uint32_t id)
{
	state_append(d, c, id, true);
}

void state_add_kern(struct daemon *d, struct dctx *c, uint32_t id)
{
	state_append(d, c, id, false);
}

/* The text after a header: len bytes, then a newline. NULL if torn. */
static const char *payload(const char **pos, const char *end, size_t len)
{
	const char *p = *pos;

	if ((size_t)(end - p) < len + 1 || p[len] != '\n')
		return NULL;
	*pos = p + len + 1;
	return p;
}

bool state_next(const struct daemon *d, size_t *pos, const struct dctx *c, struct state_rec *r)
{
	const char *p, *end;
	unsigned int ctx, pid, id, a;
	size_t l1, l2;
	int used;

	if (!d->saved)
		return false;
	p = d->saved + *pos;
	end = d->saved + d->nsaved;
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p), *text;
		char hdr[128];
		bool prog;

		if (!nl || nl - p >= (long)sizeof(hdr))
			return false;
		memcpy(hdr, p, nl - p);
		hdr[nl - p] = 0;
		p = nl + 1;
		l2 = 0;
		if (sscanf(hdr, "P %u %u %u %u %zu %zu%n", &ctx, &pid, &id, &a, &l1, &l2,
			   &used) == 6 && !hdr[used])
			prog = true;
		else if (sscanf(hdr, "K %u %u %u %u %zu%n", &ctx, &pid, &id, &a, &l1,
				&used) == 5 && !hdr[used])
			prog = false;
		else
			return false;
		text = payload(&p, end, l1 + l2);
		if (!text)
			return false;
		/* the context's next id: its tables fill in the order they were saved */
		if (ctx != c->id || pid != c->pid || id != (prog ? c->nprogs : c->nkerns) + 1)
			continue;
		*pos = (size_t)(p - d->saved);
		*r = (struct state_rec){ .prog = prog, .arg = a, .text = text, .len = l1,
					 .opts = text + l1, .opts_len = l2 };
		return true;
	}
	return false;
}

void state_compact(struct daemon *d)
{
	size_t len = d->conf.state ? strlen(d->conf.state) + 8 : 0;
	uint64_t used = 0;
	char *tmp;
	FILE *f;

	if (d->state_fd < 0)
		return;
	tmp = malloc(len);
	if (!tmp)
		return;
	snprintf(tmp, len, "%s.tmp", d->conf.state);
	f = fopen(tmp, "we");
	if (!f)
		goto out;
	for (unsigned int h = 0; h < DCTX_HASH; h++) {
		for (struct dctx *c = d->ctx[h]; c; c = c->next) {
			for (uint32_t i = 1; i <= c->nprogs + c->nkerns; i++) {
				bool prog = i <= c->nprogs;
				size_t n;
				char *buf = record(c, prog ? i : i - c->nprogs, prog, &n);

				if (buf && room(d, used, n) && fwrite(buf, 1, n, f) == n)
					used += n;
				free(buf);
			}
		}
	}
	if (fclose(f) || rename(tmp, d->conf.state)) {
		unlink(tmp);
		goto out;
	}
	close(d->state_fd);
	d->state_bytes = used;
	free(d->saved);
	d->saved = NULL;
	d->nsaved = 0;
	if (state_reopen(d))
		warn("%s: cannot reopen: %m; a restart will forget ids", d->conf.state);
out:
	free(tmp);
}
