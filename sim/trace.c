// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * trace.c - the Chrome JSON trace-event writer of trace.h: tracks of lanes,
 * slices, flow arrows, and the size bound.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

/* Room kept for the "trace full" event and the closing bracket. */
#define TAIL_BYTES	256

struct lane {
	uint32_t tid;		/* 0: not named yet */
	uint64_t free_at;	/* its last slice's end; UINT64_MAX: held */
};

struct track {
	uint32_t pid;
	int sort;
	char name[96];
	unsigned int nlanes;
	struct lane lane[TQTRACE_LANES];
};

struct tqtrace {
	FILE *f;
	uint64_t max, bytes;
	bool full, failed;
	unsigned int nevents;
	uint32_t next_tid;
	struct track *track;
	uint32_t ntracks, cap;
};

int tqtrace_open(struct tqtrace **out, FILE *f, uint64_t max_bytes)
{
	struct tqtrace *tr = calloc(1, sizeof(*tr));

	if (!tr)
		return -ENOMEM;
	tr->f = f;
	tr->max = max_bytes;
	tr->next_tid = TQTRACE_ID_BASE + 1;
	tr->bytes = fprintf(f, "[\n");
	*out = tr;
	return 0;
}

/* One event (a JSON object's members), within the bound. */
static void __attribute__((format(printf, 2, 3))) event(struct tqtrace *tr, const char *fmt, ...)
{
	char buf[TQTRACE_EVENT_MAX];
	va_list ap;
	int n;

	if (tr->full)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0 || n >= (int)sizeof(buf))
		return;		/* names are bounded: cannot happen */
	if (tr->max && tr->bytes + n + 4 + TAIL_BYTES > tr->max) {
		tr->full = true;
		tr->bytes += fprintf(tr->f, "%s{\"name\": \"trace full\", \"ph\": \"i\", \"s\": \"g\", "
				     "\"pid\": %u, \"tid\": %u, \"ts\": 0, \"args\": {\"max_bytes\": "
				     "%llu}}", tr->nevents ? ",\n" : "", TQTRACE_DEVICE_PID,
				     TQTRACE_DEVICE_PID, (unsigned long long)tr->max);
		return;
	}
	tr->bytes += fprintf(tr->f, "%s{%s}", tr->nevents++ ? ",\n" : "", buf);
}

int tqtrace_close(struct tqtrace *tr)
{
	int ret;

	fprintf(tr->f, "\n]\n");
	ret = ferror(tr->f) | fclose(tr->f) ? -EIO : 0;
	free(tr->track);
	free(tr);
	return ret;
}

void tqtrace_flush(struct tqtrace *tr)
{
	fflush(tr->f);
}

uint64_t tqtrace_bytes(const struct tqtrace *tr)
{
	return tr->bytes;
}

bool tqtrace_full(const struct tqtrace *tr)
{
	return tr->full;
}

/* Times: ns to the format's microseconds, to the ns. */
static double us(uint64_t ns)
{
	return ns / 1e3;
}

void tqtrace_process(struct tqtrace *tr, uint32_t pid, const char *name, int sort)
{
	event(tr, "\"name\": \"process_name\", \"ph\": \"M\", \"pid\": %u, \"args\": {\"name\": "
	      "\"%s\"}", pid, name);
	event(tr, "\"name\": \"process_sort_index\", \"ph\": \"M\", \"pid\": %u, \"args\": "
	      "{\"sort_index\": %d}", pid, sort);
}

uint32_t tqtrace_track(struct tqtrace *tr, uint32_t pid, const char *name, int sort)
{
	struct track *t;

	if (tr->ntracks == tr->cap) {
		uint32_t cap = tr->cap ? 2 * tr->cap : 16;
		struct track *n = realloc(tr->track, cap * sizeof(*n));

		if (!n)
			return TQTRACE_NONE;
		tr->track = n;
		tr->cap = cap;
	}
	t = &tr->track[tr->ntracks];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->sort = sort;
	snprintf(t->name, sizeof(t->name), "%s", name);
	return tr->ntracks++;
}

/* Lane @l of @t, named at its first use. */
static uint32_t lane_tid(struct tqtrace *tr, struct track *t, unsigned int l)
{
	struct lane *ln = &t->lane[l];

	if (ln->tid)
		return ln->tid;
	ln->tid = tr->next_tid++;
	if (l)
		event(tr, "\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": %u, \"tid\": %u, "
		      "\"args\": {\"name\": \"%s #%u\"}", t->pid, ln->tid, t->name, l + 1);
	else
		event(tr, "\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": %u, \"tid\": %u, "
		      "\"args\": {\"name\": \"%s\"}", t->pid, ln->tid, t->name);
	event(tr, "\"name\": \"thread_sort_index\", \"ph\": \"M\", \"pid\": %u, \"tid\": %u, "
	      "\"args\": {\"sort_index\": %d}", t->pid, ln->tid, t->sort * TQTRACE_LANES + (int)l);
	return ln->tid;
}

uint32_t tqtrace_lane_tid(struct tqtrace *tr, uint32_t track, unsigned int lane)
{
	if (track >= tr->ntracks || lane >= TQTRACE_LANES)
		return 0;
	return lane_tid(tr, &tr->track[track], lane);
}

unsigned int tqtrace_hold(struct tqtrace *tr, uint32_t track, uint64_t start_ns)
{
	struct track *t;
	unsigned int l, best = 0;

	if (track >= tr->ntracks)
		return 0;
	t = &tr->track[track];
	for (l = 0; l < t->nlanes; l++) {
		if (t->lane[l].free_at <= start_ns)
			break;
		if (t->lane[l].free_at < t->lane[best].free_at)
			best = l;
	}
	if (l == t->nlanes) {
		/* all busy: a new lane, or past the last one the lane free first */
		if (t->nlanes < TQTRACE_LANES)
			t->nlanes++;
		else
			l = best;
	}
	t->lane[l].free_at = UINT64_MAX;
	return l;
}

uint32_t tqtrace_slice_on(struct tqtrace *tr, uint32_t track, unsigned int lane, const char *name,
			  const char *cat, uint64_t start_ns, uint64_t end_ns, const char *args)
{
	struct track *t;
	uint32_t tid;

	if (track >= tr->ntracks || lane >= TQTRACE_LANES)
		return 0;
	t = &tr->track[track];
	if (end_ns < start_ns)
		end_ns = start_ns;
	tid = lane_tid(tr, t, lane);
	t->lane[lane].free_at = end_ns;
	event(tr, "\"name\": \"%s\", \"cat\": \"%s\", \"ph\": \"X\", \"pid\": %u, \"tid\": %u, "
	      "\"ts\": %.3f, \"dur\": %.3f, \"args\": {%s}", name, cat, t->pid, tid, us(start_ns),
	      us(end_ns) - us(start_ns), args);
	return tid;
}

uint32_t tqtrace_slice(struct tqtrace *tr, uint32_t track, const char *name, const char *cat,
		       uint64_t start_ns, uint64_t end_ns, const char *args)
{
	return tqtrace_slice_on(tr, track, tqtrace_hold(tr, track, start_ns), name, cat, start_ns,
				end_ns, args);
}

void tqtrace_flow(struct tqtrace *tr, char ph, uint64_t id, uint32_t pid, uint32_t tid,
		  uint64_t ts_ns)
{
	/* "bp": "e": bound to the enclosing slice, the finish too (not the next one) */
	event(tr, "\"name\": \"task\", \"cat\": \"task\", \"ph\": \"%c\", \"id\": %llu, "
	      "\"pid\": %u, \"tid\": %u, \"ts\": %.3f, \"bp\": \"e\"", ph, (unsigned long long)id,
	      pid, tid, us(ts_ns));
}

int tqtrace_engine(unsigned int dma, int stage, unsigned int kq, bool predicted, char *buf,
		   size_t len)
{
	static const char *const name[] = { "HtD", "K", "DtH" };
	const char *what = predicted ? " predicted" : "";
	int sort;

	if (stage == 1) {
		sort = TQTRACE_SORT_K + 10 * (int)kq;
		if (kq)
			snprintf(buf, len, "K%u%s", kq, what);
		else
			snprintf(buf, len, "K%s", what);
	} else if (dma == 1) {
		sort = TQTRACE_SORT_HTD;
		snprintf(buf, len, "copy (HtD, DtH)%s", what);
	} else {
		sort = stage ? TQTRACE_SORT_DTH : TQTRACE_SORT_HTD;
		snprintf(buf, len, "%s%s", name[stage ? 2 : 0], what);
	}
	return sort + predicted;
}

const char *tqtrace_str(char *buf, size_t len, const char *s)
{
	size_t o = 0;

	for (; *s && o + 7 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			o += snprintf(buf + o, len - o, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			o += snprintf(buf + o, len - o, "\\u%04x", c);
		else if (c >= 0x80)
			buf[o++] = '?';	/* a name need not be UTF-8; JSON must */
		else
			buf[o++] = (char)c;
	}
	buf[o] = 0;
	return buf;
}
