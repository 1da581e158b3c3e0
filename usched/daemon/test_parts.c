// SPDX-License-Identifier: GPL-2.0
/*
 * test_parts.c - native tests of the daemon's parts that need neither the
 * module nor a device: settings (file, flags, precedence), the metrics file
 * and the id state file (round trip, another process, a torn record), the
 * limits (values, [user] and [group] sections, their resolution, each
 * limit's arithmetic, the state file's bound). Then, where OpenCL has a
 * device, builds in the usched-build child: a binary loaded into a core,
 * a compile error's log, a compile bomb killed at its time limit.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef USCHED_BUILD_BIN
#define USCHED_BUILD_BIN "build/bin/usched-build"
#endif

#include "daemon.h"
#include "selftests/tap.h"

static char dir[] = "/tmp/usched-daemon-test.XXXXXX";

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	fputs(text, f);
	fclose(f);
}

static char *read_file(const char *path)
{
	static char buf[1 << 17];
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
	tap_ok(c.metrics_interval == 5 && c.metrics_clients == 64 && c.state && !strcmp(c.devnode, "/dev/tqsubmit") &&
	       !c.max_tg && !c.policy, "defaults");
	tap_ok(!dconf_set(&c, "device", "1/NVIDIA H200", &why) && !strcmp(c.platform, "1") &&
	       !strcmp(c.device, "NVIDIA H200"), "device: platform/device");
	tap_ok(!dconf_set(&c, "device", "pthread", &why) && !c.platform &&
	       !strcmp(c.device, "pthread"), "device: a device alone resets the platform");
	tap_ok(!dconf_set(&c, "device", "Portable/", &why) && !strcmp(c.platform, "Portable") &&
	       !c.device, "device: a platform alone");
	tap_ok(!dconf_set(&c, "max-tg", "16", &why) && c.max_tg == 16, "max-tg 16");
	tap_ok(!dconf_set(&c, "metrics-clients", "0", &why) && !c.metrics_clients &&
	       dconf_set(&c, "metrics-clients", "4097", &why) == -EINVAL && !c.metrics_clients,
	       "metrics-clients 0 taken, 4097 refused");
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

/* kernel-queues = auto: the setting, and the count chosen from profile files. */
static void test_kqueues_auto(void)
{
	static const char head[] = "tq-profile 1\ndma 2\nhtd alone 1 1\nhtd overlapped 1 1\n"
				   "dth alone 1 1\ndth overlapped 1 1\nkernel a 1 10000\n";
	static const struct {
		const char *what, *lines;
		unsigned int kq;
		const char *why;
	} cases[] = {
		{ "kernels of half the device", "width a 1000:0.5 1e8:0.5\n", 3, "2: 77.8" },
		{ "kernels that fill it", "width a 1000:1 1e8:1\n", 1, "2: 137.8" },
		/* a second queue loses: the log shows it slower */
		{ "kernels that fill it, at a cost of 0.1 overlapped",
		  "demand a 1000:1 1e8:1\nconcurrent demand fair 0.1\n", 1, "(+8.7%)" },
		{ "no shares", "", 2, "the profile gives no kernel shares" },
	};
	char path[256], text[512], why[512];
	const char *w = NULL;
	unsigned int kq;
	struct dconf c;
	int ret;

	dconf_init(&c);
	tap_ok(!dconf_set(&c, "kernel-queues", "auto", &w) && c.kernel_queues == DCONF_AUTO &&
	       !dconf_set(&c, "kernel-queues", "3", &w) && c.kernel_queues == 3,
	       "kernel-queues: auto or a number");
	tap_ok(dconf_set(&c, "kernel-queues", "0", &w) == -EINVAL && c.kernel_queues == 3 &&
	       !strcmp(w, "not auto or a number in range") &&
	       dconf_set(&c, "kernel-queues", "9", &w) == -EINVAL &&
	       dconf_set(&c, "kernel-queues", "Auto", &w) == -EINVAL &&
	       dconf_set(&c, "kernel-queues", "", &w) == -EINVAL,
	       "kernel-queues: 0, 9, Auto and nothing refused");
	dconf_free(&c);
	snprintf(path, sizeof(path), "%s/kq.conf", dir);
	write_file(path, "kernel-queues = auto\n");
	dconf_init(&c);
	tap_ok(!dconf_load(&c, path, why, sizeof(why)) && c.kernel_queues == DCONF_AUTO,
	       "kernel-queues = auto in a file");
	dconf_free(&c);

	ret = dconf_kqueues_auto(NULL, &kq, why, sizeof(why));
	tap_ok(!ret && kq == DCONF_KQ_UNKNOWN && strstr(why, "no profile"), "no profile: %u (%s)",
	       kq, why);
	snprintf(path, sizeof(path), "%s/kq.profile", dir);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text), "%s%s", head, cases[i].lines);
		write_file(path, text);
		ret = dconf_kqueues_auto(path, &kq, why, sizeof(why));
		tap_ok(!ret && kq == cases[i].kq && strstr(why, cases[i].why), "%s: %u (%s)",
		       cases[i].what, kq, why);
	}
	ret = dconf_kqueues_auto("Documentation/results/h100/h100.profile", &kq, why, sizeof(why));
	tap_ok(!ret && kq == 2, "the H100's committed profile (widths, the rule before): %u (%s)",
	       kq, why);
	write_file(path, "tq-profile 1\ndma 3\n");
	ret = dconf_kqueues_auto(path, &kq, why, sizeof(why));
	tap_ok(ret == -EINVAL && strstr(why, "kq.profile:2: dma must be 1 or 2"),
	       "a bad profile: -EINVAL, with its line (%s)", why);
	unlink(path);
	ret = dconf_kqueues_auto(path, &kq, why, sizeof(why));
	tap_ok(ret == -ENOENT && strstr(why, "No such file"), "no such profile: -ENOENT (%s)", why);
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

	snprintf(path, sizeof(path), "%s/a.conf", dir);
	write_file(path, "max-tg = 4\npolicy = fastest\n");
	dconf_init(&c);
	tap_ok(dconf_load(&c, path, err, sizeof(err)) == -EINVAL &&
	       strstr(err, "a.conf:2: policy: no such policy"), "file: an unknown policy: %s", err);
	dconf_free(&c);
	write_file(path, "# a comment\npolicy = neh # not one\n");
	dconf_init(&c);
	tap_ok(dconf_load(&c, path, err, sizeof(err)) == -EINVAL &&
	       strstr(err, "a.conf:2: policy: a comment takes a line of its own"),
	       "file: a trailing comment, even after a name: %s", err);
	dconf_free(&c);
	write_file(path, "\nprofile = /nonexistent/profile\n");
	dconf_init(&c);
	tap_ok(dconf_load(&c, path, err, sizeof(err)) == -EINVAL &&
	       strstr(err, "a.conf:2: profile: no such file"), "file: a missing profile: %s", err);
	dconf_free(&c);
}

/* FILE.d/NAME.conf after FILE, in NAME's order, each starting outside any section. */
static void test_dropins(void)
{
	char path[200], d[256], p[300], err[512] = "";
	struct dconf c;

	snprintf(path, sizeof(path), "%s/u.conf", dir);
	snprintf(d, sizeof(d), "%s.d", path);
	mkdir(d, 0755);
	write_file(path, "max-tg = 4\npolicy = neh\n[user 0]\nmax-source = 2K\n");
	snprintf(p, sizeof(p), "%s/20-b.conf", d);
	write_file(p, "policy = exact\nmax-source = 3K\n");
	snprintf(p, sizeof(p), "%s/10-a.conf", d);
	write_file(p, "policy = fifo\nkernel-queues = 2\n");
	snprintf(p, sizeof(p), "%s/30-c.conf.off", d);
	write_file(p, "policy = bogus\n");
	dconf_init(&c);
	tap_ok(!dconf_load(&c, path, err, sizeof(err)) && c.max_tg == 4 && c.kernel_queues == 2 &&
	       !strcmp(c.policy, "exact") && c.lim.v[DLIM_SOURCE] == 3072 && c.nsect == 1,
	       "drop-ins: read after the file in order, each outside the file's section (%s)",
	       err);
	dconf_free(&c);
	snprintf(p, sizeof(p), "%s/40-d.conf", d);
	write_file(p, "\nmax-tg = 99\n");
	dconf_init(&c);
	tap_ok(dconf_load(&c, path, err, sizeof(err)) == -EINVAL &&
	       strstr(err, "u.conf.d/40-d.conf:2: max-tg:"), "drop-ins: an error names its file "
	       "and line: %s", err);
	dconf_free(&c);
	unlink(p);
	unlink(path);
	dconf_init(&c);
	tap_ok(dconf_load(&c, path, err, sizeof(err)) == -ENOENT && !strcmp(c.policy, "exact"),
	       "drop-ins: read without the file, which is missing (-ENOENT)");
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
		.copy_slow = { 1.125, 1.0875 }, .cmd_failed = { 0, 2, 0 },
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
	tap_ok(!metrics_write(path, (gid_t)-1, 5, &s, &ds, 1.5) && access(tmp, F_OK), "metrics written, "
	       "no temporary left");
	text = read_file(path);
	tap_ok(strstr(text, "tq_tasks_total{status=\"ok\"} 7\n") &&
	       strstr(text, "tq_tasks_total{status=\"error\"} 2\n") &&
	       strstr(text, "tq_queue_depth 2\n") && strstr(text, "tq_tgs_total 3\n") &&
	       strstr(text, "tq_tg_makespan_error_mean 0.250000\n") &&
	       strstr(text, "tq_events_total{type=\"task\"} 14\n") &&
	       strstr(text, "tq_builds_total{status=\"error\"} 1\n") &&
	       strstr(text, "tq_copy_slowdown{dir=\"htd\"} 1.1250\n") &&
	       strstr(text, "tq_copy_slowdown{dir=\"dth\"} 1.0875\n") &&
	       strstr(text, "tq_task_command_errors_total{stage=\"k\"} 2\n") &&
	       strstr(text, "tq_task_command_errors_total{stage=\"dth\"} 0\n"),
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
	metrics_write(path, (gid_t)-1, 5, &s, &ds, 2);
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
	tap_ok(metrics_write(path, (gid_t)-1, 5, &s, &ds, 1) == -ENOENT,
	       "metrics: a bad path is an error");
}

/*
 * The file is mode 0640 under the service's umask 0077, in the group asked
 * for (here the last of ours), and says who wrote it, when and how often.
 */
static void test_metrics_file(void)
{
	struct usched_stats s = { .max_tg = 8 };
	struct dstats ds = { 0 };
	gid_t groups[64];
	int n = getgroups(64, groups);
	gid_t gid = n > 0 ? groups[n - 1] : getegid();
	char path[256], want[64];
	mode_t old = umask(077);
	struct stat st;
	char *text;
	long long t;

	snprintf(path, sizeof(path), "%s/g.prom", dir);
	tap_ok(!metrics_write(path, gid, 7, &s, &ds, 1) && !stat(path, &st) &&
	       (st.st_mode & 07777) == 0640 && st.st_gid == gid,
	       "metrics: mode 0640 under umask 077, group %u", (unsigned int)gid);
	umask(old);
	text = read_file(path);
	snprintf(want, sizeof(want), "\ntq_pid %d\n", (int)getpid());
	tap_ok(strstr(text, want) && strstr(text, "\ntq_metrics_interval_seconds 7\n") &&
	       sscanf(strstr(text, "\ntq_metrics_time_seconds ") ?: "", "\ntq_metrics_time_seconds %lld",
		      &t) == 1 && llabs(t - (long long)time(NULL)) <= 2,
	       "metrics: the writer's pid, the time written and the interval");
}

static struct dctx *new_ctx(uint32_t id, uint32_t pid)
{
	struct dctx *c = calloc(1, sizeof(*c));

	c->id = id;
	c->pid = pid;
	return c;
}

/*
 * A task failed by a command's OpenCL error: its completion record, and a
 * line naming the context, the task, the stage and the error, ten a second
 * at most; the next line counts those left out.
 */
static void test_cmd_log(void)
{
	struct usched_completion uc = { .owner = 7, .status = -EIO, .cl_error = -9999,
					.cl_stage = USCHED_K };
	struct daemon d = { 0 };
	int saved, fd, lines = 0;
	char path[256], *text, *p;
	bool first, last;

	snprintf(path, sizeof(path), "%s/log", dir);
	fflush(stderr);
	saved = dup(2);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 2);
	for (int i = 0; i < 13; i++) {
		struct dtask *t = calloc(1, sizeof(*t));

		t->tag = 0x1000 + i;
		uc.user_data = (uintptr_t)t;
		if (i == 12)
			d.cmd_log_at -= 1000000000;	/* a second later */
		ctx_complete(&d, &uc);
	}
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(fd);
	text = read_file(path);
	for (p = text; (p = strchr(p, '\n')); p++)
		lines++;
	first = strstr(text, "usched: context 7 (pid 0): task 4096 (kernel ?): its kernel failed "
			     "with unknown OpenCL error (-9999): Input/output error; 0 more "
			     "not logged\n") == text;
	last = strstr(text, "task 4108 (kernel ?): its kernel failed with unknown OpenCL error "
			    "(-9999): Input/output error; 2 more not logged\n") != NULL;
	tap_ok(d.nout == 13 && d.out[0].status == -EIO && d.out[12].tag == 0x100c,
	       "a command's error: the task's completion written (%zu)", d.nout);
	tap_ok(lines == 11 && first && last, "a command's error: a line naming the context, the "
	       "task, the stage and the error, 10 a second, then the count left out (%d lines)",
	       lines);
	free(d.out);
	free(d.wbuf);
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
	tap_ok(ctx_restore(&d2, r) == 1 && r->nprogs == 2 && r->nkerns == 2 &&
	       r->progs[0].builtin && !strcmp(r->progs[0].text, "VA") && !r->progs[0].opts &&
	       !r->progs[1].builtin && !strcmp(r->progs[1].text, src) &&
	       !strcmp(r->progs[1].opts, "-cl-fast-relaxed-math") &&
	       r->kerns[0].prog == 1 && !strcmp(r->kerns[0].name, "vec_add") &&
	       r->kerns[1].prog == 2 && !strcmp(r->kerns[1].name, "f") && !r->progs[0].core,
	       "state: a restarted daemon gets the same ids back (to rebuild)");
	ctx_free(r);
	r = new_ctx(7, 999);
	tap_ok(ctx_restore(&d2, r) == 0 && !r->nprogs, "state: not for another process");
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
	tap_ok(ctx_restore(&d2, r) == 1 && r->nprogs == 2 && r->nkerns == 1,
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

static void test_limit_values(void)
{
	const char *why = NULL;
	struct dconf c;

	dconf_init(&c);
	tap_ok(c.lim.v[DLIM_WORK_ITEMS] == 1ull << 32 && c.lim.v[DLIM_SOURCE] == 1 << 20 &&
	       c.lim.v[DLIM_OPTIONS] == 1024 && c.lim.v[DLIM_BUILD_TIME] == 60000000000ull &&
	       c.lim.v[DLIM_CTX_PROGRAMS] == 64 && !c.lim.v[DLIM_ALLOW_SOURCE] &&
	       !c.lim.v[DLIM_KERNEL_TIME] && c.build_jobs == 2 && c.user_build_jobs == 1,
	       "limits: defaults (source refused, 1M source, 60 s builds)");
	tap_ok(!dconf_set(&c, "max-source", "64K", &why) && c.lim.v[DLIM_SOURCE] == 65536 &&
	       !dconf_set(&c, "context-arena", "2g", &why) &&
	       c.lim.v[DLIM_CTX_ARENA] == 2ull << 30 &&
	       !dconf_set(&c, "max-work-items", "12345", &why) &&
	       c.lim.v[DLIM_WORK_ITEMS] == 12345 &&
	       !dconf_set(&c, "user-arena", "none", &why) && !c.lim.v[DLIM_USER_ARENA],
	       "limits: sizes with K, M, G suffixes, counts, none");
	tap_ok(dconf_set(&c, "max-source", "1X", &why) == -EINVAL &&
	       dconf_set(&c, "max-source", "1KK", &why) == -EINVAL &&
	       dconf_set(&c, "max-source", "-1", &why) == -EINVAL &&
	       dconf_set(&c, "max-source", "99999999999T", &why) == -EINVAL &&
	       dconf_set(&c, "max-work-items", "1K", &why) == -EINVAL &&
	       c.lim.v[DLIM_SOURCE] == 65536, "limits: bad sizes refused, the value kept");
	tap_ok(!dconf_set(&c, "build-time-limit", "90", &why) &&
	       c.lim.v[DLIM_BUILD_TIME] == 90000000000ull &&
	       !dconf_set(&c, "kernel-time-limit", "250ms", &why) &&
	       c.lim.v[DLIM_KERNEL_TIME] == 250000000ull &&
	       !dconf_set(&c, "build-time-limit", "2m", &why) &&
	       c.lim.v[DLIM_BUILD_TIME] == 120000000000ull &&
	       dconf_set(&c, "build-time-limit", "5h", &why) == -EINVAL &&
	       dconf_set(&c, "build-time-limit", "s", &why) == -EINVAL,
	       "limits: times in seconds, ms, m");
	tap_ok(!dconf_set(&c, "allow-source", "yes", &why) && c.lim.v[DLIM_ALLOW_SOURCE] == 1 &&
	       dconf_set(&c, "allow-source", "sure", &why) == -EINVAL,
	       "limits: allow-source yes or no");
	tap_ok(c.lim.v[DLIM_ISOLATE_SOURCE] == 1 &&
	       !dconf_set(&c, "isolate-source", "no", &why) && !c.lim.v[DLIM_ISOLATE_SOURCE] &&
	       dconf_set(&c, "isolate-source", "maybe", &why) == -EINVAL &&
	       !strcmp(dlim_name(DLIM_ISOLATE_SOURCE), "isolate-source"),
	       "limits: isolate-source yes (the default) or no");
	tap_ok(!dconf_set(&c, "state-max", "1M", &why) && c.state_max == 1 << 20 &&
	       !dconf_set(&c, "build-jobs", "4", &why) && c.build_jobs == 4 &&
	       dconf_set(&c, "build-jobs", "0", &why) == -EINVAL, "state-max and build-jobs");
	tap_ok(!strcmp(dlim_name(DLIM_WORK_ITEMS), "max-work-items") &&
	       !strcmp(dlim_name(DLIM_ALLOW_SOURCE), "allow-source") &&
	       !strcmp(dlim_name(DLIM_USER_ARENA), "user-arena"), "limits: names");
	dconf_free(&c);
}

static int load(struct dconf *c, const char *text, char *err, size_t errlen)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/l.conf", dir);
	write_file(path, text);
	dconf_init(c);
	err[0] = 0;
	return dconf_load(c, path, err, errlen);
}

static void test_sections(void)
{
	static const uint32_t g_dev[] = { 100, 200 }, g_both[] = { 100, 300 }, g_none[] = { 5 };
	struct dlimits l;
	char err[512];
	struct dconf c;
	int ret;

	ret = load(&c,
		   "max-source = 1K\n"
		   "context-programs = 8\n"
		   "[group 200]\n"
		   "allow-source = yes\n"
		   "context-programs = 16\n"
		   "max-source = 4K\n"
		   "[group 300]\n"
		   "context-programs = none\n"
		   "max-source = 2K\n"
		   "[ user 1000 ]\n"
		   "max-source = 100\n"
		   "[user root]\n"
		   "context-kernels = 3\n"
		   "[group 100]\n"
		   "max-source = 3K\n", err, sizeof(err));
	tap_ok(!ret && c.nsect == 5 && c.lim.v[DLIM_SOURCE] == 1024 && !c.sect[0].set == 0 &&
	       c.sect[2].id == 1000 && !c.sect[2].group && c.sect[3].id == 0,
	       "sections: read (%s)", err);
	dconf_limits(&c, 2000, g_none, 1, &l);
	tap_ok(l.v[DLIM_SOURCE] == 1024 && l.v[DLIM_CTX_PROGRAMS] == 8 &&
	       !l.v[DLIM_ALLOW_SOURCE] && l.v[DLIM_CTX_KERNELS] == 256,
	       "resolve: a user of no section gets the global values");
	dconf_limits(&c, 2000, g_dev, 2, &l);
	tap_ok(l.v[DLIM_SOURCE] == 4096 && l.v[DLIM_CTX_PROGRAMS] == 16 &&
	       l.v[DLIM_ALLOW_SOURCE] == 1, "resolve: a group section beats the global values");
	dconf_limits(&c, 2000, g_both, 2, &l);
	tap_ok(l.v[DLIM_SOURCE] == 3072 && !l.v[DLIM_CTX_PROGRAMS] && !l.v[DLIM_ALLOW_SOURCE],
	       "resolve: of several groups the most generous value (largest; none beats all)");
	dconf_limits(&c, 1000, g_dev, 2, &l);
	tap_ok(l.v[DLIM_SOURCE] == 100 && l.v[DLIM_CTX_PROGRAMS] == 16 &&
	       l.v[DLIM_ALLOW_SOURCE] == 1,
	       "resolve: the user section beats its groups, key by key");
	dconf_limits(&c, 0, g_none, 1, &l);
	tap_ok(l.v[DLIM_ALLOW_SOURCE] == 1 && l.v[DLIM_CTX_KERNELS] == 3 &&
	       l.v[DLIM_SOURCE] == 1024, "resolve: root may build source by default");
	dconf_free(&c);

	ret = load(&c, "[user root]\nallow-source = no\n", err, sizeof(err));
	dconf_limits(&c, 0, NULL, 0, &l);
	tap_ok(!ret && !l.v[DLIM_ALLOW_SOURCE], "resolve: unless a section of root's says no");
	dconf_free(&c);
	ret = load(&c, "isolate-source = no\n[group 100]\nisolate-source = yes\n[group 200]\n"
		   "isolate-source = no\n[user 9]\nisolate-source = no\n", err, sizeof(err));
	dconf_limits(&c, 8, g_none, 1, &l);
	tap_ok(!ret && !l.v[DLIM_ISOLATE_SOURCE], "resolve: isolate-source's global value");
	dconf_limits(&c, 8, g_dev, 2, &l);
	tap_ok(l.v[DLIM_ISOLATE_SOURCE] == 1, "resolve: isolate-source yes if a group says yes");
	dconf_limits(&c, 9, g_dev, 2, &l);
	tap_ok(!l.v[DLIM_ISOLATE_SOURCE], "resolve: isolate-source per user, over its groups");
	dconf_free(&c);
	ret = load(&c, "[user 7]\nmax-source = 1K\n[user 7]\nmax-source = 2K\n", err,
		   sizeof(err));
	dconf_limits(&c, 7, NULL, 0, &l);
	tap_ok(!ret && l.v[DLIM_SOURCE] == 2048, "resolve: two sections of a user: the later");
	dconf_free(&c);

	ret = load(&c, "[user 1000]\npolicy = fifo\n", err, sizeof(err));
	tap_ok(ret == -EINVAL && strstr(err, ":2: policy: not a per-user setting"),
	       "sections: only limits per user (%s)", err);
	dconf_free(&c);
	ret = load(&c, "[user no-such-user-here]\n", err, sizeof(err));
	tap_ok(ret == -EINVAL && strstr(err, ":1: user no-such-user-here: no such user"),
	       "sections: an unknown user is an error (%s)", err);
	dconf_free(&c);
	ret = load(&c, "[group no-such-group-here]\n", err, sizeof(err));
	tap_ok(ret == -EINVAL && strstr(err, "no such group"), "sections: an unknown group (%s)",
	       err);
	dconf_free(&c);
	ret = load(&c, "[users 1]\n", err, sizeof(err));
	tap_ok(ret == -EINVAL && strstr(err, "want [user NAME|UID]"), "sections: a bad kind");
	dconf_free(&c);
	ret = load(&c, "[user 1\n", err, sizeof(err));
	tap_ok(ret == -EINVAL && strstr(err, ":1: want [user"), "sections: an unclosed header");
	dconf_free(&c);
	ret = load(&c, "[user 1]\nmax-source = lots\n", err, sizeof(err));
	tap_ok(ret == -EINVAL && strstr(err, ":2: max-source: want a size"),
	       "sections: a bad value, with its line (%s)", err);
	dconf_free(&c);

	/* From the user database: root is uid 0 everywhere, in group 0. */
	ret = load(&c, "[group 0]\nmax-options = 77\n", err, sizeof(err));
	dconf_user_limits(&c, 0, &l);
	tap_ok(!ret && l.v[DLIM_OPTIONS] == 77, "resolve: groups from the user database");
	dconf_user_limits(&c, 4000000000u, &l);
	tap_ok(l.v[DLIM_OPTIONS] == 1024, "resolve: a uid the database lacks: global values");
	dconf_free(&c);
}

/*
 * QoS settings: max-prio and share per user and group (root may take the
 * top class), the core's prio-ahead and deadline, share-by; then what a
 * task's class, deadline and share become in the core's usched_task.
 */
static void test_qos(void)
{
	static const uint32_t g_dev[] = { 100, 200 }, g_none[] = { 5 };
	struct dctx ctx = { .prio = TQ_PRIO_NORMAL, .share = 1001 };
	struct usched_task ut;
	struct tq_desc t = { .opcode = TQ_OP_TASK };
	struct dlimits l;
	struct dconf c;
	const char *why = "";
	char err[256] = "";
	int ret;

	dconf_init(&c);
	dconf_limits(&c, 1000, NULL, 0, &l);
	tap_ok(l.v[DLIM_MAX_PRIO] == TQ_PRIO_HIGH && l.v[DLIM_SHARE] == 1 &&
	       c.deadline == USCHED_DEADLINE_REFUSE && c.share_by == DSHARE_UID &&
	       !c.prio_ahead_ns, "qos: defaults max-prio high, share 1, deadline refuse, by uid");
	dconf_limits(&c, 0, NULL, 0, &l);
	tap_ok(l.v[DLIM_MAX_PRIO] == TQ_PRIO_CRITICAL, "qos: root may take critical");
	tap_ok(!dconf_set(&c, "prio-ahead", "3ms", &why) && c.prio_ahead_ns == 3000000 &&
	       !dconf_set(&c, "deadline", "flag", &why) && c.deadline == USCHED_DEADLINE_FLAG &&
	       !dconf_set(&c, "share-by", "cgroup", &why) && c.share_by == DSHARE_CGROUP,
	       "qos: prio-ahead 3ms, deadline flag, share-by cgroup");
	ret = dconf_set(&c, "deadline", "maybe", &why);
	tap_ok(ret == -EINVAL && !strcmp(why, "want refuse or flag"), "qos: deadline maybe: %s",
	       why);
	ret = dconf_set(&c, "max-prio", "top", &why);
	tap_ok(ret == -EINVAL && !strcmp(why, "want normal, high or critical"),
	       "qos: max-prio top: %s", why);
	tap_ok(dconf_set(&c, "share", "0", &why) == -EINVAL &&
	       dconf_set(&c, "share", "10001", &why) == -EINVAL &&
	       dconf_set(&c, "max-prio", "background", &why) == -EINVAL &&
	       dconf_set(&c, "prio-ahead", "fast", &why) == -EINVAL,
	       "qos: share 0 or 10001, max-prio background, prio-ahead fast refused");
	dconf_free(&c);

	ret = load(&c, "max-prio = normal\n[group 100]\nmax-prio = critical\nshare = 2\n"
		   "[group 200]\nmax-prio = high\nshare = 5\n[user 9]\nmax-prio = normal\n"
		   "[user root]\nmax-prio = high\n", err, sizeof(err));
	dconf_limits(&c, 8, g_none, 1, &l);
	tap_ok(!ret && l.v[DLIM_MAX_PRIO] == TQ_PRIO_NORMAL && l.v[DLIM_SHARE] == 1,
	       "qos: the global max-prio (%s)", err);
	dconf_limits(&c, 8, g_dev, 2, &l);
	tap_ok(l.v[DLIM_MAX_PRIO] == TQ_PRIO_CRITICAL && l.v[DLIM_SHARE] == 5,
	       "qos: of two groups the higher class and the larger share");
	dconf_limits(&c, 9, g_dev, 2, &l);
	tap_ok(l.v[DLIM_MAX_PRIO] == TQ_PRIO_NORMAL, "qos: a user's section over its groups");
	dconf_limits(&c, 0, NULL, 0, &l);
	tap_ok(l.v[DLIM_MAX_PRIO] == TQ_PRIO_HIGH, "qos: root's own section over its default");
	dconf_free(&c);
	ret = load(&c, "deadline = flag\n", err, sizeof(err));
	tap_ok(!ret && c.deadline == USCHED_DEADLINE_FLAG, "qos: deadline from the file");
	dconf_free(&c);
	ret = load(&c, "[user 1]\ndeadline = flag\n", err, sizeof(err));
	tap_ok(ret == -EINVAL && strstr(err, "not a per-user setting"),
	       "qos: deadline is not per user (%s)", err);
	dconf_free(&c);

	memset(&ut, 0, sizeof(ut));
	tap_ok(!ctx_task_qos(&ctx, &t, 5000, TQ_PRIO_HIGH, &ut) && ut.prio == USCHED_PRIO_NORMAL &&
	       !ut.deadline_ns && ut.share == 1001,
	       "qos: a plain task: its context's class (normal), no deadline, its share");
	t.flags = TQ_DESC_PRIO(TQ_PRIO_BACKGROUND) | TQ_DESC_DEADLINE(25);
	tap_ok(!ctx_task_qos(&ctx, &t, 5000, TQ_PRIO_HIGH, &ut) &&
	       ut.prio == USCHED_PRIO_BACKGROUND && ut.deadline_ns == 5000 + 2500000,
	       "qos: its own class background, deadline 25 units = submit + 2.5 ms");
	t.flags = TQ_DESC_DEADLINE(TQ_DEADLINE_MAX);
	ctx.prio = TQ_PRIO_HIGH;
	tap_ok(!ctx_task_qos(&ctx, &t, 1, TQ_PRIO_HIGH, &ut) && ut.prio == USCHED_PRIO_HIGH &&
	       ut.deadline_ns == 1 + 65535 * 100000ull,
	       "qos: a high context's task at max-prio high; the longest deadline");
	t.flags = TQ_DESC_PRIO(TQ_PRIO_CRITICAL);
	tap_ok(ctx_task_qos(&ctx, &t, 1, TQ_PRIO_HIGH, &ut) == -EPERM,
	       "qos: a critical task over max-prio high: EPERM");
	ctx.prio = TQ_PRIO_CRITICAL;
	t.flags = 0;
	tap_ok(ctx_task_qos(&ctx, &t, 1, TQ_PRIO_HIGH, &ut) == -EPERM,
	       "qos: a critical context's plain task over it: EPERM");
	t.flags = TQ_DESC_PRIO(TQ_PRIO_NORMAL);
	tap_ok(!ctx_task_qos(&ctx, &t, 1, TQ_PRIO_HIGH, &ut) && ut.prio == USCHED_PRIO_NORMAL,
	       "qos: its task naming normal runs");
	t.flags = 0;
	tap_ok(!ctx_task_qos(&ctx, &t, 1, TQ_PRIO_CRITICAL, &ut) && ut.prio == USCHED_PRIO_CRITICAL,
	       "qos: and a plain one at max-prio critical");

	tap_ok(ctx_share(DSHARE_UID, 0, getpid()) == 1 && ctx_share(DSHARE_UID, 1000, 1) == 1001,
	       "qos: share by uid: uid + 1 (root's is 1, not the core's 0)");
	{
		char cg[4096], path[4200];
		struct stat st;

		metrics_cgroup(getpid(), cg, sizeof(cg));
		snprintf(path, sizeof(path), "/sys/fs/cgroup%s", cg);
		if (*cg == '/' && !stat(path, &st))
			tap_ok(ctx_share(DSHARE_CGROUP, 1000, getpid()) ==
			       ((uint64_t)st.st_ino | 1ull << 63),
			       "qos: share by cgroup: its directory's inode, top bit set");
		else
			tap_skip("qos: share by cgroup", "no v2 cgroup here");
	}
	tap_ok(ctx_share(DSHARE_CGROUP, 1000, 0x7ffffffe) == 1001,
	       "qos: share by cgroup, the process gone: its uid's");
}

static void test_limit_math(void)
{
	struct dlimits l = { 0 };
	const uint64_t big[3] = { 1ull << 63, 1, 1 }, sq[3] = { 1ull << 32, 1ull << 32, 1 };
	const uint64_t g2[3] = { 1000, 1000, 1 }, g3[3] = { 100, 100, 100 };
	const uint32_t l2[3] = { 16, 16, 1 }, l1[3] = { 1, 1, 1 };
	enum dlim which = DLIM_N;
	char text[64];

	l.v[DLIM_WORK_ITEMS] = 1ull << 32;
	l.v[DLIM_WORK_GROUPS] = 4096;
	tap_ok(limit_work(&l, 1, big, NULL, &which) == -E2BIG && which == DLIM_WORK_ITEMS,
	       "work: a global size of 2^63 is -E2BIG");
	which = DLIM_N;
	tap_ok(limit_work(&l, 2, sq, NULL, &which) == -E2BIG && which == DLIM_WORK_ITEMS,
	       "work: 2^32 x 2^32 (a product that overflows) is -E2BIG");
	tap_ok(!limit_work(&l, 3, g3, NULL, &which), "work: 10^6 items, no local sizes: ok");
	tap_ok(limit_work(&l, 2, g2, l2, &which) == 0, "work: 63 x 63 = 3969 groups of 16x16: ok");
	which = DLIM_N;
	tap_ok(limit_work(&l, 2, g2, l1, &which) == -E2BIG && which == DLIM_WORK_GROUPS,
	       "work: 10^6 groups of 1 over 4096: -E2BIG");
	l.v[DLIM_WORK_ITEMS] = 1000000;
	tap_ok(!limit_work(&l, 3, g3, NULL, &which) &&
	       limit_work(&l, 3, (const uint64_t[3]){ 100, 100, 101 }, NULL, &which) == -E2BIG,
	       "work: exactly the limit passes, one more row does not");
	l = (struct dlimits){ 0 };
	tap_ok(!limit_work(&l, 1, big, l1, &which), "work: none for no limit");

	memset(text, 'a', sizeof(text));
	text[40] = 0;
	tap_ok(text_len(text, sizeof(text), 0) == 40 && text_len(text, sizeof(text), 100) == 40 &&
	       text_len(text, 30, 0) == 30, "text: ends at its NUL or its buffer");
	tap_ok(text_len(text, sizeof(text), 10) == 11,
	       "text: scanned no further than the limit and one byte");
}

static void test_state_max(void)
{
	struct daemon d = { 0 };
	struct dctx *c = new_ctx(9, 99);
	char path[256], big[600];
	struct stat st;

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	snprintf(path, sizeof(path), "%s/state/max.state", dir);
	dconf_init(&d.conf);
	free(d.conf.state);
	d.conf.state = strdup(path);
	d.conf.state_max = 2000;
	state_open(&d);
	for (int i = 1; i <= 5; i++) {
		ctx_prog_add(c, false, big, NULL);
		state_add_prog(&d, c, i);
	}
	stat(path, &st);
	tap_ok(st.st_size <= 2000 && st.st_size > 1000 && d.st.state_dropped == 2,
	       "state-max: the file stays under it (%lld bytes), 2 records dropped",
	       (long long)st.st_size);
	d.ctx[c->id % DCTX_HASH] = c;
	state_compact(&d);
	stat(path, &st);
	tap_ok(st.st_size <= 2000 && d.st.state_dropped == 4 && d.state_bytes == (uint64_t)st.st_size,
	       "state-max: compaction keeps to it too (2 more dropped)");
	d.ctx[c->id % DCTX_HASH] = NULL;
	ctx_free(c);
	state_close(&d);
	dconf_free(&d.conf);
}

static void test_limit_metrics(void)
{
	struct usched_stats s = { .max_tg = 8 };
	struct dstats ds = { .build_crashes = 2, .users = 3 };
	char path[256];
	char *text;

	ds.refused[DLIM_WORK_ITEMS] = 4;
	ds.refused[DLIM_ALLOW_SOURCE] = 1;
	ds.refused[DLIM_BUILD_TIME] = 6;
	snprintf(path, sizeof(path), "%s/l.prom", dir);
	metrics_write(path, (gid_t)-1, 5, &s, &ds, 1);
	text = read_file(path);
	tap_ok(strstr(text, "# TYPE tq_limit_refused_total counter\n") &&
	       strstr(text, "tq_limit_refused_total{limit=\"max-work-items\"} 4\n") &&
	       strstr(text, "tq_limit_refused_total{limit=\"allow-source\"} 1\n") &&
	       strstr(text, "tq_limit_refused_total{limit=\"build-time-limit\"} 6\n") &&
	       strstr(text, "tq_limit_refused_total{limit=\"user-arena\"} 0\n") &&
	       strstr(text, "tq_build_crashes_total 2\n") && strstr(text, "tq_users 3\n"),
	       "metrics: refusals by limit, build crashes, users");
}

/*
 * The _bucket lines of histogram @name{@label} cumulative, all of them
 * (the latencies' 19 and +Inf last), and +Inf's equal to its _count.
 */
static bool hist_form(const char *text, const char *name, const char *label)
{
	char head[160], tail[160];
	unsigned long long prev = 0, v = 0, n;
	const char *p = text;
	bool inf = false;
	int buckets = 0;

	snprintf(head, sizeof(head), "\n%s_bucket{%s%sle=\"", name, label, *label ? "," : "");
	while ((p = strstr(p, head))) {
		p += strlen(head);
		inf = !strncmp(p, "+Inf\"} ", 7);
		if (sscanf(strchr(p, ' '), " %llu", &v) != 1 || v < prev)
			return false;
		prev = v;
		buckets++;
	}
	snprintf(tail, sizeof(tail), "\n%s_sum%s%s%s ", name, *label ? "{" : "", label,
		 *label ? "}" : "");
	if (!inf || buckets != 20 || !strstr(text, tail))
		return false;
	snprintf(tail, sizeof(tail), "\n%s_count%s%s%s ", name, *label ? "{" : "", label,
		 *label ? "}" : "");
	p = strstr(text, tail);
	return p && sscanf(p + strlen(tail), "%llu", &n) == 1 && n == v;
}

/* Our own v2 cgroup as /proc/self/cgroup has it; false if it has none. */
static bool self_cgroup(char *buf, size_t len)
{
	char *text = read_file("/proc/self/cgroup"), *p = strstr(text, "0::");

	if (!p || (p != text && p[-1] != '\n') || p[3] == '\n')
		return false;
	snprintf(buf, len, "%.*s", (int)strcspn(p + 3, "\n"), p + 3);
	return true;
}

static bool has(const char *text, const char *line)
{
	bool ok = strstr(text, line) != NULL;

	if (!ok)
		tap_diag("missing: %s", line);
	return ok;
}

/*
 * Per-client accounting: uids and cgroups labelled up to metrics-clients,
 * the rest in "other" from the start and for good, counters per label,
 * latency histograms per uid and of every task in the Prometheus form.
 */
static void test_acct(void)
{
	struct usched_stats s = { .max_tg = 8 };
	struct dstats ds = { .acct_max = 2 }, few = { .acct_max = 64 }, none = { 0 };
	struct dacct *a[DACCT_KINDS], *b[DACCT_KINDS], *o[DACCT_KINDS], *x[DACCT_KINDS];
	struct usched_completion ok = {
		.queued_ns = 1000000, .start_ns = 1150000, .end_ns = 4150000,
		.busy_ns = { 1000000, 2000000, 500000 },
	}, bad = ok, cancelled = { .status = -ECANCELED };
	const uint64_t bytes[2] = { 4096, 1024 };
	char path[256], cg[2048], want[2200], *text;
	pid_t gone = fork();

	if (!gone)
		_exit(0);
	waitpid(gone, NULL, 0);		/* reaped: its /proc entry is gone */
	bad.status = -EIO;
	metrics_acct_open(&ds, a, 1000, getpid());
	metrics_acct_open(&ds, b, 0, gone);
	metrics_acct_open(&ds, o, 7, getpid());
	tap_ok(!strcmp(a[DACCT_UID]->label, "1000") && !strcmp(b[DACCT_UID]->label, "0") &&
	       o[DACCT_UID] == &ds.acct[DACCT_UID].other && !o[DACCT_UID]->label,
	       "acct: two uids labelled (metrics-clients 2), the third other");
	metrics_acct_open(&ds, x, 1000, gone);
	tap_ok(x[DACCT_UID] == a[DACCT_UID] && x[DACCT_CGROUP] == b[DACCT_CGROUP],
	       "acct: a labelled uid keeps its entry");
	metrics_acct_open(&ds, x, 7, getpid());
	tap_ok(x[DACCT_UID] == o[DACCT_UID] && ds.acct[DACCT_UID].n == 2,
	       "acct: a uid in other stays there");
	if (self_cgroup(cg, sizeof(cg)))
		tap_ok(!strcmp(a[DACCT_CGROUP]->label, cg) && o[DACCT_CGROUP] == a[DACCT_CGROUP] &&
		       !strcmp(b[DACCT_CGROUP]->label, "unknown"),
		       "acct: cgroup %s from /proc/PID/cgroup, \"unknown\" for a pid gone", cg);
	else
		tap_skip("acct: cgroup from /proc/PID/cgroup", "no v2 line in /proc/self/cgroup");

	metrics_acct_task(&ds, a, &ok, bytes, ok.end_ns + 30000);
	metrics_acct_task(&ds, o, &bad, bytes, bad.end_ns + 30000);
	metrics_acct_task(&ds, b, &cancelled, bytes, 5000000);
	a[DACCT_UID]->refused = 2;
	snprintf(path, sizeof(path), "%s/a.prom", dir);
	metrics_write(path, (gid_t)-1, 5, &s, &ds, 1);
	text = read_file(path);
	tap_ok(has(text, "\ntq_client_engine_seconds_total{uid=\"1000\",stage=\"k\"} 0.002000000\n") &&
	       has(text, "\ntq_client_engine_seconds_total{uid=\"other\",stage=\"htd\"} 0.001000000\n") &&
	       has(text, "\ntq_client_bytes_total{uid=\"1000\",dir=\"htd\"} 4096\n") &&
	       has(text, "\ntq_client_bytes_total{uid=\"1000\",dir=\"dth\"} 1024\n") &&
	       has(text, "\ntq_client_bytes_total{uid=\"other\",dir=\"htd\"} 0\n") &&
	       has(text, "\ntq_client_tasks_total{uid=\"1000\",status=\"ok\"} 1\n") &&
	       has(text, "\ntq_client_tasks_total{uid=\"other\",status=\"error\"} 1\n") &&
	       has(text, "\ntq_client_tasks_total{uid=\"0\",status=\"cancelled\"} 1\n") &&
	       has(text, "\ntq_client_tasks_total{uid=\"0\",status=\"ok\"} 0\n") &&
	       has(text, "\ntq_client_refused_total{uid=\"1000\"} 2\n") &&
	       has(text, "\ntq_client_refused_total{uid=\"other\"} 0\n") &&
	       has(text, "\ntq_cgroup_tasks_total{cgroup=\"unknown\",status=\"cancelled\"} 1\n"),
	       "acct: engine time, bytes (of tasks that succeeded), outcomes, refusals per uid");
	snprintf(want, sizeof(want), "\ntq_cgroup_tasks_total{cgroup=\"%s\",status=\"error\"} 1\n",
		 a[DACCT_CGROUP]->label);
	tap_ok(has(text, want) && has(text, "\n# TYPE tq_cgroup_engine_seconds_total counter\n") &&
	       !strstr(text, "tq_cgroup_queue_wait"),
	       "acct: per cgroup the counters, not the histograms");
	tap_ok(has(text, "\n# TYPE tq_client_queue_wait_seconds histogram\n") &&
	       has(text, "\ntq_client_queue_wait_seconds_bucket{uid=\"1000\",le=\"0.0001\"} 0\n") &&
	       has(text, "\ntq_client_queue_wait_seconds_bucket{uid=\"1000\",le=\"0.0002\"} 1\n") &&
	       has(text, "\ntq_client_queue_wait_seconds_sum{uid=\"1000\"} 0.00015\n") &&
	       has(text, "\ntq_client_device_seconds_bucket{uid=\"1000\",le=\"0.002\"} 0\n") &&
	       has(text, "\ntq_client_device_seconds_bucket{uid=\"1000\",le=\"0.005\"} 1\n") &&
	       has(text, "\ntq_client_delivery_seconds_bucket{uid=\"1000\",le=\"2e-05\"} 0\n") &&
	       has(text, "\ntq_client_delivery_seconds_bucket{uid=\"1000\",le=\"5e-05\"} 1\n") &&
	       has(text, "\ntq_client_queue_wait_seconds_count{uid=\"0\"} 0\n") &&
	       has(text, "\ntq_task_device_seconds_count 2\n") &&
	       has(text, "\ntq_task_queue_wait_seconds_bucket{le=\"10\"} 2\n"),
	       "acct: latencies per uid and of every task that ran (a cancelled one has none)");
	tap_ok(hist_form(text, "tq_task_queue_wait_seconds", "") &&
	       hist_form(text, "tq_task_device_seconds", "") &&
	       hist_form(text, "tq_task_delivery_seconds", "") &&
	       hist_form(text, "tq_client_queue_wait_seconds", "uid=\"1000\"") &&
	       hist_form(text, "tq_client_device_seconds", "uid=\"other\"") &&
	       hist_form(text, "tq_client_delivery_seconds", "uid=\"0\""),
	       "acct: histograms' buckets cumulative, 10us..10s and +Inf, with _sum and _count");

	metrics_acct_open(&few, a, 1000, getpid());
	metrics_acct_open(&none, b, 1000, getpid());
	metrics_write(path, (gid_t)-1, 5, &s, &few, 1);
	text = read_file(path);
	tap_ok(has(text, "\ntq_client_tasks_total{uid=\"1000\",status=\"ok\"} 0\n") &&
	       !strstr(text, "\"other\""), "acct: no other while there is room");
	tap_ok(b[DACCT_UID] == &none.acct[DACCT_UID].other &&
	       b[DACCT_CGROUP] == &none.acct[DACCT_CGROUP].other && !none.acct[DACCT_UID].n,
	       "acct: metrics-clients 0: every uid and cgroup other");
	metrics_acct_free(&ds);
	metrics_acct_free(&few);
	metrics_acct_free(&none);
}

/* Builds in the usched-build child, against a real core on OpenCL's first device. */
static void test_child(void)
{
	static const char good[] =
		"__kernel void scale(__global float *a, float x) { a[get_global_id(0)] *= x; }\n";
	static const char bad[] = "__kernel void broken(__global float *a) { a[0] = nope; }\n";
	static const char bomb[] =
		"#define A(x) x = x * 3.1f + (float)i; i ^= (int)x;\n"
		"#define B(x) A(x) A(x) A(x) A(x) A(x) A(x) A(x) A(x)\n"
		"#define C(x) B(x) B(x) B(x) B(x) B(x) B(x) B(x) B(x)\n"
		"#define D(x) C(x) C(x) C(x) C(x) C(x) C(x) C(x) C(x)\n"
		"#define E(x) D(x) D(x) D(x) D(x) D(x) D(x) D(x) D(x)\n"
		"__kernel void k(__global float *a) { float v = a[0]; int i = get_global_id(0);\n"
		"E(v) E(v) E(v) E(v) a[0] = v; }\n";
	struct usched_opts o = { .policy = "fifo" };
	char plat[256], dev[256], *log;
	struct dchild ch = { .path = USCHED_BUILD_BIN, .platform = plat, .device = dev,
			     .memory_limit = 2ull << 30 };
	struct usched_task t = { .dim = 1, .global = { 64 }, .nbufs = 0, .nargs = 2 };
	uint32_t id, id2, kern;
	unsigned char *bin;
	struct usched *u;
	uint64_t t0, dt;
	size_t binlen;
	int ret;

	if (access(USCHED_BUILD_BIN, X_OK)) {
		tap_skip("builds in a child", "%s not built", USCHED_BUILD_BIN);
		return;
	}
	ret = usched_create(&o, &u);
	if (ret) {
		tap_skip("builds in a child", "no OpenCL device (%s)", strerror(-ret));
		return;
	}
	usched_device_names(u, plat, sizeof(plat), dev, sizeof(dev));
	ch.time_limit_ns = 120 * 1000000000ull;
	ret = build_in_child(&ch, good, NULL, &bin, &binlen, &log);
	tap_ok(!ret && binlen > 0 && !ch.crashed, "child: a program built, %zu bytes of binary "
	       "(%s)", binlen, strerror(-ret));
	if (!ret) {
		ret = usched_prog_add_binary(u, USCHED_SHARED, good, strlen(good), NULL, bin, binlen, &id);
		tap_ok(!ret && !usched_kernel_get(u, id, "scale", &kern),
		       "child: the binary loads into the core and has its kernel (%s)",
		       strerror(-ret));
		/* Argument kinds known: a scalar where the kernel takes a buffer is refused. */
		t.kernel = kern;
		t.arg[0] = (struct usched_arg){ .kind = USCHED_ARG_SCALAR, .size = 4 };
		t.arg[1] = (struct usched_arg){ .kind = USCHED_ARG_SCALAR, .size = 4 };
		tap_ok(usched_submit(u, &t) == -EINVAL,
		       "child: the kernel's argument kinds are known from the binary");
		tap_ok(!usched_prog_find(u, USCHED_SHARED, good, strlen(good), NULL, &id2) && id2 == id &&
		       usched_prog_find(u, USCHED_SHARED, good, strlen(good), "-DX=1", &id2) == -ENOENT &&
		       !usched_prog_add(u, USCHED_SHARED, good, strlen(good), NULL, &id2, NULL) && id2 == id,
		       "child: cached by source and options, shared with usched_prog_add()");
		usched_prog_put(u, id);
		usched_prog_put(u, id);
		usched_prog_put(u, id);
		free(bin);
	}
	ret = build_in_child(&ch, bad, NULL, &bin, &binlen, &log);
	tap_ok(ret == -ENOEXEC && log && strstr(log, "nope"), "child: a compile error's log");
	free(log);
	ch.time_limit_ns = 1000000000ull;
	t0 = tq_now_ns();
	ret = build_in_child(&ch, bomb, NULL, &bin, &binlen, &log);
	dt = tq_now_ns() - t0;
	tap_ok(ret == -ETIME && dt < 3000000000ull,
	       "child: a compile bomb killed at its 1 s limit: -ETIME after %.2f s", dt * 1e-9);
	free(log);
	ch.path = "/nonexistent/usched-build";
	ret = build_in_child(&ch, good, NULL, &bin, &binlen, &log);
	tap_ok(ret == -EIO && !ch.crashed, "child: a helper that cannot run: -EIO");
	free(log);
	usched_destroy(u);
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
	test_kqueues_auto();
	test_file();
	test_dropins();
	test_args();
	test_metrics();
	test_metrics_file();
	test_cmd_log();
	test_state();
	test_limit_values();
	test_sections();
	test_limit_math();
	test_qos();
	test_state_max();
	test_limit_metrics();
	test_acct();
	test_child();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		tap_diag("could not remove %s", dir);
	return tap_done();
}
