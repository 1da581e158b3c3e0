// SPDX-License-Identifier: GPL-2.0
/*
 * tq_fuzz_sock.c - the fuzzer's transport on tqsubmitd's socket
 * (include/uapi/linux/tqsubmit.h, "The socket transport"), where a client
 * fd is a connection, an ioctl a message and its reply, and the regions
 * are the two memfds SETUP's reply carries. What the module refuses as a
 * bad pointer is here a message of the wrong length, with a non-zero head
 * status or with a descriptor it should not carry; every one must be
 * answered with an errno, and a well-formed ENTER never. The memfds'
 * mappings are the client's business (only their seals are the contract);
 * read() and write() become raw messages, empty, cut, oversized, pipelined
 * or carrying stray descriptors; a close may hang up mid-call.
 */
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <tq_transport.h>

#include "selftests/tq_fuzz.h"

bool sock;

/* Nothing waits on a connection between our commands: no reply comes unasked. */
static void sock_quiet(struct proc *p, int fd)
{
	struct tq_sock_msg h;
	ssize_t n = recv(fd, &h, sizeof(h), MSG_DONTWAIT | MSG_PEEK);

	if (n < 0 && errno == EAGAIN)
		return;
	if (n >= (ssize_t)sizeof(h))
		fail(p, "fd %d: a message nobody asked for: command 0x%x status %d", fd, h.cmd,
		     h.status);
	fail(p, "fd %d: %s between commands", fd, n < 0 ? strerror(errno) :
	     n ? "a cut message" : "the connection's end");
}

/* Send one message with nfds descriptors; 0 or errno (EAGAIN only with dontwait). */
static int sock_send(int fd, const void *msg, size_t len, const int *fds, unsigned int nfds,
		     bool dontwait)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * 8)];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { .iov_base = (void *)msg, .iov_len = len };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct pollfd pf = { .fd = fd, .events = POLLOUT };

	tqt_cmsg_put(&m, ctl.buf, fds, nfds);
	for (;;) {
		if (sendmsg(fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL) >= 0)
			return 0;
		if (errno != EAGAIN && errno != EINTR)
			return errno;
		if (dontwait)
			return EAGAIN;
		if (poll(&pf, 1, TQT_REPLY_MS) != 1)
			return ETIMEDOUT;
	}
}

/*
 * The reply to command cmd: its struct into arg when it succeeded (cap
 * bytes at most, the rest zeroed), its descriptors into rfds (*nrfds at
 * most; how many came). Returns its status; anything but a reply of cmd in
 * time is a failure.
 */
static int sock_reply(struct proc *p, int fd, uint32_t cmd, void *arg, size_t cap, int *rfds,
		      unsigned int *nrfds)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * 4)];
		struct cmsghdr align;
	} ctl;
	unsigned char buf[sizeof(struct tq_sock_msg) + TQD_STATS_MAX];
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
			    .msg_controllen = sizeof(ctl.buf) };
	struct pollfd pf = { .fd = fd, .events = POLLIN };
	unsigned int max = nrfds ? *nrfds : 0, nfds = 0;
	struct tq_sock_msg h = { 0 };
	int fds[4];
	ssize_t n;

	if (poll(&pf, 1, TQT_REPLY_MS) != 1)
		fail(p, "command 0x%x: no reply in %d s", cmd, TQT_REPLY_MS / 1000);
	n = recvmsg(fd, &m, MSG_CMSG_CLOEXEC);
	if (n <= 0)
		fail(p, "command 0x%x: %s instead of a reply", cmd,
		     n ? strerror(errno) : "the connection's end");
	nfds = tqt_cmsg_fds(&m, fds, 4);
	if ((size_t)n >= sizeof(h))
		memcpy(&h, buf, sizeof(h));
	if ((size_t)n < sizeof(h) || m.msg_flags & (MSG_TRUNC | MSG_CTRUNC) || h.cmd != cmd ||
	    h.status > 0 || h.status < -4095 || (size_t)n - sizeof(h) > cap || nfds > max ||
	    (nfds && h.status))
		fail(p, "command 0x%x: a reply of %zd bytes (%zu asked at most), command 0x%x,"
		     " status %d, %u descriptors", cmd, n, cap, h.cmd, h.status, nfds);
	if (!h.status) {
		memset(arg, 0, cap);
		memcpy(arg, buf + sizeof(h), (size_t)n - sizeof(h));
	}
	if (nrfds)
		*nrfds = nfds;
	for (unsigned int i = 0; i < nfds; i++)
		rfds[i] = fds[i];
	return h.status;
}

/*
 * A descriptor no command takes (never an eventfd): the connection itself,
 * /dev/null, a pipe's end or a fresh memfd. *tmp is what to close after
 * sending, or -1.
 */
int stray_fd(struct proc *p, int conn, int *tmp)
{
	int pp[2];

	*tmp = -1;
	switch (below(&p->r, 4)) {
	case 0:
		return conn;
	case 1:
		*tmp = open("/dev/null", O_RDONLY | O_CLOEXEC);
		break;
	case 2:
		if (!pipe2(pp, O_CLOEXEC)) {
			close(pp[1]);
			*tmp = pp[0];
		}
		break;
	default:
		*tmp = memfd_create("tq_fuzz", MFD_CLOEXEC);
		break;
	}
	return *tmp;
}

/* The socket's t_call(): a message of the head and the struct, then its reply. */
int sock_call(struct proc *p, int fd, uint32_t cmd, void *arg, size_t buflen, bool bad,
	      const int *fds, unsigned int nfds, int *rfds, unsigned int *nrfds)
{
	unsigned char msg[sizeof(struct tq_sock_msg) + ARG_MAX_SIZE + 256] = { 0 };
	struct tq_sock_msg h = { .cmd = cmd };
	int all[3] = { -1, -1, -1 }, tmp = -1, ret;
	size_t len, cap;
	uint32_t size;

	memcpy(&size, arg, sizeof(size));
	len = cap = size < buflen ? size : buflen;
	for (unsigned int i = 0; i < nfds; i++)
		all[i] = fds[i];
	if (bad) {
		switch (below(&p->r, 3)) {
		case 0:	/* shorter or longer than its size says */
			len = len && chance(&p->r, 50) ? below(&p->r, len) :
			      len + 1 + below(&p->r, 64);
			len += len == size;
			break;
		case 1:
			h.status = (int32_t)(rnd64(&p->r) | 1);
			break;
		default:
			all[nfds] = stray_fd(p, fd, &tmp);
			nfds += all[nfds] >= 0;
			break;
		}
	}
	memcpy(msg, &h, sizeof(h));
	memcpy(msg + sizeof(h), arg, cap);
	sock_quiet(p, fd);
	ret = sock_send(fd, msg, sizeof(h) + len, all, nfds, false);
	if (tmp >= 0)
		close(tmp);
	if (ret)
		fail(p, "command 0x%x: send: %s", cmd, strerror(ret));
	return -sock_reply(p, fd, cmd, arg, cap, rfds, nrfds);
}

/* The socket's doorbell (len bytes of struct tq_enter, 256 at most); 0 or errno. */
int sock_doorbell(int fd, const void *arg, size_t len)
{
	unsigned char msg[sizeof(struct tq_sock_msg) + 256] = { 0 };
	struct tq_sock_msg h = { .cmd = TQ_IOC_ENTER };

	memcpy(msg, &h, sizeof(h));
	memcpy(msg + sizeof(h), arg, len);
	return sock_send(fd, msg, sizeof(h) + len, NULL, 0, true);
}

/* A well-formed doorbell owes no reply; a full socket holds others as good. */
void sock_ring(struct proc *p, int fd, const void *arg, size_t len)
{
	int err = sock_doorbell(fd, arg, len);

	if (err && err != EAGAIN)
		fail(p, "fd %d: ENTER: %s", fd, strerror(err));
}

/*
 * The socket's read() and write(): nothing to read between commands, and
 * raw messages, each answered with an errno: shorter than the head (even
 * empty), an unknown command of random bytes, a message longer than any
 * command, a QUERY with up to 8 stray descriptors (more than tqsubmitd
 * takes: cut), or up to 64 QUERYs sent before their replies are read,
 * which come in order.
 */
void sock_raw(struct proc *p, int fd)
{
	static unsigned char msg[20000];
	struct tq_sock_msg h = { .cmd = TQ_IOC_QUERY };
	struct tq_query q = { .size = sizeof(q) };
	int fds[8], tmp[8], want = EINVAL, err;
	unsigned int n = 0, k;
	size_t len = sizeof(h) + sizeof(q);

	if (chance(&p->r, 20)) {
		sock_quiet(p, fd);
		return;
	}
	for (k = 0; k < sizeof(msg); k += 8) {
		uint64_t v = rnd64(&p->r);

		memcpy(msg + k, &v, 8);
	}
	switch (below(&p->r, 5)) {
	case 0:
		len = below(&p->r, sizeof(h));
		h.cmd = 0;	/* the reply's: no command was read */
		break;
	case 1:
		len = sizeof(h) + below(&p->r, 1024);
		h.cmd = (uint32_t)rnd64(&p->r);
		if (_IOC_TYPE(h.cmd) == TQ_IOC_MAGIC)
			h.cmd ^= 1u << _IOC_TYPESHIFT;
		want = ENOTTY;
		break;
	case 2:
		len = sizeof(h) + ARG_MAX_SIZE + 1 +
		      below(&p->r, sizeof(msg) - sizeof(h) - ARG_MAX_SIZE - 1);
		q.size = chance(&p->r, 50) ? len - sizeof(h) : sizeof(q);
		want = q.size == sizeof(q) ? EINVAL : E2BIG;
		break;
	case 3:
		for (k = below(&p->r, 8) + 1; k; k--) {
			fds[n] = stray_fd(p, fd, &tmp[n]);
			n += fds[n] >= 0;
		}
		want = n ? EINVAL : 0;
		break;
	default:
		sock_quiet(p, fd);
		for (k = 1 + below(&p->r, 64); k; k--) {
			memcpy(msg, &h, sizeof(h));
			memcpy(msg + sizeof(h), &q, sizeof(q));
			err = sock_send(fd, msg, len, NULL, 0, false);
			if (err)
				fail(p, "pipelined QUERY %u: %s", k, strerror(err));
			n++;
		}
		while (n--)
			if (sock_reply(p, fd, h.cmd, &q, sizeof(q), NULL, NULL))
				fail(p, "a pipelined QUERY failed");
		return;
	}
	if (len >= sizeof(h))
		memcpy(msg, &h, sizeof(h));
	if (len >= sizeof(h) + sizeof(q) && h.cmd == TQ_IOC_QUERY)
		memcpy(msg + sizeof(h), &q, sizeof(q));
	sock_quiet(p, fd);
	err = sock_send(fd, msg, len, fds, n, false);
	for (k = 0; k < n; k++)
		if (tmp[k] >= 0)
			close(tmp[k]);
	if (err)
		fail(p, "a raw message of %zu bytes: %s", len, strerror(err));
	err = -sock_reply(p, fd, h.cmd, &q, sizeof(q), NULL, NULL);
	if (err != want)
		fail(p, "a raw message of %zu bytes, %u descriptors: %s, want %s", len, n,
		     strerror(err), strerror(want));
}

/*
 * The socket's regions are the client's own memfds: how it maps them is
 * its business (what tqsubmitd reads of them is checked as it reads), and
 * the contract is their seals: neither shrinks nor grows, and no seal is
 * added. A connection maps nothing.
 */
void sock_mmap(struct proc *p, struct ctx *c, bool arena, uint64_t off, uint64_t len, int prot,
	       int flags)
{
	int fd = c->is_ctx ? region_fd(c, arena) : c->fd, seals;
	struct stat st;
	void *a;

	a = mmap(NULL, len, prot, flags, fd, off);
	if (!c->is_ctx) {
		if (a != MAP_FAILED)
			fail(p, "mmap of a connection succeeded");
		return;
	}
	if (a == MAP_FAILED && !errno_in(errno, ERRS(EINVAL, EPERM, ENOMEM, EACCES)))
		fail(p, "mmap of a memfd: %s", strerror(errno));
	if (fstat(fd, &st))
		fail(p, "fstat of a memfd: %s", strerror(errno));
	seals = fcntl(fd, F_GET_SEALS);
	if (seals != (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) ||
	    !ftruncate(fd, st.st_size + 4096) || !ftruncate(fd, st.st_size - 4096) ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE) != -1 || pwrite(fd, "x", 1, st.st_size) == 1)
		fail(p, "ctx %u: its %s memfd (seals 0x%x) grew, shrank or took a seal",
		     c->s.ctx_id, arena ? "arena" : "rings", seals);
	if (a == MAP_FAILED)
		return;
	unmap(&c->extra);
	c->extra = (struct map){ a, len };
	c->extra_ring = !arena;
}

/*
 * The socket's hang-up mid-call: a SETUP (with an eventfd) sent, then the
 * connection shut down or closed before its reply, whose descriptors, if
 * it made a context, are left in flight.
 */
void sock_hangup(struct proc *p, struct ctx *c)
{
	struct tq_setup s = { .size = sizeof(s), .sq_entries = 8, .cq_entries = 16,
			      .arena_bytes = 4096, .eventfd = 0 };
	struct tq_sock_msg h = { .cmd = TQ_IOC_SETUP };
	unsigned char msg[sizeof(h) + sizeof(s)];
	int efd = eventfd(0, EFD_CLOEXEC);

	memcpy(msg, &h, sizeof(h));
	memcpy(msg + sizeof(h), &s, sizeof(s));
	sock_send(c->fd, msg, sizeof(msg), &efd, efd >= 0, true);
	if (efd >= 0)
		close(efd);
	if (chance(&p->r, 50))
		shutdown(c->fd, chance(&p->r, 50) ? SHUT_WR : SHUT_RDWR);
	close(c->fd);
	c->fd = -1;
}
