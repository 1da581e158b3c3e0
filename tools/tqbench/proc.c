// SPDX-License-Identifier: GPL-2.0
/*
 * proc.c - the policies through the real system (--workers process).
 *
 * For each policy tqbench starts the usched daemon with that policy, its
 * device and its profile, and waits until it is attached and serving (it
 * tells us as it tells systemd: READY=1 on NOTIFY_SOCKET). Then it forks
 * T workers. Each opens its own context of /dev/tqsubmit through libtq,
 * registers the kernels its tasks need, and gives each of its N tasks
 * buffers of its own in its arena. Per run the parent says go and each
 * worker submits its N tasks at once, each chained after the previous one
 * (tq_desc_set_after(), TQ_DESC_F_AFTER: as the in-process runs flag them
 * USCHED_TASK_ORDERED, so usched forms TGs of the T x N tasks the same
 * way), and reports each task's status, how many completions it saw and
 * the start and end stamps the completion carries. A server without chains
 * (no TQ_FEAT_CHAINS) gets them one at a time instead, each after the
 * previous one's completion. Outside the
 * timed window the parent then has every worker check its outputs against
 * the host reference and fill its inputs again. The makespan is the first
 * start to the last end over the run's tasks. Then the workers exit, the
 * daemon gets SIGTERM, and we wait for it.
 *
 * Synthetic tasks are SYN on device memory beside copies of their own; the
 * ABI binds every buffer to a kernel argument, so here the copies are two
 * more arguments of a SYN kernel the kernel does not touch. Through the
 * module usched's kernel model sees m as the product of the global sizes,
 * the same for T0..T7, so each task gets a kernel of its own (one program).
 * Their outputs are device memory only: nothing to check but the status.
 *
 * The workers are named tqbench-worker (PR_SET_NAME: what ps and pgrep
 * show), so that they are told from the daemon, also a child of tqbench
 * named tqbench from its fork to its exec.
 *
 * The daemon and the workers die with tqbench (PR_SET_PDEATHSIG); the
 * daemon's log goes to OUT/usched.log, its metrics (the TG counts and
 * times of the report) to OUT/usched.prom, its tg-log and task-log (each
 * TG's and task's stage times, predicted and measured) after each policy
 * to OUT/proc-tg.csv and OUT/proc-tasks.csv.
 *
 * Transports: the module when /dev/tqsubmit exists, else tqsubmitd's socket
 * (TQ_TRANSPORT forces either, as libtq does). On the socket, when no
 * tqsubmitd listens on $TQ_SOCKET, tqbench starts one of its own (--tqsubmitd,
 * default the one beside tqbench) on sockets in a directory of its own,
 * exports TQ_SOCKET and TQ_SCHED_SOCKET to usched and the workers, and stops
 * it at exit; its log is OUT/tqsubmitd.log. The scheduler's pid comes from
 * tqsubmitd's counters instead of sysfs.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "libtq/tq.h"
#include "tools/tqbench/bench.h"
#include "tools/tqcalib/progress.h"
#include "tq/clock.h"
#include "tq/num.h"
#include "tq_transport.h"

#define SYSFS_PID	"/sys/class/misc/" TQ_DEVICE_NAME "/scheduler_pid"
#define MAX_ROUNDS	(MAX_SLOTS / 2)		/* T >= 2 */
#define START_S		120	/* the daemon up; workers registered (a build each) */
#define RUN_S		300	/* a run's tasks, or their checks */
#define STOP_S		60	/* the daemon, after SIGTERM */
#define WORKER_COMM	"tqbench-worker"	/* the workers' name (ps, pgrep -x) */

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

static char usched_path[PATH_MAX];
static char syn_src[16384];		/* the synthetic suite's program */

/* A process we started: its pid, 0 once reaped. */
struct child {
	pid_t pid;
	int sock;			/* workers: our end of the socket pair */
};

struct run {
	struct env *e;
	struct result *r;
	int p;
	struct child d;			/* usched */
	struct child w[MAX_WORKERS];
	struct wmsg msg[MAX_WORKERS];
	char log[600], prom[600];
	char tglog[600], tasklog[600];	/* the daemon's tg-log and task-log; "": none */
	bool openloop;			/* the workers are the open loop's (olp_worker_main) */
};

static int transport;		/* TQT_MODULE or TQT_SOCKET */
static bool tg_started, tasks_started;	/* proc-tg.csv, proc-tasks.csv begun */
static char tqd_dir[64];	/* the sockets of the tqsubmitd we started, or "" */
static pid_t tqd_pid;
static char tqd_log[PATH_MAX];

/* The attached scheduler's pid, 0 for none, -1 if unknown: sysfs, or tqsubmitd's counters. */
static pid_t sched_pid(void)
{
	FILE *f;
	int pid = -1;

	if (transport == TQT_SOCKET)
		return tqt_stat(tqt_client_path(), "scheduler_pid");
	f = fopen(SYSFS_PID, "r");
	if (f) {
		if (fscanf(f, "%d", &pid) != 1)
			pid = -1;
		fclose(f);
	}
	return pid;
}

static const char *sched_where(void)
{
	return transport == TQT_SOCKET ? tqt_sched_path() : TQ_DEVICE_PATH;
}

/* A program beside this tqbench: @name in @buf. */
static void beside(char *buf, size_t len, const char *name)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);
	char *slash;

	buf[n > 0 ? n : 0] = 0;
	slash = strrchr(buf, '/');
	snprintf(slash ? slash + 1 : buf, len - (slash ? slash + 1 - buf : 0), "%s", name);
}

static void tqd_stop(void)
{
	char path[128];
	int st;

	if (tqd_pid <= 0)
		return;
	kill(tqd_pid, SIGTERM);
	for (int i = 0; i < 500 && waitpid(tqd_pid, &st, WNOHANG) != tqd_pid; i++)
		usleep(10000);
	kill(tqd_pid, SIGKILL);
	waitpid(tqd_pid, &st, WNOHANG);
	tqd_pid = 0;
	snprintf(path, sizeof(path), "%s/tqsubmit.sock", tqd_dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/sched.sock", tqd_dir);
	unlink(path);
	rmdir(tqd_dir);
}

/*
 * No tqsubmitd listens: start one of ours, its sockets in a directory of
 * our own (the environment tells usched and the workers), stopped at exit.
 */
static int tqd_start(const struct opts *o)
{
	char path[PATH_MAX], csock[128], ssock[128];
	double end = now_s() + 10;
	pid_t parent = getpid();
	int logfd, st, fd;

	if (o->tqsubmitd)
		snprintf(path, sizeof(path), "%s", o->tqsubmitd);
	else
		beside(path, sizeof(path), "tqsubmitd");
	if (access(path, X_OK)) {
		fprintf(stderr, "tqbench: --workers process: no %s nor tqsubmitd listening on %s, and "
			"%s: %s (--tqsubmitd names it)\n", TQ_DEVICE_PATH, tqt_client_path(), path,
			strerror(errno));
		return -ENOENT;
	}
	snprintf(tqd_dir, sizeof(tqd_dir), "/tmp/tqbench-tqsubmitd.XXXXXX");
	if (!mkdtemp(tqd_dir)) {
		tqd_dir[0] = 0;
		return -errno;
	}
	chmod(tqd_dir, 0755);
	snprintf(csock, sizeof(csock), "%s/tqsubmit.sock", tqd_dir);
	snprintf(ssock, sizeof(ssock), "%s/sched.sock", tqd_dir);
	snprintf(tqd_log, sizeof(tqd_log), "%s/tqsubmitd.log", o->out);
	mkdir(o->out, 0755);
	logfd = open(tqd_log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (logfd < 0)
		logfd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	fflush(NULL);
	tqd_pid = fork();
	if (tqd_pid < 0) {
		tqd_pid = 0;
		close(logfd);
		return -errno;
	}
	if (!tqd_pid) {
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(1);
		dup2(logfd, 1);
		dup2(logfd, 2);
		close_range(3, ~0U, 0);
		/*
		 * A server of our own for one benchmark: a worker's arena
		 * holds its real tasks' buffers, past tqsubmitd's defaults
		 * meant for a shared host.
		 */
		execl(path, "tqsubmitd", "--foreground", "--socket", csock, "--sched-socket", ssock,
		      "--arena-bytes-max", "8G", "--user-bytes-max", "256G", (char *)NULL);
		_exit(127);
	}
	close(logfd);
	atexit(tqd_stop);
	while ((fd = tqt_connect(ssock)) < 0) {
		if (waitpid(tqd_pid, &st, WNOHANG) == tqd_pid || now_s() > end) {
			fprintf(stderr, "tqbench: --workers process: %s did not come up (its log: "
				"%s)\n", path, tqd_log);
			if (waitpid(tqd_pid, &st, WNOHANG) == tqd_pid)
				tqd_pid = 0;
			return -ECHILD;
		}
		usleep(10000);
	}
	close(fd);
	setenv(TQT_ENV, "socket", 1);
	setenv(TQT_ENV_SOCKET, csock, 1);
	setenv(TQT_ENV_SCHED_SOCKET, ssock, 1);
	fprintf(stderr, "tqbench: --workers process: no %s; tqsubmitd (pid %d) serves %s\n",
		TQ_DEVICE_PATH, tqd_pid, csock);
	return 0;
}

int proc_check(struct opts *o)
{
	pid_t pid;
	int fd, ret;

	transport = tqt_pick();
	if (transport < 0) {
		fprintf(stderr, "tqbench: --workers process: %s=%s: want module, socket or auto\n",
			TQT_ENV, getenv(TQT_ENV));
		return -EINVAL;
	}
	if (transport == TQT_MODULE && access(TQ_DEVICE_PATH, F_OK)) {
		fprintf(stderr, "tqbench: --workers process: %s: %s: the tqsubmit module is not "
			"loaded (insmod kmod/tqsubmit.ko)\n", TQ_DEVICE_PATH, strerror(errno));
		return -ENODEV;
	}
	if (transport == TQT_SOCKET) {
		fd = tqt_connect(tqt_client_path());
		if (fd >= 0) {
			close(fd);
			setenv(TQT_ENV, "socket", 1);
		} else if (fd == -ENOENT || fd == -ECONNREFUSED) {
			ret = tqd_start(o);
			if (ret)
				return ret;
		} else {
			fprintf(stderr, "tqbench: --workers process: %s: %s\n", tqt_client_path(),
				strerror(-fd));
			return fd;
		}
	}
	pid = sched_pid();
	if (pid > 0) {
		fprintf(stderr, "tqbench: --workers process: another scheduler (pid %d) is attached "
			"to %s; stop it first\n", pid, sched_where());
		return -EBUSY;
	}
	if (o->usched)
		snprintf(usched_path, sizeof(usched_path), "%s", o->usched);
	else
		beside(usched_path, sizeof(usched_path), "usched");	/* the one built beside */
	if (access(usched_path, X_OK)) {
		fprintf(stderr, "tqbench: --workers process: %s: %s (--usched names the daemon)\n",
			usched_path, strerror(errno));
		return -ENOENT;
	}
	o->usched = usched_path;
	return 0;
}

/* How a child ended, for a message. */
static const char *how(int st, char *buf, size_t len)
{
	if (st == -1)
		snprintf(buf, len, "is gone (no status)");
	else if (WIFSIGNALED(st))
		snprintf(buf, len, "killed by signal %d (%s)", WTERMSIG(st),
			 strsignal(WTERMSIG(st)));
	else
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(st));
	return buf;
}

/* Reap c within secs, else SIGKILL it; its wait status, or -1 if none was to be had. */
static int reap(struct child *c, double secs)
{
	double end = now_s() + secs;
	int st = -1;

	while (c->pid > 0) {
		pid_t got = waitpid(c->pid, &st, WNOHANG);

		if (got == c->pid || (got < 0 && errno != EINTR)) {
			c->pid = 0;
			break;
		}
		if (now_s() > end) {
			kill(c->pid, SIGKILL);
			end = INFINITY;
		}
		usleep(10000);
	}
	return st;
}

/* The daemon's last lines, on stderr. */
static void log_tail(const struct run *ru)
{
	char buf[2048], *p = buf;
	FILE *f = fopen(ru->log, "r");
	long size;
	size_t n;

	if (!f)
		return;
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fseek(f, size > (long)sizeof(buf) - 1 ? size - (long)sizeof(buf) + 1 : 0, SEEK_SET);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	if (size > (long)n && strchr(buf, '\n'))	/* from the first whole line */
		p = strchr(buf, '\n') + 1;
	fprintf(stderr, "tqbench: the end of %s:\n%s", ru->log, p);
}

/* Is the daemon still there? If not, say so. */
static bool daemon_alive(struct run *ru)
{
	char b[64];
	int st;

	if (ru->d.pid <= 0)
		return false;
	if (waitpid(ru->d.pid, &st, WNOHANG) != ru->d.pid)
		return true;
	ru->d.pid = 0;
	fprintf(stderr, "tqbench: usched (%s) %s\n", pol_name(ru->p), how(st, b, sizeof(b)));
	log_tail(ru);
	return false;
}

/* Our environment with notify (NOTIFY_SOCKET=...) for the daemon's; free() it. */
static char **daemon_env(char *notify)
{
	size_t n = 0, k = 0;
	char **envp;

	while (environ[n])
		n++;
	envp = calloc(n + 2, sizeof(*envp));
	for (size_t i = 0; envp && i < n; i++)
		if (strncmp(environ[i], "NOTIFY_SOCKET=", 14))
			envp[k++] = environ[i];
	if (envp)
		envp[k] = notify;
	return envp;
}

static int daemon_start(struct run *ru)
{
	const struct env *e = ru->e;
	char name[64], env_notify[80], dev[300], max_tg[16], kq[16];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	/* No arena quotas: the workers are one user, their arenas past a shared host's defaults. */
	const char *argv[40] = {
		usched_path, "--foreground", "--config", "/dev/null", "--state", "",
		"--policy", pol_name(ru->p), "--profile", e->o->profile, "--device", dev,
		"--metrics", ru->prom, "--metrics-interval", "0",
		"--context-arena", "0", "--user-arena", "0",
	};
	unsigned int argc = 20;
	char **envp;
	double end = now_s() + START_S;
	int sfd, logfd, nullfd, ret = -ETIMEDOUT;
	socklen_t salen;
	pid_t parent = getpid(), sched;

	snprintf(kq, sizeof(kq), "%u", e->o->kqueues);
	if (e->o->kqueues) {
		argv[argc++] = "--kernel-queues";
		argv[argc++] = kq;
	}
	snprintf(max_tg, sizeof(max_tg), "%u", e->o->max_tg);
	if (e->o->max_tg) {
		argv[argc++] = "--max-tg";
		argv[argc++] = max_tg;
	}
	if (e->o->no_plans)
		argv[argc++] = "--no-plans";
	if (e->o->no_refine)
		argv[argc++] = "--no-refine";
	if (e->o->no_poll)
		argv[argc++] = "--no-poll";
	if (ru->tglog[0]) {
		argv[argc++] = "--tg-log";
		argv[argc++] = ru->tglog;
		argv[argc++] = "--task-log";
		argv[argc++] = ru->tasklog;
	}
	/* the device tqbench opened, by platform and name (usched splits at the first '/') */
	if (strchr(e->c.platform, '/'))
		snprintf(dev, sizeof(dev), "%s", e->c.name);
	else
		snprintf(dev, sizeof(dev), "%s/%s", e->c.platform, e->c.name);
	snprintf(name, sizeof(name), "tqbench-%d-%s", (int)parent, pol_name(ru->p));
	memcpy(sa.sun_path + 1, name, strlen(name));	/* abstract: sun_path[0] is 0 */
	salen = offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name);
	snprintf(env_notify, sizeof(env_notify), "NOTIFY_SOCKET=@%s", name);
	envp = daemon_env(env_notify);
	sfd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	logfd = open(ru->log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	nullfd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (!envp || sfd < 0 || logfd < 0 || nullfd < 0 || bind(sfd, (void *)&sa, salen)) {
		ret = -errno;
		fprintf(stderr, "tqbench: cannot start usched: %s\n", strerror(errno));
		goto out;
	}
	dprintf(logfd, "== tqbench: usched --policy %s for %s %s %ux%u\n", pol_name(ru->p),
		ru->r->s->name, ru->r->s->bench[ru->r->bench], ru->r->T, ru->r->N);
	fflush(NULL);
	ru->d.pid = fork();
	if (ru->d.pid < 0) {
		ret = -errno;
		ru->d.pid = 0;
		goto out;
	}
	if (!ru->d.pid) {
		/* it stops (SIGTERM: cleanly) when tqbench dies */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(1);
		dup2(nullfd, 0);
		dup2(logfd, 1);
		dup2(logfd, 2);
		close_range(3, ~0U, 0);
		execve(usched_path, (char **)argv, envp);
		_exit(127);	/* the parent reports the status */
	}
	while (now_s() < end) {
		struct pollfd pfd = { .fd = sfd, .events = POLLIN };
		char msg[256];
		ssize_t n;

		if (poll(&pfd, 1, 100) > 0) {
			n = recv(sfd, msg, sizeof(msg) - 1, 0);
			msg[n > 0 ? n : 0] = 0;
			if (strstr(msg, "READY=1")) {
				ret = 0;
				break;
			}
		}
		if (!daemon_alive(ru)) {
			ret = -ESRCH;
			break;
		}
	}
	sched = sched_pid();
	if (!ret && sched >= 0 && sched != ru->d.pid) {
		fprintf(stderr, "tqbench: usched (pid %d) is ready but %s names pid %d\n",
			ru->d.pid, transport == TQT_SOCKET ? "tqsubmitd" : SYSFS_PID, sched);
		ret = -EBUSY;
	}
	if (ret == -ETIMEDOUT)
		fprintf(stderr, "tqbench: usched (%s) not ready after %d s\n", pol_name(ru->p),
			START_S);
out:
	free(envp);
	if (sfd >= 0)
		close(sfd);
	if (logfd >= 0)
		close(logfd);
	if (nullfd >= 0)
		close(nullfd);
	return ret;
}

/*
 * SIGTERM; the daemon finishes what it holds and exits 0. The module lets
 * go of it a moment later (its io_uring drops the file asynchronously), and
 * the next one can attach only then.
 */
static int daemon_stop(struct run *ru)
{
	pid_t pid = ru->d.pid;
	double end;
	char b[64];
	int st;

	if (pid <= 0)
		return 0;	/* never started, or gone (said so) */
	kill(pid, SIGTERM);
	st = reap(&ru->d, STOP_S);
	for (end = now_s() + 10; sched_pid() == pid && now_s() < end; )
		usleep(10000);
	if (st && st != -1) {
		fprintf(stderr, "tqbench: usched (%s) %s after SIGTERM\n", pol_name(ru->p),
			how(st, b, sizeof(b)));
		log_tail(ru);
		return -EIO;
	}
	return 0;
}

/* The daemon's counters we report: TGs, their measured makespans, policy time. */
struct mstat {
	double tgs, measured_s, policy_s, refine_s;
	/* the model against the device: makespans, and each stage's time (htd, k, dth) */
	double predicted_s, stage_s[CLX_STAGES][2];	/* [0] predicted, [1] measured */
};

static int metrics_read(const char *path, struct mstat *m)
{
	FILE *f = fopen(path, "r");
	char line[256];
	int n = 0;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		n += sscanf(line, "tq_tgs_total %lf", &m->tgs) == 1;
		n += sscanf(line, "tq_tg_makespan_seconds_total{kind=\"measured\"} %lf",
			    &m->measured_s) == 1;
		n += sscanf(line, "tq_policy_seconds_total %lf", &m->policy_s) == 1;
		n += sscanf(line, "tq_refine_seconds_total %lf", &m->refine_s) == 1;
		sscanf(line, "tq_tg_makespan_seconds_total{kind=\"predicted\"} %lf",
		       &m->predicted_s);
		for (int s = 0; s < CLX_STAGES; s++) {
			static const char *const name[CLX_STAGES] = { "htd", "k", "dth" };
			char key[80];

			for (int k = 0; k < 2; k++) {
				snprintf(key, sizeof(key), "tq_tg_stage_seconds_total{stage=\"%s\","
					 "kind=\"%s\"} %%lf", name[s], k ? "measured" : "predicted");
				sscanf(line, key, &m->stage_s[s][k]);
			}
		}
	}
	fclose(f);
	return n == 4 ? 0 : -EINVAL;
}

/* The counters now: SIGHUP makes the daemon write them (through a rename). */
static int metrics_now(struct run *ru, struct mstat *m)
{
	double end = now_s() + 10;

	unlink(ru->prom);
	kill(ru->d.pid, SIGHUP);
	while (now_s() < end && daemon_alive(ru)) {
		if (!metrics_read(ru->prom, m))
			return 0;
		usleep(10000);
	}
	return -ETIMEDOUT;
}

/* The worker side */

static bool synthetic_task(const struct btask *b)
{
	return b->tk == tqk_find("SYN");
}

/* The synthetic suite's program: SYN (kernels/syn.cl) once per task, copies as arguments. */
static void syn_program(const struct suite *s)
{
	size_t len = 0;

	for (unsigned int i = 0; i < s->npool && len < sizeof(syn_src); i++)
		len += snprintf(syn_src + len, sizeof(syn_src) - len,
				"__kernel void syn_%s(__global uint *input, int num_iterations, "
				"uint factor,\n\t\t__global const uint *copy_in, "
				"__global uint *copy_out)\n{\n\tint idx = get_global_id(0);\n\n"
				"\tfor (int i = 0; i < num_iterations; i++)\n"
				"\t\tinput[idx] *= factor;\n}\n\n", s->pool[i].name);
}

/* The arena a worker needs: every copied buffer of its tasks, and room to register. */
static size_t worker_arena(const struct result *r, unsigned int w)
{
	size_t n = 1 << 16;

	for (unsigned int s = w; s < r->nslots; s += r->T)
		for (unsigned int i = 0; i < r->slot[s].l.nbufs; i++)
			if (r->slot[s].dir[i] != BT_SCRATCH)
				n += (r->slot[s].l.buf[i].bytes + 4095) & ~4095ull;
	return n;
}

static int slot_setup(struct tq *tq, struct wslot *ws, const struct wslot *prev, unsigned int n)
{
	const struct btask *b = ws->b;
	char kname[40];
	int ret = 0;

	/* the kernel: once per kernels/ task (synthetic: per task) in this context */
	for (unsigned int i = 0; i < n; i++) {
		if (prev[i].b->tk == b->tk &&
		    (!synthetic_task(b) || !strcmp(prev[i].b->name, b->name))) {
			ws->prog = prev[i].prog;
			ws->kern = prev[i].kern;
		}
	}
	if (!ws->kern && synthetic_task(b)) {
		for (unsigned int i = 0; i < n && !ws->prog; i++)
			ws->prog = prev[i].prog;
		if (!ws->prog)
			ret = tq_register_program(tq, syn_src, strlen(syn_src), NULL, &ws->prog);
		snprintf(kname, sizeof(kname), "syn_%s", b->name);
		ret = ret ?: tq_lookup_kernel(tq, ws->prog, kname, &ws->kern);
	} else if (!ws->kern) {
		ret = tq_register_builtin(tq, b->tk->name, &ws->prog);
		ret = ret ?: tq_lookup_kernel(tq, ws->prog, b->tk->kernel, &ws->kern);
	}
	if (ret) {
		fprintf(stderr, "tqbench: worker %d: registering %s: %s\n", getpid(), b->name,
			tq_strerror(ret));
		return ret;
	}
	for (unsigned int i = 0; i < b->l.nbufs && !ret; i++) {
		if (b->dir[i] == BT_SCRATCH)
			continue;
		ret = b->l.buf[i].bytes > UINT32_MAX ? -E2BIG :
			tq_buf_alloc(tq, b->l.buf[i].bytes, &ws->buf[i], &ws->off[i]);
	}
	if (ret)
		fprintf(stderr, "tqbench: worker %d: arena for %s: %s\n", getpid(), b->name,
			tq_strerror(ret));
	return ret;
}

/* Fill the task's descriptor: its kernel's arguments as tqk_plan() gives them. */
static int slot_prep(const struct wslot *ws, struct tq_desc *d)
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

static void slots_fill(struct wslot *ws, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		if (!synthetic_task(ws[i].b))
			tqk_fill(ws[i].b->tk, ws[i].b->sz, ws[i].seed, ws[i].buf);
}

static void slots_check(struct wslot *ws, unsigned int n, struct wmsg *m)
{
	for (unsigned int i = 0; i < n; i++) {
		struct tqk_mismatch mm;

		if (synthetic_task(ws[i].b))
			continue;
		if (!tqk_verify(ws[i].b->tk, ws[i].b->sz, ws[i].seed, ws[i].buf, &mm)) {
			m->verified++;
			continue;
		}
		if (!m->wrong++)
			fprintf(stderr, "tqbench: worker %d: %s: wrong output: buffer %u [%llu] is "
				"%g, not %g\n", getpid(), ws[i].b->name, mm.buf,
				(unsigned long long)mm.index, mm.got, mm.want);
	}
}

/*
 * One run: the N tasks at once, each after the previous one (a chain), or
 * without TQ_FEAT_CHAINS each submitted after the previous one's completion.
 */
static void send_msg(int sock, struct wmsg *m);

/*
 * One run of worker's tasks: submitted at once where chains allow (else one
 * at a time), MSG_SUBMITTED on @sock once the first submission is made,
 * then their completions into @m.
 */
static int worker_run(struct tq *tq, struct wslot *ws, unsigned int n, uint32_t run,
		      struct wmsg *m, int sock)
{
	static struct wmsg submitted = { .kind = MSG_SUBMITTED };
	bool chain = tq->features & TQ_FEAT_CHAINS;
	unsigned int sent = 0, done = 0;
	struct tq_cqe *cqe;
	int ret = 0;

	while (!ret && done < n) {
		while (!ret && sent < n && (chain || sent == done)) {
			struct tq_desc *d = tq_get_desc(tq);

			if (!d && sent == done)
				return -EBUSY;
			if (!d)
				break;	/* the SQ is full: reap first */
			ret = slot_prep(&ws[sent], d);
			tq_desc_set_data(d, (uint64_t)run << 32 | sent);
			if (chain && sent)
				tq_desc_set_after(d, 1);
			sent++;
		}
		if (!ret) {
			ret = tq_submit(tq);
			ret = ret < 0 ? ret : 0;
		}
		if (sock >= 0) {
			submitted.err = ret;
			send_msg(sock, &submitted);
			sock = -1;
		}
		if (!ret)
			ret = tq_wait(tq, &cqe, RUN_S * 1000);
		if (ret)
			break;
		if (cqe->user_data >> 32 == run && (uint32_t)cqe->user_data < sent) {
			struct wtask *t = &m->t[(uint32_t)cqe->user_data];

			done += !t->seen++;
			t->status = cqe->status;
			t->start_ns = cqe->start_ns;
			t->end_ns = cqe->end_ns;
		} else {
			m->stray++;
		}
		tq_cqe_seen(tq, cqe);
	}
	/* anything more now is a second completion or a stray */
	while (!ret && !tq_peek(tq, &cqe)) {
		if (cqe->user_data >> 32 == run && (uint32_t)cqe->user_data < n)
			m->t[(uint32_t)cqe->user_data].seen++;
		else
			m->stray++;
		tq_cqe_seen(tq, cqe);
	}
	if (ret)
		fprintf(stderr, "tqbench: worker %d: run %u: %s\n", getpid(), run, tq_strerror(ret));
	return ret;
}

static void send_msg(int sock, struct wmsg *m)
{
	if (send(sock, m, sizeof(*m), MSG_NOSIGNAL) != sizeof(*m))
		_exit(3);
}

/* A worker process: w of r; commands on sock until it closes. */
static void __attribute__((noreturn)) worker_main(const struct run *ru, unsigned int w, int sock)
{
	const struct result *r = ru->r;
	static struct wslot ws[MAX_ROUNDS];
	struct wmsg m = { .kind = MSG_READY };
	unsigned int n = r->N;
	uint32_t run = 0;
	struct tq tq;
	char cmd;

	memset(ws, 0, sizeof(ws));
	m.err = tq_open(&tq, 64, worker_arena(r, w), 0);
	if (m.err) {
		fprintf(stderr, "tqbench: worker %d: tq_open (%zu MiB arena): %s%s\n", getpid(),
			worker_arena(r, w) >> 20, tq_strerror(m.err), m.err != -EFBIG ? "" :
			transport == TQT_SOCKET ? " (tqsubmitd --arena-bytes-max)" :
			" (/sys/module/tqsubmit/parameters/arena_bytes_max)");
		send_msg(sock, &m);
		_exit(1);
	}
	for (unsigned int rd = 0; rd < n && !m.err; rd++) {
		ws[rd].b = &r->slot[rd * r->T + w];
		ws[rd].seed = ru->e->o->seed * 1000 + rd * r->T + w;
		m.err = slot_setup(&tq, &ws[rd], ws, rd);
	}
	if (!m.err)
		slots_fill(ws, n);	/* only slots whose buffers are there */
	send_msg(sock, &m);
	while (!m.err && recv(sock, &cmd, 1, 0) == 1) {
		memset(&m, 0, sizeof(m));
		if (cmd == CMD_GO) {
			m.kind = MSG_REPORT;
			m.err = worker_run(&tq, ws, n, ++run, &m, sock);
		} else {
			m.kind = MSG_READY;
			slots_check(ws, n, &m);
			slots_fill(ws, n);
		}
		send_msg(sock, &m);
	}
	tq_close(&tq);
	_exit(m.err ? 1 : 0);
}

/* The parent side */

static void __attribute__((noreturn)) olp_worker_main(const struct run *ru, unsigned int w,
						      int sock);

static int workers_start(struct run *ru)
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
			if (ru->openloop)
				olp_worker_main(ru, w, sv[1]);
			worker_main(ru, w, sv[1]);
		}
		close(sv[1]);
		ru->w[w].sock = sv[0];
	}
	return 0;
}

/* A message of kind from every worker; 0, or -errno having said why. */
static int gather(struct run *ru, uint32_t kind, int secs)
{
	unsigned int T = ru->r->T, left = T;
	bool got[MAX_WORKERS] = { false };
	double end = now_s() + secs;

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
		if (left && now_s() > end) {
			fprintf(stderr, "tqbench: %u worker(s) silent for %d s\n", left, secs);
			return -ETIMEDOUT;
		}
	}
	return 0;
}

/* cmd to every worker; a worker gone before it is said, as gather() says it. */
static int command(struct run *ru, char cmd)
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

/* Every task completed once with status 0; the makespan of the run in *ms. */
static int run_result(struct run *ru, double *ms)
{
	const struct result *r = ru->r;
	uint64_t first = UINT64_MAX, last = 0;

	for (unsigned int w = 0; w < r->T; w++) {
		const struct wmsg *m = &ru->msg[w];

		if (m->stray) {
			fprintf(stderr, "tqbench: worker %u: %u stray completion(s)\n", w, m->stray);
			return -EPROTO;
		}
		for (unsigned int rd = 0; rd < r->N; rd++) {
			const struct wtask *t = &m->t[rd];

			if (t->seen != 1 || t->status || !t->start_ns || t->end_ns < t->start_ns) {
				fprintf(stderr, "tqbench: worker %u, task %u (%s): %u completion(s), "
					"status %d (%s)\n", w, rd, r->slot[rd * r->T + w].name,
					t->seen, t->status, strerror(-t->status));
				return -EIO;
			}
			first = t->start_ns < first ? t->start_ns : first;
			last = t->end_ns > last ? t->end_ns : last;
		}
	}
	*ms = (last - first) / 1e6;
	return 0;
}

/* Outputs checked: every real task's, none wrong. */
static int check_result(struct run *ru, unsigned int *verified)
{
	unsigned int want = 0, got = 0, wrong = 0;

	for (unsigned int s = 0; s < ru->r->nslots; s++)
		want += !synthetic_task(&ru->r->slot[s]);
	for (unsigned int w = 0; w < ru->r->T; w++) {
		got += ru->msg[w].verified;
		wrong += ru->msg[w].wrong;
	}
	*verified += got;
	if (wrong || got != want) {
		fprintf(stderr, "tqbench: %u of %u outputs wrong, %u verified\n", wrong, want, got);
		return -EIO;
	}
	return 0;
}

static void workers_stop(struct run *ru, bool failed)
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

/*
 * The daemon's log at @part (a header, then a line per TG or task) onto
 * OUT/@name after the experiment's suite,bench,T,N, as tg.csv's lines
 * begin; the part goes. OUT/@name starts afresh with this tqbench (@fresh).
 */
static void log_merge(const struct run *ru, const char *part, const char *name, bool *fresh)
{
	const struct result *r = ru->r;
	char path[700], line[512];
	FILE *in = fopen(part, "r"), *out;
	bool header = true;

	if (!in)
		return;
	snprintf(path, sizeof(path), "%s/%s", ru->e->o->out, name);
	out = fopen(path, *fresh ? "a" : "w");
	*fresh = true;
	while (out && fgets(line, sizeof(line), in)) {
		if (header && ftell(out) == 0)
			fprintf(out, "suite,bench,T,N,%s", line);
		else if (!header)
			fprintf(out, "%s,%s,%u,%u,%s", r->s->name, r->s->bench[r->bench], r->T, r->N,
				line);
		header = false;
	}
	if (out)
		fclose(out);
	fclose(in);
	unlink(part);
}

/* The daemon with ru's policy, its log and metrics in OUT, and the workers, all ready. */
static int run_start(struct run *ru)
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

/*
 * One run of the workers' tasks. usched is held (SIGSTOP) while the workers
 * submit, so that their tasks are ready at once, as in-process, where
 * tqbench submits every task before usched's loop looks: otherwise the
 * first TG forms from whichever workers' tasks came first, and the mix the
 * policy orders is another one each run.
 */
static int run_held(struct run *ru)
{
	bool held = !kill(ru->d.pid, SIGSTOP);
	int ret;

	ret = command(ru, CMD_GO);
	ret = ret ?: gather(ru, MSG_SUBMITTED, RUN_S);
	if (held)
		kill(ru->d.pid, SIGCONT);
	return ret ?: gather(ru, MSG_REPORT, RUN_S);
}

/* Policy p through the daemon: warm-up, then --runs runs. */
static int policy_procs(struct env *e, struct result *r, int p)
{
	struct run ru = { .e = e, .r = r, .p = p };
	unsigned int runs = e->o->runs > 64 ? 64 : e->o->runs, verified = 0;
	struct mstat a = { 0 }, b = { 0 };
	double v[64];
	bool have_a = false;
	int ret, stop;

	ret = run_start(&ru);
	for (unsigned int k = 0; k <= runs && !ret; k++) {
		double ms;

		ret = run_held(&ru);
		ret = ret ?: run_result(&ru, &ms);
		ret = ret ?: command(&ru, CMD_CHECK);
		ret = ret ?: gather(&ru, MSG_READY, RUN_S);
		ret = ret ?: check_result(&ru, &verified);
		if (!ret && k)
			v[k - 1] = ms;
		/* the counters from here on: the warm-up run is not counted */
		if (!ret && !k)
			have_a = !metrics_now(&ru, &a);
		progress_step(1, policy_names[p]);
	}
	workers_stop(&ru, ret);
	stop = daemon_stop(&ru);
	log_merge(&ru, ru.tglog, "proc-tg.csv", &tg_started);
	log_merge(&ru, ru.tasklog, "proc-tasks.csv", &tasks_started);
	ret = ret ?: stop;
	if (ret)
		return ret;
	r->proc_ms[p] = tq_median(v, runs);
	if (have_a && !metrics_read(ru.prom, &b) && b.tgs > a.tgs) {
		r->proc_tgs[p] = b.tgs - a.tgs;
		r->proc_sched_ns[p] = (b.policy_s - a.policy_s) * 1e9 / r->proc_tgs[p];
		r->proc_refine_ns[p] = (b.refine_s - a.refine_s) * 1e9 / r->proc_tgs[p];
		r->proc_tg_ms[p] = (b.measured_s - a.measured_s) * 1e3 / r->proc_tgs[p];
		/* where the TGs' time went against the model (proc-tg.csv has each TG) */
		fprintf(stderr, "tqbench: process %s: %u TGs after the warm-up, ms predicted/"
			"measured: makespan %.2f/%.2f, HtD %.2f/%.2f, K %.2f/%.2f, DtH %.2f/%.2f\n",
			policy_names[p], r->proc_tgs[p], (b.predicted_s - a.predicted_s) * 1e3,
			(b.measured_s - a.measured_s) * 1e3,
			(b.stage_s[CLX_HTD][0] - a.stage_s[CLX_HTD][0]) * 1e3,
			(b.stage_s[CLX_HTD][1] - a.stage_s[CLX_HTD][1]) * 1e3,
			(b.stage_s[CLX_K][0] - a.stage_s[CLX_K][0]) * 1e3,
			(b.stage_s[CLX_K][1] - a.stage_s[CLX_K][1]) * 1e3,
			(b.stage_s[CLX_DTH][0] - a.stage_s[CLX_DTH][0]) * 1e3,
			(b.stage_s[CLX_DTH][1] - a.stage_s[CLX_DTH][1]) * 1e3);
	}
	fprintf(stderr, "tqbench: process %s: %u runs x %u tasks, each completed once with status "
		"0; %u outputs verified\n", policy_names[p], runs + 1, r->nslots, verified);
	return 0;
}

int run_procs(struct env *e, struct result *r)
{
	int ret = 0;

	if (r->T > MAX_WORKERS || r->N > MAX_ROUNDS)
		return -EINVAL;
	if (r->s->synthetic)
		syn_program(r->s);
	r->pol_proc = true;
	progress_begin("policies (processes)", NPOL * (e->o->runs + 1.0));
	for (int p = 0; p < NPOL && !ret; p++)
		ret = policy_procs(e, r, p);
	progress_end();
	if (ret)
		e->proc_failed++;
	return ret;
}

/*
 * The stream with worker processes through the daemon (policy p), on the
 * open loop's workers below: each of --stream-workers processes keeps
 * --stream-depth real tasks in flight for --stream-s seconds, each new one
 * drawn as the in-process stream and the independent workers draw theirs
 * (the same seeds: the same tasks in the same order); counted over the last
 * 90%: tasks per second, and latency from submission to completion as the
 * client sees it. TGs and the policy's share from the daemon's metrics. The
 * engines' busy shares need the commands' profiling, which the daemon
 * keeps: unknown.
 */
int stream_procs(struct env *e, const struct suite *real, int p, struct stream_result *sr)
{
	unsigned int T = e->o->stream_workers, N = e->o->stream_depth;
	double S = e->o->stream_s, *lat = NULL;
	struct olp_shm *sh;
	size_t n = 0;
	int ret;

	memset(sr, 0, sizeof(*sr));
	snprintf(sr->setup, sizeof(sr->setup), "proc-%s", pol_name(p));
	sr->workers = T;
	for (int s = 0; s < CLX_STAGES; s++)
		sr->util[s] = -1;
	sr->device_util = sr->bound_util = -1;
	if (T > MAX_WORKERS || N > OLP_DEPTH_MAX || T < 1 || N < 1)
		return -EINVAL;
	sh = ol_procs_open(e, real, p, T);
	if (!sh)
		return -EIO;
	sh->stream = true;
	sh->depth = N;
	sh->seed = e->o->seed;
	sh->from_ns = tq_now_ns() + (uint64_t)(S * 1e8);
	sh->end_ns = sh->from_ns - (uint64_t)(S * 1e8) + (uint64_t)(S * 1e9);
	ret = ol_procs_go(S, &sr->tg_size, &sr->sched_share);
	for (unsigned int w = 0; !ret && w < T; w++)
		sr->tasks += sh->nlat[w];
	lat = ret ? NULL : malloc((sr->tasks + 1) * sizeof(*lat));
	for (unsigned int w = 0; lat && w < T; w++)
		for (uint32_t i = 0; i < sh->nlat[w]; i++)
			lat[n++] = sh->lat[w][i];
	if (lat && n) {
		qsort(lat, n, sizeof(*lat), tq_cmp_double);
		sr->p50_ms = lat[n / 2];
		sr->p99_ms = lat[(size_t)fmin(n - 1, ceil(0.99 * n) - 1)];
	}
	free(lat);
	ret = ol_procs_close(ret != 0) ?: ret;
	if (!ret) {
		sr->secs = 0.9 * S;
		sr->tput = sr->tasks / sr->secs;
		fprintf(stderr, "tqbench: stream %s: %u processes x %u in flight, %llu tasks in "
			"%.1f s, each completed with status 0\n", sr->setup, T, N,
			(unsigned long long)sr->tasks, sr->secs);
	}
	return ret;
}

/*
 * The open loop through the daemon (openloop.c's setups proc-POLICY): P
 * worker processes, each a libtq context whose arena holds every pool task
 * laid out alike (inputs from 0, outputs from out_base, as in tqbench's
 * in-process arena: tasks share host memory, whose contents do not matter
 * to their times). Per point the parent writes each worker's arrivals into
 * memory shared before the fork and says go; a worker submits each task at
 * its arrival, takes completions as they come and stamps each with the time
 * it saw it. The daemon and the workers live for one setup's points.
 */
static struct olp_shm *olp;
static struct run olr;
static struct result olres;
static struct btask olb[MAX_POOL];	/* the pool, laid out */

#define OLP_ENTRIES	512

/* A pool task's kernel in this context: registered once per kernels/ task. */
static int olp_kernel(struct tq *tq, struct wslot *ws, const struct wslot *prev, unsigned int n)
{
	int ret = 0;

	for (unsigned int i = 0; i < n && !ws->kern; i++) {
		if (prev[i].b->tk == ws->b->tk) {
			ws->prog = prev[i].prog;
			ws->kern = prev[i].kern;
		}
	}
	if (!ws->kern) {
		ret = tq_register_builtin(tq, ws->b->tk->name, &ws->prog);
		ret = ret ?: tq_lookup_kernel(tq, ws->prog, ws->b->tk->kernel, &ws->kern);
	}
	if (ret)
		fprintf(stderr, "tqbench: worker %d: registering %s: %s\n", getpid(),
			ws->b->name, tq_strerror(ret));
	return ret;
}

/* One point: worker w's arrivals submitted at their times, each completion stamped. */
static int olp_point(struct tq *tq, const struct wslot *ws, unsigned int w, struct wmsg *m)
{
	unsigned int n = olp->narr[w], k = 0, got = 0;
	uint64_t t0 = olp->t0, idle_since = tq_now_ns();
	int ret = 0;

	while (!ret && got < n) {
		uint64_t now = tq_now_ns(), next;
		struct pollfd pfd = { .fd = tq->event_fd, .events = POLLIN };
		struct timespec ts;
		struct tq_cqe *cqe;
		bool queued = false;

		for (; k < n && t0 + olp->at[w][k] <= now && !ret; k++) {
			struct tq_desc *d = tq_get_desc(tq);

			if (!d)		/* the SQ is full: this one on the next pass */
				break;
			ret = slot_prep(&ws[olp->pool[w][k]], d);
			tq_desc_set_data(d, k);
			queued = true;
		}
		if (queued && !ret) {
			ret = tq_submit(tq);
			ret = ret < 0 ? ret : 0;
		}
		while (!ret && !tq_peek(tq, &cqe)) {
			uint64_t i = cqe->user_data;

			if (i >= n || olp->done[w][i]) {
				m->stray++;
			} else {
				olp->done[w][i] = tq_now_ns();
				olp->status[w][i] = cqe->status;
				got++;
				idle_since = olp->done[w][i];
			}
			tq_cqe_seen(tq, cqe);
		}
		if (ret || got == n)
			break;
		now = tq_now_ns();
		if (now - idle_since > (uint64_t)RUN_S * 1000000000) {
			ret = -ETIMEDOUT;
			break;
		}
		/* until the next arrival (soon when the SQ was full) or a completion */
		next = k < n ? t0 + olp->at[w][k] : now + 100000000;
		next = next > now ? next : now + 100000;
		ts = (struct timespec){ (time_t)((next - now) / 1000000000),
					(long)((next - now) % 1000000000) };
		if (ppoll(&pfd, 1, &ts, NULL) > 0) {
			uint64_t v;

			if (read(tq->event_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
				ret = -errno;
		}
	}
	m->all = got;
	if (ret)
		fprintf(stderr, "tqbench: worker %d: open loop: %s\n", getpid(), tq_strerror(ret));
	return ret;
}

/* The stream: depth tasks in flight until end_ns, each new one drawn from the pool. */
static int olp_stream(struct tq *tq, const struct wslot *ws, const struct suite *s,
		      unsigned int w, struct wmsg *m)
{
	uint64_t rng = olp->seed + w, sub[OLP_DEPTH_MAX];
	bool busy[OLP_DEPTH_MAX] = { false };
	unsigned int inflight = 0;
	struct tq_cqe *cqe;
	int ret = 0;

	while (!ret) {
		uint64_t now = tq_now_ns();

		for (unsigned int d = 0; d < olp->depth && now < olp->end_ns && !ret; d++) {
			struct tq_desc *desc;

			if (busy[d])
				continue;
			desc = tq_get_desc(tq);
			if (!desc)
				return -EBUSY;
			ret = slot_prep(&ws[stream_draw(s, &rng)], desc);
			tq_desc_set_data(desc, d);
			busy[d] = true;
			sub[d] = now;
			inflight++;
		}
		if (!ret) {
			ret = tq_submit(tq);
			ret = ret < 0 ? ret : 0;
		}
		if (ret || !inflight)
			break;
		ret = tq_wait(tq, &cqe, RUN_S * 1000);
		while (!ret) {
			unsigned int d = cqe->user_data;
			uint64_t t = tq_now_ns();

			if (d >= olp->depth || !busy[d]) {
				m->stray++;
			} else if (cqe->status) {
				fprintf(stderr, "tqbench: worker %d: stream task: %s\n", getpid(),
					tq_strerror(cqe->status));
				ret = -EIO;
			} else {
				busy[d] = false;
				inflight--;
				m->all++;
				if (t >= olp->from_ns && t <= olp->end_ns && olp->nlat[w] < OLP_MAX)
					olp->lat[w][olp->nlat[w]++] = (t - sub[d]) / 1e6;
			}
			tq_cqe_seen(tq, cqe);
			if (tq_peek(tq, &cqe))
				break;
		}
	}
	if (ret)
		fprintf(stderr, "tqbench: worker %d: stream: %s\n", getpid(), tq_strerror(ret));
	return ret;
}

static void __attribute__((noreturn)) olp_worker_main(const struct run *ru, unsigned int w,
						      int sock)
{
	const struct suite *s = ru->r->s;
	const struct env *e = ru->e;
	static struct wslot ws[MAX_POOL];
	struct wmsg m = { .kind = MSG_READY };
	uint64_t base_off = 0;
	uint32_t *base = NULL;
	struct tq tq;
	char cmd;

	memset(ws, 0, sizeof(ws));
	m.err = tq_open(&tq, OLP_ENTRIES, e->arena_len + (1 << 20), 0);
	if (m.err) {
		fprintf(stderr, "tqbench: worker %d: tq_open (%zu MiB arena): %s\n", getpid(),
			e->arena_len >> 20, tq_strerror(m.err));
		send_msg(sock, &m);
		_exit(1);
	}
	m.err = tq_buf_alloc(&tq, e->arena_len, (void **)&base, &base_off);
	/* a benign pattern, as the in-process arena's */
	for (size_t i = 0; !m.err && i < e->arena_len / 4; i++)
		base[i] = 0x3f000000;
	for (unsigned int i = 0; i < s->npool && !m.err; i++) {
		ws[i].b = &olb[i];
		m.err = olp_kernel(&tq, &ws[i], ws, i);
		for (unsigned int j = 0; j < olb[i].l.nbufs && !m.err; j++) {
			if (olb[i].dir[j] == BT_SCRATCH)
				continue;
			ws[i].buf[j] = (char *)base + olb[i].off[j];
			ws[i].off[j] = base_off + olb[i].off[j];
		}
	}
	send_msg(sock, &m);
	while (!m.err && recv(sock, &cmd, 1, 0) == 1) {
		memset(&m, 0, sizeof(m));
		m.kind = MSG_REPORT;
		m.err = olp->stream ? olp_stream(&tq, ws, s, w, &m) : olp_point(&tq, ws, w, &m);
		send_msg(sock, &m);
	}
	tq_close(&tq);
	_exit(m.err ? 1 : 0);
}

struct olp_shm *ol_procs_open(struct env *e, const struct suite *s, int p, unsigned int P)
{
	int ret;

	if (P < 1 || P > MAX_WORKERS || s->npool > MAX_POOL)
		return NULL;
	olp = mmap(NULL, sizeof(*olp), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (olp == MAP_FAILED) {
		olp = NULL;
		return NULL;
	}
	for (unsigned int i = 0; i < s->npool; i++) {
		olb[i] = s->pool[i];
		btask_layout(&olb[i], e->out_base);
	}
	memset(&olres, 0, sizeof(olres));
	olres.s = s;
	olres.T = P;
	for (unsigned int i = 0; i < s->nbench; i++)
		if (s->pct[i] == 50)
			olres.bench = i;
	olr = (struct run){ .e = e, .r = &olres, .p = p, .openloop = true };
	ret = run_start(&olr);
	if (ret) {
		ol_procs_close(true);
		return NULL;
	}
	return olp;
}

int ol_procs_go(double secs, double *tg_size, double *sched_share)
{
	struct mstat a = { 0 }, b = { 0 };
	bool have_a = !metrics_now(&olr, &a);
	uint32_t all = 0;
	int ret;

	ret = command(&olr, CMD_GO);
	ret = ret ?: gather(&olr, MSG_REPORT, (int)secs + RUN_S);
	for (unsigned int w = 0; !ret && w < olres.T; w++) {
		if (olr.msg[w].stray) {
			fprintf(stderr, "tqbench: open loop worker %u: %u stray completion(s)\n", w,
				olr.msg[w].stray);
			ret = -EPROTO;
		}
		all += olr.msg[w].all;
	}
	*tg_size = *sched_share = 0;
	if (!ret && have_a && !metrics_now(&olr, &b) && b.tgs > a.tgs) {
		*tg_size = all / (b.tgs - a.tgs);
		if (b.measured_s > a.measured_s)
			*sched_share = (b.policy_s - a.policy_s) / (b.measured_s - a.measured_s);
	}
	return ret;
}

int ol_procs_close(bool failed)
{
	int ret;

	if (!olp)
		return 0;
	workers_stop(&olr, failed);
	ret = daemon_stop(&olr);
	munmap(olp, sizeof(*olp));
	olp = NULL;
	if (ret || failed)
		olr.e->proc_failed++;
	return ret;
}
