/* SPDX-License-Identifier: GPL-2.0 */
/*
 * progress.h - a progress bar on stderr for tqcalib and tqbench. On a
 * terminal it redraws one line; into a log it writes a line when a stage
 * starts and one when it ends, with the time taken (CLOCK_MONOTONIC,
 * tq_now_s()).
 */
#ifndef TQ_TOOLS_PROGRESS_H
#define TQ_TOOLS_PROGRESS_H

void progress_begin(const char *what, double total);
/* Advance by done units; note is shown after the bar (may be NULL). */
void progress_step(double done, const char *note);
void progress_end(void);

#endif /* TQ_TOOLS_PROGRESS_H */
