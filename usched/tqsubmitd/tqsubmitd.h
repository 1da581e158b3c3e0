/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tqsubmitd.h - tqsubmitd's types: the server of the tqsubmit ABI over Unix
 * sockets, "the module in user space" (see tqsubmitd(8) and the socket
 * section of include/uapi/linux/tqsubmit.h).
 *
 * The state machine follows the module's (kmod/ctx.c and kmod/sched.c)
 * function for function, and shares its pure part (<tq/tqsubmit_check.h>,
 * <tq/tqsubmit_ring.h>). Its files call downwards only:
 *   main.c   options, sockets and start-up
 *   loop.c   the I/O: one io_uring for the listening sockets, every
 *            connection, the eventfd signals and the signals; nothing in it
 *            waits on a client
 *   sched.c  the scheduler's side: attach and detach, the events it reads,
 *            the completions it writes
 *   ctx.c    client contexts: setup, the doorbell, close and free
 *   state.c  the one struct tqd: its limits, users and counters
 *   log.c    the log
 * The state machine asks the loop for I/O through struct tqd_io, which the
 * loop hands to tqd_init().
 *
 * One thread does everything, so nothing here takes a lock. Shared memory
 * is the clients': tqsubmitd keeps its own copy of every index it writes,
 * reads the clients' once per look, and copies descriptors out before it
 * checks them, with the barrier pairings of kmod/tq.h (A-N), named at
 * each site.
 */
#ifndef TQSUBMITD_H
#define TQSUBMITD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <syslog.h>
#include <linux/tqsubmit.h>
#include <tq/tqsubmit_check.h>
#include <tq/tqsubmit_ring.h>
#include <tq/tqsubmitd.h>
#include <tq/clock.h>
#include <tq/list.h>

#define TQD_CTX_ID_MAX		((1U << 22) - 1)	/* as the module's */
#define TQD_QUANTUM		32	/* tasks of one context per turn */
#define TQD_PASSES		8	/* passes over the contexts per batch */
#define TQD_CTX_HASH		1024
#define TQD_MSG_MAX		(sizeof(struct tq_sock_msg) + 4096)	/* a command */
#define TQD_PAGE_MAX		4096	/* an ioctl struct's largest size (PAGE_SIZE) */
#define TQD_SCHED_RECV		(TQ_SOCK_COMPLETIONS_MAX * sizeof(struct tq_completion))
#define TQD_FEATURES		((TQ_FEATURES & ~TQ_FEAT_POLL) | TQ_FEAT_SOCKET)

/* Options: the module's parameters, and what stands in for memlock. */
struct tqd_limits {
	uint32_t ring_entries_max;	/* 4096 */
	uint64_t arena_bytes_max;	/* 1 GiB */
	uint32_t inflight_max;		/* 1024 */
	uint32_t contexts_per_user;	/* 64; 0: no limit */
	uint32_t conns_per_user;	/* 2 * contexts_per_user + 16; 0: no limit */
	uint64_t user_bytes_max;	/* arena and ring bytes per user: 16 GiB */
};

struct tqd_slot {
	struct list node;
	uint32_t gen;
	uint8_t state;		/* an enum tq_slot_state */
	uint8_t requeued;
	uint8_t pred_failed;	/* chains: as kmod/tq.h's struct tq_slot */
	uint32_t pred_slot;
	uint32_t succ;
	uint64_t started_ns;
	struct tq_event ev;	/* as kmod/tq.h's struct tq_slot */
};

/* One user's holdings, for contexts_per_user and user_bytes_max. */
struct tqd_user {
	struct list node;
	uid_t uid;
	unsigned int contexts;	/* live and closed-not-released */
	unsigned int conns;	/* connections open */
	uint64_t bytes;		/* arena and ring bytes of its contexts */
};

/* An io_uring request's user_data: what it was for. */
enum tqd_op_type {
	OP_ACCEPT,
	OP_RECV,
	OP_POLLOUT,
	OP_EFD,
	OP_SIGNAL,
	OP_TIMEOUT,
	OP_METRICS,
};

struct tqd_op {
	uint8_t type;
	bool busy;
	void *owner;
};

struct tqd_conn;

struct tqd_ctx {
	uint32_t id;
	struct tqd_conn *conn;	/* the client's connection, NULL once closed */
	pid_t pid;
	uid_t uid;
	struct tqd_user *user;
	int rings_fd;
	int arena_fd;
	int efd;		/* the client's eventfd, or -1 */
	size_t rings_size;
	uint64_t arena_bytes;
	uint8_t prio;		/* tq_setup.prio, for its TQ_EV_OPEN */
	uint64_t charged;	/* bytes charged to user */
	struct tq_ring sq;
	struct tq_ring cq;
	struct tqd_slot *slots;
	uint32_t nr_slots;
	struct list free;
	struct list pending;
	struct list delivered;
	struct list held;	/* successors waiting for their predecessors */
	uint64_t seq;		/* the last descriptor taken */
	uint32_t *chain;	/* a word per recent descriptor (tq_chain_pred()) */
	uint32_t in_use;
	struct list node;	/* live, then closed */
	struct list dirty;
	struct list hash;
	bool rung;		/* a doorbell kicked; absorbed until the next look (M/N) */
	bool known;
	bool closed;
	bool close_sent;
	bool broken;
	bool is_dirty;
	bool unlinked;		/* freed but for an eventfd write in flight */
	uint32_t sq_flags;
	uint64_t submitted, completed, rejected, requeued, abandoned;
	/* The eventfd is the client's: its writes go through io_uring, one at a time. */
	struct tqd_op efd_op;
	bool efd_again;
	uint64_t efd_one;
};

/* The counters of Documentation/ABI/testing/sysfs-class-misc-tqsubmit, and ours. */
struct tqd_counters {
	uint64_t contexts, submitted, delivered, completed, failed, rejected, dropped;
	uint64_t in_flight, requeued, abandoned, enters, enters_absorbed;
	uint64_t connections, bad_messages, bad_records, stalled_sends;
};

/* A message that could not be sent at once, with its descriptors. */
struct tqd_out {
	unsigned char *buf;
	size_t len;
	int fds[TQ_SOCK_EVENTS_MAX];
	unsigned int nfds;
};

enum tqd_conn_kind { CONN_CLIENT, CONN_SCHED };

struct tqd_conn {
	struct list node;
	enum tqd_conn_kind kind;
	int fd;
	pid_t pid;
	uid_t uid;
	struct tqd_user *user;
	struct tqd_ctx *ctx;	/* client: its context after SETUP */
	bool attached;		/* scheduler: after ATTACH */
	bool eof;		/* no more reading; freed once its requests are done */
	bool send_dead;		/* scheduler: a send failed, its end is near */
	struct tqd_op recv_op;
	struct tqd_op poll_op;
	struct tqd_out out;	/* a reply (client) or events (scheduler) waiting for room */
	struct msghdr mh;
	struct iovec iov;
	union {
		char buf[CMSG_SPACE(4 * sizeof(int))];
		struct cmsghdr align;
	} cmsg;
	unsigned char *buf;
	size_t buf_size;
};

/* The metrics file (--metrics): none when path is NULL. */
struct tqd_metrics {
	const char *path;
	unsigned int interval;	/* seconds; 0: at exit and on SIGHUP only */
	gid_t gid;		/* the client socket's group, or (gid_t)-1 */
};

/* What the state machine asks of the I/O around it (loop.c's tqd_loop_io). */
struct tqd_io {
	void (*efd_signal)(struct tqd_ctx *ctx);	/* write 1 to its eventfd, once at a time */
	void (*efd_cancel)(struct tqd_ctx *ctx);	/* cancel the write in flight */
	int (*sched_send)(void);	/* send tqd.batch to the scheduler, or keep it */
};

struct tqd {
	struct tqd_limits lim;
	const struct tqd_io *io;
	uid_t euid;
	struct list live;
	struct list closed;
	struct list dirty;
	struct list users;
	struct list conns;
	struct list ctx_hash[TQD_CTX_HASH];
	uint32_t next_id;
	unsigned int nr_ctxs;
	struct tqd_conn *sched;	/* the attached scheduler */
	bool sched_chains;	/* it attached with TQ_ATTACH_F_CHAINS */
	bool need_wakeup;
	bool kick;		/* something may give the scheduler work: look again */
	struct tqd_counters st;
	/* A batch of events being built for the scheduler. */
	struct tq_event batch[TQ_SOCK_EVENTS_MAX];
	int batch_fds[TQ_SOCK_EVENTS_MAX];
	unsigned int batch_n, batch_nfds;
};

extern struct tqd tqd;

/*
 * The six ring verbs: tqsubmitd's atomics around <tq/tqsubmit_ring.h>, as
 * kmod/tq.h's. tqsubmitd consumes the SQ and produces the CQ.
 */

/* Descriptors available in the SQ, or -EBADMSG if its producer is corrupt. */
static inline int tqd_sq_peek(struct tq_ring *sq)
{
	uint32_t producer = __atomic_load_n(sq->producer, __ATOMIC_ACQUIRE);	/* B, matches A */

	return tq_sq_avail(sq, producer);
}

static inline void tqd_sq_release(struct tq_ring *sq, uint32_t n)
{
	sq->cached += n;
	__atomic_store_n(sq->consumer, sq->cached, __ATOMIC_RELEASE);	/* C, matches D */
}

/* Free CQ entries, or -EBADMSG if the client corrupted its consumer. */
static inline int tqd_cq_reserve(struct tq_ring *cq)
{
	uint32_t consumer = __atomic_load_n(cq->consumer, __ATOMIC_ACQUIRE);	/* H, matches G */

	return tq_cq_free(cq, consumer);
}

static inline void tqd_cq_submit(struct tq_ring *cq)
{
	__atomic_store_n(cq->producer, cq->cached, __ATOMIC_RELEASE);	/* E, matches F */
}

/* state.c: the one state. */
void tqd_init(const struct tqd_limits *lim, const struct tqd_io *io);
struct tqd_user *tqd_user_get(uid_t uid);
void tqd_user_put(struct tqd_user *u);
int tqd_stats_text(char *buf, size_t size);
void tqd_metrics_write(const struct tqd_metrics *m);

/* ctx.c: client contexts. */
void tqd_query(struct tq_query *q);
int tqd_setup(struct tqd_conn *c, struct tq_setup *s, int efd);
int tqd_enter(struct tqd_conn *c, const struct tq_enter *e);
void tqd_ctx_close(struct tqd_ctx *ctx);
void tqd_ctx_unlink(struct tqd_ctx *ctx);
void tqd_ctx_free(struct tqd_ctx *ctx);
struct tqd_ctx *tqd_ctx_lookup(uint32_t id);
void tqd_ctx_set_flags(struct tqd_ctx *ctx, uint32_t set, uint32_t clear);
void tqd_ctx_break(struct tqd_ctx *ctx);
void tqd_efd_done(struct tqd_ctx *ctx);

/* sched.c: the scheduler's side. */
int tqd_attach(struct tqd_conn *c, struct tq_attach *a);
void tqd_detach(void);
bool tqd_fill(void);
void tqd_idle_check(void);
void tqd_completions(const struct tq_completion *c, unsigned int n);
void tqd_flush_dirty(void);

/* loop.c: the I/O. */
extern const struct tqd_io tqd_loop_io;
int tqd_loop_init(int lfd_client, int lfd_sched, int sigfd, const struct tqd_metrics *m);
int tqd_loop_run(void);

/* log.c: at syslog's priorities (LOG_ERR, LOG_INFO, LOG_DEBUG: --verbose's) */
void tqd_log_init(bool to_syslog, bool verbose);
void tqd_log(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* TQSUBMITD_H */
