// SPDX-License-Identifier: GPL-2.0
/*
 * draw.c - a simulated timeline as Chrome trace-event JSON (Perfetto and
 * chrome://tracing open it) and as an SVG Gantt chart, one track per queue,
 * coloured as in the paper's figures: HtD blue, K green, DtH orange.
 */
#include <math.h>
#include <stdlib.h>

#include "cli.h"
#include "sim/trace.h"

static const char *const stage_name[TQSIM_STAGES] = { "HtD", "K", "DtH" };
static const char *const stage_color[TQSIM_STAGES] = { "#3b75c4", "#4caf50", "#f39c12" };

/*
 * The track (queue) a stage's commands run on: the copy queue(s) and the
 * first kernel queue, then the other kernel queues ("K1", ...); @kq is the
 * kernel queue of the task's kernels (kq_of()).
 */
static int track_of(const struct tqsim_dev *dev, int s, unsigned int kq)
{
	if (s == TQSIM_K && kq)
		return (int)(dev->dma + kq);
	if (dev->dma == 1)
		return s == TQSIM_K ? 1 : 0;
	return s;
}

static const char *track_name(const struct tqsim_dev *dev, int track)
{
	static const char *const more[] = { "K1", "K2", "K3", "K4", "K5", "K6", "K7" };

	if (track > (int)dev->dma)
		return more[track - dev->dma - 1];
	if (dev->dma == 1)
		return track ? "K" : "copy (HtD, DtH)";
	return stage_name[track];
}

static int ntracks(const struct tqsim_dev *dev)
{
	return (int)(dev->dma + dev->kq);
}

/* Each position's kernel queue: the tasks with a kernel go round-robin, as the model has them. */
static void kq_of(const struct taskset *ts, const struct tqsim_dev *dev, const uint8_t *order,
		  unsigned int n, unsigned int *kq)
{
	unsigned int nk = 0;

	for (unsigned int i = 0; i < n; i++)
		kq[i] = ts->tg.task[order[i]].n[TQSIM_K] ? nk++ % dev->kq : 0;
}

/* Visit every simulated command. */
#define for_each_cmd(ts, order, n, i, s, c, idx)					\
	for (unsigned int i = 0; i < (n); i++)					\
		for (int s = 0; s < TQSIM_STAGES; s++)				\
			for (unsigned int c = 0, idx = (ts)->tg.task[(order)[i]].first[s]; \
			     c < (ts)->tg.task[(order)[i]].n[s]; c++, idx++)

static int finish(FILE *f, const char *path)
{
	if (ferror(f) | fclose(f)) {
		fprintf(stderr, "tqsim: cannot write %s\n", path);
		return -1;
	}
	return 0;
}

/* The first and the last stage of task @t that has commands. */
static int first_stage(const struct taskset *ts, unsigned int t)
{
	int s = 0;

	while (s < TQSIM_STAGES - 1 && !ts->tg.task[t].n[s])
		s++;
	return s;
}

static int last_stage(const struct taskset *ts, unsigned int t)
{
	int s = TQSIM_STAGES - 1;

	while (s > 0 && !ts->tg.task[t].n[s])
		s--;
	return s;
}

/*
 * The TG as usched's trace has it (sim/trace.h), all of it predicted: each
 * command on its engine's "predicted" track, the TG as a slice from 0 to
 * its makespan, each task's commands linked by a flow arrow.
 */
int draw_trace(const char *path, const struct taskset *ts, const struct tqsim_dev *dev,
	       const uint8_t *order, unsigned int n)
{
	static struct tqsim_sim_result res;
	uint32_t track[TQSIM_STAGES][TQSIM_MAX_KQ], tg_track;
	unsigned int kq[TQSIM_MAX_TASKS];
	FILE *f = fopen(path, "w");
	struct tqtrace *tr;
	char name[96], args[256];

	if (!f || tqtrace_open(&tr, f, 0)) {
		fprintf(stderr, "tqsim: cannot create %s\n", path);
		if (f)
			fclose(f);
		return -1;
	}
	tqsim_simulate(&ts->tg, dev, order, n, &res);
	kq_of(ts, dev, order, n, kq);
	tqtrace_process(tr, TQTRACE_DEVICE_PID, "tqsim: the model's schedule of a TG", 0);
	for (int s = 0; s < TQSIM_STAGES; s++)
		for (unsigned int q = 0; q < dev->kq; q++) {
			int sort = tqtrace_engine(dev->dma, s, q, true, name, sizeof(name));

			track[s][q] = TQTRACE_NONE;
			if (s == TQSIM_K || !q)
				track[s][q] = s == TQSIM_DTH && dev->dma == 1 ? track[TQSIM_HTD][0] :
					      tqtrace_track(tr, TQTRACE_DEVICE_PID, name, sort);
		}
	tg_track = tqtrace_track(tr, TQTRACE_DEVICE_PID, "TGs", TQTRACE_SORT_TG);
	snprintf(args, sizeof(args), "\"tasks\": %u, \"predicted_ms\": %.6f", n,
		 res.makespan / NS_PER_MS);
	tqtrace_slice(tr, tg_track, "TG 1", "tg", 0, (uint64_t)llround(res.makespan), args);
	for_each_cmd(ts, order, n, i, s, c, idx) {
		unsigned int t = order[i];
		uint64_t start = (uint64_t)llround(res.start[idx]), end = (uint64_t)llround(res.end[idx]);
		uint32_t tid;

		snprintf(name, sizeof(name), "%s %s%s", ts->name[t], stage_name[s], c ? "+" : "");
		snprintf(args, sizeof(args), "\"task\": \"%u\", \"cmd\": %u, \"tg\": 1", t, c);
		tid = tqtrace_slice(tr, track[s][s == TQSIM_K ? kq[i] : 0], name, stage_name[s],
				    start, end, args);
		/* the task's arrow: through each stage's first command */
		if (!c && first_stage(ts, t) != last_stage(ts, t))
			tqtrace_flow(tr, s == first_stage(ts, t) ? 's' : s == last_stage(ts, t) ? 'f' : 't',
				     t + 1, TQTRACE_DEVICE_PID, tid, start + (end - start) / 2);
	}
	if (tqtrace_close(tr)) {
		fprintf(stderr, "tqsim: cannot write %s\n", path);
		return -1;
	}
	return 0;
}

void svg_begin(FILE *f, int width, int height)
{
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
		width, height, width, height);
}

void svg_end(FILE *f)
{
	fprintf(f, "</svg>\n");
}

/* A tick step of 1, 2 or 5 times a power of ten giving about 10 ticks. */
static double tick_step(double span)
{
	double step = pow(10, floor(log10(span / 10)));

	if (span / step > 50)
		return step * 5;
	if (span / step > 20)
		return step * 2;
	return step;
}

int draw_svg(const char *path, const struct taskset *ts, const struct tqsim_dev *dev,
	     const uint8_t *order, unsigned int n)
{
	enum { LEFT = 110, TOP = 30, ROW = 40, PLOT_W = 900 };
	static struct tqsim_sim_result res;
	FILE *f = fopen(path, "w");
	double span, scale, step;
	int rows = ntracks(dev), height = TOP + rows * ROW + 40;
	unsigned int kq[TQSIM_MAX_TASKS];

	if (!f) {
		fprintf(stderr, "tqsim: cannot create %s\n", path);
		return -1;
	}
	tqsim_simulate(&ts->tg, dev, order, n, &res);
	kq_of(ts, dev, order, n, kq);
	span = res.makespan > 0 ? res.makespan / NS_PER_MS : 1;
	scale = PLOT_W / span;
	svg_begin(f, LEFT + PLOT_W + 20, height);
	fprintf(f, "<text x=\"%d\" y=\"18\">makespan %.3f ms, dma %u</text>\n", LEFT,
		res.makespan / NS_PER_MS, dev->dma);
	for (int t = 0; t < rows; t++)
		fprintf(f, "<text x=\"8\" y=\"%d\">%s</text>\n", TOP + t * ROW + ROW / 2 + 4,
			track_name(dev, t));
	step = tick_step(span);
	for (double x = 0; x <= span + step / 2; x += step) {
		int px = LEFT + (int)lround(x * scale);

		fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>\n"
			"<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%g</text>\n",
			px, TOP, px, TOP + rows * ROW, px, TOP + rows * ROW + 16, x);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">ms</text>\n",
		LEFT + PLOT_W / 2, TOP + rows * ROW + 34);
	for_each_cmd(ts, order, n, i, s, c, idx) {
		double x = LEFT + res.start[idx] / NS_PER_MS * scale;
		double w = (res.end[idx] - res.start[idx]) / NS_PER_MS * scale;
		int y = TOP + track_of(dev, s, kq[i]) * ROW + 5;

		fprintf(f, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\" "
			"stroke=\"black\" stroke-width=\"0.5\"><title>%s %s %.3f-%.3f ms</title>"
			"</rect>\n", x, y, w, ROW - 10, stage_color[s], ts->name[order[i]],
			stage_name[s], res.start[idx] / NS_PER_MS, res.end[idx] / NS_PER_MS);
		if (w > 24 && !c)
			fprintf(f, "<text x=\"%.2f\" y=\"%d\" text-anchor=\"middle\" fill=\"white\">"
				"%s</text>\n", x + w / 2, y + ROW / 2, ts->name[order[i]]);
	}
	svg_end(f);
	return finish(f, path);
}
