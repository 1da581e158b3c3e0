// SPDX-License-Identifier: GPL-2.0
/*
 * loop.c - usched's event loop, on one io_uring.
 *
 * Everything the daemon waits for is an io_uring request, at most one of
 * each kind in flight, and the loop sleeps in io_uring_submit_and_wait()
 * until one completes; nothing polls or spins:
 *
 *	READ	whole struct tq_event records from the scheduler fd; the
 *		module's read is pollable, so io_uring parks it until events come.
 *		On tqsubmitd's socket a recvmsg of one message, whose SCM_RIGHTS
 *		carry an arena memfd per TQ_EV_OPEN, in record order
 *	WRITE	the completion records queued since the last write, in one go
 *	CORE	a poll of the core's eventfd: OpenCL callbacks signal it, and
 *		usched_process() then completes tasks and launches the next TG
 *	BUILD	a read of the build thread's eventfd: builds finished
 *	SIGNAL	a read of the signalfd: SIGINT and SIGTERM stop taking work and
 *		exit once what was taken is done (a second one exits at once;
 *		the module re-delivers the rest), SIGHUP rereads the config's
 *		safe settings and writes the metrics
 *	TIMER	a timeout that writes the metrics every metrics-interval
 *
 * Completions queue in d->out while a write is in flight and go out in the
 * next, so a burst of completions costs one syscall-free submission.
 */
#include <errno.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <linux/close_range.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "daemon.h"
#include "tq/daemon.h"

enum op { OP_READ = 1, OP_WRITE, OP_CORE, OP_BUILD, OP_SIGNAL, OP_TIMER, OP_CANCEL };

#define NEVENTS		64
/* The socket: room for tqsubmitd's largest message (a socket buffer's worth) */
#define NEVENTS_SOCK	1024
/* and completions a message at most, well inside the socket's send buffer */
#define NCOMPL_SOCK	1024
#define RING_ENTRIES	16

static struct signalfd_siginfo sig_info;
static uint64_t build_count;
static struct __kernel_timespec metrics_ts;
static bool sig_armed;

static struct io_uring_sqe *get_sqe(struct daemon *d, enum op op)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&d->ring);

	if (!sqe) {	/* full: make room; never more than one per kind is in flight */
		io_uring_submit(&d->ring);
		sqe = io_uring_get_sqe(&d->ring);
	}
	io_uring_sqe_set_data64(sqe, op);
	return sqe;
}

/* Records of n that one write takes: all on the module, a message's worth on the socket. */
static size_t wchunk(const struct daemon *d, size_t n)
{
	return d->transport == TQT_SOCKET && n > NCOMPL_SOCK ? NCOMPL_SOCK : n;
}

/* tqsubmitd is gone: every context with it. Stop, and exit 1. */
static void lost(struct daemon *d, const char *what, int res)
{
	if (!d->lost)
		err("%s %s: %s: tqsubmitd is gone, and its clients with it; exiting", what,
		    d->where, res ? strerror(-res) : "end of file");
	d->lost = d->stopping = d->quit = true;
}

static void arm_write(struct daemon *d)
{
	struct io_uring_sqe *sqe = get_sqe(d, OP_WRITE);

	io_uring_prep_write(sqe, d->fd, d->wbuf + d->woff,
			    wchunk(d, d->nw - d->woff) * sizeof(struct tq_completion), -1);
	d->writing = true;
}

/* Send what queued up, unless a write is still in flight. */
static void flush_records(struct daemon *d)
{
	struct tq_completion *t;

	if (d->writing || !d->nout)
		return;
	t = d->wbuf;
	d->wbuf = d->out;
	d->out = t;
	d->nw = d->nout;
	d->nout = 0;
	d->woff = 0;
	arm_write(d);
}

static void write_done(struct daemon *d, int res)
{
	d->writing = false;
	if (res == -EINTR || res == -EAGAIN) {
		arm_write(d);
		return;
	}
	if (res >= 0) {
		d->woff += res / sizeof(struct tq_completion);
		d->st.completions += res / sizeof(struct tq_completion);
	} else if (d->transport == TQT_SOCKET) {
		/* no errno for a record comes back on the socket: only the connection's */
		d->st.write_errors += d->nw - d->woff;
		d->woff = d->nw;
		lost(d, "writing to", res);
		return;
	} else {
		/* The module refused the first record; skip it, send the rest. */
		const struct tq_completion *c = &d->wbuf[d->woff];

		warn("completion ctx %u tag %llx%s refused: %s", c->ctx_id,
		     (unsigned long long)c->tag, c->flags ? " (release)" : "", strerror(-res));
		d->st.write_errors++;
		d->woff++;
	}
	if (d->woff < d->nw)
		arm_write(d);	/* a short write stopped at a bad record: its errno comes next */
}

/* Write whatever is queued, synchronously: for the way out. */
void loop_flush_sync(struct daemon *d)
{
	size_t i = 0;
	ssize_t n;

	while (i < d->nout) {
		n = write(d->fd, d->out + i, wchunk(d, d->nout - i) * sizeof(struct tq_completion));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && d->transport == TQT_SOCKET) {
			d->st.write_errors += d->nout - i;
			break;
		}
		if (n <= 0) {
			i++;
			d->st.write_errors++;
			continue;
		}
		i += n / sizeof(struct tq_completion);
		d->st.completions += n / sizeof(struct tq_completion);
	}
	d->nout = 0;
}

/* Write n records synchronously; a refused one is logged and skipped. */
static void write_sync(struct daemon *d, const struct tq_completion *c, size_t n)
{
	size_t i = 0;
	ssize_t w;

	while (i < n) {
		w = write(d->fd, c + i, (n - i) * sizeof(*c));
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && d->transport == TQT_SOCKET) {
			d->st.write_errors += n - i;
			lost(d, "writing to", -errno);
			return;
		}
		if (w <= 0) {
			warn("record ctx %u tag %llx%s refused: %s", c[i].ctx_id,
			     (unsigned long long)c[i].tag,
			     c[i].flags & TQ_COMPL_F_STARTED ? " (started)" : "",
			     strerror(w < 0 ? errno : EIO));
			d->st.write_errors++;
			i++;
			continue;
		}
		i += w / sizeof(*c);
	}
}

/*
 * Before the core enqueues a TG's first command: the module must know that
 * its tasks may have run, so that after our exit it completes a started
 * task that is not idempotent with -EOWNERDEAD instead of running it again
 * (uapi, "Requeue"). Synchronous, one write per TG; a module without
 * TQ_FEAT_IDEMPOTENT would refuse the flag, and requeues every task anyway.
 */
void loop_started(void *arg, const struct usched_start *t, unsigned int n)
{
	struct tq_completion c[USCHED_MAX_TG];
	struct daemon *d = arg;

	if (!(d->features & TQ_FEAT_IDEMPOTENT))
		return;
	for (unsigned int i = 0; i < n; i++)
		c[i] = (struct tq_completion){ .ctx_id = (uint32_t)t[i].owner,	/* ctx_owner() */
					       .flags = TQ_COMPL_F_STARTED,
					       .tag = dtask_of(t[i].user_data)->tag };
	write_sync(d, c, n);
}

void loop_wedged(void *arg)
{
	struct daemon *d = arg;
	char n[24];

	err("a kernel ran past its time limit, or the device was lost: re-executing usched to "
	    "get the device back");
	/* the write in flight first, so that no record is lost or sent twice */
	while (d->writing) {
		struct io_uring_cqe *cqe;
		int res;

		io_uring_submit(&d->ring);
		if (io_uring_wait_cqe(&d->ring, &cqe))
			break;
		res = cqe->res;
		if (io_uring_cqe_get_data64(cqe) == OP_WRITE) {
			io_uring_cqe_seen(&d->ring, cqe);
			write_done(d, res);
		} else {
			io_uring_cqe_seen(&d->ring, cqe);	/* events read are requeued */
		}
	}
	loop_flush_sync(d);
	snprintf(n, sizeof(n), "%llu", (unsigned long long)d->st.recoveries + 1);
	setenv(USCHED_RECOVERIES_ENV, n, 1);
	/*
	 * Every fd closes at the exec, the drivers' too whatever flags they
	 * opened them with: the scheduler fd (the module requeues what we
	 * held) and the device's (its context, and the endless kernel, go).
	 */
	if (close_range(3, ~0u, CLOSE_RANGE_CLOEXEC))
		warn("close_range: %m; the device's files may stay open");
	execv("/proc/self/exe", d->argv);
	err("cannot re-execute usched: %m; exiting");
	_exit(1);
}

static void arm_read(struct daemon *d)
{
	struct io_uring_sqe *sqe;

	if (d->reading || d->stopping)
		return;
	sqe = get_sqe(d, OP_READ);
	if (d->transport == TQT_SOCKET) {
		d->riov = (struct iovec){ .iov_base = d->ev, .iov_len = d->nev * sizeof(*d->ev) };
		d->rmsg = (struct msghdr){ .msg_iov = &d->riov, .msg_iovlen = 1,
					   .msg_control = d->rctl->buf,
					   .msg_controllen = sizeof(d->rctl->buf) };
		io_uring_prep_recvmsg(sqe, d->fd, &d->rmsg, MSG_CMSG_CLOEXEC);
	} else {
		io_uring_prep_read(sqe, d->fd, d->ev, d->nev * sizeof(struct tq_event), -1);
	}
	d->reading = true;
}

static void read_events(struct daemon *d, int res);

/*
 * The socket carries one message a read where the module's read takes every
 * record there is: the messages waiting behind this one are read now, up to
 * NEVENTS, so that tasks submitted together reach the core together and the
 * next TG forms from all of them, not from the first client's.
 */
#define SOCKET_BATCH	NEVENTS

static void read_done(struct daemon *d, int res)
{
	d->reading = false;
	if (res == -EINTR || res == -EAGAIN || res == -ECANCELED)
		return;		/* re-armed unless stopping */
	read_events(d, res);
	for (unsigned int i = 1; d->transport == TQT_SOCKET && res > 0 && !d->stopping &&
	     i < SOCKET_BATCH; i++) {
		d->riov = (struct iovec){ .iov_base = d->ev, .iov_len = d->nev * sizeof(*d->ev) };
		d->rmsg = (struct msghdr){ .msg_iov = &d->riov, .msg_iovlen = 1,
					   .msg_control = d->rctl->buf,
					   .msg_controllen = sizeof(d->rctl->buf) };
		res = recvmsg(d->fd, &d->rmsg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (res < 0 && (errno == EAGAIN || errno == EINTR))
			break;
		read_events(d, res < 0 ? -errno : res);
	}
}

/* The records of one read (@res bytes, or -errno) into the contexts and the core. */
static void read_events(struct daemon *d, int res)
{
	static int fds[TQT_MAX_FDS];
	const struct tq_event *ev;
	unsigned int nfds = 0, k = 0;

	if (d->transport == TQT_SOCKET) {
		if (res <= 0) {
			lost(d, "reading", res);
			return;
		}
		nfds = tqt_cmsg_fds(&d->rmsg, fds, TQT_MAX_FDS);
		if (d->rmsg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) {
			/* cannot happen with tqsubmitd's messages; the records are lost */
			err("a message of %s did not fit (%d bytes, flags %#x); exiting", d->where,
			    res, d->rmsg.msg_flags);
			while (nfds)
				close(fds[--nfds]);
			lost(d, "reading", -EMSGSIZE);
			return;
		}
	} else if (res <= 0) {
		err("reading %s: %s", d->where, res ? strerror(-res) : "end of file");
		d->stopping = d->quit = true;
		return;
	}
	for (ev = d->ev; (char *)(ev + 1) <= (char *)d->ev + res; ev++) {
		int afd;

		if (ev->type >= 1 && ev->type <= 3)
			d->st.events[ev->type]++;
		switch (ev->type) {
		case TQ_EV_OPEN:
			afd = d->transport == TQT_SOCKET && k < nfds ? fds[k++] : -1;
			ctx_open(d, ev, afd);
			if (afd >= 0)
				close(afd);	/* the mapping holds the memfd */
			break;
		case TQ_EV_TASK:
			ctx_task(d, ev);
			break;
		case TQ_EV_CLOSE:
			ctx_close(d, ev);
			break;
		default:
			warn("unknown event type %u", ev->type);
		}
	}
	if (k < nfds)
		warn("%u arena fd(s) beyond the message's TQ_EV_OPEN records, closed", nfds - k);
	while (nfds > k)
		close(fds[--nfds]);
}

static void arm_core(struct daemon *d)
{
	struct io_uring_sqe *sqe;

	if (d->core_armed)
		return;
	sqe = get_sqe(d, OP_CORE);
	io_uring_prep_poll_add(sqe, usched_fd(d->u), POLLIN);
	d->core_armed = true;
}

static void core_done(struct daemon *d)
{
	d->core_armed = false;
	usched_process(d->u);
}

/* Nothing to do: the core's idle work (usched_idle()) in slices, while no completion waits. */
static void core_idle(struct daemon *d)
{
	io_uring_submit(&d->ring);
	while (!io_uring_cq_ready(&d->ring) && usched_idle(d->u))
		;
}

static void arm_build(struct daemon *d)
{
	struct io_uring_sqe *sqe;

	if (d->build_armed)
		return;
	sqe = get_sqe(d, OP_BUILD);
	io_uring_prep_read(sqe, d->build_efd, &build_count, sizeof(build_count), 0);
	d->build_armed = true;
}

static void build_done(struct daemon *d)
{
	struct dbuild *b;

	d->build_armed = false;
	while ((b = build_take_done(d))) {
		ctx_build_done(d, b);
		build_free(b);
	}
}

static void arm_signal(struct daemon *d)
{
	struct io_uring_sqe *sqe;

	if (sig_armed)
		return;
	sqe = get_sqe(d, OP_SIGNAL);
	io_uring_prep_read(sqe, d->sigfd, &sig_info, sizeof(sig_info), 0);
	sig_armed = true;
}

/* metrics-group as a gid, once per reading of the settings; (gid_t)-1: none. */
static gid_t metrics_gid(struct daemon *d)
{
	const char *g = d->conf.metrics_group;
	struct group *gr;
	char *end;

	if (d->metrics_gid_set)
		return d->metrics_gid;
	d->metrics_gid_set = true;
	d->metrics_gid = (gid_t)-1;
	if (!g || !*g)
		return d->metrics_gid;
	gr = getgrnam(g);
	if (gr)
		d->metrics_gid = gr->gr_gid;
	else if (strtoul(g, &end, 10), *end)
		warn("metrics-group %s: no such group; the metrics keep usched's group", g);
	else
		d->metrics_gid = strtoul(g, NULL, 10);
	return d->metrics_gid;
}

static void write_metrics(struct daemon *d)
{
	struct usched_stats s;
	int ret;

	if (!d->conf.metrics)
		return;
	usched_stats(d->u, &s);
	ret = metrics_write(d->conf.metrics, metrics_gid(d), d->conf.metrics_interval, &s, &d->st,
			    (tq_now_ns() - d->started_ns) * 1e-9);
	if (ret)
		warn("%s: %s", d->conf.metrics, strerror(-ret));
}

/*
 * SIGHUP: read the file and the flags again as at start-up, and take what
 * can change without a restart: where and how often the metrics go, how
 * much is logged, and the limits (every known uid's resolved again).
 */
static void reload(struct daemon *d)
{
	struct dconf n;

	dconf_init(&n);
	if (dconf_args(&n, d->argc, d->argv)) {
		warn("reload: bad settings; keeping the old ones");
	} else {
		free(d->conf.metrics);
		d->conf.metrics = n.metrics;
		n.metrics = NULL;
		free(d->conf.metrics_group);
		d->conf.metrics_group = n.metrics_group;
		n.metrics_group = NULL;
		d->metrics_gid_set = false;
		d->conf.metrics_interval = n.metrics_interval;
		d->conf.verbose = n.verbose;
		dlog_init(d->conf.foreground, d->conf.verbose);
		users_reload(d, &n);
		info("reloaded the settings (metrics, metrics-group, metrics-interval, verbose and the limits; "
		     "the rest takes a restart)");
	}
	dconf_free(&n);
	write_metrics(d);
}

void loop_trace(struct daemon *d, bool start)
{
	const char *path = d->conf.trace ? d->conf.trace : USCHED_TRACE_DEFAULT;
	int fd, ret, group_err;

	if (!start) {
		ret = usched_trace_stop(d->u);
		if (ret == -ENOENT)
			info("trace: none to stop");
		else if (ret)
			warn("trace %s: %s; it may be cut short", path, strerror(-ret));
		else
			info("trace %s: stopped", path);
		write_metrics(d);
		return;
	}
	state_make_dirs(path);
	fd = tq_file_create(path, 0, metrics_gid(d), &group_err);
	if (fd < 0) {
		warn("trace %s: %s; not tracing", path, strerror(-fd));
		return;
	}
	if (group_err)
		warn("trace %s: group %u: %s; readable by usched's group only", path,
		     (unsigned int)metrics_gid(d), strerror(group_err));
	ret = usched_trace_start(d->u, fd, d->conf.trace_max);
	if (ret == -EBUSY)
		info("trace: already on");
	else if (ret)
		warn("trace %s: %s; not tracing", path, strerror(-ret));
	else
		info("trace %s: started (at most %llu bytes)", path, (unsigned long long)
		     (d->conf.trace_max ? d->conf.trace_max : USCHED_TRACE_MAX));
	write_metrics(d);
}

static void signal_done(struct daemon *d, int res)
{
	sig_armed = false;
	if (res != sizeof(sig_info))
		return;
	switch (sig_info.ssi_signo) {
	case SIGHUP:
		reload(d);
		break;
	case SIGUSR1:
	case SIGUSR2:
		loop_trace(d, sig_info.ssi_signo == SIGUSR1);
		break;
	case SIGINT:
	case SIGTERM:
		if (d->stopping) {
			info("second signal: exiting now; the module re-delivers what is left");
			d->quit = true;
			break;
		}
		info("%s: finishing %lu task(s) in flight, then exiting",
		     strsignal(sig_info.ssi_signo), d->held);
		d->stopping = true;
		if (d->reading)	/* events not read stay in the module for our successor */
			io_uring_prep_cancel64(get_sqe(d, OP_CANCEL), OP_READ, 0);
		break;
	}
}

static void arm_timer(struct daemon *d)
{
	struct io_uring_sqe *sqe;

	if (d->timer_armed || !d->conf.metrics || !d->conf.metrics_interval)
		return;
	metrics_ts.tv_sec = d->conf.metrics_interval;
	metrics_ts.tv_nsec = 0;
	sqe = get_sqe(d, OP_TIMER);
	io_uring_prep_timeout(sqe, &metrics_ts, 0, 0);
	d->timer_armed = true;
}

int loop_init(struct daemon *d)
{
	int ret;

	d->nev = d->transport == TQT_SOCKET ? NEVENTS_SOCK : NEVENTS;
	d->ev = calloc(d->nev, sizeof(*d->ev));
	d->rctl = d->transport == TQT_SOCKET ? calloc(1, sizeof(*d->rctl)) : NULL;
	if (!d->ev || (d->transport == TQT_SOCKET && !d->rctl)) {
		free(d->ev);
		free(d->rctl);
		d->ev = NULL;
		d->rctl = NULL;
		return -ENOMEM;
	}
	ret = io_uring_queue_init(RING_ENTRIES, &d->ring, 0);
	if (ret) {
		free(d->ev);
		free(d->rctl);
		d->ev = NULL;
		d->rctl = NULL;
	}
	return ret;
}

void loop_fini(struct daemon *d)
{
	if (!d->ev)
		return;		/* never set up */
	io_uring_queue_exit(&d->ring);
	free(d->ev);
	free(d->rctl);
	free(d->out);
	free(d->wbuf);
	d->ev = NULL;
	d->rctl = NULL;
	d->out = d->wbuf = NULL;
}

/* Run until a signal says stop and what was taken is done, or a second says quit. */
int loop_run(struct daemon *d)
{
	struct io_uring_cqe *cqe;
	unsigned int head, n;
	int ret;

	write_metrics(d);
	for (;;) {
		arm_read(d);
		arm_core(d);
		arm_build(d);
		arm_signal(d);
		arm_timer(d);
		flush_records(d);
		if (d->quit || (d->stopping && !d->held && !d->reading && !d->writing &&
				!d->nout))
			break;

		core_idle(d);
		ret = io_uring_submit_and_wait(&d->ring, 1);
		if (ret < 0 && ret != -EINTR) {
			err("io_uring: %s", strerror(-ret));
			return ret;
		}
		n = 0;
		io_uring_for_each_cqe(&d->ring, head, cqe) {
			n++;
			switch (io_uring_cqe_get_data64(cqe)) {
			case OP_READ:
				read_done(d, cqe->res);
				break;
			case OP_WRITE:
				write_done(d, cqe->res);
				break;
			case OP_CORE:
				core_done(d);
				break;
			case OP_BUILD:
				build_done(d);
				break;
			case OP_SIGNAL:
				signal_done(d, cqe->res);
				break;
			case OP_TIMER:
				d->timer_armed = false;
				write_metrics(d);
				break;
			}
		}
		io_uring_cq_advance(&d->ring, n);
	}
	write_metrics(d);
	return 0;
}
