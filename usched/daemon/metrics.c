// SPDX-License-Identifier: GPL-2.0
/*
 * metrics.c - usched's metrics in the Prometheus text exposition
 * format, for node_exporter's textfile collector or anything that reads a
 * .prom file. The file is written whole to a temporary name (not ending in
 * .prom, which the collector skips) and renamed, so a reader never sees half
 * of it. It is mode 0640 in metrics-group, whatever the umask: the service
 * runs with UMask=0077, and tqstat and node_exporter run as other users.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "daemon.h"
#include "tq/daemon.h"

static void metric(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* Upper bounds of the histograms' buckets; the last, +Inf, is implied. */
static const double err_le[] = { 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2 };
static const double span_le[] = { 1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 0.1, 1, 10 };
static const double tasks_le[] = { 1, 2, 4, 8, 16, 32, 64 };
static const double policy_le[] = { 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 0.1, 1 };
/* A task's latencies: 10 us to 10 s in 1-2-5 steps */
static const double lat_le[] = { 1e-5, 2e-5, 5e-5, 1e-4, 2e-4, 5e-4, 1e-3, 2e-3, 5e-3, 1e-2,
				 2e-2, 5e-2, 0.1, 0.2, 0.5, 1, 2, 5, 10 };

static const char *const stage_names[USCHED_STAGES] = { "htd", "k", "dth" };

#define NLE(a)	(sizeof(a) / sizeof((a)[0]))
_Static_assert(NLE(err_le) < DHIST_MAX && NLE(span_le) < DHIST_MAX &&
	       NLE(tasks_le) < DHIST_MAX && NLE(policy_le) < DHIST_MAX &&
	       NLE(lat_le) < DHIST_MAX, "+Inf fits too");

static void hist_add(struct dhist *h, const double *le, unsigned int n, double v)
{
	unsigned int i = 0;

	while (i < n && v > le[i])
		i++;
	h->bucket[i]++;
	h->count++;
	h->sum += v;
}

/* The samples of one histogram; @label is "" or "key=\"value\"". */
static void hist_print(FILE *f, const char *name, const char *label, const struct dhist *h,
		       const double *le, unsigned int n)
{
	uint64_t cum = 0;

	for (unsigned int i = 0; i <= n; i++) {
		cum += h->bucket[i];
		if (i < n)
			fprintf(f, "%s_bucket{%s%sle=\"%g\"} %llu\n", name, label, *label ? "," : "",
				le[i], (unsigned long long)cum);
		else
			fprintf(f, "%s_bucket{%s%sle=\"+Inf\"} %llu\n", name, label,
				*label ? "," : "", (unsigned long long)cum);
	}
	fprintf(f, "%s_sum%s%s%s %.9g\n", name, *label ? "{" : "", label, *label ? "}" : "",
		h->sum);
	fprintf(f, "%s_count%s%s%s %llu\n", name, *label ? "{" : "", label, *label ? "}" : "",
		(unsigned long long)h->count);
}

/* A label's value, escaping \\, " and newlines as the format wants. */
static void label_value(FILE *f, const char *v)
{
	for (const char *p = v; *p; p++) {
		if (*p == '\n')
			fputs("\\n", f);
		else
			fprintf(f, "%s%c", *p == '"' || *p == '\\' ? "\\" : "", *p);
	}
}

void metrics_cgroup(uint32_t pid, char *buf, size_t len)
{
	char path[32], *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f;

	snprintf(buf, len, "unknown");
	snprintf(path, sizeof(path), "/proc/%u/cgroup", pid);
	f = fopen(path, "re");
	if (!f)
		return;		/* gone already, or not ours to read */
	while ((n = getline(&line, &cap, f)) > 0) {
		if (strncmp(line, "0::", 3))
			continue;	/* a v1 hierarchy's */
		if (line[n - 1] == '\n')
			line[--n] = 0;
		if (n > 3)
			snprintf(buf, len, "%s", line + 3);
		break;
	}
	free(line);
	fclose(f);
}

/* The entry of @label in @s, made while there is room (and memory), else other. */
static struct dacct *acct_get(struct dacct_set *s, unsigned int max, const char *label)
{
	struct dacct **v, *a;

	for (unsigned int i = 0; i < s->n; i++)
		if (!strcmp(s->v[i]->label, label))
			return s->v[i];
	if (s->n >= max)
		return &s->other;
	v = realloc(s->v, (s->n + 1) * sizeof(*v));
	if (!v)
		return &s->other;
	s->v = v;
	a = calloc(1, sizeof(*a));
	if (!a || !(a->label = strdup(label))) {
		free(a);
		return &s->other;
	}
	s->v[s->n++] = a;
	return a;
}

void metrics_acct_open(struct dstats *ds, struct dacct *acct[DACCT_KINDS], uint32_t uid,
		       uint32_t pid)
{
	char label[4096];

	snprintf(label, sizeof(label), "%u", uid);
	acct[DACCT_UID] = acct_get(&ds->acct[DACCT_UID], ds->acct_max, label);
	metrics_cgroup(pid, label, sizeof(label));
	acct[DACCT_CGROUP] = acct_get(&ds->acct[DACCT_CGROUP], ds->acct_max, label);
}

void metrics_acct_task(struct dstats *ds, struct dacct *const acct[DACCT_KINDS],
		       const struct usched_completion *c, const uint64_t bytes[2], uint64_t now_ns)
{
	unsigned int outcome = !c->status ? 0 : c->status == -ECANCELED ? 2 : 1;
	double lat[DLAT_N];

	if (c->start_ns) {
		lat[DLAT_QUEUE] = c->start_ns > c->queued_ns ? (c->start_ns - c->queued_ns) * 1e-9 : 0;
		lat[DLAT_DEVICE] = (c->end_ns - c->start_ns) * 1e-9;
		lat[DLAT_DELIVERY] = now_ns > c->end_ns ? (now_ns - c->end_ns) * 1e-9 : 0;
		for (int i = 0; i < DLAT_N; i++) {
			hist_add(&ds->lat[i], lat_le, NLE(lat_le), lat[i]);
			hist_add(&acct[DACCT_UID]->lat[i], lat_le, NLE(lat_le), lat[i]);
		}
	}
	for (int k = 0; k < DACCT_KINDS; k++) {
		struct dacct *a = acct[k];

		a->tasks[outcome]++;
		for (int st = 0; st < USCHED_STAGES; st++)
			a->engine_ns[st] += c->busy_ns[st];
		if (!c->status) {	/* as the core counts tq_bytes_total */
			a->bytes[0] += bytes[0];
			a->bytes[1] += bytes[1];
		}
	}
}

void metrics_acct_free(struct dstats *ds)
{
	for (int k = 0; k < DACCT_KINDS; k++) {
		struct dacct_set *s = &ds->acct[k];

		for (unsigned int i = 0; i < s->n; i++) {
			free(s->v[i]->label);
			free(s->v[i]);
		}
		free(s->v);
		s->v = NULL;
		s->n = 0;
	}
}

void metrics_tg(void *arg, const struct usched_tg_stat *s)
{
	struct dstats *ds = arg;
	double err;

	hist_add(&ds->tg_tasks, tasks_le, NLE(tasks_le), s->ntasks);
	hist_add(&ds->tg_policy, policy_le, NLE(policy_le), s->policy_ns * 1e-9);
	if (s->measured_ns <= 0)
		return;		/* nothing ran: no makespan to compare */
	err = fabs(s->predicted_ns / s->measured_ns - 1);
	hist_add(&ds->tg_err, err_le, NLE(err_le), err);
	hist_add(&ds->tg_span[0], span_le, NLE(span_le), s->predicted_ns * 1e-9);
	hist_add(&ds->tg_span[1], span_le, NLE(span_le), s->measured_ns * 1e-9);
	if (err > ds->tg_err_max)
		ds->tg_err_max = err;
}

static const char *const acct_key[DACCT_KINDS] = { "uid", "cgroup" };
static const char *const acct_family[DACCT_KINDS] = { "tq_client", "tq_cgroup" };
static const char *const lat_name[DLAT_N] = { "queue_wait", "device", "delivery" };
static const char *const lat_help[DLAT_N] = {
	"from its submission to its first command's start",
	"from its first command's start to its last one's end",
	"from its last command's end to its completion record queued for the module",
};

/* Entry i of @s: the labelled ones, then other once the table is full (it stays full); NULL past. */
static const struct dacct *acct_at(const struct dacct_set *s, unsigned int max, unsigned int i)
{
	if (i < s->n)
		return s->v[i];
	return i == s->n && s->n >= max ? &s->other : NULL;
}

static void acct_label(FILE *f, const char *key, const struct dacct *a)
{
	fprintf(f, "%s=\"", key);
	label_value(f, a->label ? a->label : "other");
	fputc('"', f);
}

/* The counters of one kind of label, a family at a time. */
static void acct_fprint(FILE *f, const struct dacct_set *s, unsigned int max, int k)
{
	static const char *const outcome[3] = { "ok", "error", "cancelled" };
	const char *key = acct_key[k], *fam = acct_family[k];
	const struct dacct *a;
	char name[64];

	snprintf(name, sizeof(name), "%s_engine_seconds_total", fam);
	metric(f, name, "counter", "Device time of the tasks the core finished, by stage.");
	for (unsigned int i = 0; (a = acct_at(s, max, i)); i++)
		for (int st = 0; st < USCHED_STAGES; st++) {
			fprintf(f, "%s{", name);
			acct_label(f, key, a);
			fprintf(f, ",stage=\"%s\"} %.9f\n", stage_names[st], a->engine_ns[st] * 1e-9);
		}
	snprintf(name, sizeof(name), "%s_bytes_total", fam);
	metric(f, name, "counter", "Bytes copied for the tasks that succeeded, by direction.");
	for (unsigned int i = 0; (a = acct_at(s, max, i)); i++)
		for (int dir = 0; dir < 2; dir++) {
			fprintf(f, "%s{", name);
			acct_label(f, key, a);
			fprintf(f, ",dir=\"%s\"} %llu\n", dir ? "dth" : "htd",
				(unsigned long long)a->bytes[dir]);
		}
	snprintf(name, sizeof(name), "%s_tasks_total", fam);
	metric(f, name, "counter", "Tasks the core finished, by outcome.");
	for (unsigned int i = 0; (a = acct_at(s, max, i)); i++)
		for (int o = 0; o < 3; o++) {
			fprintf(f, "%s{", name);
			acct_label(f, key, a);
			fprintf(f, ",status=\"%s\"} %llu\n", outcome[o],
				(unsigned long long)a->tasks[o]);
		}
	snprintf(name, sizeof(name), "%s_refused_total", fam);
	metric(f, name, "counter", "Descriptors and contexts refused by a limit.");
	for (unsigned int i = 0; (a = acct_at(s, max, i)); i++) {
		fprintf(f, "%s{", name);
		acct_label(f, key, a);
		fprintf(f, "} %llu\n", (unsigned long long)a->refused);
	}
}

/* The latency histograms: of every task, then per uid. */
static void lat_fprint(FILE *f, const struct dstats *ds)
{
	const struct dacct_set *s = &ds->acct[DACCT_UID];
	const struct dacct *a;
	char name[64], help[160], label[32];

	for (int l = 0; l < DLAT_N; l++) {
		snprintf(name, sizeof(name), "tq_task_%s_seconds", lat_name[l]);
		snprintf(help, sizeof(help), "Per task the core ran, %s.", lat_help[l]);
		metric(f, name, "histogram", help);
		hist_print(f, name, "", &ds->lat[l], lat_le, NLE(lat_le));
	}
	for (int l = 0; l < DLAT_N; l++) {
		snprintf(name, sizeof(name), "tq_client_%s_seconds", lat_name[l]);
		snprintf(help, sizeof(help), "Per task the core ran, by uid, %s.", lat_help[l]);
		metric(f, name, "histogram", help);
		for (unsigned int i = 0; (a = acct_at(s, ds->acct_max, i)); i++) {
			snprintf(label, sizeof(label), "uid=\"%s\"", a->label ? a->label : "other");
			hist_print(f, name, label, &a->lat[l], lat_le, NLE(lat_le));
		}
	}
}

void metrics_fprint(FILE *f, const struct usched_stats *s, const struct dstats *ds,
		    double uptime_s)
{
	static const char *const ev[] = { NULL, "open", "task", "close" };
	double mean_err = s->tgs ? s->abs_err_sum / s->tgs : 0;

	metric(f, "tq_info", "gauge", "The device and settings usched runs with.");
	fprintf(f, "tq_info{device=\"");
	label_value(f, s->device);
	fprintf(f, "\",policy=\"%s\",copy_engines=\"%u\",kernel_queues=\"%u\",max_tg=\"%u\"} 1\n",
		s->policy, s->dma, s->kqueues, s->max_tg);
	metric(f, "tq_uptime_seconds", "gauge", "Seconds since usched started.");
	fprintf(f, "tq_uptime_seconds %.3f\n", uptime_s);
	metric(f, "tq_trace_active", "gauge", "1 while usched writes its trace (SIGUSR1 starts it).");
	fprintf(f, "tq_trace_active %d\n", s->tracing);
	metric(f, "tq_trace_bytes", "gauge", "Bytes of the trace written so far.");
	fprintf(f, "tq_trace_bytes %llu\n", (unsigned long long)s->trace_bytes);
	metric(f, "tq_trace_full", "gauge", "1 when the trace reached trace-max: it is no longer written.");
	fprintf(f, "tq_trace_full %d\n", s->trace_full);

	metric(f, "tq_tasks_total", "counter", "Tasks the core finished, by outcome.");
	fprintf(f, "tq_tasks_total{status=\"ok\"} %llu\n",
		(unsigned long long)(s->completed - s->failed - s->cancelled));
	fprintf(f, "tq_tasks_total{status=\"error\"} %llu\n", (unsigned long long)s->failed);
	fprintf(f, "tq_tasks_total{status=\"cancelled\"} %llu\n",
		(unsigned long long)s->cancelled);
	metric(f, "tq_tasks_submitted_total", "counter", "Tasks handed to the core.");
	fprintf(f, "tq_tasks_submitted_total %llu\n", (unsigned long long)s->submitted);
	metric(f, "tq_queue_depth", "gauge", "Tasks waiting for a task group.");
	fprintf(f, "tq_queue_depth %llu\n", (unsigned long long)s->waiting);
	metric(f, "tq_tasks_running", "gauge", "Tasks in a task group, not yet complete.");
	fprintf(f, "tq_tasks_running %llu\n", (unsigned long long)s->running);
	metric(f, "tq_bytes_total", "counter", "Bytes copied, by direction.");
	fprintf(f, "tq_bytes_total{dir=\"htd\"} %llu\n", (unsigned long long)s->bytes_htd);
	fprintf(f, "tq_bytes_total{dir=\"dth\"} %llu\n", (unsigned long long)s->bytes_dth);
	metric(f, "tq_domains", "gauge",
	       "Isolation domains open: OpenCL contexts of one user's own (isolate-source).");
	fprintf(f, "tq_domains %llu\n", (unsigned long long)s->domains);
	metric(f, "tq_isolated_tasks_total", "counter",
	       "Tasks finished that ran in an isolation domain's task group.");
	fprintf(f, "tq_isolated_tasks_total %llu\n", (unsigned long long)s->isolated);

	metric(f, "tq_tgs_total", "counter", "Task groups finished.");
	fprintf(f, "tq_tgs_total %llu\n", (unsigned long long)s->tgs);
	metric(f, "tq_tg_makespan_seconds_total", "counter",
	       "Sum of task-group makespans, predicted by the model and measured.");
	fprintf(f, "tq_tg_makespan_seconds_total{kind=\"predicted\"} %.9f\n",
		s->predicted_ns_sum * 1e-9);
	fprintf(f, "tq_tg_makespan_seconds_total{kind=\"measured\"} %.9f\n",
		s->measured_ns_sum * 1e-9);
	metric(f, "tq_tg_stage_seconds_total", "counter",
	       "Sum over task groups of their commands' device time per stage, in the model's "
	       "schedule and measured.");
	for (int st = 0; st < USCHED_STAGES; st++) {
		fprintf(f, "tq_tg_stage_seconds_total{stage=\"%s\",kind=\"predicted\"} %.9f\n",
			stage_names[st], s->pred_stage_ns_sum[st] * 1e-9);
		fprintf(f, "tq_tg_stage_seconds_total{stage=\"%s\",kind=\"measured\"} %.9f\n",
			stage_names[st], s->busy_stage_ns_sum[st] * 1e-9);
	}
	metric(f, "tq_tg_makespan_error_mean", "gauge",
	       "Mean over task groups of |predicted / measured - 1|.");
	fprintf(f, "tq_tg_makespan_error_mean %.6f\n", mean_err);
	metric(f, "tq_tg_makespan_error_max", "gauge",
	       "Largest |predicted / measured - 1| of a task group.");
	fprintf(f, "tq_tg_makespan_error_max %.6f\n", ds->tg_err_max);
	metric(f, "tq_last_tg_makespan_seconds", "gauge",
	       "The last task group's makespan, predicted and measured.");
	fprintf(f, "tq_last_tg_makespan_seconds{kind=\"predicted\"} %.9f\n",
		s->last.predicted_ns * 1e-9);
	fprintf(f, "tq_last_tg_makespan_seconds{kind=\"measured\"} %.9f\n",
		s->last.measured_ns * 1e-9);
	metric(f, "tq_copy_slowdown", "gauge",
	       "The model's slowdown of a copy while the other direction runs, learned.");
	fprintf(f, "tq_copy_slowdown{dir=\"htd\"} %.4f\n", s->copy_slow[0]);
	fprintf(f, "tq_copy_slowdown{dir=\"dth\"} %.4f\n", s->copy_slow[1]);
	metric(f, "tq_last_tg_tasks", "gauge", "Tasks in the last task group.");
	fprintf(f, "tq_last_tg_tasks %u\n", s->last.ntasks);
	metric(f, "tq_policy_seconds_total", "counter", "Time the policy spent ordering.");
	fprintf(f, "tq_policy_seconds_total %.9f\n", s->policy_ns * 1e-9);
	metric(f, "tq_refine_seconds_total", "counter",
	       "Idle time of the loop spent going on with plans while the device ran.");
	fprintf(f, "tq_refine_seconds_total %.9f\n", s->refine_ns * 1e-9);
	metric(f, "tq_tasks_polled_total", "counter",
	       "Tasks completed when the loop found them done, before their OpenCL callback.");
	fprintf(f, "tq_tasks_polled_total %llu\n", (unsigned long long)s->polled);
	metric(f, "tq_device_bytes_cleared_total", "counter",
	       "Device buffer bytes zeroed before a task of another owner could read them.");
	fprintf(f, "tq_device_bytes_cleared_total %llu\n", (unsigned long long)s->bytes_cleared);
	metric(f, "tq_task_command_errors_total", "counter",
	       "Tasks failed by an OpenCL error of one of their commands, at its enqueue or on "
	       "the device, by the command's stage.");
	for (int st = 0; st < USCHED_STAGES; st++)
		fprintf(f, "tq_task_command_errors_total{stage=\"%s\"} %llu\n", stage_names[st],
			(unsigned long long)s->cmd_failed[st]);
	metric(f, "tq_start_seconds", "gauge",
	       "Where usched's start went: the settings, attaching, the core's phases, and in all "
	       "until ready.");
	fprintf(f, "tq_start_seconds{phase=\"settings\"} %.6f\n", ds->start_settings_ns * 1e-9);
	fprintf(f, "tq_start_seconds{phase=\"attach\"} %.6f\n", ds->start_attach_ns * 1e-9);
	for (unsigned int p = 0; p < USCHED_START_PHASES; p++)
		fprintf(f, "tq_start_seconds{phase=\"%s\"} %.6f\n", usched_start_phase_name(p),
			s->start_ns[p] * 1e-9);
	fprintf(f, "tq_start_seconds{phase=\"ready\"} %.6f\n", ds->start_ready_ns * 1e-9);
	metric(f, "tq_calibration_cached", "gauge",
	       "1 if the transfer calibration came from the cache, not measured nor a profile.");
	fprintf(f, "tq_calibration_cached %d\n", s->calib == USCHED_CALIB_KEPT);
	metric(f, "tq_programs_total", "counter",
	       "Programs made ready for the core, by where from: the cache, or built from source.");
	fprintf(f, "tq_programs_total{from=\"cache\"} %llu\n",
		(unsigned long long)ds->cache_hits);
	fprintf(f, "tq_programs_total{from=\"source\"} %llu\n",
		(unsigned long long)ds->cache_built);
	metric(f, "tq_cache_entries_total", "counter",
	       "Cache entries written, dropped (not matching, or refused by the driver), and "
	       "evicted to stay within cache-max.");
	fprintf(f, "tq_cache_entries_total{op=\"stored\"} %llu\n",
		(unsigned long long)ds->cache_stored);
	fprintf(f, "tq_cache_entries_total{op=\"dropped\"} %llu\n",
		(unsigned long long)ds->cache_dropped);
	fprintf(f, "tq_cache_entries_total{op=\"evicted\"} %llu\n",
		(unsigned long long)ds->cache_evicted);
	metric(f, "tq_device_recoveries_total", "counter",
	       "Re-executions of usched to get the device back after a kernel ran past its "
	       "time limit (that task failed -ETIME) or the device was lost (-ENODEV).");
	fprintf(f, "tq_device_recoveries_total %llu\n", (unsigned long long)ds->recoveries);
	metric(f, "tq_tg_plans_total", "counter",
	       "Task groups auto ordered from the best order kept for their mix, by use: "
	       "none (afresh), resumed (searched on from it), proven (taken as it is).");
	for (int i = 0; i < USCHED_PLANS; i++)
		fprintf(f, "tq_tg_plans_total{plan=\"%s\"} %llu\n", usched_plan_name(i),
			(unsigned long long)s->planned[i]);

	metric(f, "tq_tg_error_ratio", "histogram",
	       "Per task group, |predicted / measured makespan - 1|.");
	hist_print(f, "tq_tg_error_ratio", "", &ds->tg_err, err_le, NLE(err_le));
	metric(f, "tq_tg_span_seconds", "histogram",
	       "Per task group, its makespan as predicted by the model and as measured.");
	hist_print(f, "tq_tg_span_seconds", "kind=\"predicted\"", &ds->tg_span[0], span_le,
		   NLE(span_le));
	hist_print(f, "tq_tg_span_seconds", "kind=\"measured\"", &ds->tg_span[1], span_le,
		   NLE(span_le));
	metric(f, "tq_tg_size_tasks", "histogram", "Per task group, the tasks in it.");
	hist_print(f, "tq_tg_size_tasks", "", &ds->tg_tasks, tasks_le, NLE(tasks_le));
	metric(f, "tq_tg_policy_seconds", "histogram",
	       "Per task group, the time the policy took to order it.");
	hist_print(f, "tq_tg_policy_seconds", "", &ds->tg_policy, policy_le, NLE(policy_le));

	metric(f, "tq_events_total", "counter", "Events read from the module, by type.");
	for (unsigned int i = 1; i < 4; i++)
		fprintf(f, "tq_events_total{type=\"%s\"} %llu\n", ev[i],
			(unsigned long long)ds->events[i]);
	metric(f, "tq_requeued_tasks_total", "counter",
	       "Tasks a previous scheduler took and did not complete.");
	fprintf(f, "tq_requeued_tasks_total %llu\n", (unsigned long long)ds->requeued);
	metric(f, "tq_rejected_tasks_total", "counter",
	       "Descriptors usched completed with an error without running them.");
	fprintf(f, "tq_rejected_tasks_total %llu\n", (unsigned long long)ds->rejected);
	metric(f, "tq_builds_total", "counter", "Program builds, by outcome.");
	fprintf(f, "tq_builds_total{status=\"ok\"} %llu\n",
		(unsigned long long)(ds->builds - ds->build_errors));
	fprintf(f, "tq_builds_total{status=\"error\"} %llu\n",
		(unsigned long long)ds->build_errors);
	metric(f, "tq_completions_total", "counter", "Completion records, by the module's answer.");
	fprintf(f, "tq_completions_total{result=\"taken\"} %llu\n",
		(unsigned long long)ds->completions);
	fprintf(f, "tq_completions_total{result=\"refused\"} %llu\n",
		(unsigned long long)ds->write_errors);
	metric(f, "tq_contexts", "gauge", "Client contexts open.");
	fprintf(f, "tq_contexts %llu\n", (unsigned long long)ds->contexts);

	metric(f, "tq_limit_refused_total", "counter",
	       "Descriptors completed with a limit's status (E2BIG, EDQUOT, EPERM, ETIME) and "
	       "contexts not served, by the usched.conf key of the limit.");
	for (unsigned int i = 0; i < DLIM_N; i++)
		if (i != DLIM_ISOLATE_SOURCE && i != DLIM_SHARE)	/* they refuse nothing */
			fprintf(f, "tq_limit_refused_total{limit=\"%s\"} %llu\n", dlim_name(i),
				(unsigned long long)ds->refused[i]);
	metric(f, "tq_build_crashes_total", "counter",
	       "Build processes that died before answering (most often of build-memory).");
	fprintf(f, "tq_build_crashes_total %llu\n", (unsigned long long)ds->build_crashes);
	metric(f, "tq_state_dropped_total", "counter",
	       "Registrations the state file had no room for (state-max): a restart forgets them.");
	fprintf(f, "tq_state_dropped_total %llu\n", (unsigned long long)ds->state_dropped);
	metric(f, "tq_users", "gauge", "Uids whose limits usched has resolved.");
	fprintf(f, "tq_users %llu\n", (unsigned long long)ds->users);

	for (int k = 0; k < DACCT_KINDS; k++)
		acct_fprint(f, &ds->acct[k], ds->acct_max, k);
	lat_fprint(f, ds);
}

/*
 * Who wrote the file and when, so that a reader can tell the figures of a
 * running usched from those one left behind (tqstat marks the file stale
 * when pid is gone or the file is older than three intervals).
 */
static void metrics_file_print(FILE *f, unsigned int interval)
{
	metric(f, "tq_metrics_time_seconds", "gauge", "When usched wrote this file (Unix time).");
	fprintf(f, "tq_metrics_time_seconds %lld\n", (long long)time(NULL));
	metric(f, "tq_metrics_interval_seconds", "gauge",
	       "Seconds between rewrites of this file (0: only at exit and on SIGHUP).");
	fprintf(f, "tq_metrics_interval_seconds %u\n", interval);
	metric(f, "tq_pid", "gauge", "usched's process id.");
	fprintf(f, "tq_pid %d\n", (int)getpid());
}

struct metrics_file {
	unsigned int interval;
	const struct usched_stats *s;
	const struct dstats *ds;
	double uptime_s;
};

static void metrics_file_fill(FILE *f, void *arg)
{
	const struct metrics_file *m = arg;

	metrics_file_print(f, m->interval);
	metrics_fprint(f, m->s, m->ds, m->uptime_s);
}

/* The metrics file (tq_prom_write()); a group refused is said once, not fatal. */
int metrics_write(const char *path, gid_t gid, unsigned int interval,
		  const struct usched_stats *s, const struct dstats *ds, double uptime_s)
{
	static gid_t warned = (gid_t)-1;
	struct metrics_file m = { interval, s, ds, uptime_s };
	int ret, group_err;

	ret = tq_prom_write(path, gid, metrics_file_fill, &m, &group_err);
	if (group_err && warned != gid) {
		warn("%s: group %u: %s; readable by usched's group only", path,
		     (unsigned int)gid, strerror(group_err));
		warned = gid;
	}
	return ret;
}

/*
 * The model against the device, for finding where a TG's makespan went
 * (Documentation/design/daemon-path.md): per TG its makespan and each
 * stage's device time as the model scheduled them and as they ran; per task
 * the same by stage, with its kernel and the size m its kernel model used.
 * Times in ms.
 */
const char metrics_tg_header[] = "policy,tg,tasks,inflight,plan,predicted_ms,measured_ms,"
				 "pred_htd_ms,meas_htd_ms,pred_k_ms,meas_k_ms,pred_dth_ms,"
				 "meas_dth_ms,policy_us,host_us";
const char metrics_task_header[] = "policy,tg,ctx,pid,kernel,m,status,pred_htd_ms,meas_htd_ms,"
				   "pred_k_ms,meas_k_ms,pred_dth_ms,meas_dth_ms";

FILE *metrics_log_open(const char *path, const char *header)
{
	FILE *f;

	if (!path)
		return NULL;
	f = fopen(path, "ae");
	if (!f) {
		warn("%s: %m; not logged", path);
		return NULL;
	}
	setvbuf(f, NULL, _IOLBF, 0);	/* whole lines, whenever the daemon stops */
	if (ftell(f) == 0)
		fprintf(f, "%s\n", header);
	return f;
}

void metrics_tg_line(FILE *f, const char *policy, const struct usched_tg_stat *s)
{
	static const char *const plan[USCHED_PLANS] = { "none", "resumed", "proven" };

	fprintf(f, "%s,%llu,%u,%u,%s,%.4f,%.4f", policy, (unsigned long long)s->seq, s->ntasks,
		s->inflight, s->plan < USCHED_PLANS ? plan[s->plan] : "?", s->predicted_ns / 1e6,
		s->measured_ns / 1e6);
	for (int st = 0; st < USCHED_STAGES; st++)
		fprintf(f, ",%.4f,%.4f", s->pred_stage_ns[st] / 1e6, s->busy_stage_ns[st] / 1e6);
	fprintf(f, ",%.2f,%.2f\n", s->policy_ns / 1e3, s->host_ns / 1e3);
}

void metrics_task_line(FILE *f, const char *policy, uint32_t ctx, uint32_t pid,
		       const char *kernel, const struct usched_completion *c)
{
	fprintf(f, "%s,%llu,%u,%u,%s,%llu,%d", policy, (unsigned long long)c->tg, ctx, pid,
		kernel ? kernel : "?", (unsigned long long)c->m, c->status);
	for (int st = 0; st < USCHED_STAGES; st++)
		fprintf(f, ",%.4f,%.4f", c->pred_ns[st] / 1e6, c->busy_ns[st] / 1e6);
	fputc('\n', f);
}
