// SPDX-License-Identifier: GPL-2.0
/*
 * trace.c - the core's trace (usched.h, usched_trace_start()) in the
 * format of sim/trace.h, the one tqsim --trace writes:
 *
 * - the device's process (TQTRACE_DEVICE_PID): per engine (HtD, each
 *   kernel queue, DtH; one copy track with one copy engine) a track of the
 *   commands as they ran ("VA K", from the profiling timestamps) and beside
 *   it one of the same commands as the model scheduled them when the TG was
 *   launched ("... predicted"); a track of TGs, launch to last command's
 *   end; a track of the policy's decision time per TG.
 * - per owner, in its process (its pid; usched_owner_name()), a track of its
 *   tasks: "task ID KERNEL" from submission to delivery, holding "wait"
 *   (until its TG was formed), its three stages as they ran and "deliver"
 *   (its last command's end to its completion's delivery). ID is its
 *   user_data, or its trace_id (USCHED_TASK_TRACE_ID).
 * - per task a flow arrow: wait -> its TG -> each stage's first command on
 *   its engine -> deliver.
 *
 * The loop thread writes it (tasks are written when delivered, TGs when
 * they end, predictions at launch); trace_lock lets any thread start and
 * stop it meanwhile.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "sim/trace.h"

struct owner_name {
	struct owner_name *next;
	uint64_t owner;
	uint32_t pid, uid;
	char comm[64];		/* escaped for JSON */
};

/* An owner seen in this trace: its track. */
struct tclient {
	struct tclient *next;
	uint64_t owner;
	uint32_t track;
	uint32_t pid;
};

struct trace {
	struct tqtrace *w;
	uint32_t gen;
	/* [stage][kernel queue][predicted]: copies on queue 0 */
	uint32_t engine[USCHED_STAGES][MAX_KQUEUES][2];
	uint32_t tg_track, policy_track;
	uint64_t flows;
	struct tclient *clients;
	struct owner_name self;	/* owners never named: this process */
};

static const char *const stage_name[USCHED_STAGES] = { "HtD", "K", "DtH" };

static unsigned int owner_hash(uint64_t owner)
{
	return (unsigned int)((owner * 0x9e3779b97f4a7c15ull) >> 58) % OWNER_NAME_HASH;
}

static struct owner_name *owner_find(struct usched *u, uint64_t owner)
{
	struct owner_name *n = u->owner_names[owner_hash(owner)];

	while (n && n->owner != owner)
		n = n->next;
	return n;
}

int usched_owner_name(struct usched *u, uint64_t owner, uint32_t pid, uint32_t uid,
		      const char *comm)
{
	struct owner_name **p, *n;
	int ret = 0;

	pthread_mutex_lock(&u->trace_lock);
	for (p = &u->owner_names[owner_hash(owner)]; *p && (*p)->owner != owner; p = &(*p)->next)
		;
	n = *p;
	if (!comm) {
		if (n) {
			*p = n->next;
			free(n);
		}
	} else if (n || (n = calloc(1, sizeof(*n)))) {
		if (!*p)
			*p = n;
		n->owner = owner;
		n->pid = pid;
		n->uid = uid;
		tqtrace_str(n->comm, sizeof(n->comm), comm);
	} else {
		ret = -ENOMEM;
	}
	pthread_mutex_unlock(&u->trace_lock);
	return ret;
}

/* The device's tracks, as tqsim's (tqtrace_engine()). */
static void trace_device(struct usched *u, struct trace *tr)
{
	char name[96], dev[160];

	snprintf(name, sizeof(name), "usched (pid %d): %s", (int)getpid(),
		 tqtrace_str(dev, sizeof(dev), u->st.device));
	tqtrace_process(tr->w, TQTRACE_DEVICE_PID, name, 0);
	for (int s = 0; s < USCHED_STAGES; s++)
		for (unsigned int q = 0; q < u->o.kqueues; q++)
			for (int p = 0; p < 2; p++) {
				int sort = tqtrace_engine(u->dev.dma, s, q, p, name, sizeof(name));

				tr->engine[s][q][p] = TQTRACE_NONE;
				if (s != USCHED_K && q)
					continue;
				tr->engine[s][q][p] = s == USCHED_DTH && u->dev.dma == 1 ?
					tr->engine[USCHED_HTD][0][p] :
					tqtrace_track(tr->w, TQTRACE_DEVICE_PID, name, sort);
			}
	tr->tg_track = tqtrace_track(tr->w, TQTRACE_DEVICE_PID, "TGs", TQTRACE_SORT_TG);
	tr->policy_track = tqtrace_track(tr->w, TQTRACE_DEVICE_PID, "policy",
					 TQTRACE_SORT_POLICY);
}

/* This process, for owners never named. */
static void trace_self(struct trace *tr)
{
	char comm[32] = "?";
	FILE *f = fopen("/proc/self/comm", "re");

	if (f) {
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = 0;
		fclose(f);
	}
	tr->self.pid = (uint32_t)getpid();
	tr->self.uid = (uint32_t)getuid();
	tqtrace_str(tr->self.comm, sizeof(tr->self.comm), comm);
}

int usched_trace_start(struct usched *u, int fd, uint64_t max_bytes)
{
	struct trace *tr;
	FILE *f;
	int ret;

	pthread_mutex_lock(&u->trace_lock);
	ret = -EBUSY;
	if (u->trace)
		goto out_close;
	ret = -ENOMEM;
	tr = calloc(1, sizeof(*tr));
	if (!tr)
		goto out_close;
	f = fdopen(fd, "w");
	if (!f) {
		ret = -errno;
		free(tr);
		goto out_close;
	}
	ret = tqtrace_open(&tr->w, f, max_bytes ? max_bytes : USCHED_TRACE_MAX);
	if (ret) {
		fclose(f);
		free(tr);
		goto out;
	}
	tr->gen = ++u->trace_gen;
	trace_self(tr);
	trace_device(u, tr);
	tqtrace_flush(tr->w);
	u->trace = tr;
	goto out;

out_close:
	close(fd);
out:
	pthread_mutex_unlock(&u->trace_lock);
	return ret;
}

/* Under trace_lock. */
static int trace_close(struct usched *u)
{
	struct trace *tr = u->trace;
	int ret;

	if (!tr)
		return -ENOENT;
	u->trace = NULL;
	ret = tqtrace_close(tr->w);
	while (tr->clients) {
		struct tclient *c = tr->clients;

		tr->clients = c->next;
		free(c);
	}
	free(tr);
	return ret;
}

int usched_trace_stop(struct usched *u)
{
	int ret;

	pthread_mutex_lock(&u->trace_lock);
	ret = trace_close(u);
	pthread_mutex_unlock(&u->trace_lock);
	return ret;
}

/* For usched_stats(). */
void trace_stats(struct usched *u, struct usched_stats *s)
{
	pthread_mutex_lock(&u->trace_lock);
	s->tracing = u->trace;
	s->trace_full = u->trace && tqtrace_full(u->trace->w);
	s->trace_bytes = u->trace ? tqtrace_bytes(u->trace->w) : 0;
	pthread_mutex_unlock(&u->trace_lock);
}

void trace_fini(struct usched *u)
{
	trace_close(u);
	for (unsigned int h = 0; h < OWNER_NAME_HASH; h++)
		while (u->owner_names[h]) {
			struct owner_name *n = u->owner_names[h];

			u->owner_names[h] = n->next;
			free(n);
		}
}

/* The trace on, locked; NULL: none (unlocked). */
static struct trace *trace_lock(struct usched *u)
{
	pthread_mutex_lock(&u->trace_lock);
	if (u->trace)
		return u->trace;
	pthread_mutex_unlock(&u->trace_lock);
	return NULL;
}

static void trace_unlock(struct usched *u)
{
	pthread_mutex_unlock(&u->trace_lock);
}

/* The engine track of a task's stage @s. */
static uint32_t engine_track(const struct trace *tr, const struct task *t, int s, bool pred)
{
	return tr->engine[s][s == USCHED_K ? t->kq : 0][pred];
}

static uint64_t task_id(const struct task *t)
{
	return t->t.flags & USCHED_TASK_TRACE_ID ? t->t.trace_id : t->t.user_data;
}

void trace_tg_launch(struct usched *u, struct tg *tg, struct task *const *tasks)
{
	const struct tqsim_sim_result *res = u->res;
	struct trace *tr = trace_lock(u);
	uint64_t decided = tg->launch_ns + tg->policy_ns;
	char name[128], args[192], kname[80];
	uint32_t tid;

	if (!tr)
		return;
	tg->trace_gen = tr->gen;
	tg->trace_lane = tqtrace_hold(tr->w, tr->tg_track, tg->launch_ns);
	tid = tqtrace_lane_tid(tr->w, tr->tg_track, tg->trace_lane);
	snprintf(args, sizeof(args), "\"tg\": %llu, \"tasks\": %u, \"plan\": \"%s\"",
		 (unsigned long long)tg->seq, tg->n, usched_plan_name(tg->plan));
	snprintf(name, sizeof(name), "policy %s", u->policy->name);
	tqtrace_slice(tr->w, tr->policy_track, name, "policy", tg->launch_ns, decided, args);
	/* u->simtg and u->res hold the TG in formation order, tasks[] (form.c) */
	for (unsigned int i = 0; i < tg->n; i++) {
		struct task *t = tasks[i];
		const struct tqsim_task *st = &u->simtg.task[i];

		t->trace_gen = tr->gen;
		t->trace_flow = ++tr->flows;
		t->trace_decided = decided;
		t->trace_tg_tid = tid;
		tqtrace_flow(tr->w, 't', t->trace_flow, TQTRACE_DEVICE_PID, tid, decided);
		tqtrace_str(kname, sizeof(kname), t->kern->name);
		for (int s = 0; s < USCHED_STAGES; s++)
			for (unsigned int c = st->first[s]; c < st->first[s] + st->n[s]; c++) {
				snprintf(name, sizeof(name), "%s %s%s", kname, stage_name[s],
					 c > st->first[s] ? "+" : "");
				snprintf(args, sizeof(args), "\"task\": \"%llu\", \"owner\": \"%llu\", "
					 "\"cmd\": %u, \"tg\": %llu", (unsigned long long)task_id(t),
					 (unsigned long long)t->t.owner, c - st->first[s],
					 (unsigned long long)tg->seq);
				tqtrace_slice(tr->w, engine_track(tr, t, s, true), name, stage_name[s],
					      tg->launch_ns + (uint64_t)res->start[c],
					      tg->launch_ns + (uint64_t)res->end[c], args);
			}
	}
	trace_unlock(u);
}

void trace_cmd(struct usched *u, const struct task *t, unsigned int e, unsigned int cmd,
	       uint64_t start, uint64_t end)
{
	struct trace *tr = trace_lock(u);
	unsigned int s = t->ev_stage[e];
	char name[128], args[192], kname[80];
	uint32_t tid;

	if (!tr)
		return;
	snprintf(name, sizeof(name), "%s %s%s", tqtrace_str(kname, sizeof(kname), t->kern->name),
		 stage_name[s], cmd ? "+" : "");
	snprintf(args, sizeof(args), "\"task\": \"%llu\", \"owner\": \"%llu\", \"cmd\": %u, "
		 "\"tg\": %llu", (unsigned long long)task_id(t), (unsigned long long)t->t.owner, cmd,
		 (unsigned long long)t->c.tg);
	tid = tqtrace_slice(tr->w, engine_track(tr, t, s, false), name, stage_name[s], start, end,
			    args);
	if (!cmd && t->trace_gen == tr->gen)
		tqtrace_flow(tr->w, 't', t->trace_flow, TQTRACE_DEVICE_PID, tid,
			     start + (end - start) / 2);
	trace_unlock(u);
}

void trace_tg_done(struct usched *u, const struct tg *tg)
{
	struct trace *tr = trace_lock(u);
	uint64_t end = tg->launch_ns + tg->host_ns;
	double measured = 0;
	char name[32], args[256];

	if (!tr)
		return;
	if (tg->last_end > end)
		end = tg->last_end;
	if (tg->first_start && tg->last_end > tg->first_start)
		measured = tg->last_end - tg->first_start;
	snprintf(name, sizeof(name), "TG %llu", (unsigned long long)tg->seq);
	snprintf(args, sizeof(args), "\"tg\": %llu, \"tasks\": %u, \"inflight\": %u, "
		 "\"predicted_ms\": %.6f, \"measured_ms\": %.6f, \"policy_us\": %.3f, "
		 "\"host_us\": %.3f, \"plan\": \"%s\"", (unsigned long long)tg->seq, tg->n,
		 tg->inflight, tg->pred_ns / 1e6, measured / 1e6, tg->policy_ns / 1e3,
		 tg->host_ns / 1e3, usched_plan_name(tg->plan));
	if (tg->trace_gen == tr->gen)
		tqtrace_slice_on(tr->w, tr->tg_track, tg->trace_lane, name, "tg", tg->launch_ns, end,
				 args);
	else
		tqtrace_slice(tr->w, tr->tg_track, name, "tg", tg->launch_ns, end, args);
	trace_unlock(u);
}

/* The track of @owner's tasks in this trace, named at its first task. */
static struct tclient *trace_client(struct usched *u, struct trace *tr, uint64_t owner)
{
	const struct owner_name *n;
	struct tclient *c;
	char name[128];

	for (c = tr->clients; c; c = c->next)
		if (c->owner == owner)
			return c;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	n = owner_find(u, owner);
	if (!n)
		n = &tr->self;
	c->owner = owner;
	c->pid = n->pid;
	snprintf(name, sizeof(name), "%s (uid %u)", n->comm, n->uid);
	tqtrace_process(tr->w, c->pid, name, 1);
	snprintf(name, sizeof(name), "tasks of owner 0x%llx", (unsigned long long)owner);
	c->track = tqtrace_track(tr->w, c->pid, name, 0);
	if (c->track == TQTRACE_NONE) {
		free(c);
		return NULL;
	}
	c->next = tr->clients;
	tr->clients = c;
	return c;
}

static uint64_t clamp(uint64_t v, uint64_t lo, uint64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

void trace_task_done(struct usched *u, const struct task *t, uint64_t now)
{
	const struct usched_completion *c = &t->c;
	struct trace *tr = trace_lock(u);
	uint64_t q = c->queued_ns, formed, end, done;
	bool flow;
	char name[160], args[512], kname[80];
	struct tclient *cl;
	unsigned int lane;
	uint32_t tid;
	int n;

	if (!tr)
		return;
	cl = trace_client(u, tr, c->owner);
	if (!cl)
		goto out;
	/* the host's clock and the device's stamps: keep the parts inside the task */
	done = now > c->end_ns ? now : c->end_ns;
	if (q > done)
		q = done;
	flow = c->tg && t->trace_gen == tr->gen;
	formed = clamp(flow ? t->trace_decided : c->start_ns ? c->start_ns : done, q, done);
	if (c->start_ns && c->start_ns < formed)
		formed = clamp(c->start_ns, q, done);
	end = clamp(c->end_ns ? c->end_ns : formed, formed, done);
	lane = tqtrace_hold(tr->w, cl->track, q);
	snprintf(name, sizeof(name), "task %llu %s", (unsigned long long)task_id(t),
		 tqtrace_str(kname, sizeof(kname), t->kern->name));
	n = snprintf(args, sizeof(args), "\"task\": \"%llu\", \"owner\": \"%llu\", \"tg\": %llu, "
		     "\"status\": %d, \"m\": %llu", (unsigned long long)task_id(t),
		     (unsigned long long)c->owner, (unsigned long long)c->tg, c->status,
		     (unsigned long long)c->m);
	for (int s = 0; s < USCHED_STAGES; s++)
		n += snprintf(args + n, sizeof(args) - n, ", \"pred_%s_us\": %.3f, "
			      "\"busy_%s_us\": %.3f", stage_name[s], c->pred_ns[s] / 1e3,
			      stage_name[s], c->busy_ns[s] / 1e3);
	tid = tqtrace_slice_on(tr->w, cl->track, lane, name, "task", q, done, args);
	/* nested in it, on its lane: wait, the stages as they ran, deliver */
	tqtrace_slice_on(tr->w, cl->track, lane, "wait", "task", q, formed, "");
	for (int s = 0; s < USCHED_STAGES; s++)
		if (c->stage_start[s] && c->stage_end[s])
			tqtrace_slice_on(tr->w, cl->track, lane, stage_name[s], "task",
					 clamp(c->stage_start[s], formed, end),
					 clamp(c->stage_end[s], formed, end), "");
	tqtrace_slice_on(tr->w, cl->track, lane, "deliver", "task", end, done, "");
	if (flow) {
		tqtrace_flow(tr->w, 's', t->trace_flow, cl->pid, tid, q + (formed - q) / 2);
		tqtrace_flow(tr->w, 'f', t->trace_flow, cl->pid, tid, end + (done - end) / 2);
	}
out:
	trace_unlock(u);
}

void trace_flush(struct usched *u)
{
	struct trace *tr = trace_lock(u);

	if (!tr)
		return;
	tqtrace_flush(tr->w);
	trace_unlock(u);
}
