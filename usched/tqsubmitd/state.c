// SPDX-License-Identifier: GPL-2.0
/*
 * state.c - tqsubmitd's one state (struct tqd): its limits, the users its
 * contexts and connections are charged to, and its counters, as the stats
 * reply gives them (the module's sysfs counters, and tqsubmitd's own) and
 * as its metrics file does (Prometheus's names, as usched's file).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tq/daemon.h"
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

/* ---- the metrics file ---------------------------------------------------- */

static void prom_metric(FILE *f, const char *name, const char *type, const char *help,
			unsigned long long v)
{
	fprintf(f, "# HELP tqsubmitd_%s %s\n# TYPE tqsubmitd_%s %s\ntqsubmitd_%s %llu\n", name,
		help, name, type, name, v);
}

static void metrics_print(FILE *f, void *arg)
{
	const struct tqd_counters *s = &tqd.st;
	unsigned int interval = *(const unsigned int *)arg;

	/* Who wrote it and when: tqstat tells a live file from one left behind. */
	prom_metric(f, "metrics_time_seconds", "gauge", "When tqsubmitd wrote this file (Unix time).",
		    (unsigned long long)time(NULL));
	prom_metric(f, "metrics_interval_seconds", "gauge",
		    "Seconds between rewrites of this file (0: only at exit and on SIGHUP).",
		    interval);
	prom_metric(f, "pid", "gauge", "tqsubmitd's process id.", (unsigned long long)getpid());
	prom_metric(f, "contexts", "gauge", "Client contexts, live or closed and held.",
		    s->contexts);
	prom_metric(f, "connections", "gauge", "Connections open, clients' and the scheduler's.",
		    s->connections);
	prom_metric(f, "scheduler_pid", "gauge", "The attached scheduler's pid (0: none).",
		    tqd.sched ? (unsigned long long)tqd.sched->pid : 0);
	prom_metric(f, "tasks_in_flight", "gauge", "Tasks taken and not completed.",
		    s->in_flight);
	prom_metric(f, "tasks_submitted_total", "counter", "Descriptors taken from the SQs.",
		    s->submitted);
	prom_metric(f, "tasks_delivered_total", "counter", "Tasks handed to the scheduler.",
		    s->delivered);
	prom_metric(f, "tasks_completed_total", "counter", "Tasks the scheduler completed with 0.",
		    s->completed);
	prom_metric(f, "tasks_failed_total", "counter",
		    "Tasks completed with an error, by the scheduler or by tqsubmitd.", s->failed);
	prom_metric(f, "tasks_rejected_total", "counter", "Descriptors that failed validation.",
		    s->rejected);
	prom_metric(f, "tasks_dropped_total", "counter",
		    "Tasks of contexts closed before they completed.", s->dropped);
	prom_metric(f, "tasks_requeued_total", "counter",
		    "Tasks given back to their contexts when a scheduler went.", s->requeued);
	prom_metric(f, "tasks_abandoned_total", "counter",
		    "Started tasks completed -EOWNERDEAD when a scheduler went.", s->abandoned);
	prom_metric(f, "enters_total", "counter", "Doorbells rung.", s->enters);
	prom_metric(f, "enters_absorbed_total", "counter",
		    "Doorbells that had nothing to wake the scheduler for.", s->enters_absorbed);
	prom_metric(f, "bad_messages_total", "counter", "Messages answered with an error.",
		    s->bad_messages);
	prom_metric(f, "bad_records_total", "counter", "Completion records dropped as invalid.",
		    s->bad_records);
	prom_metric(f, "stalled_sends_total", "counter",
		    "Messages that waited for room on a full socket.", s->stalled_sends);
}

/* Write the metrics file, if there is one; a group refused is said once. */
void tqd_metrics_write(const struct tqd_metrics *m)
{
	static int said_group, said_write;
	unsigned int interval = m->interval;
	int ret, group_err;

	if (!m->path)
		return;
	ret = tq_prom_write(m->path, m->gid, metrics_print, &interval, &group_err);
	if (group_err && !said_group++)
		tqd_log(LOG_ERR, "%s: group %u: %s; readable by tqsubmitd's group only", m->path,
			(unsigned int)m->gid, strerror(group_err));
	if (ret && !said_write++)
		tqd_log(LOG_ERR, "%s: %s; metrics not written", m->path, strerror(-ret));
}
