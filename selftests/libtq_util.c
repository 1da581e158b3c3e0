// SPDX-License-Identifier: GPL-2.0
/*
 * libtq_util.c - helpers of libtq's tests on either transport (libtq_util.h).
 */
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include "tap.h"
#include "libtq_util.h"

int64_t lt_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int lt_transport(void)
{
	static int kind = -1;

	if (kind < 0)
		kind = tqt_pick();
	return kind;
}

void lt_require_vm(void)
{
	if (lt_transport() < 0)
		tap_skip_all("TQ_TRANSPORT is not module, socket or auto");
	if (lt_socket()) {
		static char why[300];

		if (access(tqt_client_path(), F_OK)) {
			snprintf(why, sizeof(why), "no tqsubmitd socket %s (selftests/socket_env.sh "
				 "runs a test against tqsubmitd)", tqt_client_path());
			tap_skip_all(why);
		}
	} else {
		if (access(TQ_DEVICE_PATH, R_OK | W_OK))
			tap_skip_all("no " TQ_DEVICE_PATH " (these tests run in the test VM, or "
				     "natively on tqsubmitd: selftests/socket_env.sh)");
		if (geteuid())
			tap_skip_all("needs root to run tq_echod");
	}
	if (access(TQ_ECHOD, X_OK))
		tap_skip_all(TQ_ECHOD " is not built");
}

/*
 * tqsubmitd's counters: its TQD_SOCK_STATS command on a connection of the
 * client socket of their own, answered with text, one "name value" a line
 * ('#' lines between), the module's sysfs names.
 */
#if __has_include("tq/tqsubmitd.h")
#include "tq/tqsubmitd.h"
#else
struct tqd_stats {
	__u32	size;
	__u32	flags;
};
#define TQD_SOCK_STATS		_IOWR(TQ_IOC_MAGIC, 0x40, struct tqd_stats)
#define TQD_STATS_MAX		4096
#endif

static long long lt_stat_socket(const char *name)
{
	struct tq_sock_msg head = { .cmd = TQD_SOCK_STATS };
	struct tqd_stats req = { .size = sizeof(req) };
	char buf[TQD_STATS_MAX + sizeof(head) + 1], *line;
	size_t len = strlen(name);
	long long v = -1;
	struct pollfd pfd;
	ssize_t n;
	int fd;

	fd = tqt_connect(tqt_client_path());
	if (fd < 0)
		return -1;
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
	if (tqt_send(fd, &head, &req, sizeof(req), NULL, 0, 0) || poll(&pfd, 1, 5000) != 1 ||
	    (n = recv(fd, buf, sizeof(buf) - 1, 0)) < (ssize_t)sizeof(head)) {
		close(fd);
		return -1;
	}
	close(fd);
	memcpy(&head, buf, sizeof(head));
	if (head.cmd != TQD_SOCK_STATS || head.status)
		return -1;
	buf[n] = 0;
	line = buf + sizeof(head);
	while (line && *line) {
		if (!strncmp(line, name, len) && line[len] == ' ') {
			v = strtoll(line + len + 1, NULL, 10);
			break;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return v;
}

long long lt_stat(const char *name)
{
	return lt_socket() ? lt_stat_socket(name) : tq_stat(name);
}

long long lt_stat_wait(const char *name, long long want, int timeout_ms)
{
	int64_t end = lt_now_ms() + timeout_ms;
	long long v;

	while ((v = lt_stat(name)) != want && lt_now_ms() < end)
		usleep(5000);
	return v;
}

long long lt_fdinfo(pid_t pid, int fd, const char *key)
{
	char path[64], line[256];
	size_t klen = strlen(key);
	long long v = -1;
	FILE *f;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", pid, fd);
	else
		snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, key, klen) && line[klen] == ':') {
			v = strtoll(line + klen + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return v;
}

void lt_fdinfo_dump(int fd)
{
	char path[64], line[256];
	FILE *f;

	if (lt_socket())
		return;		/* a socket's fdinfo says nothing of the context */
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		printf("# %s", line);
	fclose(f);
	fflush(stdout);
}

pid_t lt_echod_start(const char *arg1, const char *arg2)
{
	char pidfile[64];
	siginfo_t info;
	int64_t end;
	pid_t pid;

	snprintf(pidfile, sizeof(pidfile), "/tmp/libtq-echod.%d", getpid());
	unlink(pidfile);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		execl(TQ_ECHOD, "tq_echod", "-q", "-p", pidfile, arg1, arg2, (char *)NULL);
		_exit(127);
	}
	/*
	 * It writes the pid file once attached; it may exit at once after
	 * (-n), so look for the file, and for its death without reaping it.
	 */
	end = lt_now_ms() + 10000;
	while (access(pidfile, F_OK)) {
		info.si_pid = 0;
		if (!waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT) && info.si_pid == pid &&
		    access(pidfile, F_OK))
			break;
		if (lt_now_ms() > end)
			break;
		usleep(2000);
	}
	if (access(pidfile, F_OK)) {
		tap_diag("tq_echod did not attach (scheduler_pid %lld)", lt_stat("scheduler_pid"));
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return -1;
	}
	unlink(pidfile);
	return pid;
}

int lt_echod_wait(pid_t pid, int timeout_ms)
{
	int64_t end = lt_now_ms() + timeout_ms;
	int status;

	while (waitpid(pid, &status, WNOHANG) != pid) {
		if (lt_now_ms() > end)
			return -1;
		usleep(2000);
	}
	return status;
}

int lt_echod_stop(pid_t pid)
{
	int status = -1;

	if (pid <= 0)
		return -1;
	kill(pid, SIGTERM);
	waitpid(pid, &status, 0);
	return status;
}
