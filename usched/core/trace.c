// SPDX-License-Identifier: GPL-2.0
/*
 * trace.c - the measured timeline as Chrome trace-event JSON, in the form
 * of tqsim's --trace (sim/cli/draw.c): one track (tid) per queue, one "X"
 * slice per command named "<task> <stage>", times in microseconds, so a
 * predicted and a measured timeline open side by side in Perfetto. The
 * file is written as tasks complete and closed by usched_destroy().
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

struct trace {
	FILE *f;
	uint64_t t0;
};

static const char *const stage_name[USCHED_STAGES] = { "HtD", "K", "DtH" };

int trace_open(struct trace **trp, const char *path, const char *const *tracks,
	       unsigned int ntracks, uint64_t t0)
{
	struct trace *tr = calloc(1, sizeof(*tr));

	if (!tr)
		return -ENOMEM;
	tr->f = fopen(path, "w");
	if (!tr->f) {
		free(tr);
		return -errno;
	}
	tr->t0 = t0;
	fprintf(tr->f, "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n");
	for (unsigned int t = 0; t < ntracks; t++)
		fprintf(tr->f, "%s{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, "
			"\"tid\": %u, \"args\": {\"name\": \"%s\"}}", t ? ",\n" : "", t, tracks[t]);
	*trp = tr;
	return 0;
}

void trace_cmd(struct trace *tr, unsigned int track, const char *task, unsigned int stage,
	       unsigned int cmd, uint64_t tg, uint64_t user_data, uint64_t start_ns,
	       uint64_t end_ns)
{
	fprintf(tr->f, ",\n{\"name\": \"%s %s%s\", \"cat\": \"%s\", \"ph\": \"X\", \"pid\": 1, "
		"\"tid\": %u, \"ts\": %.3f, \"dur\": %.3f, \"args\": {\"task\": %llu, "
		"\"cmd\": %u, \"tg\": %llu}}",
		task, stage_name[stage], cmd ? "+" : "", stage_name[stage], track,
		((int64_t)(start_ns - tr->t0)) / 1e3, (end_ns - start_ns) / 1e3,
		(unsigned long long)user_data, cmd, (unsigned long long)tg);
}

int trace_close(struct trace *tr)
{
	int ret;

	fprintf(tr->f, "\n]}\n");
	ret = ferror(tr->f) | fclose(tr->f) ? -EIO : 0;
	free(tr);
	return ret;
}
