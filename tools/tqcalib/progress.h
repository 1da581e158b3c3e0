/* SPDX-License-Identifier: GPL-2.0 */
/*
 * progress.h - a progress bar on stderr for tqcalib and tqbench. On a
 * terminal it redraws one line; into a log it writes a line when a stage
 * starts and one when it ends, with the time taken.
 */
#ifndef TQ_PROGRESS_H
#define TQ_PROGRESS_H

void progress_begin(const char *what, double total);
/* Advance by done units; note is shown after the bar (may be NULL). */
void progress_step(double done, const char *note);
void progress_end(void);
/* The clock the bar reads: CLOCK_MONOTONIC in seconds (sim's tq_clock_ns()). */
double now_s(void);

#endif /* TQ_PROGRESS_H */
