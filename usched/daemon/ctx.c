// SPDX-License-Identifier: GPL-2.0
/*
 * ctx.c - the client contexts usched serves, and the translation of
 * their descriptors into the core's calls.
 *
 * A context lives from its TQ_EV_OPEN to the TQ_COMPL_F_RELEASE usched
 * writes once the context is closed and nothing of it is in flight. Its
 * arena is mapped from the scheduler fd and registered with the core once.
 * Its program and kernel ids are its own: a client id is an index into the
 * context's table plus one, which names the core's id, so one context cannot
 * use another's programs by guessing numbers. A task's core owner is its
 * context's pid and id (ctx_owner()) and its user_data its struct dtask,
 * which holds the module's tag, so a core completion maps straight back to
 * a completion record.
 *
 * Chains (TQ_DESC_F_AFTER; usched attaches with TQ_ATTACH_F_CHAINS): a
 * successor whose predecessor is the last task this context gave the core,
 * still in flight, goes to the core USCHED_TASK_ORDERED | LINKED, so that TG
 * formation orders it as an in-process ORDERED task, and a failed
 * predecessor cancels it there. A successor of another task still in
 * flight (a predecessor further back, or one held itself) is held here
 * until that task ends, then submitted, or completed -ECANCELED if it
 * failed. A predecessor the server called live may have ended here since:
 * the context's links (one per seq, the SQ's entries of them) say how.
 *
 * Limits (usched.conf, per user and group): a context's limits are its
 * uid's, resolved at its first context and cached (struct duser), which
 * also holds what all the contexts of that uid have registered, for the
 * per-user quotas. A descriptor over a limit completes with the uapi's
 * status for it (-E2BIG, -EDQUOT, -EPERM, -ETIME) and counts in
 * dstats.refused, and in its context's uid's and cgroup's accounting
 * (metrics.c, resolved at the open); nothing of it is copied or kept.
 *
 * Isolation: OpenCL C source could read any device memory of the context
 * it runs in. A context of a user without allow-source but with
 * isolate-source has its arena and all its programs, built-ins too, in the
 * core's isolation domain of its uid (an OpenCL context of that uid's own,
 * shared by its contexts, closed with the last of them; core.c, 9), and
 * its source is accepted there under every other limit. A context keeps
 * the domain it opened in: a SIGHUP that changes the settings applies to
 * the contexts opened after it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "daemon.h"
#include "kernels/cl/clu.h"

#define CMD_LOG_BURST	10	/* device errors logged a second at most (cmd_failed()) */

/*
 * Queue a completion record; it goes out with the loop's next write
 * (loop.c), which copies the queue into d->wbuf: both grow together.
 */
static void queue_record(struct daemon *d, const struct tq_completion *c)
{
	if (d->nout == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 256;
		struct tq_completion *o = realloc(d->out, cap * sizeof(*o));
		struct tq_completion *w = realloc(d->wbuf, cap * sizeof(*w));

		if (o)
			d->out = o;
		if (w)
			d->wbuf = w;
		if (!o || !w) {
			/* Not taken: the module re-delivers it to our successor. */
			err("out of memory for completions; ctx %u tag %llx dropped", c->ctx_id,
			    (unsigned long long)c->tag);
			return;
		}
		d->cap = cap;
	}
	d->out[d->nout++] = *c;
}

void complete_task(struct daemon *d, uint32_t ctx, uint64_t tag, int status, uint32_t flags,
		   uint64_t result, uint64_t start_ns, uint64_t end_ns)
{
	struct tq_completion c = {
		.ctx_id = ctx,
		.tag = tag,
		.flags = flags,
		.status = status < -4095 ? -EIO : status,
		.result = result,
		.start_ns = start_ns,
		.end_ns = end_ns,
	};

	queue_record(d, &c);
}

void release_ctx(struct daemon *d, uint32_t ctx)
{
	struct tq_completion c = { .ctx_id = ctx, .flags = TQ_COMPL_F_RELEASE };

	queue_record(d, &c);
}

struct dctx *ctx_find(struct daemon *d, uint32_t id)
{
	struct dctx *c;

	for (c = d->ctx[id % DCTX_HASH]; c; c = c->next)
		if (c->id == id)
			return c;
	return NULL;
}

uint32_t ctx_prog_add(struct dctx *c, bool builtin, const char *text, const char *opts)
{
	struct dprog *p = realloc(c->progs, (c->nprogs + 1) * sizeof(*p));

	if (!p)
		return 0;
	c->progs = p;
	p += c->nprogs;
	*p = (struct dprog){ .builtin = builtin, .text = strdup(text),
			     .opts = opts ? strdup(opts) : NULL };
	if (!p->text || (opts && !p->opts)) {
		free(p->text);
		free(p->opts);
		return 0;
	}
	return ++c->nprogs;
}

/* The name of the core's kernel @core as the context registered it, or NULL. */
static const char *ctx_kern_name(const struct dctx *c, uint32_t core)
{
	for (uint32_t i = 0; i < c->nkerns; i++)
		if (c->kerns[i].core == core)
			return c->kerns[i].name;
	return NULL;
}

uint32_t ctx_kern_add(struct dctx *c, uint32_t prog, const char *name)
{
	struct dkern *k = realloc(c->kerns, (c->nkerns + 1) * sizeof(*k));

	if (!k)
		return 0;
	c->kerns = k;
	k += c->nkerns;
	*k = (struct dkern){ .prog = prog, .name = strdup(name) };
	if (!k->name)
		return 0;
	return ++c->nkerns;
}

int ctx_restore(struct daemon *d, struct dctx *c)
{
	struct state_rec r;
	size_t pos = 0;
	int found = 0;

	while (state_next(d, &pos, c, &r)) {
		char *text = strndup(r.text, r.len);
		char *opts = r.opts_len ? strndup(r.opts, r.opts_len) : NULL;

		if (text && (r.prog ? ctx_prog_add(c, r.arg, text, opts) :
			     ctx_kern_add(c, r.arg, text)))
			found = 1;
		free(text);
		free(opts);
	}
	return found;
}

#define NAME_MAX_LEN	63	/* a kernel's or built-in's name: the core's limit */

size_t text_len(const char *p, size_t len, size_t max)
{
	return strnlen(p, max && max < len ? max + 1 : len);
}

/*
 * Text from the arena, which the client may still be writing: its length
 * measured first, scanning no more than max + 1 bytes (0: no limit), then
 * copied and ended. NULL with *status -E2BIG over max, -ENOMEM.
 */
static char *arena_text(struct dctx *c, const struct tq_buf *b, size_t max, int *status)
{
	const char *p = (const char *)c->arena + b->offset;
	size_t n = text_len(p, b->len, max);
	char *t;

	if (max && n > max) {
		*status = -E2BIG;
		return NULL;
	}
	t = strndup(p, n);
	*status = t ? 0 : -ENOMEM;
	return t;
}

int limit_work(const struct dlimits *l, unsigned int dim, const uint64_t *global,
	       const uint32_t *local, enum dlim *which)
{
	uint64_t items = 1, groups = 1;
	bool over = false;

	for (unsigned int i = 0; i < dim; i++)
		over |= __builtin_mul_overflow(items, global[i], &items);
	if (l->v[DLIM_WORK_ITEMS] && (over || items > l->v[DLIM_WORK_ITEMS])) {
		*which = DLIM_WORK_ITEMS;
		return -E2BIG;
	}
	/* Without local sizes the driver chooses, as few groups as it can run well. */
	if (!local || !l->v[DLIM_WORK_GROUPS])
		return 0;
	over = false;
	for (unsigned int i = 0; i < dim; i++) {
		uint64_t n = local[i] ? global[i] / local[i] + !!(global[i] % local[i]) : global[i];

		over |= __builtin_mul_overflow(groups, n, &groups);
	}
	if (over || groups > l->v[DLIM_WORK_GROUPS]) {
		*which = DLIM_WORK_GROUPS;
		return -E2BIG;
	}
	return 0;
}

struct duser *user_get(struct daemon *d, uint32_t uid)
{
	struct duser **head = &d->users[uid % DUSER_HASH], *u;

	for (u = *head; u; u = u->next)
		if (u->uid == uid)
			return u;
	u = calloc(1, sizeof(*u));
	if (!u)
		return NULL;
	u->uid = uid;
	dconf_user_limits(&d->conf, uid, &u->lim);
	u->next = *head;
	*head = u;
	d->st.users++;
	dbg("uid %u: source %s, %llu programs, %llu kernels, %llu arena bytes", uid,
	    u->lim.v[DLIM_ALLOW_SOURCE] ? "allowed" :
	    u->lim.v[DLIM_ISOLATE_SOURCE] ? "isolated" : "refused",
	    (unsigned long long)u->lim.v[DLIM_USER_PROGRAMS],
	    (unsigned long long)u->lim.v[DLIM_USER_KERNELS],
	    (unsigned long long)u->lim.v[DLIM_USER_ARENA]);
	return u;
}

void users_reload(struct daemon *d, struct dconf *from)
{
	dconf_take_limits(&d->conf, from);
	for (unsigned int h = 0; h < DUSER_HASH; h++)
		for (struct duser *u = d->users[h]; u; u = u->next)
			dconf_user_limits(&d->conf, u->uid, &u->lim);
	/* The workers read it; build-jobs, the number of workers, takes a restart. */
	pthread_mutex_lock(&d->blk);
	d->conf.user_build_jobs = from->user_build_jobs;
	pthread_mutex_unlock(&d->blk);
}

void users_free(struct daemon *d)
{
	for (unsigned int h = 0; h < DUSER_HASH; h++) {
		while (d->users[h]) {
			struct duser *u = d->users[h];

			d->users[h] = u->next;
			free(u);
		}
	}
}

/* A descriptor or a context of @c over limit i: count it. */
static void refused(struct daemon *d, struct dctx *c, enum dlim i)
{
	d->st.refused[i]++;
	for (int k = 0; c && k < DACCT_KINDS; k++)
		c->acct[k]->refused++;
}

/*
 * The core's domain of a context of user @u: the shared one, or without
 * allow-source but with isolate-source its uid's own (uid + 1: root's too
 * is not the shared one).
 */
static uint64_t ctx_domain(const struct duser *u)
{
	if (u->lim.v[DLIM_ALLOW_SOURCE] || !u->lim.v[DLIM_ISOLATE_SOURCE])
		return USCHED_SHARED;
	return (uint64_t)u->uid + 1;
}

/* After a restart: build what the context registered with our predecessor. */
static void ctx_rebuild(struct daemon *d, struct dctx *c)
{
	bool crashed;
	char *log = NULL;
	uint32_t i;
	int ret;

	for (i = 0; i < c->nprogs; i++) {
		struct dprog *p = &c->progs[i];

		if (!p->text)
			continue;
		if (p->builtin)
			ret = build_builtin(d, c->domain, p->text, &p->core, &log, &crashed, NULL,
					    NULL);
		else	/* under the same limits as any build, in a child */
			ret = build_source(d, c->domain, p->text, p->opts,
					   c->user->lim.v[DLIM_BUILD_TIME],
					   c->user->lim.v[DLIM_BUILD_MEMORY], &p->core, &log,
					   &crashed, NULL, NULL);
		free(log);
		log = NULL;
		if (ret) {
			warn("context %u: program %u no longer builds: %s", c->id, i + 1,
			     strerror(-ret));
			p->core = 0;
		}
	}
	for (i = 0; i < c->nkerns; i++) {
		struct dkern *k = &c->kerns[i];
		struct dprog *p = k->prog && k->prog <= c->nprogs ? &c->progs[k->prog - 1] : NULL;

		if (p && p->core && k->name && usched_kernel_get(d->u, p->core, k->name, &k->core))
			k->core = 0;
	}
	info("context %u (pid %u): restored %u programs, %u kernels", c->id, c->pid, c->nprogs,
	     c->nkerns);
}

/* What the core's trace calls the context: its process's pid, uid and command name. */
static void ctx_name(struct daemon *d, const struct dctx *c)
{
	char path[32], comm[32] = "?";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/comm", c->pid);
	f = fopen(path, "re");
	if (f) {
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = 0;
		fclose(f);
	}
	if (usched_owner_name(d->u, ctx_owner(c), c->pid, c->uid, comm))
		dbg("context %u: no memory for its name in the trace", c->id);
}

void ctx_open(struct daemon *d, const struct tq_event *ev, int arena_fd)
{
	const struct tq_ev_open *o = &ev->open;
	const struct dlimits *lim;
	struct dctx *c;
	void *arena;
	int ret;

	if (ctx_find(d, ev->ctx_id)) {
		warn("context %u opened twice; ignored", ev->ctx_id);
		return;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		err("context %u: out of memory; its tasks will fail", ev->ctx_id);
		return;
	}
	c->id = ev->ctx_id;
	c->pid = ev->pid;
	c->uid = ev->uid;
	metrics_acct_open(&d->st, c->acct, c->uid, c->pid);
	ctx_name(d, c);
	c->next = d->ctx[c->id % DCTX_HASH];
	d->ctx[c->id % DCTX_HASH] = c;
	d->st.contexts++;

	c->prio = o->prio ? o->prio : TQ_PRIO_NORMAL;
	c->share = ctx_share(d->conf.share_by, c->uid, c->pid);
	c->user = user_get(d, c->uid);
	if (!c->user) {
		err("context %u: out of memory; its tasks will fail", c->id);
		return;
	}
	lim = &c->user->lim;
	ret = usched_share_set(d->u, c->share, lim->v[DLIM_SHARE]);
	if (ret)
		warn("context %u (uid %u): share %llu: %s", c->id, c->uid,
		     (unsigned long long)lim->v[DLIM_SHARE], strerror(-ret));
	if (lim->v[DLIM_CTX_ARENA] && o->arena_bytes > lim->v[DLIM_CTX_ARENA]) {
		c->refused = -EDQUOT;
		refused(d, c, DLIM_CTX_ARENA);
		warn("context %u (pid %u uid %u): arena of %llu bytes over context-arena %llu; "
		     "its tasks will fail with EDQUOT", c->id, c->pid, c->uid,
		     (unsigned long long)o->arena_bytes,
		     (unsigned long long)lim->v[DLIM_CTX_ARENA]);
		return;
	}
	if (lim->v[DLIM_USER_ARENA] && c->user->arena + o->arena_bytes > lim->v[DLIM_USER_ARENA]) {
		c->refused = -EDQUOT;
		refused(d, c, DLIM_USER_ARENA);
		warn("context %u (pid %u uid %u): arena of %llu bytes takes uid %u past user-arena "
		     "%llu (%llu in use); its tasks will fail with EDQUOT", c->id, c->pid, c->uid,
		     (unsigned long long)o->arena_bytes, c->uid,
		     (unsigned long long)lim->v[DLIM_USER_ARENA],
		     (unsigned long long)c->user->arena);
		return;
	}

	/* the module's arena is at its offset of our fd; tqsubmitd's a memfd of its own */
	if (d->transport == TQT_SOCKET && arena_fd < 0) {
		err("context %u: opened without its arena's fd", c->id);
		return;
	}
	arena = mmap(NULL, o->arena_bytes, PROT_READ | PROT_WRITE, MAP_SHARED,
		     arena_fd >= 0 ? arena_fd : d->fd, o->arena_offset);
	if (arena == MAP_FAILED) {
		err("context %u: cannot map its arena: %m", c->id);
		return;
	}
	c->domain = ctx_domain(c->user);
	ret = usched_region_add(d->u, c->domain, arena, o->arena_bytes, &c->region);
	if (ret) {
		err("context %u: cannot register its arena: %s", c->id, strerror(-ret));
		munmap(arena, o->arena_bytes);
		return;
	}
	if (c->domain != USCHED_SHARED && !c->user->said_isolated) {
		info("uid %u: its source programs run in a context of their own", c->uid);
		c->user->said_isolated = true;
	}
	c->arena = arena;
	c->arena_bytes = o->arena_bytes;
	c->nlinks = o->sq_entries && !(o->sq_entries & (o->sq_entries - 1)) ? o->sq_entries : 0;
	c->links = c->nlinks ? calloc(c->nlinks, sizeof(*c->links)) : NULL;
	c->user->arena += c->arena_bytes;
	dbg("context %u open: pid %u uid %u arena %llu bytes", c->id, c->pid, c->uid,
	    (unsigned long long)c->arena_bytes);
	if (ctx_restore(d, c) > 0) {
		/* Registered under our predecessor's limits: kept, and counted. */
		c->user->programs += c->nprogs;
		c->user->kernels += c->nkerns;
		ctx_rebuild(d, c);
	}
}

void ctx_free(struct dctx *c)
{
	for (uint32_t i = 0; i < c->nprogs; i++) {
		free(c->progs[i].text);
		free(c->progs[i].opts);
	}
	for (uint32_t i = 0; i < c->nkerns; i++)
		free(c->kerns[i].name);
	free(c->progs);
	free(c->kerns);
	free(c->links);
	if (c->arena)
		munmap(c->arena, c->arena_bytes);
	free(c);
}

/* Nothing of a closed context is left in flight: let it go. */
static void ctx_release(struct daemon *d, struct dctx *c)
{
	struct dctx **pp;

	for (pp = &d->ctx[c->id % DCTX_HASH]; *pp != c; pp = &(*pp)->next)
		;
	*pp = c->next;
	for (uint32_t i = 0; i < c->nprogs; i++)
		if (c->progs[i].core)
			usched_prog_put(d->u, c->progs[i].core);
	if (c->arena)
		usched_region_del(d->u, c->region);
	if (c->user) {
		c->user->programs -= c->nprogs;
		c->user->kernels -= c->nkerns;
		if (c->arena)
			c->user->arena -= c->arena_bytes;
	}
	release_ctx(d, c->id);
	usched_owner_name(d->u, ctx_owner(c), 0, 0, NULL);
	d->st.contexts--;
	dbg("context %u released", c->id);
	ctx_free(c);
	state_compact(d);
}

void ctx_free_all(struct daemon *d)
{
	for (unsigned int h = 0; h < DCTX_HASH; h++) {
		while (d->ctx[h]) {
			struct dctx *c = d->ctx[h];

			d->ctx[h] = c->next;
			ctx_free(c);
		}
	}
	users_free(d);
}

/* One of the context's tasks or builds is done. */
static void ctx_put(struct daemon *d, struct dctx *c)
{
	c->inflight--;
	d->held--;
	if (c->closing && !c->inflight)
		ctx_release(d, c);
}

void ctx_close(struct daemon *d, const struct tq_event *ev)
{
	struct dctx *c = ctx_find(d, ev->ctx_id);

	if (!c) {
		/* Never known (out of memory at open): release it all the same. */
		release_ctx(d, ev->ctx_id);
		return;
	}
	dbg("context %u closed with %u in flight", c->id, c->inflight);
	c->closing = true;
	/* Its waiting tasks come back from the core as cancelled. */
	usched_cancel(d->u, ctx_owner(c));
	if (!c->inflight)
		ctx_release(d, c);
}

static void reject(struct daemon *d, const struct tq_event *ev, int status)
{
	uint64_t now = tq_now_ns();

	d->st.rejected++;
	dbg("context %u: task %llx rejected: %s", ev->ctx_id, (unsigned long long)ev->tag,
	    strerror(-status));
	complete_task(d, ev->ctx_id, ev->tag, status, 0, 0, now, now);
}

static void task_program(struct daemon *d, struct dctx *c, const struct tq_event *ev)
{
	const struct tq_desc *t = &ev->task;
	const struct dlimits *lim = &c->user->lim;
	bool builtin = t->flags & TQ_DESC_F_BUILTIN;
	struct dbuild *b;
	int status;

	if (!builtin && !lim->v[DLIM_ALLOW_SOURCE] && c->domain == USCHED_SHARED) {
		refused(d, c, DLIM_ALLOW_SOURCE);
		if (!c->user->said_refused)
			info("uid %u: OpenCL C source refused: allow-source = no, isolate-source = "
			     "no (said once a uid)", c->uid);
		c->user->said_refused = true;
		return reject(d, ev, -EPERM);
	}
	if (lim->v[DLIM_CTX_PROGRAMS] && c->nprogs + c->building >= lim->v[DLIM_CTX_PROGRAMS]) {
		refused(d, c, DLIM_CTX_PROGRAMS);
		return reject(d, ev, -EDQUOT);
	}
	if (lim->v[DLIM_USER_PROGRAMS] && c->user->programs >= lim->v[DLIM_USER_PROGRAMS]) {
		refused(d, c, DLIM_USER_PROGRAMS);
		return reject(d, ev, -EDQUOT);
	}
	b = calloc(1, sizeof(*b));
	if (!b)
		return reject(d, ev, -ENOMEM);
	b->ctx = c->id;
	b->domain = c->domain;
	b->user = c->user;
	b->tag = ev->tag;
	b->builtin = builtin;
	b->time_limit_ns = lim->v[DLIM_BUILD_TIME];
	b->memory_limit = lim->v[DLIM_BUILD_MEMORY];
	b->log_off = t->bufs[0].offset;
	b->log_len = t->bufs[0].len;
	b->text = arena_text(c, &t->bufs[0], builtin ? NAME_MAX_LEN : lim->v[DLIM_SOURCE],
			     &status);
	if (!b->text) {
		build_free(b);
		if (status == -E2BIG && !builtin)
			refused(d, c, DLIM_SOURCE);
		/* A built-in's name longer than any is no built-in's. */
		return reject(d, ev, status == -E2BIG && builtin ? -ENOPKG : status);
	}
	if (t->nr_bufs > 1) {
		b->opts = arena_text(c, &t->bufs[1], lim->v[DLIM_OPTIONS], &status);
		if (!b->opts) {
			build_free(b);
			if (status == -E2BIG)
				refused(d, c, DLIM_OPTIONS);
			return reject(d, ev, status);
		}
	}
	if (b->opts && !*b->opts) {	/* all NULs: no options */
		free(b->opts);
		b->opts = NULL;
	}
	c->inflight++;
	c->building++;
	c->user->programs++;
	d->held++;
	build_queue(d, b);
}

void ctx_build_done(struct daemon *d, struct dbuild *b)
{
	struct dctx *c = ctx_find(d, b->ctx);
	uint64_t result = 0;
	uint32_t id;

	d->st.builds++;
	if (!c) {	/* cannot happen: a context waits for its builds */
		if (!b->status)
			usched_prog_put(d->u, b->core);
		return;
	}
	c->building--;
	if (b->status == -ETIME) {
		refused(d, c, DLIM_BUILD_TIME);
		warn("context %u (uid %u): a build stopped at build-time-limit after %.1f s", c->id,
		     c->uid, (b->end_ns - b->start_ns) * 1e-9);
	}
	if (b->crashed)
		d->st.build_crashes++;
	if (b->status == -EIO && b->log)
		warn("context %u: %s", c->id, b->log);
	if (!b->status) {
		id = ctx_prog_add(c, b->builtin, b->text, b->opts);
		if (id) {
			c->progs[id - 1].core = b->core;
			state_add_prog(d, c, id);
			result = id;
		} else {
			usched_prog_put(d->u, b->core);
			b->status = -ENOMEM;
		}
	} else {
		d->st.build_errors++;
	}
	if (b->status)
		c->user->programs--;
	if (b->status == -ENOEXEC && b->log && b->log_len) {
		/* The log goes over the source, as the uapi header says. */
		char *dst = (char *)c->arena + b->log_off;
		size_t n = strnlen(b->log, b->log_len - 1);

		memcpy(dst, b->log, n);
		dst[n] = 0;
		result = n;
	}
	if (b->status)
		info("context %u: %s %.40s: %s", c->id, b->builtin ? "built-in" : "program",
		     b->builtin ? b->text : "", strerror(-b->status));
	/* Leave a trace of slow ones. */
	if (b->status != -ETIME && b->end_ns - b->start_ns > 10000000000ull)
		warn("context %u: a build took %.1f s", c->id, (b->end_ns - b->start_ns) * 1e-9);
	complete_task(d, c->id, b->tag, b->status, 0, result, b->start_ns, b->end_ns);
	ctx_put(d, c);
}

static void task_kernel(struct daemon *d, struct dctx *c, const struct tq_event *ev)
{
	const struct tq_desc *t = &ev->task;
	const struct dlimits *lim = &c->user->lim;
	uint32_t prog = t->program, core, id;
	uint64_t now = tq_now_ns();
	char *name;
	int ret;

	if (!prog || prog > c->nprogs || !c->progs[prog - 1].core)
		return reject(d, ev, -ENOENT);
	if (lim->v[DLIM_CTX_KERNELS] && c->nkerns >= lim->v[DLIM_CTX_KERNELS]) {
		refused(d, c, DLIM_CTX_KERNELS);
		return reject(d, ev, -EDQUOT);
	}
	if (lim->v[DLIM_USER_KERNELS] && c->user->kernels >= lim->v[DLIM_USER_KERNELS]) {
		refused(d, c, DLIM_USER_KERNELS);
		return reject(d, ev, -EDQUOT);
	}
	name = arena_text(c, &t->bufs[0], NAME_MAX_LEN, &ret);
	if (!name)	/* a longer name than the core takes is malformed */
		return reject(d, ev, ret == -E2BIG ? -EINVAL : ret);
	ret = usched_kernel_get(d->u, c->progs[prog - 1].core, name, &core);
	if (ret) {
		free(name);
		/* the uapi's status for a name, not ENOENT's unregistered id */
		return reject(d, ev, ret == -ENOENT ? -ESRCH : ret);
	}
	id = ctx_kern_add(c, prog, name);
	free(name);
	if (!id)
		return reject(d, ev, -ENOMEM);
	c->kerns[id - 1].core = core;
	c->user->kernels++;
	state_add_kern(d, c, id);
	complete_task(d, c->id, ev->tag, 0, 0, id, now, tq_now_ns());
}

static void task_refuse(struct daemon *d, struct dctx *c, const struct tq_event *ev,
			struct dtask *t, int status);

static void task_run(struct daemon *d, struct dctx *c, const struct tq_event *ev,
		     struct dtask *dt, uint32_t flags)
{
	const struct tq_desc *t = &ev->task;
	struct usched_task ut = {
		.owner = ctx_owner(c),
		.user_data = (uintptr_t)dt,
		.flags = flags | USCHED_TASK_TRACE_ID,
		.trace_id = t->user_data,	/* the trace shows the client's own id */
		.queued_ns = ev->submit_ns,
		.dim = t->work_dim,
		.nbufs = t->nr_bufs,
		.nargs = t->nr_bufs + t->nr_scalars,
	};
	const struct dlimits *lim = &c->user->lim;
	uint64_t global[3];
	const struct dkern *k;
	enum dlim which;
	unsigned int i;
	int ret;

	if (!t->kernel || t->kernel > c->nkerns)
		return task_refuse(d, c, ev, dt, -ENOENT);
	for (i = 0; i < t->work_dim && i < 3; i++)
		global[i] = t->global[i];
	ret = limit_work(lim, i, global, t->flags & TQ_DESC_F_LOCAL ? t->local : NULL, &which);
	if (ret) {
		refused(d, c, which);
		return task_refuse(d, c, ev, dt, ret);
	}
	ret = ctx_task_qos(c, t, ev->submit_ns, lim->v[DLIM_MAX_PRIO], &ut);
	if (ret) {
		refused(d, c, DLIM_MAX_PRIO);
		i = TQ_DESC_PRIO_OF(t->flags) ? TQ_DESC_PRIO_OF(t->flags) : c->prio;
		if (!c->said_prio)
			warn("context %u (pid %u uid %u): class %s above max-prio %s; such tasks "
			     "fail with EPERM (said once a context)", c->id, c->pid, c->uid,
			     dprio_name[i], dprio_name[lim->v[DLIM_MAX_PRIO]]);
		c->said_prio = true;
		return task_refuse(d, c, ev, dt, ret);
	}
	dt->deadline = ut.deadline_ns != 0;
	ut.time_limit_ns = lim->v[DLIM_KERNEL_TIME];
	k = &c->kerns[t->kernel - 1];
	if (k->prog != t->program || !k->core)
		return task_refuse(d, c, ev, dt, -ENOENT);
	ut.kernel = k->core;
	for (i = 0; i < t->work_dim; i++) {
		ut.global[i] = t->global[i];
		ut.local[i] = t->flags & TQ_DESC_F_LOCAL ? t->local[i] : 0;
	}
	/* The module checked offsets, lengths and that the args are 0..n-1. */
	for (i = 0; i < t->nr_bufs; i++) {
		const struct tq_buf *b = &t->bufs[i];

		ut.buf[i] = (struct usched_buf){
			.host = b->dir == TQ_DIR_SCRATCH ? NULL : (char *)c->arena + b->offset,
			.len = b->len,
			.dir = b->dir,
		};
		ut.arg[b->arg] = (struct usched_arg){ .kind = USCHED_ARG_BUF, .buf = i };
		if (b->dir & TQ_DIR_IN)
			dt->bytes[0] += b->len;
		if (b->dir & TQ_DIR_OUT)
			dt->bytes[1] += b->len;
	}
	for (i = 0; i < t->nr_scalars; i++) {
		const struct tq_scalar *s = &t->scalars[i];
		struct usched_arg *a = &ut.arg[s->arg];

		*a = (struct usched_arg){ .kind = USCHED_ARG_SCALAR, .size = s->size };
		memcpy(a->val, &s->value, s->size);
	}
	ret = usched_submit(d->u, &ut);
	if (ret)
		return task_refuse(d, c, ev, dt, ret);
	c->last = dt;
	c->inflight++;
	d->held++;
}

/* Held successor @t may go: its predecessor completed with 0. */
static void task_go(struct daemon *d, struct dctx *c, struct dtask *t)
{
	struct tq_event *ev = t->ev;

	t->ev = NULL;
	c->inflight--;	/* the hold's; the caller holds the context */
	d->held--;
	task_run(d, c, ev, t, 0);
	free(ev);
}

static struct dlink *link_of(struct dctx *c, uint64_t seq)
{
	struct dlink *l = c->links && seq ? &c->links[seq & (c->nlinks - 1)] : NULL;

	return l && l->seq == seq ? l : NULL;
}

/*
 * Task @t ended with @status (its completion is written): its link says so
 * and it is freed; a successor held on it goes with 0, or is completed
 * -ECANCELED, and the one held on that after it, and so on. The caller
 * holds the context.
 */
static void task_end(struct daemon *d, struct dctx *c, struct dtask *t, int status)
{
	unsigned int cancelled = 0;

	while (t) {
		struct dlink *l = link_of(c, t->seq);
		struct dtask *next = t->succ;

		if (l && l->live == t) {
			l->live = NULL;
			l->status = status;
		}
		if (c->last == t)
			c->last = NULL;
		free(t->ev);
		free(t);
		t = NULL;
		if (next && !status && !c->closing) {
			task_go(d, c, next);
		} else if (next) {
			complete_task(d, c->id, next->tag, -ECANCELED, 0, 0, 0, 0);
			cancelled++;
			t = next;
			status = -ECANCELED;
		}
	}
	while (cancelled--)
		ctx_put(d, c);
}

/* A task refused before the core saw it: its completion, then its chain. */
static void task_refuse(struct daemon *d, struct dctx *c, const struct tq_event *ev,
			struct dtask *t, int status)
{
	reject(d, ev, status);
	task_end(d, c, t, status);
}

/* A TASK event: where it stands in its chain, then to the core or held. */
static void task_chain(struct daemon *d, struct dctx *c, const struct tq_event *ev)
{
	struct dtask *t = calloc(1, sizeof(*t)), *p = NULL;
	struct dlink *l;

	if (!t)
		return reject(d, ev, -ENOMEM);
	t->tag = ev->tag;
	t->seq = ev->seq;
	if ((ev->task.flags & TQ_DESC_F_AFTER) && ev->pred) {
		l = link_of(c, ev->pred);
		if (!l) {	/* cannot happen: the server gave us it first */
			warn("context %u: task %llu names %llu, not seen", c->id,
			     (unsigned long long)ev->seq, (unsigned long long)ev->pred);
			return task_refuse(d, c, ev, t, -ECANCELED);
		}
		if (!l->live && l->status)
			return task_refuse(d, c, ev, t, -ECANCELED);
		p = l->live;
	}
	l = c->links ? &c->links[t->seq & (c->nlinks - 1)] : NULL;
	if (l)
		*l = (struct dlink){ .seq = t->seq, .live = t };
	if (p && p != c->last) {
		t->ev = malloc(sizeof(*ev));
		if (!t->ev)
			return task_refuse(d, c, ev, t, -ENOMEM);
		*t->ev = *ev;
		p->succ = t;
		c->inflight++;
		d->held++;
		return;
	}
	task_run(d, c, ev, t, p ? USCHED_TASK_ORDERED | USCHED_TASK_LINKED : 0);
}



void ctx_task(struct daemon *d, const struct tq_event *ev)
{
	struct dctx *c = ctx_find(d, ev->ctx_id);
	uint64_t now;

	if (ev->flags & TQ_EV_F_REQUEUED)
		d->st.requeued++;
	if (c && c->refused)
		return reject(d, ev, c->refused);
	if (!c || !c->arena)
		return reject(d, ev, c ? -ENOMEM : -ENOENT);
	if (c->closing)
		return reject(d, ev, -ECANCELED);
	switch (ev->task.opcode) {
	case TQ_OP_NOP:
		now = tq_now_ns();
		complete_task(d, c->id, ev->tag, 0, 0, 0, now, now);
		return;
	case TQ_OP_PROGRAM:
		return task_program(d, c, ev);
	case TQ_OP_KERNEL:
		return task_kernel(d, c, ev);
	case TQ_OP_TASK:
		return task_chain(d, c, ev);
	}
	reject(d, ev, -EOPNOTSUPP);
}

/*
 * A command of the task failed: one line naming the client, the task, the
 * stage and the OpenCL error, at most CMD_LOG_BURST a second (a client's
 * kernel may fail every time); those left out are counted on the next.
 */
static void cmd_failed(struct daemon *d, uint32_t id, const struct dctx *c,
		       const struct dtask *t, const struct usched_completion *uc)
{
	static const char *const stage[USCHED_STAGES] = { "HtD copy", "kernel", "DtH copy" };
	uint64_t now = tq_now_ns();
	const char *kern = c ? ctx_kern_name(c, uc->kernel) : NULL;

	if (now - d->cmd_log_at >= 1000000000) {
		d->cmd_log_at = now;
		d->cmd_log_n = 0;
	}
	if (d->cmd_log_n++ >= CMD_LOG_BURST) {
		d->cmd_log_dropped++;
		return;
	}
	warn("context %u (pid %d): task %llu (kernel %s): its %s failed with %s (%d): %s; "
	     "%llu more not logged", id, c ? c->pid : 0, (unsigned long long)t->tag,
	     kern ? kern : "?", stage[uc->cl_stage], clu_strerror(uc->cl_error), uc->cl_error,
	     strerror(-uc->status), (unsigned long long)d->cmd_log_dropped);
	d->cmd_log_dropped = 0;
}

/* The core's completion callback, on the loop's thread (usched_process()). */
void ctx_complete(void *arg, const struct usched_completion *uc)
{
	struct daemon *d = arg;
	uint32_t id = (uint32_t)uc->owner;	/* ctx_owner() */
	struct dctx *c = ctx_find(d, id);
	struct dtask *t = dtask_of(uc->user_data);

	if (d->quit && uc->status == -ECANCELED)
		return;		/* exiting at once: the module gives it to our successor */
	if (uc->status == -ETIME)
		refused(d, c, DLIM_KERNEL_TIME);	/* the core's watchdog stopped it */
	if (uc->cl_error)
		cmd_failed(d, id, c, t, uc);
	complete_task(d, id, t->tag, uc->status,
		      t->deadline && (uc->flags & USCHED_DONE_LATE) ? TQ_COMPL_F_LATE : 0, 0,
		      uc->start_ns, uc->end_ns);
	if (c)
		metrics_acct_task(&d->st, c->acct, uc, t->bytes, tq_now_ns());
	if (d->task_log)
		metrics_task_line(d->task_log, d->policy, id, c ? c->pid : 0,
				  c ? ctx_kern_name(c, uc->kernel) : NULL, uc);
	if (c) {
		task_end(d, c, t, uc->status);
		ctx_put(d, c);
	} else {
		free(t);
	}
}
