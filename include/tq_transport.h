/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * tq_transport.h - the two ways to reach tq's ABI, shared by libtq, usched,
 * tq_echod and the benchmarks: /dev/tqsubmit (the module) or tqsubmitd's
 * SOCK_SEQPACKET sockets (include/uapi/linux/tqsubmit.h, "The socket
 * transport"). Which one (TQ_TRANSPORT, tqt_pick()), the socket paths
 * (TQ_SOCKET, TQ_SCHED_SOCKET), and the messages: a command is a struct
 * tq_sock_msg and the ioctl's struct, file descriptors ride along by
 * SCM_RIGHTS. Everything is static inline so that each user links nothing
 * new; functions return 0 (or a count, or an fd) or -errno.
 */
#ifndef TQ_TRANSPORT_H
#define TQ_TRANSPORT_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <linux/tqsubmit.h>
#include <tq/tqsubmitd.h>

#define TQT_DEVICE_PATH		"/dev/" TQ_DEVICE_NAME
#define TQT_ENV			"TQ_TRANSPORT"
#define TQT_ENV_SOCKET		"TQ_SOCKET"
#define TQT_ENV_SCHED_SOCKET	"TQ_SCHED_SOCKET"

/* The most file descriptors one message can carry (the kernel's SCM_MAX_FD). */
#define TQT_MAX_FDS		253

/* A reply tqsubmitd owes us: this long at most, then the call fails. */
#define TQT_REPLY_MS		30000

enum tqt_kind {
	TQT_AUTO = 0,		/* the module when its device exists, else the socket */
	TQT_MODULE = 1,
	TQT_SOCKET = 2,
};

/* "auto", "module" or "socket" (NULL or empty: auto); -EINVAL for anything else. */
static inline int tqt_parse(const char *s)
{
	if (!s || !*s || !strcmp(s, "auto"))
		return TQT_AUTO;
	if (!strcmp(s, "module"))
		return TQT_MODULE;
	if (!strcmp(s, "socket"))
		return TQT_SOCKET;
	return -EINVAL;
}

static inline const char *tqt_name(int kind)
{
	return kind == TQT_MODULE ? "module" : kind == TQT_SOCKET ? "socket" : "auto";
}

/* Resolve auto: the module when @devnode exists (whatever its permissions), else the socket. */
static inline int tqt_resolve(int kind, const char *devnode)
{
	if (kind != TQT_AUTO)
		return kind;
	return access(devnode ? devnode : TQT_DEVICE_PATH, F_OK) ? TQT_SOCKET : TQT_MODULE;
}

/* The transport the environment asks for (TQ_TRANSPORT), resolved; -EINVAL if it is bad. */
static inline int tqt_pick(void)
{
	int kind = tqt_parse(getenv(TQT_ENV));

	return kind < 0 ? kind : tqt_resolve(kind, NULL);
}

static inline const char *tqt_client_path(void)
{
	const char *p = getenv(TQT_ENV_SOCKET);

	return p && *p ? p : TQ_SOCKET_PATH;
}

static inline const char *tqt_sched_path(void)
{
	const char *p = getenv(TQT_ENV_SCHED_SOCKET);

	return p && *p ? p : TQ_SCHED_SOCKET_PATH;
}

/* Connect to a tqsubmitd socket; the fd (close-on-exec) or -errno (ENOENT: no socket). */
static inline int tqt_connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, err;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

/* The file descriptors of a received message's SCM_RIGHTS, in order; how many. */
static inline unsigned int tqt_cmsg_fds(struct msghdr *m, int *fds, unsigned int max)
{
	struct cmsghdr *c;
	unsigned int n = 0;

	for (c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c)) {
		unsigned int k, got;
		int *p;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		got = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		p = (int *)CMSG_DATA(c);
		for (k = 0; k < got; k++) {
			int fd;

			memcpy(&fd, p + k, sizeof(fd));
			if (n < max)
				fds[n++] = fd;
			else
				close(fd);	/* more than the caller takes */
		}
	}
	return n;
}

/*
 * Attach @nfds file descriptors (none: nothing) to @m as one SCM_RIGHTS
 * message in @ctl: CMSG_SPACE(@nfds * sizeof(int)) bytes at least, aligned
 * as a struct cmsghdr.
 */
static inline void tqt_cmsg_put(struct msghdr *m, void *ctl, const int *fds, unsigned int nfds)
{
	struct cmsghdr *c;

	if (!nfds)
		return;
	memset(ctl, 0, CMSG_SPACE(sizeof(int) * nfds));
	m->msg_control = ctl;
	m->msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
	c = CMSG_FIRSTHDR(m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
	memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
}

/*
 * Send one message: @head (a tq_sock_msg) and @len bytes of @arg, with
 * @nfds file descriptors. MSG_NOSIGNAL: a dead peer is EPIPE, not SIGPIPE.
 */
static inline int tqt_send(int fd, const struct tq_sock_msg *head, const void *arg, size_t len,
			   const int *fds, unsigned int nfds, int flags)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * 2)];
		struct cmsghdr align;
	} ctl;
	struct iovec iov[2] = {
		{ .iov_base = (void *)head, .iov_len = sizeof(*head) },
		{ .iov_base = (void *)arg, .iov_len = len },
	};
	struct msghdr m = { .msg_iov = iov, .msg_iovlen = len ? 2 : 1 };
	ssize_t n;

	if (nfds > 2)
		return -EINVAL;
	tqt_cmsg_put(&m, ctl.buf, fds, nfds);
	do
		n = sendmsg(fd, &m, flags | MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return n == (ssize_t)(sizeof(*head) + len) ? 0 : -EPROTO;
}

/*
 * The connection was reset: tqsubmitd's refusal of it (a reply to no
 * command, sent before the end) if that is what waits unread, else
 * -ECONNRESET. A peer that closed with our message unread leaves ECONNRESET
 * to be reported once before the messages it sent.
 */
static inline int tqt_refused(int fd)
{
	struct tq_sock_msg h;
	ssize_t n = recv(fd, &h, sizeof(h), MSG_DONTWAIT);

	if (n < 0 && errno == ECONNRESET)
		n = recv(fd, &h, sizeof(h), MSG_DONTWAIT);
	return n == sizeof(h) && !h.cmd && h.status < 0 ? h.status : -ECONNRESET;
}

/*
 * One command and its reply: @arg (@len bytes, the ioctl's struct) goes
 * out with @fds and comes back overwritten by the reply's struct (at most
 * @len bytes; a shorter reply leaves the rest zero). The reply's file
 * descriptors go into @rfds, *@nrfds of them at most; *@nrfds says how many
 * came. Returns the reply's status (0 or -errno, as the ioctl's), or -errno
 * of the exchange: -EPROTO a reply that is not one, -ETIMEDOUT none in
 * TQT_REPLY_MS, -ECONNRESET the server closed the connection, or the
 * status of tqsubmitd's refusal of the connection, a reply to no command
 * (-EUSERS: over its --connections-per-user).
 */
static inline int tqt_call(int fd, unsigned int cmd, void *arg, size_t len, const int *fds,
			   unsigned int nfds, int *rfds, unsigned int *nrfds)
{
	struct tq_sock_msg head = { .cmd = cmd };
	union {
		char buf[CMSG_SPACE(sizeof(int) * 4)];
		struct cmsghdr align;
	} ctl;
	char reply[512];
	struct iovec iov = { .iov_base = reply, .iov_len = sizeof(reply) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
			    .msg_controllen = sizeof(ctl.buf) };
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	unsigned int max = nrfds ? *nrfds : 0, got, i;
	int tmp[4], ret;
	ssize_t n;

	if (nrfds)
		*nrfds = 0;
	if (len > sizeof(reply) - sizeof(head))
		return -EINVAL;
	ret = tqt_send(fd, &head, arg, len, fds, nfds, 0);
	if (ret)
		return ret == -EPIPE || ret == -ECONNRESET ? tqt_refused(fd) : ret;
	do
		ret = poll(&pfd, 1, TQT_REPLY_MS);
	while (ret < 0 && errno == EINTR);
	if (ret <= 0)
		return ret ? -errno : -ETIMEDOUT;
	do
		n = recvmsg(fd, &m, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == ECONNRESET ? tqt_refused(fd) : -errno;
	if (!n)
		return -ECONNRESET;
	got = tqt_cmsg_fds(&m, tmp, 4);
	if ((size_t)n < sizeof(head) || (m.msg_flags & (MSG_TRUNC | MSG_CTRUNC)))
		goto bad;
	memcpy(&head, reply, sizeof(head));
	/* tqsubmitd refused the connection: a reply to no command says why */
	if (!head.cmd && head.status < 0 && cmd && !got)
		return head.status;
	if (head.cmd != cmd)
		goto bad;
	memset(arg, 0, len);
	memcpy(arg, reply + sizeof(head),
	       (size_t)n - sizeof(head) < len ? (size_t)n - sizeof(head) : len);
	if (got > max)
		goto bad;
	for (i = 0; i < got; i++)
		rfds[i] = tmp[i];
	if (nrfds)
		*nrfds = got;
	return head.status;
bad:
	for (i = 0; i < got; i++)
		close(tmp[i]);
	return -EPROTO;
}

/*
 * The scheduler's side: connect to @path, TQ_IOC_QUERY into @q (unless
 * NULL) and TQ_IOC_ATTACH into @a, with those of the TQ_ATTACH_F_* @flags
 * the server's features allow (TQ_ATTACH_F_CHAINS: TQ_FEAT_CHAINS). The
 * connection is then the scheduler fd, or -errno (EPERM: not root nor
 * tqsubmitd's user; EBUSY: another scheduler).
 */
static inline int tqt_sched_attach_flags(const char *path, struct tq_query *q,
					 struct tq_attach *a, __u32 flags)
{
	struct tq_query qq = { .size = sizeof(qq) };
	int fd, ret;

	fd = tqt_connect(path);
	if (fd < 0)
		return fd;
	if (!q)
		q = &qq;
	memset(q, 0, sizeof(*q));
	q->size = sizeof(*q);
	ret = tqt_call(fd, TQ_IOC_QUERY, q, sizeof(*q), NULL, 0, NULL, NULL);
	if (!ret && (q->abi_version != TQ_ABI_VERSION || q->event_size != sizeof(struct tq_event) ||
		     q->completion_size != sizeof(struct tq_completion)))
		ret = -EPROTO;
	if (!ret) {
		memset(a, 0, sizeof(*a));
		a->size = sizeof(*a);
		if (q->features & TQ_FEAT_CHAINS)
			a->flags = flags & TQ_ATTACH_F_CHAINS;
		ret = tqt_call(fd, TQ_IOC_ATTACH, a, sizeof(*a), NULL, 0, NULL, NULL);
	}
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

static inline int tqt_sched_attach(const char *path, struct tq_query *q, struct tq_attach *a)
{
	return tqt_sched_attach_flags(path, q, a, 0);
}

/*
 * Room for the file descriptors of one message of records: one per
 * TQ_EV_OPEN, at most TQT_MAX_FDS. Declare a buffer of this type for
 * msg_control.
 */
union tqt_rights {
	char buf[CMSG_SPACE(sizeof(int) * TQT_MAX_FDS)];
	struct cmsghdr align;
};

/*
 * Receive one message of event records from the scheduler socket into
 * @buf (@len bytes: room for the largest message, else -EMSGSIZE), its
 * arenas' fds into @fds (TQT_MAX_FDS of room) and their count into *@nfds.
 * Returns the bytes received, 0 at end of file, or -errno (-EAGAIN with
 * MSG_DONTWAIT in @flags and nothing there).
 */
static inline ssize_t tqt_recv_records(int fd, void *buf, size_t len, int *fds,
				       unsigned int *nfds, int flags)
{
	union tqt_rights ctl;
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
			    .msg_controllen = sizeof(ctl.buf) };
	ssize_t n;

	do
		n = recvmsg(fd, &m, flags | MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	*nfds = n >= 0 ? tqt_cmsg_fds(&m, fds, TQT_MAX_FDS) : 0;
	if (n < 0)
		return -errno;
	if (m.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) {
		while (*nfds)
			close(fds[--*nfds]);
		return -EMSGSIZE;
	}
	return n;
}

/*
 * tqsubmitd's counters (not the ABI: tqsubmitd's TQD_SOCK_STATS, answered
 * with text, "name value" lines under the module's sysfs names, '#' lines
 * between) on a connection of its own to @path, either socket. The value
 * of counter @name, or -1 (no server, no such counter).
 */
static inline long long tqt_stat(const char *path, const char *name)
{
	struct tq_sock_msg head = { .cmd = TQD_SOCK_STATS };
	struct tqd_stats req = { .size = sizeof(req) };
	char buf[TQD_STATS_MAX + sizeof(head) + 1], *line;
	size_t len = strlen(name);
	long long v = -1;
	struct pollfd pfd;
	ssize_t n;
	int fd;

	fd = tqt_connect(path);
	if (fd < 0)
		return -1;
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
	if (tqt_send(fd, &head, &req, sizeof(req), NULL, 0, 0) || poll(&pfd, 1, 5000) != 1 ||
	    (n = recv(fd, buf, sizeof(buf) - 1, 0)) < (ssize_t)sizeof(head)) {
		close(fd);
		return -1;
	}
	close(fd);
	memcpy(&head, buf, sizeof(head));
	if (head.cmd != TQD_SOCK_STATS || head.status)
		return -1;
	buf[n] = 0;
	line = buf + sizeof(head);
	while (line && *line) {
		if (!strncmp(line, name, len) && line[len] == ' ') {
			v = strtoll(line + len + 1, NULL, 10);
			break;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return v;
}

#endif /* TQ_TRANSPORT_H */
