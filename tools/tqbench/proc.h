/* SPDX-License-Identifier: GPL-2.0 */
/*
 * proc.h - what the files of --workers process share: the usched daemon
 * and a tqsubmitd of tqbench's own (proc_daemon.c), the worker processes
 * and their socket pairs (proc_workers.c), the T x N runs through them
 * (proc.c), and the open loop's and the stream's (proc_openloop.c).
 */
#ifndef TQ_BENCH_PROC_H
#define TQ_BENCH_PROC_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "libtq/tq.h"
#include "tools/tqbench/bench.h"

#define MAX_ROUNDS	(MAX_SLOTS / 2)		/* T >= 2 */
#define START_S		120	/* the daemon up; workers registered (a build each) */
#define RUN_S		300	/* a run's tasks, or their checks */
#define STOP_S		60	/* the daemon, after SIGTERM */

/* Parent to worker, one byte. */
enum { CMD_GO = 1, CMD_CHECK };

/* Worker to parent: ready (after setup or a check), or a run's report. */
enum { MSG_READY = 1, MSG_REPORT, MSG_SUBMITTED };

struct wtask {
	int32_t status;			/* the completion's */
	uint32_t seen;			/* completions of it: exactly one */
	uint64_t start_ns, end_ns;	/* CLOCK_MONOTONIC */
};

struct wmsg {
	uint32_t kind;
	int32_t err;			/* 0, or the worker failed (it said why) */
	uint32_t stray;			/* completions of no task of this run */
	uint32_t done, all;		/* the stream: tasks completed in its window, and in all */
	uint32_t verified, wrong;	/* outputs checked against the host reference */
	struct wtask t[MAX_ROUNDS];	/* by round */
};

/* One task of a worker: its kernel and its buffers in the worker's arena. */
struct wslot {
	const struct btask *b;
	uint32_t prog, kern;
	void *buf[TQK_MAX_BUFS];
	uint64_t off[TQK_MAX_BUFS];
	uint64_t seed;			/* of its inputs (tqk_fill) */
};

/* A process we started: its pid, 0 once reaped. */
struct child {
	pid_t pid;
	int sock;			/* workers: our end of the socket pair */
};

struct run;
/* A worker process's body: worker w of ru, commands on sock until it closes. */
typedef void (*worker_fn)(const struct run *ru, unsigned int w, int sock);

struct run {
	struct env *e;
	struct result *r;
	int p;
	struct child d;			/* usched */
	struct child w[MAX_WORKERS];
	struct wmsg msg[MAX_WORKERS];
	char log[600], prom[600];
	char tglog[600], tasklog[600];	/* the daemon's tg-log and task-log; "": none */
	bool openloop;			/* the open loop's workers: no tg-log nor task-log */
	const char *conf;		/* the daemon's usched.conf; NULL: none (/dev/null) */
	worker_fn worker;		/* what each worker process runs (it does not return) */
};

/* The daemon's counters we report: TGs, their measured makespans, policy time. */
struct mstat {
	double tgs, measured_s, policy_s, refine_s;
	/* the model against the device: makespans, and each stage's time (htd, k, dth) */
	double predicted_s, stage_s[CLX_STAGES][2];	/* [0] predicted, [1] measured */
};

/* proc_daemon.c */
/* The workers reach the scheduler through tqsubmitd's socket (else the module). */
bool proc_socket(void);
/* How a child ended (a wait status, -1: none), for a message. */
const char *how(int st, char *buf, size_t len);
/* Reap c within secs, else SIGKILL it; its wait status, or -1 if none was to be had. */
int reap(struct child *c, double secs);
/* Is the daemon still there? If not, say so. */
bool daemon_alive(struct run *ru);
int daemon_start(struct run *ru);
int daemon_stop(struct run *ru);
int metrics_read(const char *path, struct mstat *m);
/* The counters now: SIGHUP makes the daemon write them (through a rename). */
int metrics_now(struct run *ru, struct mstat *m);

/* proc_workers.c */
/* The daemon with ru's policy, its log and metrics in OUT, and the workers, all ready. */
int run_start(struct run *ru);
int workers_start(struct run *ru);
/* A message of kind from every worker; 0, or -errno having said why. */
int gather(struct run *ru, uint32_t kind, int secs);
/* cmd to every worker; a worker gone before it is said, as gather() says it. */
int command(struct run *ru, char cmd);
/* Close the workers' sockets (failed: SIGKILL them first) and reap them. */
void workers_stop(struct run *ru, bool failed);
/* A worker's message to the parent; the worker exits if the parent is gone. */
void send_msg(int sock, struct wmsg *m);
/* A task of the synthetic suite: SYN on device memory, its copies beside it. */
bool synthetic_task(const struct btask *b);
/* Fill the task's descriptor: its kernel's arguments as tqk_plan() gives them. */
int slot_prep(const struct wslot *ws, struct tq_desc *d);

#endif /* TQ_BENCH_PROC_H */
