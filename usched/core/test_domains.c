// SPDX-License-Identifier: GPL-2.0
/*
 * test_domains.c - isolation domains (core.c, 9): the shared domain and
 * two of their own, each with its arena and built-in programs, run tasks of
 * two owners each, all submitted before the loop runs. Every result must
 * match the host reference; no TG may mix domains, and the first three go
 * to three domains in turn (round-robin over owners); a task whose kernel
 * and buffers, or whose ORDERED predecessor, are of other domains is
 * refused -EINVAL; a domain closes when its last region and program go,
 * not before its tasks are done (a failed build holds none open); a source
 * program is built per domain.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "selftests/tap.h"
#include "testlib.h"

#define NDOM		3
#define OWNERS		2	/* per domain */
#define NJOBS		6	/* per owner */
#define ARENA		(8u << 20)

static const uint64_t key[NDOM] = { USCHED_SHARED, 1, 2 };

struct dom {
	struct tl_arena arena;
	uint32_t prog[16];	/* per built-in task, as tqk_tasks[] */
	uint32_t kernel[16];
};

static struct dom dom[NDOM];
static struct tl_job job[NDOM][OWNERS][NJOBS];
static struct tl_sink sink;

static const char src[] =
	"__kernel void twice(__global int *a) { a[get_global_id(0)] *= 2; }\n";

static int dom_open(struct usched *u, struct dom *d, uint64_t k)
{
	struct tl_arena *a = &d->arena;
	int ret;

	a->base = mmap(NULL, ARENA, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a->base == MAP_FAILED)
		return -ENOMEM;
	a->len = ARENA;
	a->used = 0;
	ret = usched_region_add(u, k, a->base, a->len, &a->region);
	for (unsigned int i = 0; i < tqk_ntasks && !ret; i++) {
		ret = usched_prog_builtin(u, k, tqk_tasks[i]->name, &d->prog[i]);
		ret = ret ?: usched_kernel_get(u, d->prog[i], tqk_tasks[i]->kernel, &d->kernel[i]);
	}
	return ret;
}

/* Drop the domain's region and programs. */
static void dom_drop(struct usched *u, struct dom *d)
{
	usched_region_del(u, d->arena.region);
	for (unsigned int i = 0; i < tqk_ntasks; i++)
		usched_prog_put(u, d->prog[i]);
}

static uint64_t domains_open(struct usched *u)
{
	struct usched_stats st;

	usched_stats(u, &st);
	return st.domains;
}

/* The domain of a completion's task of test_run(), by where its job lies. */
static int job_domain(uint64_t user_data)
{
	const struct tl_job *j = (const struct tl_job *)(uintptr_t)user_data;

	return (int)((j - &job[0][0][0]) / (OWNERS * NJOBS));
}

static void test_run(struct usched *u)
{
	int tg_dom[NDOM * OWNERS * NJOBS + 1];
	unsigned int wrong = 0, mixed = 0, late = 0, n = 0, sub = 0;
	struct usched_stats st;
	struct tqk_mismatch mm;
	uint64_t maxtg = 0;
	int ret = 0;

	/* interleaved: the first TG finds every domain's tasks ready */
	for (unsigned int k = 0; k < NJOBS && !ret; k++) {
		for (unsigned int o = 0; o < OWNERS && !ret; o++) {
			for (unsigned int d = 0; d < NDOM && !ret; d++) {
				unsigned int t = (k + o + d) % tqk_ntasks;
				struct tl_job *j = &job[d][o][k];

				ret = tl_job_init(j, &dom[d].arena, tqk_tasks[t],
						  tl_small(tqk_tasks[t], k), d * 100 + o * 10 + k,
						  dom[d].kernel[t], 1 + d + NDOM * o);
				ret = ret ?: usched_submit(u, &j->task);
				sub += !ret;
			}
		}
	}
	if (!tap_ok(!ret, "%u tasks of 3 domains, 2 owners each, submitted (%s)", sub,
		    strerror(-ret)))
		return;
	tl_run(u, &sink, sub);
	memset(tg_dom, 0xff, sizeof(tg_dom));
	for (unsigned int d = 0; d < NDOM; d++) {
		for (unsigned int o = 0; o < OWNERS; o++) {
			for (unsigned int k = 0; k < NJOBS; k++) {
				struct tl_job *j = &job[d][o][k];
				uint64_t g = j->c.tg;

				n++;
				if (atomic_load(&j->ncompl) != 1 || j->c.status ||
				    tl_job_verify(j, &mm)) {
					if (wrong++ < 3)
						tap_diag("domain %u owner %u job %u: %d completions, "
							 "status %d", d, o, k, atomic_load(&j->ncompl),
							 j->c.status);
				}
				if (!g || g >= sizeof(tg_dom) / sizeof(tg_dom[0])) {
					late++;
					continue;
				}
				maxtg = g > maxtg ? g : maxtg;
				if (tg_dom[g] >= 0 && tg_dom[g] != job_domain(j->c.user_data))
					mixed++;
				tg_dom[g] = job_domain(j->c.user_data);
			}
		}
	}
	tap_ok(!wrong, "every task of every domain completed once, right (%u of %u wrong)", wrong,
	       n);
	tap_ok(!mixed && !late, "no TG mixes domains (%u TGs, %u tasks in a TG of another domain, "
	       "%u in none or a late one)", (unsigned int)maxtg, mixed, late);
	tap_ok(maxtg < n, "TGs still batch within a domain (%u TGs for %u tasks)",
	       (unsigned int)maxtg, n);
	tap_ok(tg_dom[1] >= 0 && tg_dom[2] >= 0 && tg_dom[3] >= 0 && tg_dom[1] != tg_dom[2] &&
	       tg_dom[2] != tg_dom[3] && tg_dom[1] != tg_dom[3],
	       "the first three TGs go to the three domains in turn (%d %d %d)", tg_dom[1],
	       tg_dom[2], tg_dom[3]);
	usched_stats(u, &st);
	tap_ok(st.isolated == 2 * OWNERS * NJOBS && st.domains == 2,
	       "counted: %llu tasks ran isolated, %llu domains open",
	       (unsigned long long)st.isolated, (unsigned long long)st.domains);
}

static struct usched_task va_task(struct dom *d, uint64_t owner, struct tl_job *j)
{
	unsigned int va = 0;

	while (strcmp(tqk_tasks[va]->name, "VA"))
		va++;
	tl_job_init(j, &d->arena, tqk_tasks[va], tl_small(tqk_tasks[va], 0), 7, d->kernel[va],
		    owner);
	return j->task;
}

static void test_mixed(struct usched *u)
{
	static struct tl_job a, b, c;
	struct usched_task t;
	unsigned long done = sink.done;
	int r1, r2, r3, r4;

	/* domain 1's kernel, the shared arena's buffers; and the other way round */
	t = va_task(&dom[0], 50, &a);
	t.kernel = va_task(&dom[1], 50, &b).kernel;
	r1 = usched_submit(u, &t);
	t = va_task(&dom[1], 50, &a);
	t.kernel = va_task(&dom[0], 50, &b).kernel;
	r2 = usched_submit(u, &t);
	tap_ok(r1 == -EINVAL && r2 == -EINVAL,
	       "a task whose kernel and buffers are of two domains: -EINVAL (%s, %s)",
	       strerror(-r1), strerror(-r2));
	t = va_task(&dom[0], 50, &a);
	t.buf[0].host = &t;	/* in no region */
	r3 = usched_submit(u, &t);
	tap_ok(r3 == -EFAULT, "a buffer in no region: -EFAULT still (%s)", strerror(-r3));

	/* an ORDERED task of domain 2 behind its owner's task of domain 1 */
	t = va_task(&dom[1], 51, &a);
	r1 = usched_submit(u, &t);
	t = va_task(&dom[2], 51, &c);
	t.flags = USCHED_TASK_ORDERED;
	r4 = usched_submit(u, &t);
	tap_ok(!r1 && r4 == -EINVAL, "an ORDERED task of another domain than its predecessor: "
	       "-EINVAL (%s)", strerror(-r4));
	tl_run(u, &sink, done + !r1);
}

/* Domain 2 closes with its last object, after its task in flight is done; then opens again. */
static void test_close(struct usched *u)
{
	static struct tl_job j;
	struct usched_task t = va_task(&dom[2], 60, &j);
	struct tqk_mismatch mm;
	unsigned long done = sink.done;
	uint64_t before, during, after, again;
	int ret;

	before = domains_open(u);
	ret = usched_submit(u, &t);
	dom_drop(u, &dom[2]);
	during = domains_open(u);
	tl_run(u, &sink, done + !ret);
	after = domains_open(u);
	tap_ok(!ret && before == 2 && during == 2 && after == 1,
	       "a domain closes when its last region and program go, its task done first "
	       "(%llu, %llu, %llu open)", (unsigned long long)before,
	       (unsigned long long)during, (unsigned long long)after);
	tap_ok(!ret && atomic_load(&j.ncompl) == 1 && !j.c.status && !tl_job_verify(&j, &mm),
	       "its last task, submitted before the drop, ran right (%d)", j.c.status);

	munmap(dom[2].arena.base, ARENA);
	ret = dom_open(u, &dom[2], key[2]);
	again = domains_open(u);
	t = va_task(&dom[2], 61, &j);
	done = sink.done;
	ret = ret ?: usched_submit(u, &t);
	if (!ret)
		tl_run(u, &sink, done + 1);
	tap_ok(!ret && again == 2 && !j.c.status && !tl_job_verify(&j, &mm),
	       "opened again at its key's next registration, a task right (%s, %d)",
	       strerror(-ret), j.c.status);
}

static void test_source(struct usched *u)
{
	static const char bad[] = "__kernel void f(__global int *a) { a[0] = ; }\n";
	uint32_t p0, p1, p1b;
	char *log = NULL;
	int r0, r1, r2;

	r0 = usched_prog_add(u, key[0], src, strlen(src), NULL, &p0, NULL);
	r1 = usched_prog_add(u, key[1], src, strlen(src), NULL, &p1, NULL);
	r2 = usched_prog_find(u, key[1], src, strlen(src), NULL, &p1b);
	tap_ok(!r0 && !r1 && !r2 && p0 != p1 && p1 == p1b,
	       "one source, two domains: built once in each (%u, %u, %u)", p0, p1, p1b);
	r2 = usched_prog_find(u, 77, src, strlen(src), NULL, &p1b);
	tap_ok(r2 == -ENOENT && domains_open(u) == 2,
	       "usched_prog_find() in a domain not open: -ENOENT, none opened (%s)",
	       strerror(-r2));
	r2 = usched_prog_add(u, key[1], bad, strlen(bad), NULL, &p1b, &log);
	tap_ok(r2 == -ENOEXEC && log && *log,
	       "a build error in a domain of its own: -ENOEXEC and its log (%s)", strerror(-r2));
	free(log);
	if (!r0)
		usched_prog_put(u, p0);
	if (!r1) {
		usched_prog_put(u, p1);
		usched_prog_put(u, p1b);
	}
}

int main(void)
{
	struct usched_opts o = { .complete = tl_complete, .complete_arg = &sink };
	const char *why = tl_setup();
	struct usched *u;
	int ret;

	if (why)
		tap_skip_all(why);
	tl_sink_init(&sink);
	ret = usched_create(&o, &u);
	if (ret) {
		tap_diag("usched_create: %s", strerror(-ret));
		return 1;
	}
	for (int d = 0; d < NDOM && !ret; d++)
		ret = dom_open(u, &dom[d], key[d]);
	if (!tap_ok(!ret && domains_open(u) == 2,
		    "arenas and built-ins in the shared domain and two of their own (%s)",
		    strerror(-ret)))
		return tap_done();
	test_run(u);
	test_mixed(u);
	test_close(u);
	test_source(u);
	for (int d = 0; d < NDOM; d++)
		dom_drop(u, &dom[d]);
	tap_ok(domains_open(u) == 0, "every domain closed with its objects (a failed build holds none)");
	usched_destroy(u);
	for (int d = 0; d < NDOM; d++)
		munmap(dom[d].arena.base, ARENA);
	return tap_done();
}
