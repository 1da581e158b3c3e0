// SPDX-License-Identifier: GPL-2.0
/*
 * test_proto.c - tqsubmitd against its ABI, natively: this program speaks
 * the raw socket protocol (include/uapi/linux/tqsubmit.h, the socket
 * section) as clients and as schedulers against tqsubmitd instances it
 * starts in a temporary directory with their own sockets and limits.
 *
 * Covered: QUERY and SETUP replies and descriptors (seals, sizes), every
 * malformed command (sizes, tails, unknown commands, descriptors where
 * none belong), the descriptor cases of the module's kselftest
 * (selftests/kmod/tq_desc_cases.h) with the same statuses, events and their
 * arenas, hostile ring indices, the inflight limit and a full CQ, doorbell
 * absorption, limits (contexts, bytes), a client killed mid-task, a
 * scheduler killed holding marked and unmarked tasks of every kind, a
 * second scheduler, a scheduler that is not root, a client whose eventfd
 * is at its maximum and blocking, one that never reads its socket, bad
 * completion records, chains (TQ_DESC_F_AFTER: held, cancelled, requeued),
 * the counters' balance (TQD_SOCK_STATS), a flood of messages with
 * descriptors it must close, and the per-user connection limit.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/tqsubmit.h>
#include <tq/tqsubmitd.h>
#include <tq_transport.h>

#include "selftests/tap.h"
#include "selftests/kmod/tq_util.h"
#include "selftests/kmod/tq_desc_cases.h"

static char dir[64];
/* The tqsubmitd under test: $TQSUBMITD, to measure another build (the descriptor flood). */
static const char *tqd_bin = TQSUBMITD_BIN;

/* ---- tqsubmitd instances ------------------------------------------------- */

struct daemon {
	pid_t pid;
	char csock[128], ssock[128];
};

static int daemon_start(struct daemon *d, const char *name, const char *const *extra)
{
	const char *argv[32] = { tqd_bin, "--foreground", "--socket", d->csock,
				 "--sched-socket", d->ssock };
	int i, n = 6;

	snprintf(d->csock, sizeof(d->csock), "%s/%s/tqsubmit.sock", dir, name);
	snprintf(d->ssock, sizeof(d->ssock), "%s/%s/sched.sock", dir, name);
	for (i = 0; extra && extra[i]; i++)
		argv[n++] = extra[i];
	argv[n] = NULL;
	d->pid = fork();
	if (!d->pid) {
		char log[160];
		int fd;

		/* Its log beside its sockets, out of the TAP stream. */
		snprintf(log, sizeof(log), "%s/%s.log", dir, name);
		fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd >= 0)
			dup2(fd, 2);
		execv(argv[0], (char **)argv);
		_exit(127);
	}
	/* ready once both are there with their modes (each is born 0000, then chmod) */
	for (i = 0; i < 500; i++) {
		struct stat cs, ss;

		if (!stat(d->csock, &cs) && !stat(d->ssock, &ss) && (cs.st_mode & 0777) &&
		    (ss.st_mode & 0777))
			return 0;
		usleep(10000);
	}
	return -1;
}

static int daemon_stop(struct daemon *d)
{
	int st;

	kill(d->pid, SIGTERM);
	if (waitpid(d->pid, &st, 0) != d->pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static bool daemon_alive(struct daemon *d)
{
	return waitpid(d->pid, NULL, WNOHANG) == 0;
}

/* ---- the protocol -------------------------------------------------------- */

static int sock_connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

static int send_raw(int fd, const void *buf, size_t len, const int *fds, int nfds)
{
	union {
		char b[CMSG_SPACE(8 * sizeof(int))];
		struct cmsghdr a;
	} cm;
	struct iovec iov = { (void *)buf, len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	tqt_cmsg_put(&mh, cm.b, fds, nfds);
	return sendmsg(fd, &mh, MSG_NOSIGNAL) < 0 ? -errno : 0;
}

/* One message within ms: its length, its descriptors in fds (up to max). */
static ssize_t recv_raw(int fd, void *buf, size_t len, int *fds, int max, int *nfds, int ms)
{
	union {
		char b[CMSG_SPACE(TQ_SOCK_EVENTS_MAX * sizeof(int))];
		struct cmsghdr a;
	} cm;
	struct iovec iov = { buf, len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.b,
			     .msg_controllen = sizeof(cm.b) };
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct cmsghdr *h;
	ssize_t n;

	if (nfds)
		*nfds = 0;
	if (poll(&p, 1, ms) != 1)
		return -ETIMEDOUT;
	n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	if (n < 0)
		return -errno;
	for (h = CMSG_FIRSTHDR(&mh); h; h = CMSG_NXTHDR(&mh, h)) {
		int k = (h->cmsg_len - CMSG_LEN(0)) / sizeof(int), i, f;

		for (i = 0; i < k; i++) {
			memcpy(&f, CMSG_DATA(h) + i * sizeof(int), sizeof(int));
			if (nfds && *nfds < max)
				fds[(*nfds)++] = f;
			else
				close(f);
		}
	}
	return n;
}

/*
 * One command: head, then len bytes of arg; the reply's struct back into
 * arg (up to len), its descriptors into rfds. The reply's status, or
 * -ETIMEDOUT with no reply within ms (an ENTER has none).
 */
static int cmd_ex(int fd, uint32_t cmd, void *arg, size_t len, const int *fds, int nfds,
		  int *rfds, int *nrfds, int ms)
{
	unsigned char buf[sizeof(struct tq_sock_msg) + 8192];
	struct tq_sock_msg h = { .cmd = cmd };
	ssize_t n;

	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), arg, len);
	if (send_raw(fd, buf, sizeof(h) + len, fds, nfds))
		return -EPIPE;
	n = recv_raw(fd, buf, sizeof(buf), rfds, 4, nrfds, ms);
	if (n < 0)
		return n;
	if (n < (ssize_t)sizeof(h))
		return -EPROTO;
	memcpy(&h, buf, sizeof(h));
	if (h.cmd != cmd)
		return -EPROTO;
	if (!h.status && arg)
		memcpy(arg, buf + sizeof(h), (size_t)n - sizeof(h) < len ? (size_t)n - sizeof(h) : len);
	return h.status;
}

static int cmd(int fd, uint32_t c, void *arg, size_t len)
{
	return cmd_ex(fd, c, arg, len, NULL, 0, NULL, NULL, 2000);
}

/* The daemon's counter name, or -1. */
static long long stat_of(const char *path, const char *name)
{
	char buf[TQD_STATS_MAX + 16], *p;
	struct tqd_stats s = { .size = sizeof(s) };
	struct tq_sock_msg h = { .cmd = TQD_SOCK_STATS };
	size_t len = strlen(name);
	int fd = sock_connect(path);
	ssize_t n;

	if (fd < 0)
		return -1;
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), &s, sizeof(s));
	if (send_raw(fd, buf, sizeof(h) + sizeof(s), NULL, 0)) {
		close(fd);
		return -1;
	}
	n = recv_raw(fd, buf, sizeof(buf) - 1, NULL, 0, NULL, 2000);
	close(fd);
	if (n < (ssize_t)sizeof(h))
		return -1;
	buf[n] = 0;
	for (p = buf + sizeof(h); p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, name, len) && p[len] == ' ')
			return atoll(p + len + 1);
	return -1;
}

/* At rest: submitted = completed + failed + rejected + dropped + in_flight. */
static bool balanced(const char *path)
{
	long long s = stat_of(path, "submitted"), c = stat_of(path, "completed"),
		  f = stat_of(path, "failed"), r = stat_of(path, "rejected"),
		  d = stat_of(path, "dropped"), i = stat_of(path, "in_flight");

	if (s != c + f + r + d + i)
		tap_diag("submitted %lld completed %lld failed %lld rejected %lld dropped %lld "
			 "in_flight %lld", s, c, f, r, d, i);
	return s >= 0 && s == c + f + r + d + i;
}

/* ---- a client ------------------------------------------------------------ */

struct client {
	int fd, efd, rings_fd, arena_fd;
	struct tq_setup s;
	void *rings, *arena;
	uint32_t *sq_prod, *sq_cons, *sq_flags, *cq_prod, *cq_cons, *cq_flags;
	struct tq_desc *sqes;
	struct tq_cqe *cqes;
	uint32_t sq_tail, cq_head;
};

static void client_close(struct client *c)
{
	if (c->rings && c->rings != MAP_FAILED)
		munmap(c->rings, c->s.cq_off.mmap_offset + c->s.cq_off.mmap_size);
	if (c->arena && c->arena != MAP_FAILED)
		munmap(c->arena, c->s.arena_bytes);
	if (c->fd >= 0)
		close(c->fd);
	if (c->efd >= 0)
		close(c->efd);
	if (c->rings_fd >= 0)
		close(c->rings_fd);
	if (c->arena_fd >= 0)
		close(c->arena_fd);
	memset(c, 0, sizeof(*c));
	c->fd = c->efd = c->rings_fd = c->arena_fd = -1;
}

/* Connect and SETUP with an eventfd (efd: -1 none, -2 make one): 0 or the status. */
/* A context of class @prio (tq_setup.prio; 0: none named). */
static int client_open_prio(struct client *c, const char *path, uint32_t sq, uint32_t cq,
			    uint64_t arena, int efd, uint8_t prio)
{
	int rfds[4], nr = 0, ret;
	size_t rsize;

	memset(c, 0, sizeof(*c));
	c->fd = c->efd = c->rings_fd = c->arena_fd = -1;
	c->fd = sock_connect(path);
	if (c->fd < 0)
		return c->fd;
	if (efd == -2)
		efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	c->efd = efd;
	c->s = (struct tq_setup){ .size = sizeof(c->s), .sq_entries = sq, .cq_entries = cq,
				  .arena_bytes = arena, .eventfd = efd, .prio = prio };
	ret = cmd_ex(c->fd, TQ_IOC_SETUP, &c->s, sizeof(c->s), efd >= 0 ? &efd : NULL,
		     efd >= 0, rfds, &nr, 2000);
	if (ret)
		return ret;
	if (nr != 2)
		return -EPROTO;
	c->rings_fd = rfds[0];
	c->arena_fd = rfds[1];
	rsize = c->s.cq_off.mmap_offset + c->s.cq_off.mmap_size;
	c->rings = mmap(NULL, rsize, PROT_READ | PROT_WRITE, MAP_SHARED, c->rings_fd, 0);
	c->arena = mmap(NULL, c->s.arena_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, c->arena_fd, 0);
	if (c->rings == MAP_FAILED || c->arena == MAP_FAILED)
		return -ENOMEM;
	{
		char *sqb = (char *)c->rings + c->s.sq_off.mmap_offset;
		char *cqb = (char *)c->rings + c->s.cq_off.mmap_offset;

		c->sq_prod = (uint32_t *)(sqb + c->s.sq_off.producer);
		c->sq_cons = (uint32_t *)(sqb + c->s.sq_off.consumer);
		c->sq_flags = (uint32_t *)(sqb + c->s.sq_off.flags);
		c->sqes = (struct tq_desc *)(sqb + c->s.sq_off.entries);
		c->cq_prod = (uint32_t *)(cqb + c->s.cq_off.producer);
		c->cq_cons = (uint32_t *)(cqb + c->s.cq_off.consumer);
		c->cq_flags = (uint32_t *)(cqb + c->s.cq_off.flags);
		c->cqes = (struct tq_cqe *)(cqb + c->s.cq_off.entries);
	}
	return 0;
}

static int client_open(struct client *c, const char *path, uint32_t sq, uint32_t cq,
		       uint64_t arena, int efd)
{
	return client_open_prio(c, path, sq, cq, arena, efd, 0);
}

static int enter_msg(int fd)
{
	struct tq_enter e = { .size = sizeof(e) };
	struct tq_sock_msg h = { .cmd = TQ_IOC_ENTER };
	unsigned char buf[16];

	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), &e, sizeof(e));
	return send_raw(fd, buf, sizeof(buf), NULL, 0);
}

/* Publish what is written (A), fence (J), ring if need-wakeup is set. */
static void client_kick(struct client *c)
{
	raw_store_release(c->sq_prod, c->sq_tail);	/* A */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);	/* J, matches I */
	if (__atomic_load_n(c->sq_flags, __ATOMIC_RELAXED) & TQ_RING_NEED_WAKEUP)
		enter_msg(c->fd);
}

/* Up to n descriptors that fit: the count. */
static int client_submit(struct client *c, const struct tq_desc *d, unsigned int n)
{
	uint32_t head = raw_load_acquire(c->sq_cons);	/* D */
	unsigned int i;

	for (i = 0; i < n && c->sq_tail - head < c->s.sq_entries; i++)
		c->sqes[c->sq_tail++ & (c->s.sq_entries - 1)] = d[i];
	client_kick(c);
	return i;
}

static int client_reap(struct client *c, struct tq_cqe *out, unsigned int max)
{
	uint32_t tail = raw_load_acquire(c->cq_prod);	/* F */
	unsigned int n = 0;

	while (c->cq_head != tail && n < max)
		out[n++] = c->cqes[c->cq_head++ & (c->s.cq_entries - 1)];
	if (n) {
		raw_store_release(c->cq_cons, c->cq_head);	/* G */
		/* Room in the CQ may let waiting descriptors through (the ENTER rule). */
		if (c->sq_tail != raw_load_acquire(c->sq_cons))
			client_kick(c);
	}
	return n;
}

/* Wait for at least want completions within ms (polling the CQ): the count. */
static int client_wait(struct client *c, struct tq_cqe *out, unsigned int max, unsigned int want,
		       int ms)
{
	unsigned int n = 0;
	uint64_t end = tq_now_ns() + ms * 1000000ull;

	while (n < want && tq_now_ns() < end) {
		int k = client_reap(c, out + n, max - n);

		n += k;
		if (!k) {
			struct pollfd p = { .fd = c->efd, .events = POLLIN };

			if (c->efd >= 0) {
				uint64_t v;

				if (poll(&p, 1, 10) == 1 && read(c->efd, &v, 8) != 8)
					break;
			} else {
				usleep(1000);
			}
		}
	}
	return n;
}

/* ---- a scheduler --------------------------------------------------------- */

struct sched {
	int fd;
	int arena_fd[64];	/* by ctx_id % 64, for the tests' few contexts */
};

static int sched_open_flags(struct sched *s, const char *path, uint32_t flags)
{
	struct tq_attach a = { .size = sizeof(a), .flags = flags };
	int ret;

	memset(s, 0, sizeof(*s));
	for (int i = 0; i < 64; i++)
		s->arena_fd[i] = -1;
	s->fd = sock_connect(path);
	if (s->fd < 0)
		return s->fd;
	ret = cmd(s->fd, TQ_IOC_ATTACH, &a, sizeof(a));
	if (ret) {
		close(s->fd);
		s->fd = -1;
	}
	return ret;
}

static int sched_open(struct sched *s, const char *path)
{
	return sched_open_flags(s, path, 0);
}

/*
 * Attach, waiting out the previous scheduler: its connection's end may not
 * have been read yet (EBUSY meanwhile), as with the module's exiting daemon.
 */
static int sched_open_wait_flags(struct sched *s, const char *path, uint32_t flags)
{
	int ret = -EBUSY;

	for (int i = 0; i < 200 && ret == -EBUSY; i++) {
		ret = sched_open_flags(s, path, flags);
		if (ret == -EBUSY)
			usleep(10000);
	}
	return ret;
}

static void sched_close(struct sched *s)
{
	for (int i = 0; i < 64; i++)
		if (s->arena_fd[i] >= 0)
			close(s->arena_fd[i]);
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}

static int sched_open_wait(struct sched *s, const char *path)
{
	return sched_open_wait_flags(s, path, 0);
}

/* Events until want TASKs arrived or ms passed (OPEN arenas kept): the count of events. */
static int sched_collect(struct sched *s, struct tq_event *ev, int max, int want, int ms)
{
	uint64_t end = tq_now_ns() + ms * 1000000ull;
	int n = 0, tasks = 0;

	while (n < max && tasks < want) {
		int left = (int)((end - tq_now_ns()) / 1000000), fds[TQ_SOCK_EVENTS_MAX], nf, i, f = 0;
		struct tq_event buf[TQ_SOCK_EVENTS_MAX];
		ssize_t len;

		if (tq_now_ns() >= end)
			break;
		len = recv_raw(s->fd, buf, sizeof(buf), fds, TQ_SOCK_EVENTS_MAX, &nf, left);
		if (len <= 0)
			break;
		for (i = 0; i < (int)(len / sizeof(buf[0])) && n < max; i++) {
			ev[n] = buf[i];
			if (buf[i].type == TQ_EV_OPEN && f < nf) {
				int *slot = &s->arena_fd[buf[i].ctx_id % 64];

				if (*slot >= 0)
					close(*slot);
				*slot = fds[f++];
			}
			tasks += buf[i].type == TQ_EV_TASK;
			n++;
		}
		while (f < nf)
			close(fds[f++]);
	}
	return n;
}

static int sched_write(struct sched *s, const struct tq_completion *c, int n)
{
	return send_raw(s->fd, c, n * sizeof(*c), NULL, 0);
}

static int sched_complete(struct sched *s, const struct tq_event *ev, int status, uint64_t result)
{
	uint64_t now = tq_now_ns();
	struct tq_completion c = { .ctx_id = ev->ctx_id, .tag = ev->tag, .status = status,
				   .result = result, .start_ns = now, .end_ns = now };

	return sched_write(s, &c, 1);
}

static int sched_mark(struct sched *s, const struct tq_event *ev)
{
	struct tq_completion c = { .ctx_id = ev->ctx_id, .flags = TQ_COMPL_F_STARTED,
				   .tag = ev->tag };

	return sched_write(s, &c, 1);
}

static int sched_release(struct sched *s, uint32_t ctx_id)
{
	struct tq_completion c = { .ctx_id = ctx_id, .flags = TQ_COMPL_F_RELEASE };

	return sched_write(s, &c, 1);
}

static int count_type(const struct tq_event *ev, int n, int type)
{
	int k = 0;

	for (int i = 0; i < n; i++)
		k += ev[i].type == type;
	return k;
}

/* No message on fd within ms. */
static bool quiet(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 0;
}

/* Wait up to ms for pid to hold want descriptors: the last count. */
static int fd_count_wait(pid_t pid, int want, int ms)
{
	int n = raw_fd_count(pid);

	for (int i = 0; i < ms / 10 && n != want; i++) {
		usleep(10000);
		n = raw_fd_count(pid);
	}
	return n;
}

/* Wait up to ms for the daemon's connections to be at most max (this look's own among them). */
static bool conns_wait(const char *path, long long max, int ms)
{
	for (int i = 0; i < ms / 10; i++) {
		long long n = stat_of(path, "connections");

		if (n >= 0 && n <= max)
			return true;
		usleep(10000);
	}
	return false;
}

/* ---- the tests ----------------------------------------------------------- */

static void test_query(struct daemon *d)
{
	struct {
		struct tq_query q;
		unsigned char tail[64];
	} b;
	unsigned char raw[64];
	int fd = sock_connect(d->csock), ret, efd;

	memset(&b, 0, sizeof(b));
	b.q.size = sizeof(b.q);
	ret = cmd(fd, TQ_IOC_QUERY, &b.q, sizeof(b.q));
	tap_ok(!ret && (b.q.features & TQ_FEAT_SOCKET) && !(b.q.features & TQ_FEAT_POLL) &&
	       (b.q.features & TQ_FEAT_REQUEUE) && (b.q.features & TQ_FEAT_IDEMPOTENT) &&
	       (b.q.features & TQ_FEAT_QOS),
	       "QUERY: features %#llx: SOCKET, REQUEUE, IDEMPOTENT, QOS, not POLL (status %d)",
	       (unsigned long long)b.q.features, ret);
	tap_ok(b.q.abi_version == TQ_ABI_VERSION && b.q.desc_size == 256 && b.q.cqe_size == 64 &&
	       b.q.event_size == 320 && b.q.completion_size == 48,
	       "QUERY: the ABI's version and record sizes");
	tap_ok(b.q.max_ring_entries == 4096 && b.q.max_arena_bytes == 1ull << 30 &&
	       b.q.max_inflight == 1024 && b.q.max_contexts == 64,
	       "QUERY: the default limits, the module's (%u %llu %u %u)", b.q.max_ring_entries,
	       (unsigned long long)b.q.max_arena_bytes, b.q.max_inflight, b.q.max_contexts);

	/* The size rules of the module's dispatcher. */
	memset(&b, 0, sizeof(b));
	b.q.size = 4;
	tap_ok(cmd(fd, TQ_IOC_QUERY, &b.q, 4) == -EINVAL, "QUERY of 4 bytes: EINVAL");
	memset(&b, 0, sizeof(b));
	b.q.size = 8;
	ret = cmd(fd, TQ_IOC_QUERY, &b.q, 8);
	tap_ok(!ret && b.q.size == 8 && !b.q.features, "QUERY of 8 bytes (oldest): 0, 8 bytes back");
	memset(&b, 0, sizeof(b));
	b.q.size = sizeof(b);
	tap_ok(!cmd(fd, TQ_IOC_QUERY, &b, sizeof(b)), "QUERY longer, zero tail: 0");
	memset(&b, 0, sizeof(b));
	b.q.size = sizeof(b);
	b.tail[63] = 1;
	tap_ok(cmd(fd, TQ_IOC_QUERY, &b, sizeof(b)) == -E2BIG, "QUERY longer, non-zero tail: E2BIG");
	memset(&b, 0, sizeof(b));
	b.q.size = sizeof(b.q);
	b.q.flags = 1;
	tap_ok(cmd(fd, TQ_IOC_QUERY, &b.q, sizeof(b.q)) == -EINVAL, "QUERY with flags: EINVAL");
	{
		static unsigned char big[6000];
		uint32_t sz = sizeof(big);

		memcpy(big, &sz, 4);
		tap_ok(cmd(fd, TQ_IOC_QUERY, big, sizeof(big)) == -E2BIG,
		       "QUERY of 6000 bytes (over a page): E2BIG");
	}
	memset(&b, 0, sizeof(b));
	b.q.size = sizeof(b.q);
	tap_ok(cmd(fd, TQ_IOC_QUERY, &b.q, sizeof(b.q) - 8) == -EINVAL,
	       "QUERY whose message is shorter than its size: EINVAL");
	tap_ok(cmd(fd, _IOWR(TQ_IOC_MAGIC, 0x33, struct tq_query), &b.q, sizeof(b.q)) == -ENOTTY,
	       "unknown command number: ENOTTY");
	tap_ok(cmd(fd, _IOR(TQ_IOC_MAGIC, 0x00, struct tq_query), &b.q, sizeof(b.q)) == -ENOTTY,
	       "QUERY's number with the wrong direction: ENOTTY");
	tap_ok(cmd(fd, _IOWR('x', 0x00, struct tq_query), &b.q, sizeof(b.q)) == -ENOTTY,
	       "another magic: ENOTTY");
	b.q.size = sizeof(b.q);
	tap_ok(cmd(fd, _IOWR(TQ_IOC_MAGIC, 0x00, char[3]), &b.q, sizeof(b.q)) == 0,
	       "QUERY with other size bits: matched on type and number, 0");

	/* Shorter than the head; a head with a status; a descriptor on QUERY. */
	memset(raw, 0, sizeof(raw));
	send_raw(fd, raw, 3, NULL, 0);
	ret = recv_raw(fd, raw, sizeof(raw), NULL, 0, NULL, 2000);
	tap_ok(ret == 8 && ((struct tq_sock_msg *)raw)->status == -EINVAL,
	       "a 3-byte message: an EINVAL reply (%d bytes)", ret);
	/* Read as 0 bytes, as the end is: the peer is still there. */
	send_raw(fd, raw, 0, NULL, 0);
	ret = recv_raw(fd, raw, sizeof(raw), NULL, 0, NULL, 2000);
	tap_ok(ret == 8 && ((struct tq_sock_msg *)raw)->status == -EINVAL,
	       "an empty message: an EINVAL reply, not the connection's end (%d bytes)", ret);
	{
		struct tq_sock_msg h = { .cmd = TQ_IOC_QUERY, .status = 5 };
		struct tq_query q = { .size = sizeof(q) };

		memcpy(raw, &h, 8);
		memcpy(raw + 8, &q, sizeof(q));
		send_raw(fd, raw, 8 + sizeof(q), NULL, 0);
		ret = recv_raw(fd, raw, sizeof(raw), NULL, 0, NULL, 2000);
		tap_ok(ret == 8 && ((struct tq_sock_msg *)raw)->status == -EINVAL,
		       "a request with a non-zero status: EINVAL");
	}
	efd = eventfd(0, EFD_CLOEXEC);
	b.q.size = sizeof(b.q);
	tap_ok(cmd_ex(fd, TQ_IOC_QUERY, &b.q, sizeof(b.q), &efd, 1, NULL, NULL, 2000) == -EINVAL,
	       "QUERY carrying a descriptor: EINVAL");
	close(efd);
	tap_ok(cmd(fd, TQ_IOC_ATTACH, &(struct tq_attach){ .size = 16 }, 16) == -EINVAL,
	       "ATTACH on the client socket: EINVAL");
	tap_ok(cmd(fd, TQ_IOC_ENTER, &(struct tq_enter){ .size = 8 }, 8) == -EINVAL,
	       "ENTER before SETUP: an EINVAL reply");
	b.q.size = sizeof(b.q);
	tap_ok(!cmd(fd, TQ_IOC_QUERY, &b.q, sizeof(b.q)), "and the connection still answers");
	close(fd);

	fd = sock_connect(d->ssock);
	b.q.size = sizeof(b.q);
	tap_ok(!cmd(fd, TQ_IOC_QUERY, &b.q, sizeof(b.q)) && (b.q.features & TQ_FEAT_SOCKET),
	       "QUERY on the scheduler socket");
	{
		struct tq_setup s = { .size = sizeof(s), .sq_entries = 4, .arena_bytes = 4096,
				      .eventfd = -1 };

		tap_ok(cmd(fd, TQ_IOC_SETUP, &s, sizeof(s)) == -EINVAL,
		       "SETUP on the scheduler socket: EINVAL");
	}
	close(fd);
}

static void test_setup(struct daemon *d)
{
	struct client c;
	struct stat st;
	long ps = sysconf(_SC_PAGESIZE);
	int ret, seals;
	int fd;

	ret = client_open(&c, d->csock, 5, 0, 10000, -2);
	tap_ok(!ret, "SETUP: status %d", ret);
	if (ret)
		return;
	tap_ok(c.s.sq_entries == 8 && c.s.cq_entries == 16 && c.s.arena_bytes == 12288 &&
	       c.s.max_inflight == 16 && c.s.ctx_id > 0 && c.s.arena_offset == 0 &&
	       (c.s.features & TQ_FEAT_SOCKET),
	       "SETUP rounds as the module: sq 8, cq 16, arena 12288, inflight 16 (got %u %u %llu %u)",
	       c.s.sq_entries, c.s.cq_entries, (unsigned long long)c.s.arena_bytes,
	       c.s.max_inflight);
	tap_ok(c.s.sq_off.mmap_offset == 0 &&
	       c.s.sq_off.mmap_size == (uint64_t)((256 + 8 * 256 + ps - 1) / ps * ps) &&
	       c.s.cq_off.mmap_offset == c.s.sq_off.mmap_size &&
	       c.s.cq_off.mmap_size == (uint64_t)((256 + 16 * 64 + ps - 1) / ps * ps) &&
	       c.s.sq_off.producer == 0 && c.s.sq_off.consumer == 64 && c.s.sq_off.flags == 128 &&
	       c.s.sq_off.entries == 256,
	       "SETUP: the ring offsets (SQ at 0, CQ after it, the module's layout)");
	seals = fcntl(c.rings_fd, F_GET_SEALS);
	tap_ok(seals == (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL),
	       "rings memfd sealed against shrinking, growing and more seals (%#x)", seals);
	seals = fcntl(c.arena_fd, F_GET_SEALS);
	tap_ok(seals == (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL), "arena memfd sealed (%#x)",
	       seals);
	memset(&st, 0, sizeof(st));
	fstat(c.rings_fd, &st);
	tap_ok((uint64_t)st.st_size == c.s.cq_off.mmap_offset + c.s.cq_off.mmap_size,
	       "rings memfd's size is the two rings' (%lld)", (long long)st.st_size);
	memset(&st, 0, sizeof(st));
	fstat(c.arena_fd, &st);
	tap_ok((uint64_t)st.st_size == c.s.arena_bytes,
	       "arena memfd's size is arena_bytes (%lld)", (long long)st.st_size);
	tap_ok(ftruncate(c.arena_fd, 4096) && errno == EPERM && ftruncate(c.rings_fd, 1 << 20) &&
	       errno == EPERM, "neither memfd can be resized (EPERM)");
	tap_ok(fcntl(c.rings_fd, F_GETFD) & FD_CLOEXEC, "descriptors arrive close-on-exec");
	tap_ok(*c.sq_flags == TQ_RING_NEED_WAKEUP && !*c.sq_prod && !*c.sq_cons && !*c.cq_prod,
	       "no scheduler: need-wakeup set, indices 0");
	{
		struct tq_setup s = c.s;

		s.size = sizeof(s);
		s.eventfd = -1;
		tap_ok(cmd(c.fd, TQ_IOC_SETUP, &s, sizeof(s)) == -EINVAL, "SETUP twice: EINVAL");
	}
	tap_ok(enter_msg(c.fd) == 0 && quiet(c.fd, 100), "a good ENTER has no reply");
	{
		struct tq_enter e = { .size = sizeof(e), .flags = 1 };

		tap_ok(cmd(c.fd, TQ_IOC_ENTER, &e, sizeof(e)) == -EINVAL, "ENTER with flags: EINVAL");
	}
	client_close(&c);

	/* Each bad SETUP, with the module's errno. */
	struct {
		const char *what;
		struct tq_setup s;
		int fds;	/* 0 none, 1 an eventfd, 2 a pipe, 3 two eventfds */
		int err;
	} bad[] = {
		{ "0 SQ entries", { .sq_entries = 0, .arena_bytes = 4096, .eventfd = -1 }, 0, -ERANGE },
		{ "SQ entries over the maximum", { .sq_entries = 8192, .arena_bytes = 4096,
		  .eventfd = -1 }, 0, -ERANGE },
		{ "CQ entries over the maximum", { .sq_entries = 4, .cq_entries = 8192,
		  .arena_bytes = 4096, .eventfd = -1 }, 0, -ERANGE },
		{ "0 arena bytes", { .sq_entries = 4, .eventfd = -1 }, 0, -EINVAL },
		{ "arena over the maximum", { .sq_entries = 4, .arena_bytes = (1ull << 30) + 1,
		  .eventfd = -1 }, 0, -EFBIG },
		{ "eventfd -2", { .sq_entries = 4, .arena_bytes = 4096, .eventfd = -2 }, 0, -EBADF },
		{ "eventfd 5 without the descriptor", { .sq_entries = 4, .arena_bytes = 4096,
		  .eventfd = 5 }, 0, -EBADF },
		{ "a pipe for the eventfd", { .sq_entries = 4, .arena_bytes = 4096, .eventfd = 5 },
		  2, -EINVAL },
		{ "two descriptors", { .sq_entries = 4, .arena_bytes = 4096, .eventfd = 5 }, 3,
		  -EINVAL },
		{ "a descriptor with eventfd -1", { .sq_entries = 4, .arena_bytes = 4096,
		  .eventfd = -1 }, 1, -EINVAL },
		{ "flags", { .flags = 1, .sq_entries = 4, .arena_bytes = 4096, .eventfd = -1 }, 0,
		  -EINVAL },
		{ "resv", { .resv = { 1 }, .sq_entries = 4, .arena_bytes = 4096, .eventfd = -1 }, 0,
		  -EINVAL },
		{ "an unknown class", { .prio = TQ_PRIO_MAX + 1, .sq_entries = 4,
		  .arena_bytes = 4096, .eventfd = -1 }, 0, -EINVAL },
	};
	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int fds[2] = { -1, -1 }, n = 0, p[2];

		fd = sock_connect(d->csock);
		if (bad[i].fds == 1 || bad[i].fds == 3)
			fds[n++] = eventfd(0, EFD_CLOEXEC);
		if (bad[i].fds == 3)
			fds[n++] = eventfd(0, EFD_CLOEXEC);
		if (bad[i].fds == 2 && !pipe2(p, O_CLOEXEC)) {
			fds[n++] = p[0];
			close(p[1]);
		}
		bad[i].s.size = sizeof(bad[i].s);
		ret = cmd_ex(fd, TQ_IOC_SETUP, &bad[i].s, sizeof(bad[i].s), fds, n, NULL, NULL, 2000);
		tap_ok(ret == bad[i].err, "SETUP with %s: %s (got %d)", bad[i].what,
		       strerror(-bad[i].err), ret);
		for (int k = 0; k < n; k++)
			close(fds[k]);
		/* The connection is still fresh: a good SETUP now works. */
		if (i == 0) {
			struct tq_setup s = { .size = sizeof(s), .sq_entries = 4, .arena_bytes = 4096,
					      .eventfd = -1 };

			tap_ok(!cmd(fd, TQ_IOC_SETUP, &s, sizeof(s)), "then a good SETUP on it: 0");
		}
		close(fd);
	}
}

/* The module's descriptor cases, sent before the scheduler comes; the same statuses. */
static void test_descriptors(struct daemon *d)
{
	struct tq_desc desc[NBAD + NGOOD];
	struct tq_event ev[NBAD + NGOOD + 4];
	struct tq_cqe cqe[NBAD + NGOOD];
	int seen[NBAD + NGOOD] = { 0 }, i, n, got, wrong = 0, mism = 0;
	uint32_t id;
	long long rejected = stat_of(d->csock, "rejected");
	struct client c;
	struct sched s;

	if (client_open(&c, d->csock, 64, 0, 1 << 20, -2)) {
		tap_ok(0, "descriptor cases: SETUP");
		return;
	}
	for (i = 0; i < NBAD; i++) {
		raw_task(&desc[i], i);
		bad_cases[i].edit(&desc[i]);
	}
	for (i = 0; i < NGOOD; i++)
		good_case(&desc[NBAD + i], i, NBAD + i);
	tap_ok(client_submit(&c, desc, NBAD + NGOOD) == NBAD + NGOOD, "%d descriptors in the SQ",
	       NBAD + NGOOD);
	usleep(50000);
	tap_ok(!raw_load_acquire(c.sq_cons), "nothing taken without a scheduler");
	tap_ok(!sched_open_wait(&s, d->ssock), "a scheduler attaches");
	n = sched_collect(&s, ev, NBAD + NGOOD + 4, NGOOD, 3000);
	tap_ok(n >= 1 && ev[0].type == TQ_EV_OPEN && ev[0].ctx_id == c.s.ctx_id &&
	       ev[0].pid == (uint32_t)getpid() && ev[0].uid == getuid() &&
	       ev[0].open.arena_bytes == c.s.arena_bytes && ev[0].open.arena_offset == 0 &&
	       ev[0].open.sq_entries == 64 && ev[0].open.cq_entries == 128 &&
	       ev[0].open.max_inflight == 128 && s.arena_fd[c.s.ctx_id % 64] >= 0,
	       "the first event is the context's OPEN, its fields right, its arena attached");
	tap_ok(count_type(ev, n, TQ_EV_TASK) == NGOOD, "the %d good descriptors arrive as TASKs (%d)",
	       NGOOD, count_type(ev, n, TQ_EV_TASK));
	for (i = 0; i < n; i++) {
		if (ev[i].type != TQ_EV_TASK)
			continue;
		if (ev[i].task.user_data < NBAD || ev[i].task.user_data >= NBAD + NGOOD ||
		    memcmp(&desc[ev[i].task.user_data], &ev[i].task, sizeof(desc[0])) ||
		    ev[i].flags || ev[i].pid != (uint32_t)getpid() || !ev[i].submit_ns)
			mism++;
		sched_complete(&s, &ev[i], 0, 7);
	}
	tap_ok(!mism, "each TASK is the descriptor as written, with pid and submit time");
	got = client_wait(&c, cqe, NBAD + NGOOD, NBAD + NGOOD, 3000);
	tap_ok(got == NBAD + NGOOD, "every descriptor completes (%d)", got);
	for (i = 0; i < got; i++) {
		uint64_t k = cqe[i].user_data;

		if (k >= NBAD + NGOOD) {
			wrong++;
			continue;
		}
		seen[k]++;
		if (k < NBAD && cqe[i].status != bad_cases[k].status) {
			tap_diag("%s: status %d, the module's %d", bad_cases[k].what, cqe[i].status,
				 bad_cases[k].status);
			wrong++;
		}
		if (k >= NBAD && (cqe[i].status || cqe[i].result != 7 || !cqe[i].queued_ns))
			wrong++;
	}
	for (i = 0; i < NBAD + NGOOD; i++)
		wrong += seen[i] != 1;
	tap_ok(!wrong, "each bad case has the module's status, each good one 0, once each");
	tap_ok(stat_of(d->csock, "rejected") == rejected + NBAD, "rejected counts the %d", NBAD);

	/* The arena is shared both ways through the scheduler's descriptor. */
	{
		int afd = s.arena_fd[c.s.ctx_id % 64];
		char *m = mmap(NULL, c.s.arena_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, afd, 0);

		if (m != MAP_FAILED) {
			strcpy(c.arena, "from the client");
			strcpy(m + 4096, "from the scheduler");
			tap_ok(!strcmp(m, "from the client") &&
			       !strcmp((char *)c.arena + 4096, "from the scheduler"),
			       "the scheduler's arena mapping and the client's are the same pages");
			munmap(m, c.s.arena_bytes);
		} else {
			tap_ok(0, "the scheduler maps the arena");
		}
	}

	/* Bad completion records are dropped and counted; good ones still work. */
	{
		long long bad = stat_of(d->csock, "bad_records");
		struct tq_completion r[4] = {
			{ .ctx_id = c.s.ctx_id, .tag = 99, .status = 0 },		/* no such tag */
			{ .ctx_id = 99999, .tag = 1 },					/* no such context */
			{ .ctx_id = c.s.ctx_id, .tag = ev[1].tag, .status = 1 },	/* status > 0 */
			{ .ctx_id = c.s.ctx_id, .flags = TQ_COMPL_F_RELEASE },	/* not closed */
		};
		char junk[50] = { 0 };

		sched_write(&s, r, 4);
		send_raw(s.fd, junk, sizeof(junk), NULL, 0);
		tap_ok(stat_of(d->csock, "bad_records") == bad + 5,
		       "4 bad records and a message of 50 bytes: counted (%lld)",
		       stat_of(d->csock, "bad_records") - bad);
		tap_ok(!client_reap(&c, cqe, 4), "and nothing reaches the client");
	}
	id = c.s.ctx_id;
	client_close(&c);
	n = sched_collect(&s, ev, 4, 1, 300);
	tap_ok(n == 1 && ev[0].type == TQ_EV_CLOSE && ev[0].ctx_id == id,
	       "the client closes: TQ_EV_CLOSE");
	sched_close(&s);
	tap_ok(balanced(d->csock), "the counters balance");
}

/*
 * QoS (TQ_FEAT_QOS): the context's class reaches the scheduler in its OPEN,
 * a task's class and deadline in its descriptor; TQ_COMPL_F_LATE becomes
 * TQ_CQE_F_LATE, and is a bad record on a task without a deadline or on a
 * mark.
 */
static void test_qos(struct daemon *d)
{
	struct tq_desc desc[2];
	struct tq_event ev[8];
	struct tq_cqe cqe[4];
	long long bad = stat_of(d->csock, "bad_records");
	struct client c;
	struct sched s;
	int n, t = 0;

	if (sched_open_wait(&s, d->ssock) ||
	    client_open_prio(&c, d->csock, 4, 0, 4096, -2, TQ_PRIO_CRITICAL)) {
		tap_ok(0, "qos: set up");
		return;
	}
	n = sched_collect(&s, ev, 8, 1, 2000);
	tap_ok(n == 1 && ev[0].type == TQ_EV_OPEN && ev[0].open.prio == TQ_PRIO_CRITICAL &&
	       !ev[0].open.resv[0] && !ev[0].open.resv[1] && !ev[0].open.resv[2],
	       "qos: the OPEN carries the context's class (%u)", n == 1 ? ev[0].open.prio : 0);
	raw_task(&desc[0], 0);
	desc[0].flags = TQ_DESC_PRIO(TQ_PRIO_BACKGROUND) | TQ_DESC_DEADLINE(20);
	raw_task(&desc[1], 1);
	client_submit(&c, desc, 2);
	n = sched_collect(&s, ev, 8, 2, 2000);
	for (int i = 0; i < n; i++)
		t += ev[i].type == TQ_EV_TASK;
	tap_ok(t == 2 && ev[0].task.flags == desc[0].flags && !ev[1].task.flags,
	       "qos: a task's class and deadline reach the scheduler as written");
	if (t != 2) {
		client_close(&c);
		sched_close(&s);
		return;
	}
	{
		struct tq_completion r[4] = {
			{ .ctx_id = c.s.ctx_id, .tag = ev[1].tag, .flags = TQ_COMPL_F_LATE },
			{ .ctx_id = c.s.ctx_id, .tag = ev[0].tag,
			  .flags = TQ_COMPL_F_LATE | TQ_COMPL_F_STARTED },
			{ .ctx_id = c.s.ctx_id, .tag = ev[0].tag, .flags = TQ_COMPL_F_LATE },
			{ .ctx_id = c.s.ctx_id, .tag = ev[1].tag },
		};

		sched_write(&s, r, 4);
	}
	n = client_wait(&c, cqe, 4, 2, 2000);
	tap_ok(n == 2 && cqe[0].user_data == 0 && cqe[0].flags == TQ_CQE_F_LATE &&
	       cqe[1].user_data == 1 && !cqe[1].flags,
	       "qos: LATE on the task with a deadline gives its cqe TQ_CQE_F_LATE, none else");
	tap_ok(stat_of(d->csock, "bad_records") == bad + 2,
	       "qos: LATE without a deadline, and LATE on a mark: bad records (%lld)",
	       stat_of(d->csock, "bad_records") - bad);
	client_close(&c);
	sched_close(&s);
	tap_ok(balanced(d->csock), "qos: the counters balance");
}

/* Hostile indices break only their own context. */
static void test_broken(struct daemon *d)
{
	struct client bad, good;
	struct tq_desc desc[4];
	struct tq_event ev[16];
	struct tq_cqe cqe[8];
	struct sched s;
	int n, got;

	if (sched_open_wait(&s, d->ssock) || client_open(&bad, d->csock, 4, 0, 4096, -2) ||
	    client_open(&good, d->csock, 4, 0, 4096, -2)) {
		tap_ok(0, "broken: set up");
		return;
	}
	sched_collect(&s, ev, 16, 0, 200);
	/* SQ producer far ahead of the consumer. */
	raw_store_release(bad.sq_prod, 1000);
	enter_msg(bad.fd);
	for (int i = 0; i < 4; i++)
		raw_task(&desc[i], i);
	client_submit(&good, desc, 4);
	n = sched_collect(&s, ev, 16, 4, 2000);
	tap_ok(count_type(ev, n, TQ_EV_TASK) == 4, "the honest client's tasks arrive");
	for (int i = 0; i < n; i++) {
		if (ev[i].type == TQ_EV_TASK && ev[i].ctx_id != good.s.ctx_id)
			tap_diag("a task of context %u", ev[i].ctx_id);
		if (ev[i].type == TQ_EV_TASK)
			sched_complete(&s, &ev[i], 0, 0);
	}
	got = client_wait(&good, cqe, 8, 4, 2000);
	tap_ok(got == 4, "and complete (%d)", got);
	tap_ok((*bad.sq_flags & TQ_RING_BROKEN) && (*bad.cq_flags & TQ_RING_BROKEN) &&
	       !(*good.sq_flags & TQ_RING_BROKEN),
	       "an SQ producer beyond the ring: TQ_RING_BROKEN in both of its rings, not the other's");
	tap_ok(!raw_load_acquire(bad.sq_cons), "nothing taken from the broken ring");
	client_close(&bad);

	/* CQ consumer ahead of the producer: broken at the next completion. */
	if (client_open(&bad, d->csock, 4, 0, 4096, -2)) {
		tap_ok(0, "broken: a second context");
		return;
	}
	raw_task(&desc[0], 1);
	client_submit(&bad, desc, 1);
	n = sched_collect(&s, ev, 16, 1, 2000);
	raw_store_release(bad.cq_cons, 77);
	for (int i = 0; i < n; i++)
		if (ev[i].type == TQ_EV_TASK)
			sched_complete(&s, &ev[i], 0, 0);
	usleep(100000);
	tap_ok((*bad.cq_flags & TQ_RING_BROKEN) && !*bad.cq_prod,
	       "a CQ consumer beyond the producer: broken, no completion written");
	client_close(&bad);
	client_close(&good);
	sched_close(&s);
	usleep(50000);
	tap_ok(balanced(d->csock), "the counters balance");
}

/* Small limits: contexts, bytes, inflight; a full CQ stops taking. */
static void test_limits(struct daemon *d)
{
	struct client c[5];
	struct tq_desc desc[16];
	struct tq_event ev[32];
	struct tq_cqe cqe[16];
	struct sched s;
	int i, ret, n, got;

	for (i = 0; i < 4; i++)
		ret = client_open(&c[i], d->csock, 4, 0, 4096, -1);
	tap_ok(!ret, "4 contexts of one user (the limit)");
	ret = client_open(&c[4], d->csock, 4, 0, 4096, -1);
	tap_ok(ret == -EMFILE, "a 5th: EMFILE (%d)", ret);
	client_close(&c[4]);
	for (i = 0; i < 4; i++)
		client_close(&c[i]);
	usleep(50000);
	ret = client_open(&c[0], d->csock, 4, 0, 1 << 20, -1);
	tap_ok(!ret, "after closing them, a context of 1 MiB (of --user-bytes-max 1200K)");
	ret = client_open(&c[1], d->csock, 4, 0, 1 << 19, -1);
	tap_ok(ret == -ENOMEM, "a second of 512 KiB passes the user's bytes: ENOMEM (%d)", ret);
	client_close(&c[1]);
	client_close(&c[0]);
	usleep(50000);
	ret = client_open(&c[0], d->csock, 128, 0, 4096, -1);
	tap_ok(ret == -ERANGE, "SQ entries over --ring-entries-max 64: ERANGE (%d)", ret);
	client_close(&c[0]);

	/* --inflight-max 4: the scheduler holds 4 at most; the rest wait in the SQ. */
	if (client_open(&c[0], d->csock, 16, 0, 4096, -2) || sched_open_wait(&s, d->ssock)) {
		tap_ok(0, "limits: set up");
		return;
	}
	tap_ok(c[0].s.max_inflight == 4, "max_inflight = min(inflight_max 4, cq 32) = %u",
	       c[0].s.max_inflight);
	for (i = 0; i < 10; i++)
		raw_nop(&desc[i], i);
	client_submit(&c[0], desc, 10);
	n = sched_collect(&s, ev, 32, 5, 500);
	tap_ok(count_type(ev, n, TQ_EV_TASK) == 4 && raw_load_acquire(c[0].sq_cons) == 4,
	       "10 submitted: 4 delivered, the SQ consumer at 4 (%d, %u)",
	       count_type(ev, n, TQ_EV_TASK), raw_load_acquire(c[0].sq_cons));
	for (i = 0; i < n; i++)
		if (ev[i].type == TQ_EV_TASK)
			sched_complete(&s, &ev[i], 0, 0);
	n = sched_collect(&s, ev, 32, 4, 2000);
	tap_ok(count_type(ev, n, TQ_EV_TASK) == 4, "4 completions let the next 4 through");
	for (i = 0; i < n; i++)
		if (ev[i].type == TQ_EV_TASK)
			sched_complete(&s, &ev[i], 0, 0);
	n = sched_collect(&s, ev, 32, 2, 2000);
	for (i = 0; i < n; i++)
		if (ev[i].type == TQ_EV_TASK)
			sched_complete(&s, &ev[i], 0, 0);
	got = client_wait(&c[0], cqe, 16, 10, 2000);
	tap_ok(got == 10, "all 10 complete (%d)", got);
	client_close(&c[0]);

	/* A CQ of 4 that is not reaped: after 4 completions nothing more is taken. */
	if (client_open(&c[0], d->csock, 4, 4, 4096, -2)) {
		tap_ok(0, "limits: set up a small CQ");
		return;
	}
	for (i = 0; i < 4; i++)
		raw_nop(&desc[i], i);
	client_submit(&c[0], desc, 4);
	n = sched_collect(&s, ev, 32, 4, 2000);
	for (i = 0; i < n; i++)
		if (ev[i].type == TQ_EV_TASK)
			sched_complete(&s, &ev[i], 0, 0);
	for (i = 0; i < 200 && raw_load_acquire(c[0].cq_prod) != 4; i++)
		usleep(5000);
	for (i = 0; i < 4; i++)
		raw_nop(&desc[i], 10 + i);
	c[0].sq_tail = raw_load_acquire(c[0].sq_cons);
	client_submit(&c[0], desc, 4);
	n = sched_collect(&s, ev, 32, 1, 300);
	tap_ok(count_type(ev, n, TQ_EV_TASK) == 0 && raw_load_acquire(c[0].sq_cons) == 4,
	       "a full CQ: the next 4 wait in the SQ");
	got = client_reap(&c[0], cqe, 16);	/* makes room and rings (the ENTER rule) */
	n = sched_collect(&s, ev, 32, 4, 2000);
	tap_ok(got == 4 && count_type(ev, n, TQ_EV_TASK) == 4,
	       "reaping 4 and ringing lets them through (%d)", count_type(ev, n, TQ_EV_TASK));
	for (i = 0; i < n; i++)
		if (ev[i].type == TQ_EV_TASK)
			sched_complete(&s, &ev[i], 0, 0);
	got = client_wait(&c[0], cqe, 16, 4, 2000);
	tap_ok(got == 4, "and complete");
	client_close(&c[0]);
	sched_close(&s);
	usleep(50000);
	tap_ok(balanced(d->csock), "the counters balance");
}

/* Doorbells that can do nothing are absorbed and counted. */
static void test_enter(struct daemon *d)
{
	long long e0 = stat_of(d->csock, "enters"), a0 = stat_of(d->csock, "enters_absorbed");
	struct tq_event ev[8];
	struct tq_desc desc;
	struct client c;
	struct sched s;
	int i, n;

	if (client_open(&c, d->csock, 4, 0, 4096, -2)) {
		tap_ok(0, "doorbells: set up");
		return;
	}
	for (i = 0; i < 100; i++)
		enter_msg(c.fd);
	usleep(100000);
	tap_ok(stat_of(d->csock, "enters") == e0 + 100 &&
	       stat_of(d->csock, "enters_absorbed") == a0 + 100,
	       "100 ENTERs without a scheduler: all absorbed");
	if (sched_open_wait(&s, d->ssock)) {
		tap_ok(0, "doorbells: a scheduler attaches");
		client_close(&c);
		return;
	}
	sched_collect(&s, ev, 8, 0, 200);
	tap_ok(*c.sq_flags & TQ_RING_NEED_WAKEUP, "an idle scheduler: need-wakeup set");
	e0 = stat_of(d->csock, "enters");
	a0 = stat_of(d->csock, "enters_absorbed");
	for (i = 0; i < 50; i++)
		enter_msg(c.fd);
	usleep(100000);
	tap_ok(stat_of(d->csock, "enters_absorbed") - a0 == 50,
	       "50 ENTERs with nothing queued: absorbed");
	raw_nop(&desc, 1);
	c.sqes[c.sq_tail++ & 3] = desc;
	raw_store_release(c.sq_prod, c.sq_tail);
	e0 = stat_of(d->csock, "enters");
	a0 = stat_of(d->csock, "enters_absorbed");
	for (i = 0; i < 20; i++)
		enter_msg(c.fd);
	n = sched_collect(&s, ev, 8, 1, 2000);
	usleep(50000);
	tap_ok(count_type(ev, n, TQ_EV_TASK) == 1 && stat_of(d->csock, "enters") - e0 == 20 &&
	       stat_of(d->csock, "enters_absorbed") - a0 >= 19,
	       "a descriptor and 20 ENTERs: it arrives, at most one ENTER woke anything (%lld)",
	       20 - (stat_of(d->csock, "enters_absorbed") - a0));
	for (i = 0; i < n; i++)
		if (ev[i].type == TQ_EV_TASK)
			sched_complete(&s, &ev[i], 0, 0);
	client_close(&c);
	sched_close(&s);
}

/* A client killed with tasks in flight: CLOSE, RELEASE; the others finish. */
static void test_client_killed(struct daemon *d)
{
	struct tq_event ev[64];
	struct tq_desc desc[8];
	struct tq_cqe cqe[16];
	struct client good;
	struct sched s;
	int p[2], n, i, got, closes = 0, mine = 0;
	long long ctxs;
	pid_t pid;
	char ch;

	if (sched_open_wait(&s, d->ssock) || client_open(&good, d->csock, 8, 0, 4096, -2) || pipe(p)) {
		tap_ok(0, "client killed: set up");
		return;
	}
	sched_collect(&s, ev, 64, 0, 200);
	ctxs = stat_of(d->csock, "contexts");
	pid = fork();
	if (!pid) {
		struct client c;

		if (client_open(&c, d->csock, 8, 0, 4096, -2))
			_exit(1);
		for (i = 0; i < 6; i++)
			raw_task(&desc[i], i);
		client_submit(&c, desc, 6);
		if (write(p[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(p[1]);
	tap_ok(read(p[0], &ch, 1) == 1, "a client process submitted 6 tasks");
	close(p[0]);
	n = sched_collect(&s, ev, 64, 6, 2000);
	tap_ok(count_type(ev, n, TQ_EV_TASK) == 6, "the scheduler holds them");
	for (i = 0; i < 8; i++)
		raw_task(&desc[i], 100 + i);
	client_submit(&good, desc, 8);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	n += sched_collect(&s, ev + n, 64 - n, 8, 2000);
	for (i = 0; i < n; i++) {
		closes += ev[i].type == TQ_EV_CLOSE;
		if (ev[i].type == TQ_EV_TASK) {
			mine += ev[i].ctx_id == good.s.ctx_id;
			sched_complete(&s, &ev[i], 0, 0);	/* the dead one's too: accepted, dropped */
		}
	}
	for (i = 0; !closes && i < 10; i++) {
		int k = sched_collect(&s, ev, 64, 1, 200);

		closes += count_type(ev, k, TQ_EV_CLOSE);
	}
	tap_ok(closes == 1, "the killed client's context: TQ_EV_CLOSE");
	got = client_wait(&good, cqe, 16, 8, 2000);
	tap_ok(mine == 8 && got == 8, "the other client's 8 tasks all complete (%d)", got);
	tap_ok(stat_of(d->csock, "contexts") == ctxs + 1, "the closed context lives until RELEASE");
	for (i = 0; i < n; i++)
		if (ev[i].type == TQ_EV_CLOSE)
			sched_release(&s, ev[i].ctx_id);
	usleep(50000);
	tap_ok(stat_of(d->csock, "contexts") == ctxs, "RELEASE frees it");
	tap_ok(balanced(d->csock), "the counters balance");
	client_close(&good);
	sched_close(&s);
}

/*
 * A scheduler killed holding marked and unmarked TASKs, idempotent TASKs and
 * NOPs: the next one gets them requeued but for the marked plain TASKs,
 * which complete with -EOWNERDEAD.
 */
static void test_sched_killed(struct daemon *d)
{
	enum { N = 12 };
	struct tq_event ev[64];
	struct tq_desc desc[N];
	struct tq_cqe cqe[32];
	struct client c;
	struct sched s;
	int i, n, got, p[2], seen[N] = { 0 }, ok = 1, requeued = 0;
	long long req0 = stat_of(d->csock, "requeued"), ab0 = stat_of(d->csock, "abandoned");
	pid_t pid;
	char ch;

	if (client_open(&c, d->csock, 16, 0, 4096, -2) || pipe(p)) {
		tap_ok(0, "scheduler killed: set up");
		return;
	}
	/* 0-3 TASK, 4-7 idempotent TASK, 8-11 NOP; the even ones get marked. */
	for (i = 0; i < N; i++) {
		if (i < 8)
			raw_task(&desc[i], i);
		else
			raw_nop(&desc[i], i);
		if (i >= 4 && i < 8)
			desc[i].flags = TQ_DESC_F_IDEMPOTENT;
	}
	client_submit(&c, desc, N);
	pid = fork();
	if (!pid) {
		struct sched k;

		if (sched_open_wait(&k, d->ssock))
			_exit(1);
		n = sched_collect(&k, ev, 64, N, 3000);
		for (i = 0; i < n; i++)
			if (ev[i].type == TQ_EV_TASK && !(ev[i].task.user_data & 1))
				sched_mark(&k, &ev[i]);
		/* The marks are sent; now die without a word. */
		if (write(p[1], "x", 1) != 1)
			_exit(1);
		raise(SIGKILL);
	}
	close(p[1]);
	tap_ok(read(p[0], &ch, 1) == 1, "a scheduler took %d tasks and marked the even ones", N);
	close(p[0]);
	waitpid(pid, NULL, 0);
	/* Its connection's end is read after its marks. */
	for (i = 0; i < 100 && stat_of(d->csock, "requeued") == req0; i++)
		usleep(10000);
	got = client_wait(&c, cqe, 32, 2, 2000);
	for (i = 0; i < got; i++) {
		uint64_t k = cqe[i].user_data;

		if (k >= 4 || k & 1 || cqe[i].status != -EOWNERDEAD || (cqe[i].flags & TQ_CQE_F_REQUEUED))
			ok = 0;
		if (k < N)
			seen[k]++;
	}
	tap_ok(got == 2 && ok, "the marked plain TASKs (0, 2) complete with -EOWNERDEAD (%d)", got);
	tap_ok(stat_of(d->csock, "abandoned") == ab0 + 2 && stat_of(d->csock, "requeued") == req0 + 10,
	       "abandoned +2, requeued +10");
	if (sched_open_wait(&s, d->ssock)) {
		tap_ok(0, "the next scheduler attaches");
		return;
	}
	n = sched_collect(&s, ev, 64, N - 2, 3000);
	tap_ok(n >= 1 && ev[0].type == TQ_EV_OPEN && ev[0].ctx_id == c.s.ctx_id,
	       "the next scheduler reads the context's OPEN first");
	for (i = 0; i < n; i++) {
		if (ev[i].type != TQ_EV_TASK)
			continue;
		requeued += !!(ev[i].flags & TQ_EV_F_REQUEUED);
		sched_complete(&s, &ev[i], 0, 0);
	}
	tap_ok(count_type(ev, n, TQ_EV_TASK) == N - 2 && requeued == N - 2,
	       "then the other 10, each TQ_EV_F_REQUEUED (%d of %d)", requeued,
	       count_type(ev, n, TQ_EV_TASK));
	got = client_wait(&c, cqe, 32, N - 2, 3000);
	ok = 1;
	for (i = 0; i < got; i++) {
		uint64_t k = cqe[i].user_data;

		if (k >= N || cqe[i].status || !(cqe[i].flags & TQ_CQE_F_REQUEUED))
			ok = 0;
		else
			seen[k]++;
	}
	for (i = 0; i < N; i++)
		ok &= seen[i] == 1;
	tap_ok(got == N - 2 && ok, "each task completed exactly once, the requeued ones flagged");
	{
		struct sched t;

		tap_ok(sched_open(&t, d->ssock) == -EBUSY, "a second scheduler: EBUSY");
	}
	client_close(&c);
	sched_close(&s);
	usleep(50000);
	tap_ok(balanced(d->csock), "the counters balance");
}

/* The TASK events among n, in order, into t: their count. */
static int tasks_of(const struct tq_event *ev, int n, struct tq_event *t)
{
	int k = 0;

	for (int i = 0; i < n; i++)
		if (ev[i].type == TQ_EV_TASK)
			t[k++] = ev[i];
	return k;
}

/* The completion of user_data ud among n, or NULL. */
static const struct tq_cqe *cqe_of(const struct tq_cqe *cqe, int n, uint64_t ud)
{
	for (int i = 0; i < n; i++)
		if (cqe[i].user_data == ud)
			return &cqe[i];
	return NULL;
}

static void chained(struct tq_desc *d, uint64_t ud, uint32_t after)
{
	raw_task(d, ud);
	d->flags = TQ_DESC_F_AFTER;
	d->after = after;
}

/*
 * Chains (TQ_DESC_F_AFTER) on the socket: a scheduler without
 * TQ_ATTACH_F_CHAINS gets a successor only after its predecessor completed
 * with 0, and a failed predecessor cancels the rest of the chain; one with
 * the flag gets the chain at once, each link naming its predecessor's
 * seq; a chain survives the scheduler's death in order, and one whose
 * marked head is abandoned is cancelled.
 */
static void test_chains(struct daemon *d)
{
	struct tq_event ev[16], t[16];
	struct tq_desc desc[4];
	struct tq_cqe cqe[8];
	const struct tq_cqe *e1, *e2, *e3;
	struct tq_query q = { .size = sizeof(q) };
	struct client c;
	struct sched s;
	int n, k, got;

	if (client_open(&c, d->csock, 16, 0, 4096, -2)) {
		tap_ok(0, "chains: SETUP");
		return;
	}
	tap_ok(!cmd(c.fd, TQ_IOC_QUERY, &q, sizeof(q)) && (q.features & TQ_FEAT_CHAINS),
	       "QUERY: TQ_FEAT_CHAINS");

	/* Held by the server: 1, 2 after 1, 3 after 2. */
	raw_task(&desc[0], 1);
	chained(&desc[1], 2, 1);
	chained(&desc[2], 3, 1);
	client_submit(&c, desc, 3);
	if (sched_open_wait(&s, d->ssock)) {
		tap_ok(0, "chains: a scheduler attaches");
		client_close(&c);
		return;
	}
	n = sched_collect(&s, ev, 16, 3, 500);
	k = tasks_of(ev, n, t);
	tap_ok(k == 1 && t[0].task.user_data == 1 && t[0].seq == 1 && !t[0].pred,
	       "without TQ_ATTACH_F_CHAINS the scheduler gets the head only (%d tasks)", k);
	sched_complete(&s, &t[0], 0, 0);
	n = sched_collect(&s, ev, 16, 3, 500);
	k = tasks_of(ev, n, t);
	tap_ok(k == 1 && t[0].task.user_data == 2 && t[0].seq == 2 && !t[0].pred &&
	       (t[0].task.flags & TQ_DESC_F_AFTER) && t[0].task.after == 1,
	       "its successor is held until the head completes, then delivered (%d)", k);
	sched_complete(&s, &t[0], -EIO, 0);
	got = client_wait(&c, cqe, 8, 3, 2000);
	e1 = cqe_of(cqe, got, 1);
	e2 = cqe_of(cqe, got, 2);
	e3 = cqe_of(cqe, got, 3);
	tap_ok(got == 3 && e1 && !e1->status && e2 && e2->status == -EIO && e3 &&
	       e3->status == -ECANCELED && !e3->start_ns,
	       "the second fails (-EIO): the third completes -ECANCELED, never delivered");
	tap_ok(quiet(s.fd, 100), "and the scheduler hears nothing of it");

	/* A predecessor already completed: nothing to wait for. */
	chained(&desc[0], 4, 1);
	client_submit(&c, desc, 1);
	got = client_wait(&c, cqe, 8, 1, 2000);
	tap_ok(got == 1 && cqe[0].user_data == 4 && cqe[0].status == -ECANCELED,
	       "a task after the cancelled one: -ECANCELED at once");
	raw_task(&desc[0], 5);
	client_submit(&c, desc, 1);
	n = sched_collect(&s, ev, 16, 1, 2000);
	k = tasks_of(ev, n, t);
	if (k == 1)
		sched_complete(&s, &t[0], 0, 0);
	client_wait(&c, cqe, 8, 1, 2000);
	chained(&desc[0], 6, 1);
	client_submit(&c, desc, 1);
	n = sched_collect(&s, ev, 16, 1, 2000);
	k = tasks_of(ev, n, t);
	tap_ok(k == 1 && t[0].task.user_data == 6 && t[0].seq == 6 && !t[0].pred,
	       "a task after one completed with 0 is delivered at once, pred 0");
	if (k == 1)
		sched_complete(&s, &t[0], 0, 0);
	client_wait(&c, cqe, 8, 1, 2000);
	sched_close(&s);

	/* With TQ_ATTACH_F_CHAINS: the chain at once; the unmarked ones requeue in order. */
	raw_task(&desc[0], 7);
	chained(&desc[1], 8, 1);
	chained(&desc[2], 9, 1);
	client_submit(&c, desc, 3);
	if (sched_open_wait_flags(&s, d->ssock, TQ_ATTACH_F_CHAINS)) {
		tap_ok(0, "chains: a scheduler attaches with TQ_ATTACH_F_CHAINS");
		client_close(&c);
		return;
	}
	n = sched_collect(&s, ev, 16, 3, 2000);
	k = tasks_of(ev, n, t);
	tap_ok(k == 3 && t[0].seq == 7 && !t[0].pred && t[1].seq == 8 && t[1].pred == 7 &&
	       t[2].seq == 9 && t[2].pred == 8,
	       "with TQ_ATTACH_F_CHAINS the chain comes at once, each naming its predecessor");
	sched_close(&s);
	if (sched_open_wait_flags(&s, d->ssock, TQ_ATTACH_F_CHAINS)) {
		tap_ok(0, "chains: the next scheduler attaches");
		client_close(&c);
		return;
	}
	n = sched_collect(&s, ev, 16, 3, 2000);
	k = tasks_of(ev, n, t);
	tap_ok(k == 3 && t[0].seq == 7 && t[1].pred == 7 && t[2].pred == 8 &&
	       (t[0].flags & t[1].flags & t[2].flags & TQ_EV_F_REQUEUED),
	       "its successor gets them again, requeued, predecessors first");
	/* The head marked started, then the scheduler dies: the chain is cancelled. */
	if (k == 3)
		sched_mark(&s, &t[0]);
	sched_close(&s);
	got = client_wait(&c, cqe, 8, 3, 2000);
	e1 = cqe_of(cqe, got, 7);
	e2 = cqe_of(cqe, got, 8);
	e3 = cqe_of(cqe, got, 9);
	tap_ok(got == 3 && e1 && e1->status == -EOWNERDEAD && e2 && e2->status == -ECANCELED &&
	       e3 && e3->status == -ECANCELED,
	       "a started head is abandoned (-EOWNERDEAD), its chain cancelled");

	/* Unmarked, to a scheduler without the flag: the head, then the rest in turn. */
	raw_task(&desc[0], 10);
	chained(&desc[1], 11, 1);
	client_submit(&c, desc, 2);
	if (sched_open_wait_flags(&s, d->ssock, TQ_ATTACH_F_CHAINS)) {
		tap_ok(0, "chains: a scheduler attaches");
		client_close(&c);
		return;
	}
	n = sched_collect(&s, ev, 16, 2, 2000);
	sched_close(&s);
	sched_open_wait(&s, d->ssock);
	n = sched_collect(&s, ev, 16, 2, 500);
	k = tasks_of(ev, n, t);
	tap_ok(k == 1 && t[0].task.user_data == 10 && (t[0].flags & TQ_EV_F_REQUEUED),
	       "requeued to a scheduler without the flag: the head only");
	if (k == 1)
		sched_complete(&s, &t[0], 0, 0);
	n = sched_collect(&s, ev, 16, 1, 2000);
	k = tasks_of(ev, n, t);
	tap_ok(k == 1 && t[0].task.user_data == 11 && !t[0].pred,
	       "then its successor once it completed");
	if (k == 1)
		sched_complete(&s, &t[0], 0, 0);
	got = client_wait(&c, cqe, 8, 2, 2000);
	tap_ok(got == 2 && !cqe[0].status && !cqe[1].status, "both complete with 0");
	client_close(&c);
	sched_close(&s);
	usleep(50000);
	tap_ok(balanced(d->csock), "the counters balance");
}

/* Only root (or tqsubmitd's user) attaches; the socket's mode keeps others out first. */
static void test_sched_perm(struct daemon *d)
{
	int p[2], st, path_fd;
	char r[2] = { 0, 0 }, via[32];
	pid_t pid;

	if (getuid()) {
		tap_skip("a non-root scheduler gets EPERM", "not root");
		return;
	}
	if (pipe(p)) {
		tap_ok(0, "scheduler permissions: set up");
		return;
	}
	/*
	 * The child connects through an O_PATH descriptor of the socket, so
	 * that the directories above it (a /tmp of mode 0700, say) do not
	 * matter: the socket's own mode decides.
	 */
	path_fd = open(d->ssock, O_PATH | O_CLOEXEC);
	if (path_fd < 0) {
		tap_ok(0, "scheduler permissions: open the socket's path");
		return;
	}
	snprintf(via, sizeof(via), "/proc/self/fd/%d", path_fd);
	pid = fork();
	if (!pid) {
		struct tq_attach a = { .size = sizeof(a) };
		int fd;

		if (setgid(65534) || setuid(65534))
			_exit(1);
		fd = sock_connect(via);
		r[0] = fd == -EACCES;
		if (fd >= 0)
			close(fd);
		/* Wait for the parent to open the socket's mode. */
		if (read(p[0], &r[1], 1) != 1)
			_exit(1);
		fd = sock_connect(via);
		r[1] = fd >= 0 && cmd(fd, TQ_IOC_ATTACH, &a, sizeof(a)) == -EPERM;
		_exit(r[0] | r[1] << 1);
	}
	usleep(100000);
	chmod(d->ssock, 0666);
	if (write(p[1], "x", 1) != 1)
		return;
	waitpid(pid, &st, 0);
	chmod(d->ssock, 0600);
	close(path_fd);
	close(p[0]);
	close(p[1]);
	tap_ok(WIFEXITED(st) && (WEXITSTATUS(st) & 1), "uid 65534: the scheduler socket (0600) refuses "
	       "it (EACCES)");
	tap_ok(WIFEXITED(st) && (WEXITSTATUS(st) & 2), "and with the socket open to it, ATTACH: EPERM");
}

/* A client's eventfd at its maximum and blocking stalls nobody else. */
static void test_hostile_efd(struct daemon *d)
{
	struct client bad, good;
	struct tq_desc desc[8];
	struct tq_event ev[32];
	struct tq_cqe cqe[16];
	uint64_t max = 0xfffffffffffffffeull;
	struct sched s;
	long long ctxs = stat_of(d->csock, "contexts");
	int i, n, got, fl, ret;

	if (sched_open_wait(&s, d->ssock) || client_open(&bad, d->csock, 8, 0, 4096, -2) ||
	    client_open(&good, d->csock, 8, 0, 4096, -2)) {
		tap_ok(0, "hostile eventfd: set up");
		return;
	}
	fl = fcntl(bad.efd, F_GETFL);
	fcntl(bad.efd, F_SETFL, fl & ~O_NONBLOCK);
	tap_ok(write(bad.efd, &max, 8) == 8, "the hostile client's eventfd: counter at its maximum, "
	       "blocking");
	sched_collect(&s, ev, 32, 0, 200);
	for (int round = 0; round < 3; round++) {
		for (i = 0; i < 8; i++)
			raw_nop(&desc[i], i);
		client_submit(&bad, desc, 8);
		client_submit(&good, desc, 8);
		n = sched_collect(&s, ev, 32, 16, 2000);
		for (i = 0; i < n; i++)
			if (ev[i].type == TQ_EV_TASK)
				sched_complete(&s, &ev[i], 0, 0);
		got = client_wait(&good, cqe, 16, 8, 2000);
		client_reap(&bad, cqe + 8, 8);
		if (got != 8)
			break;
	}
	tap_ok(got == 8, "the other client's completions and eventfd keep coming (3 rounds)");
	{
		struct pollfd pf = { .fd = good.efd, .events = POLLIN };

		for (i = 0; i < 8; i++)
			raw_nop(&desc[i], i);
		client_submit(&good, desc, 8);
		n = sched_collect(&s, ev, 32, 8, 2000);
		for (i = 0; i < n; i++)
			if (ev[i].type == TQ_EV_TASK)
				sched_complete(&s, &ev[i], 0, 0);
		tap_ok(poll(&pf, 1, 2000) == 1, "the other client's eventfd is signalled");
		client_wait(&good, cqe, 16, 8, 2000);
	}
	tap_ok(stat_of(d->csock, "contexts") >= 2, "tqsubmitd answers at once");
	{
		struct pollfd pf = { .fd = bad.efd, .events = POLLIN };
		uint64_t v = 0, w = 0;

		fcntl(bad.efd, F_SETFL, fl | O_NONBLOCK);
		tap_ok(read(bad.efd, &v, 8) == 8 && v == max,
		       "the hostile counter is untouched: tqsubmitd's write waits");
		usleep(100000);
		ret = poll(&pf, 1, 2000) == 1 && read(bad.efd, &w, 8) == 8;
		/* The write that waited, and at most one for the signals meanwhile. */
		tap_ok(ret && (w == 1 || w == 2),
		       "once it is read, the waiting signal arrives, the later ones coalesced (%llu)",
		       (unsigned long long)w);
		w = max;
		fcntl(bad.efd, F_SETFL, fl & ~O_NONBLOCK);
		if (write(bad.efd, &w, 8) != 8)
			tap_diag("could not fill the counter again");
		for (i = 0; i < 8; i++)
			raw_nop(&desc[i], i);
		client_submit(&bad, desc, 8);
		n = sched_collect(&s, ev, 32, 8, 2000);
		for (i = 0; i < n; i++)
			if (ev[i].type == TQ_EV_TASK)
				sched_complete(&s, &ev[i], 0, 0);
		usleep(100000);
	}
	/* Its eventfd write still waits: closing it cancels that, and frees the context. */
	client_close(&bad);
	client_close(&good);
	sched_close(&s);
	for (i = 0; i < 100 && stat_of(d->csock, "contexts") != ctxs; i++)
		usleep(10000);
	tap_ok(stat_of(d->csock, "contexts") == ctxs,
	       "the hostile client gone, its context is freed (its stuck eventfd write cancelled)");
	tap_ok(daemon_alive(d) && balanced(d->csock), "the counters balance");
}

/*
 * A scheduler that stops reading: events wait for room, nothing is lost,
 * and tqsubmitd still answers.
 */
static void test_sched_stalled(struct daemon *d)
{
	enum { NC = 40, NT = 1024 };	/* 13 MB of events: past the socket's 8 MB */
	static struct client c[NC];
	static struct tq_desc desc[NT];
	static struct tq_event ev[TQ_SOCK_EVENTS_MAX];
	static struct tq_cqe cqe[NT];
	long long st0 = stat_of(d->csock, "stalled_sends");
	int i, k, tasks = 0, opens = 0, got = 0, fds[TQ_SOCK_EVENTS_MAX], nf;
	struct sched s;
	uint64_t t0;

	if (sched_open_wait(&s, d->ssock)) {
		tap_ok(0, "stalled scheduler: a scheduler attaches");
		return;
	}
	for (i = 0; i < NC; i++)
		if (client_open(&c[i], d->csock, NT, 0, 4096, -2))
			break;
	tap_ok(i == NC, "%d clients of %d-entry rings", NC, NT);
	for (k = 0; k < NT; k++)
		raw_nop(&desc[k], k);
	for (i = 0; i < NC; i++)
		client_submit(&c[i], desc, NT);
	for (i = 0; i < 300 && stat_of(d->csock, "stalled_sends") == st0; i++)
		usleep(10000);
	tap_ok(stat_of(d->csock, "stalled_sends") > st0,
	       "%d tasks to a scheduler that reads nothing: the events wait for room", NC * NT);
	t0 = tq_now_ns();
	tap_ok(stat_of(d->csock, "contexts") >= NC && tq_now_ns() - t0 < 1000000000ull,
	       "tqsubmitd answers meanwhile");
	/* Now read them all, completing as they come. */
	while (tasks < NC * NT) {
		ssize_t len = recv_raw(s.fd, ev, sizeof(ev), fds, TQ_SOCK_EVENTS_MAX, &nf, 3000);
		struct tq_completion cm[TQ_SOCK_EVENTS_MAX];
		int n = 0;

		if (len <= 0)
			break;
		for (k = 0; k < nf; k++)
			close(fds[k]);
		for (k = 0; k < (int)(len / sizeof(ev[0])); k++) {
			opens += ev[k].type == TQ_EV_OPEN;
			if (ev[k].type != TQ_EV_TASK)
				continue;
			tasks++;
			cm[n++] = (struct tq_completion){ .ctx_id = ev[k].ctx_id, .tag = ev[k].tag };
		}
		if (n)
			sched_write(&s, cm, n);
	}
	tap_ok(tasks == NC * NT && opens == NC, "then every event arrives: %d OPENs, %d TASKs", opens,
	       tasks);
	for (i = 0; i < NC; i++)
		got += client_wait(&c[i], cqe, NT, NT, 3000);
	tap_ok(got == NC * NT, "and every task completes (%d)", got);
	for (i = 0; i < NC; i++)
		client_close(&c[i]);
	sched_close(&s);
	usleep(100000);
	tap_ok(balanced(d->csock), "the counters balance");
}

/* A client that floods commands and never reads its replies stalls only itself. */
static void test_no_reader(struct daemon *d)
{
	struct tq_query q = { .size = sizeof(q) };
	unsigned char buf[8 + sizeof(q)];
	struct tq_sock_msg h = { .cmd = TQ_IOC_QUERY };
	long long st0 = stat_of(d->csock, "stalled_sends");
	int fd = sock_connect(d->csock), other, sent = 0, i;
	uint64_t t0;

	memcpy(buf, &h, 8);
	memcpy(buf + 8, &q, sizeof(q));
	/* Until tqsubmitd's replies fill this socket and its own requests queue up. */
	for (i = 0; i < 200 && stat_of(d->csock, "stalled_sends") == st0; i++) {
		while (send(fd, buf, sizeof(buf), MSG_DONTWAIT | MSG_NOSIGNAL) == (ssize_t)sizeof(buf))
			sent++;
		usleep(10000);
	}
	tap_ok(stat_of(d->csock, "stalled_sends") > st0,
	       "a client sends QUERYs and reads nothing: a reply that does not fit waits (%d sent)",
	       sent);
	other = sock_connect(d->csock);
	t0 = tq_now_ns();
	q.size = sizeof(q);
	tap_ok(!cmd(other, TQ_IOC_QUERY, &q, sizeof(q)) && tq_now_ns() - t0 < 1000000000ull,
	       "another client is answered at once");
	{
		int got = 0;
		unsigned char r[64];

		while (recv_raw(fd, r, sizeof(r), NULL, 0, NULL, 500) == 8 + (ssize_t)sizeof(q))
			got++;
		tap_ok(got == sent, "once it reads, every reply comes, in order (%d of %d)", got,
		       sent);
	}
	close(fd);
	close(other);
	tap_ok(daemon_alive(d), "tqsubmitd lives on");
}

/* The daemon's pid, as its socket says (SO_PEERCRED of a connection). */
static pid_t server_pid(const char *path)
{
	struct ucred cr = { 0 };
	socklen_t len = sizeof(cr);
	int fd = sock_connect(path);

	if (fd < 0)
		return -1;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len))
		cr.pid = -1;
	close(fd);
	return cr.pid;
}

/*
 * Descriptors sent with every kind of message tqsubmitd does not keep them
 * for: an empty message as the client hangs up, a short one, an unknown
 * command, one cut short (MSG_TRUNC), more descriptors than it reads
 * (MSG_CTRUNC). It closes every one: its descriptors come back to where
 * they were.
 */
static void test_fd_flood(struct daemon *d)
{
	enum { ROUNDS = 40, KINDS = 6 };
	static unsigned char big[4096 + 8 + 64];
	struct tq_sock_msg unknown = { .cmd = _IOWR(TQ_IOC_MAGIC, 0x3f, struct tq_query) };
	struct tq_query q = { .size = sizeof(q) };
	int fds[8], probe, base, after, peak = 0, sent = 0, i, k;

	for (i = 0; i < 8; i++)
		fds[i] = eventfd(0, EFD_CLOEXEC);
	probe = sock_connect(d->csock);
	/* Running, its probe connection open: the baseline. */
	if (fds[7] < 0 || probe < 0 || cmd(probe, TQ_IOC_QUERY, &q, sizeof(q))) {
		tap_ok(0, "descriptor flood: set up");
		return;
	}
	base = raw_fd_count(d->pid);
	memcpy(big, &unknown, sizeof(unknown));
	for (i = 0; i < ROUNDS; i++) {
		for (k = 0; k < KINDS; k++) {
			int fd = sock_connect(d->csock);

			if (fd < 0)
				continue;
			switch (k) {
			case 0:	/* empty, and the client gone at once */
				sent += !send_raw(fd, NULL, 0, fds, 3);
				break;
			case 1:	/* shorter than a head */
				sent += !send_raw(fd, "abc", 3, fds, 3);
				break;
			case 2:	/* an unknown command */
				sent += !send_raw(fd, &unknown, sizeof(unknown), fds, 3);
				break;
			case 3:	/* longer than tqsubmitd reads */
				sent += !send_raw(fd, big, sizeof(big), fds, 3);
				break;
			case 4:	/* more descriptors than it reads */
				sent += !send_raw(fd, &unknown, sizeof(unknown), fds, 8);
				break;
			case 5:	/* all of them on one connection, then an empty one */
				sent += !send_raw(fd, "abc", 3, fds, 3);
				sent += !send_raw(fd, &unknown, sizeof(unknown), fds, 4);
				sent += !send_raw(fd, big, sizeof(big), fds, 2);
				sent += !send_raw(fd, &unknown, sizeof(unknown), fds, 8);
				sent += !send_raw(fd, NULL, 0, fds, 1);
				break;
			}
			close(fd);
		}
		k = raw_fd_count(d->pid);
		if (k > peak)
			peak = k;
		/* Within the per-user connection limit: let it read these first. */
		conns_wait(d->csock, 2, 5000);
	}
	after = fd_count_wait(d->pid, base, 5000);
	tap_diag("tqsubmitd's descriptors: %d before, at most %d seen during, %d after %d messages "
		 "with descriptors", base, peak, after, sent);
	tap_ok(sent >= ROUNDS * 10 && after == base,
	       "a flood of %d messages with descriptors: tqsubmitd's descriptors back to %d (%d)",
	       sent, base, after);
	tap_ok(!cmd(probe, TQ_IOC_QUERY, &q, sizeof(q)) && balanced(d->csock),
	       "and it answers, its counters balanced");
	close(probe);
	for (i = 0; i < 8; i++)
		close(fds[i]);
}

/* The lowest descriptor number pid does not hold: a limit there lets it open none. */
static int fd_lowest_free(pid_t pid)
{
	char path[64];
	int fd;

	for (fd = 0;; fd++) {
		snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)pid, fd);
		if (access(path, F_OK))
			return fd;
	}
}

/*
 * A scheduler that reads slowly while tqsubmitd can open no descriptor: it
 * attaches to many contexts with tasks waiting, so that the OPEN events,
 * each with its context's arena, run past the room in its socket, and the
 * batch that waits for room cannot keep copies of them (EMFILE). The
 * scheduler is detached, not left without events; once the limit is lifted
 * it attaches again, and every task completes once.
 */
static void test_sched_emfile(void)
{
	static const char *const many[] = { "--contexts-per-user", "0", "--connections-per-user",
					    "0", NULL };
	enum { NC = 1000, NT = 32, TOTAL = NC * NT };
	static struct client c[NC];
	static struct tq_desc desc[NT];
	static struct tq_cqe cqe[NT];
	static struct tq_event ev[TQ_SOCK_EVENTS_MAX];
	struct tq_completion cm[TQ_SOCK_EVENTS_MAX];
	int i, k, got = 0, done = 0, detached = 0, nf, fds[TQ_SOCK_EVENTS_MAX];
	struct rlimit full, old, mine;
	struct daemon d;
	struct sched s = { .fd = -1 };
	uint64_t end;

	/* Three descriptors a client here. */
	if (!getrlimit(RLIMIT_NOFILE, &mine) && mine.rlim_cur < 4 * NC && mine.rlim_max >= 4 * NC) {
		mine.rlim_cur = 4 * NC;
		setrlimit(RLIMIT_NOFILE, &mine);
	}
	if (getrlimit(RLIMIT_NOFILE, &mine) || mine.rlim_cur < 4 * NC) {
		tap_skip("a scheduler of a tqsubmitd out of descriptors", "RLIMIT_NOFILE below %d",
			 4 * NC);
		return;
	}
	if (daemon_start(&d, "r", many)) {
		tap_ok(0, "EMFILE scheduler: tqsubmitd starts");
		return;
	}
	for (k = 0; k < NT; k++)
		raw_nop(&desc[k], k);
	for (i = 0; i < NC; i++) {
		if (client_open(&c[i], d.csock, NT, 0, 4096, -1))
			break;
		client_submit(&c[i], desc, NT);
	}
	if (i < NC) {
		tap_ok(0, "EMFILE scheduler: %d contexts with %d tasks each (%d)", NC, NT, i);
		return;
	}
	/* Room for the scheduler's connection and no more (the lowest free first). */
	full.rlim_cur = full.rlim_max = fd_lowest_free(d.pid) + 1;
	if (prlimit(d.pid, RLIMIT_NOFILE, &full, &old)) {
		tap_ok(0, "EMFILE scheduler: prlimit: %s", strerror(errno));
		return;
	}
	if (sched_open(&s, d.ssock)) {
		tap_ok(0, "EMFILE scheduler: attaches under the limit");
		return;
	}
	end = tq_now_ns() + 60000000000ull;
	while (done < TOTAL && tq_now_ns() < end) {
		ssize_t len = recv_raw(s.fd, ev, sizeof(ev), fds, TQ_SOCK_EVENTS_MAX, &nf, 3000);
		int n = 0;

		if (len == -ETIMEDOUT)
			break;
		for (k = 0; k < nf; k++)
			close(fds[k]);
		if (len <= 0) {
			/* Detached: the cause goes, and it attaches again. */
			detached++;
			sched_close(&s);
			prlimit(d.pid, RLIMIT_NOFILE, &old, NULL);
			for (k = 0; k < 1000 && sched_open(&s, d.ssock); k++)
				usleep(10000);
			if (s.fd < 0)
				break;
			continue;
		}
		for (k = 0; k < (int)(len / sizeof(ev[0])); k++)
			if (ev[k].type == TQ_EV_TASK)
				cm[n++] = (struct tq_completion){ .ctx_id = ev[k].ctx_id,
								  .tag = ev[k].tag };
		/* A completion that does not get there is requeued, and comes again. */
		if (n && !sched_write(&s, cm, n))
			done += n;
		if (!detached)
			usleep(1000);	/* slowly, while the limit holds */
	}
	prlimit(d.pid, RLIMIT_NOFILE, &old, NULL);
	tap_ok(detached > 0, "a slow scheduler of a tqsubmitd out of descriptors is detached, "
	       "not left without events (%d times)", detached);
	tap_ok(done == TOTAL, "it attaches again, and every task is delivered, requeued if lost "
	       "(%d of %d)", done, TOTAL);
	/* (Not long, if tasks are lost: a thousand clients wait.) */
	for (i = 0; i < NC; i++)
		got += client_wait(&c[i], cqe, NT, NT, done == TOTAL ? 3000 : 1);
	tap_ok(got == TOTAL, "and every task completes at its client once (%d)", got);
	for (i = 0; i < NC; i++)
		client_close(&c[i]);
	sched_close(&s);
	conns_wait(d.csock, 1, 5000);
	tap_ok(balanced(d.csock), "the counters balance");
	daemon_stop(&d);
}

/*
 * --connections-per-user: the connection past it gets one message, a
 * reply to no command with -EUSERS, and its end; 0 is no limit.
 */
static void test_conn_limit(void)
{
	static const char *const three[] = { "--connections-per-user", "3", NULL };
	static const char *const none[] = { "--connections-per-user", "0", "--contexts-per-user",
					    "0", NULL };
	enum { NCONN = 200, NCTX = 70 };
	static int fd[NCONN];
	static struct client c[NCTX];
	struct tq_query q = { .size = sizeof(q) };
	struct tq_sock_msg h = { 0 };
	struct daemon d;
	int i, ok = 0, ret = -1;
	ssize_t n, end;

	if (daemon_start(&d, "l", three)) {
		tap_ok(0, "tqsubmitd --connections-per-user 3 starts");
		return;
	}
	for (i = 0; i < 3; i++) {
		fd[i] = sock_connect(d.csock);
		ok += fd[i] >= 0 && !cmd(fd[i], TQ_IOC_QUERY, &q, sizeof(q));
	}
	tap_ok(ok == 3, "--connections-per-user 3: 3 connections of one user answered");
	fd[3] = sock_connect(d.csock);
	n = recv_raw(fd[3], &h, sizeof(h), NULL, 0, NULL, 2000);
	end = n == sizeof(h) ? recv_raw(fd[3], &h.cmd, sizeof(h.cmd), NULL, 0, NULL, 2000) : -1;
	tap_ok(n == sizeof(h) && h.cmd == 0 && h.status == -EUSERS && end == 0,
	       "a 4th gets a reply to no command, -EUSERS, and its end (%zd %d %zd)", n, h.status,
	       end);
	close(fd[3]);
	close(fd[0]);
	/* Once tqsubmitd has read the first one's end, a new one is answered. */
	for (i = 0; i < 200 && ret; i++) {
		fd[0] = sock_connect(d.csock);
		ret = fd[0] < 0 ? fd[0] : cmd(fd[0], TQ_IOC_QUERY, &q, sizeof(q));
		if (ret) {
			close(fd[0]);
			usleep(10000);
		}
	}
	tap_ok(!ret, "after one closes, another connection is answered");
	for (i = 0; i < 3; i++)
		close(fd[i]);
	daemon_stop(&d);

	if (daemon_start(&d, "u", none)) {
		tap_ok(0, "tqsubmitd --connections-per-user 0 --contexts-per-user 0 starts");
		return;
	}
	for (i = 0, ok = 0; i < NCONN; i++) {
		fd[i] = sock_connect(d.csock);
		ok += fd[i] >= 0 && !cmd(fd[i], TQ_IOC_QUERY, &q, sizeof(q));
	}
	tap_ok(ok == NCONN, "--connections-per-user 0: %d connections of one user answered (%d)",
	       NCONN, ok);
	for (i = 0, ok = 0; i < NCTX; i++)
		ok += !client_open(&c[i], d.csock, 4, 0, 4096, -1);
	tap_ok(ok == NCTX && q.max_contexts == 0,
	       "--contexts-per-user 0: %d contexts of one user (%d), max_contexts 0", NCTX, ok);
	for (i = 0; i < NCTX; i++)
		client_close(&c[i]);
	for (i = 0; i < NCONN; i++)
		close(fd[i]);
	daemon_stop(&d);
}

/* Bad options and paths: clear errors, nothing served. */
static void test_options(void)
{
	static const struct {
		const char *args;
		int status;
	} cases[] = {
		{ "--group no-such-group-here", 2 },
		{ "--socket-mode 999", 2 },
		{ "--ring-entries-max 0", 2 },
		{ "--arena-bytes-max 12Q", 2 },
		{ "--inflight-max -1", 2 },
		{ "--connections-per-user many", 2 },
		{ "--no-such-option", 2 },
		{ "extra-argument", 2 },
	};
	char cmdline[512], file[128];
	int rc;

	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(cmdline, sizeof(cmdline), "%s --foreground --socket %s/o/c.sock "
			 "--sched-socket %s/o/s.sock %s 2>/dev/null", TQSUBMITD_BIN, dir, dir,
			 cases[i].args);
		rc = system(cmdline);
		tap_ok(WIFEXITED(rc) && WEXITSTATUS(rc) == cases[i].status,
		       "%s: exit status %d", cases[i].args, cases[i].status);
	}
	snprintf(file, sizeof(file), "%s/not-a-socket", dir);
	close(open(file, O_CREAT | O_WRONLY, 0644));
	snprintf(cmdline, sizeof(cmdline), "%s --foreground --socket %s --sched-socket %s/o/s.sock "
		 "2>/dev/null", TQSUBMITD_BIN, file, dir);
	rc = system(cmdline);
	tap_ok(WIFEXITED(rc) && WEXITSTATUS(rc) == 1 && !access(file, F_OK),
	       "a client socket path that is a file: exit status 1, the file left alone");
	snprintf(cmdline, sizeof(cmdline), "%s --foreground --socket %s/o/same.sock "
		 "--sched-socket %s/o/same.sock 2>/dev/null", TQSUBMITD_BIN, dir, dir);
	rc = system(cmdline);
	tap_ok(WIFEXITED(rc) && WEXITSTATUS(rc) == 2, "the same path for both sockets: exit status 2");
}

/* --group: the client socket's group. */
static void test_group(void)
{
	struct daemon g;
	const char *const args[] = { "--group", "daemon", "--socket-mode", "0666", NULL };
	struct stat st = { 0 };

	struct group *gr = getgrnam("daemon");

	if (getuid() || !gr) {
		tap_skip("--group gives the client socket to a group", "not root, or no group daemon");
		return;
	}
	if (daemon_start(&g, "g", args)) {
		tap_ok(0, "--group daemon: tqsubmitd starts");
		return;
	}
	stat(g.csock, &st);
	tap_ok(st.st_gid == gr->gr_gid && (st.st_mode & 0777) == 0666,
	       "--group daemon --socket-mode 0666: the client socket's group and mode (%u %o)",
	       (unsigned int)st.st_gid, st.st_mode & 0777);
	daemon_stop(&g);
}

/* Without --foreground: the command returns once the sockets serve. */
static void test_daemonize(void)
{
	char cmdline[512], c[128], sc[128];
	struct tq_query q = { .size = sizeof(q) };
	pid_t pid;
	int rc, fd;

	snprintf(c, sizeof(c), "%s/bg/tqsubmit.sock", dir);
	snprintf(sc, sizeof(sc), "%s/bg/sched.sock", dir);
	snprintf(cmdline, sizeof(cmdline), "%s --socket %s --sched-socket %s 2>/dev/null",
		 TQSUBMITD_BIN, c, sc);
	rc = system(cmdline);
	fd = sock_connect(c);
	tap_ok(WIFEXITED(rc) && !WEXITSTATUS(rc) && fd >= 0 && !cmd(fd, TQ_IOC_QUERY, &q, sizeof(q)),
	       "without --foreground: exits 0 once it serves (the socket answers at once)");
	if (fd >= 0)
		close(fd);
	pid = server_pid(c);
	tap_ok(pid > 0 && pid != getpid() && !kill(pid, SIGTERM), "and runs on, detached (pid %d)",
	       (int)pid);
	for (int i = 0; i < 200 && !kill(pid, 0); i++)
		usleep(10000);
	tap_ok(access(c, F_OK) && access(sc, F_OK), "SIGTERM: it exits and removes its sockets");
}

/* Sockets passed by systemd (LISTEN_FDS), through systemd-socket-activate. */
static void test_socket_activation(void)
{
	char c[128], sc[128];
	struct tq_query q = { .size = sizeof(q) };
	struct sched s;
	pid_t pid;
	int fd, i, st;

	if (access("/usr/bin/systemd-socket-activate", X_OK)) {
		tap_skip("sockets passed by systemd", "no systemd-socket-activate");
		return;
	}
	snprintf(c, sizeof(c), "%s/sa/tqsubmit.sock", dir);
	snprintf(sc, sizeof(sc), "%s/sa/sched.sock", dir);
	{
		char d[128];

		snprintf(d, sizeof(d), "%s/sa", dir);
		mkdir(d, 0755);
	}
	pid = fork();
	if (!pid) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 2);
		execl("/usr/bin/systemd-socket-activate", "systemd-socket-activate", "--seqpacket",
		      "-l", c, "-l", sc, TQSUBMITD_BIN, "--foreground", "--socket", c,
		      "--sched-socket", sc, (char *)NULL);
		_exit(127);
	}
	for (i = 0; i < 500 && (access(c, F_OK) || access(sc, F_OK)); i++)
		usleep(10000);
	fd = sock_connect(c);
	tap_ok(fd >= 0 && !cmd(fd, TQ_IOC_QUERY, &q, sizeof(q)) && (q.features & TQ_FEAT_SOCKET),
	       "sockets passed by systemd (LISTEN_FDS): the first connection is served");
	tap_ok(!sched_open(&s, sc), "and the scheduler's socket is told apart by its path");
	sched_close(&s);
	if (fd >= 0)
		close(fd);
	kill(pid, SIGTERM);
	waitpid(pid, &st, 0);
	tap_ok(WIFEXITED(st) && !WEXITSTATUS(st), "SIGTERM: exit status 0");
}

int main(void)
{
	static const char *const small[] = { "--contexts-per-user", "4", "--user-bytes-max", "1200K",
					     "--inflight-max", "4", "--ring-entries-max", "64",
					     NULL };
	struct daemon a, b;
	int st;

	snprintf(dir, sizeof(dir), "/tmp/tqsubmitd-test.XXXXXX");
	if (!mkdtemp(dir))
		tap_skip_all("no temporary directory");
	if (getenv("TQSUBMITD") && *getenv("TQSUBMITD"))
		tqd_bin = getenv("TQSUBMITD");
	signal(SIGPIPE, SIG_IGN);
	if (daemon_start(&a, "a", NULL)) {
		tap_ok(0, "tqsubmitd starts and makes its sockets");
		return tap_done();
	}
	tap_ok(1, "tqsubmitd starts and makes its sockets");
	{
		struct stat sc = { 0 }, ss = { 0 };

		stat(a.csock, &sc);
		stat(a.ssock, &ss);
		tap_ok((sc.st_mode & 0777) == 0660 && (ss.st_mode & 0777) == 0600,
		       "client socket 0660, scheduler socket 0600 (%o %o)", sc.st_mode & 0777,
		       ss.st_mode & 0777);
	}
	{
		struct daemon dup = a;
		char out[512];
		int rc;

		snprintf(out, sizeof(out), "%s --foreground --socket %s --sched-socket %s/a/x.sock "
			 "2>/dev/null", TQSUBMITD_BIN, a.csock, dir);
		rc = system(out);
		tap_ok(WIFEXITED(rc) && WEXITSTATUS(rc) == 1,
		       "a second tqsubmitd on a served socket refuses to start");
		(void)dup;
	}
	test_query(&a);
	test_setup(&a);
	test_descriptors(&a);
	test_qos(&a);
	test_broken(&a);
	test_enter(&a);
	test_client_killed(&a);
	test_sched_killed(&a);
	test_chains(&a);
	test_sched_perm(&a);
	test_hostile_efd(&a);
	test_no_reader(&a);
	test_sched_stalled(&a);
	st = daemon_stop(&a);
	tap_ok(st == 0, "SIGTERM: tqsubmitd exits 0 (%d)", st);
	{
		struct stat sb;

		tap_ok(stat(a.csock, &sb) && stat(a.ssock, &sb), "and removes its sockets");
	}

	if (daemon_start(&b, "f", NULL)) {
		tap_ok(0, "tqsubmitd for the descriptor flood starts");
	} else {
		test_fd_flood(&b);
		daemon_stop(&b);
	}
	test_conn_limit();
	test_sched_emfile();
	test_options();
	test_group();
	test_daemonize();
	test_socket_activation();
	if (daemon_start(&b, "b", small)) {
		tap_ok(0, "tqsubmitd with small limits starts");
	} else {
		test_limits(&b);
		daemon_stop(&b);
	}
	{
		char cmdline[256];

		snprintf(cmdline, sizeof(cmdline), "rm -rf %s", dir);
		if (system(cmdline))
			tap_diag("could not remove %s", dir);
	}
	return tap_done();
}
