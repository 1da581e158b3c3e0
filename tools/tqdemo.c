// SPDX-License-Identifier: GPL-2.0
/*
 * tqdemo - a tq client: submits a mix of the built-in kernels/ tasks through
 * libtq to whatever scheduler serves /dev/tqsubmit (usched) and checks every
 * result against the host reference.
 *
 *	tqdemo [--tasks N] [--mix MM,BS,...] [--scale X] [--depth D] [--seed S]
 *	       [--timeout SECS] [--progress N] [--quiet] [--warm-up]
 *	       [--allow-ownerdead]
 *	tqdemo --bad-program
 *	tqdemo --endless
 *	tqdemo --list [--tasks N] [--mix MM,BS,...] [--seed S]
 *
 * Tasks without an INOUT buffer are marked idempotent where the module knows
 * the flag (a scheduler's crash runs them again); the others, FLW and SYN,
 * complete with -EOWNERDEAD instead if they may have started, which counts
 * as failed unless
 * --allow-ownerdead says it is expected (the kill tests): then the summary
 * counts them apart (ownerdead=N) and their buffers are left unchecked.
 * Each task's user_data names it; a completion for a task not in flight, or
 * a second one, counts as a duplicate, and after the last task the client
 * waits a moment for strays. The last line sums it up:
 *
 *	tqdemo[PID]: tasks=N ok=N wrong=0 failed=0 dup=0 stray=0 requeued=R
 *		     ownerdead=D start_ns=T0 end_ns=T1 wall_ms=W
 *
 * and the exit status is 0 only if every task completed once, correctly
 * (or, with --allow-ownerdead, with -EOWNERDEAD where it is not idempotent).
 * --warm-up first runs one task of each kind, untimed, so that the
 * driver's compilation of each kernel at its first launch stays out of the
 * figures.
 * --bad-program instead registers OpenCL C that does not compile and checks
 * that tq_register_program_log() fails with -ENOEXEC and returns the build log.
 * --endless runs one kernel that never ends (a hostile client) and succeeds
 * when the scheduler fails it with -ETIME, its time limit.
 * --list prints the kinds of task it would submit, one a line, in order,
 * for --mix, --tasks and --seed, and exits without a scheduler: make run
 * models the same mix on another device with tqsim.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <tq/clock.h>
#include <tq/rand.h>
#include <tq/version.h>

#include "kernels/tqkernels.h"
#include "libtq/tq.h"

#define MAX_MIX		16
#define MAGIC		0x7d00000000000000ull	/* user_data = MAGIC | task index */

/* Sizes that keep a task to milliseconds on PoCL, even under emulation. */
static const struct { const char *name; uint64_t n; uint32_t iters; } base_size[] = {
	{ "MM", 64, 1 }, { "BS", 16384, 1 }, { "FWT", 16384, 1 }, { "FLW", 48, 1 },
	{ "CONV", 128, 1 }, { "VA", 65536, 1 }, { "MT", 256, 1 }, { "DCT", 128, 1 },
	{ "SYN", 16384, 64 },
};

struct kind {
	const struct tqk_task *t;
	struct tqk_size sz;
	struct tqk_launch l;
	uint32_t prog, kern;
	unsigned int nscalars;
};

struct slot {
	bool busy;
	uint64_t task;
	struct kind *k;
	void *buf[TQK_MAX_BUFS];
};

static struct {
	unsigned int tasks, depth, progress, timeout_s;
	double scale;
	uint64_t seed;
	bool quiet;
	bool allow_ownerdead;
} opt = { .tasks = 32, .depth = 8, .scale = 1, .timeout_s = 300 };

/* The task's size and launch; nothing registered yet. */
static int kind_plan(struct kind *k, const char *name)
{
	unsigned int i;

	k->t = tqk_find(name);
	if (!k->t) {
		fprintf(stderr, "tqdemo: no built-in task %s\n", name);
		return -1;
	}
	k->sz = (struct tqk_size){ 4096, 1 };
	for (i = 0; i < sizeof(base_size) / sizeof(base_size[0]); i++) {
		if (!strcmp(base_size[i].name, name)) {
			k->sz.n = base_size[i].n;
			k->sz.iters = base_size[i].iters;
		}
	}
	k->sz.n = tqk_round_n(k->t, k->sz.n * opt.scale);
	if (tqk_plan(k->t, k->sz, &k->l))
		return -1;
	for (i = 0; i < k->l.nargs; i++)
		k->nscalars += k->l.arg[i].kind == TQK_ARG_SCALAR;
	if (k->l.nbufs > TQ_MAX_BUFS || k->nscalars > TQ_MAX_SCALARS) {
		fprintf(stderr, "tqdemo: %s has too many arguments for a descriptor\n", name);
		return -1;
	}
	return 0;
}

/* No INOUT buffer: a task that reads only its inputs (the built-ins never read an output). */
static bool kind_idempotent(const struct kind *k)
{
	for (unsigned int i = 0; i < k->l.nbufs; i++)
		if (k->l.buf[i].dir == TQK_INOUT)
			return false;
	return true;
}

static int kind_register(struct tq *tq, struct kind *k)
{
	int ret;

	ret = tq_register_builtin(tq, k->t->name, &k->prog);
	if (!ret)
		ret = tq_lookup_kernel(tq, k->prog, k->t->kernel, &k->kern);
	if (ret) {
		fprintf(stderr, "tqdemo: registering %s: %s\n", k->t->name, tq_strerror(ret));
		return -1;
	}
	return 0;
}

static void slot_free(struct tq *tq, struct slot *s)
{
	for (unsigned int i = 0; i < s->k->l.nbufs; i++)
		if (s->buf[i])
			tq_buf_free(tq, s->buf[i]);
	memset(s, 0, sizeof(*s));
}

/* Fill a slot's buffers and queue its descriptor; 0, or -errno. */
static int submit_one(struct tq *tq, struct slot *s, struct kind *k, uint64_t task)
{
	const struct tqk_launch *l = &k->l;
	uint64_t off[TQK_MAX_BUFS];
	size_t global[2], local[2];
	struct tq_desc *d;
	unsigned int i;
	int ret;

	s->k = k;
	s->task = task;
	for (i = 0; i < l->nbufs; i++) {
		ret = tq_buf_alloc(tq, l->buf[i].bytes, &s->buf[i], &off[i]);
		if (ret)
			goto fail;
	}
	tqk_fill(k->t, k->sz, opt.seed + task, s->buf);
	d = tq_get_desc(tq);
	if (!d) {
		ret = -EBUSY;
		goto fail;
	}
	for (i = 0; i < l->dim; i++) {
		global[i] = l->global[i];
		local[i] = l->local[i];
	}
	tq_prep_task(d, k->prog, k->kern, l->dim, global, local);
	tq_desc_set_data(d, MAGIC | task);
	/* a re-run after a scheduler's crash gives the same result unless a buffer is INOUT */
	if (kind_idempotent(k) && tq->features & TQ_FEAT_IDEMPOTENT)
		tq_desc_set_idempotent(d);
	for (i = 0; i < l->nargs; i++) {
		const struct tqk_arg *a = &l->arg[i];

		if (a->kind == TQK_ARG_BUF)
			tq_prep_buf(d, i, off[a->buf], l->buf[a->buf].bytes,
				    (enum tq_dir)l->buf[a->buf].dir);
		else
			tq_prep_scalar(d, i, a->val, a->size);
	}
	s->busy = true;
	return 0;
fail:
	slot_free(tq, s);
	return ret;
}

static int bad_program(struct tq *tq)
{
	static const char src[] =
		"__kernel void broken(__global float *x)\n{\n\tx[0] = undeclared_thing;\n}\n";
	static char log[8192];
	uint32_t prog;
	int ret;

	ret = tq_register_program_log(tq, src, sizeof(src) - 1, NULL, &prog, log, sizeof(log));
	printf("tqdemo[%d]: bad program: status %d (%s), log %zu bytes:\n", getpid(), ret,
	       tq_strerror(ret), strlen(log));
	printf("%.2000s\n", log);
	ret = ret == -ENOEXEC && strstr(log, "undeclared_thing") ? 0 : 1;
	printf("tqdemo[%d]: bad-program %s\n", getpid(), ret ? "FAILED" : "ok");
	return ret;
}

static int endless(struct tq *tq)
{
	static const char src[] =
		"__kernel void endless(__global volatile uint *x)\n"
		"{\n\tfor (;;)\n\t\tx[0]++;\n}\n";
	size_t global[1] = { 1 };
	uint32_t prog, kern;
	struct tq_cqe *cqe;
	struct tq_desc *d;
	uint64_t off, t0;
	void *buf;
	int ret;

	ret = tq_register_program(tq, src, sizeof(src) - 1, NULL, &prog);
	ret = ret ?: tq_lookup_kernel(tq, prog, "endless", &kern);
	ret = ret ?: tq_buf_alloc(tq, 4, &buf, &off);
	d = ret ? NULL : tq_get_desc(tq);
	if (!d) {
		printf("tqdemo[%d]: endless: cannot set up: %s\n", getpid(), tq_strerror(ret));
		return 1;
	}
	tq_prep_task(d, prog, kern, 1, global, NULL);
	tq_prep_buf(d, 0, off, 4, TQ_DIR_OUT);
	tq_desc_set_data(d, MAGIC);
	t0 = tq_now_ns();
	tq_submit(tq);
	ret = tq_wait(tq, &cqe, opt.timeout_s * 1000);
	if (!ret) {
		ret = cqe->status;
		tq_cqe_seen(tq, cqe);
	}
	printf("tqdemo[%d]: endless: status %d (%s) after %.1f s: %s\n", getpid(), ret,
	       tq_strerror(ret), (tq_now_ns() - t0) / 1e9, ret == -ETIME ? "ok" : "FAILED");
	return ret == -ETIME ? 0 : 1;
}

/*
 * One task of each kind, one at a time and verified, before the clock
 * starts: the driver compiles each kernel on its first launch. Returns the
 * number that went wrong.
 */
static unsigned int warm_up(struct tq *tq, struct kind *kinds, unsigned int nkinds,
			    struct slot *s)
{
	unsigned int k, bad = 0;
	struct tq_cqe *cqe;

	for (k = 0; k < nkinds; k++) {
		uint64_t task = opt.tasks + k;	/* past the timed ones */

		if (submit_one(tq, s, &kinds[k], task) || tq_submit(tq) < 0 ||
		    tq_wait(tq, &cqe, opt.timeout_s * 1000)) {
			bad++;
			continue;
		}
		if (cqe->user_data != (MAGIC | task) || cqe->status ||
		    tqk_verify(kinds[k].t, kinds[k].sz, opt.seed + task, s->buf, NULL)) {
			fprintf(stderr, "tqdemo[%d]: warm-up %s: %s\n", getpid(), kinds[k].t->name,
				cqe->status ? tq_strerror(cqe->status) : "wrong result");
			bad++;
		}
		tq_cqe_seen(tq, cqe);
		slot_free(tq, s);
	}
	if (!opt.quiet)
		printf("tqdemo[%d]: warm-up: %u kernel(s) launched once, %u bad\n", getpid(),
		       nkinds, bad);
	return bad;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "tasks", required_argument, NULL, 'n' },
		{ "mix", required_argument, NULL, 'm' },
		{ "scale", required_argument, NULL, 'x' },
		{ "depth", required_argument, NULL, 'd' },
		{ "seed", required_argument, NULL, 's' },
		{ "timeout", required_argument, NULL, 't' },
		{ "progress", required_argument, NULL, 'p' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "bad-program", no_argument, NULL, 'b' },
		{ "warm-up", no_argument, NULL, 'w' },
		{ "allow-ownerdead", no_argument, NULL, 'o' },
		{ "endless", no_argument, NULL, 'e' },
		{ "list", no_argument, NULL, 'l' },
		{ 0 }
	};
	char mixbuf[256] = "MM,BS,FWT,CONV,VA,MT,DCT", *names[MAX_MIX], *name, *save;
	unsigned int nkinds = 0, inflight = 0, done = 0, next = 0, i;
	unsigned int ok = 0, wrong = 0, failed = 0, dup = 0, stray = 0, requeued = 0;
	unsigned int ownerdead = 0;
	struct kind kinds[MAX_MIX] = { 0 };
	uint64_t t0, t1, rng;
	struct slot *slots;
	uint8_t *seen;
	bool bad = false, warm = false, forever = false, list = false;
	size_t arena = 1 << 20;
	struct tq tq;
	int o, ret;

	tq_version_opt(argc, argv, "tqdemo");
	setvbuf(stdout, NULL, _IOLBF, 0);	/* progress shows as it happens */
	opt.seed = getpid();
	while ((o = getopt_long(argc, argv, "n:m:x:d:s:t:p:qbwoel", lo, NULL)) != -1) {
		switch (o) {
		case 'n': opt.tasks = strtoul(optarg, NULL, 0); break;
		case 'm': snprintf(mixbuf, sizeof(mixbuf), "%s", optarg); break;
		case 'x': opt.scale = strtod(optarg, NULL); break;
		case 'd': opt.depth = strtoul(optarg, NULL, 0); break;
		case 's': opt.seed = strtoull(optarg, NULL, 0); break;
		case 't': opt.timeout_s = strtoul(optarg, NULL, 0); break;
		case 'p': opt.progress = strtoul(optarg, NULL, 0); break;
		case 'q': opt.quiet = true; break;
		case 'b': bad = true; break;
		case 'w': warm = true; break;
		case 'o': opt.allow_ownerdead = true; break;
		case 'e': forever = true; break;
		case 'l': list = true; break;
		default:
			fprintf(stderr, "usage: tqdemo [--tasks N] [--mix A,B,..] [--scale X] "
				"[--depth D] [--seed S] [--timeout S] [--progress N] [--quiet] "
				"[--warm-up] [--allow-ownerdead] | --bad-program | --endless | "
				"--list\n");
			return 2;
		}
	}
	if (!opt.depth || opt.depth > 32)
		opt.depth = 8;

	for (name = strtok_r(mixbuf, ",", &save); name; name = strtok_r(NULL, ",", &save))
		if (nkinds < MAX_MIX)
			names[nkinds++] = name;
	/* The arena: depth slots of the largest task, each buffer rounded up. */
	for (i = 0; i < nkinds; i++) {
		size_t bytes = 0;

		if (kind_plan(&kinds[i], names[i]))
			return 2;
		for (unsigned int b = 0; b < kinds[i].l.nbufs; b++)
			bytes += kinds[i].l.buf[b].bytes + TQ_BUF_ALIGN;
		if (bytes * opt.depth + (1 << 20) > arena)
			arena = bytes * opt.depth + (1 << 20);
	}
	if (list) {	/* the draws of the loop below, without a scheduler */
		rng = opt.seed * 0x9e3779b97f4a7c15ull + 1;
		for (i = 0; i < opt.tasks; i++) {
			tq_xorshift64(&rng);
			printf("%s\n", names[rng % nkinds]);
		}
		return 0;
	}
	ret = tq_open(&tq, 2 * opt.depth < 64 ? 64 : 2 * opt.depth, arena, 0);
	if (ret) {
		fprintf(stderr, "tqdemo: tq_open: %s\n", tq_strerror(ret));
		return 1;
	}
	if (bad || forever) {
		ret = bad ? bad_program(&tq) : endless(&tq);
		tq_close(&tq);
		return ret;
	}
	for (i = 0; i < nkinds; i++) {
		if (kind_register(&tq, &kinds[i]))
			return 1;
		if (!opt.quiet)
			printf("tqdemo[%d]: %s n=%" PRIu64 " ready (program %u, kernel %u)\n",
			       getpid(), names[i], kinds[i].sz.n, kinds[i].prog, kinds[i].kern);
	}
	slots = calloc(opt.depth, sizeof(*slots));
	seen = calloc(opt.tasks + 1, 1);

	if (!slots || !seen || !nkinds)
		return 1;

	if (warm)
		failed += warm_up(&tq, kinds, nkinds, &slots[0]);
	rng = opt.seed * 0x9e3779b97f4a7c15ull + 1;
	t0 = tq_now_ns();
	while (done < opt.tasks) {
		struct tq_cqe *cqe;

		/* Keep depth tasks in flight. */
		for (i = 0; i < opt.depth && next < opt.tasks; i++) {
			if (slots[i].busy)
				continue;
			tq_xorshift64(&rng);
			ret = submit_one(&tq, &slots[i], &kinds[rng % nkinds], next);
			if (ret) {
				fprintf(stderr, "tqdemo: task %u: %s\n", next, tq_strerror(ret));
				return 1;
			}
			next++;
			inflight++;
		}
		tq_submit(&tq);
		ret = tq_wait(&tq, &cqe, opt.timeout_s * 1000);
		if (ret) {
			fprintf(stderr, "tqdemo[%d]: waiting: %s with %u task(s) in flight\n",
				getpid(), tq_strerror(ret), inflight);
			break;
		}
		do {
			uint64_t task = cqe->user_data & ~MAGIC;
			struct slot *s = NULL;

			for (i = 0; i < opt.depth; i++)
				if (slots[i].busy && slots[i].task == task)
					s = &slots[i];
			if ((cqe->user_data & MAGIC) != MAGIC || task >= opt.tasks || !s) {
				if (task < opt.tasks && seen[task])
					dup++;
				else
					stray++;
			} else {
				seen[task] = 1;
				if (cqe->flags & TQ_CQE_F_REQUEUED)
					requeued++;
				if (cqe->status == -EOWNERDEAD && opt.allow_ownerdead &&
				    !kind_idempotent(s->k)) {
					ownerdead++;	/* started, may have run in part */
				} else if (cqe->status) {
					failed++;
					fprintf(stderr, "tqdemo[%d]: task %" PRIu64 " (%s): %s\n",
						getpid(), task, s->k->t->name,
						tq_strerror(cqe->status));
				} else {
					struct tqk_mismatch mm;

					ret = tqk_verify(s->k->t, s->k->sz, opt.seed + task,
							 s->buf, &mm);
					if (ret) {
						wrong++;
						fprintf(stderr, "tqdemo[%d]: task %" PRIu64
							" (%s n=%" PRIu64 "): wrong: buf %u [%"
							PRIu64 "] = %g, want %g\n", getpid(), task,
							s->k->t->name, s->k->sz.n, mm.buf,
							mm.index, mm.got, mm.want);
					} else {
						ok++;
					}
				}
				slot_free(&tq, s);
				inflight--;
				done++;
				if (opt.progress && done % opt.progress == 0 && !opt.quiet)
					printf("tqdemo[%d]: %u/%u tasks done\n", getpid(), done,
					       opt.tasks);
			}
			tq_cqe_seen(&tq, cqe);
		} while (!tq_peek(&tq, &cqe));
	}
	t1 = tq_now_ns();
	/* Anything after the last one is a duplicate or a stray. */
	{
		struct tq_cqe *cqe;

		while (!tq_wait(&tq, &cqe, 300)) {
			uint64_t task = cqe->user_data & ~MAGIC;

			if (task < opt.tasks && seen[task])
				dup++;
			else
				stray++;
			tq_cqe_seen(&tq, cqe);
		}
	}
	printf("tqdemo[%d]: tasks=%u ok=%u wrong=%u failed=%u dup=%u stray=%u requeued=%u "
	       "ownerdead=%u start_ns=%" PRIu64 " end_ns=%" PRIu64 " wall_ms=%.1f\n", getpid(),
	       opt.tasks, ok, wrong, failed, dup, stray, requeued, ownerdead, t0, t1,
	       (t1 - t0) / 1e6);
	tq_close(&tq);
	return ok + ownerdead == opt.tasks && !wrong && !failed && !dup && !stray ? 0 : 1;
}
