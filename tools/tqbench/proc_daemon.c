// SPDX-License-Identifier: GPL-2.0
/*
 * proc_daemon.c - the usched daemon of --workers process: started with a
 * policy, its device and its profile, watched, stopped; its metrics; and
 * the reaping of tqbench's children.
 *
 * tqbench waits until the daemon is attached and serving (it tells us as
 * it tells systemd: READY=1 on NOTIFY_SOCKET), and at the end gives it
 * SIGTERM and waits for it. It dies with tqbench (PR_SET_PDEATHSIG); its
 * log goes to OUT/usched.log, its metrics (the TG counts and times of the
 * report) to OUT/usched.prom. Each start's "ready in" line there says where
 * its start went; the programs the workers register are built by the first
 * daemon only: the others take their binaries from OUT/usched-cache
 * (usched's cache setting).
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
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/tqbench/proc.h"
#include "tq/clock.h"
#include "tq/self.h"
#include "tq_transport.h"

#define SYSFS_PID	"/sys/class/misc/" TQ_DEVICE_NAME "/scheduler_pid"

static int transport;		/* TQT_MODULE or TQT_SOCKET */
static char usched_path[PATH_MAX];
static char tqd_dir[64];	/* the sockets of the tqsubmitd we started, or "" */
static pid_t tqd_pid;
static char tqd_log[PATH_MAX];

bool proc_socket(void)
{
	return transport == TQT_SOCKET;
}

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
	double end = tq_now_s() + 10;
	pid_t parent = getpid();
	int logfd, st, fd;

	if (o->tqsubmitd)
		snprintf(path, sizeof(path), "%s", o->tqsubmitd);
	else
		tq_sibling_path(path, sizeof(path), "tqsubmitd");
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
		      "--arena-bytes-max", "8G", "--user-bytes-max", "256G",
		      /* clients of other users (--setups qos): open to them, as /dev/tqsubmit is */
		      "--socket-mode", o->other_users ? "0666" : "0660", (char *)NULL);
		_exit(127);
	}
	close(logfd);
	atexit(tqd_stop);
	while ((fd = tqt_connect(ssock)) < 0) {
		if (waitpid(tqd_pid, &st, WNOHANG) == tqd_pid || tq_now_s() > end) {
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
		tq_sibling_path(usched_path, sizeof(usched_path), "usched");	/* the one built beside */
	if (access(usched_path, X_OK)) {
		fprintf(stderr, "tqbench: --workers process: %s: %s (--usched names the daemon)\n",
			usched_path, strerror(errno));
		return -ENOENT;
	}
	o->usched = usched_path;
	return 0;
}

/* How a child ended, for a message. */
const char *how(int st, char *buf, size_t len)
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
int reap(struct child *c, double secs)
{
	double end = tq_now_s() + secs;
	int st = -1;

	while (c->pid > 0) {
		pid_t got = waitpid(c->pid, &st, WNOHANG);

		if (got == c->pid || (got < 0 && errno != EINTR)) {
			c->pid = 0;
			break;
		}
		if (tq_now_s() > end) {
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
bool daemon_alive(struct run *ru)
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

int daemon_start(struct run *ru)
{
	const struct env *e = ru->e;
	char name[64], env_notify[80], dev[300], max_tg[16], kq[16], cache[PATH_MAX];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	/* No arena quotas: the workers are one user, their arenas past a shared host's defaults. */
	const char *argv[40] = {
		usched_path, "--foreground", "--config", "/dev/null", "--state", "",
		"--policy", pol_name(ru->p), "--profile", e->o->profile, "--device", dev,
		"--metrics", ru->prom, "--metrics-interval", "0",
		"--context-arena", "0", "--user-arena", "0", "--cache", cache,
	};
	unsigned int argc = 22;
	char **envp;
	double end = tq_now_s() + START_S;
	int sfd, logfd, nullfd, ret = -ETIMEDOUT;
	socklen_t salen;
	pid_t parent = getpid(), sched;

	if (ru->conf)
		argv[3] = ru->conf;
	snprintf(cache, sizeof(cache), "%s/usched-cache", e->o->out);
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
	while (tq_now_s() < end) {
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
int daemon_stop(struct run *ru)
{
	pid_t pid = ru->d.pid;
	double end;
	char b[64];
	int st;

	if (pid <= 0)
		return 0;	/* never started, or gone (said so) */
	kill(pid, SIGTERM);
	st = reap(&ru->d, STOP_S);
	for (end = tq_now_s() + 10; sched_pid() == pid && tq_now_s() < end; )
		usleep(10000);
	if (st && st != -1) {
		fprintf(stderr, "tqbench: usched (%s) %s after SIGTERM\n", pol_name(ru->p),
			how(st, b, sizeof(b)));
		log_tail(ru);
		return -EIO;
	}
	return 0;
}

int metrics_read(const char *path, struct mstat *m)
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
int metrics_now(struct run *ru, struct mstat *m)
{
	double end = tq_now_s() + 10;

	unlink(ru->prom);
	kill(ru->d.pid, SIGHUP);
	while (tq_now_s() < end && daemon_alive(ru)) {
		if (!metrics_read(ru->prom, m))
			return 0;
		usleep(10000);
	}
	return -ETIMEDOUT;
}
