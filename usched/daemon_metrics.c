// SPDX-License-Identifier: GPL-2.0
/*
 * daemon_metrics.c - usched's metrics in the Prometheus text exposition
 * format, for node_exporter's textfile collector or anything that reads a
 * .prom file. The file is written whole to a temporary name and renamed, so
 * a reader never sees half of it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon.h"

static void metric(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

void metrics_fprint(FILE *f, const struct usched_stats *s, const struct dstats *ds,
		    double uptime_s)
{
	static const char *const ev[] = { NULL, "open", "task", "close" };
	double mean_err = s->tgs ? s->abs_err_sum / s->tgs : 0;

	metric(f, "tq_info", "gauge", "The device and settings usched runs with.");
	fprintf(f, "tq_info{device=\"");
	for (const char *p = s->device; *p; p++)	/* label values escape \ and " */
		fprintf(f, "%s%c", *p == '"' || *p == '\\' ? "\\" : "", *p);
	fprintf(f, "\",policy=\"%s\",copy_engines=\"%u\",kernel_queues=\"%u\",max_tg=\"%u\"} 1\n",
		s->policy, s->dma, s->kqueues, s->max_tg);
	metric(f, "tq_uptime_seconds", "gauge", "Seconds since usched started.");
	fprintf(f, "tq_uptime_seconds %.3f\n", uptime_s);

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

	metric(f, "tq_tgs_total", "counter", "Task groups finished.");
	fprintf(f, "tq_tgs_total %llu\n", (unsigned long long)s->tgs);
	metric(f, "tq_tg_makespan_seconds_total", "counter",
	       "Sum of task-group makespans, predicted by the model and measured.");
	fprintf(f, "tq_tg_makespan_seconds_total{kind=\"predicted\"} %.9f\n",
		s->predicted_ns_sum * 1e-9);
	fprintf(f, "tq_tg_makespan_seconds_total{kind=\"measured\"} %.9f\n",
		s->measured_ns_sum * 1e-9);
	metric(f, "tq_tg_makespan_error_mean", "gauge",
	       "Mean over task groups of |predicted / measured - 1|.");
	fprintf(f, "tq_tg_makespan_error_mean %.6f\n", mean_err);
	metric(f, "tq_tg_makespan_error_max", "gauge",
	       "Largest |predicted / measured - 1| of a task group usched saw finish.");
	fprintf(f, "tq_tg_makespan_error_max %.6f\n", ds->tg_err_max);
	metric(f, "tq_last_tg_makespan_seconds", "gauge",
	       "The last task group's makespan, predicted and measured.");
	fprintf(f, "tq_last_tg_makespan_seconds{kind=\"predicted\"} %.9f\n",
		s->last.predicted_ns * 1e-9);
	fprintf(f, "tq_last_tg_makespan_seconds{kind=\"measured\"} %.9f\n",
		s->last.measured_ns * 1e-9);
	metric(f, "tq_last_tg_tasks", "gauge", "Tasks in the last task group.");
	fprintf(f, "tq_last_tg_tasks %u\n", s->last.ntasks);
	metric(f, "tq_policy_seconds_total", "counter", "Time the policy spent ordering.");
	fprintf(f, "tq_policy_seconds_total %.9f\n", s->policy_ns * 1e-9);

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
}

int metrics_write(const char *path, const struct usched_stats *s, const struct dstats *ds,
		  double uptime_s)
{
	size_t len = strlen(path);
	char *tmp = malloc(len + 8);
	FILE *f;
	int ret = 0;

	if (!tmp)
		return -ENOMEM;
	snprintf(tmp, len + 8, "%s.tmp", path);
	f = fopen(tmp, "we");
	if (!f) {
		ret = -errno;
		goto out;
	}
	metrics_fprint(f, s, ds, uptime_s);
	if (ferror(f))
		ret = -EIO;
	if (fclose(f) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret)
		unlink(tmp);
out:
	free(tmp);
	return ret;
}
