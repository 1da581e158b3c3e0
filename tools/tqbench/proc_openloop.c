// SPDX-License-Identifier: GPL-2.0
/*
 * proc_openloop.c - the open loop and the stream through the daemon
 * (setups proc-POLICY): worker processes that submit each task at its
 * arrival, or keep a depth of tasks in flight, on the daemon of one policy
 * for a setup's points.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tools/tqbench/proc.h"
#include "tq/clock.h"
#include "tq/num.h"

/*
 * The stream with worker processes through the daemon (policy p), on the
 * open loop's workers below: each of --stream-workers processes keeps
 * --stream-depth real tasks in flight for --stream-s seconds, each new one
 * drawn as the in-process stream and the independent workers draw theirs
 * (the same seeds: the same tasks in the same order); counted over the last
 * 90%: tasks per second, and latency from submission to completion as the
 * client sees it. TGs and the policy's share from the daemon's metrics. The
 * engines' busy shares need the commands' profiling, which the daemon
 * keeps: unknown.
 */
int stream_procs(struct env *e, const struct suite *real, int p, struct stream_result *sr)
{
	unsigned int T = e->o->stream_workers, N = e->o->stream_depth;
	double S = e->o->stream_s, *lat = NULL;
	struct olp_shm *sh;
	size_t n = 0;
	int ret;

	memset(sr, 0, sizeof(*sr));
	snprintf(sr->setup, sizeof(sr->setup), "proc-%s", pol_name(p));
	sr->workers = T;
	for (int s = 0; s < CLX_STAGES; s++)
		sr->util[s] = -1;
	sr->device_util = sr->bound_util = -1;
	if (T > MAX_WORKERS || N > OLP_DEPTH_MAX || T < 1 || N < 1)
		return -EINVAL;
	sh = ol_procs_open(e, real, p, T, NULL, NULL);
	if (!sh)
		return -EIO;
	sh->stream = true;
	sh->depth = N;
	sh->seed = e->o->seed;
	sh->from_ns = tq_now_ns() + (uint64_t)(S * 1e8);
	sh->end_ns = sh->from_ns - (uint64_t)(S * 1e8) + (uint64_t)(S * 1e9);
	ret = ol_procs_go(S, &sr->tg_size, &sr->sched_share);
	for (unsigned int w = 0; !ret && w < T; w++)
		sr->tasks += sh->nlat[w];
	lat = ret ? NULL : malloc((sr->tasks + 1) * sizeof(*lat));
	for (unsigned int w = 0; lat && w < T; w++)
		for (uint32_t i = 0; i < sh->nlat[w]; i++)
			lat[n++] = sh->lat[w][i];
	if (lat && n) {
		qsort(lat, n, sizeof(*lat), tq_cmp_double);
		sr->p50_ms = lat[n / 2];
		sr->p99_ms = lat[(size_t)fmin(n - 1, ceil(0.99 * n) - 1)];
	}
	free(lat);
	ret = ol_procs_close(ret != 0) ?: ret;
	if (!ret) {
		sr->secs = 0.9 * S;
		sr->tput = sr->tasks / sr->secs;
		fprintf(stderr, "tqbench: stream %s: %u processes x %u in flight, %llu tasks in "
			"%.1f s, each completed with status 0\n", sr->setup, T, N,
			(unsigned long long)sr->tasks, sr->secs);
	}
	return ret;
}

/*
 * The open loop through the daemon (openloop.c's setups proc-POLICY): P
 * worker processes, each a libtq context whose arena holds every pool task
 * laid out alike (inputs from 0, outputs from out_base, as in tqbench's
 * in-process arena: tasks share host memory, whose contents do not matter
 * to their times). Per point the parent writes each worker's arrivals into
 * memory shared before the fork and says go; a worker submits each task at
 * its arrival, takes completions as they come and stamps each with the time
 * it saw it. The daemon and the workers live for one setup's points.
 */
static struct olp_shm *olp;
static struct run olr;
static struct result olres;
static struct btask olb[MAX_POOL];	/* the pool, laid out */
static uint32_t olp_uid[MAX_WORKERS];	/* each worker's user */
static bool olp_as_uid;			/* olp_uid[] is set */

#define OLP_ENTRIES	512

/* A pool task's kernel in this context: registered once per kernels/ task. */
static int olp_kernel(struct tq *tq, struct wslot *ws, const struct wslot *prev, unsigned int n)
{
	int ret = 0;

	for (unsigned int i = 0; i < n && !ws->kern; i++) {
		if (prev[i].b->tk == ws->b->tk) {
			ws->prog = prev[i].prog;
			ws->kern = prev[i].kern;
		}
	}
	if (!ws->kern) {
		ret = tq_register_builtin(tq, ws->b->tk->name, &ws->prog);
		ret = ret ?: tq_lookup_kernel(tq, ws->prog, ws->b->tk->kernel, &ws->kern);
	}
	if (ret)
		fprintf(stderr, "tqbench: worker %d: registering %s: %s\n", getpid(),
			ws->b->name, tq_strerror(ret));
	return ret;
}

/* One point: worker w's arrivals submitted at their times, each completion stamped. */
static int olp_point(struct tq *tq, const struct wslot *ws, unsigned int w, struct wmsg *m)
{
	unsigned int n = olp->narr[w], k = 0, got = 0;
	uint64_t t0 = olp->t0, idle_since = tq_now_ns();
	int ret = 0;

	while (!ret && got < n) {
		uint64_t now = tq_now_ns(), next;
		struct pollfd pfd = { .fd = tq->event_fd, .events = POLLIN };
		struct timespec ts;
		struct tq_cqe *cqe;
		bool queued = false;

		for (; k < n && t0 + olp->at[w][k] <= now && !ret; k++) {
			struct tq_desc *d = tq_get_desc(tq);

			if (!d)		/* the SQ is full: this one on the next pass */
				break;
			ret = slot_prep(&ws[olp->pool[w][k]], d);
			ret = ret ?: tq_desc_set_prio(d, olp->prio[w]);
			ret = ret ?: tq_desc_set_deadline(d, olp->deadline_us[w][k]);
			tq_desc_set_data(d, k);
			queued = true;
		}
		if (queued && !ret) {
			ret = tq_submit(tq);
			ret = ret < 0 ? ret : 0;
		}
		while (!ret && !tq_peek(tq, &cqe)) {
			uint64_t i = cqe->user_data;

			if (i >= n || olp->done[w][i]) {
				m->stray++;
			} else {
				olp->done[w][i] = tq_now_ns();
				olp->status[w][i] = cqe->status;
				olp->flags[w][i] = cqe->flags;
				got++;
				idle_since = olp->done[w][i];
			}
			tq_cqe_seen(tq, cqe);
		}
		if (ret || got == n)
			break;
		now = tq_now_ns();
		if (now - idle_since > (uint64_t)RUN_S * 1000000000) {
			ret = -ETIMEDOUT;
			break;
		}
		/* until the next arrival (soon when the SQ was full) or a completion */
		next = k < n ? t0 + olp->at[w][k] : now + 100000000;
		next = next > now ? next : now + 100000;
		ts = (struct timespec){ (time_t)((next - now) / 1000000000),
					(long)((next - now) % 1000000000) };
		if (ppoll(&pfd, 1, &ts, NULL) > 0) {
			uint64_t v;

			if (read(tq->event_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
				ret = -errno;
		}
	}
	m->all = got;
	if (ret)
		fprintf(stderr, "tqbench: worker %d: open loop: %s\n", getpid(), tq_strerror(ret));
	return ret;
}

/* The stream: depth tasks in flight until end_ns, each new one drawn from the pool. */
static int olp_stream(struct tq *tq, const struct wslot *ws, const struct suite *s,
		      unsigned int w, struct wmsg *m)
{
	uint64_t rng = olp->seed + w, sub[OLP_DEPTH_MAX];
	bool busy[OLP_DEPTH_MAX] = { false };
	unsigned int inflight = 0;
	struct tq_cqe *cqe;
	int ret = 0;

	while (!ret) {
		uint64_t now = tq_now_ns();

		for (unsigned int d = 0; d < olp->depth && now < olp->end_ns && !ret; d++) {
			struct tq_desc *desc;

			if (busy[d])
				continue;
			desc = tq_get_desc(tq);
			if (!desc)
				return -EBUSY;
			ret = slot_prep(&ws[stream_draw(s, &rng)], desc);
			tq_desc_set_data(desc, d);
			busy[d] = true;
			sub[d] = now;
			inflight++;
		}
		if (!ret) {
			ret = tq_submit(tq);
			ret = ret < 0 ? ret : 0;
		}
		if (ret || !inflight)
			break;
		ret = tq_wait(tq, &cqe, RUN_S * 1000);
		while (!ret) {
			unsigned int d = cqe->user_data;
			uint64_t t = tq_now_ns();

			if (d >= olp->depth || !busy[d]) {
				m->stray++;
			} else if (cqe->status) {
				fprintf(stderr, "tqbench: worker %d: stream task: %s\n", getpid(),
					tq_strerror(cqe->status));
				ret = -EIO;
			} else {
				busy[d] = false;
				inflight--;
				m->all++;
				if (t >= olp->from_ns && t <= olp->end_ns && olp->nlat[w] < OLP_MAX)
					olp->lat[w][olp->nlat[w]++] = (t - sub[d]) / 1e6;
			}
			tq_cqe_seen(tq, cqe);
			if (tq_peek(tq, &cqe))
				break;
		}
	}
	if (ret)
		fprintf(stderr, "tqbench: worker %d: stream: %s\n", getpid(), tq_strerror(ret));
	return ret;
}

static void __attribute__((noreturn)) olp_worker_main(const struct run *ru, unsigned int w,
			  int sock)
{
	const struct suite *s = ru->r->s;
	const struct env *e = ru->e;
	static struct wslot ws[MAX_POOL];
	struct wmsg m = { .kind = MSG_READY };
	uint64_t base_off = 0;
	uint32_t *base = NULL;
	struct tq tq;
	char cmd;

	memset(ws, 0, sizeof(ws));
	/* another user's client: its uid and gid (a change of credentials clears PDEATHSIG) */
	if (olp_as_uid && (setgroups(0, NULL) || setresgid(olp_uid[w], olp_uid[w], olp_uid[w]) ||
			   setresuid(olp_uid[w], olp_uid[w], olp_uid[w]) ||
			   prctl(PR_SET_PDEATHSIG, SIGKILL))) {
		m.err = -errno;
		fprintf(stderr, "tqbench: worker %d: uid %u: %s\n", getpid(), olp_uid[w],
			strerror(errno));
		send_msg(sock, &m);
		_exit(1);
	}
	m.err = tq_open(&tq, OLP_ENTRIES, e->arena_len + (1 << 20), 0);
	if (m.err) {
		fprintf(stderr, "tqbench: worker %d: tq_open (%zu MiB arena): %s\n", getpid(),
			e->arena_len >> 20, tq_strerror(m.err));
		send_msg(sock, &m);
		_exit(1);
	}
	m.err = tq_buf_alloc(&tq, e->arena_len, (void **)&base, &base_off);
	/* a benign pattern, as the in-process arena's */
	for (size_t i = 0; !m.err && i < e->arena_len / 4; i++)
		base[i] = 0x3f000000;
	for (unsigned int i = 0; i < s->npool && !m.err; i++) {
		ws[i].b = &olb[i];
		m.err = olp_kernel(&tq, &ws[i], ws, i);
		for (unsigned int j = 0; j < olb[i].l.nbufs && !m.err; j++) {
			if (olb[i].dir[j] == BT_SCRATCH)
				continue;
			ws[i].buf[j] = (char *)base + olb[i].off[j];
			ws[i].off[j] = base_off + olb[i].off[j];
		}
	}
	send_msg(sock, &m);
	while (!m.err && recv(sock, &cmd, 1, 0) == 1) {
		memset(&m, 0, sizeof(m));
		m.kind = MSG_REPORT;
		m.err = olp->stream ? olp_stream(&tq, ws, s, w, &m) : olp_point(&tq, ws, w, &m);
		send_msg(sock, &m);
	}
	tq_close(&tq);
	_exit(m.err ? 1 : 0);
}

struct olp_shm *ol_procs_open(struct env *e, const struct suite *s, int p, unsigned int P,
			      const uint32_t *uid, const char *conf)
{
	int ret;

	if (P < 1 || P > MAX_WORKERS || s->npool > MAX_POOL)
		return NULL;
	olp_as_uid = uid != NULL;
	for (unsigned int w = 0; uid && w < P; w++)
		olp_uid[w] = uid[w];
	olp = mmap(NULL, sizeof(*olp), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (olp == MAP_FAILED) {
		olp = NULL;
		return NULL;
	}
	for (unsigned int i = 0; i < s->npool; i++) {
		olb[i] = s->pool[i];
		btask_layout(&olb[i], e->out_base);
	}
	memset(&olres, 0, sizeof(olres));
	olres.s = s;
	olres.T = P;
	for (unsigned int i = 0; i < s->nbench; i++)
		if (s->pct[i] == 50)
			olres.bench = i;
	olr = (struct run){ .e = e, .r = &olres, .p = p, .openloop = true, .conf = conf,
			    .worker = olp_worker_main };
	ret = run_start(&olr);
	if (ret) {
		ol_procs_close(true);
		return NULL;
	}
	return olp;
}

int ol_procs_go(double secs, double *tg_size, double *sched_share)
{
	struct mstat a = { 0 }, b = { 0 };
	bool have_a = !metrics_now(&olr, &a);
	uint32_t all = 0;
	int ret;

	ret = command(&olr, CMD_GO);
	ret = ret ?: gather(&olr, MSG_REPORT, (int)secs + RUN_S);
	for (unsigned int w = 0; !ret && w < olres.T; w++) {
		if (olr.msg[w].stray) {
			fprintf(stderr, "tqbench: open loop worker %u: %u stray completion(s)\n", w,
				olr.msg[w].stray);
			ret = -EPROTO;
		}
		all += olr.msg[w].all;
	}
	*tg_size = *sched_share = 0;
	if (!ret && have_a && !metrics_now(&olr, &b) && b.tgs > a.tgs) {
		*tg_size = all / (b.tgs - a.tgs);
		if (b.measured_s > a.measured_s)
			*sched_share = (b.policy_s - a.policy_s) / (b.measured_s - a.measured_s);
	}
	return ret;
}

/* Each of n uids' device time (all stages) and tasks completed ok, from the daemon's metrics. */
static int uid_metrics(unsigned int n, const uint32_t *uid, double *engine_s, double *tasks)
{
	struct mstat m;
	char line[512];
	FILE *f;
	int ret = metrics_now(&olr, &m);

	if (ret)
		return ret;
	f = fopen(olr.prom, "r");
	if (!f)
		return -errno;
	for (unsigned int i = 0; i < n; i++)
		engine_s[i] = tasks[i] = 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned int u;
		char stage[8];
		double v;

		for (unsigned int i = 0; i < n; i++) {
			if (sscanf(line, "tq_client_engine_seconds_total{uid=\"%u\",stage=\"%7[a-z]\"} %lf",
				   &u, stage, &v) == 3 && u == uid[i])
				engine_s[i] += v;
			if (sscanf(line, "tq_client_tasks_total{uid=\"%u\",status=\"ok\"} %lf",
				   &u, &v) == 2 && u == uid[i])
				tasks[i] += v;
		}
	}
	fclose(f);
	return 0;
}

static void sleep_until_ns(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000), (long)(ns % 1000000000) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

int ol_procs_stream_uids(unsigned int n, const uint32_t *uid, double *engine_s, double *tasks)
{
	double e0[MAX_WORKERS], t0[MAX_WORKERS];
	int ret;

	if (!olp || !olp->stream || n > MAX_WORKERS)
		return -EINVAL;
	ret = command(&olr, CMD_GO);
	if (!ret) {
		/* the window's counters: taken while every worker still keeps its depth */
		sleep_until_ns(olp->from_ns);
		ret = uid_metrics(n, uid, e0, t0);
		sleep_until_ns(olp->end_ns);
		ret = ret ?: uid_metrics(n, uid, engine_s, tasks);
		for (unsigned int i = 0; !ret && i < n; i++) {
			engine_s[i] -= e0[i];
			tasks[i] -= t0[i];
		}
		/* the workers' reports whatever happened: they finish what is in flight */
		ret = gather(&olr, MSG_REPORT, (int)((olp->end_ns - olp->from_ns) / 1e9) + RUN_S) ?:
		      ret;
	}
	return ret;
}

int ol_procs_close(bool failed)
{
	int ret;

	if (!olp)
		return 0;
	workers_stop(&olr, failed);
	ret = daemon_stop(&olr);
	munmap(olp, sizeof(*olp));
	olp = NULL;
	if (ret || failed)
		olr.e->proc_failed++;
	return ret;
}
