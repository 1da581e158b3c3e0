// SPDX-License-Identifier: GPL-2.0
/*
 * libtq's choice of transport and its socket side, natively, without the
 * module or tqsubmitd: a thread here plays a server of the socket protocol
 * (include/uapi/linux/tqsubmit.h, "The socket transport") that answers
 * well, or wrongly on purpose, or dies. Checks: the tq_open() flags and
 * TQ_TRANSPORT, the errors when neither transport is there (a message that
 * names both), a server of another ABI or one that sends no memfds, a
 * working context over the socket (doorbell messages, completions through
 * the memfd rings), and tq_wait()/tq_enter() when the server dies.
 */
#include <dirent.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "selftests/tap.h"
#include "internal.h"
#include "tq_transport.h"

enum mode { GOOD, BAD_ABI, NO_FDS, FULL };

#define SQ_N	16
#define CQ_N	32
#define RINGS	(2 * 65536)

static char dir[64], path[128];
static enum mode mode;
static int lfd;
static unsigned int enters;

static int nr_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	while (d && readdir(d))
		n++;
	if (d)
		closedir(d);
	return n;
}

static void reply(int c, unsigned int cmd, int status, const void *arg, size_t len,
		  const int *fds, unsigned int nfds)
{
	struct tq_sock_msg h = { .cmd = cmd, .status = status };

	tqt_send(c, &h, arg, len, fds, nfds, 0);
}

/* One client's connection: QUERY, SETUP, then doorbells, until @die_after of them. */
static void serve(int c)
{
	static union tqt_rights ctl;
	char buf[512];
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr m;
	struct tq_sock_msg h;
	void *rings = NULL;
	int efd = -1, fds[TQT_MAX_FDS];
	unsigned int nfds;
	ssize_t n;

	for (;;) {
		m = (struct msghdr){ .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
				     .msg_controllen = sizeof(ctl.buf) };
		n = recvmsg(c, &m, 0);
		if (n < (ssize_t)sizeof(h))
			break;
		nfds = tqt_cmsg_fds(&m, fds, TQT_MAX_FDS);
		memcpy(&h, buf, sizeof(h));
		if (h.cmd == TQ_IOC_QUERY) {
			struct tq_query q = { .size = sizeof(q), .features = TQ_FEAT_SOCKET |
					      TQ_FEAT_NEED_WAKEUP, .abi_version = TQ_ABI_VERSION,
					      .desc_size = sizeof(struct tq_desc),
					      .cqe_size = sizeof(struct tq_cqe) };

			if (mode == BAD_ABI)
				q.abi_version = 99;
			reply(c, h.cmd, 0, &q, sizeof(q), NULL, 0);
		} else if (h.cmd == TQ_IOC_SETUP) {
			struct tq_setup s;
			int mfd[2];

			memcpy(&s, buf + sizeof(h), sizeof(s));
			efd = nfds ? fds[0] : -1;
			s.sq_entries = SQ_N;
			s.cq_entries = CQ_N;
			s.arena_bytes = 4096;
			s.ctx_id = 7;
			s.max_inflight = SQ_N;
			s.features = TQ_FEAT_SOCKET | TQ_FEAT_NEED_WAKEUP;
			s.sq_off = (struct tq_ring_offsets){ 0, 65536, 0, 64, 128, 256 };
			s.cq_off = (struct tq_ring_offsets){ 65536, 65536, 0, 64, 128, 256 };
			s.arena_offset = 0;
			mfd[0] = memfd_create("rings", MFD_CLOEXEC);
			mfd[1] = memfd_create("arena", MFD_CLOEXEC);
			if (ftruncate(mfd[0], RINGS) || ftruncate(mfd[1], 4096))
				break;
			rings = mmap(NULL, RINGS, PROT_READ | PROT_WRITE, MAP_SHARED, mfd[0], 0);
			*(unsigned int *)((char *)rings + 128) = TQ_RING_NEED_WAKEUP;
			reply(c, h.cmd, 0, &s, sizeof(s), mfd, mode == NO_FDS ? 0 : 2);
			close(mfd[0]);
			close(mfd[1]);
		} else if (h.cmd == TQ_IOC_ENTER && rings) {
			/* complete every descriptor at once; user_data 666 kills the server */
			unsigned int *sp = rings, *sc = (void *)((char *)rings + 64);
			unsigned int *cp = (void *)((char *)rings + 65536);
			struct tq_desc *d = (void *)((char *)rings + 256);
			struct tq_cqe *q = (void *)((char *)rings + 65536 + 256);
			uint64_t one = 1;
			bool die = false;

			enters++;
			while (*sc != __atomic_load_n(sp, __ATOMIC_ACQUIRE)) {
				struct tq_cqe *e = &q[*cp & (CQ_N - 1)];

				memset(e, 0, sizeof(*e));
				e->user_data = d[*sc & (SQ_N - 1)].user_data;
				die |= e->user_data == 666;
				__atomic_store_n(sc, *sc + 1, __ATOMIC_RELEASE);
				__atomic_store_n(cp, *cp + 1, __ATOMIC_RELEASE);
			}
			if (write(efd, &one, sizeof(one)) != sizeof(one) || die)
				break;
		}
	}
	if (rings)
		munmap(rings, RINGS);
	if (efd >= 0)
		close(efd);
	close(c);
}

static void *server(void *arg)
{
	int c;

	(void)arg;
	while ((c = accept(lfd, NULL, NULL)) >= 0) {
		/* as tqsubmitd refuses a user over --connections-per-user */
		if (mode == FULL) {
			reply(c, 0, -EUSERS, NULL, 0, NULL, 0);
			close(c);
			continue;
		}
		serve(c);
	}
	return NULL;
}

static int listen_at(const char *p, bool listening)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	strcpy(sa.sun_path, p);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || (listening && listen(fd, 4)))
		return -1;
	return fd;
}

static int nop(struct tq *tq, uint64_t ud)
{
	struct tq_desc *d = tq_get_desc(tq);

	if (!d)
		return -1;
	tq_prep_nop(d);
	tq_desc_set_data(d, ud);
	return tq_submit(tq);
}

int main(void)
{
	struct tq tq;
	struct tq_cqe *cqe;
	const char *msg;
	pthread_t th;
	int ret, fd0, i, ok;
	char stale[160];

	strcpy(dir, "/tmp/libtq-transport.XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/tqsubmit.sock", dir);

	tap_ok(tq_open(&tq, 8, 4096, TQ_OPEN_MODULE | TQ_OPEN_SOCKET) == -EINVAL && tq.fd == -1,
	       "tq_open: TQ_OPEN_MODULE | TQ_OPEN_SOCKET is -EINVAL");
	tap_ok(tq_open(&tq, 8, 4096, 1U << 7) == -EINVAL, "tq_open: an unknown flag is -EINVAL");
	setenv("TQ_TRANSPORT", "bogus", 1);
	ret = tq_open(&tq, 8, 4096, 0);
	tap_ok(ret == -EINVAL && strstr(tq_strerror(ret), "TQ_TRANSPORT"),
	       "TQ_TRANSPORT=bogus: -EINVAL, %s", tq_strerror(ret));

	setenv("TQ_TRANSPORT", "socket", 1);
	setenv("TQ_SOCKET", path, 1);
	ret = tq_open(&tq, 8, 4096, 0);
	msg = tq_strerror(ret);
	tap_ok(ret == -ENXIO && strstr(msg, TQ_DEVICE_PATH) && strstr(msg, "tqsubmitd"),
	       "no socket: -ENXIO, naming both transports: %s", msg);
	msg = tq_strerror(-ENOENT);
	tap_ok(!strstr(msg, TQ_DEVICE_PATH) && !strstr(msg, "tqsubmitd") && strstr(msg, "id"),
	       "-ENOENT is an unregistered id's, not the transport's: %s", msg);
	tap_ok(strstr(tq_strerror(-ENOPKG), "built-in") && strstr(tq_strerror(-ESRCH), "kernel"),
	       "an unknown built-in's and kernel name's own: %s; %s", tq_strerror(-ENOPKG),
	       tq_strerror(-ESRCH));
	if (access(TQ_DEVICE_PATH, F_OK)) {
		setenv("TQ_TRANSPORT", "auto", 1);
		tap_ok(tq_open(&tq, 8, 4096, 0) == -ENXIO, "auto, neither transport: -ENXIO");
		unsetenv("TQ_TRANSPORT");
		tap_ok(tq_open(&tq, 8, 4096, TQ_OPEN_MODULE) == -ENXIO,
		       "TQ_OPEN_MODULE without the module: -ENXIO (not the socket)");
	} else {
		tap_skip("auto, neither transport: -ENXIO", "%s exists here", TQ_DEVICE_PATH);
		tap_skip("TQ_OPEN_MODULE without the module", "%s exists here", TQ_DEVICE_PATH);
	}
	unsetenv("TQ_TRANSPORT");

	snprintf(stale, sizeof(stale), "%s/stale.sock", dir);
	fd0 = listen_at(stale, false);
	setenv("TQ_SOCKET", stale, 1);
	ret = tq_open(&tq, 8, 4096, TQ_OPEN_SOCKET);
	tap_ok(ret == -ECONNREFUSED && strstr(tq_strerror(ret), "tqsubmitd"),
	       "a socket nobody listens on: -ECONNREFUSED, %s", tq_strerror(ret));
	/* the flag beats the environment */
	setenv("TQ_TRANSPORT", "module", 1);
	tap_ok(tq_open(&tq, 8, 4096, TQ_OPEN_SOCKET) == -ECONNREFUSED && !tq.flags,
	       "TQ_OPEN_SOCKET over TQ_TRANSPORT=module: the socket's error");
	unsetenv("TQ_TRANSPORT");
	close(fd0);
	setenv("TQ_SOCKET", path, 1);

	lfd = listen_at(path, true);
	if (lfd < 0 || pthread_create(&th, NULL, server, NULL))
		return 1;
	fd0 = nr_fds();
	mode = BAD_ABI;
	tap_ok(tq_open(&tq, 8, 4096, TQ_OPEN_SOCKET) == -EPROTO, "a server of another ABI: -EPROTO");
	mode = GOOD;	/* it has no TQ_FEAT_QOS */
	tap_ok(tq_open(&tq, 8, 4096, TQ_OPEN_SOCKET | TQ_OPEN_PRIO(TQ_PRIO_HIGH)) == -EOPNOTSUPP,
	       "a class from a server without TQ_FEAT_QOS: -EOPNOTSUPP, before SETUP");
	mode = NO_FDS;
	tap_ok(tq_open(&tq, 8, 4096, TQ_OPEN_SOCKET) == -EPROTO,
	       "a SETUP reply without the memfds: -EPROTO");
	mode = FULL;
	ret = tq_open(&tq, 8, 4096, TQ_OPEN_SOCKET);
	tap_ok(ret == -EUSERS && strstr(tq_strerror(ret), "--connections-per-user"),
	       "a connection refused over the user's limit: -EUSERS, not -EPROTO: %s",
	       tq_strerror(ret));
	usleep(20000);	/* the server closes its ends */
	tap_ok(nr_fds() == fd0, "and no fd is left open (%d, %d)", nr_fds(), fd0);

	mode = GOOD;
	setenv("TQ_TRANSPORT", "socket", 1);
	ret = tq_open(&tq, 8, 4096, 0);
	if (!tap_ok(!ret, "TQ_TRANSPORT=socket: tq_open over the socket: %s", tq_strerror(ret)))
		return tap_done();
	tap_ok((tq.flags & TQ_F_SOCKET) && (tq.features & TQ_FEAT_SOCKET) && tq.ctx_id == 7 &&
	       tq.arena_bytes == 4096, "TQ_F_SOCKET, the server's features, ctx id and arena");
	for (i = 0, ok = 1; i < 20; i++) {
		ok &= nop(&tq, 100 + i) == 1;
		ok &= !tq_wait(&tq, &cqe, 5000) && cqe->user_data == 100u + i;
		tq_cqe_seen(&tq, cqe);
	}
	/* tq_wait rings too when it finds the NOP still in the SQ: at least one each */
	tap_ok(ok && enters >= 20, "20 NOPs: a doorbell message each, each completion through "
	       "the memfd CQ (%u doorbells)", enters);
	tap_ok(tq_wait(&tq, &cqe, 50) == -ETIME, "then nothing: -ETIME");
	tap_ok(tq_wait(&tq, &cqe, 0) == -ETIME, "and -ETIME without waiting");

	/* the server completes 666, then closes the connection: the completion is still ours */
	nop(&tq, 666);
	ret = tq_wait(&tq, &cqe, 5000);
	tap_ok(!ret && cqe->user_data == 666, "the last completion before the server's death");
	tq_cqe_seen(&tq, cqe);
	ret = tq_wait(&tq, &cqe, -1);
	tap_ok(ret == -ECONNRESET && strstr(tq_strerror(ret), "tqsubmitd"),
	       "tq_wait(-1) after the server died: -ECONNRESET, not a hang: %s",
	       tq_strerror(ret));
	tap_ok(tq_wait(&tq, &cqe, 0) == -ECONNRESET, "tq_wait(0) too");
	tap_ok(tq_enter(&tq) == -ECONNRESET, "tq_enter: -ECONNRESET");
	tq_close(&tq);
	tap_ok(tq.fd == -1, "tq_close after it");

	shutdown(lfd, SHUT_RDWR);
	pthread_join(th, NULL);
	close(lfd);
	unlink(path);
	unlink(stale);
	rmdir(dir);
	return tap_done();
}
