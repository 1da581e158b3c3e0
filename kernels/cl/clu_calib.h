/* SPDX-License-Identifier: GPL-2.0 */
/*
 * clu_calib.h - the one transfer calibration: timing copies between
 * registered host memory and the device, the sweeps and the fits that turn
 * them into a profile's transfer lines and copy engines (struct tqsim_profile,
 * sim/tqsim.h). Two callers, two sweeps over the same measurements:
 *
 * - tqcalib: clu_cal_xfers() times every size from 4 KiB up, each
 *   direction alone and overlapped by copies the other way (medians);
 *   clu_cal_fit() fits latency + bytes / bandwidth per direction on the
 *   relative error from CLU_CAL_FIT_MIN up, slows it for overlapped copies
 *   by the median ratio of the CLU_CAL_SLOW_SIZES largest sizes, and counts
 *   two copy engines when the largest copies overlap.
 * - usched's start-up, when it has no profile: clu_cal_quick() takes the
 *   fastest of a few runs of two sizes per direction and of both large
 *   copies at once (milliseconds in all), a line through the two sizes, the
 *   overlapped bandwidth from the copies at once, and two copy engines when
 *   both at once are clearly shorter than one after the other.
 *
 * Copies come from host memory registered with the context and mapped
 * (clu.h), as usched copies; every time is the commands' profiling
 * stamps, and waits sleep.
 */
#ifndef CLU_CALIB_H
#define CLU_CALIB_H

#include <stdio.h>

#include "kernels/cl/clu.h"
#include "sim/tqsim.h"

enum { CLU_HTD, CLU_DTH };	/* the directions, index of the arrays below */

/* Transfer memory: a device buffer and a registered host area per direction. */
struct clu_cal {
	cl_command_queue q[2];		/* in-order, profiled: HtD, DtH */
	cl_mem dev[2];
	char *host[2];			/* mapped pointers in r */
	void *base;
	size_t len;
	struct clu_region r;
};

/*
 * max bytes each way, copied on the queues htd and dth of ctx. 0, or
 * -ENOMEM (then clu_cal_fini() it all the same).
 */
int clu_cal_init(struct clu_cal *m, cl_context ctx, cl_command_queue htd, cl_command_queue dth,
		 size_t max);
void clu_cal_fini(struct clu_cal *m);

/*
 * One run: a copy of bytes in each direction asked for, both at once when
 * both are. ns[d]: each copy's duration. Returns the span from the first
 * start to the last end, or 0 on failure.
 */
double clu_cal_run(struct clu_cal *m, bool htd, bool dth, size_t bytes, double ns[2]);

/* Median duration of one copy of bytes in direction d, alone; 0 or -EIO. */
int clu_cal_alone(struct clu_cal *m, int d, size_t bytes, unsigned int reps, double *ns);

/*
 * Median duration of one copy in direction d while CLU_CAL_OTHERS copies of
 * the same size run the other way, queued first; *cover is the median share
 * of it that they overlapped (1: fully; about 0 with one copy engine). Only
 * fully covered runs count towards *ns (0 if none was). 0 or -EIO.
 */
#define CLU_CAL_OTHERS	4
int clu_cal_overlapped(struct clu_cal *m, int d, size_t bytes, unsigned int reps, double *ns,
		       double *cover);

/* tqcalib's sweep */

#define CLU_CAL_SIZES		16
#define CLU_CAL_REPS		64	/* the most runs of one measurement */
#define CLU_CAL_FIT_MIN		(256 << 10)	/* the fits start at this size */
#define CLU_CAL_SLOW_SIZES	3	/* the overlapped factor's sizes */

enum { CLU_HTD_ALONE, CLU_DTH_ALONE, CLU_HTD_OV, CLU_DTH_OV, CLU_NXFER };

/* The measurements' names, as the CSV rows give them. */
extern const char *const clu_cal_xfer_name[CLU_NXFER];

struct clu_cal_xfers {
	unsigned int n;
	double bytes[CLU_CAL_SIZES];
	double t[CLU_NXFER][CLU_CAL_SIZES];	/* median ns; 0: no valid sample */
	double cover[2][CLU_CAL_SIZES];	/* overlapped: share of it the other way covered */
};

struct clu_cal_sweep {
	uint64_t max_bytes;		/* the largest copy (at most the device's max_alloc) */
	unsigned int reps;		/* runs per measurement; 3x of those up to 1 MiB unless quick */
	bool quick;
	FILE *csv;			/* a row per measurement, or NULL */
	void (*step)(double done, const char *note);	/* a size begun (0), done (1); or NULL */
};

/*
 * Every size from 4 KiB up by 4x to s->max_bytes (a first, untimed run of
 * each warms it): alone and overlapped, each way. 0, -ENOMEM (no memory for
 * the copies) or -EIO (a copy failed).
 */
int clu_cal_xfers(cl_context ctx, cl_command_queue htd, cl_command_queue dth,
		  const struct clu_cal_sweep *s, struct clu_cal_xfers *x);

/*
 * The profile's dma, alone and overlapped lines from a sweep. 0; 1 when no
 * overlapped copy was fully covered (then dma 1); -1 when the times do not
 * fit a line.
 */
int clu_cal_fit(const struct clu_cal_xfers *x, struct tqsim_profile *p);

/* usched's start-up */

/*
 * The quick calibration (see above) into p's dma, alone and overlapped
 * lines; the rest of p is left as it is. 0, -ENOMEM or -EIO.
 */
int clu_cal_quick(cl_context ctx, cl_command_queue htd, cl_command_queue dth,
		  struct tqsim_profile *p);

#endif /* CLU_CALIB_H */
