/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cli.h - pieces of the tqsim tool shared by its commands (not part of
 * libtqsim).
 */
#ifndef TQSIM_CLI_H
#define TQSIM_CLI_H

#include <stdio.h>

#include "sim/tqsim.h"

#define NS_PER_MS	1e6

/*
 * A task file: the TG and each task's name; its classes and deadlines (ns
 * after its arrival), share groups and arrivals (ms), all 0 where the file
 * has none of those columns (qos_given: it has prio, deadline_ms or share).
 */
struct taskset {
	struct tqsim_tg tg;
	char name[TQSIM_MAX_TASKS][TQSIM_NAME_MAX];
	struct tqsim_qos qos;
	unsigned int share[TQSIM_MAX_TASKS];
	double arrive_ms[TQSIM_MAX_TASKS];
	bool qos_given;
};

/*
 * Read a task file (CSV "name,htd_ms,k_ms,dth_ms"), or one of the paper's
 * tables of data/ (taskfile.c): @select names the row of Table 3 or 5 to
 * take, NULL for the others. On bad input prints "FILE:LINE: reason" on
 * stderr and returns -1.
 */
int taskfile_load(const char *path, const char *select, struct taskset *ts);

/* Read a whole file into a malloc'd NUL-terminated buffer; NULL on error. */
char *file_read(const char *path, size_t *len);

/* The Gantt chart of one simulated order, as Chrome trace JSON and as SVG. */
int draw_trace(const char *path, const struct taskset *ts, const struct tqsim_dev *dev,
	       const uint8_t *order, unsigned int n);
int draw_svg(const char *path, const struct taskset *ts, const struct tqsim_dev *dev,
	     const uint8_t *order, unsigned int n);

/* SVG helpers shared with the evaluation's plot. */
void svg_begin(FILE *f, int width, int height);
void svg_end(FILE *f);

/* The speed benchmarks, one line each; @data_dir holds the paper's tables. */
void bench_all(FILE *f, const char *data_dir);

/*
 * The evaluation's instances (instances.c). Its devices (0: dma 2 slow 1.00,
 * 1: dma 2 slow 1.08, 2: dma 1), by eval_dev() and eval_dev_name(); its sizes
 * of TG, eval_sizes[]; the paper's tables, read by eval_load(); the random
 * TGs of one row (size @si, device @di): @seeds x EVAL_NMIXES TGs into @tgs
 * by eval_row_tgs(), or by eval_tgs() for @T tasks straight from @dir
 * (more seeds than EVAL_SEEDS: a superset of its TGs), which returns how
 * many, or -1 when @T is not one of its sizes or the data cannot be read.
 * eval_uniform() draws on from the last instance's stream.
 */
#define EVAL_DEVS	3
#define EVAL_NSIZES	5
#define EVAL_NMIXES	5	/* 0, 25, 50, 75, 100% dominant-kernel tasks */
#define EVAL_SEEDS	4
#define EVAL_TGS	(EVAL_SEEDS * EVAL_NMIXES)

struct eval_data {
	double syn[8][TQSIM_STAGES];		/* T0..T7, ms */
	uint8_t bk[5][4];
	/* Table 5: per device and task, [stage][min, max] ms, and its dominance */
	unsigned int nreal;
	double real[24][TQSIM_STAGES][2];
	bool real_dk[24];
};

extern const int eval_sizes[EVAL_NSIZES];
void eval_dev(struct tqsim_dev *dev, unsigned int i);
const char *eval_dev_name(unsigned int i);
int eval_load(const char *dir, struct eval_data *d);
unsigned int eval_row_tgs(const struct eval_data *d, unsigned int si, unsigned int di,
			  unsigned int seeds, struct tqsim_tg *tgs);
int eval_tgs(const char *dir, unsigned int T, unsigned int dev, unsigned int seeds,
	     struct tqsim_tg *tgs);
double eval_uniform(double lo, double hi);

int cmd_eval(int argc, char **argv);
int cmd_bench(int argc, char **argv);

/* Exit statuses: 2 for bad usage or input, as the task file contract says. */
enum { EXIT_BAD_INPUT = 2 };

#endif /* TQSIM_CLI_H */
