// SPDX-License-Identifier: GPL-2.0
/*
 * build.c - program builds, off the event loop and out of the
 * daemon's process. An OpenCL build takes from milliseconds (a cached
 * binary) to as long as the source makes it (a compile bomb); on the event
 * loop's thread it would hold back every other client's completions, and
 * in the daemon's process nothing could stop it.
 *
 * The loop queues a struct dbuild; a few worker threads (build-jobs) take
 * them, at most user-build-jobs of one user at a time and the user with the
 * fewest running first, so one user's builds cannot starve another's. A
 * worker builds OpenCL C source in a child, usched-build (build_child.c),
 * with its own OpenCL context on the same device, limits on its memory and
 * CPU time, and SIGKILL at the build-time limit; the child sends back the
 * driver's program binary, which the worker loads into the context of the
 * client context's domain (usched_prog_add_binary(); ctx.c, isolation). A source already built is taken from
 * the core's cache without a child, or from the cache directory's
 * (cache.c), where each binary built is kept. Built-in kernels (trusted, from
 * kernels/) are built in a child too, without limits: a compile in the
 * daemon would leave PoCL's kernel library there for good (some 110 MB
 * of LLVM IR, Documentation/usched.md). The daemon keeps each built-in it
 * built in the shared domain registered until it exits, so that one costs
 * one child, not one per context registering it after the last such
 * context went; an isolation domain's are loaded from the cache directory
 * (or built again) whenever that domain opens. The result
 * goes back to the loop through an eventfd.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon.h"
#include "kernels/tqkernels.h"
#include "tq/self.h"

#define BUILD_OUT_MAX	(256u << 20)	/* bytes a child may send back: log and binary */

/* Write all of buf to a non-blocking socket, or read what is there. */
static int io_step(int fd, struct pollfd *pfd, const char *in, size_t inlen, size_t *inoff,
		   char **out, size_t *outlen, size_t *outcap)
{
	ssize_t n;

	if ((pfd->revents & POLLOUT) && *inoff < inlen) {
		n = send(fd, in + *inoff, inlen - *inoff, MSG_NOSIGNAL);
		if (n < 0 && errno != EAGAIN)
			*inoff = inlen;	/* the child is gone: its EOF says the rest */
		else if (n > 0)
			*inoff += n;
		if (*inoff == inlen)
			shutdown(fd, SHUT_WR);
	}
	if (pfd->revents & (POLLIN | POLLHUP | POLLERR)) {
		if (*outlen == *outcap) {
			size_t cap = *outcap ? 2 * *outcap : 65536;
			char *p;

			if (cap > BUILD_OUT_MAX + 4096)
				return -E2BIG;
			p = realloc(*out, cap);
			if (!p)
				return -ENOMEM;
			*out = p;
			*outcap = cap;
		}
		n = recv(fd, *out + *outlen, *outcap - *outlen, 0);
		if (n == 0)
			return 1;	/* EOF */
		if (n < 0 && errno != EAGAIN)
			return 1;
		if (n > 0)
			*outlen += n;
	}
	return 0;
}

/* The child's answer: "STATUS LOGLEN BINLEN\n" then the log and the binary. */
static int parse_answer(const char *a, size_t len, unsigned char **bin, size_t *binlen,
			char **log)
{
	const char *nl = memchr(a, '\n', len < 64 ? len : 64);
	unsigned long long loglen, blen;
	int status, used;
	char hdr[64];

	if (!nl)
		return -EPROTO;
	memcpy(hdr, a, nl - a);
	hdr[nl - a] = 0;
	if (sscanf(hdr, "%d %llu %llu%n", &status, &loglen, &blen, &used) != 3 || hdr[used] ||
	    loglen > len || blen > len || (size_t)(nl + 1 - a) + loglen + blen != len)
		return -EPROTO;
	a = nl + 1;
	if (loglen) {
		*log = strndup(a, loglen);
		if (!*log)
			return -ENOMEM;
	}
	if (status)
		return status == 1 ? -ENOEXEC : -EIO;
	if (!blen)
		return -EPROTO;
	*bin = malloc(blen);
	if (!*bin)
		return -ENOMEM;
	memcpy(*bin, a + loglen, blen);
	*binlen = blen;
	return 0;
}

int build_in_child(struct dchild *ch, const char *src, const char *opts, unsigned char **bin,
		   size_t *binlen, char **log)
{
	size_t srclen = strlen(src), optlen = opts ? strlen(opts) : 0, inlen, inoff = 0;
	size_t outlen = 0, outcap = 0;
	char *in = NULL, *out = NULL, hdr[64];
	uint64_t deadline = ch->time_limit_ns ? tq_now_ns() + ch->time_limit_ns : 0;
	int sv[2], ret, wst;
	pid_t pid;

	*bin = NULL;
	*binlen = 0;
	*log = NULL;
	ch->crashed = false;
	inlen = snprintf(hdr, sizeof(hdr), "%zu %zu\n", srclen, optlen);
	in = malloc(inlen + srclen + optlen);
	if (!in)
		return -ENOMEM;
	memcpy(in, hdr, inlen);
	memcpy(in + inlen, src, srclen);
	memcpy(in + inlen + srclen, opts ? opts : "", optlen);
	inlen += srclen + optlen;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		free(in);
		return -errno;
	}

	pid = fork();
	if (pid == 0) {
		/* Only async-signal-safe calls until exec: the parent has threads. */
		struct rlimit r;

		int null = open("/dev/null", O_WRONLY);

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(sv[1], 0);
		dup2(sv[1], 1);
		/* The compiler's chatter is the client's, in its log; not the daemon's log. */
		if (null >= 0)
			dup2(null, 2);
		/* Nothing of the daemon's (its /dev/tqsubmit fd, the rings) goes along. */
		close_range(3, ~0U, 0);
#ifndef __SANITIZE_ADDRESS__
		/* ASan's shadow counts as data: a sanitizer build has the time limit alone. */
		if (ch->memory_limit) {
			r.rlim_cur = r.rlim_max = ch->memory_limit;
			setrlimit(RLIMIT_DATA, &r);
		}
#endif
		if (ch->time_limit_ns) {
			/* A backstop only: the parent kills it at the wall-clock limit. */
			r.rlim_cur = ch->time_limit_ns / 1000000000ull + 2;
			r.rlim_max = r.rlim_cur + 1;
			setrlimit(RLIMIT_CPU, &r);
		}
		r.rlim_cur = r.rlim_max = 0;
		setrlimit(RLIMIT_CORE, &r);
		execl(ch->path, "usched-build", ch->platform, ch->device, (char *)NULL);
		_exit(127);
	}
	close(sv[1]);
	if (pid < 0) {
		ret = -errno;
		close(sv[0]);
		free(in);
		return ret;
	}
	if (ch->started)
		ch->started(ch->arg, pid);
	fcntl(sv[0], F_SETFL, O_NONBLOCK);

	for (;;) {
		struct pollfd pfd = { .fd = sv[0], .events = POLLIN };
		int timeout = -1;

		if (inoff < inlen)
			pfd.events |= POLLOUT;
		if (deadline) {
			uint64_t now = tq_now_ns();

			if (now >= deadline) {
				ret = -ETIME;
				break;
			}
			timeout = (deadline - now + 999999) / 1000000;
		}
		if (poll(&pfd, 1, timeout) < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		ret = io_step(sv[0], &pfd, in, inlen, &inoff, &out, &outlen, &outcap);
		if (ret)
			break;
	}
	close(sv[0]);
	/* Done with it either way: what it had to say is read, or it is out of time. */
	kill(pid, SIGKILL);
	while (waitpid(pid, &wst, 0) < 0 && errno == EINTR)
		;
	if (ch->started)
		ch->started(ch->arg, 0);
	if (ret == 1)
		ret = parse_answer(out, outlen, bin, binlen, log);
	if (ret == -EPROTO) {
		/* No whole answer: it died on its own. */
		if (WIFSIGNALED(wst) && WTERMSIG(wst) == SIGXCPU) {
			ret = -ETIME;
		} else if (WIFEXITED(wst) && WEXITSTATUS(wst) == 127) {
			err("cannot run %s", ch->path);
			ret = -EIO;
		} else {
			ch->crashed = true;
			ret = -ENOEXEC;
			free(*log);
			*log = strdup("usched: the build process died (out of memory? its limit "
				      "is build-memory)\n");
		}
	}
	free(in);
	free(out);
	return ret;
}

/* Which of the context's limits a build runs under, and where the child is. */
struct worker {
	struct daemon *d;
	unsigned int index;
};

static void child_started(void *arg, int pid)
{
	struct worker *w = arg;
	struct daemon *d = w->d;

	pthread_mutex_lock(&d->blk);
	d->build_pids[w->index] = pid;
	/* build_stop() may have looked already: then stop it here. */
	if (pid && d->bstop)
		kill(pid, SIGKILL);
	pthread_mutex_unlock(&d->blk);
}

int build_source(struct daemon *d, uint64_t domain, const char *src, const char *opts,
		 uint64_t time_limit_ns, uint64_t memory_limit, uint32_t *core, char **log,
		 bool *crashed, void (*started)(void *arg, int pid), void *arg)
{
	char plat[256], dev[256];
	unsigned char *bin;
	size_t binlen;
	struct dchild ch = {
		.path = d->build_helper, .platform = plat, .device = dev,
		.time_limit_ns = time_limit_ns, .memory_limit = memory_limit,
		.started = started, .arg = arg,
	};
	int ret;

	*log = NULL;
	*crashed = false;
	ret = usched_prog_find(d->u, domain, src, strlen(src), opts, core);
	if (ret != -ENOENT)
		return ret;
	if (!cache_prog_load(d, domain, src, opts, core))
		return 0;
	ret = usched_device_names(d->u, plat, sizeof(plat), dev, sizeof(dev));
	if (ret)
		return ret;
	ret = build_in_child(&ch, src, opts, &bin, &binlen, log);
	*crashed = ch.crashed;
	if (ret)
		return ret;
	ret = usched_prog_add_binary(d->u, domain, src, strlen(src), opts, bin, binlen, core);
	if (!ret) {
		__atomic_fetch_add(&d->st.cache_built, 1, __ATOMIC_RELAXED);
		cache_prog_save(d, src, opts, bin, binlen);
	}
	free(bin);
	if (ret == -ENOEXEC && !*log)
		*log = strdup("usched: the driver refused the program's binary\n");
	return ret;
}

int build_builtin(struct daemon *d, uint64_t domain, const char *name, uint32_t *core,
		  char **log, bool *crashed, void (*started)(void *arg, int pid), void *arg)
{
	unsigned int i;
	uint32_t id;
	int ret;

	for (i = 0; i < tqk_ntasks && strcmp(tqk_tasks[i]->name, name); i++)
		;
	if (i == tqk_ntasks) {
		*log = NULL;
		*crashed = false;
		return -ENOPKG;	/* the uapi's status for a name, not ENOENT's unregistered id */
	}
	ret = build_source(d, domain, tqk_tasks[i]->source, NULL, 0, 0, core, log, crashed,
			   started, arg);
	/* an isolation domain's would keep it open for good */
	if (ret || domain != USCHED_SHARED)
		return ret;
	pthread_mutex_lock(&d->blk);
	if (!d->builtins[i] && !usched_prog_find(d->u, USCHED_SHARED, tqk_tasks[i]->source,
						strlen(tqk_tasks[i]->source), NULL, &id))
		d->builtins[i] = id;
	pthread_mutex_unlock(&d->blk);
	return 0;
}

static void build_one(struct worker *w, struct dbuild *b)
{
	struct daemon *d = w->d;

	b->start_ns = tq_now_ns();
	if (!b->builtin)
		dbg("context %u (uid %u): building its program", b->ctx, b->user ? b->user->uid : 0);
	if (b->builtin)
		b->status = build_builtin(d, b->domain, b->text, &b->core, &b->log, &b->crashed,
					  child_started, w);
	else
		b->status = build_source(d, b->domain, b->text, b->opts, b->time_limit_ns,
					 b->memory_limit, &b->core, &b->log, &b->crashed,
					 child_started, w);
	b->end_ns = tq_now_ns();
}

/*
 * The next build a worker may take, under d->blk: of the users under their
 * user-build-jobs, the one with the fewest builds running, its oldest.
 */
static struct dbuild *pick(struct daemon *d)
{
	struct dbuild **best = NULL;

	for (struct dbuild **p = &d->bq; *p; p = &(*p)->next) {
		unsigned int r = (*p)->user ? (*p)->user->running : 0;

		if (r >= d->conf.user_build_jobs)
			continue;
		if (!best || r < ((*best)->user ? (*best)->user->running : 0))
			best = p;
	}
	if (best) {
		struct dbuild *b = *best;

		*best = b->next;
		if (b->user)
			b->user->running++;
		return b;
	}
	return NULL;
}

static void *builder(void *arg)
{
	struct worker *w = arg;
	struct daemon *d = w->d;
	struct dbuild *b;

	pthread_mutex_lock(&d->blk);
	for (;;) {
		while (!d->bstop && !(b = pick(d)))
			pthread_cond_wait(&d->bcond, &d->blk);
		if (d->bstop)
			break;
		pthread_mutex_unlock(&d->blk);

		build_one(w, b);

		pthread_mutex_lock(&d->blk);
		if (b->user)
			b->user->running--;
		b->next = d->bdone;	/* newest first; order does not matter */
		d->bdone = b;
		eventfd_write(d->build_efd, 1);
		/* A user's next build may be eligible now. */
		pthread_cond_broadcast(&d->bcond);
	}
	pthread_mutex_unlock(&d->blk);
	free(w);
	return NULL;
}

/* usched-build lives next to usched unless build-helper says where. */
static char *helper_path(const struct dconf *c)
{
	char path[PATH_MAX];

	if (c->build_helper)
		return strdup(c->build_helper);
	tq_sibling_path(path, sizeof(path), "usched-build");
	return strdup(path);
}

int build_start(struct daemon *d)
{
	unsigned int n = d->conf.build_jobs ? d->conf.build_jobs : 1;
	int ret;

	d->build_helper = helper_path(&d->conf);
	if (!d->build_helper)
		return -ENOMEM;
	if (access(d->build_helper, X_OK))
		warn("%s: %m; builds of OpenCL C source will fail", d->build_helper);
	d->build_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (d->build_efd < 0)
		return -errno;
	d->builders = calloc(n, sizeof(*d->builders));
	d->build_pids = calloc(n, sizeof(*d->build_pids));
	d->builtins = calloc(tqk_ntasks, sizeof(*d->builtins));
	if (!d->builders || !d->build_pids || !d->builtins)
		return -ENOMEM;
	pthread_mutex_init(&d->blk, NULL);
	pthread_cond_init(&d->bcond, NULL);
	d->builder_started = true;
	for (d->nbuilders = 0; d->nbuilders < n; d->nbuilders++) {
		struct worker *w = malloc(sizeof(*w));

		if (!w)
			return -ENOMEM;
		*w = (struct worker){ .d = d, .index = d->nbuilders };
		ret = -pthread_create(&d->builders[d->nbuilders], NULL, builder, w);
		if (ret) {
			free(w);
			return ret;
		}
	}
	return 0;
}

/* Kills the builds in progress; what is still queued is dropped. */
void build_stop(struct daemon *d)
{
	struct dbuild *b;

	if (!d->builder_started)
		return;
	pthread_mutex_lock(&d->blk);
	d->bstop = true;
	while ((b = d->bq)) {
		d->bq = b->next;
		build_free(b);
	}
	for (unsigned int i = 0; i < d->nbuilders; i++)
		if (d->build_pids[i])
			kill(d->build_pids[i], SIGKILL);
	pthread_cond_broadcast(&d->bcond);
	pthread_mutex_unlock(&d->blk);
	for (unsigned int i = 0; i < d->nbuilders; i++)
		pthread_join(d->builders[i], NULL);
	while ((b = build_take_done(d)))
		build_free(b);
	d->builder_started = false;
	close(d->build_efd);
	free(d->builders);
	free(d->build_pids);
	free(d->builtins);
	free(d->build_helper);
	d->builders = NULL;
	d->build_pids = NULL;
	d->builtins = NULL;
	d->build_helper = NULL;
	d->nbuilders = 0;
}

void build_queue(struct daemon *d, struct dbuild *b)
{
	struct dbuild **p;

	b->next = NULL;
	pthread_mutex_lock(&d->blk);
	for (p = &d->bq; *p; p = &(*p)->next)
		;
	*p = b;
	pthread_cond_broadcast(&d->bcond);
	pthread_mutex_unlock(&d->blk);
}

struct dbuild *build_take_done(struct daemon *d)
{
	struct dbuild *b;

	pthread_mutex_lock(&d->blk);
	b = d->bdone;
	if (b)
		d->bdone = b->next;
	pthread_mutex_unlock(&d->blk);
	return b;
}

void build_free(struct dbuild *b)
{
	free(b->text);
	free(b->opts);
	free(b->log);
	free(b);
}
