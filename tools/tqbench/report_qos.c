// SPDX-License-Identifier: GPL-2.0
/*
 * report_qos.c - --setups qos's outputs (qos.c): qos.csv (each target,
 * measured, and whether it was met), qos-latency.csv (the critical client
 * and the best-effort clients per setup), qos-shares.csv (the two users'
 * device time), qos-deadlines.csv; summary.md's section and the table on
 * stdout.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tools/tqbench/bench.h"

/* The targets of issue 45, part 3. */
#define T_P99_X		1.5	/* critical p99 with priorities, over alone's: at most */
#define T_BE_KEEP	0.90	/* best-effort throughput with priorities over without: at least */
#define T_SHARE_TOL	0.10	/* engine time ratio within this of the weights' */
#define T_ADMIT		0.95	/* tasks admitted: at least */
#define T_LATE		0.01	/* admitted tasks late: at most */

/* The rows: the first three, then two per deadline multiple. */
enum { T_P99, T_BE, T_SHARE, T_DEADLINES };
#define NTARGET	(T_DEADLINES + 2 * 4)

struct target {
	char what[112];
	char measured[96];
	char goal[48];
	const char *met;		/* "yes", "no", "n/a" (not run or failed) */
};

/* Why a row has no figure: not run (why), or failed. */
static void no_figure(struct target *t, int err, const char *why)
{
	if (err == 1)
		snprintf(t->measured, sizeof(t->measured), "%s", why ? why : "not run");
	else
		snprintf(t->measured, sizeof(t->measured), "failed (%s)", strerror(-err));
	t->met = "n/a";
}

/* A deadline point's two rows: admitted, and late among the admitted. */
static void deadline_rows(const struct qos_result *q, const struct qos_dl *dl, struct target *t)
{
	uint64_t admitted = dl->tasks - dl->refused;
	double ratio;

	snprintf(t[0].what, sizeof(t[0].what), "tasks admitted at %.0f%% load, deadline %gx the "
		 "task's time alone", 100 * q->dl_load, dl->x);
	snprintf(t[0].goal, sizeof(t[0].goal), "at least %.0f%%", 100 * T_ADMIT);
	snprintf(t[1].what, sizeof(t[1].what), "admitted tasks that missed the deadline (%gx)",
		 dl->x);
	snprintf(t[1].goal, sizeof(t[1].goal), "at most %.0f%%", 100 * T_LATE);
	if (dl->err || !dl->tasks) {
		no_figure(&t[0], dl->err ?: -EIO, NULL);
		no_figure(&t[1], dl->err ?: -EIO, NULL);
		return;
	}
	ratio = (double)admitted / dl->tasks;
	snprintf(t[0].measured, sizeof(t[0].measured), "%.2f%% (%llu of %llu)", 100 * ratio,
		 (unsigned long long)admitted, (unsigned long long)dl->tasks);
	t[0].met = ratio >= T_ADMIT ? "yes" : "no";
	ratio = admitted ? (double)dl->late / admitted : 0;
	snprintf(t[1].measured, sizeof(t[1].measured), "%.2f%% (%llu of %llu)", 100 * ratio,
		 (unsigned long long)dl->late, (unsigned long long)admitted);
	t[1].met = admitted && ratio <= T_LATE ? "yes" : "no";
}

/* Every target's row, measured and judged; how many rows. */
static int targets(const struct qos_result *q, struct target *t)
{
	const struct qos_point *prio = &q->pt[QOS_PRIO], *normal = &q->pt[QOS_NORMAL],
			       *alone = &q->pt[QOS_ALONE];
	double ratio, want = q->weight[1] ? (double)q->weight[0] / q->weight[1] : 0;

	snprintf(t[T_P99].what, sizeof(t[T_P99].what),
		 "critical client's p99 under tq with priorities, over its p99 alone");
	snprintf(t[T_P99].goal, sizeof(t[T_P99].goal), "at most %.1fx", T_P99_X);
	if (prio->err || alone->err || !(alone->crit_p99 > 0)) {
		no_figure(&t[T_P99], prio->err ?: alone->err ?: -EIO, NULL);
	} else {
		ratio = prio->crit_p99 / alone->crit_p99;
		snprintf(t[T_P99].measured, sizeof(t[T_P99].measured), "%.2fx (%.2f / %.2f ms)",
			 ratio, prio->crit_p99, alone->crit_p99);
		t[T_P99].met = ratio <= T_P99_X ? "yes" : "no";
	}

	snprintf(t[T_BE].what, sizeof(t[T_BE].what),
		 "best-effort throughput under tq with priorities, over tq without");
	snprintf(t[T_BE].goal, sizeof(t[T_BE].goal), "at least %.2fx", T_BE_KEEP);
	if (prio->err || normal->err || !(normal->be_tput > 0)) {
		no_figure(&t[T_BE], prio->err ?: normal->err ?: -EIO, NULL);
	} else {
		ratio = prio->be_tput / normal->be_tput;
		snprintf(t[T_BE].measured, sizeof(t[T_BE].measured),
			 "%.3fx (%.1f / %.1f tasks/s)", ratio, prio->be_tput, normal->be_tput);
		t[T_BE].met = ratio >= T_BE_KEEP ? "yes" : "no";
	}

	snprintf(t[T_SHARE].what, sizeof(t[T_SHARE].what), "device time of two users at shares "
		 "%u:%u under saturation, the ratio", q->weight[0], q->weight[1]);
	snprintf(t[T_SHARE].goal, sizeof(t[T_SHARE].goal), "%.2f to %.2f (%g within %.0f%%)",
		 want * (1 - T_SHARE_TOL), want * (1 + T_SHARE_TOL), want, 100 * T_SHARE_TOL);
	if (q->share_err) {
		no_figure(&t[T_SHARE], q->share_err, q->share_why[0] ? q->share_why : NULL);
	} else {
		ratio = q->engine_s[0] / q->engine_s[1];
		snprintf(t[T_SHARE].measured, sizeof(t[T_SHARE].measured),
			 "%.2f (uid %u %.3f s, uid %u %.3f s)", ratio, q->uid[0], q->engine_s[0],
			 q->uid[1], q->engine_s[1]);
		t[T_SHARE].met = fabs(ratio / want - 1) <= T_SHARE_TOL ? "yes" : "no";
	}

	for (unsigned int i = 0; i < q->ndl; i++)
		deadline_rows(q, &q->dl[i], &t[T_DEADLINES + 2 * i]);
	return T_DEADLINES + 2 * q->ndl;
}

static FILE *open_csv(const char *dir, const char *name, const char *header)
{
	char path[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f)
		fprintf(f, "%s\n", header);
	return f;
}

static int close_csv(FILE *f)
{
	return f && !fclose(f) ? 0 : -EIO;
}

int report_qos(const char *dir, const struct qos_result *q)
{
	struct target t[NTARGET];
	int nt = targets(q, t), ret;
	FILE *f;

	f = open_csv(dir, "qos.csv", "target,measured,goal,met");
	for (int i = 0; f && i < nt; i++)
		fprintf(f, "\"%s\",\"%s\",\"%s\",%s\n", t[i].what, t[i].measured, t[i].goal,
			t[i].met);
	ret = close_csv(f);

	f = open_csv(dir, "qos-latency.csv", "setup,crit_task,crit_alone_ms,period_ms,crit_tasks,"
		     "crit_p50_ms,crit_p99_ms,be_clients,load,capacity_per_s,be_tasks,"
		     "be_offered_per_s,be_tasks_per_s,secs,status");
	for (int i = 0; f && i < QOS_NSETUP; i++) {
		const struct qos_point *p = &q->pt[i];

		fprintf(f, "%s,%s,%.3f,%.1f,%u,%.3f,%.3f,%u,%.2f,%.2f,%u,%.2f,%.2f,%.2f,%s\n",
			qos_setup_names[i], q->crit_task, q->crit_alone_ms, q->period_ms, p->crit_n,
			p->crit_p50, p->crit_p99, i == QOS_ALONE ? 0 : q->be_clients,
			i == QOS_ALONE ? 0 : q->load, q->cap, p->be_n, p->be_offered, p->be_tput,
			q->secs, p->err == 1 ? "not-run" : p->err ? "failed" : "ok");
	}
	ret = close_csv(f) ?: ret;

	f = open_csv(dir, "qos-shares.csv", "uid,share,engine_s,engine_share,tasks,secs,status");
	for (int i = 0; f && i < 2; i++) {
		double all = q->engine_s[0] + q->engine_s[1];

		fprintf(f, "%u,%u,%.6f,%.4f,%.0f,%.2f,%s\n", q->uid[i], q->weight[i], q->engine_s[i],
			all > 0 ? q->engine_s[i] / all : 0, q->tasks[i], q->share_secs,
			q->share_err == 1 ? "not-run" : q->share_err ? "failed" : "ok");
	}
	ret = close_csv(f) ?: ret;

	f = open_csv(dir, "qos-deadlines.csv", "load,deadline_x,secs,tasks,admitted,refused,late,"
		     "failed,admitted_share,late_share,p99_ms,status");
	for (unsigned int i = 0; f && i < q->ndl; i++) {
		const struct qos_dl *dl = &q->dl[i];
		uint64_t adm = dl->tasks - dl->refused;

		fprintf(f, "%.2f,%g,%.2f,%llu,%llu,%llu,%llu,%llu,%.4f,%.4f,%.3f,%s\n", q->dl_load,
			dl->x, q->dl_secs, (unsigned long long)dl->tasks, (unsigned long long)adm,
			(unsigned long long)dl->refused, (unsigned long long)dl->late,
			(unsigned long long)dl->failed, dl->tasks ? (double)adm / dl->tasks : 0,
			adm ? (double)dl->late / adm : 0, dl->p99,
			dl->err == 1 ? "not-run" : dl->err ? "failed" : "ok");
	}
	return close_csv(f) ?: ret;
}

static void point_cells(FILE *f, const struct qos_point *p, const char *sep, const char *end)
{
	if (p->err) {
		fprintf(f, "%s%s%s%s%s%s%s", p->err == 1 ? "not run" : "failed", sep, "-", sep, "-",
			sep, "-");
	} else {
		fprintf(f, "%.2f%s%.2f%s%u%s", p->crit_p50, sep, p->crit_p99, sep, p->crit_n, sep);
		if (p->be_offered > 0)
			fprintf(f, "%.1f of %.1f", p->be_tput, p->be_offered);
		else
			fprintf(f, "-");
	}
	fprintf(f, "%s", end);
}

int report_qos_md(FILE *f, const struct qos_result *q)
{
	struct target t[NTARGET];
	int nt = targets(q, t);

	fprintf(f, "\n## Quality of service (--setups qos)\n\n"
		"Through the usched daemon (policy flow), every client a process. The critical "
		"client: %s (%.3f ms alone) every %.0f ms, CRITICAL under tq-prio, beside %u "
		"best-effort clients' Poisson BK50 arrivals at %.0f%% of the capacity (%.1f "
		"tasks/s: usched %.1f, independent contexts %.1f), %.1f s of arrivals a setup, "
		"the first tenth not counted; latency from arrival to completion seen.\n\n",
		q->crit_task, q->crit_alone_ms, q->period_ms, q->be_clients, 100 * q->load, q->cap,
		q->cap_usched, q->cap_indep, q->secs);
	fprintf(f, "| setup | critical p50 ms | critical p99 ms | critical tasks | "
		"best-effort tasks/s (of offered) |\n|---|---|---|---|---|\n");
	for (int i = 0; i < QOS_NSETUP; i++) {
		fprintf(f, "| %s | ", qos_setup_names[i]);
		point_cells(f, &q->pt[i], " | ", " |\n");
	}
	fprintf(f, "\nShares: uids %u and %u at %u:%u, %u workers each keeping tasks in flight, "
		"device time from usched's tq_client_engine_seconds_total over %.1f s. Deadlines: "
		"the best-effort clients alone at %.0f%% of the capacity for %.1f s, each task's "
		"deadline a multiple of its time alone (usched.conf deadline = refuse: -ETIMEDOUT "
		"at admission):", q->uid[0], q->uid[1], q->weight[0], q->weight[1],
		q->be_clients / 2, q->share_secs, 100 * q->dl_load, q->dl_secs);
	for (unsigned int i = 0; i < q->ndl; i++)
		fprintf(f, "%s %gx: %llu tasks counted, %llu refused, %llu late, the admitted's p99 "
			"%.2f ms", i ? ";" : "", q->dl[i].x, (unsigned long long)q->dl[i].tasks,
			(unsigned long long)q->dl[i].refused, (unsigned long long)q->dl[i].late,
			q->dl[i].p99);
	fprintf(f, ".\n\n| target | measured | goal | met |\n|---|---|---|---|\n");
	for (int i = 0; i < nt; i++)
		fprintf(f, "| %s | %s | %s | %s |\n", t[i].what, t[i].measured, t[i].goal, t[i].met);
	return ferror(f) ? -EIO : 0;
}

void report_qos_table(FILE *f, const struct qos_result *q)
{
	struct target t[NTARGET];
	int nt = targets(q, t);

	fprintf(f, "# qos: critical %s every %.0f ms; %u best-effort clients at %.0f%% of %.1f "
		"tasks/s\n%-12s %9s %9s %6s %s\n", q->crit_task, q->period_ms, q->be_clients,
		100 * q->load, q->cap, "setup", "p50_ms", "p99_ms", "crit", "best-effort/s");
	for (int i = 0; i < QOS_NSETUP; i++) {
		const struct qos_point *p = &q->pt[i];

		if (p->err)
			fprintf(f, "%-12s %s\n", qos_setup_names[i],
				p->err == 1 ? "not run" : "failed");
		else
			fprintf(f, "%-12s %9.2f %9.2f %6u %.1f\n", qos_setup_names[i], p->crit_p50,
				p->crit_p99, p->crit_n, p->be_tput);
	}
	for (int i = 0; i < nt; i++)
		fprintf(f, "# target: %s: %s (%s): %s\n", t[i].what, t[i].measured, t[i].goal,
			t[i].met);
}
