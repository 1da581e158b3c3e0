// SPDX-License-Identifier: GPL-2.0
/*
 * proc_workers.c - the worker processes of --workers process: forked
 * beside the daemon, each with a socket pair to tqbench, told what to do a
 * byte at a time and heard a message at a time, and stopped; and what
 * every kind of worker does with a task: its descriptor filled.
 *
 * The workers are named tqbench-worker (PR_SET_NAME: what ps and pgrep
 * show), so that they are told from the daemon, also a child of tqbench
 * named tqbench from its fork to its exec. They die with tqbench
 * (PR_SET_PDEATHSIG) and exit when their socket closes.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tools/tqbench/proc.h"
#include "tq/clock.h"

#define WORKER_COMM	"tqbench-worker"	/* the workers' name (ps, pgrep -x) */

bool synthetic_task(const struct btask *b)
{
	return b->tk == tqk_find("SYN");
}

/* Fill the task's descriptor: its kernel's arguments as tqk_plan() gives them. */
int slot_prep(const struct wslot *ws, struct tq_desc *d)
{
	const struct btask *b = ws->b;
	const struct tqk_launch *l = &b->l;
	size_t global[2], local[2];
	unsigned int arg;
	int ret = 0;

	for (unsigned int i = 0; i < l->dim; i++) {
		global[i] = l->global[i];
		local[i] = l->local[i];
	}
	tq_prep_task(d, ws->prog, ws->kern, l->dim, global, local);
	for (arg = 0; arg < l->nargs && !ret; arg++) {
		const struct tqk_arg *a = &l->arg[arg];

		if (a->kind == TQK_ARG_SCALAR)
			ret = tq_prep_scalar(d, arg, a->val, a->size);
		else
			ret = tq_prep_buf(d, arg, ws->off[a->buf], l->buf[a->buf].bytes,
					  b->dir[a->buf]);
	}
	/* SYN's copies: copy_in, copy_out; a word of device memory where there is none */
	for (uint32_t dir = BT_IN; synthetic_task(b) && dir <= BT_OUT && !ret; dir++, arg++) {
		unsigned int i;

		for (i = 0; i < l->nbufs && b->dir[i] != dir; i++)
			;
		ret = i < l->nbufs ? tq_prep_buf(d, arg, ws->off[i], l->buf[i].bytes, dir) :
				     tq_prep_buf(d, arg, 0, 4, TQ_DIR_SCRATCH);
	}
	return ret;
}

void send_msg(int sock, struct wmsg *m)
{
	if (send(sock, m, sizeof(*m), MSG_NOSIGNAL) != sizeof(*m))
		_exit(3);
}

int workers_start(struct run *ru)
{
	pid_t parent = getpid();

	fflush(NULL);
	for (unsigned int w = 0; w < ru->r->T; w++) {
		int sv[2];

		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
			return -errno;
		ru->w[w].pid = fork();
		if (ru->w[w].pid < 0) {
			ru->w[w].pid = 0;
			close(sv[0]);
			close(sv[1]);
			return -errno;
		}
		if (!ru->w[w].pid) {
			/*
			 * A name of its own: until its exec the daemon's child
			 * is also a tqbench child named tqbench.
			 */
			prctl(PR_SET_NAME, WORKER_COMM);
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != parent)
				_exit(1);
			/* the others' ends: each worker must see EOF when we close ours */
			for (unsigned int k = 0; k < w; k++)
				close(ru->w[k].sock);
			close(sv[0]);
			ru->worker(ru, w, sv[1]);
		}
		close(sv[1]);
		ru->w[w].sock = sv[0];
	}
	return 0;
}

/* A message of kind from every worker; 0, or -errno having said why. */
int gather(struct run *ru, uint32_t kind, int secs)
{
	unsigned int T = ru->r->T, left = T;
	bool got[MAX_WORKERS] = { false };
	double end = tq_now_s() + secs;

	while (left) {
		struct pollfd pfd[MAX_WORKERS];

		for (unsigned int w = 0; w < T; w++)
			pfd[w] = (struct pollfd){ .fd = got[w] ? -1 : ru->w[w].sock,
						  .events = POLLIN };
		poll(pfd, T, 200);
		for (unsigned int w = 0; w < T; w++) {
			struct wmsg *m = &ru->msg[w];
			char b[64];

			if (got[w] || !pfd[w].revents)
				continue;
			if (recv(ru->w[w].sock, m, sizeof(*m), 0) != sizeof(*m)) {
				pid_t pid = ru->w[w].pid;

				fprintf(stderr, "tqbench: worker %u (pid %d) %s\n", w, pid,
					how(reap(&ru->w[w], 2), b, sizeof(b)));
				return -ECHILD;
			}
			if (m->kind != kind || m->err) {
				fprintf(stderr, "tqbench: worker %u failed (%s)\n", w,
					m->err ? strerror(-m->err) : "protocol");
				return m->err ?: -EPROTO;
			}
			got[w] = true;
			left--;
		}
		if (!daemon_alive(ru))
			return -ESRCH;
		if (left && tq_now_s() > end) {
			fprintf(stderr, "tqbench: %u worker(s) silent for %d s\n", left, secs);
			return -ETIMEDOUT;
		}
	}
	return 0;
}

/* cmd to every worker; a worker gone before it is said, as gather() says it. */
int command(struct run *ru, char cmd)
{
	for (unsigned int w = 0; w < ru->r->T; w++) {
		if (send(ru->w[w].sock, &cmd, 1, MSG_NOSIGNAL) != 1) {
			int err = errno;
			pid_t pid = ru->w[w].pid;
			char b[64];

			fprintf(stderr, "tqbench: worker %u (pid %d) %s\n", w, pid,
				how(reap(&ru->w[w], 2), b, sizeof(b)));
			return -err;
		}
	}
	return 0;
}

void workers_stop(struct run *ru, bool failed)
{
	for (unsigned int w = 0; w < ru->r->T; w++) {
		if (failed && ru->w[w].pid > 0)
			kill(ru->w[w].pid, SIGKILL);
		if (ru->w[w].sock > 0)
			close(ru->w[w].sock);	/* EOF: the worker exits */
		ru->w[w].sock = -1;
	}
	for (unsigned int w = 0; w < ru->r->T; w++)
		reap(&ru->w[w], 10);
}

/* The daemon with ru's policy, its log and metrics in OUT, and the workers, all ready. */
int run_start(struct run *ru)
{
	int ret;

	snprintf(ru->log, sizeof(ru->log), "%s/usched.log", ru->e->o->out);
	snprintf(ru->prom, sizeof(ru->prom), "%s/usched.prom", ru->e->o->out);
	/* the T x N runs' TGs and tasks, model against device (logs_merge()) */
	if (!ru->openloop) {
		snprintf(ru->tglog, sizeof(ru->tglog), "%s/.proc-tg.part", ru->e->o->out);
		snprintf(ru->tasklog, sizeof(ru->tasklog), "%s/.proc-tasks.part", ru->e->o->out);
		unlink(ru->tglog);
		unlink(ru->tasklog);
	}
	for (unsigned int w = 0; w < MAX_WORKERS; w++)
		ru->w[w].sock = -1;
	ret = daemon_start(ru);
	ret = ret ?: workers_start(ru);
	return ret ?: gather(ru, MSG_READY, START_S);
}
