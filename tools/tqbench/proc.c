// SPDX-License-Identifier: GPL-2.0
/*
 * proc.c - the policies through the real system (--workers process): the
 * T x N runs of an experiment through the daemon, each worker a process.
 *
 * For each policy tqbench starts the usched daemon with that policy, its
 * device and its profile, and waits until it is attached and serving (it
 * tells us as it tells systemd: READY=1 on NOTIFY_SOCKET). Then it forks
 * T workers. Each opens its own context of /dev/tqsubmit through libtq,
 * registers the kernels its tasks need, and gives each of its N tasks
 * buffers of its own in its arena. Per run the parent says go and each
 * worker submits its N tasks at once, each chained after the previous one
 * (tq_desc_set_after(), TQ_DESC_F_AFTER: as the in-process runs flag them
 * USCHED_TASK_ORDERED, so usched forms TGs of the T x N tasks the same
 * way), and reports each task's status, how many completions it saw and
 * the start and end stamps the completion carries. A server without chains
 * (no TQ_FEAT_CHAINS) gets them one at a time instead, each after the
 * previous one's completion. Outside the
 * timed window the parent then has every worker check its outputs against
 * the host reference and fill its inputs again. The makespan is the first
 * start to the last end over the run's tasks. Then the workers exit, the
 * daemon gets SIGTERM, and we wait for it.
 *
 * Synthetic tasks are SYN on device memory beside copies of their own; the
 * ABI binds every buffer to a kernel argument, so here the copies are two
 * more arguments of a SYN kernel the kernel does not touch. Through the
 * module usched's kernel model sees m as the product of the global sizes,
 * the same for T0..T7, so each task gets a kernel of its own (one program).
 * Their outputs are device memory only: nothing to check but the status.
 *
 * The daemon (proc_daemon.c) writes its tg-log and task-log (each TG's and
 * task's stage times, predicted and measured), merged after each policy
 * into OUT/proc-tg.csv and OUT/proc-tasks.csv; the workers' plumbing is
 * proc_workers.c's.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tools/tqbench/proc.h"
#include "tools/progress.h"
#include "tq/num.h"

static char syn_src[16384];		/* the synthetic suite's program */
static bool tg_started, tasks_started;	/* proc-tg.csv, proc-tasks.csv begun */

/* The synthetic suite's program: SYN (kernels/syn.cl) once per task, copies as arguments. */
static void syn_program(const struct suite *s)
{
	size_t len = 0;

	for (unsigned int i = 0; i < s->npool && len < sizeof(syn_src); i++)
		len += snprintf(syn_src + len, sizeof(syn_src) - len,
				"__kernel void syn_%s(__global uint *input, int num_iterations, "
				"uint factor,\n\t\t__global const uint *copy_in, "
				"__global uint *copy_out)\n{\n\tint idx = get_global_id(0);\n\n"
				"\tfor (int i = 0; i < num_iterations; i++)\n"
				"\t\tinput[idx] *= factor;\n}\n\n", s->pool[i].name);
}

/* The arena a worker needs: every copied buffer of its tasks, and room to register. */
static size_t worker_arena(const struct result *r, unsigned int w)
{
	size_t n = 1 << 16;

	for (unsigned int s = w; s < r->nslots; s += r->T)
		for (unsigned int i = 0; i < r->slot[s].l.nbufs; i++)
			if (r->slot[s].dir[i] != BT_SCRATCH)
				n += (r->slot[s].l.buf[i].bytes + 4095) & ~4095ull;
	return n;
}

static int slot_setup(struct tq *tq, struct wslot *ws, const struct wslot *prev, unsigned int n)
{
	const struct btask *b = ws->b;
	char kname[40];
	int ret = 0;

	/* the kernel: once per kernels/ task (synthetic: per task) in this context */
	for (unsigned int i = 0; i < n; i++) {
		if (prev[i].b->tk == b->tk &&
		    (!synthetic_task(b) || !strcmp(prev[i].b->name, b->name))) {
			ws->prog = prev[i].prog;
			ws->kern = prev[i].kern;
		}
	}
	if (!ws->kern && synthetic_task(b)) {
		for (unsigned int i = 0; i < n && !ws->prog; i++)
			ws->prog = prev[i].prog;
		if (!ws->prog)
			ret = tq_register_program(tq, syn_src, strlen(syn_src), NULL, &ws->prog);
		snprintf(kname, sizeof(kname), "syn_%s", b->name);
		ret = ret ?: tq_lookup_kernel(tq, ws->prog, kname, &ws->kern);
	} else if (!ws->kern) {
		ret = tq_register_builtin(tq, b->tk->name, &ws->prog);
		ret = ret ?: tq_lookup_kernel(tq, ws->prog, b->tk->kernel, &ws->kern);
	}
	if (ret) {
		fprintf(stderr, "tqbench: worker %d: registering %s: %s\n", getpid(), b->name,
			tq_strerror(ret));
		return ret;
	}
	for (unsigned int i = 0; i < b->l.nbufs && !ret; i++) {
		if (b->dir[i] == BT_SCRATCH)
			continue;
		ret = b->l.buf[i].bytes > UINT32_MAX ? -E2BIG :
			tq_buf_alloc(tq, b->l.buf[i].bytes, &ws->buf[i], &ws->off[i]);
	}
	if (ret)
		fprintf(stderr, "tqbench: worker %d: arena for %s: %s\n", getpid(), b->name,
			tq_strerror(ret));
	return ret;
}

static void slots_fill(struct wslot *ws, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		if (!synthetic_task(ws[i].b))
			tqk_fill(ws[i].b->tk, ws[i].b->sz, ws[i].seed, ws[i].buf);
}

static void slots_check(struct wslot *ws, unsigned int n, struct wmsg *m)
{
	for (unsigned int i = 0; i < n; i++) {
		struct tqk_mismatch mm;

		if (synthetic_task(ws[i].b))
			continue;
		if (!tqk_verify(ws[i].b->tk, ws[i].b->sz, ws[i].seed, ws[i].buf, &mm)) {
			m->verified++;
			continue;
		}
		if (!m->wrong++)
			fprintf(stderr, "tqbench: worker %d: %s: wrong output: buffer %u [%llu] is "
				"%g, not %g\n", getpid(), ws[i].b->name, mm.buf,
				(unsigned long long)mm.index, mm.got, mm.want);
	}
}

/*
 * One run of worker's tasks: submitted at once where chains allow (else one
 * at a time), MSG_SUBMITTED on @sock once the first submission is made,
 * then their completions into @m.
 */
static int worker_run(struct tq *tq, struct wslot *ws, unsigned int n, uint32_t run,
		      struct wmsg *m, int sock)
{
	static struct wmsg submitted = { .kind = MSG_SUBMITTED };
	bool chain = tq->features & TQ_FEAT_CHAINS;
	unsigned int sent = 0, done = 0;
	struct tq_cqe *cqe;
	int ret = 0;

	while (!ret && done < n) {
		while (!ret && sent < n && (chain || sent == done)) {
			struct tq_desc *d = tq_get_desc(tq);

			if (!d && sent == done)
				return -EBUSY;
			if (!d)
				break;	/* the SQ is full: reap first */
			ret = slot_prep(&ws[sent], d);
			tq_desc_set_data(d, (uint64_t)run << 32 | sent);
			if (chain && sent)
				tq_desc_set_after(d, 1);
			sent++;
		}
		if (!ret) {
			ret = tq_submit(tq);
			ret = ret < 0 ? ret : 0;
		}
		if (sock >= 0) {
			submitted.err = ret;
			send_msg(sock, &submitted);
			sock = -1;
		}
		if (!ret)
			ret = tq_wait(tq, &cqe, RUN_S * 1000);
		if (ret)
			break;
		if (cqe->user_data >> 32 == run && (uint32_t)cqe->user_data < sent) {
			struct wtask *t = &m->t[(uint32_t)cqe->user_data];

			done += !t->seen++;
			t->status = cqe->status;
			t->start_ns = cqe->start_ns;
			t->end_ns = cqe->end_ns;
		} else {
			m->stray++;
		}
		tq_cqe_seen(tq, cqe);
	}
	/* anything more now is a second completion or a stray */
	while (!ret && !tq_peek(tq, &cqe)) {
		if (cqe->user_data >> 32 == run && (uint32_t)cqe->user_data < n)
			m->t[(uint32_t)cqe->user_data].seen++;
		else
			m->stray++;
		tq_cqe_seen(tq, cqe);
	}
	if (ret)
		fprintf(stderr, "tqbench: worker %d: run %u: %s\n", getpid(), run, tq_strerror(ret));
	return ret;
}

/* A worker process: w of r; commands on sock until it closes. */
static void __attribute__((noreturn)) worker_main(const struct run *ru, unsigned int w, int sock)
{
	const struct result *r = ru->r;
	static struct wslot ws[MAX_ROUNDS];
	struct wmsg m = { .kind = MSG_READY };
	unsigned int n = r->N;
	uint32_t run = 0;
	struct tq tq;
	char cmd;

	memset(ws, 0, sizeof(ws));
	m.err = tq_open(&tq, 64, worker_arena(r, w), 0);
	if (m.err) {
		fprintf(stderr, "tqbench: worker %d: tq_open (%zu MiB arena): %s%s\n", getpid(),
			worker_arena(r, w) >> 20, tq_strerror(m.err), m.err != -EFBIG ? "" :
			proc_socket() ? " (tqsubmitd --arena-bytes-max)" :
			" (/sys/module/tqsubmit/parameters/arena_bytes_max)");
		send_msg(sock, &m);
		_exit(1);
	}
	for (unsigned int rd = 0; rd < n && !m.err; rd++) {
		ws[rd].b = &r->slot[rd * r->T + w];
		ws[rd].seed = ru->e->o->seed * 1000 + rd * r->T + w;
		m.err = slot_setup(&tq, &ws[rd], ws, rd);
	}
	if (!m.err)
		slots_fill(ws, n);	/* only slots whose buffers are there */
	send_msg(sock, &m);
	while (!m.err && recv(sock, &cmd, 1, 0) == 1) {
		memset(&m, 0, sizeof(m));
		if (cmd == CMD_GO) {
			m.kind = MSG_REPORT;
			m.err = worker_run(&tq, ws, n, ++run, &m, sock);
		} else {
			m.kind = MSG_READY;
			slots_check(ws, n, &m);
			slots_fill(ws, n);
		}
		send_msg(sock, &m);
	}
	tq_close(&tq);
	_exit(m.err ? 1 : 0);
}

/* Every task completed once with status 0; the makespan of the run in *ms. */
static int run_result(struct run *ru, double *ms)
{
	const struct result *r = ru->r;
	uint64_t first = UINT64_MAX, last = 0;

	for (unsigned int w = 0; w < r->T; w++) {
		const struct wmsg *m = &ru->msg[w];

		if (m->stray) {
			fprintf(stderr, "tqbench: worker %u: %u stray completion(s)\n", w, m->stray);
			return -EPROTO;
		}
		for (unsigned int rd = 0; rd < r->N; rd++) {
			const struct wtask *t = &m->t[rd];

			if (t->seen != 1 || t->status || !t->start_ns || t->end_ns < t->start_ns) {
				fprintf(stderr, "tqbench: worker %u, task %u (%s): %u completion(s), "
					"status %d (%s)\n", w, rd, r->slot[rd * r->T + w].name,
					t->seen, t->status, strerror(-t->status));
				return -EIO;
			}
			first = t->start_ns < first ? t->start_ns : first;
			last = t->end_ns > last ? t->end_ns : last;
		}
	}
	*ms = (last - first) / 1e6;
	return 0;
}

/* Outputs checked: every real task's, none wrong. */
static int check_result(struct run *ru, unsigned int *verified)
{
	unsigned int want = 0, got = 0, wrong = 0;

	for (unsigned int s = 0; s < ru->r->nslots; s++)
		want += !synthetic_task(&ru->r->slot[s]);
	for (unsigned int w = 0; w < ru->r->T; w++) {
		got += ru->msg[w].verified;
		wrong += ru->msg[w].wrong;
	}
	*verified += got;
	if (wrong || got != want) {
		fprintf(stderr, "tqbench: %u of %u outputs wrong, %u verified\n", wrong, want, got);
		return -EIO;
	}
	return 0;
}

/*
 * The daemon's log at @part (a header, then a line per TG or task) onto
 * OUT/@name after the experiment's suite,bench,T,N, as tg.csv's lines
 * begin; the part goes. OUT/@name starts afresh with this tqbench (@fresh).
 */
static void log_merge(const struct run *ru, const char *part, const char *name, bool *fresh)
{
	const struct result *r = ru->r;
	char path[700], line[512];
	FILE *in = fopen(part, "r"), *out;
	bool header = true;

	if (!in)
		return;
	snprintf(path, sizeof(path), "%s/%s", ru->e->o->out, name);
	out = fopen(path, *fresh ? "a" : "w");
	*fresh = true;
	while (out && fgets(line, sizeof(line), in)) {
		if (header && ftell(out) == 0)
			fprintf(out, "suite,bench,T,N,%s", line);
		else if (!header)
			fprintf(out, "%s,%s,%u,%u,%s", r->s->name, r->s->bench[r->bench], r->T, r->N,
				line);
		header = false;
	}
	if (out)
		fclose(out);
	fclose(in);
	unlink(part);
}

/*
 * One run of the workers' tasks. usched is held (SIGSTOP) while the workers
 * submit, so that their tasks are ready at once, as in-process, where
 * tqbench submits every task before usched's loop looks: otherwise the
 * first TG forms from whichever workers' tasks came first, and the mix the
 * policy orders is another one each run.
 */
static int run_held(struct run *ru)
{
	bool held = !kill(ru->d.pid, SIGSTOP);
	int ret;

	ret = command(ru, CMD_GO);
	ret = ret ?: gather(ru, MSG_SUBMITTED, RUN_S);
	if (held)
		kill(ru->d.pid, SIGCONT);
	return ret ?: gather(ru, MSG_REPORT, RUN_S);
}

/* Policy p through the daemon: warm-up, then --runs runs. */
static int policy_procs(struct env *e, struct result *r, int p)
{
	struct run ru = { .e = e, .r = r, .p = p, .worker = worker_main };
	unsigned int runs = e->o->runs > 64 ? 64 : e->o->runs, verified = 0;
	struct mstat a = { 0 }, b = { 0 };
	double v[64];
	bool have_a = false;
	int ret, stop;

	ret = run_start(&ru);
	for (unsigned int k = 0; k <= runs && !ret; k++) {
		double ms;

		ret = run_held(&ru);
		ret = ret ?: run_result(&ru, &ms);
		ret = ret ?: command(&ru, CMD_CHECK);
		ret = ret ?: gather(&ru, MSG_READY, RUN_S);
		ret = ret ?: check_result(&ru, &verified);
		if (!ret && k)
			v[k - 1] = ms;
		/* the counters from here on: the warm-up run is not counted */
		if (!ret && !k)
			have_a = !metrics_now(&ru, &a);
		progress_step(1, policy_names[p]);
	}
	workers_stop(&ru, ret);
	stop = daemon_stop(&ru);
	log_merge(&ru, ru.tglog, "proc-tg.csv", &tg_started);
	log_merge(&ru, ru.tasklog, "proc-tasks.csv", &tasks_started);
	ret = ret ?: stop;
	if (ret)
		return ret;
	r->proc_ms[p] = tq_median(v, runs);
	if (have_a && !metrics_read(ru.prom, &b) && b.tgs > a.tgs) {
		r->proc_tgs[p] = b.tgs - a.tgs;
		r->proc_sched_ns[p] = (b.policy_s - a.policy_s) * 1e9 / r->proc_tgs[p];
		r->proc_refine_ns[p] = (b.refine_s - a.refine_s) * 1e9 / r->proc_tgs[p];
		r->proc_tg_ms[p] = (b.measured_s - a.measured_s) * 1e3 / r->proc_tgs[p];
		/* where the TGs' time went against the model (proc-tg.csv has each TG) */
		fprintf(stderr, "tqbench: process %s: %u TGs after the warm-up, ms predicted/"
			"measured: makespan %.2f/%.2f, HtD %.2f/%.2f, K %.2f/%.2f, DtH %.2f/%.2f\n",
			policy_names[p], r->proc_tgs[p], (b.predicted_s - a.predicted_s) * 1e3,
			(b.measured_s - a.measured_s) * 1e3,
			(b.stage_s[CLX_HTD][0] - a.stage_s[CLX_HTD][0]) * 1e3,
			(b.stage_s[CLX_HTD][1] - a.stage_s[CLX_HTD][1]) * 1e3,
			(b.stage_s[CLX_K][0] - a.stage_s[CLX_K][0]) * 1e3,
			(b.stage_s[CLX_K][1] - a.stage_s[CLX_K][1]) * 1e3,
			(b.stage_s[CLX_DTH][0] - a.stage_s[CLX_DTH][0]) * 1e3,
			(b.stage_s[CLX_DTH][1] - a.stage_s[CLX_DTH][1]) * 1e3);
	}
	fprintf(stderr, "tqbench: process %s: %u runs x %u tasks, each completed once with status "
		"0; %u outputs verified\n", policy_names[p], runs + 1, r->nslots, verified);
	return 0;
}

int run_procs(struct env *e, struct result *r)
{
	int ret = 0;

	if (r->T > MAX_WORKERS || r->N > MAX_ROUNDS)
		return -EINVAL;
	if (r->s->synthetic)
		syn_program(r->s);
	r->pol_proc = true;
	progress_begin("policies (processes)", NPOL * (e->o->runs + 1.0));
	for (int p = 0; p < NPOL && !ret; p++)
		ret = policy_procs(e, r, p);
	progress_end();
	if (ret)
		e->proc_failed++;
	return ret;
}
