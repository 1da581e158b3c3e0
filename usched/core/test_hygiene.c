// SPDX-License-Identifier: GPL-2.0
/*
 * test_hygiene.c - no byte of one owner's data reaches another's task
 * through the device buffer pool: owner A's kernel writes a pattern over
 * the whole pooled size of its OUT, SCRATCH and INOUT buffers (past their
 * lengths, into the rounding slack); owner B's kernel then reads all of the
 * same pooled buffers it gets for its IN, OUT and SCRATCH buffers and copies
 * what it sees out. B must see its own input and zeros, nothing of A's.
 * With usched_opts.no_clear (the control) B does see A's pattern, so the
 * probe can tell. The bytes cleared are counted, and a buffer that goes back
 * to its own owner is not cleared. Then the bounds check of built-in
 * kernels: a launch whose sizes reach past its buffers is refused, however
 * the built-in's source was registered.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "selftests/tap.h"
#include "testlib.h"

#define LEN	5000	/* bytes of each buffer: the pool rounds it up to 5120 */
#define POOLED	5120
#define IN_LEN	4500	/* B's input: same class, 620 bytes of slack */
#define WORDS	(POOLED / 4)
#define PATTERN	0xa5a5a5a5u
#define OWNER_A	1
#define OWNER_B	2
#define VA_C_BUF	2	/* VA's output: a, b, c */

static const char src[] =
	"__kernel void spill(__global uint *out, __global uint *tmp, __global uint *io, uint v)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"\n"
	"	out[i] = v;\n"
	"	tmp[i] = v;\n"
	"	io[i] = v;\n"
	"}\n"
	"__kernel void probe(__global const uint *in, __global const uint *out,\n"
	"		    __global const uint *tmp, __global uint *seen, uint n)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"\n"
	"	seen[i] = in[i];\n"
	"	seen[n + i] = out[i];\n"
	"	seen[2 * n + i] = tmp[i];\n"
	"}\n";

static struct tl_sink sink;
static int status[4];

static void complete(void *arg, const struct usched_completion *c)
{
	(void)arg;
	status[c->user_data] = c->status;
	pthread_mutex_lock(&sink.lock);
	sink.done++;
	pthread_mutex_unlock(&sink.lock);
}

struct probe_mem {
	uint32_t in[IN_LEN / 4];
	uint32_t out[LEN / 4 + 1];
	uint32_t seen[3 * WORDS];
	uint32_t a_out[LEN / 4 + 1], a_io[LEN / 4 + 1];
};

static struct usched_arg buf_arg(uint32_t i)
{
	return (struct usched_arg){ .kind = USCHED_ARG_BUF, .buf = i };
}

static struct usched_arg uint_arg(uint32_t v)
{
	struct usched_arg a = { .kind = USCHED_ARG_SCALAR, .size = 4 };

	memcpy(a.val, &v, 4);
	return a;
}

/* A's task: the pattern over every pooled byte of its three buffers. */
static struct usched_task spill_task(uint32_t kernel, struct probe_mem *m, uint64_t user)
{
	struct usched_task t = {
		.owner = OWNER_A, .user_data = user, .kernel = kernel, .dim = 1,
		.global = { WORDS }, .nbufs = 3, .nargs = 4,
		.buf = { { m->a_out, LEN, USCHED_OUT }, { NULL, LEN, USCHED_SCRATCH },
			 { m->a_io, LEN, USCHED_INOUT } },
		.arg = { buf_arg(0), buf_arg(1), buf_arg(2), uint_arg(PATTERN) },
	};

	return t;
}

/* B's task: everything its IN, OUT and SCRATCH buffers hold, pooled size and all. */
static struct usched_task probe_task(uint32_t kernel, struct probe_mem *m)
{
	struct usched_task t = {
		.owner = OWNER_B, .user_data = 3, .kernel = kernel, .dim = 1,
		.global = { WORDS }, .nbufs = 4, .nargs = 5,
		.buf = { { m->in, IN_LEN, USCHED_IN }, { m->out, LEN, USCHED_OUT },
			 { NULL, LEN, USCHED_SCRATCH }, { m->seen, sizeof(m->seen), USCHED_OUT } },
		.arg = { buf_arg(0), buf_arg(1), buf_arg(2), buf_arg(3), uint_arg(WORDS) },
	};

	return t;
}

/* Words of B's view that are neither its own input nor zero. */
static unsigned int foreign_words(const struct probe_mem *m, unsigned int *pattern)
{
	unsigned int bad = 0;

	*pattern = 0;
	for (unsigned int i = 0; i < 3 * WORDS; i++) {
		uint32_t want = i < IN_LEN / 4 ? m->in[i] : 0;

		bad += m->seen[i] != want;
		*pattern += m->seen[i] == PATTERN;
	}
	return bad;
}

/*
 * A's spill twice (the second reuses A's own buffers), then B's probe;
 * returns B's view in *m and the bytes cleared before each step.
 */
static int run_probe(bool no_clear, struct probe_mem *m, uint64_t cleared[3])
{
	struct usched_opts o = { .complete = complete, .complete_arg = &sink,
				 .no_clear = no_clear };
	struct usched_stats st;
	struct usched_task t;
	struct tl_arena arena = { 0 };
	struct probe_mem *hm;
	uint32_t prog, spill, probe;
	struct usched *u;
	int ret;

	tl_sink_init(&sink);
	ret = usched_create(&o, &u);
	if (ret)
		return ret;
	ret = tl_arena_init(&arena, u, 1 << 20);
	ret = ret ?: usched_prog_add(u, USCHED_SHARED, src, sizeof(src), NULL, &prog, NULL);
	ret = ret ?: usched_kernel_get(u, prog, "spill", &spill);
	ret = ret ?: usched_kernel_get(u, prog, "probe", &probe);
	if (ret)
		goto out;
	hm = (struct probe_mem *)arena.base;
	for (unsigned int i = 0; i < IN_LEN / 4; i++)
		hm->in[i] = 0x1000 + i;
	memset(hm->seen, 0xee, sizeof(hm->seen));
	for (uint64_t k = 1; k <= 3; k++) {
		t = k < 3 ? spill_task(spill, hm, k) : probe_task(probe, hm);
		ret = usched_submit(u, &t);
		if (ret)
			goto out;
		tl_run(u, &sink, k);
		usched_stats(u, &st);
		cleared[k - 1] = st.bytes_cleared;
	}
	memcpy(m, hm, sizeof(*m));
out:
	usched_destroy(u);
	if (arena.base)
		tl_arena_free(&arena);
	return ret;
}

static void test_probe(void)
{
	static struct probe_mem m;
	unsigned int bad, pattern;
	uint64_t cleared[3];
	int ret;

	memset(status, 0xff, sizeof(status));
	ret = run_probe(false, &m, cleared);
	if (!tap_ok(!ret && !status[1] && !status[2] && !status[3],
		    "owner A spills a pattern, owner B probes (%s; %d %d %d)", strerror(-ret),
		    status[1], status[2], status[3]))
		return;
	bad = foreign_words(&m, &pattern);
	if (!tap_ok(!bad && !pattern, "B sees its own input and zeros in its IN slack, OUT and "
		    "SCRATCH buffers, past their lengths too"))
		tap_diag("%u words wrong, %u of them A's pattern", bad, pattern);
	/* A's first run: new buffers, cleared whole (OUT, SCRATCH) or past len (INOUT) */
	tap_ok(cleared[0] == 2 * POOLED + (POOLED - LEN), "A's new buffers: %llu bytes cleared",
	       (unsigned long long)cleared[0]);
	tap_ok(cleared[1] == cleared[0], "A's buffers back to A: nothing cleared");
	/* B: IN slack, OUT and SCRATCH whole, and its new seen buffer (16384 bytes) */
	tap_ok(cleared[2] - cleared[1] == (POOLED - IN_LEN) + 2 * POOLED + 16384,
	       "B's buffers: %llu bytes cleared", (unsigned long long)(cleared[2] - cleared[1]));

	memset(status, 0xff, sizeof(status));
	ret = run_probe(true, &m, cleared);
	bad = foreign_words(&m, &pattern);
	tap_ok(!ret && !status[3] && pattern >= 2 * WORDS && !cleared[2],
	       "control, no_clear: B does see A's pattern (%u words), nothing cleared", pattern);
}

/* VA's plan with buffer 0 shortened, or its work size or length changed. */
static void test_bounds(void)
{
	struct usched_opts o = { .complete = tl_complete, .complete_arg = &sink };
	const struct tqk_task *va = tqk_find("VA");
	struct tqk_size sz = { 1024, 0 };
	uint32_t kernel[16], prog, k2, kva = 0;
	struct tl_arena arena;
	struct tl_job j;
	struct usched *u;
	int ret, bad = 0;

	tl_sink_init(&sink);
	u = tl_open(&o, kernel);
	if (tl_arena_init(&arena, u, 1 << 20)) {
		tap_ok(0, "arena");
		return;
	}
	for (unsigned int i = 0; i < tqk_ntasks; i++) {
		struct tqk_size small = tl_small(tqk_tasks[i], 0);

		if (tqk_tasks[i] == va)
			kva = kernel[i];
		ret = tl_job_init(&j, &arena, tqk_tasks[i], small, 1, kernel[i], OWNER_A);
		arena.used = 0;
		if (ret)
			break;
		j.task.buf[j.task.nbufs - 1].len--;
		bad += usched_submit(u, &j.task) == -EINVAL;
		j.task.buf[j.task.nbufs - 1].len++;
		j.task.global[0] *= 2;
		bad += usched_submit(u, &j.task) == -EINVAL;
	}
	tap_ok(bad == 2 * (int)tqk_ntasks, "every built-in: a buffer shorter than its sizes "
	       "need, or a larger work size: -EINVAL (%d of %u)", bad, 2 * tqk_ntasks);

	ret = tl_job_init(&j, &arena, va, sz, 1, kva, OWNER_A);
	ret = ret ?: usched_submit(u, &j.task);
	if (!ret)
		tl_run(u, &sink, 1);
	tap_ok(!ret && !tl_job_verify(&j, NULL), "VA as planned runs and is right");
	/* the built-in's source registered as any program is still a built-in */
	ret = usched_prog_add(u, USCHED_SHARED, va->source, strlen(va->source), NULL, &prog, NULL);
	ret = ret ?: usched_kernel_get(u, prog, va->kernel, &k2);
	arena.used = 0;
	ret = ret ?: tl_job_init(&j, &arena, va, sz, 1, k2, OWNER_A);
	if (!ret) {
		j.task.buf[0].len = 4;
		ret = usched_submit(u, &j.task);
	}
	tap_ok(ret == -EINVAL, "VA's source through usched_prog_add(), buffer 0 too short: "
	       "-EINVAL (%s)", strerror(-ret));
	usched_destroy(u);
	tl_arena_free(&arena);
}

/*
 * A built-in's kernel reads only its planned inputs and writes all of its
 * planned output, so hygiene zeroes only around it: a planned task of a new
 * owner has nothing cleared; an OUT buffer longer than its plan gets the
 * tail (which no one writes) zeroed, and it comes back zero; an input
 * declared OUT (not copied in) is zeroed whole, so the kernel reads zeros.
 */
static void test_builtin_clear(void)
{
	struct usched_opts o = { .complete = tl_complete, .complete_arg = &sink };
	const struct tqk_task *va = tqk_find("VA");
	struct tqk_size sz = { 4096, 0 };
	uint64_t bytes = sz.n * sizeof(float), before;
	uint32_t kernel[16], kva = 0;
	struct usched_stats st;
	struct tl_arena arena;
	struct tl_job j;
	struct usched *u;
	unsigned char *tail;
	const float *a, *b, *c;
	unsigned int done = 0, bad = 0;
	int ret;

	tl_sink_init(&sink);
	u = tl_open(&o, kernel);
	for (unsigned int i = 0; i < tqk_ntasks; i++)
		if (tqk_tasks[i] == va)
			kva = kernel[i];
	if (tl_arena_init(&arena, u, 1 << 20)) {
		tap_ok(0, "arena");
		return;
	}
	/* owner A's buffers in the pool, then B as planned */
	for (uint64_t owner = OWNER_A; owner <= OWNER_B; owner++) {
		usched_stats(u, &st);
		before = st.bytes_cleared;
		ret = tl_job_init(&j, &arena, va, sz, owner, kva, owner);
		ret = ret ?: usched_submit(u, &j.task);
		if (!ret)
			tl_run(u, &sink, ++done);
	}
	usched_stats(u, &st);
	tap_ok(!ret && !tl_job_verify(&j, NULL) && st.bytes_cleared == before,
	       "a built-in as planned, another owner's buffers: right, nothing cleared (%llu)",
	       (unsigned long long)(st.bytes_cleared - before));

	/* c 4096 bytes longer than planned: the last buffer, free arena after it */
	before = st.bytes_cleared;
	ret = tl_job_init(&j, &arena, va, sz, 3, kva, 3);
	tail = (unsigned char *)j.bufs[VA_C_BUF] + bytes;
	memset(tail, 0xee, 4096);
	j.task.buf[VA_C_BUF].len += 4096;
	ret = ret ?: usched_submit(u, &j.task);
	if (!ret)
		tl_run(u, &sink, ++done);
	arena.used += 4096;
	for (unsigned int i = 0; i < 4096; i++)
		bad += tail[i] != 0;
	usched_stats(u, &st);
	tap_ok(!ret && !tl_job_verify(&j, NULL) && !bad && st.bytes_cleared - before == 4096,
	       "an OUT buffer past its plan: the tail comes back zero (%u bytes not), %llu "
	       "bytes cleared", bad, (unsigned long long)(st.bytes_cleared - before));

	/* a not copied in: the kernel reads zeros, c = b */
	before = st.bytes_cleared;
	ret = tl_job_init(&j, &arena, va, sz, 4, kva, 4);
	j.task.buf[0].dir = USCHED_OUT;
	ret = ret ?: usched_submit(u, &j.task);
	if (!ret)
		tl_run(u, &sink, ++done);
	a = j.bufs[0];
	b = j.bufs[1];
	c = j.bufs[VA_C_BUF];
	bad = 0;
	for (unsigned int i = 0; i < sz.n; i++)
		bad += c[i] != b[i] || a[i] != 0.0f;
	usched_stats(u, &st);
	tap_ok(!ret && !bad && st.bytes_cleared - before == bytes,
	       "an input declared OUT: zeroed whole, c = 0 + b (%u wrong), %llu bytes cleared",
	       bad, (unsigned long long)(st.bytes_cleared - before));
	usched_destroy(u);
	tl_arena_free(&arena);
}

int main(void)
{
	const char *why = tl_setup();

	if (why)
		tap_skip_all(why);
	test_probe();
	test_bounds();
	test_builtin_clear();
	return tap_done();
}
