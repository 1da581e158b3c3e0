// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * stats.c - what libtqcl.so counts (struct tqcl_stats): the passes through
 * to the driver and their reasons, and the summary printed at exit
 * (TQCL_STATS).
 */
#include <stdio.h>
#include <unistd.h>

#include "tqcl.h"

static const char *const why_names[W_NR] = {
	[W_CAPTURE] = "captured",
	[W_OFF] = "off",
	[W_QUEUE_OOO] = "out-of-order-queue",
	[W_QUEUE_PROFILING] = "profiling-queue",
	[W_QUEUE_OTHER] = "queue-properties",
	[W_CTX_DEVICES] = "context-devices",
	[W_WAIT_FOREIGN] = "waits-for-driver-event",
	[W_QUEUE_BUSY] = "queue-busy",
	[W_INVALID] = "invalid-arguments",
	[W_BUF_UNKNOWN] = "not-a-plain-buffer",
	[W_BUF_ALIASED] = "aliased-buffer",
	[W_BUF_BIG] = "buffer-too-big",
	[W_ARENA_FULL] = "arena-full",
	[W_KERN_UNKNOWN] = "program-not-from-source",
	[W_KERN_ARGS] = "kernel-argument-kind",
	[W_KERN_LIMITS] = "kernel-too-many-arguments",
	[W_KERN_SCALAR] = "kernel-scalar-size",
	[W_KERN_ALIAS] = "kernel-buffer-twice",
	[W_KERN_SVM] = "kernel-svm",
	[W_KERN_OFFSET] = "global-offset",
	[W_KERN_SHAPE] = "work-size",
	[W_PROG_GLOBALS] = "program-scope-variables",
	[W_PROG_REFUSED] = "usched-refused",
	[W_ON_DEVICE] = "data-on-device",
	[W_MAPPED] = "buffer-mapped",
	[W_COMMAND] = "command",
};

void tqcl_count_pass(enum tqcl_why why, int kind)
{
	tqcl.st.why[why]++;
	switch (kind) {
	case K_WRITE:
		tqcl.st.pass_write++;
		break;
	case K_READ:
		tqcl.st.pass_read++;
		break;
	case K_KERNEL:
		tqcl.st.pass_kernel++;
		break;
	default:
		tqcl.st.pass_other++;
	}
}

/*
 * TQCL_STATS=1: a summary on stderr at exit; TQCL_STATS=PATH: one line of
 * key=value pairs appended to PATH (what the tests read).
 */
void tqcl_stats_print(void)
{
	const struct tqcl_stats *s = &tqcl.st;
	char line[4096];
	int n = 0;

	if (tqcl.stats_fd < 0)
		return;
	LOCK();
	if (tqcl.stats_fd == 2) {
		fprintf(stderr,
			"tqcl: pid %d: captured %llu writes (%llu bytes), %llu kernels, %llu reads (%llu bytes); tasks %llu ok, %llu replayed, %llu failed\n",
			(int)getpid(), (unsigned long long)s->cap_write,
			(unsigned long long)s->cap_write_bytes, (unsigned long long)s->cap_kernel,
			(unsigned long long)s->cap_read, (unsigned long long)s->cap_read_bytes,
			(unsigned long long)s->tasks_ok, (unsigned long long)s->tasks_replayed,
			(unsigned long long)s->tasks_failed);
		fprintf(stderr,
			"tqcl: passed through %llu writes, %llu kernels, %llu reads, %llu other commands; buffer syncs %llu to the arena, %llu to the device (%llu bytes)\n",
			(unsigned long long)s->pass_write, (unsigned long long)s->pass_kernel,
			(unsigned long long)s->pass_read, (unsigned long long)s->pass_other,
			(unsigned long long)s->sync_to_arena, (unsigned long long)s->sync_to_dev,
			(unsigned long long)s->sync_bytes);
		if (s->tq_timed)
			fprintf(stderr,
				"tqcl: a task's time (us, mean): submitted to started %.1f, on the device %.1f, ended to reaped %.1f, reaped to the reader running %.1f; a copy into the arena %.1f, out of it %.1f\n",
				s->t_queue_ns / 1e3 / s->tq_timed, s->t_device_ns / 1e3 / s->tq_timed,
				s->t_deliver_ns / 1e3 / s->tq_timed,
				s->t_wakes ? s->t_wake_ns / 1e3 / s->t_wakes : 0,
				s->cap_write ? s->t_copy_in_ns / 1e3 / s->cap_write : 0,
				s->cap_read ? s->t_copy_out_ns / 1e3 / s->cap_read : 0);
		for (int i = 0; i < W_NR; i++)
			if (s->why[i])
				n += snprintf(line + n, sizeof(line) - n, " %s %llu", why_names[i],
					      (unsigned long long)s->why[i]);
		if (n)
			fprintf(stderr, "tqcl: passed through because:%s\n", line);
		UNLOCK();
		return;
	}
	n = snprintf(line, sizeof(line),
		     "pid=%d cap_write=%llu cap_read=%llu cap_kernel=%llu cap_write_bytes=%llu cap_read_bytes=%llu tasks_ok=%llu tasks_replayed=%llu tasks_failed=%llu pass_write=%llu pass_read=%llu pass_kernel=%llu pass_other=%llu sync_to_arena=%llu sync_to_dev=%llu sync_bytes=%llu progs=%llu kerns=%llu wait_ns=%llu layer_ns=%llu",
		     (int)getpid(), (unsigned long long)s->cap_write,
		     (unsigned long long)s->cap_read, (unsigned long long)s->cap_kernel,
		     (unsigned long long)s->cap_write_bytes, (unsigned long long)s->cap_read_bytes,
		     (unsigned long long)s->tasks_ok, (unsigned long long)s->tasks_replayed,
		     (unsigned long long)s->tasks_failed, (unsigned long long)s->pass_write,
		     (unsigned long long)s->pass_read, (unsigned long long)s->pass_kernel,
		     (unsigned long long)s->pass_other, (unsigned long long)s->sync_to_arena,
		     (unsigned long long)s->sync_to_dev, (unsigned long long)s->sync_bytes,
		     (unsigned long long)s->progs_registered,
		     (unsigned long long)s->kerns_registered, (unsigned long long)s->wait_ns,
		     (unsigned long long)s->layer_ns);
	n += snprintf(line + n, sizeof(line) - n,
		      " tq_timed=%llu t_queue_ns=%llu t_device_ns=%llu t_deliver_ns=%llu t_wakes=%llu t_wake_ns=%llu t_copy_in_ns=%llu t_copy_out_ns=%llu",
		      (unsigned long long)s->tq_timed, (unsigned long long)s->t_queue_ns,
		      (unsigned long long)s->t_device_ns, (unsigned long long)s->t_deliver_ns,
		      (unsigned long long)s->t_wakes, (unsigned long long)s->t_wake_ns,
		      (unsigned long long)s->t_copy_in_ns, (unsigned long long)s->t_copy_out_ns);
	for (int i = 0; i < W_NR; i++)
		if (s->why[i])
			n += snprintf(line + n, sizeof(line) - n, " why_%s=%llu", why_names[i],
				      (unsigned long long)s->why[i]);
	UNLOCK();
	if (n < (int)sizeof(line) - 1) {
		line[n++] = '\n';
		if (write(tqcl.stats_fd, line, n) != n)
			fprintf(stderr, "tqcl: could not write the statistics to %s\n",
				tqcl.stats_path);
	}
}

__attribute__((destructor)) static void tqcl_fini(void)
{
	if (tqcl.inited)
		tqcl_stats_print();
}
