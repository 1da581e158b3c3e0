/* SPDX-License-Identifier: GPL-2.0 */
/*
 * clx.h - one OpenCL device with the paper's three in-order, profiled
 * queues (HtD, K, DtH), host memory registered with it, and tasks of
 * kernels/ laid out as tq runs them: what tqcalib and tqbench measure on
 * (libtqkernels.a, above the kernels it binds). The
 * OpenCL plumbing under it (opening the device, queues, registration,
 * waits, stamps) is kernels/cl/clu.h's, which usched uses too.
 *
 * A task (struct btask) is device-independent: its buffers, which way each
 * is copied, its kernel and arguments. An instance (struct binst) is a task
 * bound to one device: device buffers and a kernel object with its
 * arguments set, so enqueueing it is a handful of calls.
 */
#ifndef TQ_CLX_H
#define TQ_CLX_H

#include <stdbool.h>
#include <stdint.h>

#include "kernels/tqk_cl.h"

enum { CLX_HTD, CLX_K, CLX_DTH, CLX_STAGES };

/* Which way a task buffer is copied; the values of usched's enum usched_dir. */
enum {
	BT_IN = 1,
	BT_OUT = 2,
	BT_INOUT = 3,
	BT_SCRATCH = 4,		/* device memory only */
};

#define CLX_MAX_CMDS	(2 * TQK_MAX_BUFS + 1)
#define CLX_MAX_KQ	8	/* kernel queues: q[CLX_K] and kx[] */

struct clx {
	cl_platform_id plat;
	cl_device_id dev;
	cl_context ctx;
	cl_command_queue q[CLX_STAGES];
	/* kernel queues after q[CLX_K] (clx_kq()): tqcalib's pairs, tqbench's fixed orders */
	cl_command_queue kx[CLX_MAX_KQ - 1];
	cl_program prog[16];		/* per kernels/ task, built on first use */
	char name[128];
	char platform[128];
	cl_uint cus;			/* compute units */
	bool gpu;
	uint64_t max_alloc, global_mem;
};

/*
 * Open a device: want is NULL (the first GPU, else the first device), a
 * device index counted across platforms, or a substring of the device or
 * platform name. 0, or a negative errno with a message on stderr.
 */
int clx_open(struct clx *c, const char *want);
void clx_close(struct clx *c);

/* Kernel queue @i < CLX_MAX_KQ: q[CLX_K] for 0, else kx[i - 1]. */
static inline cl_command_queue clx_kq(const struct clx *c, unsigned int i)
{
	return i ? c->kx[i - 1] : c->q[CLX_K];
}

/*
 * Host memory (clu_mmap()) registered with c's context, mapped on its HtD
 * queue (clu_region_add()); 0 or -ENOMEM. _del waits for the unmap.
 */
int clx_region_add(struct clx *c, void *base, size_t len, struct clu_region *r);
void clx_region_del(struct clx *c, struct clu_region *r);

/* clu_wait() as an errno: 0 or -EIO. */
int clx_wait(cl_event ev);

/* Kernel t->kernel of task t's program, built once per context; NULL with a message. */
cl_kernel clx_kernel(struct clx *c, const struct tqk_task *t);

/* A task as tq runs it. */
struct btask {
	char name[24];			/* "MM", "T4", ... */
	const struct tqk_task *tk;
	struct tqk_size sz;
	struct tqk_launch l;		/* buffer sizes, arguments, work sizes, m */
	uint32_t dir[TQK_MAX_BUFS];	/* BT_* per buffer */
	uint64_t off[TQK_MAX_BUFS];	/* host copy of each copied buffer: offset in a region */
	bool dk;			/* dominant kernel: htd + dth <= k */
	double cmd_ns[CLX_MAX_CMDS];	/* standalone time of each command, measured */
	uint8_t cmd_stage[CLX_MAX_CMDS];
	unsigned int ncmds;
};

/* A kernels/ task at size sz: its own buffers, copied as tqk_plan() says. */
int btask_real(struct btask *b, const struct tqk_task *tk, struct tqk_size sz);
/*
 * The paper's synthetic task: SYN over n_k uints, iters times, on device
 * memory; beside it htd bytes copied in and dth bytes copied out, so the
 * three stages take the times Table 2 asks for independently.
 */
int btask_syn(struct btask *b, const char *name, uint64_t n_k, uint32_t iters, uint64_t htd,
	      uint64_t dth);
/*
 * SYN's n on this device: enough work-items to fill it a few times over,
 * so its time is iters times a per-pass cost (tqcalib fits eta there).
 */
uint64_t clx_syn_n(const struct clx *c);
/* Host bytes the task copies (its buffers but scratch), and per direction. */
uint64_t btask_host_bytes(const struct btask *b);
uint64_t btask_bytes(const struct btask *b, uint32_t dir);
/*
 * Lay the copied buffers out: those copied in (IN, INOUT) one after another
 * from offset 0, the OUT ones likewise from out_base, or right after the
 * others when out_base is 0. Tasks laid out alike may share host memory:
 * what they copy in is never overwritten by what others copy out.
 */
void btask_layout(struct btask *b, uint64_t out_base);

/* A task bound to a device. */
struct binst {
	const struct btask *b;
	cl_mem dev[TQK_MAX_BUFS];
	cl_kernel k;
	cl_event ev[CLX_MAX_CMDS];	/* from the last enqueue, in command order */
	uint8_t ev_stage[CLX_MAX_CMDS];
	unsigned int nev;
};

/* Device buffers and a kernel with its arguments set. */
int binst_init(struct clx *c, const struct btask *b, struct binst *in);
void binst_fini(struct binst *in);

/*
 * Enqueue the task in two halves, as the paper's schemes need: its HtD
 * copies on qh after the wait list and its kernel on qk after them; then
 * its DtH copies on qd after the kernel. With one copy engine a TG's DtH
 * halves all go after its HtD halves, on the same queue. Each queue is
 * flushed. b->off[] are offsets in r. enqueue_in releases the previous
 * events.
 */
int binst_enqueue_in(struct binst *in, const struct clu_region *r, cl_command_queue qh,
		     cl_command_queue qk, cl_uint nwait, const cl_event *wait);
int binst_enqueue_out(struct binst *in, const struct clu_region *r, cl_command_queue qd);
/* The last event of the last enqueue (the task is done when it is). */
cl_event binst_last(const struct binst *in);
void binst_release(struct binst *in);

#endif /* TQ_CLX_H */
