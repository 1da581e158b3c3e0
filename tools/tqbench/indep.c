// SPDX-License-Identifier: GPL-2.0
/*
 * indep.c - independent contexts as processes of their own.
 *
 * What users of a shared GPU do without tq is one process per application,
 * each with its own OpenCL context. The threads of stream.c and openloop.c
 * have a context each but share one process (and, on some drivers, what the
 * driver keeps per process); with --workers process the stream and the open
 * loop also run setup "proc-independent": the same clients, each a process.
 *
 * A driver initialised in a parent cannot be used in a forked child, so the
 * clients are forked at start, before tqbench opens its own context, and
 * wait on a socket pair for commands. They share tqbench's image, so a
 * suite's tasks (which point into the kernels/ tables) travel as bytes.
 * A command is a header and its payload; each gets one reply, a header
 * (the client's status, the payload's length) and its payload (the
 * client's side: indep_serve.c):
 *
 *   IC_SETUP    env's layout, the device's name and the suite
 *   IC_STREAM   stream.c's stream client (indep_stream_client)
 *   IC_OPENLOOP openloop_indep.c's client (openloop_indep_client)
 *   IC_RESET    close the client's context and buffers
 *
 * The clients die with tqbench (PR_SET_PDEATHSIG) and exit when their
 * socket closes.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/tqbench/bench.h"

static struct {
	pid_t pid;
	int sock;
} cl[MAX_WORKERS];
static unsigned int ncl;

/* All of buf, or -errno (-EPIPE at the peer's end). */
int indep_put(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EPIPE;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int indep_get(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = recv(fd, p, len, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EPIPE;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int obuf_put(struct obuf *ob, const void *p, size_t len)
{
	if (ob->len + len > ob->cap) {
		size_t cap = ob->cap ? ob->cap : 4096;
		char *q;

		while (cap < ob->len + len)
			cap *= 2;
		q = realloc(ob->p, cap);
		if (!q)
			return -ENOMEM;
		ob->p = q;
		ob->cap = cap;
	}
	memcpy(ob->p + ob->len, p, len);
	ob->len += len;
	return 0;
}

int indep_procs_start(struct opts *o, unsigned int n, indep_serve_fn serve)
{
	pid_t parent = getpid();

	fflush(NULL);
	for (ncl = 0; ncl < n && ncl < MAX_WORKERS; ncl++) {
		int sv[2];

		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
			return -errno;
		cl[ncl].pid = fork();
		if (cl[ncl].pid < 0) {
			close(sv[0]);
			close(sv[1]);
			return -errno;
		}
		if (!cl[ncl].pid) {
			close(sv[0]);
			for (unsigned int k = 0; k < ncl; k++)
				close(cl[k].sock);
			ncl = 0;	/* a client has no clients */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != parent)
				_exit(1);
			serve(o, sv[1]);
			_exit(0);	/* serve() exits */
		}
		close(sv[1]);
		cl[ncl].sock = sv[0];
	}
	return 0;
}

unsigned int indep_procs(void)
{
	return ncl;
}

void indep_procs_stop(bool now)
{
	for (unsigned int k = 0; k < ncl; k++) {
		if (now)
			kill(cl[k].pid, SIGKILL);
		close(cl[k].sock);
		waitpid(cl[k].pid, NULL, 0);
	}
	ncl = 0;
}

int indep_send(unsigned int w, uint32_t cmd, const void *req, size_t len)
{
	struct ic_hdr h = { .cmd = cmd, .len = len };
	int ret;

	if (w >= ncl)
		return -ECHILD;
	ret = indep_put(cl[w].sock, &h, sizeof(h));
	return ret ?: indep_put(cl[w].sock, req, len);
}

int indep_recv(unsigned int w, struct obuf *reply)
{
	struct ic_hdr h;
	int ret;

	if (w >= ncl)
		return -ECHILD;
	ret = indep_get(cl[w].sock, &h, sizeof(h));
	reply->len = 0;
	if (!ret && h.len) {
		free(reply->p);
		reply->cap = reply->len = h.len;
		reply->p = malloc(h.len);
		ret = reply->p ? indep_get(cl[w].sock, reply->p, h.len) : -ENOMEM;
	}
	return ret ?: h.status;
}

int indep_procs_setup(struct env *e, const struct suite *s, unsigned int n)
{
	struct ic_setup *su = calloc(1, sizeof(*su));
	struct obuf r = { 0 };
	int ret = su ? 0 : -ENOMEM;

	if (n > ncl)
		ret = -ECHILD;
	if (!ret) {
		su->arena_len = e->arena_len;
		su->out_base = e->out_base;
		snprintf(su->device, sizeof(su->device), "%s",
			 e->o->device ? e->o->device : e->c.name);
		su->s = *s;
	}
	for (unsigned int w = 0; w < n && !ret; w++)
		ret = indep_send(w, IC_SETUP, su, sizeof(*su));
	for (unsigned int w = 0; w < n && !ret; w++)
		ret = indep_recv(w, &r);
	free(r.p);
	free(su);
	if (ret)
		indep_procs_stop(true);
	return ret;
}

void indep_procs_reset(void)
{
	struct obuf r = { 0 };

	for (unsigned int w = 0; w < ncl; w++)
		if (indep_send(w, IC_RESET, NULL, 0) || indep_recv(w, &r))
			fprintf(stderr, "tqbench: independent client %u: reset failed\n", w);
	free(r.p);
}
