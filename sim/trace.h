/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * trace.h - tq's timelines in Chrome's JSON trace-event format, which
 * Perfetto (its UI and trace_processor) and chrome://tracing open. One
 * writer for tqsim's predicted TG (sim/cli/draw.c) and usched's measured
 * run (usched/core/trace.c), so that both open side by side with the same
 * tracks. Documentation/usched.md ("The trace") describes what they hold.
 *
 * The file is the format's array form, "[" and one event per line, so a
 * trace cut short (a crash, a kill) still opens; tqtrace_close() writes the
 * "]" that makes it valid JSON. Times are CLOCK_MONOTONIC ns (tqsim's start
 * at 0), written as the format's microseconds.
 *
 * A track is a named row of slices in a process (pid). Slices on one row
 * must not overlap unless nested, so a track is made of lanes, each a
 * thread (tid) of its own: a slice goes to the first lane free at its
 * start ("HtD", then "HtD #2", ...). Every tid is above any Linux pid
 * (TQTRACE_ID_BASE), so that no thread of one process is taken for
 * another's; client processes keep their real pid.
 *
 * Past max_bytes the writer stops, says so in a last event ("trace full")
 * and still closes the file as valid JSON.
 */
#ifndef TQ_SIM_TRACE_H
#define TQ_SIM_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>

#define TQTRACE_ID_BASE		(1u << 22)	/* above PID_MAX_LIMIT: no Linux pid */
#define TQTRACE_DEVICE_PID	TQTRACE_ID_BASE	/* the device's process: engines, TGs */
#define TQTRACE_LANES		16	/* lanes of a track; past them, the one free first */
#define TQTRACE_EVENT_MAX	1024	/* bytes of one event */
#define TQTRACE_NONE		UINT32_MAX

/* Device track sort order: each engine's measured track, then its predicted one. */
enum tqtrace_sort {
	TQTRACE_SORT_HTD = 10,
	TQTRACE_SORT_K = 20,	/* + 10 per kernel queue */
	TQTRACE_SORT_DTH = 200,
	TQTRACE_SORT_TG = 300,
	TQTRACE_SORT_POLICY = 310,
};

struct tqtrace;

/*
 * Start a trace on @f (the writer's from now on; tqtrace_close() closes
 * it), at most @max_bytes long (0: no bound). 0 or -ENOMEM.
 */
int tqtrace_open(struct tqtrace **out, FILE *f, uint64_t max_bytes);
/* End it as valid JSON and close the file: 0, or -EIO if a write failed. */
int tqtrace_close(struct tqtrace *tr);
/* Make what was written readable now. */
void tqtrace_flush(struct tqtrace *tr);
uint64_t tqtrace_bytes(const struct tqtrace *tr);
/* The bound was reached: nothing more is written. */
bool tqtrace_full(const struct tqtrace *tr);

/* Name process @pid (a JSON string's content: the caller escapes it, tqtrace_str()). */
void tqtrace_process(struct tqtrace *tr, uint32_t pid, const char *name, int sort);
/*
 * A track of process @pid named @name, sorted by @sort among its process's:
 * its index for tqtrace_slice(), or TQTRACE_NONE without memory.
 */
uint32_t tqtrace_track(struct tqtrace *tr, uint32_t pid, const char *name, int sort);
/*
 * A lane of @track free at @start_ns, held until tqtrace_slice_on() ends it
 * (a slice whose end is not yet known): its number.
 */
unsigned int tqtrace_hold(struct tqtrace *tr, uint32_t track, uint64_t start_ns);
/*
 * A slice [@start_ns, @end_ns] named @name (category @cat) with @args (the
 * members of a JSON object, "" for none) on the first lane free at its start,
 * or on lane @lane (tqtrace_hold()'s, which it frees); returns its tid.
 */
uint32_t tqtrace_slice(struct tqtrace *tr, uint32_t track, const char *name, const char *cat,
		       uint64_t start_ns, uint64_t end_ns, const char *args);
uint32_t tqtrace_slice_on(struct tqtrace *tr, uint32_t track, unsigned int lane, const char *name,
			  const char *cat, uint64_t start_ns, uint64_t end_ns, const char *args);
/* The tid of a lane of @track (for a flow event on a slice nested in one). */
uint32_t tqtrace_lane_tid(struct tqtrace *tr, uint32_t track, unsigned int lane);
/*
 * A flow arrow's point @ph ('s' first, 't' steps, 'f' last) of arrow @id,
 * bound to the slice that encloses @ts_ns on thread @tid of @pid.
 */
void tqtrace_flow(struct tqtrace *tr, char ph, uint64_t id, uint32_t pid, uint32_t tid,
		  uint64_t ts_ns);
/*
 * The device track of @stage (0 HtD, 1 K, 2 DtH: enum tqsim_stage) on
 * kernel queue @kq with @dma copy engines, measured or @predicted: its
 * name into @buf ("HtD", "K1 predicted", "copy (HtD, DtH)", ...) and its
 * sort order, so that tqsim's and usched's traces have the same tracks.
 */
int tqtrace_engine(unsigned int dma, int stage, unsigned int kq, bool predicted, char *buf,
		   size_t len);
/* @s as the content of a JSON string, into @buf of @len bytes (cut short if need be). */
const char *tqtrace_str(char *buf, size_t len, const char *s);

#endif /* TQ_SIM_TRACE_H */
