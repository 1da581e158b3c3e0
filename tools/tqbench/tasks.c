// SPDX-License-Identifier: GPL-2.0
/*
 * tasks.c - the tasks tqbench runs.
 *
 * Synthetic (Tables 2 and 3): each of T0..T7 is SYN tuned on this device so
 * its HtD, K and DtH take the table's fractions of the time unit: sizes
 * from the profile first, then a few measure-and-rescale passes.
 *
 * Real (Tables 4 and 5): each kernels/ task at three sizes whose longest
 * command spans the range Table 5's row (for one device, scaled) gives the
 * task's dominant command (the kernel for a task Table 4 calls DK, its
 * longer copy otherwise). The profile picks the sizes; each is then measured alone and
 * classed DK or DT by what it measured here (htd + dth <= k), as the paper
 * classes tasks. BKx draws x% of its tasks from the DK ones.
 *
 * Every task is measured alone (each command's median over a few runs):
 * the model's inputs for NoReorder's predictions.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/tqbench/bench.h"
#include "tools/progress.h"
#include "tq/num.h"
#include "tq/rand.h"

#define LINE_MAX	512
#define MAX_FIELDS	12

/* The next data row of a CSV file (comments and the header skipped); -1 at the end. */
static int csv_row(FILE *f, char *line, char **field)
{
	static FILE *header_seen;
	int n;

	while (fgets(line, LINE_MAX, f)) {
		line[strcspn(line, "\r\n")] = 0;
		if (line[0] == '#' || !line[0])
			continue;
		if (header_seen != f) {		/* the first row names the columns */
			header_seen = f;
			continue;
		}
		n = 0;
		for (char *p = line; p && n < MAX_FIELDS; n++) {
			field[n] = p;
			p = strchr(p, ',');
			if (p)
				*p++ = 0;
		}
		return n;
	}
	return -1;
}

static FILE *data_open(const struct env *e, const char *name)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", e->o->data, name);
	f = fopen(path, "r");
	if (!f)
		fprintf(stderr, "tqbench: %s: %s (--data names the directory)\n", path,
			strerror(errno));
	return f;
}

int measure_alone(struct env *e, struct btask *b, unsigned int reps)
{
	double v[CLX_MAX_CMDS][16];
	struct clu_region r = { 0 };
	struct binst in;
	size_t len;
	void *base;
	int ret;

	if (reps > 16)
		reps = 16;
	btask_layout(b, 0);
	len = btask_host_bytes(b) + 4096;
	base = clu_mmap(len);
	if (!base)
		return -ENOMEM;
	memset(base, 0, len);
	ret = clx_region_add(&e->c, base, len, &r);
	if (ret)
		goto out_unmap;
	ret = binst_init(&e->c, b, &in);
	if (ret)
		goto out_region;
	/* one run to warm up, then reps timed */
	for (unsigned int i = 0; i <= reps && !ret; i++) {
		ret = binst_enqueue_in(&in, &r, e->c.q[CLX_HTD], e->c.q[CLX_K], 0, NULL);
		ret = ret ?: binst_enqueue_out(&in, &r, e->c.q[CLX_DTH]);
		ret = ret ?: clx_wait(binst_last(&in));
		for (unsigned int c = 0; c < in.nev && i && !ret; c++)
			v[c][i - 1] = clu_end(in.ev[c]) - clu_start(in.ev[c]);
	}
	if (!ret) {
		double st[CLX_STAGES] = { 0 };

		for (unsigned int c = 0; c < b->ncmds; c++) {
			b->cmd_ns[c] = tq_median(v[c], reps);
			st[b->cmd_stage[c]] += b->cmd_ns[c];
		}
		b->dk = st[CLX_HTD] + st[CLX_DTH] <= st[CLX_K];
	}
	binst_fini(&in);
out_region:
	clx_region_del(&e->c, &r);
out_unmap:
	clu_unmap(base, len);
	return ret;
}

static double stage_ns(const struct btask *b, int s)
{
	double t = 0;

	for (unsigned int c = 0; c < b->ncmds; c++)
		if (b->cmd_stage[c] == s)
			t += b->cmd_ns[c];
	return t;
}

/* Bytes a copy takes to last ns, by the profile; at least a page. */
static uint64_t bytes_for(const struct tqsim_profile *p, int s, double ns)
{
	double b = (ns - p->alone[s].lat_ns) * p->alone[s].bytes_per_ns;

	return b < 4096 ? 4096 : (uint64_t)b;
}

int suite_synthetic(struct env *e, struct suite *s)
{
	char line[LINE_MAX], *f[MAX_FIELDS];
	double unit = e->o->unit_ms * 1e6;
	double frac[8][CLX_STAGES];
	uint64_t n_k = clx_syn_n(&e->c);
	int passes = e->o->quick ? 2 : 4;
	const char *syn = tqk_find("SYN")->kernel;
	double eta = tqsim_profile_kernel_ns(&e->prof, syn, 1);
	double gamma = tqsim_profile_kernel_ns(&e->prof, syn, 0);
	FILE *in;
	int n;

	memset(s, 0, sizeof(*s));
	s->name = "synthetic";
	s->synthetic = true;
	if (eta < 0) {
		fprintf(stderr, "tqbench: the profile has no %s kernel\n", syn);
		return -EINVAL;
	}
	eta -= gamma;
	in = data_open(e, "synthetic_tasks.csv");
	if (!in)
		return -ENOENT;
	while ((n = csv_row(in, line, f)) >= 0 && s->npool < 8) {
		if (n < 4)
			continue;
		for (int st = 0; st < CLX_STAGES; st++)
			frac[s->npool][st] = atof(f[1 + st]);
		snprintf(s->pool[s->npool++].name, sizeof(s->pool[0].name), "%s", f[0]);
	}
	fclose(in);

	progress_begin("tuning synthetic tasks", s->npool);
	for (unsigned int i = 0; i < s->npool; i++) {
		struct btask *b = &s->pool[i];
		char name[sizeof(b->name)];
		double want[CLX_STAGES], got[CLX_STAGES];
		uint64_t bytes[CLX_STAGES];
		double iters;
		int ret = 0;

		memcpy(name, b->name, sizeof(name));
		for (int st = 0; st < CLX_STAGES; st++)
			want[st] = frac[i][st] * unit;
		bytes[CLX_HTD] = bytes_for(&e->prof, TQSIM_HTD, want[CLX_HTD]);
		bytes[CLX_DTH] = bytes_for(&e->prof, TQSIM_DTH, want[CLX_DTH]);
		iters = fmax(1, (want[CLX_K] - gamma) / (eta * n_k));
		/* measure, rescale each stage towards its target; quick: once */
		for (int pass = 0; pass < passes && !ret; pass++) {
			bool last = pass == passes - 1;

			ret = btask_syn(b, name, n_k, (uint32_t)fmin(iters, 1 << 24),
					bytes[CLX_HTD], bytes[CLX_DTH]);
			ret = ret ?: measure_alone(e, b, last && !e->o->quick ? 7 : 3);
			for (int st = 0; st < CLX_STAGES && !ret; st++)
				got[st] = stage_ns(b, st);
			if (ret || last)
				break;
			iters = fmax(1, iters * want[CLX_K] / got[CLX_K]);
			for (int st = CLX_HTD; st <= CLX_DTH; st += 2)
				bytes[st] = fmax(4096, bytes[st] * want[st] / got[st]);
		}
		if (ret) {
			fprintf(stderr, "tqbench: cannot run synthetic task %s\n", name);
			return ret;
		}
		progress_step(1, name);
	}
	progress_end();

	in = data_open(e, "synthetic_benchmarks.csv");
	if (!in)
		return -ENOENT;
	while ((n = csv_row(in, line, f)) >= 0 && s->nbench < MAX_BENCH) {
		unsigned int k = 0;

		if (n < 2)
			continue;
		snprintf(s->bench[s->nbench], sizeof(s->bench[0]), "%.7s", f[0]);
		s->pct[s->nbench] = atoi(f[0] + 2);
		for (char *t = strtok(f[1], " "); t && k < 4; t = strtok(NULL, " "))
			for (unsigned int j = 0; j < s->npool; j++)
				if (!strcmp(s->pool[j].name, t))
					s->members[s->nbench][k++] = j;
		if (k == 4)
			s->nbench++;
	}
	fclose(in);
	return s->nbench ? 0 : -EINVAL;
}

/* A task's stage times at size sz, as the profile predicts them. */
static void predict_stages(const struct env *e, const struct tqk_task *t, struct tqk_size sz,
			   double ns[CLX_STAGES])
{
	struct btask b;

	memset(ns, 0, CLX_STAGES * sizeof(ns[0]));
	if (btask_real(&b, t, sz))
		return;
	for (uint32_t i = 0; i < b.l.nbufs; i++) {
		if (b.dir[i] & BT_IN)
			ns[CLX_HTD] += tqsim_profile_xfer_ns(&e->prof, TQSIM_HTD, b.l.buf[i].bytes);
		if (b.dir[i] & BT_OUT)
			ns[CLX_DTH] += tqsim_profile_xfer_ns(&e->prof, TQSIM_DTH, b.l.buf[i].bytes);
	}
	ns[CLX_K] = tqsim_profile_kernel_ns(&e->prof, t->kernel, b.l.m);
}

/* The largest n whose task fits the device and the host budget. */
static bool fits(const struct env *e, const struct tqk_task *t, struct tqk_size sz)
{
	struct btask b;
	uint64_t total = 0;

	if (btask_real(&b, t, sz))
		return false;
	for (uint32_t i = 0; i < b.l.nbufs; i++) {
		if (b.l.buf[i].bytes > e->c.max_alloc)
			return false;
		total += b.l.buf[i].bytes;
	}
	return total <= e->c.global_mem / 32;
}

/*
 * Three sizes of t whose longest command, as predicted here, is nearest
 * lo, sqrt(lo hi) and hi (ns), on a log scale. The longest here, not the
 * one Table 4 calls dominant: on another device a task's balance shifts
 * (a kernel that dominated on a K20c may be dwarfed by its copies on a
 * faster GPU), and every command should stay within the paper's times.
 * Returns how many distinct sizes.
 */
static unsigned int pick_sizes(const struct env *e, const struct tqk_task *t, double lo,
			       double hi, struct tqk_size *out)
{
	double want[3] = { lo, sqrt(lo * hi), hi }, best[3] = { INFINITY, INFINITY, INFINITY };
	struct tqk_size sz = { t->n_min, 1 };
	unsigned int n = 0;

	for (int i = 0; i < 3; i++)
		out[i] = sz;
	/* a geometric scan of n */
	for (double x = t->n_min; x <= t->n_max; x *= 1.02) {
		double ns[CLX_STAGES], dom;

		sz.n = tqk_round_n(t, (uint64_t)x);
		if (!fits(e, t, sz))
			break;
		predict_stages(e, t, sz, ns);
		dom = fmax(ns[CLX_K], fmax(ns[CLX_HTD], ns[CLX_DTH]));
		for (int i = 0; i < 3 && dom > 0; i++) {
			double d = fabs(log(dom / want[i]));

			if (d < best[i]) {
				best[i] = d;
				out[i] = sz;
			}
		}
	}
	for (int i = 0; i < 3; i++)
		if (!n || out[i].n != out[n - 1].n)
			out[n++] = out[i];
	return n;
}

const unsigned int bench_pcts[MAX_BENCH] = { 0, 25, 50, 75, 100 };

int suite_real(struct env *e, struct suite *s)
{
	char line[LINE_MAX], *f[MAX_FIELDS];
	double scale = e->o->real_scale * 1e6;
	FILE *in;
	int n, ret = 0;

	memset(s, 0, sizeof(*s));
	s->name = "real";
	in = data_open(e, "real_task_ranges.csv");
	if (!in)
		return -ENOENT;
	progress_begin("sizing real tasks", 8);
	while ((n = csv_row(in, line, f)) >= 0 && !ret) {
		/* device,task,dominance,htd_min,htd_max,k_min,k_max,dth_min,dth_max */
		const struct tqk_task *t;
		struct tqk_size sz[3];
		bool dk;
		double lo, hi;
		unsigned int k;

		if (n < 9 || strcmp(f[0], e->o->table5))
			continue;
		t = tqk_find(f[1]);
		if (!t) {
			fprintf(stderr, "tqbench: no task %s in kernels/\n", f[1]);
			continue;
		}
		dk = !strcmp(f[2], "DK");
		lo = (dk ? atof(f[5]) : fmax(atof(f[3]), atof(f[7]))) * scale;
		hi = (dk ? atof(f[6]) : fmax(atof(f[4]), atof(f[8]))) * scale;
		k = pick_sizes(e, t, fmin(lo, hi), fmax(lo, hi), sz);
		if (e->o->quick) {	/* the middle size alone */
			sz[0] = sz[k / 2];
			k = 1;
		}
		for (unsigned int i = 0; i < k && s->npool < MAX_POOL && !ret; i++) {
			struct btask *b = &s->pool[s->npool];

			ret = btask_real(b, t, sz[i]);
			snprintf(b->name, sizeof(b->name), "%s/%llu", t->name,
				 (unsigned long long)sz[i].n);
			ret = ret ?: measure_alone(e, b, e->o->quick ? 3 : 5);
			if (ret)
				fprintf(stderr, "tqbench: cannot run %s\n", b->name);
			s->npool++;
		}
		progress_step(1, t->name);
	}
	fclose(in);
	progress_end();
	if (ret)
		return ret;
	if (!s->npool) {
		fprintf(stderr, "tqbench: no row for device '%s' in real_task_ranges.csv\n",
			e->o->table5);
		return -EINVAL;
	}
	for (unsigned int i = 0; i < MAX_BENCH; i++) {
		snprintf(s->bench[i], sizeof(s->bench[0]), "BK%u", bench_pcts[i]);
		s->pct[i] = bench_pcts[i];
	}
	s->nbench = MAX_BENCH;
	return 0;
}

/* splitmix64: the random draws, reproducible from --seed */
uint64_t bench_rnd(uint64_t *st)
{
	return tq_rand_next(st);
}

/* A pool task of class dk at random; any class when the pool has none of it. */
static unsigned int draw(const struct suite *s, bool dk, uint64_t *st)
{
	unsigned int idx[MAX_POOL], n = 0;

	for (unsigned int i = 0; i < s->npool; i++)
		if (s->pool[i].dk == dk)
			idx[n++] = i;
	if (!n)
		return bench_rnd(st) % s->npool;
	return idx[bench_rnd(st) % n];
}

static uint64_t factorial(unsigned int n)
{
	return n <= 1 ? 1 : n * factorial(n - 1);
}

/* Order number k (mixed radix, T! per round) of the (T!)^N orders. */
static void nth_order(unsigned int T, unsigned int N, uint64_t k, uint8_t *order)
{
	for (unsigned int r = 0; r < N; r++) {
		uint64_t f = factorial(T), x = k % f;
		uint8_t left[MAX_SLOTS];

		k /= f;
		for (unsigned int i = 0; i < T; i++)
			left[i] = i;
		/* x in the factorial number system picks each next worker */
		for (unsigned int i = 0; i < T; i++) {
			uint64_t g = factorial(T - 1 - i);
			unsigned int j = x / g;

			x %= g;
			order[r * T + i] = r * T + left[j];
			memmove(&left[j], &left[j + 1], T - 1 - i - j);
		}
	}
}

static void random_order(unsigned int T, unsigned int N, uint64_t *st, uint8_t *order)
{
	for (unsigned int r = 0; r < N; r++) {
		for (unsigned int i = 0; i < T; i++)
			order[r * T + i] = r * T + i;
		for (unsigned int i = T - 1; i > 0; i--) {
			unsigned int j = bench_rnd(st) % (i + 1);
			uint8_t x = order[r * T + i];

			order[r * T + i] = order[r * T + j];
			order[r * T + j] = x;
		}
	}
}

int result_init(struct env *e, const struct suite *s, unsigned int bench, unsigned int T,
		unsigned int N, uint64_t seed, struct result *r)
{
	uint8_t pick[MAX_SLOTS];
	uint64_t st = seed, space = 1;
	unsigned int ns = T * N, ndk;
	bool all;

	memset(r, 0, sizeof(*r));
	if (ns > MAX_SLOTS || T < 2)
		return -EINVAL;
	r->s = s;
	r->bench = bench;
	r->T = T;
	r->N = N;
	r->nslots = ns;
	if (s->synthetic) {
		/* synthetic: the benchmark's four tasks in turn, the rest at random */
		for (unsigned int i = 0; i < ns; i++)
			pick[i] = s->members[bench][i < ns / 4 * 4 ? i % 4 : bench_rnd(&st) % 4];
	} else {
		/* real: pct% dominant-kernel tasks */
		ndk = (unsigned int)lround(s->pct[bench] / 100.0 * ns);
		for (unsigned int i = 0; i < ns; i++)
			pick[i] = draw(s, i < ndk, &st);
	}
	for (unsigned int i = ns - 1; i > 0; i--) {
		unsigned int j = bench_rnd(&st) % (i + 1);
		uint8_t x = pick[i];

		pick[i] = pick[j];
		pick[j] = x;
	}
	for (unsigned int i = 0; i < ns; i++) {
		r->slot[i] = s->pool[pick[i]];
		btask_layout(&r->slot[i], e->out_base);
		r->share[i] = tqsim_profile_kernel_share(&e->prof, r->slot[i].tk->kernel,
							 (double)r->slot[i].l.m);
	}

	/* every order when there are few, else a 5% sample with a cap */
	for (unsigned int i = 0; i < N; i++)
		space = space > UINT64_MAX / factorial(T) ? UINT64_MAX : space * factorial(T);
	r->perm_space = space;
	all = space <= e->o->perms_all;
	r->nperms = all ? space : (unsigned int)fmin(e->o->perms_max, fmax(2, space / 20.0));
	r->perm = calloc(r->nperms, sizeof(*r->perm));
	r->perm_ms = calloc(r->nperms, sizeof(double));
	r->perm_pred_ms = calloc(r->nperms, sizeof(double));
	if (!r->perm || !r->perm_ms || !r->perm_pred_ms)
		return -ENOMEM;
	for (unsigned int p = 0; p < r->nperms; p++) {
		if (all)
			nth_order(T, N, p, r->perm[p]);
		else
			random_order(T, N, &st, r->perm[p]);
		r->perm_pred_ms[p] = predict_ms(e, r, r->perm[p]);
	}
	return 0;
}

void result_fini(struct result *r)
{
	free(r->perm);
	free(r->perm_ms);
	free(r->perm_pred_ms);
	r->perm = NULL;
	r->perm_ms = r->perm_pred_ms = NULL;
}

void result_tg(const struct result *r, struct tqsim_tg *tg)
{
	tqsim_tg_init(tg);
	for (unsigned int i = 0; i < r->nslots; i++) {
		const struct btask *b = &r->slot[i];

		tqsim_tg_add_task(tg);
		for (unsigned int c = 0; c < b->ncmds; c++)
			tqsim_tg_add_cmd(tg, b->cmd_stage[c], b->cmd_ns[c]);
		tqsim_tg_set_width(tg, i, r->share[i]);
		/* a worker's next task starts once its previous one has ended */
		if (i >= r->T)
			tqsim_tg_set_after(tg, i, i - r->T);
	}
}

/*
 * The model's makespan of an order, from the standalone times: the T x N
 * tasks as one TG, each worker's tasks chained, as run_order() runs them on
 * two copy engines. With one, run_order() puts each round's DtH copies
 * after its HtD copies, which the chains do not express: 0 then, unless
 * N == 1.
 */
double predict_ms(const struct env *e, const struct result *r, const uint8_t *order)
{
	struct tqsim_tg tg;

	if (r->N != 1 && e->dev.dma != 2)
		return 0;
	result_tg(r, &tg);
	return tqsim_makespan(&tg, &e->dev, order, r->nslots) / 1e6;
}
