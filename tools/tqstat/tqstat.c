// SPDX-License-Identifier: GPL-2.0
/*
 * tqstat - tq's counters on one screen, as top or iostat show the kernel's.
 *
 *	tqstat [--sysfs DIR] [--socket PATH] [--metrics FILE] [-w] [INTERVAL [COUNT]]
 *	tqstat [--sysfs DIR] [--socket PATH] [--metrics FILE] --all
 *	tqstat [--metrics FILE] --trace start|stop
 *
 * Three sources: the module's sysfs attributes (DIR, by default
 * /sys/class/misc/tqsubmit), the same counters of tqsubmitd, the module's
 * user-space twin, asked on its client socket (PATH, by default $TQ_SOCKET
 * or /run/tq/tqsubmit.sock), and the Prometheus text file usched writes
 * (FILE, by default $TQ_METRICS or /run/tq/usched.prom). Any may be
 * missing; tqstat says which, and why where it can tell (not there, or
 * not readable by you), and shows the others.
 *
 * The default is one snapshot, at most SCREEN_COLS columns and SCREEN_ROWS
 * rows whatever the number of clients: the transport's counters (the
 * module's, else tqsubmitd's) and usched's, with units, and the TOP_UIDS
 * uids of most engine time (usched's tq_client_* series). -w (or an INTERVAL)
 * redraws it every INTERVAL seconds (2), COUNT times (for ever), with rates.
 * --all prints every counter as "name value", names and labels as their
 * source wrote them. usched's file is stale when the pid that wrote it is
 * gone, or when it is older than three of its intervals: the snapshot says
 * so above usched's figures (the last it wrote), --all in a comment.
 *
 * --trace start|stop starts or stops usched's trace (Documentation/usched.md,
 * "The trace"): a signal to the pid its metrics file names (SIGUSR1,
 * SIGUSR2; root or usched's own user only), then a wait for the file,
 * which usched rewrites at once, to say it is done.
 */
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <linux/tqsubmit.h>
#include <tq/clock.h>
#include <tq/version.h>

#include "counters.h"

#define DEF_SYSFS	"/sys/class/misc/tqsubmit"
#define DEF_METRICS	"/run/tq/usched.prom"
#define SCREEN_COLS	100
#define SCREEN_ROWS	24
#define FMT_LEN		64	/* a value formatted, or a label's value as shown */
#define STALE_PERIODS	3	/* intervals without a rewrite that make the file stale */
#define TOP_UIDS	4	/* rows of the per-uid table: the screen holds 8 clients and them */
#define TRACE_DEFAULT	"/run/tq/usched-trace.json"	/* usched's USCHED_TRACE_DEFAULT */
#define TRACE_WAIT_S	10	/* for usched to say the trace started or stopped */

enum { MODULE, TQSUBMITD, METRICS, NSRC };

struct source {
	const char *what;	/* "module", "tqsubmitd" or "usched" */
	const char *path;
	int (*read)(const char *path, struct ctr_set *set);
	const char *hint;	/* why it may be missing */
	int err;		/* from the last read */
	struct ctr_set now, prev;
};

static struct source src[NSRC] = {
	[MODULE] = { .what = "module", .path = DEF_SYSFS, .read = ctr_read_sysfs,
		     .hint = "is tqsubmit.ko loaded?" },
	[TQSUBMITD] = { .what = "tqsubmitd", .path = TQ_SOCKET_PATH, .read = ctr_read_sock,
			.hint = "is tqsubmitd running?" },
	[METRICS] = { .what = "usched", .path = DEF_METRICS, .read = ctr_read_prom,
		      .hint = "is usched running, with metrics set?" },
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: tqstat [--sysfs DIR] [--socket PATH] [--metrics FILE] "
		   "[-w] [INTERVAL [COUNT]]\n"
		   "   or: tqstat [--sysfs DIR] [--socket PATH] [--metrics FILE] --all\n"
		   "   or: tqstat [--metrics FILE] --trace start|stop\n"
		   "With no option, one screen of the transport's and usched's counters.\n"
		   "  -w, --watch     redraw it every INTERVAL seconds (2), COUNT times (for ever),\n"
		   "                  with rates\n"
		   "  -a, --all       every counter, one \"name value\" line each, as the source\n"
		   "                  names it (--once is the same)\n"
		   "  --sysfs DIR     the module's counters (default " DEF_SYSFS ")\n"
		   "  --socket PATH   tqsubmitd's counters, on its client socket (default\n"
		   "                  $TQ_SOCKET or " TQ_SOCKET_PATH ")\n"
		   "  --metrics FILE  usched's Prometheus metrics (default $TQ_METRICS or\n"
		   "                  " DEF_METRICS "); stale when its writer is gone or it is\n"
		   "                  older than three of usched's metrics-interval\n"
		   "  --trace start|stop\n"
		   "                  start or stop usched's trace (Chrome JSON for Perfetto: usched.conf's\n"
		   "                  trace, else " TRACE_DEFAULT "), by a signal to the\n"
		   "                  pid its metrics name (root or usched's user)\n"
		   "  --version       print tq's version and exit\n");
}

/* The last reading becomes prev; the one before's memory takes the new one. */
static void read_source(struct source *s)
{
	struct ctr_set t = s->prev;

	s->prev = s->now;
	s->now = t;
	s->err = s->read(s->path, &s->now);
}

/* Why s may be missing: for a file you may not read, whose it is. */
static void why_missing(const struct source *s, char *buf, size_t size)
{
	struct group *gr;
	struct stat st;

	if (s->err != -EACCES || stat(s->path, &st)) {
		snprintf(buf, size, "%s", s->err == -EACCES ?
			 "a directory on its path is closed to you" : s->hint);
		return;
	}
	gr = getgrgid(st.st_gid);
	if (st.st_mode & 040)
		snprintf(buf, size, "mode %04o: open to group %s, which you are not in",
			 st.st_mode & 07777, gr ? gr->gr_name : "?");
	else
		snprintf(buf, size, "mode %04o: open to its owner only%s", st.st_mode & 07777,
			 s == &src[METRICS] ? " (usched's metrics-group gives it a group)" : "");
}

static double value(const struct ctr_set *set, const char *name)
{
	const struct counter *c = ctr_find(set, name);

	return c ? c->value : NAN;
}

/* Why usched's metrics are a dead usched's, or NULL: see the file's comment. */
static const char *stale(const struct ctr_set *m, char *buf, size_t size)
{
	double pid = value(m, "tq_pid"), t = value(m, "tq_metrics_time_seconds");
	double every = value(m, "tq_metrics_interval_seconds");

	if (pid > 0 && kill((pid_t)pid, 0) && errno == ESRCH) {
		snprintf(buf, size, "usched (pid %.0f) is not running", pid);
		return buf;
	}
	if (every > 0 && time(NULL) - t > STALE_PERIODS * every) {
		snprintf(buf, size, "not rewritten for %.0f s (every %.0f s)", time(NULL) - t, every);
		return buf;
	}
	return NULL;
}

/* ---- the snapshot --------------------------------------------------------- */

/* One line of the screen, cut at its width (--all has every name whole). */
static void __attribute__((format(printf, 1, 2))) line(const char *fmt, ...)
{
	char buf[SCREEN_COLS + 1];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	puts(buf);
}

/* Rotating buffers, so that one line may format several values. */
static char *fmt_buf(void)
{
	static char bufs[16][FMT_LEN];
	static unsigned int i;

	return bufs[i++ % 16];
}

static const char *count(double v)
{
	char *b = fmt_buf();

	if (isnan(v))
		return "-";
	snprintf(b, FMT_LEN, "%.0f", v);
	return b;
}

static const char *pct(double ratio)
{
	char *b = fmt_buf();

	if (isnan(ratio))
		return "-";
	snprintf(b, FMT_LEN, "%.1f %%", 100 * ratio);
	return b;
}

static const char *bytes(double v)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	char *b = fmt_buf();
	unsigned int u = 0;

	if (isnan(v))
		return "-";
	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	snprintf(b, FMT_LEN, "%.*f %s", !u ? 0 : v < 10 ? 2 : v < 100 ? 1 : 0, v, unit[u]);
	return b;
}

static const char *secs(double s)
{
	char *b = fmt_buf();

	if (isnan(s))
		return "-";
	if (s < 0)
		s = 0;
	if (s < 1e-3)
		snprintf(b, FMT_LEN, "%.0f us", s * 1e6);
	else if (s < 1)
		snprintf(b, FMT_LEN, "%.1f ms", s * 1e3);
	else if (s < 120)
		snprintf(b, FMT_LEN, "%.2f s", s);
	else if (s < 7200)
		snprintf(b, FMT_LEN, "%.0f min %02.0f s", floor(s / 60), fmod(s, 60));
	else
		snprintf(b, FMT_LEN, "%.0f h %02.0f min", floor(s / 3600), fmod(floor(s / 60), 60));
	return b;
}

/* ", N/s" of a running total over dt, "" on the first screen. */
static const char *rate(const struct source *s, const char *name, double dt, bool as_bytes)
{
	double v = (value(&s->now, name) - value(&s->prev, name)) / dt;
	char *b = fmt_buf();

	if (!(dt > 0) || isnan(v))
		return "";
	snprintf(b, FMT_LEN, ", %s/s", as_bytes ? bytes(v) : count(v));
	return b;
}

/* The value of label key in tq_info's sample, or "?". */
static const char *info(const struct ctr_set *m, const char *key)
{
	char *b = fmt_buf(), pat[40];
	const char *p = NULL;
	size_t n = 0;

	for (unsigned int i = 0; i < m->n && !p; i++)
		if (!strncmp(m->c[i].name, "tq_info{", 8))
			p = m->c[i].name;
	snprintf(pat, sizeof(pat), "%s=\"", key);
	p = p ? strstr(p, pat) : NULL;
	if (!p)
		return "?";
	for (p += strlen(pat); *p && *p != '"' && n < FMT_LEN - 1; p++) {
		if (*p == '\\' && p[1])
			p++;
		b[n++] = *p;
	}
	b[n] = 0;
	return b;
}

static void show_missing(const struct source *s)
{
	char why[256];

	why_missing(s, why, sizeof(why));
	line("%-10s %s: %s", s->what, s->path, strerror(-s->err));
	line("           %s", why);
}

/* The module's counters, or tqsubmitd's under the same names. */
static void show_transport(double dt)
{
	const struct source *s = !src[MODULE].err ? &src[MODULE] : &src[TQSUBMITD];
	const struct ctr_set *c = &s->now;
	double pid = value(c, "scheduler_pid");

	if (s->err) {
		show_missing(&src[MODULE]);
		show_missing(&src[TQSUBMITD]);
		return;
	}
	line("%-10s %s", s->what, s->path);
	line("  clients    %s contexts open; scheduler %s", count(value(c, "contexts")),
	     pid > 0 ? count(pid) : "none attached");
	line("  tasks      %s submitted, %s delivered, %s completed%s; %s in flight",
	     count(value(c, "submitted")), count(value(c, "delivered")),
	     count(value(c, "completed")), rate(s, "completed", dt, false),
	     count(value(c, "in_flight")));
	line("  trouble    %s failed, %s rejected, %s dropped, %s requeued, %s abandoned",
	     count(value(c, "failed")), count(value(c, "rejected")), count(value(c, "dropped")),
	     count(value(c, "requeued")), count(value(c, "abandoned")));
	line("  enters     %s, %s absorbed", count(value(c, "enters")),
	     count(value(c, "enters_absorbed")));
	if (s == &src[TQSUBMITD])
		line("  socket     %s connections; %s bad messages, %s bad records, %s stalled sends",
		     count(value(c, "connections")), count(value(c, "bad_messages")),
		     count(value(c, "bad_records")), count(value(c, "stalled_sends")));
}

/* One uid's line of the table: usched's tq_client_* series summed. */
struct uid_row {
	char uid[16];		/* decimal, or "other" */
	double tasks, engine;
};

/* The uid="..." label's value of a sample's name into uid; false if it has none. */
static bool uid_of(const char *name, char *uid, size_t size)
{
	const char *p = strstr(name, "{uid=\"");
	size_t n;

	if (!p)
		return false;
	p += 6;
	n = strcspn(p, "\"");
	if (!p[n] || n >= size)
		return false;
	memcpy(uid, p, n);
	uid[n] = 0;
	return true;
}

/* The row of uid in rows[0..*n), added if new; NULL without memory. */
static struct uid_row *uid_row(struct uid_row **rows, unsigned int *n, const char *uid)
{
	struct uid_row *r;

	for (unsigned int i = 0; i < *n; i++)
		if (!strcmp((*rows)[i].uid, uid))
			return &(*rows)[i];
	r = realloc(*rows, (*n + 1) * sizeof(*r));
	if (!r)
		return NULL;
	*rows = r;
	r += (*n)++;
	*r = (struct uid_row){ 0 };
	snprintf(r->uid, sizeof(r->uid), "%s", uid);
	return r;
}

static int by_engine(const void *a, const void *b)
{
	const struct uid_row *x = a, *y = b;

	return x->engine < y->engine ? 1 : x->engine > y->engine ? -1 : strcmp(x->uid, y->uid);
}

/*
 * The 99th percentile of uid's queue wait from its histogram's buckets, as
 * Prometheus's histogram_quantile() has it: linear within the bucket, the
 * highest finite bound when it falls in +Inf. NAN without tasks.
 */
static double p99_wait(const struct ctr_set *m, const char *uid)
{
	char head[64];
	double count = NAN, lo = 0, below = 0;
	size_t hl;

	snprintf(head, sizeof(head), "tq_client_queue_wait_seconds_bucket{uid=\"%s\",le=\"", uid);
	hl = strlen(head);
	for (unsigned int i = 0; i < m->n; i++)
		if (!strncmp(m->c[i].name, head, hl) && !strncmp(m->c[i].name + hl, "+Inf", 4))
			count = m->c[i].value;
	if (!(count > 0))
		return NAN;
	for (unsigned int i = 0; i < m->n; i++) {
		const struct counter *c = &m->c[i];
		double le;

		if (strncmp(c->name, head, hl) || !strncmp(c->name + hl, "+Inf", 4))
			continue;
		le = strtod(c->name + hl, NULL);
		if (c->value >= 0.99 * count)
			return c->value > below ? lo + (le - lo) * (0.99 * count - below) /
							     (c->value - below) : le;
		lo = le;
		below = c->value;
	}
	return lo;
}

/* The uids with the most engine time: their tasks, engine time and p99 queue wait. */
static void show_uids(const struct ctr_set *m)
{
	static const char *const fam[] = { "tq_client_engine_seconds_total{",
					   "tq_client_tasks_total{" };
	struct uid_row *rows = NULL, *r;
	unsigned int n = 0;
	char uid[16];

	for (unsigned int i = 0; i < m->n; i++) {
		const struct counter *c = &m->c[i];
		bool engine = !strncmp(c->name, fam[0], strlen(fam[0]) - 1);

		if ((!engine && strncmp(c->name, fam[1], strlen(fam[1]) - 1)) ||
		    !uid_of(c->name, uid, sizeof(uid)) || !(r = uid_row(&rows, &n, uid)))
			continue;
		if (engine)
			r->engine += c->value;
		else
			r->tasks += c->value;
	}
	if (n) {
		qsort(rows, n, sizeof(*rows), by_engine);
		line("  top uids   %-10s %12s %14s %16s", "uid", "tasks", "engine time",
		     "p99 queue wait");
	}
	for (unsigned int i = 0; i < n && i < TOP_UIDS; i++)
		line("             %-10s %12s %14s %16s", rows[i].uid, count(rows[i].tasks),
		     secs(rows[i].engine), secs(p99_wait(m, rows[i].uid)));
	free(rows);
}

static void show_usched(double dt)
{
	const struct source *s = &src[METRICS];
	const struct ctr_set *m = &s->now;
	double tgs = value(m, "tq_tgs_total"), every = value(m, "tq_metrics_interval_seconds");
	double age = time(NULL) - value(m, "tq_metrics_time_seconds");
	char why[128];

	if (s->err) {
		show_missing(s);
		return;
	}
	if (stale(m, why, sizeof(why))) {
		line("%-10s %s: STALE: %s", s->what, s->path, why);
		line("  STALE      written %s ago: the last figures of a usched gone", secs(age));
	} else {
		line("%-10s %s, written %s s ago (every %s s); pid %s, up %s", s->what, s->path,
		     count(age < 0 ? 0 : age), count(every), count(value(m, "tq_pid")),
		     secs(value(m, "tq_uptime_seconds")));
	}
	line("  device     %.48s, %s copy engine(s), %s kernel queue(s)", info(m, "device"),
	     info(m, "copy_engines"), info(m, "kernel_queues"));
	line("  policy     %s, task groups of up to %s tasks", info(m, "policy"), info(m, "max_tg"));
	line("  tasks      %s submitted, %s ok%s, %s error, %s cancelled; %s waiting, %s running",
	     count(value(m, "tq_tasks_submitted_total")),
	     count(value(m, "tq_tasks_total{status=\"ok\"}")),
	     rate(s, "tq_tasks_total{status=\"ok\"}", dt, false),
	     count(value(m, "tq_tasks_total{status=\"error\"}")),
	     count(value(m, "tq_tasks_total{status=\"cancelled\"}")),
	     count(value(m, "tq_queue_depth")), count(value(m, "tq_tasks_running")));
	line("  copied     %s to the device%s, %s from it%s",
	     bytes(value(m, "tq_bytes_total{dir=\"htd\"}")),
	     rate(s, "tq_bytes_total{dir=\"htd\"}", dt, true),
	     bytes(value(m, "tq_bytes_total{dir=\"dth\"}")),
	     rate(s, "tq_bytes_total{dir=\"dth\"}", dt, true));
	line("  TGs        %s, %.1f tasks each; makespans %s measured, %s predicted",
	     count(tgs), tgs > 0 ? value(m, "tq_tg_size_tasks_sum") / tgs : 0,
	     secs(value(m, "tq_tg_makespan_seconds_total{kind=\"measured\"}")),
	     secs(value(m, "tq_tg_makespan_seconds_total{kind=\"predicted\"}")));
	line("  model      error per TG %s mean, %s max; policy time %s",
	     pct(value(m, "tq_tg_makespan_error_mean")), pct(value(m, "tq_tg_makespan_error_max")),
	     secs(value(m, "tq_policy_seconds_total")));
	line("  clients    %s contexts of %s user(s), %s isolated; builds %s ok, %s failed, "
	     "%s crashed",
	     count(value(m, "tq_contexts")), count(value(m, "tq_users")),
	     count(value(m, "tq_domains")),
	     count(value(m, "tq_builds_total{status=\"ok\"}")),
	     count(value(m, "tq_builds_total{status=\"error\"}")),
	     count(value(m, "tq_build_crashes_total")));
	line("  refused    %s by limits (%s OpenCL C source), %s rejected, %s command errors, "
	     "%s device recoveries",
	     count(value(m, CTR_LIMITS)),
	     count(value(m, "tq_limit_refused_total{limit=\"allow-source\"}")),
	     count(value(m, "tq_rejected_tasks_total")),
	     count(value(m, "tq_task_command_errors_total{stage=\"htd\"}") +
		   value(m, "tq_task_command_errors_total{stage=\"k\"}") +
		   value(m, "tq_task_command_errors_total{stage=\"dth\"}")),
	     count(value(m, "tq_device_recoveries_total")));
	show_uids(m);
}

/* One screen; dt: seconds since the last, 0 for the first (no rates). */
static void snapshot(double dt)
{
	char host[64] = "?", when[32];
	time_t now = time(NULL);

	gethostname(host, sizeof(host) - 1);
	strftime(when, sizeof(when), "%F %T", localtime(&now));
	line("tqstat %s on %s, %s%s", TQ_VERSION, host, when,
	     dt > 0 ? "; rates over the last interval" : "");
	line("%s", "");
	show_transport(dt);
	line("%s", "");
	show_usched(dt);
	fflush(stdout);
}

/* ---- every counter ------------------------------------------------------- */

static void all(void)
{
	char why[256];

	for (unsigned int s = 0; s < NSRC; s++) {
		if (src[s].err) {
			why_missing(&src[s], why, sizeof(why));
			printf("# %s %s: not available: %s: %s\n", src[s].what, src[s].path,
			       strerror(-src[s].err), why);
			continue;
		}
		printf("# %s %s", src[s].what, src[s].path);
		if (s == METRICS && stale(&src[s].now, why, sizeof(why)))
			printf(": stale: %s", why);
		putchar('\n');
		for (unsigned int i = 0; i < src[s].now.n; i++)
			printf("%s %.*f\n", src[s].now.c[i].name,
			       src[s].now.c[i].value == floor(src[s].now.c[i].value) ? 0 : 6,
			       src[s].now.c[i].value);
	}
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void watch(double interval, long count)
{
	bool tty = isatty(STDOUT_FILENO);
	double t0 = tq_now_s(), t1;

	snapshot(0);
	for (long i = 1; count < 0 || i < count; i++) {
		sleep_s(interval);
		for (int s = 0; s < NSRC; s++)
			read_source(&src[s]);
		t1 = tq_now_s();
		/* a terminal redraws in place, as top does; anything else gets one after another */
		fputs(tty ? "\033[H\033[2J" : "\n", stdout);
		snapshot(t1 - t0);
		t0 = t1;
	}
}

/* --trace start|stop: signal usched, then wait for its metrics to say it is done. */
static int trace(const char *what)
{
	bool start = !strcmp(what, "start");
	struct source *m = &src[METRICS];
	double pid, t0 = tq_now_s();

	if (!start && strcmp(what, "stop")) {
		fprintf(stderr, "tqstat: --trace %s: want start or stop\n", what);
		return 2;
	}
	read_source(m);
	pid = value(&m->now, "tq_pid");
	if (m->err || !(pid > 0)) {
		fprintf(stderr, "tqstat: %s: %s; usched's pid is in its metrics, so --trace needs "
			"them\n", m->path, m->err ? strerror(-m->err) : "no tq_pid");
		return 1;
	}
	if (kill((pid_t)pid, start ? SIGUSR1 : SIGUSR2)) {
		fprintf(stderr, "tqstat: usched (pid %.0f): %s%s\n", pid, strerror(errno),
			errno == EPERM ? " (only root or usched's user may start its trace)" : "");
		return 1;
	}
	do {
		sleep_s(0.1);
		read_source(m);
		if (!m->err && value(&m->now, "tq_trace_active") == start) {
			if (start)
				printf("usched (pid %.0f): tracing (usched.conf's trace, else %s; "
				       "its log says where)\n", pid, TRACE_DEFAULT);
			else
				printf("usched (pid %.0f): trace stopped\n", pid);
			return 0;
		}
	} while (tq_now_s() - t0 < TRACE_WAIT_S);
	fprintf(stderr, "tqstat: usched (pid %.0f) did not say the trace %s within %d s: see its "
		"log\n", pid, start ? "started" : "stopped", TRACE_WAIT_S);
	return 1;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "sysfs", required_argument, NULL, 's' },
		{ "metrics", required_argument, NULL, 'm' },
		{ "socket", required_argument, NULL, 'S' },
		{ "watch", no_argument, NULL, 'w' },
		{ "all", no_argument, NULL, 'a' },
		{ "once", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ "trace", required_argument, NULL, 't' },
		{ 0 }
	};
	const char *trace_what = NULL;
	double interval = 2;
	long count = -1;
	bool every = false, watching = false;
	int c;

	tq_version_opt(argc, argv, "tqstat");
	if (getenv("TQ_METRICS"))
		src[METRICS].path = getenv("TQ_METRICS");
	if (getenv("TQ_SOCKET") && *getenv("TQ_SOCKET"))
		src[TQSUBMITD].path = getenv("TQ_SOCKET");
	while ((c = getopt_long(argc, argv, "awh", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			src[MODULE].path = optarg;
			break;
		case 'm':
			src[METRICS].path = optarg;
			break;
		case 'S':
			src[TQSUBMITD].path = optarg;
			break;
		case 'a':
			every = true;
			break;
		case 'w':
			watching = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 't':
			trace_what = optarg;
			break;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (trace_what) {
		if (optind < argc || every || watching) {
			usage(stderr);
			return 2;
		}
		return trace(trace_what);
	}
	if (optind < argc) {
		char *end;

		interval = strtod(argv[optind++], &end);
		if (*end || !(interval > 0)) {
			fprintf(stderr, "tqstat: bad interval '%s'\n", argv[optind - 1]);
			return 2;
		}
		watching = true;
	}
	if (optind < argc) {
		char *end;

		count = strtol(argv[optind++], &end, 10);
		if (*end || count < 1) {
			fprintf(stderr, "tqstat: bad count '%s'\n", argv[optind - 1]);
			return 2;
		}
	}
	if (optind < argc || (every && watching)) {
		usage(stderr);
		return 2;
	}

	for (int s = 0; s < NSRC; s++)
		read_source(&src[s]);
	if (every)
		all();
	else if (watching)
		watch(interval, count);
	else
		snapshot(0);
	return src[MODULE].err && src[TQSUBMITD].err && src[METRICS].err ? 1 : 0;
}
