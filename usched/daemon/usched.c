// SPDX-License-Identifier: GPL-2.0
/*
 * usched.c - the tq scheduling service. It attaches to /dev/tqsubmit (or to
 * tqsubmitd's scheduler socket, starting tqsubmitd if none listens) as the
 * one scheduler, maps each client context's arena, turns the descriptors
 * the module delivers into the scheduling core's tasks (libusched: task
 * groups, ordering, OpenCL execution) and writes back their completions.
 *
 * Start-up order: signals blocked (every thread, OpenCL's too, the settings'
 * device check's included, inherits the mask, so only the signalfd sees
 * them), settings, the attach (so that a
 * second usched fails at once), then the core on its device, which may
 * calibrate for a while: meanwhile events wait in the module, unread. If
 * anything fails, closing the fd hands all back. After a crash, a new
 * usched gets every task the old one held again from the module
 * (TQ_FEAT_REQUEUE), and its ids from the state file. See usched(8).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <linux/close_range.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tq/daemon.h"
#include "tq/self.h"
#include "tq/version.h"
#include "daemon.h"

/*
 * A kernel's running time when usched.conf sets none: past it the task
 * fails with -ETIME and usched re-executes itself to get the device back
 * (loop_wedged()). Long enough for any honest kernel of a shared GPU.
 */
#define KERNEL_TIME_LIMIT_NS	(10 * 1000000000ull)

/* Open the device and check that it speaks our ABI. */
static int open_device(struct daemon *d)
{
	struct tq_query q = { .size = sizeof(q) };

	d->fd = open(d->conf.devnode, O_RDWR | O_CLOEXEC);
	if (d->fd < 0) {
		err("%s: %m (is tqsubmit.ko loaded?)", d->conf.devnode);
		return -errno;
	}
	if (ioctl(d->fd, TQ_IOC_QUERY, &q)) {
		err("%s: TQ_IOC_QUERY: %m", d->conf.devnode);
		return -errno;
	}
	if (q.abi_version != TQ_ABI_VERSION || q.event_size != sizeof(struct tq_event) ||
	    q.completion_size != sizeof(struct tq_completion)) {
		err("%s speaks ABI %u (events %u bytes); usched was built for %u (%zu)",
		    d->conf.devnode, q.abi_version, q.event_size, TQ_ABI_VERSION,
		    sizeof(struct tq_event));
		return -EPROTO;
	}
	if (!(q.features & TQ_FEAT_REQUEUE))
		warn("the module does not requeue tasks: a restart loses what usched held");
	d->features = q.features;
	return 0;
}

/* Chains come to us whole where the server has them (ctx.c orders them). */
static int attach(struct daemon *d)
{
	struct tq_attach a = { .size = sizeof(a),
			       .flags = d->features & TQ_FEAT_CHAINS ? TQ_ATTACH_F_CHAINS : 0 };

	if (ioctl(d->fd, TQ_IOC_ATTACH, &a)) {
		err("%s: attach: %m%s", d->conf.devnode,
		    errno == EBUSY ? " (another scheduler is attached)" : "");
		return -errno;
	}
	d->features = a.features;
	return 0;
}

/* How long a tqsubmitd we start may take to listen. */
#define TQSUBMITD_START_MS	10000

/* tqsubmitd lives next to usched unless the tqsubmitd setting says where. */
static char *tqsubmitd_path(const struct dconf *c)
{
	char path[PATH_MAX];

	if (c->tqsubmitd)
		return strdup(c->tqsubmitd);
	tq_sibling_path(path, sizeof(path), "tqsubmitd");
	return strdup(path);
}

/*
 * Start tqsubmitd, detached: a double fork and setsid, so that it is
 * nobody's child and outlives us. It keeps the contexts and the tasks we
 * held while usched restarts, which is what makes a restart lose no task on
 * this transport. The grandchild sends its pid up a close-on-exec pipe, and
 * its errno if the exec fails; then we wait until the scheduler socket
 * takes a connection, or tqsubmitd is gone.
 */
static int tqsubmitd_start(struct daemon *d)
{
	char *path = tqsubmitd_path(&d->conf);
	/* --foreground: the detaching is ours, so that the pid we report is the server's */
	const char *argv[] = { path, "--foreground", "--socket", d->conf.socket, "--sched-socket",
			       d->conf.sched_socket, NULL };
	struct { pid_t pid; int err; } r = { 0, 0 };
	int p[2], fd, st, ret = -ETIMEDOUT;
	uint64_t end;
	pid_t pid;

	if (!path)
		return -ENOMEM;
	if (access(path, X_OK)) {
		ret = -errno;
		err("%s: %m: cannot start tqsubmitd for %s (the tqsubmitd setting names it)", path,
		    d->conf.sched_socket);
		free(path);
		return ret;
	}
	if (pipe2(p, O_CLOEXEC)) {
		free(path);
		return -errno;
	}
	fflush(NULL);
	pid = fork();
	if (!pid) {
		sigset_t none;
		int null;

		setsid();
		if (fork())
			_exit(0);
		/* what usched set up is not tqsubmitd's: blocked signals, SIGPIPE ignored */
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		null = open("/dev/null", O_RDWR);
		if (null >= 0) {
			dup2(null, 0);
			if (!d->conf.foreground) {	/* our stderr is about to go */
				dup2(null, 1);
				dup2(null, 2);
			}
		}
		close(p[0]);
		r.pid = getpid();
		if (write(p[1], &r.pid, sizeof(r.pid)) != sizeof(r.pid))
			_exit(127);
		close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
		execv(path, (char **)argv);
		r.err = errno;
		if (write(p[1], &r.err, sizeof(r.err)) != sizeof(r.err))
			_exit(127);
		_exit(127);
	}
	close(p[1]);
	if (pid < 0) {
		ret = -errno;
		close(p[0]);
		free(path);
		return ret;
	}
	waitpid(pid, &st, 0);
	if (read(p[0], &r.pid, sizeof(r.pid)) != sizeof(r.pid) ||
	    read(p[0], &r.err, sizeof(r.err)) == sizeof(r.err)) {
		err("cannot start %s: %s", path, r.err ? strerror(r.err) : "fork failed");
		close(p[0]);
		free(path);
		return r.err ? -r.err : -ECHILD;
	}
	close(p[0]);
	info("started %s (pid %d) for %s", path, r.pid, d->conf.sched_socket);
	for (end = tq_now_ns() + TQSUBMITD_START_MS * 1000000ull; tq_now_ns() < end;) {
		fd = tqt_connect(d->conf.sched_socket);
		if (fd >= 0) {
			close(fd);
			ret = 0;
			break;
		}
		if (kill(r.pid, 0) && errno == ESRCH) {
			err("%s (pid %d) exited before it listened on %s", path, r.pid,
			    d->conf.sched_socket);
			ret = -ECHILD;
			break;
		}
		usleep(10000);
	}
	if (ret == -ETIMEDOUT)
		err("%s (pid %d) does not listen on %s after %d s", path, r.pid,
		    d->conf.sched_socket, TQSUBMITD_START_MS / 1000);
	free(path);
	return ret;
}

/*
 * The socket: attach to tqsubmitd; when nothing listens on its scheduler
 * socket and systemd does not run us (its units start tqsubmitd), start
 * one. tqsubmitd sees a scheduler's exit when its loop reads the hangup,
 * so EBUSY is retried a moment (2 s; 5 s re-executed after a wedged kernel,
 * whose old image's connection closes only at the exec).
 */
static int attach_socket(struct daemon *d, bool reexec)
{
	struct tq_query q;
	struct tq_attach a;
	uint64_t end = tq_now_ns() + (reexec ? 5000000000ull : 2000000000ull);
	bool started = false;
	int fd;

	for (;;) {
		fd = tqt_sched_attach_flags(d->conf.sched_socket, &q, &a, TQ_ATTACH_F_CHAINS);
		if (fd >= 0)
			break;
		if ((fd == -ENOENT || fd == -ECONNREFUSED) && !started &&
		    strcmp(d->conf.tqsubmitd ? d->conf.tqsubmitd : "", "none") &&
		    !getenv("INVOCATION_ID")) {
			int ret = tqsubmitd_start(d);

			if (ret)
				return ret;
			started = true;
			continue;
		}
		if (fd == -EBUSY && tq_now_ns() < end) {
			usleep(10000);
			continue;
		}
		err("%s: attach: %s%s", d->conf.sched_socket, strerror(-fd),
		    fd == -EBUSY ? " (another scheduler is attached)" :
		    fd == -EPERM ? " (tqsubmitd takes root or its own user)" :
		    fd == -EPROTO ? " (tqsubmitd speaks another ABI)" :
		    fd == -ENOENT || fd == -ECONNREFUSED ? " (is tqsubmitd running?)" : "");
		return fd;
	}
	d->fd = fd;
	d->features = a.features;
	if (!(q.features & TQ_FEAT_REQUEUE))
		warn("tqsubmitd does not requeue tasks: a restart loses what usched held");
	return 0;
}

/* The transport the settings ask for, then its scheduler fd attached. */
static int connect_transport(struct daemon *d, bool reexec)
{
	int ret;

	/* dconf_check() took only a transport tqt_parse() knows */
	d->transport = tqt_resolve(tqt_parse(d->conf.transport), d->conf.devnode);
	if (d->transport == TQT_SOCKET) {
		d->where = d->conf.sched_socket;
		ret = attach_socket(d, reexec);
	} else {
		d->where = d->conf.devnode;
		ret = open_device(d);
		if (!ret)
			ret = attach(d);
	}
	if (!ret && !(d->features & TQ_FEAT_IDEMPOTENT))
		warn("the %s does not know idempotent tasks: after a restart every task is run "
		     "again, started or not", d->transport == TQT_SOCKET ? "server" : "module");
	return ret;
}

static int signals(struct daemon *d)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGUSR1);	/* trace start */
	sigaddset(&set, SIGUSR2);	/* trace stop */
	if (pthread_sigmask(SIG_BLOCK, &set, NULL))
		return -errno;
	signal(SIGPIPE, SIG_IGN);
	d->sigfd = signalfd(-1, &set, SFD_CLOEXEC);
	return d->sigfd < 0 ? -errno : 0;
}

static void logs_close(struct daemon *d)
{
	if (d->tg_log)
		fclose(d->tg_log);
	if (d->task_log)
		fclose(d->task_log);
	d->tg_log = d->task_log = NULL;
}

/* usched_opts.tg_done: the metrics' histograms, and tg-log's line. */
static void on_tg(void *arg, const struct usched_tg_stat *s)
{
	struct daemon *d = arg;

	metrics_tg(&d->st, s);
	if (d->tg_log)
		metrics_tg_line(d->tg_log, d->policy, s);
}

/*
 * Where the start went, in one line: the settings (with the OpenCL
 * platforms' start when they name a device), attaching, the core's phases (the
 * device, its queues, the clock, the calibration and whence it came), and
 * the rest (the state file, the build workers, the loop).
 */
static void ready_line(struct daemon *d)
{
	static const char *const calib[] = { "profile", "measured", "cached" };
	struct usched_stats s;
	char line[512];
	uint64_t core = 0;
	int n;

	usched_stats(d->u, &s);
	d->st.start_ready_ns = tq_now_ns() - d->started_ns;
	n = snprintf(line, sizeof(line), "ready in %.3f s: settings %.3f, attach %.3f",
		     d->st.start_ready_ns * 1e-9, d->st.start_settings_ns * 1e-9,
		     d->st.start_attach_ns * 1e-9);
	for (unsigned int p = 0; p < USCHED_START_PHASES; p++) {
		core += s.start_ns[p];
		n += snprintf(line + n, sizeof(line) - n, ", %s %.3f", usched_start_phase_name(p),
			      s.start_ns[p] * 1e-9);
	}
	n += snprintf(line + n, sizeof(line) - n, " (%s), rest %.3f", calib[s.calib],
		      (d->st.start_ready_ns - d->st.start_settings_ns - d->st.start_attach_ns -
		       core) * 1e-9);
	if (d->cache_dir)
		snprintf(line + n, sizeof(line) - n, "; %u program(s) cached in %s",
			 cache_programs(d), d->cache_dir);
	else
		snprintf(line + n, sizeof(line) - n, "; no cache");
	info("%s", line);
}

int main(int argc, char **argv)
{
	struct daemon d = { .fd = -1, .sigfd = -1, .state_fd = -1, .argc = argc, .argv = argv };
	struct usched_opts o = { .complete = ctx_complete, .complete_arg = &d,
				 .tg_done = on_tg, .tg_arg = &d,
				 .started = loop_started, .started_arg = &d,
				 .wedged = loop_wedged, .wedged_arg = &d,
				 .time_limit_ns = KERNEL_TIME_LIMIT_NS };
	const char *recoveries = getenv(USCHED_RECOVERIES_ENV);
	struct usched_stats s;
	int ret, ready = -1;

	d.started_ns = tq_now_ns();
	tq_version_opt(argc, argv, "usched");
	dconf_init(&d.conf);
	/* every setting is checked before attaching: 2 for a bad one */
	ret = dconf_args(&d.conf, argc, argv);
	/*
	 * The signals are blocked before OpenCL's first call, the device check's:
	 * the threads a driver starts there must not take SIGTERM or SIGHUP.
	 */
	if (!ret && signals(&d)) {
		fprintf(stderr, "usched: signals: %m\n");
		return 1;
	}
	if (!ret)
		ret = dconf_check(&d.conf, argv[0]);
	if (ret || d.conf.check_config)
		return ret < 0 ? 2 : 0;
	dlog_init(d.conf.foreground, d.conf.verbose);
	/* a device named is looked for among OpenCL's: the platforms' start is here then */
	d.st.start_settings_ns = tq_now_ns() - d.started_ns;
	d.st.acct_max = d.conf.metrics_clients;	/* kept across SIGHUP: labels never move */
	if (recoveries) {
		d.st.recoveries = strtoull(recoveries, NULL, 10);
		info("re-executed to get the device back (recovery %llu)",
		     (unsigned long long)d.st.recoveries);
	}

	/* Before the core's threads exist: fork (not again when re-executed). */
	if (!d.conf.foreground && !recoveries) {
		ready = tq_daemonize();
		if (ready < 0) {
			err("cannot fork: %m");
			return 1;
		}
	}
	/* Attach first, to fail fast if another scheduler is; events wait unread. */
	ret = connect_transport(&d, recoveries != NULL);
	if (ret)
		goto out;
	d.st.start_attach_ns = tq_now_ns() - d.started_ns - d.st.start_settings_ns;
	ret = cache_open(&d);
	if (ret)
		goto out;

	o.platform = d.conf.platform;
	o.device = d.conf.device;
	o.policy = d.conf.policy;
	o.max_tg = d.conf.max_tg;
	o.kqueues = d.conf.kernel_queues;
	if (o.kqueues == DCONF_AUTO) {
		char why[512];

		ret = dconf_kqueues_auto(d.conf.profile, &o.kqueues, why, sizeof(why));
		if (ret) {
			err("kernel-queues auto: %s", why);
			goto out;
		}
		info("kernel-queues auto: %u (%s)", o.kqueues, why);
	}
	o.dma = d.conf.copy_engines;
	o.profile = d.conf.profile;
	o.trace_max = d.conf.trace_max;
	o.no_plans = d.conf.no_plans;
	o.no_refine = d.conf.no_refine;
	o.no_poll = d.conf.no_poll;
	o.prio_ahead_ms = d.conf.prio_ahead_ns * 1e-6;
	o.deadline = d.conf.deadline;
	o.calib_load = cache_calib_load;
	o.calib_save = cache_calib_save;
	o.calib_arg = &d;
	ret = usched_create(&o, &d.u);
	if (ret) {
		err("scheduling core: %s", strerror(-ret));
		goto out;
	}
	if (cache_device(&d))
		warn("%s: the device has no key: programs are not kept", d.cache_dir);
	usched_stats(d.u, &s);
	info("device %s: %u copy engine(s), %u kernel queue(s), policy %s, TGs of up to %u",
	     s.device, s.dma, s.kqueues, s.policy, s.max_tg);
	snprintf(d.policy, sizeof(d.policy), "%s", s.policy);
	d.tg_log = metrics_log_open(d.conf.tg_log, metrics_tg_header);
	d.task_log = metrics_log_open(d.conf.task_log, metrics_task_header);

	ret = state_open(&d);
	if (ret)
		warn("%s: %s; a restart will forget ids", d.conf.state, strerror(-ret));
	ret = build_start(&d);
	if (!ret)
		ret = loop_init(&d);
	if (ret)
		goto out_core;

	if (d.conf.trace)
		loop_trace(&d, true);
	ready_line(&d);
	info("ready: serving %s as pid %d", d.where, getpid());
	tq_sd_ready();
	if (ready >= 0) {
		char ok = 0;

		if (write(ready, &ok, 1) != 1)
			warn("cannot tell the parent we are ready: %m");
		close(ready);
		ready = -1;
		tq_detach_stdio();
	}

	ret = loop_run(&d);
	if (d.quit)
		usched_cancel(d.u, USCHED_OWNER_ALL);
	build_stop(&d);
	usched_destroy(d.u);	/* runs what the core holds; completions queue up */
	d.u = NULL;
	logs_close(&d);
	loop_flush_sync(&d);
	info("exiting: %lu task(s) left to %s, %llu completion(s) written", d.held,
	     d.transport == TQT_SOCKET ? "tqsubmitd" : "the module",
	     (unsigned long long)d.st.completions);
	loop_fini(&d);
	ctx_free_all(&d);
	metrics_acct_free(&d.st);
	state_close(&d);
	cache_close(&d);
	close(d.fd);	/* the module (tqsubmitd) re-delivers what we did not complete */
	close(d.sigfd);
	dconf_free(&d.conf);
	return ret || d.lost ? 1 : 0;

out_core:
	build_stop(&d);
	loop_fini(&d);
	state_close(&d);
	usched_destroy(d.u);
	logs_close(&d);
out:
	cache_close(&d);
	if (d.fd >= 0)
		close(d.fd);
	dconf_free(&d.conf);
	return 1;	/* a daemonized parent sees the pipe close and exits 1 too */
}
