// SPDX-License-Identifier: GPL-2.0
/*
 * submit.c - submission: a task is checked, resolved (its kernel, its
 * regions and, for a built-in kernel, its plan and what memory hygiene
 * zeroes) and queued on its owner's ready or blocked list (1, 3);
 * cancellation of the tasks still waiting; the fair-share groups (10).
 * Numbers in parentheses name the sections of the essay at the top of core.c.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/tqkernels.h"
#include "internal.h"

static struct owner *owner_get(struct usched *u, uint64_t id)
{
	struct list *p, *n;
	struct owner *o;

	list_for_each_safe(p, n, &u->owners) {
		o = list_entry(p, struct owner, node);
		if (o->id == id)
			return o;
	}
	o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	o->id = id;
	for (unsigned int c = 0; c < PRIOS; c++)
		list_init(&o->ready[c]);
	list_init(&o->blocked);
	list_add_tail(&o->node, &u->owners);
	return o;
}

/* The shape of a task, before anything is looked up. */
static int task_check(const struct usched_task *d)
{
	if (d->dim < 1 || d->dim > 3 || d->nbufs > USCHED_MAX_BUFS || d->nargs > USCHED_MAX_ARGS ||
	    d->flags & ~(USCHED_TASK_ORDERED | USCHED_TASK_LINKED | USCHED_TASK_TRACE_ID) ||
	    (d->flags & USCHED_TASK_LINKED && !(d->flags & USCHED_TASK_ORDERED)) ||
	    d->prio < USCHED_PRIO_MIN || d->prio > USCHED_PRIO_MAX)
		return -EINVAL;
	for (unsigned int i = 0; i < d->dim; i++)
		if (!d->global[i])
			return -EINVAL;
	for (unsigned int i = 0; i < d->nbufs; i++) {
		const struct usched_buf *b = &d->buf[i];

		if (!b->len || b->dir < USCHED_IN || b->dir > USCHED_SCRATCH ||
		    (b->dir != USCHED_SCRATCH && !b->host))
			return -EINVAL;
	}
	for (unsigned int i = 0; i < d->nargs; i++) {
		const struct usched_arg *a = &d->arg[i];

		if (a->kind == USCHED_ARG_BUF ? a->buf >= d->nbufs :
		    a->kind != USCHED_ARG_SCALAR || !a->size || a->size > USCHED_MAX_SCALAR)
			return -EINVAL;
	}
	return 0;
}

/* The fair-share group of @key (an owner's own with @owner_group), made if need be; under u->lock. */
static struct share *share_get(struct usched *u, uint64_t key, bool owner_group)
{
	struct list *p, *n;
	struct share *sh;

	list_for_each_safe(p, n, &u->shares) {
		sh = list_entry(p, struct share, node);
		if (sh->key == key && sh->owner_group == owner_group)
			return sh;
	}
	sh = calloc(1, sizeof(*sh));
	if (!sh)
		return NULL;
	sh->key = key;
	sh->owner_group = owner_group;
	sh->weight = 1;
	list_add_tail(&sh->node, &u->shares);
	return sh;
}

/* A task of @sh completed: a group with none left and no weight set goes; under u->lock. */
static void share_put(struct share *sh)
{
	if (--sh->ntasks || sh->weighted)
		return;
	list_del_init(&sh->node);
	free(sh);
}

/* Drop what a task holds; under u->lock. */
void task_unref(struct usched *u, struct task *t)
{
	for (unsigned int i = 0; i < t->t.nbufs; i++)
		if (t->reg[i])
			region_put(u, t->reg[i]);
	if (t->kern)
		prog_put(u, t->kern->prog);
	if (t->share)
		share_put(t->share);
}

/*
 * The built-in task of kernels/ whose kernel k is, or NULL: its source
 * built without options, whichever way it was registered; under u->lock.
 */
static const struct tqk_task *kern_builtin(struct kern *k)
{
	const char *src = k->prog->src;

	if (k->builtin_known)
		return k->builtin;
	k->builtin_known = true;
	for (unsigned int i = 0; i < tqk_ntasks && !src[strlen(src) + 1]; i++) {
		const struct tqk_task *tt = tqk_tasks[i];

		if (!strcmp(k->name, tt->kernel) && !strcmp(src, tt->source))
			k->builtin = tt;
	}
	return k->builtin;
}

/*
 * What memory hygiene zeroes of a task's device buffers before its kernel
 * (exec.c): any kernel may read a whole pooled buffer, slack included, so
 * an unknown kernel gets everything its copies in do not overwrite.
 */
static void clear_all(struct task *t)
{
	const struct usched_task *d = &t->t;

	for (unsigned int i = 0; i < d->nbufs; i++) {
		t->clear_from[i] = d->buf[i].dir & USCHED_IN ? d->buf[i].len : 0;
		t->clear_to[i] = CLEAR_END;
	}
}

/*
 * A built-in kernel is trusted code whose launch was checked against its
 * plan: it reads only the first plan-bytes of the buffers its arguments
 * name and writes all of those its plan has as output (the host references
 * check every byte). So only what it reads without the task's copy in, and
 * what is copied back without it or the kernel writing it, is zeroed.
 */
static void clear_builtin(struct task *t, const struct tqk_launch *plan)
{
	const struct usched_task *d = &t->t;

	for (unsigned int i = 0; i < d->nbufs; i++) {
		uint32_t dir = d->buf[i].dir;
		uint64_t written = 0;
		bool read = false;

		for (unsigned int a = 0; a < d->nargs; a++) {
			const struct tqk_buf *pb;

			if (d->arg[a].kind != USCHED_ARG_BUF || d->arg[a].buf != i)
				continue;
			pb = &plan->buf[plan->arg[a].buf];
			read |= pb->dir & TQK_IN;
			if (pb->dir & TQK_OUT && pb->bytes > written)
				written = pb->bytes;
		}
		t->clear_from[i] = t->clear_to[i] = 0;
		if (dir & USCHED_IN)
			continue;	/* its own bytes, in full */
		if (read)
			t->clear_to[i] = d->buf[i].len;
		else if (dir & USCHED_OUT && written < d->buf[i].len) {
			t->clear_from[i] = written;
			t->clear_to[i] = d->buf[i].len;
		}
	}
}

/*
 * A built-in kernel's task must stay within its own buffers: its arguments
 * and work size are the task's plan for a size it takes, each buffer it
 * passes at least as long as the plan's (tqk_launch_check()). Its kernel
 * trusts its scalars and work size, and other owners' buffers share the
 * device memory. Buffers no argument names only copy, and may be any.
 */
static int builtin_check(const struct tqk_task *tt, struct task *t)
{
	const struct usched_task *d = &t->t;
	struct tqk_launch l = { .nargs = d->nargs, .dim = d->dim }, plan;
	int ret;

	if (d->nargs > TQK_MAX_ARGS || d->dim > 2)
		return -EINVAL;
	for (unsigned int i = 0; i < d->nargs; i++) {
		const struct usched_arg *a = &d->arg[i];

		if (a->kind == USCHED_ARG_BUF) {
			if (l.nbufs == TQK_MAX_BUFS)
				return -EINVAL;
			l.buf[l.nbufs] = (struct tqk_buf){ .bytes = d->buf[a->buf].len };
			l.arg[i] = (struct tqk_arg){ .kind = TQK_ARG_BUF, .buf = l.nbufs++ };
		} else {
			l.arg[i] = (struct tqk_arg){ .kind = TQK_ARG_SCALAR, .size = a->size };
			memcpy(l.arg[i].val, a->val, a->size);
		}
	}
	for (unsigned int i = 0; i < d->dim; i++) {
		l.global[i] = d->global[i];
		l.local[i] = d->local[i];
	}
	ret = tqk_launch_check(tt, &l, &plan);
	if (ret)
		return ret;
	clear_builtin(t, &plan);
	/*
	 * A task that gives no size (the daemon's: the uapi has none) gets its
	 * plan's, the m the profile's kernel lines and in-process submitters
	 * use; the product of the global sizes is no size for kernels whose
	 * grid does not grow with m (FLW: one work-group; MM: n^2 of n^3).
	 */
	if (!t->t.m)
		t->t.m = plan.m;
	return 0;
}

/* Look up what the task names, taking references; under u->lock. */
static int task_resolve(struct usched *u, struct task *t)
{
	const struct usched_task *d = &t->t;
	const struct tqk_task *tt;
	int ret;

	t->kern = kern_get(u, d->kernel);
	if (!t->kern)
		return -ENOENT;
	if (d->nargs != t->kern->nargs)
		return -EINVAL;
	/*
	 * A kind the driver did not tell (no argument info) is refused too: a
	 * scalar set on a __global argument would be taken for a cl_mem handle.
	 */
	for (unsigned int i = 0; i < d->nargs; i++)
		if (t->kern->arg_kind[i] != d->arg[i].kind)
			return -EINVAL;
	tt = kern_builtin(t->kern);
	clear_all(t);
	ret = tt ? builtin_check(tt, t) : 0;
	if (ret)
		return ret;
	for (unsigned int i = 0; i < d->nbufs; i++) {
		if (d->buf[i].len > u->max_alloc)
			return -EFBIG;
		if (d->buf[i].dir == USCHED_SCRATCH)
			continue;
		t->reg[i] = region_find(u, task_domain(t), d->buf[i].host, d->buf[i].len, &ret);
		if (!t->reg[i])
			return ret;
	}
	return 0;
}

int usched_submit(struct usched *u, const struct usched_task *d)
{
	struct owner *o;
	struct task *t;
	int ret;

	ret = task_check(d);
	if (ret)
		return ret;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->u = u;
	t->t = *d;
	list_init(&t->node);
	list_init(&t->admit_node);
	if (!t->t.queued_ns)
		t->t.queued_ns = tq_now_ns();
	t->c.user_data = d->user_data;
	t->c.owner = d->owner;
	t->c.queued_ns = t->t.queued_ns;
	t->limit_ns = d->time_limit_ns ? d->time_limit_ns : u->o.time_limit_ns;

	pthread_mutex_lock(&u->lock);
	ret = u->st.wedged ? -ENOTRECOVERABLE : -ESHUTDOWN;
	if (u->closing || u->st.wedged)
		goto out_unref;
	ret = task_resolve(u, t);
	if (ret)
		goto out_unref;
	/* no size given, and no built-in's plan gave one (task_resolve()) */
	if (!t->t.m) {
		t->t.m = 1;
		for (unsigned int i = 0; i < d->dim; i++)
			t->t.m *= d->global[i];
	}
	t->c.m = t->t.m;
	t->c.kernel = d->kernel;
	ret = -ENOMEM;
	o = owner_get(u, d->owner);
	if (!o)
		goto out_unref;
	t->owner = o;
	t->share = share_get(u, d->share ? d->share : d->owner, !d->share);
	if (!t->share)
		goto out_unref;
	t->share->ntasks++;
	u->shares_on |= d->share != 0;
	/* its first command would wait on an event of another context (core.c, 9) */
	ret = -EINVAL;
	if (d->flags & USCHED_TASK_ORDERED && o->last && task_domain(o->last) != task_domain(t))
		goto out_unref;
	if (d->flags & USCHED_TASK_ORDERED && o->last) {
		t->after = o->last;
		o->last->next_ordered = t;
	}
	if (t->after && !t->after->taken) {
		t->blocked = true;
		list_add_tail(&t->node, &o->blocked);
	} else {
		ready_add(u, t);
	}
	if (d->deadline_ns)
		list_add_tail(&t->admit_node, &u->admit);
	u->live_prio[task_prio(t)]++;
	u->last_prio[task_prio(t)] = tq_now_ns();
	o->last = t;
	o->ntasks++;
	/* the flow policy's arrival rate (4) */
	if (u->arr_last && t->t.queued_ns > u->arr_last) {
		double gap = t->t.queued_ns - u->arr_last;

		u->arr_gap = u->arr_gap ? 0.875 * u->arr_gap + 0.125 * gap : gap;
	}
	if (t->t.queued_ns > u->arr_last)
		u->arr_last = t->t.queued_ns;
	u->nwaiting++;
	u->st.submitted++;
	pthread_mutex_unlock(&u->lock);
	wake(u);
	return 0;

out_unref:
	task_unref(u, t);
	pthread_mutex_unlock(&u->lock);
	free(t);
	return ret;
}

/*
 * Take waiting task @t out, never to run: it completes with @status from
 * u->cancelled at the next delivery; under u->lock.
 */
void task_drop(struct usched *u, struct task *t, int status)
{
	if (t->after)
		t->after->next_ordered = NULL;
	t->after = NULL;
	if (!t->blocked)
		ready_del(u, t);
	t->blocked = false;
	t->c.status = status;
	list_del_init(&t->node);
	list_del_init(&t->admit_node);
	list_add_tail(&t->node, &u->cancelled);
	u->nwaiting--;
}

static void cancel_list(struct usched *u, struct list *l)
{
	struct list *p, *n;

	list_for_each_safe(p, n, l)
		task_drop(u, list_entry(p, struct task, node), -ECANCELED);
}

int usched_cancel(struct usched *u, uint64_t owner)
{
	struct list *p, *n;

	pthread_mutex_lock(&u->lock);
	list_for_each_safe(p, n, &u->owners) {
		struct owner *o = list_entry(p, struct owner, node);

		if (owner != USCHED_OWNER_ALL && o->id != owner)
			continue;
		for (unsigned int c = 0; c < PRIOS; c++)
			cancel_list(u, &o->ready[c]);
		cancel_list(u, &o->blocked);
		if (o->last && o->last->c.status == -ECANCELED)
			o->last = NULL;
	}
	pthread_mutex_unlock(&u->lock);
	wake(u);
	return 0;
}

/* Make @t's ordered successor ready, if it waits for @t; under u->lock. */
void task_unblock(struct usched *u, struct task *t)
{
	struct task *next = t->next_ordered;

	if (!next || !next->blocked)
		return;
	next->blocked = false;
	list_del_init(&next->node);
	ready_add(u, next);
}

/*
 * A group that had nothing ready in the class starts at the class's clock,
 * so that time it was idle is not banked against the others (10).
 */
void ready_add(struct usched *u, struct task *t)
{
	unsigned int c = task_prio(t);

	list_add_tail(&t->node, &t->owner->ready[c]);
	u->nready++;
	u->nready_prio[c]++;
	if (!t->share->ready[c]++)
		t->share->vtime[c] = fmax(t->share->vtime[c], u->vclock[c]);
}

void ready_del(struct usched *u, struct task *t)
{
	unsigned int c = task_prio(t);

	list_del_init(&t->node);
	u->nready--;
	u->nready_prio[c]--;
	t->share->ready[c]--;
}

int ready_top(const struct usched *u)
{
	for (int c = PRIOS - 1; c >= 0; c--)
		if (u->nready_prio[c])
			return c;
	return -1;
}

bool prio_above_active(const struct usched *u, unsigned int c, uint64_t now)
{
	for (unsigned int h = c + 1; h < PRIOS; h++)
		if (u->live_prio[h] || (u->last_prio[h] && now - u->last_prio[h] < PRIO_ACTIVE_NS))
			return true;
	return false;
}

/* Weights engage the fair-share order from then on (10). */
int usched_share_set(struct usched *u, uint64_t share, unsigned int weight)
{
	struct share *sh;

	if (!share || !weight || weight > USCHED_SHARE_MAX)
		return -EINVAL;
	pthread_mutex_lock(&u->lock);
	sh = share_get(u, share, false);
	if (sh) {
		sh->weight = weight;
		sh->weighted = true;
		u->shares_on = true;
	}
	pthread_mutex_unlock(&u->lock);
	return sh ? 0 : -ENOMEM;
}
