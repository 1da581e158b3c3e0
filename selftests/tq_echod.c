// SPDX-License-Identifier: GPL-2.0
/*
 * tq_echod - the smallest tq scheduler: attaches to /dev/tqsubmit (or to
 * tqsubmitd's scheduler socket) and completes every task at once, for tests
 * of the transport (tqsubmit.ko or tqsubmitd, and libtq) without OpenCL.
 * Events are read (on the socket: received with their arenas' fds) and
 * completions written with io_uring: one io_uring_enter() per batch, the
 * write of a batch's completions linked to the read of the next batch.
 *
 * Usage: tq_echod [options]        (root: attaching needs CAP_SYS_ADMIN,
 *                                   or on the socket tqsubmitd's own user)
 *   -t T     transport: module, socket or auto (default $TQ_TRANSPORT, else
 *            auto: the module when /dev/tqsubmit exists), as libtq picks
 *   -S PATH  tqsubmitd's scheduler socket (default $TQ_SCHED_SOCKET, else
 *            TQ_SCHED_SOCKET_PATH)
 *   -n N     complete N tasks, then exit at once without completing the rest
 *            of what it read (the kernel requeues them: tests daemon death)
 *   -k N     as -n, but die of SIGKILL there, as a daemon killed mid-batch
 *   -b N     events per read (default 64, at most 1024; on the socket a read
 *            is one message of tqsubmitd's, whatever its length)
 *   -e ERRNO complete every TASK with status -ERRNO instead of 0
 *   -m       map each context's arena on TQ_EV_OPEN (checks that path)
 *   -p FILE  write our pid to FILE once attached (tests wait for it)
 *   -q       quiet: no summary on exit
 *   -s       mark each batch's TASKs started (TQ_COMPL_F_STARTED), in one
 *            write, before completing any of them, as a scheduler does
 *            before it enqueues a task's first command: with -n or a kill,
 *            the kernel then completes the marked TASKs it still holds that
 *            are not TQ_DESC_F_IDEMPOTENT with -EOWNERDEAD
 * Completions of TQ_OP_PROGRAM and TQ_OP_KERNEL carry ids 1, 2, 3, ... in
 * result; start_ns and end_ns are the time the batch was read. A closed
 * context is released at once. SIGTERM or SIGINT: exit after the current
 * batch. While another scheduler is attached it retries for up to 10 s (an
 * exited daemon's io_uring lets go of its file asynchronously). Exit status
 * 0, or 1 with a message on stderr.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <liburing.h>
#include <sys/mman.h>

#include "selftests/kmod/tq_util.h"
#include "tq_transport.h"
#include "tq/version.h"

#define MAX_BATCH	1024
#define MAX_MAPS	256

enum { OP_READ = 1, OP_WRITE = 2 };

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* Arenas mapped with -m, by context id. */
static struct {
	uint32_t ctx_id;
	void *p;
	uint64_t len;
} maps[MAX_MAPS];

/* The module's arena is at its offset of the scheduler fd; tqsubmitd's is a memfd of its own. */
static int map_arena(int fd, int arena_fd, const struct tq_event *ev)
{
	unsigned int i;
	void *p;

	p = mmap(NULL, ev->open.arena_bytes, PROT_READ | PROT_WRITE, MAP_SHARED,
		 arena_fd >= 0 ? arena_fd : fd, ev->open.arena_offset);
	if (p == MAP_FAILED) {
		fprintf(stderr, "tq_echod: mmap arena of context %u: %s\n", ev->ctx_id,
			strerror(errno));
		return -1;
	}
	for (i = 0; i < MAX_MAPS; i++) {
		if (!maps[i].p) {
			maps[i].ctx_id = ev->ctx_id;
			maps[i].p = p;
			maps[i].len = ev->open.arena_bytes;
			return 0;
		}
	}
	munmap(p, ev->open.arena_bytes);	/* table full: checked the path anyway */
	return 0;
}

static void unmap_arena(uint32_t ctx_id)
{
	unsigned int i;

	for (i = 0; i < MAX_MAPS; i++) {
		if (maps[i].p && maps[i].ctx_id == ctx_id) {
			munmap(maps[i].p, maps[i].len);
			maps[i].p = NULL;
		}
	}
}

/* -s: one STARTED record per TASK of the batch, written before any completion. */
static int mark_started(int fd, const struct tq_event *ev, int n, struct tq_completion *marks)
{
	ssize_t len;
	int i, k = 0;

	for (i = 0; i < n; i++) {
		if (ev[i].type != TQ_EV_TASK || ev[i].task.opcode != TQ_OP_TASK)
			continue;
		memset(&marks[k], 0, sizeof(marks[k]));
		marks[k].ctx_id = ev[i].ctx_id;
		marks[k].tag = ev[i].tag;
		marks[k].flags = TQ_COMPL_F_STARTED;
		k++;
	}
	if (!k)
		return 0;
	len = write(fd, marks, k * sizeof(marks[0]));
	if (len != (ssize_t)(k * sizeof(marks[0]))) {
		fprintf(stderr, "tq_echod: write of started marks: %s\n",
			len < 0 ? strerror(errno) : "short");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct tq_event ev[MAX_BATCH];
	static struct tq_completion cmpl[MAX_BATCH], marks[MAX_BATCH];
	unsigned long long limit = 0, done = 0, events = 0;
	bool killed = false;
	unsigned int batch = 64, nc = 0, nfds = 0;
	uint64_t next_id = 1;
	bool map = false, quiet = false, reading = false, mark = false;
	const char *pidfile = NULL, *sched_path = tqt_sched_path();
	int status = 0, fd, opt, ret, i, kind = tqt_parse(getenv(TQT_ENV));
	static int fds[TQT_MAX_FDS];
	static union tqt_rights ctl;
	struct iovec iov = { .iov_base = ev, .iov_len = sizeof(ev) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct sigaction sa = { .sa_handler = on_signal };
	struct io_uring ring;
	struct tq_attach a;

	tq_version_opt(argc, argv, "tq_echod");
	while ((opt = getopt(argc, argv, "t:S:n:k:b:e:mp:qs")) != -1) {
		switch (opt) {
		case 't':
			kind = tqt_parse(optarg);
			if (kind < 0) {
				fprintf(stderr, "tq_echod: -t %s: want module, socket or auto\n",
					optarg);
				return 1;
			}
			break;
		case 'S':
			sched_path = optarg;
			break;
		case 'n':
		case 'k':
			limit = strtoull(optarg, NULL, 0);
			killed = opt == 'k';
			break;
		case 'b':
			batch = strtoul(optarg, NULL, 0);
			if (!batch || batch > MAX_BATCH)
				batch = 64;
			break;
		case 'e':
			status = -atoi(optarg);
			break;
		case 'm':
			map = true;
			break;
		case 'p':
			pidfile = optarg;
			break;
		case 'q':
			quiet = true;
			break;
		case 's':
			mark = true;
			break;
		default:
			fprintf(stderr, "usage: %s [-t module|socket|auto] [-S PATH] [-n N | -k N] [-b N] "
				"[-e ERRNO] [-m] [-p FILE] [-q] [-s]\n", argv[0]);
			return 1;
		}
	}
	if (kind < 0) {
		fprintf(stderr, "tq_echod: %s=%s: want module, socket or auto\n", TQT_ENV,
			getenv(TQT_ENV));
		return 1;
	}
	kind = tqt_resolve(kind, TQ_DEV);

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	for (i = 0; i < 1000; i++) {
		fd = kind == TQT_SOCKET ? tqt_sched_attach(sched_path, NULL, &a) : raw_sched_open(0);
		if (fd != -EBUSY)
			break;
		usleep(10000);
	}
	if (fd < 0) {
		fprintf(stderr, "tq_echod: attach to %s: %s\n",
			kind == TQT_SOCKET ? sched_path : TQ_DEV, strerror(-fd));
		return 1;
	}
	ret = io_uring_queue_init(8, &ring, 0);
	if (ret < 0) {
		fprintf(stderr, "tq_echod: io_uring_queue_init: %s\n", strerror(-ret));
		return 1;
	}
	if (pidfile) {
		FILE *f = fopen(pidfile, "w");

		if (!f || fprintf(f, "%d\n", getpid()) < 0 || fclose(f)) {
			fprintf(stderr, "tq_echod: %s: %s\n", pidfile, strerror(errno));
			return 1;
		}
	}

	while (!stop) {
		struct io_uring_sqe *sqe;
		struct io_uring_cqe *cqe;
		uint64_t now;
		unsigned int k;
		int i, n = 0;

		/* The previous batch's completions, then the next read. */
		if (nc) {
			sqe = io_uring_get_sqe(&ring);
			io_uring_prep_write(sqe, fd, cmpl, nc * sizeof(cmpl[0]), -1);
			io_uring_sqe_set_data64(sqe, OP_WRITE);
			if (!reading)
				sqe->flags |= IOSQE_IO_LINK;
		}
		if (!reading && kind == TQT_SOCKET) {
			/* one message of tqsubmitd's: room for the largest, and an fd per OPEN */
			msg.msg_control = ctl.buf;
			msg.msg_controllen = sizeof(ctl.buf);
			msg.msg_flags = 0;
			sqe = io_uring_get_sqe(&ring);
			io_uring_prep_recvmsg(sqe, fd, &msg, MSG_CMSG_CLOEXEC);
			io_uring_sqe_set_data64(sqe, OP_READ);
			reading = true;
		} else if (!reading) {
			sqe = io_uring_get_sqe(&ring);
			io_uring_prep_read(sqe, fd, ev, batch * sizeof(ev[0]), -1);
			io_uring_sqe_set_data64(sqe, OP_READ);
			reading = true;
		}
		ret = io_uring_submit_and_wait(&ring, 1);
		if (ret < 0 && ret != -EINTR) {
			fprintf(stderr, "tq_echod: io_uring_submit: %s\n", strerror(-ret));
			return 1;
		}
		while (io_uring_peek_cqe(&ring, &cqe) == 0) {
			uint64_t op = io_uring_cqe_get_data64(cqe);
			int res = cqe->res;

			io_uring_cqe_seen(&ring, cqe);
			if (op == OP_WRITE) {
				if (res != (int)(nc * sizeof(cmpl[0]))) {
					fprintf(stderr, "tq_echod: write: %s\n",
						res < 0 ? strerror(-res) : "short");
					return 1;
				}
				nc = 0;
			} else if (res == -EINTR || res == -ECANCELED) {
				reading = false;
			} else if (res < 0) {
				fprintf(stderr, "tq_echod: read: %s\n", strerror(-res));
				return 1;
			} else if (!res) {
				fprintf(stderr, "tq_echod: %s closed the connection\n", sched_path);
				return 1;
			} else {
				n = res / sizeof(ev[0]);
				reading = false;
				if (kind == TQT_SOCKET) {
					nfds = tqt_cmsg_fds(&msg, fds, TQT_MAX_FDS);
					if (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) {
						fprintf(stderr, "tq_echod: a message of tqsubmitd's "
							"did not fit\n");
						return 1;
					}
				}
			}
		}

		if (mark && mark_started(fd, ev, n, marks))
			return 1;
		now = tq_now_ns();
		for (i = 0, k = 0; i < n; i++) {
			struct tq_completion *c;

			events++;
			if (ev[i].type == TQ_EV_OPEN) {
				int afd = -1;

				if (kind == TQT_SOCKET) {
					if (k >= nfds) {
						fprintf(stderr, "tq_echod: context %u opened without "
							"its arena's fd\n", ev[i].ctx_id);
						return 1;
					}
					afd = fds[k++];
				}
				ret = map ? map_arena(fd, afd, &ev[i]) : 0;
				if (afd >= 0)
					close(afd);
				if (ret)
					return 1;
				continue;
			}
			c = &cmpl[nc++];
			memset(c, 0, sizeof(*c));
			c->ctx_id = ev[i].ctx_id;
			if (ev[i].type == TQ_EV_CLOSE) {
				unmap_arena(ev[i].ctx_id);
				c->flags = TQ_COMPL_F_RELEASE;
				continue;
			}
			c->tag = ev[i].tag;
			c->start_ns = now;
			c->end_ns = now;
			if (ev[i].task.opcode == TQ_OP_PROGRAM || ev[i].task.opcode == TQ_OP_KERNEL)
				c->result = next_id++;
			else
				c->status = status;
			if (++done == limit) {
				/* Complete these and abandon the rest of the batch. */
				if (write(fd, cmpl, nc * sizeof(cmpl[0])) < 0)
					return 1;
				if (killed)
					kill(getpid(), SIGKILL);
				if (!quiet)
					fprintf(stderr, "tq_echod: %llu tasks, exiting mid-batch\n",
						done);
				_exit(0);
			}
		}
		while (nfds > k)	/* fds without their OPEN record: not ours to keep */
			close(fds[--nfds]);
		nfds = 0;
	}
	/* Flush what the last batch completed. */
	if (nc && write(fd, cmpl, nc * sizeof(cmpl[0])) < 0)
		return 1;
	if (!quiet)
		fprintf(stderr, "tq_echod: %llu events, %llu tasks completed\n", events, done);
	io_uring_queue_exit(&ring);
	close(fd);
	return 0;
}
