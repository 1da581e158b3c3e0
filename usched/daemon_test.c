// SPDX-License-Identifier: GPL-2.0
/*
 * daemon_test.c - native tests of the daemon's parts that need neither the
 * module nor a device: settings (file, flags, precedence), the metrics file
 * and the id state file (round trip, another process, a torn record).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon.h"
#include "tap.h"

static char dir[] = "/tmp/usched-daemon-test.XXXXXX";

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	fputs(text, f);
	fclose(f);
}

static char *read_file(const char *path)
{
	static char buf[16384];
	FILE *f = fopen(path, "r");
	size_t n = 0;

	buf[0] = 0;
	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = 0;
	return buf;
}

static void test_set(void)
{
	struct dconf c;
	const char *why = NULL;

	dconf_init(&c);
	tap_ok(c.metrics_interval == 5 && c.state && !strcmp(c.devnode, "/dev/tqsubmit") &&
	       !c.max_tg && !c.policy, "defaults");
	tap_ok(!dconf_set(&c, "device", "1/NVIDIA H200", &why) && !strcmp(c.platform, "1") &&
	       !strcmp(c.device, "NVIDIA H200"), "device: platform/device");
	tap_ok(!dconf_set(&c, "device", "pthread", &why) && !c.platform &&
	       !strcmp(c.device, "pthread"), "device: a device alone resets the platform");
	tap_ok(!dconf_set(&c, "device", "Portable/", &why) && !strcmp(c.platform, "Portable") &&
	       !c.device, "device: a platform alone");
	tap_ok(!dconf_set(&c, "max-tg", "16", &why) && c.max_tg == 16, "max-tg 16");
	tap_ok(dconf_set(&c, "max-tg", "0", &why) == -EINVAL && c.max_tg == 16 &&
	       dconf_set(&c, "max-tg", "65", &why) == -EINVAL &&
	       dconf_set(&c, "max-tg", "8x", &why) == -EINVAL &&
	       dconf_set(&c, "max-tg", "-1", &why) == -EINVAL &&
	       dconf_set(&c, "max-tg", "", &why) == -EINVAL, "max-tg out of range or not a number");
	tap_ok(dconf_set(&c, "copy-engines", "3", &why) == -EINVAL &&
	       !dconf_set(&c, "copy-engines", "1", &why) && c.copy_engines == 1, "copy-engines");
	tap_ok(!dconf_set(&c, "foreground", "yes", &why) && c.foreground &&
	       !dconf_set(&c, "foreground", "no", &why) && !c.foreground &&
	       dconf_set(&c, "foreground", "maybe", &why) == -EINVAL, "booleans");
	tap_ok(!dconf_set(&c, "trace", "/tmp/t.json", &why) && !strcmp(c.trace, "/tmp/t.json") &&
	       !dconf_set(&c, "trace", "", &why) && !c.trace, "an empty value unsets a path");
	why = NULL;
	tap_ok(dconf_set(&c, "max_tg", "8", &why) == -EINVAL && why &&
	       !strcmp(why, "unknown setting"), "unknown settings are refused");
	dconf_free(&c);
}

static void test_file(void)
{
	char path[256], err[512] = "";
	struct dconf c;

	snprintf(path, sizeof(path), "%s/a.conf", dir);
	write_file(path, "# comment\n\n  policy =  neh  \nmax-tg=4\n\tmetrics = /run/x.prom\n"
		   "kernel-queues = 2 # not a comment: refused\n");
	dconf_init(&c);
	tap_ok(dconf_load(&c, path, err, sizeof(err)) == -EINVAL && strstr(err, "a.conf:6:") &&
	       !strcmp(c.policy, "neh") && c.max_tg == 4 && !strcmp(c.metrics, "/run/x.prom"),
	       "file: key = value, blanks and comments; an error names its line");
	dconf_free(&c);

	write_file(path, "policy\n");
	dconf_init(&c);
	tap_ok(dconf_load(&c, path, err, sizeof(err)) == -EINVAL && strstr(err, "key = value"),
	       "file: a line without '=' is refused");
	dconf_free(&c);

	dconf_init(&c);
	snprintf(path, sizeof(path), "%s/none.conf", dir);
	tap_ok(dconf_load(&c, path, err, sizeof(err)) == -ENOENT, "file: missing is -ENOENT");
	dconf_free(&c);
}

static int args(struct dconf *c, const char *a0, ...)
{
	char *argv[16];
	int argc = 0, ret, saved_out, saved_err, null;
	va_list ap;

	argv[argc++] = "usched";
	va_start(ap, a0);
	for (const char *a = a0; a && argc < 15; a = va_arg(ap, const char *))
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;
	/* Quiet: dconf_args() prints usage and errors, which are for users. */
	fflush(stdout);
	fflush(stderr);
	saved_out = dup(1);
	saved_err = dup(2);
	null = open("/dev/null", O_WRONLY);
	dup2(null, 1);
	dup2(null, 2);
	dconf_init(c);
	ret = dconf_args(c, argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(saved_out, 1);
	dup2(saved_err, 2);
	close(saved_out);
	close(saved_err);
	close(null);
	return ret;
}

static void test_args(void)
{
	char path[256], missing[256];
	struct dconf c;
	int ret;

	snprintf(path, sizeof(path), "%s/b.conf", dir);
	snprintf(missing, sizeof(missing), "%s/missing.conf", dir);
	write_file(path, "max-tg = 4\npolicy = neh\nmetrics-interval = 10\n");

	tap_ok(!args(&c, "--config", path, "--max-tg", "6", "-f", NULL) && c.max_tg == 6 &&
	       !strcmp(c.policy, "neh") && c.metrics_interval == 10 && c.foreground &&
	       !strcmp(c.config, path), "flags override the file, the rest of it stays");
	dconf_free(&c);
	tap_ok(!args(&c, "--max-tg", "6", "--config", path, NULL) && c.max_tg == 6,
	       "flags override the file wherever --config is");
	dconf_free(&c);
	tap_ok(!args(&c, "--config", path, "--device", "0/1", "--verbose", NULL) &&
	       !strcmp(c.platform, "0") && !strcmp(c.device, "1") && c.verbose,
	       "--device and a boolean flag");
	dconf_free(&c);
	tap_ok(args(&c, "--config", missing, NULL) == -EINVAL, "a missing --config is an error");
	dconf_free(&c);
	tap_ok(args(&c, "--config", path, "--bogus", NULL) == -EINVAL, "an unknown flag");
	dconf_free(&c);
	tap_ok(args(&c, "--config", path, "--max-tg", "100", NULL) == -EINVAL,
	       "a flag out of range");
	dconf_free(&c);
	tap_ok(args(&c, "--config", path, "extra", NULL) == -EINVAL, "a stray argument");
	dconf_free(&c);
	tap_ok(args(&c, "--help", NULL) == 1, "--help");
	dconf_free(&c);
	/* Twice more, as SIGHUP's reload does. */
	ret = args(&c, "--config", path, "--max-tg", "7", NULL) || c.max_tg != 7;
	dconf_free(&c);
	ret |= args(&c, "--config", path, "--max-tg", "7", NULL) || c.max_tg != 7;
	dconf_free(&c);
	tap_ok(!ret, "parsing again gives the same settings");
}

static void test_metrics(void)
{
	struct usched_stats s = {
		.submitted = 12, .completed = 10, .failed = 2, .cancelled = 1, .tgs = 3,
		.bytes_htd = 4096, .waiting = 2, .running = 0, .predicted_ns_sum = 3e6,
		.measured_ns_sum = 4e6, .abs_err_sum = 0.75, .dma = 2, .kqueues = 1, .max_tg = 8,
		.copy_slow = { 1.125, 1.0875 },
		.last = { .seq = 3, .ntasks = 4, .predicted_ns = 1e6, .measured_ns = 2e6 },
	};
	struct dstats ds = { .events = { 0, 2, 14, 1 }, .builds = 3, .build_errors = 1 };
	char path[256], tmp[300];
	char *text, *line, *save;
	int bad = 0, samples = 0;

	strcpy(s.policy, "neh");
	strcpy(s.device, "GPU \"x\" \\ 1");
	snprintf(path, sizeof(path), "%s/m.prom", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	tap_ok(!metrics_write(path, &s, &ds, 1.5) && access(tmp, F_OK), "metrics written, "
	       "no temporary left");
	text = read_file(path);
	tap_ok(strstr(text, "tq_tasks_total{status=\"ok\"} 7\n") &&
	       strstr(text, "tq_tasks_total{status=\"error\"} 2\n") &&
	       strstr(text, "tq_queue_depth 2\n") && strstr(text, "tq_tgs_total 3\n") &&
	       strstr(text, "tq_tg_makespan_error_mean 0.250000\n") &&
	       strstr(text, "tq_events_total{type=\"task\"} 14\n") &&
	       strstr(text, "tq_builds_total{status=\"error\"} 1\n") &&
	       strstr(text, "tq_copy_slowdown{dir=\"htd\"} 1.1250\n") &&
	       strstr(text, "tq_copy_slowdown{dir=\"dth\"} 1.0875\n"),
	       "metrics: the counters, ok = completed - failed - cancelled");
	tap_ok(strstr(text, "device=\"GPU \\\"x\\\" \\\\ 1\"") != NULL,
	       "metrics: label values escaped");
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *v = strrchr(line, ' ');
		char *end;

		if (line[0] == '#')
			continue;
		samples++;
		if (!v || (strtod(v + 1, &end), *end))
			bad++;
	}
	tap_ok(samples > 20 && !bad, "metrics: %d samples, each ends in a number", samples);

	/* Three TGs through the core's per-TG callback; one ran nothing. */
	metrics_tg(&ds, &(struct usched_tg_stat){ .ntasks = 8, .predicted_ns = 1.04e6,
						   .measured_ns = 1e6, .policy_ns = 5000 });
	metrics_tg(&ds, &(struct usched_tg_stat){ .ntasks = 3, .predicted_ns = 2e6,
						   .measured_ns = 4e6, .policy_ns = 200 });
	metrics_tg(&ds, &(struct usched_tg_stat){ .ntasks = 1, .predicted_ns = 1e6 });
	metrics_write(path, &s, &ds, 2);
	text = read_file(path);
	tap_ok(strstr(text, "# TYPE tq_tg_error_ratio histogram\n") &&
	       strstr(text, "tq_tg_error_ratio_bucket{le=\"0.02\"} 0\n") &&
	       strstr(text, "tq_tg_error_ratio_bucket{le=\"0.05\"} 1\n") &&
	       strstr(text, "tq_tg_error_ratio_bucket{le=\"0.5\"} 2\n") &&
	       strstr(text, "tq_tg_error_ratio_bucket{le=\"+Inf\"} 2\n") &&
	       strstr(text, "tq_tg_error_ratio_sum 0.54\n") &&
	       strstr(text, "tq_tg_error_ratio_count 2\n") &&
	       strstr(text, "tq_tg_makespan_error_max 0.500000\n"),
	       "metrics: per-TG error histogram (cumulative buckets, sum, count) and max");
	tap_ok(strstr(text, "tq_tg_span_seconds_bucket{kind=\"measured\",le=\"0.001\"} 1\n") &&
	       strstr(text, "tq_tg_span_seconds_bucket{kind=\"predicted\",le=\"0.001\"} 0\n") &&
	       strstr(text, "tq_tg_span_seconds_count{kind=\"measured\"} 2\n") &&
	       strstr(text, "tq_tg_size_tasks_bucket{le=\"2\"} 1\n") &&
	       strstr(text, "tq_tg_size_tasks_bucket{le=\"4\"} 2\n") &&
	       strstr(text, "tq_tg_size_tasks_sum 12\n") &&
	       strstr(text, "tq_tg_size_tasks_count 3\n") &&
	       strstr(text, "tq_tg_policy_seconds_bucket{le=\"1e-06\"} 2\n") &&
	       strstr(text, "tq_tg_policy_seconds_bucket{le=\"1e-05\"} 3\n"),
	       "metrics: makespans by kind, TG sizes (every TG), policy times");
	snprintf(path, sizeof(path), "%s/no/such/dir/m.prom", dir);
	tap_ok(metrics_write(path, &s, &ds, 1) == -ENOENT, "metrics: a bad path is an error");
}

static struct dctx *new_ctx(uint32_t id, uint32_t pid)
{
	struct dctx *c = calloc(1, sizeof(*c));

	c->id = id;
	c->pid = pid;
	return c;
}

static void test_state(void)
{
	static const char src[] = "__kernel void f(__global int *x)\n{\n\tx[0] = 1;\n}\n";
	struct daemon d = { 0 }, d2 = { 0 };
	struct dctx *c = new_ctx(7, 1234), *r;
	char path[256];
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%s/state/usched.state", dir);
	dconf_init(&d.conf);
	free(d.conf.state);
	d.conf.state = strdup(path);
	tap_ok(!state_open(&d) && d.state_fd >= 0, "state: opened (its directory made)");

	ctx_prog_add(c, true, "VA", NULL);
	ctx_prog_add(c, false, src, "-cl-fast-relaxed-math");
	ctx_kern_add(c, 1, "vec_add");
	ctx_kern_add(c, 2, "f");
	state_add_prog(&d, c, 1);
	state_add_kern(&d, c, 1);
	state_add_prog(&d, c, 2);
	state_add_kern(&d, c, 2);
	d.ctx[c->id % DCTX_HASH] = c;

	d2.conf = d.conf;
	state_open(&d2);
	r = new_ctx(7, 1234);
	tap_ok(state_restore(&d2, r) == 1 && r->nprogs == 2 && r->nkerns == 2 &&
	       r->progs[0].builtin && !strcmp(r->progs[0].text, "VA") && !r->progs[0].opts &&
	       !r->progs[1].builtin && !strcmp(r->progs[1].text, src) &&
	       !strcmp(r->progs[1].opts, "-cl-fast-relaxed-math") &&
	       r->kerns[0].prog == 1 && !strcmp(r->kerns[0].name, "vec_add") &&
	       r->kerns[1].prog == 2 && !strcmp(r->kerns[1].name, "f") && !r->progs[0].core,
	       "state: a restarted daemon gets the same ids back (to rebuild)");
	ctx_free(r);
	r = new_ctx(7, 999);
	tap_ok(state_restore(&d2, r) == 0 && !r->nprogs, "state: not for another process");
	ctx_free(r);
	close(d2.state_fd);
	free(d2.saved);

	/* A crash in mid-append: the torn record and what follows are ignored. */
	stat(path, &st);
	if (truncate(path, st.st_size - 3))
		tap_diag("truncate: %m");
	d2.saved = NULL;
	state_open(&d2);
	r = new_ctx(7, 1234);
	tap_ok(state_restore(&d2, r) == 1 && r->nprogs == 2 && r->nkerns == 1,
	       "state: a torn last record is dropped");
	ctx_free(r);
	close(d2.state_fd);
	free(d2.saved);

	/* Compaction keeps the live contexts only. */
	state_compact(&d);
	stat(path, &st);
	tap_ok(st.st_size > 0, "state: compacted with the live context kept");
	d.ctx[c->id % DCTX_HASH] = NULL;
	state_compact(&d);
	stat(path, &st);
	fd = open(path, O_RDONLY);
	tap_ok(st.st_size == 0 && fd >= 0, "state: compacted to nothing once it is gone");
	close(fd);
	ctx_free(c);
	state_close(&d);
	dconf_free(&d.conf);
}

int main(void)
{
	char cmd[300];

	if (!mkdtemp(dir)) {
		tap_ok(0, "mkdtemp");
		return tap_done();
	}
	dlog_init(true, false);
	test_set();
	test_file();
	test_args();
	test_metrics();
	test_state();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		tap_diag("could not remove %s", dir);
	return tap_done();
}
