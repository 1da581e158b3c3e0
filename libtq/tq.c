// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * tq.c - libtq's slow paths: opening and closing a context, the doorbell,
 * waiting for completions, program registration and error strings. The fast
 * paths are inline in tq.h.
 *
 * Two transports, one ABI: /dev/tqsubmit (tqsubmit.ko), or tqsubmitd's
 * client socket where no module is loaded. tq_open() flags, else
 * TQ_TRANSPORT=module|socket, else the module when its device exists (see
 * tq_open(3)). On the socket the rings and the arena are memfds that
 * tqsubmitd hands over at TQ_IOC_SETUP, the doorbell is a message, and the
 * connection's hangup tells that tqsubmitd died.
 *
 * Lifetimes:
 *  1. tq_open() opens the device (or connects), makes it a context
 *     (TQ_IOC_SETUP) with a fresh eventfd, maps the SQ, the CQ and the arena
 *     at the offsets reported, and puts the context on the list of open
 *     contexts.
 *  2. fork(): the kernel does not copy the module's mappings into the
 *     child, nor (MADV_DONTFORK) the socket's. The pthread_atfork() child
 *     handler marks every open context TQ_F_FORKED, so that the child's
 *     calls fail with -EPERM instead of touching memory it does not have.
 *  3. tq_close() unmaps (unless forked) and closes the fds. The kernel (or
 *     tqsubmitd) drops the tasks the scheduler has not seen; the arena lives
 *     on while the scheduler still maps it.
 */
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <tq/clock.h>

#include "internal.h"
#include "tq_transport.h"

/* Open contexts, for the fork() handler. */
static pthread_mutex_t tq_list_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t tq_atfork_once = PTHREAD_ONCE_INIT;
static struct tq *tq_list;

static void tq_atfork_prepare(void)
{
	pthread_mutex_lock(&tq_list_lock);
}

static void tq_atfork_parent(void)
{
	pthread_mutex_unlock(&tq_list_lock);
}

static void tq_atfork_child(void)
{
	struct tq *tq;

	for (tq = tq_list; tq; tq = tq->next)
		tq->flags |= TQ_F_FORKED;
	pthread_mutex_unlock(&tq_list_lock);
}

static void tq_atfork_register(void)
{
	pthread_atfork(tq_atfork_prepare, tq_atfork_parent, tq_atfork_child);
}

static void tq_list_add(struct tq *tq)
{
	pthread_mutex_lock(&tq_list_lock);
	tq->prev = NULL;
	tq->next = tq_list;
	if (tq_list)
		tq_list->prev = tq;
	tq_list = tq;
	pthread_mutex_unlock(&tq_list_lock);
}

static void tq_list_del(struct tq *tq)
{
	pthread_mutex_lock(&tq_list_lock);
	if (tq->prev)
		tq->prev->next = tq->next;
	else
		tq_list = tq->next;
	if (tq->next)
		tq->next->prev = tq->prev;
	pthread_mutex_unlock(&tq_list_lock);
}

/* Point the ring views at their mappings, as TQ_IOC_SETUP described them. */
void tq_rings_init(struct tq *tq, const struct tq_setup *s, void *sq_map, void *cq_map)
{
	struct tq_sq *sq = &tq->sq;
	struct tq_cq *cq = &tq->cq;

	sq->map = sq_map;
	sq->map_size = s->sq_off.mmap_size;
	sq->kproducer = (unsigned int *)((char *)sq_map + s->sq_off.producer);
	sq->kconsumer = (unsigned int *)((char *)sq_map + s->sq_off.consumer);
	sq->kflags = (unsigned int *)((char *)sq_map + s->sq_off.flags);
	sq->descs = (struct tq_desc *)((char *)sq_map + s->sq_off.entries);
	sq->entries = s->sq_entries;
	sq->mask = s->sq_entries - 1;
	/* Our own index: we are the only writer. */
	sq->tail = __atomic_load_n(sq->kproducer, __ATOMIC_RELAXED);
	sq->head = __atomic_load_n(sq->kconsumer, __ATOMIC_ACQUIRE);

	cq->map = cq_map;
	cq->map_size = s->cq_off.mmap_size;
	cq->kproducer = (unsigned int *)((char *)cq_map + s->cq_off.producer);
	cq->kconsumer = (unsigned int *)((char *)cq_map + s->cq_off.consumer);
	cq->kflags = (unsigned int *)((char *)cq_map + s->cq_off.flags);
	cq->cqes = (struct tq_cqe *)((char *)cq_map + s->cq_off.entries);
	cq->entries = s->cq_entries;
	cq->mask = s->cq_entries - 1;
	cq->head = __atomic_load_n(cq->kconsumer, __ATOMIC_RELAXED);
}

/*
 * This libtq was built for the server's descriptor and completion layout,
 * and the server knows what setup @s asks for (a class: TQ_FEAT_QOS).
 */
static int tq_query_ok(const struct tq_query *q, const struct tq_setup *s)
{
	if (q->abi_version != TQ_ABI_VERSION || q->desc_size != sizeof(struct tq_desc) ||
	    q->cqe_size != sizeof(struct tq_cqe))
		return -EPROTO;
	if (s->prio && !(q->features & TQ_FEAT_QOS))
		return -EOPNOTSUPP;
	return 0;
}

static void *tq_map(int fd, size_t len, uint64_t offset)
{
	return mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, offset);
}

/* The module: open the device, set up, map the three regions from its fd. */
static int tq_setup_module(struct tq *tq, struct tq_setup *s, void **sq_map, void **cq_map,
			   void **arena)
{
	struct tq_query q = { .size = sizeof(q) };
	int ret;

	tq->fd = open(TQ_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (tq->fd < 0)
		return errno == ENOENT ? -ENXIO : -errno;
	if (ioctl(tq->fd, TQ_IOC_QUERY, &q))
		return -errno;
	ret = tq_query_ok(&q, s);
	if (ret)
		return ret;
	s->eventfd = tq->event_fd;
	if (ioctl(tq->fd, TQ_IOC_SETUP, s))
		return -errno;
	/* MAP_POPULATE: the rings are touched at once anyway. */
	*sq_map = tq_map(tq->fd, s->sq_off.mmap_size, s->sq_off.mmap_offset);
	*cq_map = tq_map(tq->fd, s->cq_off.mmap_size, s->cq_off.mmap_offset);
	*arena = mmap(NULL, s->arena_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, tq->fd,
		      s->arena_offset);
	if (*sq_map == MAP_FAILED || *cq_map == MAP_FAILED || *arena == MAP_FAILED)
		return -errno;
	return 0;
}

/*
 * tqsubmitd: connect, set up (the eventfd goes along, the rings' and the
 * arena's memfds come back), map the memfds and close them. MADV_DONTFORK
 * keeps the mappings out of a child, as the module's are.
 */
static int tq_setup_socket(struct tq *tq, struct tq_setup *s, void **sq_map, void **cq_map,
			   void **arena)
{
	struct tq_query q = { .size = sizeof(q) };
	unsigned int nfds = 2;
	int fds[2], ret;

	tq->fd = tqt_connect(tqt_client_path());
	if (tq->fd < 0) {
		ret = tq->fd;
		tq->fd = -1;
		/* no socket file: -ENXIO as for no device, not an unknown name's ENOENT */
		return ret == -ENOENT ? -ENXIO : ret;
	}
	ret = tqt_call(tq->fd, TQ_IOC_QUERY, &q, sizeof(q), NULL, 0, NULL, NULL);
	if (!ret)
		ret = tq_query_ok(&q, s);
	if (ret)
		return ret;
	s->eventfd = 0;		/* the fd itself travels by SCM_RIGHTS */
	ret = tqt_call(tq->fd, TQ_IOC_SETUP, s, sizeof(*s), &tq->event_fd, 1, fds, &nfds);
	if (!ret && (nfds != 2 || s->arena_offset))
		ret = -EPROTO;
	if (ret) {
		while (nfds)
			close(fds[--nfds]);
		return ret;
	}
	*sq_map = tq_map(fds[0], s->sq_off.mmap_size, s->sq_off.mmap_offset);
	*cq_map = tq_map(fds[0], s->cq_off.mmap_size, s->cq_off.mmap_offset);
	*arena = mmap(NULL, s->arena_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fds[1], 0);
	ret = *sq_map == MAP_FAILED || *cq_map == MAP_FAILED || *arena == MAP_FAILED ? -errno : 0;
	close(fds[0]);
	close(fds[1]);
	if (ret)
		return ret;
	if (madvise(*sq_map, s->sq_off.mmap_size, MADV_DONTFORK) ||
	    madvise(*cq_map, s->cq_off.mmap_size, MADV_DONTFORK) ||
	    madvise(*arena, s->arena_bytes, MADV_DONTFORK))
		return -errno;
	return 0;
}

/* Which transport: the flags, else TQ_TRANSPORT, else the module if its device exists. */
static int tq_transport(unsigned int flags)
{
	if ((flags & TQ_OPEN_MODULE) && (flags & TQ_OPEN_SOCKET))
		return -EINVAL;
	if (flags & TQ_OPEN_MODULE)
		return TQT_MODULE;
	if (flags & TQ_OPEN_SOCKET)
		return TQT_SOCKET;
	return tqt_pick();
}

int tq_open(struct tq *tq, unsigned int entries, size_t arena_bytes, unsigned int flags)
{
	struct tq_setup s = {
		.size = sizeof(s),
		.sq_entries = entries,
		.arena_bytes = arena_bytes,
		.prio = TQ_OPEN_PRIO_OF(flags),
	};
	void *sq_map = MAP_FAILED, *cq_map = MAP_FAILED, *arena = MAP_FAILED;
	int ret, kind;

	memset(tq, 0, sizeof(*tq));
	tq->fd = -1;
	tq->event_fd = -1;
	if ((flags & ~(TQ_OPEN_MODULE | TQ_OPEN_SOCKET | TQ_OPEN_PRIO_MASK)) ||
	    TQ_OPEN_PRIO_OF(flags) > TQ_PRIO_MAX)
		return -EINVAL;
	kind = tq_transport(flags);
	if (kind < 0)
		return kind;
	pthread_once(&tq_atfork_once, tq_atfork_register);

	tq->event_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (tq->event_fd < 0)
		return -errno;
	if (kind == TQT_SOCKET) {
		tq->flags |= TQ_F_SOCKET;
		ret = tq_setup_socket(tq, &s, &sq_map, &cq_map, &arena);
	} else {
		ret = tq_setup_module(tq, &s, &sq_map, &cq_map, &arena);
	}
	if (ret)
		goto out_unmap;

	tq->alloc = malloc(sizeof(*tq->alloc));
	if (!tq->alloc) {
		ret = -ENOMEM;
		goto out_unmap;
	}
	ret = tq_arena_init(tq->alloc, s.arena_bytes);
	if (ret)
		goto out_free;

	tq_rings_init(tq, &s, sq_map, cq_map);
	tq->ctx_id = s.ctx_id;
	tq->max_inflight = s.max_inflight;
	tq->features = s.features;
	tq->arena = arena;
	tq->arena_bytes = s.arena_bytes;
	tq_list_add(tq);
	return 0;

out_free:
	free(tq->alloc);
	tq->alloc = NULL;
out_unmap:
	if (arena != MAP_FAILED)
		munmap(arena, s.arena_bytes);
	if (cq_map != MAP_FAILED)
		munmap(cq_map, s.cq_off.mmap_size);
	if (sq_map != MAP_FAILED)
		munmap(sq_map, s.sq_off.mmap_size);
	close(tq->event_fd);
	if (tq->fd >= 0)
		close(tq->fd);
	tq->fd = -1;
	tq->event_fd = -1;
	tq->flags = 0;
	return ret;
}

void tq_close(struct tq *tq)
{
	if (tq->fd < 0)
		return;
	tq_list_del(tq);
	/* A forked child has none of these mappings; their range may be reused. */
	if (!(tq->flags & TQ_F_FORKED)) {
		munmap(tq->arena, tq->arena_bytes);
		munmap(tq->cq.map, tq->cq.map_size);
		munmap(tq->sq.map, tq->sq.map_size);
	}
	tq_arena_fini(tq->alloc);
	free(tq->alloc);
	close(tq->event_fd);
	close(tq->fd);
	memset(tq, 0, sizeof(*tq));
	tq->fd = -1;
	tq->event_fd = -1;
}

int tq_buf_alloc(struct tq *tq, size_t len, void **ptr, uint64_t *offset)
{
	size_t off;
	int ret;

	if (tq->flags & TQ_F_FORKED)
		return -EPERM;
	ret = tq_arena_alloc(tq->alloc, len, &off);
	if (ret)
		return ret;
	*ptr = (char *)tq->arena + off;
	if (offset)
		*offset = off;
	return 0;
}

int tq_buf_free(struct tq *tq, void *ptr)
{
	uintptr_t p = (uintptr_t)ptr, base = (uintptr_t)tq->arena;

	if (tq->flags & TQ_F_FORKED)
		return -EPERM;
	if (p < base || p - base >= tq->arena_bytes)
		return -EINVAL;
	return tq_arena_free(tq->alloc, p - base);
}

/* A dead tqsubmitd, however the socket says so. */
static int tq_lost(int err)
{
	return err == -EPIPE || err == -ECONNRESET || err == -ENOTCONN ? -ECONNRESET : err;
}

int tq_enter(struct tq *tq)
{
	struct tq_enter e = { .size = sizeof(e) };
	struct tq_sock_msg head = { .cmd = TQ_IOC_ENTER };
	int ret;

	if (tq->flags & TQ_F_FORKED)
		return -EPERM;
	if (!(tq->flags & TQ_F_SOCKET))
		return ioctl(tq->fd, TQ_IOC_ENTER, &e) ? -errno : 0;
	/*
	 * No reply. A full socket buffer holds doorbells tqsubmitd has not
	 * read yet: one of them wakes it as well as ours would.
	 */
	ret = tqt_send(tq->fd, &head, &e, sizeof(e), NULL, 0, MSG_DONTWAIT);
	return ret == -EAGAIN ? 0 : tq_lost(ret);
}

/*
 * Before sleeping: descriptors left in the SQ (the kernel takes them only
 * while the CQ has room) need the doorbell if the scheduler sleeps, since
 * only our CQ consumer moved.
 */
static int tq_kick_waiting(struct tq *tq)
{
	struct tq_sq *sq = &tq->sq;
	unsigned int flags;

	/* J, matches I: our CQ consumer (G) is visible before we read the flag. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	flags = __atomic_load_n(sq->kflags, __ATOMIC_RELAXED);
	if (flags & TQ_RING_BROKEN)
		return -EBADFD;
	if ((flags & TQ_RING_NEED_WAKEUP) &&
	    __atomic_load_n(sq->kconsumer, __ATOMIC_RELAXED) !=
	    __atomic_load_n(sq->kproducer, __ATOMIC_RELAXED))
		return tq_enter(tq);
	return 0;
}

static int64_t tq_now_ms(void)
{
	return (int64_t)(tq_now_ns() / 1000000);
}

/*
 * No scheduler attached: the tasks wait in the SQ for one that may never
 * come (both transports keep them for the next). A wait ends with
 * -EHOSTDOWN once none has been attached for TQ_SCHED_WAIT_MS of it (10 s;
 * 0: never). The transport tells: the module's sysfs scheduler_pid,
 * tqsubmitd's counter of that name, looked at every quarter of the bound
 * while nothing completes. What cannot be told counts as attached.
 */
struct tq_watch {
	int64_t bound;		/* ms; 0: none */
	int64_t next;		/* the next look */
	int64_t seen;		/* a scheduler was there, or the wait began */
};

static void tq_watch_init(struct tq_watch *w, int64_t now)
{
	const char *s = getenv(TQ_ENV_SCHED_WAIT);
	char *end;
	long v;

	w->bound = TQ_SCHED_WAIT_MS;
	if (s && *s) {
		v = strtol(s, &end, 10);
		if (!*end && v >= 0)
			w->bound = v;
	}
	w->seen = now;
	w->next = now + (w->bound + 3) / 4;
}

static bool tq_sched_absent(const struct tq *tq)
{
	long long pid = -1;
	FILE *f;

	if (tq->flags & TQ_F_SOCKET)
		return tqt_stat(tqt_client_path(), "scheduler_pid") == 0;
	f = fopen("/sys/class/misc/" TQ_DEVICE_NAME "/scheduler_pid", "re");
	if (f) {
		if (fscanf(f, "%lld", &pid) != 1)
			pid = -1;
		fclose(f);
	}
	return pid == 0;
}

/* How long the next poll may sleep (-1: for ever), so that the watch looks in time. */
static int tq_watch_ms(const struct tq_watch *w, int64_t now, int ms)
{
	int64_t until = w->next - now;

	if (!w->bound || (ms >= 0 && ms <= until))
		return ms;
	return until > 0 ? (int)until : 0;
}

/* Look if it is time: -EHOSTDOWN once none has been attached for the bound. */
static int tq_watch(struct tq_watch *w, const struct tq *tq, int64_t now)
{
	if (!w->bound || now < w->next)
		return 0;
	w->next = now + (w->bound + 3) / 4;
	if (!tq_sched_absent(tq))
		w->seen = now;
	else if (now - w->seen >= w->bound)
		return -EHOSTDOWN;
	return 0;
}

int tq_wait(struct tq *tq, struct tq_cqe **cqe, int timeout_ms)
{
	/* On the socket, also the connection: its hangup is tqsubmitd's death. */
	struct pollfd pfd[2] = {
		{ .fd = tq->event_fd, .events = POLLIN },
		{ .fd = tq->fd, .events = POLLRDHUP },
	};
	nfds_t n = tq->flags & TQ_F_SOCKET ? 2 : 1;
	int64_t now = tq_now_ms(), deadline = now + (timeout_ms > 0 ? timeout_ms : 0);
	struct tq_watch w;
	uint64_t count;
	int ret, ms;

	tq_watch_init(&w, now);
	for (;;) {
		ret = tq_peek(tq, cqe);
		if (ret != -EAGAIN)
			return ret;
		ret = tq_kick_waiting(tq);
		if (ret)
			return ret;
		pfd[0].revents = pfd[1].revents = 0;
		ms = timeout_ms < 0 ? -1 : deadline > now ? (int)(deadline - now) : 0;
		ms = tq_watch_ms(&w, now, ms);
		ret = ms || n > 1 ? poll(pfd, n, ms) : 0;
		if (ret < 0)
			return -errno;
		if (pfd[1].revents & (POLLRDHUP | POLLHUP | POLLERR))
			/* what it completed before it died is still ours */
			return tq_peek(tq, cqe) ? -ECONNRESET : 0;
		now = tq_now_ms();
		if (!(pfd[0].revents & POLLIN)) {
			if (!tq_peek(tq, cqe))
				return 0;
			if (timeout_ms >= 0 && now >= deadline)
				return -ETIME;
			ret = tq_watch(&w, tq, now);
			if (ret)
				return ret;
			continue;
		}
		/*
		 * Clear the eventfd, then look again: the kernel publishes its
		 * CQ producer before it signals, so nothing posted after this
		 * read is missed: it signals again.
		 */
		if (read(tq->event_fd, &count, sizeof(count)) < 0 && errno != EAGAIN)
			return -errno;
	}
}

/*
 * Submit one registration descriptor naming @a (and @b) and wait for its
 * answer. The context must be idle so that the answer is the next completion.
 * With @log, @a goes into at least @log_len bytes, NUL-padded, so that the
 * scheduler has room to write a failed build's log over it; the log is then
 * copied out before the arena bytes are freed.
 */
static int tq_register(struct tq *tq, struct tq_desc *tmpl, const void *a, size_t a_len,
		       const void *b, size_t b_len, uint32_t *id, char *log, size_t log_len)
{
	size_t a_room = log && log_len > a_len ? log_len : a_len;
	void *a_buf = NULL, *b_buf = NULL;
	uint64_t a_off, b_off = 0;
	struct tq_desc *d;
	struct tq_cqe *cqe;
	int ret;

	if (log && log_len)
		log[0] = 0;
	if (tq->flags & TQ_F_FORKED)
		return -EPERM;
	if (!a_len || a_room > UINT32_MAX || b_len > UINT32_MAX)
		return -EINVAL;
	if (tq_sq_ready(tq) || tq->sq.tail != tq->cq.head)
		return -EBUSY;
	ret = tq_buf_alloc(tq, a_room, &a_buf, &a_off);
	if (ret)
		return ret;
	memcpy(a_buf, a, a_len);
	memset((char *)a_buf + a_len, 0, a_room - a_len);
	if (b_len) {
		ret = tq_buf_alloc(tq, b_len, &b_buf, &b_off);
		if (ret)
			goto out_free;
		memcpy(b_buf, b, b_len);
	}

	d = tq_get_desc(tq);
	*d = *tmpl;
	tq_prep_buf(d, 0, a_off, a_room, TQ_DIR_IN);
	if (b_len)
		tq_prep_buf(d, 0, b_off, b_len, TQ_DIR_IN);
	ret = tq_submit(tq);
	if (ret < 0)
		goto out_free;
	/* Leaving on a signal would free the text under the scheduler and leave the answer unseen. */
	do
		ret = tq_wait(tq, &cqe, -1);
	while (ret == -EINTR);
	/* a scheduler attached later still reads the text: it stays, the context is busy */
	if (ret == -EHOSTDOWN)
		return ret;
	if (ret)
		goto out_free;
	ret = cqe->status;
	if (!ret && cqe->result > UINT32_MAX)
		ret = -EPROTO;
	if (!ret)
		*id = cqe->result;
	tq_cqe_seen(tq, cqe);
	if (ret == -ENOEXEC && log && log_len) {
		/* a_room >= log_len; the scheduler's NUL is not trusted. */
		size_t n = strnlen(a_buf, log_len - 1);

		memcpy(log, a_buf, n);
		log[n] = 0;
	}
out_free:
	/* The scheduler has answered: it is done reading the text. */
	if (b_buf)
		tq_buf_free(tq, b_buf);
	tq_buf_free(tq, a_buf);
	return ret;
}

int tq_register_program(struct tq *tq, const char *src, size_t len, const char *options,
			uint32_t *program)
{
	return tq_register_program_log(tq, src, len, options, program, NULL, 0);
}

int tq_register_program_log(struct tq *tq, const char *src, size_t len, const char *options,
			    uint32_t *program, char *log, size_t log_len)
{
	struct tq_desc d = { .opcode = TQ_OP_PROGRAM };

	return tq_register(tq, &d, src, len, options, options ? strlen(options) : 0, program, log,
			   log_len);
}

int tq_register_builtin(struct tq *tq, const char *name, uint32_t *program)
{
	struct tq_desc d = { .opcode = TQ_OP_PROGRAM, .flags = TQ_DESC_F_BUILTIN };

	return tq_register(tq, &d, name, strlen(name), NULL, 0, program, NULL, 0);
}

int tq_lookup_kernel(struct tq *tq, uint32_t program, const char *name, uint32_t *kernel)
{
	struct tq_desc d = { .opcode = TQ_OP_KERNEL, .program = program };

	return tq_register(tq, &d, name, strlen(name), NULL, 0, kernel, NULL, 0);
}

/* What each errno means in tq's contract (tq_strerror(3) lists where). */
static const char *const tq_errors[] = {
	[ENXIO]		= "no " TQ_DEVICE_PATH " (is tqsubmit.ko loaded?) and no tqsubmitd socket "
			  "(" TQ_SOCKET_PATH ", or $TQ_SOCKET: is tqsubmitd running?)",
	[ENOENT]	= "no such program or kernel id: not registered by this context",
	[ENOPKG]	= "no built-in task of that name (tq_prep_builtin(3) lists them)",
	[ESRCH]		= "the program has no kernel of that name",
	[EUSERS]	= "too many connections to tqsubmitd for this user "
			  "(tqsubmitd --connections-per-user)",
	[ECONNREFUSED]	= "tqsubmitd does not listen on its socket (" TQ_SOCKET_PATH
			  ", or $TQ_SOCKET): is it running?",
	[ECONNRESET]	= "the connection to tqsubmitd is lost (it exited): the context is gone",
	[EPERM]		= "the context belongs to another process (fork), or its class is above "
			  "the user's max-prio (usched.conf)",
	[EPROTO]	= "libtq and tqsubmit.ko (or tqsubmitd) disagree on the ABI",
	[ERANGE]	= "ring entries out of range (module parameter ring_entries_max)",
	[EFBIG]		= "arena larger than the module parameter arena_bytes_max",
	[EMFILE]	= "too many contexts for this user (module parameter contexts_per_user)",
	[ENOMEM]	= "out of memory: the device's or the host's, arena space or locked memory "
			  "(RLIMIT_MEMLOCK)",
	[ENODEV]	= "the device was lost under the task (usched starts again on a fresh one)",
	[EIO]		= "the device failed the task's command (usched's log names the OpenCL error)",
	[ECANCELED]	= "not run: the task it was chained after failed",
	[EBADFD]	= "the rings broke: a ring index was corrupted",
	[EOPNOTSUPP]	= "descriptor rejected: unknown opcode; or the server lacks a feature "
			  "asked for (a class: TQ_FEAT_QOS)",
	[E2BIG]		= "descriptor rejected: too many buffers or scalars",
	[EFAULT]	= "descriptor rejected: a buffer lies outside the arena",
	[EINVAL]	= "invalid argument or descriptor (or a bad TQ_TRANSPORT), or a launch the "
			  "device refused",
	[EHOSTDOWN]	= "no scheduler attached (is usched running?): nothing took the tasks "
			  "for $TQ_SCHED_WAIT_MS (10 s)",
	[ETIME]		= "timed out: no completion in time, or the kernel ran past its time limit",
	[ETIMEDOUT]	= "its deadline cannot be met: not run (or tqsubmitd did not answer)",
	[EOWNERDEAD]	= "the scheduler died with the task maybe run in part; it is not run again",
	[EAGAIN]	= "no completion yet",
	[EBUSY]		= "the context has tasks in flight",
	[ENOEXEC]	= "the program does not compile (see its build log)",
};

const char *tq_strerror(int err)
{
	const char *s = NULL;

	if (err < 0)
		err = -err;
	if (err < (int)(sizeof(tq_errors) / sizeof(tq_errors[0])))
		s = tq_errors[err];
	if (!s)
		s = strerrordesc_np(err);
	return s ? s : "unknown error";
}
