// SPDX-License-Identifier: GPL-2.0
/*
 * tq_hostile - one attacking client of usched through libtq, for the
 * hostile-client suite (usched/daemon/tests/hostile.sh), which runs each attack
 * while honest clients (tqdemo) run. Each mode does one thing and checks the
 * answer against the contract of struct tq_cqe's @status in
 * include/uapi/linux/tqsubmit.h:
 *
 *	tq_hostile leak-write [--tasks N]  VA tasks whose OUT buffers hold a pattern
 *	tq_hostile leak-read [--tasks N]   VA tasks writing part of their OUT buffer
 *	                                   and reading past their IN buffers: every
 *	                                   byte back is zero or this client's own
 *	tq_hostile endless [--wait S]      an OpenCL C while(1) kernel: -ETIME
 *	tq_hostile huge [--wait S]         a VA task of global size 2^63: -E2BIG
 *	tq_hostile bomb [--wait S]         source whose build takes long: -ETIME
 *	tq_hostile big-source [--bytes N]  source of N bytes (1 MiB): -E2BIG
 *	tq_hostile flood [--count N]       N programs in one context: -EDQUOT
 *	                                   before the Nth, no other error
 *	tq_hostile denied                  source from a user not allowed it: -EPERM
 *	tq_hostile storm [--seconds S]     the doorbell in a tight loop (TQ_IOC_ENTER,
 *	                                   on the socket its message)
 *
 * The last line says what happened; the exit status is 0 when the answer is
 * the contract's, 1 when it is another, 2 when none came within --wait
 * seconds (60), 3 when the attack could not be set up.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <tq/clock.h>
#include <tq/version.h>

#include "kernels/tqkernels.h"
#include "libtq/tq.h"

#define PATTERN		0x5a5a5a5au	/* leak-write's data */
#define MARK		0xb0b0b0b0u	/* leak-read's own fill */
#define ONE		0x3f800000u	/* 1.0f */
#define TWO		0x40000000u	/* 2.0f */
#define VA_N		4096		/* floats per buffer: 16 KiB, one pool class */

static struct {
	unsigned int tasks, wait_s, count, seconds;
	size_t bytes;
} opt = { .tasks = 8, .wait_s = 60, .count = 64, .seconds = 20, .bytes = 1 << 20 };

static const char *mode;

static int __attribute__((format(printf, 2, 3))) done(int rc, const char *fmt, ...)
{
	va_list ap;

	printf("tq_hostile %s: ", mode);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	exit(rc);
}

/* Submit one descriptor and wait for its completion; 1 if none came in time. */
static int run_one(struct tq *tq, const struct tq_desc *tmpl, struct tq_cqe *out)
{
	struct tq_desc *d = tq_get_desc(tq);
	struct tq_cqe *cqe;
	int ret;

	if (!d)
		return -EBUSY;
	*d = *tmpl;
	ret = tq_submit(tq);
	if (ret < 0)
		return ret;
	ret = tq_wait(tq, &cqe, opt.wait_s * 1000);
	if (ret == -ETIME)
		return 1;
	if (ret)
		return ret;
	*out = *cqe;
	tq_cqe_seen(tq, cqe);
	return 0;
}

/* A PROGRAM of OpenCL C source at src_off, with a time limit on the answer. */
static int build(struct tq *tq, uint64_t src_off, uint32_t len, struct tq_cqe *out)
{
	struct tq_desc d = { 0 };

	tq_prep_program(&d, src_off, len, 0, 0);
	return run_one(tq, &d, out);
}

static void *alloc(struct tq *tq, size_t len, uint64_t *off)
{
	void *p;

	if (tq_buf_alloc(tq, len, &p, off))
		done(3, "cannot allocate %zu arena bytes", len);
	return p;
}

static void open_ctx(struct tq *tq, size_t arena)
{
	int ret = tq_open(tq, 64, arena, 0);

	if (ret)
		done(3, "tq_open: %s", tq_strerror(ret));
	printf("tq_hostile %s: started\n", mode);
	fflush(stdout);
}

/* Build source and look up its kernel; exits unless both work. */
static void source_kernel(struct tq *tq, const char *src, const char *name, uint32_t *prog,
			  uint32_t *kern)
{
	char log[512] = "";
	int ret = tq_register_program_log(tq, src, strlen(src), NULL, prog, log, sizeof(log));

	if (ret)
		done(ret == -EPERM ? 1 : 3, "registering its program: %s (%s)", tq_strerror(ret),
		     log);
	ret = tq_lookup_kernel(tq, *prog, name, kern);
	if (ret)
		done(3, "kernel %s: %s", name, tq_strerror(ret));
}

/* ---- the leak probe ---- */

struct va {
	uint32_t prog, kern;
	float *a, *b, *c;
	uint64_t ao, bo, co;
};

static void va_setup(struct tq *tq, struct va *v)
{
	const struct tqk_task *t = tqk_find("VA");
	int ret;

	if (!t)
		done(3, "no VA built-in");
	ret = tq_register_builtin(tq, "VA", &v->prog);
	if (!ret)
		ret = tq_lookup_kernel(tq, v->prog, t->kernel, &v->kern);
	if (ret)
		done(3, "registering VA: %s", tq_strerror(ret));
	v->a = alloc(tq, VA_N * 4, &v->ao);
	v->b = alloc(tq, VA_N * 4, &v->bo);
	v->c = alloc(tq, VA_N * 4, &v->co);
}

/* A VA task: c = a + b over global items, with a and b in_len bytes long. */
static void va_desc(struct va *v, struct tq_desc *d, size_t global, uint32_t in_len)
{
	memset(d, 0, sizeof(*d));
	tq_prep_task(d, v->prog, v->kern, 1, &global, NULL);
	tq_prep_buf(d, 0, v->ao, in_len, TQ_DIR_IN);
	tq_prep_buf(d, 1, v->bo, in_len, TQ_DIR_IN);
	tq_prep_buf(d, 2, v->co, VA_N * 4, TQ_DIR_OUT);
}

static void fill(void *p, uint32_t word, size_t n)
{
	for (size_t i = 0; i < n; i++)
		((uint32_t *)p)[i] = word;
}

static int leak_write(void)
{
	struct tq tq;
	struct va v;
	struct tq_desc d;
	struct tq_cqe cqe;
	unsigned int ok = 0;

	open_ctx(&tq, 1 << 20);
	va_setup(&tq, &v);
	for (unsigned int k = 0; k < opt.tasks; k++) {
		fill(v.a, PATTERN, VA_N);
		fill(v.b, 0, VA_N);
		fill(v.c, 0, VA_N);
		va_desc(&v, &d, VA_N, VA_N * 4);
		if (run_one(&tq, &d, &cqe))
			done(2, "task %u: no completion in %u s", k, opt.wait_s);
		if (cqe.status)
			done(3, "task %u: %s", k, tq_strerror(cqe.status));
		ok += !memcmp(v.a, v.c, VA_N * 4);
	}
	tq_close(&tq);
	return done(ok == opt.tasks ? 0 : 1, "%u of %u tasks left the pattern 0x%08x in their"
		    " OUT buffers", ok, opt.tasks, PATTERN);
}

static int leak_read(void)
{
	unsigned int foreign = 0, pattern = 0, refused = 0, first_at = 0;
	uint32_t first = 0;
	struct tq_desc d;
	struct tq_cqe cqe;
	struct tq tq;
	struct va v;

	open_ctx(&tq, 1 << 20);
	va_setup(&tq, &v);
	for (unsigned int k = 0; k < opt.tasks; k++) {
		/* Even tasks write a sixteenth of c; odd ones read past a and b. */
		bool past = k % 2;
		const uint32_t *c = (const uint32_t *)v.c;

		fill(v.a, ONE, VA_N);
		fill(v.b, ONE, VA_N);
		fill(v.c, MARK, VA_N);
		va_desc(&v, &d, past ? VA_N : VA_N / 16, past ? VA_N / 16 * 4 : VA_N * 4);
		if (run_one(&tq, &d, &cqe))
			done(2, "task %u: no completion in %u s", k, opt.wait_s);
		if (cqe.status) {
			/* Refusing a task that reads past its buffers is fine. */
			if (!past)
				done(1, "task %u: %s", k, tq_strerror(cqe.status));
			refused++;
			continue;
		}
		for (unsigned int i = 0; i < VA_N; i++) {
			bool own = c[i] == 0 || c[i] == MARK || c[i] == ONE || c[i] == TWO;

			if (!past && i < VA_N / 16)
				own = c[i] == TWO;
			if (own)
				continue;
			if (!foreign++) {
				first = c[i];
				first_at = i;
			}
			pattern += c[i] == PATTERN;
		}
	}
	tq_close(&tq);
	if (foreign)
		return done(1, "%u words of another client's data came back (%u of them its "
			    "pattern; first 0x%08x at word %u)", foreign, pattern, first, first_at);
	return done(0, "every byte back was zero or its own (%u of %u tasks reading past their"
		    " buffers refused)", refused, (opt.tasks + 1) / 2);
}

/* ---- time and size limits ---- */

static int want_status(const char *what, int ret, const struct tq_cqe *cqe, int want,
		       double t0)
{
	if (ret == 1)
		return done(2, "%s: no completion within %u s", what, opt.wait_s);
	if (ret)
		return done(3, "%s: %s", what, tq_strerror(ret));
	return done(cqe->status == want ? 0 : 1, "%s: status %d (%s) after %.1f s, want %d (%s)",
		    what, cqe->status, cqe->status ? strerror(-cqe->status) : "ok",
		    tq_now_s() - t0, want, strerror(-want));
}

/* Register the program src (len bytes, its NUL included): its status must be want. */
static int build_wants(const char *what, const char *src, size_t len, int want)
{
	struct tq_cqe cqe;
	struct tq tq;
	uint64_t off;
	double t0;

	open_ctx(&tq, 1 << 20);
	memcpy(alloc(&tq, len, &off), src, len);
	t0 = tq_now_s();
	return want_status(what, build(&tq, off, len, &cqe), &cqe, want, t0);
}

static int endless(void)
{
	static const char src[] =
		"__kernel void spin(__global volatile int *a)\n"
		"{\n\tfor (;;)\n\t\ta[0] += 1;\n}\n";
	struct tq_desc d = { 0 };
	struct tq_cqe cqe;
	uint32_t prog, kern;
	size_t global = 1;
	uint64_t off;
	struct tq tq;
	double t0;

	open_ctx(&tq, 1 << 20);
	source_kernel(&tq, src, "spin", &prog, &kern);
	alloc(&tq, 4096, &off);
	tq_prep_task(&d, prog, kern, 1, &global, NULL);
	tq_prep_buf(&d, 0, off, 4096, TQ_DIR_INOUT);
	t0 = tq_now_s();
	return want_status("a while(1) kernel", run_one(&tq, &d, &cqe), &cqe, -ETIME, t0);
}

static int huge(void)
{
	struct tq_desc d;
	struct tq_cqe cqe;
	struct tq tq;
	struct va v;
	double t0;

	open_ctx(&tq, 1 << 20);
	va_setup(&tq, &v);
	va_desc(&v, &d, (size_t)1 << 63, VA_N * 4);
	t0 = tq_now_s();
	return want_status("global work size 2^63", run_one(&tq, &d, &cqe), &cqe, -E2BIG, t0);
}

static int bomb(void)
{
	/* 8^5 dependent statements: clang and LLVM take their time over them. */
	static const char src[] =
		"#define A(x) x x x x x x x x\n"
		"#define B(x) A(A(x))\n"
		"#define C(x) B(B(x))\n"
		"#define D(x) C(A(x))\n"
		"__kernel void bomb(__global float *p)\n"
		"{\n\tfloat v = p[0];\n\tD(v = v * p[1] + p[2];)\n\tp[0] = v;\n}\n";

	return build_wants("a compile bomb", src, sizeof(src), -ETIME);
}

static int big_source(void)
{
	static const char head[] = "__kernel void k(__global int *a) { a[0] = 1; }\n/*";
	struct tq_cqe cqe;
	struct tq tq;
	uint64_t off;
	char *text;
	double t0;

	open_ctx(&tq, opt.bytes + (1 << 20));
	text = alloc(&tq, opt.bytes, &off);
	memset(text, ' ', opt.bytes);
	memcpy(text, head, sizeof(head) - 1);
	memcpy(text + opt.bytes - 3, "*/", 3);
	t0 = tq_now_s();
	return want_status("a 1 MiB source", build(&tq, off, opt.bytes, &cqe), &cqe, -E2BIG, t0);
}

static int flood(void)
{
	unsigned int ok = 0;
	uint32_t prog;
	struct tq tq;
	int ret = 0;

	open_ctx(&tq, 1 << 20);
	for (unsigned int k = 0; k < opt.count; k++) {
		ret = tq_register_builtin(&tq, "VA", &prog);
		if (ret)
			break;
		ok++;
	}
	tq_close(&tq);
	if (!ret)
		return done(1, "all %u programs registered: no quota", opt.count);
	return done(ret == -EDQUOT && ok ? 0 : 1, "%u programs registered, then %d (%s), want "
		    "-EDQUOT", ok, ret, strerror(-ret));
}

static int denied(void)
{
	static const char src[] = "__kernel void k(__global int *a) { a[0] = 1; }\n";

	return build_wants("OpenCL C from a user not allowed it", src, sizeof(src), -EPERM);
}

static int storm(void)
{
	double t0 = tq_now_s(), end = t0 + opt.seconds;
	uint64_t n = 0, errs = 0;
	struct tq tq;

	open_ctx(&tq, 1 << 16);
	while (tq_now_s() < end) {
		for (int k = 0; k < 1000; k++)
			errs += tq_enter(&tq) != 0;
		n += 1000;
	}
	tq_close(&tq);
	return done(0, "%" PRIu64 " ENTERs in %.1f s (%.0f/s), %" PRIu64 " refused", n,
		    tq_now_s() - t0, n / (tq_now_s() - t0), errs);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "tasks", required_argument, NULL, 'n' },
		{ "wait", required_argument, NULL, 'w' },
		{ "count", required_argument, NULL, 'c' },
		{ "seconds", required_argument, NULL, 's' },
		{ "bytes", required_argument, NULL, 'b' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct {
		const char *name;
		int (*fn)(void);
	} modes[] = {
		{ "leak-write", leak_write }, { "leak-read", leak_read }, { "endless", endless },
		{ "huge", huge }, { "bomb", bomb }, { "big-source", big_source },
		{ "flood", flood }, { "denied", denied }, { "storm", storm },
	};
	int o;

	tq_version_opt(argc, argv, "tq_hostile");
	while ((o = getopt_long(argc, argv, "n:w:c:s:b:", lo, NULL)) != -1) {
		switch (o) {
		case 'n': opt.tasks = strtoul(optarg, NULL, 0); break;
		case 'w': opt.wait_s = strtoul(optarg, NULL, 0); break;
		case 'c': opt.count = strtoul(optarg, NULL, 0); break;
		case 's': opt.seconds = strtoul(optarg, NULL, 0); break;
		case 'b': opt.bytes = strtoull(optarg, NULL, 0); break;
		default: goto usage;
		}
	}
	if (optind + 1 != argc || opt.bytes < 64)
		goto usage;
	mode = argv[optind];
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (!strcmp(mode, modes[i].name))
			return modes[i].fn();
usage:
	fprintf(stderr, "usage: tq_hostile [--tasks N] [--wait S] [--count N] [--seconds S] "
		"[--bytes N] leak-write|leak-read|endless|huge|bomb|big-source|flood|denied|storm\n");
	return 3;
}
