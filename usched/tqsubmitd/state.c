// SPDX-License-Identifier: GPL-2.0
/*
 * state.c - tqsubmitd's one state (struct tqd): its limits, the users its
 * contexts and connections are charged to, and its counters as the stats
 * reply gives them (the module's sysfs counters, and tqsubmitd's own).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tqsubmitd.h"

struct tqd tqd;

void tqd_init(const struct tqd_limits *lim, const struct tqd_io *io)
{
	unsigned int i;

	tqd.lim = *lim;
	tqd.io = io;
	tqd.euid = geteuid();
	list_init(&tqd.live);
	list_init(&tqd.closed);
	list_init(&tqd.dirty);
	list_init(&tqd.users);
	list_init(&tqd.conns);
	for (i = 0; i < TQD_CTX_HASH; i++)
		list_init(&tqd.ctx_hash[i]);
	tqd.need_wakeup = true;
}

/* ---- users ------------------------------------------------------------- */

struct tqd_user *tqd_user_get(uid_t uid)
{
	struct list *p, *n;
	struct tqd_user *u;

	list_for_each_safe(p, n, &tqd.users) {
		u = list_entry(p, struct tqd_user, node);
		if (u->uid == uid)
			return u;
	}
	u = calloc(1, sizeof(*u));
	if (!u)
		return NULL;
	u->uid = uid;
	list_add(&u->node, &tqd.users);
	return u;
}

/* Forget a user that holds nothing any more. */
void tqd_user_put(struct tqd_user *u)
{
	if (u && !u->contexts && !u->conns && !u->bytes) {
		list_del_init(&u->node);
		free(u);
	}
}

/* ---- statistics ---------------------------------------------------------- */

int tqd_stats_text(char *buf, size_t size)
{
	const struct tqd_counters *s = &tqd.st;

	return snprintf(buf, size,
			"# TYPE contexts gauge\ncontexts %llu\n"
			"submitted %llu\ndelivered %llu\ncompleted %llu\nfailed %llu\n"
			"rejected %llu\ndropped %llu\n"
			"# TYPE in_flight gauge\nin_flight %llu\n"
			"requeued %llu\nabandoned %llu\nenters %llu\nenters_absorbed %llu\n"
			"# TYPE scheduler_pid gauge\nscheduler_pid %d\n"
			"# TYPE connections gauge\nconnections %llu\nbad_messages %llu\nbad_records %llu\n"
			"stalled_sends %llu\n",
			(unsigned long long)s->contexts, (unsigned long long)s->submitted,
			(unsigned long long)s->delivered, (unsigned long long)s->completed,
			(unsigned long long)s->failed, (unsigned long long)s->rejected,
			(unsigned long long)s->dropped, (unsigned long long)s->in_flight,
			(unsigned long long)s->requeued, (unsigned long long)s->abandoned,
			(unsigned long long)s->enters, (unsigned long long)s->enters_absorbed,
			tqd.sched ? (int)tqd.sched->pid : 0,
			(unsigned long long)s->connections, (unsigned long long)s->bad_messages,
			(unsigned long long)s->bad_records, (unsigned long long)s->stalled_sends);
}
