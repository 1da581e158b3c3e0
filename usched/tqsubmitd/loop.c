// SPDX-License-Identifier: GPL-2.0
/*
 * loop.c - tqsubmitd's I/O: one io_uring for the two listening sockets,
 * every connection's messages, the clients' eventfds and the signals.
 *
 * Nothing a client controls can make the loop wait:
 *  - its connection is read by io_uring, one message at a time (so a flood
 *    of doorbells from one client gets its turn and no more);
 *  - replies go out with MSG_DONTWAIT; one that does not fit waits, with
 *    its descriptors, for POLLOUT, and the connection is not read until it
 *    is sent (a client that never reads its socket stalls only itself);
 *  - its eventfd, whose O_NONBLOCK and counter it controls, is written by
 *    io_uring, one write per context at a time (further signals coalesce:
 *    one is as good as many), so a counter at its maximum holds a request
 *    of ours and nothing else;
 *  - its shared memory is read as sched.c says.
 * The scheduler's events go out the same way: a batch that does not fit
 * waits for POLLOUT, and no new batch is made meanwhile.
 */
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <tq_transport.h>
#include "tqsubmitd.h"

static struct io_uring ring;
static int lfd[2] = { -1, -1 };		/* CONN_CLIENT, CONN_SCHED */
static struct tqd_op accept_op[2], timeout_op[2];
static struct __kernel_timespec accept_delay[2];	/* 0 while accept() works */
static int sig_fd = -1;
static struct tqd_op sig_op = { .type = OP_SIGNAL };
static struct signalfd_siginfo sig_info;
static bool stopping;
static struct tqd_metrics metrics;
static struct tqd_op metrics_op = { .type = OP_METRICS };
static struct __kernel_timespec metrics_every;

#define TQD_ACCEPT_DELAY_MIN_MS	50	/* after a failed accept(), doubling ... */
#define TQD_ACCEPT_DELAY_MAX_MS	2000	/* ... to this */
#define TQD_LOG_EVERY_NS	(10 * 1000000000ull)	/* a repeated complaint's rate */

/*
 * Whether a complaint that may repeat (a client's doing, or the system's)
 * is due in the log: once per TQD_LOG_EVERY_NS, with how many were not
 * logged meanwhile in *missed.
 */
static bool log_due(uint64_t *last, unsigned int *count, unsigned int *missed)
{
	uint64_t now = tq_now_ns();

	(*count)++;
	if (*last && now - *last < TQD_LOG_EVERY_NS)
		return false;
	*last = now;
	*missed = *count - 1;
	*count = 0;
	return true;
}

static struct io_uring_sqe *get_sqe(void)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

	if (!sqe) {
		io_uring_submit(&ring);
		sqe = io_uring_get_sqe(&ring);
	}
	if (!sqe) {
		tqd_log(LOG_ERR, "io_uring: no submission entry");
		abort();
	}
	return sqe;
}

static void arm_accept(int kind)
{
	struct io_uring_sqe *sqe = get_sqe();

	io_uring_prep_accept(sqe, lfd[kind], NULL, NULL, SOCK_CLOEXEC);
	io_uring_sqe_set_data(sqe, &accept_op[kind]);
	accept_op[kind].busy = true;
}

static void arm_signal(void)
{
	struct io_uring_sqe *sqe = get_sqe();

	io_uring_prep_read(sqe, sig_fd, &sig_info, sizeof(sig_info), 0);
	io_uring_sqe_set_data(sqe, &sig_op);
}

static void cancel_op(struct tqd_op *op)
{
	struct io_uring_sqe *sqe = get_sqe();

	io_uring_prep_cancel(sqe, op, 0);
	io_uring_sqe_set_data(sqe, NULL);
}

/* ---- eventfds ------------------------------------------------------------ */

/* Write 1 to ctx's eventfd; one write at a time, the next after it. */
static void efd_signal(struct tqd_ctx *ctx)
{
	struct io_uring_sqe *sqe;

	if (ctx->efd_op.busy) {
		ctx->efd_again = true;
		return;
	}
	sqe = get_sqe();
	io_uring_prep_write(sqe, ctx->efd, &ctx->efd_one, sizeof(ctx->efd_one), 0);
	io_uring_sqe_set_data(sqe, &ctx->efd_op);
	ctx->efd_op.busy = true;
}

static void efd_cancel(struct tqd_ctx *ctx)
{
	if (ctx->efd_op.busy)
		cancel_op(&ctx->efd_op);
}

/* ---- sending ------------------------------------------------------------- */

static int send_fds(int fd, const void *buf, size_t len, const int *fds, unsigned int nfds)
{
	union {
		char buf[CMSG_SPACE(TQ_SOCK_EVENTS_MAX * sizeof(int))];
		struct cmsghdr align;
	} cm;
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	tqt_cmsg_put(&mh, cm.buf, fds, nfds);
	if (sendmsg(fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		return -errno;
	return 0;
}

static void out_drop(struct tqd_out *o)
{
	unsigned int i;

	for (i = 0; i < o->nfds; i++)
		close(o->fds[i]);
	free(o->buf);
	memset(o, 0, sizeof(*o));
}

static void arm_pollout(struct tqd_conn *c)
{
	struct io_uring_sqe *sqe = get_sqe();

	io_uring_prep_poll_add(sqe, c->fd, POLLOUT);
	io_uring_sqe_set_data(sqe, &c->poll_op);
	c->poll_op.busy = true;
}

/*
 * Send one message, or keep it (and copies of its descriptors, which may
 * be closed meanwhile) until the socket has room. 0, or -errno of a
 * connection that is going away.
 */
static int conn_send(struct tqd_conn *c, const void *buf, size_t len, const int *fds,
		     unsigned int nfds)
{
	struct tqd_out *o = &c->out;
	unsigned int i;
	int ret;

	if (c->eof)
		return -EPIPE;
	if (o->buf)
		return -EBUSY;	/* one waits already: the callers make no second */
	ret = send_fds(c->fd, buf, len, fds, nfds);
	if (ret != -EAGAIN)
		return ret;
	tqd.st.stalled_sends++;
	o->buf = malloc(len);
	if (!o->buf)
		return -ENOMEM;
	memcpy(o->buf, buf, len);
	o->len = len;
	for (i = 0; i < nfds; i++) {
		o->fds[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, 0);
		if (o->fds[i] < 0) {
			ret = -errno;	/* EMFILE: out of descriptors */
			o->nfds = i;
			out_drop(o);
			return ret;
		}
	}
	o->nfds = nfds;
	arm_pollout(c);
	return 0;
}

/*
 * Events that could not go to the scheduler (a send error, or no
 * descriptor or memory to keep them): it is detached, as if it had gone.
 * Shutting the socket down lets the completions it sent before still be
 * read; its end follows them, and conn_end() requeues its tasks, those of
 * the lost batch among them, and usched reconnects. No new batch is made
 * meanwhile (sched_ready()), so none is lost.
 */
static void sched_send_failed(struct tqd_conn *c, int err)
{
	if (c->send_dead)
		return;
	tqd_log(err == -EPIPE ? LOG_DEBUG : LOG_ERR, "events to scheduler %d: %s: detaching it",
		(int)c->pid, strerror(-err));
	c->send_dead = true;
	shutdown(c->fd, SHUT_RDWR);
}

/* The batch sched.c built, to the scheduler. */
static int sched_send(void)
{
	struct tqd_conn *c = tqd.sched;
	int ret;

	ret = conn_send(c, tqd.batch, tqd.batch_n * sizeof(struct tq_event), tqd.batch_fds,
			tqd.batch_nfds);
	if (ret)
		sched_send_failed(c, ret);
	return ret;
}

const struct tqd_io tqd_loop_io = {
	.efd_signal = efd_signal,
	.efd_cancel = efd_cancel,
	.sched_send = sched_send,
};

static bool sched_ready(void)
{
	return tqd.sched && !tqd.sched->out.buf && !tqd.sched->eof && !tqd.sched->send_dead;
}

/* ---- connections --------------------------------------------------------- */

static void arm_recv(struct tqd_conn *c)
{
	struct io_uring_sqe *sqe = get_sqe();

	c->iov.iov_base = c->buf;
	c->iov.iov_len = c->buf_size;
	memset(&c->mh, 0, sizeof(c->mh));
	c->mh.msg_iov = &c->iov;
	c->mh.msg_iovlen = 1;
	/* Zeroed: a failed read must not show the last message's descriptors. */
	memset(c->cmsg.buf, 0, sizeof(c->cmsg.buf));
	c->mh.msg_control = c->cmsg.buf;
	c->mh.msg_controllen = sizeof(c->cmsg.buf);
	/* MSG_TRUNC: the result is the message's whole length, even if cut. */
	io_uring_prep_recvmsg(sqe, c->fd, &c->mh, MSG_TRUNC | MSG_CMSG_CLOEXEC);
	io_uring_sqe_set_data(sqe, &c->recv_op);
	c->recv_op.busy = true;
}

static void conn_maybe_free(struct tqd_conn *c)
{
	if (!c->eof || c->recv_op.busy || c->poll_op.busy)
		return;
	list_del_init(&c->node);
	free(c->buf);
	free(c);
}

/* The peer is gone (or broke the protocol): its context closes, or the scheduler detaches. */
static void conn_end(struct tqd_conn *c)
{
	if (c->eof)
		return;
	c->eof = true;
	if (c->kind == CONN_CLIENT && c->ctx) {
		tqd_ctx_close(c->ctx);
		c->ctx = NULL;
	}
	if (c->kind == CONN_SCHED && c->attached) {
		tqd_log(LOG_INFO, "scheduler %d detached", (int)c->pid);
		tqd_detach();
		c->attached = false;
	}
	out_drop(&c->out);
	if (c->poll_op.busy)
		cancel_op(&c->poll_op);
	close(c->fd);
	c->fd = -1;
	c->user->conns--;
	tqd_user_put(c->user);
	tqd.st.connections--;
	conn_maybe_free(c);
}

static void conn_new(int kind, int fd)
{
	static uint64_t last;
	static unsigned int count, missed;
	struct ucred cred;
	socklen_t len = sizeof(cred);
	struct tqd_user *u;
	struct tqd_conn *c;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len)) {
		close(fd);
		return;
	}
	u = tqd_user_get(cred.uid);
	/*
	 * Every connection costs a descriptor: a user holds a bounded number.
	 * One past it gets a reply to no command, -EUSERS, and its end.
	 */
	if (!u || (tqd.lim.conns_per_user && u->conns >= tqd.lim.conns_per_user)) {
		struct tq_sock_msg h = { .cmd = 0, .status = u ? -EUSERS : -ENOMEM };

		if (log_due(&last, &count, &missed))
			tqd_log(LOG_ERR, "uid %u: connection refused: %s (and %u more since the last)",
				(unsigned int)cred.uid, u ? "too many connections" : "no memory",
				missed);
		send(fd, &h, sizeof(h), MSG_DONTWAIT | MSG_NOSIGNAL);
		close(fd);
		if (u)
			tqd_user_put(u);
		return;
	}
	c = calloc(1, sizeof(*c));
	if (c) {
		c->buf_size = kind == CONN_SCHED ? TQD_SCHED_RECV : TQD_MSG_MAX;
		c->buf = malloc(c->buf_size);
	}
	if (!c || !c->buf) {
		free(c);
		close(fd);
		tqd_user_put(u);
		return;
	}
	c->kind = kind;
	c->fd = fd;
	c->pid = cred.pid;
	c->uid = cred.uid;
	c->user = u;
	u->conns++;
	c->recv_op = (struct tqd_op){ .type = OP_RECV, .owner = c };
	c->poll_op = (struct tqd_op){ .type = OP_POLLOUT, .owner = c };
	list_add_tail(&c->node, &tqd.conns);
	tqd.st.connections++;
	if (kind == CONN_SCHED) {
		/* Room for events while the scheduler is busy; past it they wait here. */
		int sz = 4 << 20;

		if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sz, sizeof(sz)))
			setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	}
	arm_recv(c);
}

/* ---- commands ------------------------------------------------------------ */

/* The SCM_RIGHTS descriptors of a message; -1 if some were cut (MSG_CTRUNC). */
static int take_fds(struct msghdr *mh, int *fds, unsigned int max)
{
	unsigned int n = tqt_cmsg_fds(mh, fds, max);

	if (mh->msg_flags & MSG_CTRUNC) {
		while (n)
			close(fds[--n]);
		return -1;
	}
	return n;
}

static void close_fds(const int *fds, int nfds)
{
	int i;

	for (i = 0; i < nfds; i++)
		close(fds[i]);
}

/* 0 if fd is an eventfd, else -EINVAL (as eventfd_ctx_fdget() says). */
static int is_eventfd(int fd)
{
	char path[64], link[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return errno == ENOENT ? 0 : -EINVAL;	/* no /proc: trust it */
	link[n] = 0;
	return strcmp(link, "anon_inode:[eventfd]") ? -EINVAL : 0;
}

union tqd_arg {
	struct tq_query query;
	struct tq_setup setup;
	struct tq_enter enter;
	struct tq_attach attach;
	struct tqd_stats stats;
	unsigned char bytes[TQD_PAGE_MAX];
};

struct tqd_cmd {
	uint32_t size;		/* ours */
	uint32_t min_size;	/* the oldest accepted: its last needed input */
};

/* As the module's ioctl table (kmod/main.c); 0x40 is tqsubmitd's stats. */
static const struct tqd_cmd *cmd_of(uint32_t cmd)
{
	static const struct tqd_cmd query = { sizeof(struct tq_query),
		offsetof(struct tq_query, features) };
	static const struct tqd_cmd setup = { sizeof(struct tq_setup),
		offsetof(struct tq_setup, arena_offset) + sizeof(__u64) };
	static const struct tqd_cmd enter = { sizeof(struct tq_enter), sizeof(struct tq_enter) };
	static const struct tqd_cmd attach = { sizeof(struct tq_attach),
		offsetof(struct tq_attach, features) };
	static const struct tqd_cmd stats = { sizeof(struct tqd_stats), sizeof(struct tqd_stats) };

	if (_IOC_TYPE(cmd) != TQ_IOC_MAGIC || _IOC_DIR(cmd) != (_IOC_READ | _IOC_WRITE))
		return NULL;
	switch (_IOC_NR(cmd)) {
	case _IOC_NR(TQ_IOC_QUERY):
		return &query;
	case _IOC_NR(TQ_IOC_SETUP):
		return &setup;
	case _IOC_NR(TQ_IOC_ENTER):
		return &enter;
	case _IOC_NR(TQ_IOC_ATTACH):
		return &attach;
	case _IOC_NR(TQD_SOCK_STATS):
		return &stats;
	}
	return NULL;
}

static void reply(struct tqd_conn *c, uint32_t cmd, int status, const void *arg, size_t len,
		  const int *fds, unsigned int nfds)
{
	unsigned char buf[sizeof(struct tq_sock_msg) + TQD_STATS_MAX];
	struct tq_sock_msg h = { .cmd = cmd, .status = status };

	if (status < 0)
		tqd.st.bad_messages++;
	if (len > TQD_STATS_MAX)
		len = TQD_STATS_MAX;
	memcpy(buf, &h, sizeof(h));
	if (len)
		memcpy(buf + sizeof(h), arg, len);
	conn_send(c, buf, sizeof(h) + len, fds, nfds);
}

/*
 * One command message: the head, then the ioctl struct, judged as the
 * module's dispatcher judges its argument (tq_ioctl()), then the command.
 */
static void command(struct tqd_conn *c, const unsigned char *msg, size_t len, int *fds, int nfds)
{
	struct tq_sock_msg h = { 0 };
	const struct tqd_cmd *op;
	union tqd_arg arg;
	uint32_t size, nr;
	size_t plen;
	int ret, efd = -1;
	char text[TQD_STATS_MAX];

	if (len < sizeof(h)) {
		reply(c, 0, -EINVAL, NULL, 0, NULL, 0);
		goto out;
	}
	memcpy(&h, msg, sizeof(h));
	nr = _IOC_NR(h.cmd);
	op = cmd_of(h.cmd);
	if (!op) {
		reply(c, h.cmd, -ENOTTY, NULL, 0, NULL, 0);
		goto out;
	}
	plen = len - sizeof(h);
	ret = -EINVAL;
	if (h.status || plen < sizeof(size))
		goto fail;
	memcpy(&size, msg + sizeof(h), sizeof(size));
	if (size < op->min_size)
		goto fail;
	ret = -E2BIG;
	if (size > TQD_PAGE_MAX)
		goto fail;
	ret = -EINVAL;
	if (size != plen || nfds < 0)
		goto fail;
	memset(&arg, 0, sizeof(arg));
	memcpy(&arg, msg + sizeof(h), size);
	ret = -E2BIG;
	if (size > op->size && !tq_zero(arg.bytes + op->size, size - op->size))
		goto fail;
	/* Descriptors come only with SETUP: its eventfd. */
	ret = -EINVAL;
	if (nfds && nr != _IOC_NR(TQ_IOC_SETUP))
		goto fail;

	switch (nr) {
	case _IOC_NR(TQ_IOC_QUERY):
		if (arg.query.flags)
			goto fail;
		tqd_query(&arg.query);
		reply(c, h.cmd, 0, &arg, size < op->size ? size : op->size, NULL, 0);
		break;
	case _IOC_NR(TQ_IOC_SETUP):
		if (c->kind != CONN_CLIENT)
			goto fail;
		if (arg.setup.eventfd >= 0)
			efd = nfds == 1 ? is_eventfd(fds[0]) : nfds ? -EINVAL : -EBADF;
		else
			efd = nfds ? 0 : -1;	/* a descriptor without an eventfd: EINVAL */
		if (!efd)
			efd = fds[0];
		ret = tqd_setup(c, &arg.setup, efd);
		if (ret)
			goto fail;
		nfds = 0;	/* the eventfd is the context's now */
		reply(c, h.cmd, 0, &arg, size < op->size ? size : op->size,
		      (int[]){ c->ctx->rings_fd, c->ctx->arena_fd }, 2);
		break;
	case _IOC_NR(TQ_IOC_ENTER):
		if (c->kind != CONN_CLIENT)
			goto fail;
		ret = tqd_enter(c, &arg.enter);
		/* No reply but for a malformed doorbell; a broken ring shows in its flags. */
		if (ret && ret != -EBADFD)
			goto fail;
		break;
	case _IOC_NR(TQ_IOC_ATTACH):
		if (c->kind != CONN_SCHED)
			goto fail;
		ret = tqd_attach(c, &arg.attach);
		if (ret)
			goto fail;
		tqd_log(LOG_INFO, "scheduler %d (uid %u) attached", (int)c->pid,
			(unsigned int)c->uid);
		reply(c, h.cmd, 0, &arg, size < op->size ? size : op->size, NULL, 0);
		break;
	case _IOC_NR(TQD_SOCK_STATS):
		if (arg.stats.flags)
			goto fail;
		ret = tqd_stats_text(text, sizeof(text));
		reply(c, h.cmd, 0, text, ret < (int)sizeof(text) ? ret : (int)sizeof(text) - 1,
		      NULL, 0);
		break;
	}
	goto out;
fail:
	reply(c, h.cmd, ret, NULL, 0, NULL, 0);
out:
	close_fds(fds, nfds);
}

/* A message from the attached scheduler: completion records. */
static void sched_records(struct tqd_conn *c, size_t len, int nfds, int *fds)
{
	close_fds(fds, nfds);
	if (len > c->buf_size) {
		tqd_log(LOG_ERR, "scheduler %d sent %zu bytes, more than %u records: detached",
			(int)c->pid, len, TQ_SOCK_COMPLETIONS_MAX);
		tqd.st.bad_records++;
		conn_end(c);
		return;
	}
	if (nfds || !len || len % sizeof(struct tq_completion)) {
		tqd.st.bad_records++;
		return;
	}
	tqd_completions((const struct tq_completion *)c->buf, len / sizeof(struct tq_completion));
}

/*
 * Whether a 0-byte read was the end of the connection, else an empty
 * message (answered EINVAL): the peer's hang-up shows; nothing to read
 * after the message is a live peer.
 */
static bool conn_hung_up(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN | POLLRDHUP };

	return poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLRDHUP | POLLERR));
}

/*
 * The request stays busy while it is handled, so that conn_end() cannot free c under us.
 * Whatever a read brought (a command, an empty message at the end, one
 * after the end, a cut one), its descriptors are taken first: every path
 * below keeps or closes them.
 */
static void on_recv(struct tqd_conn *c, int res)
{
	int fds[4], nfds = 0;

	if (res >= 0)
		nfds = take_fds(&c->mh, fds, 4);
	if (c->eof) {
		close_fds(fds, nfds);	/* a message after the end is not read */
	} else if (res == -EINTR || res == -EAGAIN) {
		arm_recv(c);
		return;
	} else if (res < 0 || (res == 0 && conn_hung_up(c->fd))) {
		close_fds(fds, nfds);
		conn_end(c);
	} else if (c->kind == CONN_SCHED && c->attached) {
		sched_records(c, res, nfds < 0 ? 0 : nfds, fds);
	} else {
		command(c, c->buf, res, fds, nfds);
	}
	c->recv_op.busy = false;
	if (c->eof) {
		conn_maybe_free(c);
		return;
	}
	/*
	 * A reply waiting for room: read nothing more until it is sent. The
	 * attached scheduler's completions are always read; what waits there
	 * is events, which no completion answers.
	 */
	if (!c->out.buf || c->attached)
		arm_recv(c);
}

static void on_pollout(struct tqd_conn *c, int res)
{
	struct tqd_out *o = &c->out;
	int ret;

	c->poll_op.busy = false;
	if (c->eof || !o->buf) {
		conn_maybe_free(c);
		return;
	}
	ret = res < 0 && res != -EINTR ? res : send_fds(c->fd, o->buf, o->len, o->fds, o->nfds);
	if (ret == -EAGAIN || ret == -EINTR) {
		arm_pollout(c);
		return;
	}
	out_drop(o);
	if (c->kind == CONN_SCHED && ret)
		sched_send_failed(c, ret);	/* the batch requeues when it is detached */
	else if (c->kind == CONN_SCHED)
		tqd.kick = true;
	else if (!c->recv_op.busy)
		arm_recv(c);
}

/* ---- the loop ------------------------------------------------------------ */

/*
 * Out of descriptors or memory: the listening socket is left alone for a
 * while, longer each time it fails again (its backlog waits), and the log
 * says so once in a while, not at every try.
 */
static void accept_backoff(int kind, int err)
{
	static uint64_t last;
	static unsigned int count, missed;
	struct __kernel_timespec *d = &accept_delay[kind];
	uint64_t ms = d->tv_sec * 1000 + d->tv_nsec / 1000000;
	struct io_uring_sqe *sqe;

	ms = ms ? ms * 2 : TQD_ACCEPT_DELAY_MIN_MS;
	if (ms > TQD_ACCEPT_DELAY_MAX_MS)
		ms = TQD_ACCEPT_DELAY_MAX_MS;
	d->tv_sec = ms / 1000;
	d->tv_nsec = (ms % 1000) * 1000000;
	if (log_due(&last, &count, &missed))
		tqd_log(LOG_ERR, "accept: %s: listening again in %u ms (%u more failures since the last)",
			strerror(-err), (unsigned int)ms, missed);
	sqe = get_sqe();
	io_uring_prep_timeout(sqe, d, 0, 0);
	io_uring_sqe_set_data(sqe, &timeout_op[kind]);
}

static void on_accept(int kind, int res)
{
	accept_op[kind].busy = false;
	if (res >= 0) {
		accept_delay[kind] = (struct __kernel_timespec){ 0 };
		conn_new(kind, res);
	} else if (res != -EINTR && res != -EAGAIN && res != -ECONNABORTED) {
		accept_backoff(kind, res);
		return;
	}
	arm_accept(kind);
}

static void on_signal(int res)
{
	if (res == sizeof(sig_info) && sig_info.ssi_signo != SIGHUP) {
		tqd_log(LOG_INFO, "signal %u: exiting", sig_info.ssi_signo);
		stopping = true;
		return;
	}
	if (res == sizeof(sig_info))
		tqd_metrics_write(&metrics);	/* SIGHUP: the figures now */
	arm_signal();
}

/* The metrics file every interval (none: only at exit and on SIGHUP). */
static void arm_metrics(void)
{
	struct io_uring_sqe *sqe;

	if (!metrics.path || !metrics.interval)
		return;
	sqe = get_sqe();
	io_uring_prep_timeout(sqe, &metrics_every, 0, 0);
	io_uring_sqe_set_data(sqe, &metrics_op);
}

static void dispatch(struct io_uring_cqe *cqe)
{
	struct tqd_op *op = io_uring_cqe_get_data(cqe);

	if (!op)
		return;
	switch (op->type) {
	case OP_ACCEPT:
		on_accept(op == &accept_op[CONN_SCHED], cqe->res);
		break;
	case OP_TIMEOUT:
		arm_accept(op == &timeout_op[CONN_SCHED]);
		break;
	case OP_RECV:
		on_recv(op->owner, cqe->res);
		break;
	case OP_POLLOUT:
		on_pollout(op->owner, cqe->res);
		break;
	case OP_EFD:
		tqd_efd_done(op->owner);
		break;
	case OP_SIGNAL:
		on_signal(cqe->res);
		break;
	case OP_METRICS:
		tqd_metrics_write(&metrics);
		arm_metrics();
		break;
	}
}

int tqd_loop_init(int lfd_client, int lfd_sched, int sigfd, const struct tqd_metrics *m)
{
	struct io_uring_params p = { 0 };
	int ret;

	/* Room for a request per connection and context at once; more waits in overflow. */
	ret = io_uring_queue_init_params(1024, &ring, &p);
	if (ret) {
		tqd_log(LOG_ERR, "io_uring_queue_init: %s", strerror(-ret));
		return ret;
	}
	lfd[CONN_CLIENT] = lfd_client;
	lfd[CONN_SCHED] = lfd_sched;
	sig_fd = sigfd;
	for (int k = 0; k < 2; k++) {
		accept_op[k].type = OP_ACCEPT;
		timeout_op[k].type = OP_TIMEOUT;
		arm_accept(k);
	}
	arm_signal();
	metrics = *m;
	metrics_every.tv_sec = m->interval;
	tqd_metrics_write(&metrics);
	arm_metrics();
	return 0;
}

/*
 * Wait for something, handle all of it, then look at the SQs while anything
 * may give the scheduler work; when a look finds nothing, set need-wakeup
 * and look once more (tqd_idle_check()), then sleep.
 */
int tqd_loop_run(void)
{
	while (!stopping) {
		struct io_uring_cqe *cqe;
		unsigned int head, n = 0;
		int ret;

		ret = io_uring_submit_and_wait(&ring, tqd.kick && sched_ready() ? 0 : 1);
		if (ret < 0 && ret != -EINTR && ret != -EBUSY && ret != -EAGAIN) {
			tqd_log(LOG_ERR, "io_uring_submit_and_wait: %s", strerror(-ret));
			return ret;
		}
		io_uring_for_each_cqe(&ring, head, cqe) {
			dispatch(cqe);
			n++;
		}
		io_uring_cq_advance(&ring, n);
		tqd_flush_dirty();
		if (tqd.kick && !tqd.sched)
			tqd.kick = false;
		if (tqd.kick && sched_ready()) {
			tqd.kick = false;
			if (tqd_fill())
				tqd.kick = true;
			else
				tqd_idle_check();
		}
	}
	tqd_metrics_write(&metrics);	/* the last figures */
	return 0;
}
