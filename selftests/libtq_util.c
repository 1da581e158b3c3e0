// SPDX-License-Identifier: GPL-2.0
/*
 * libtq_util.c - helpers of libtq's tests on either transport (libtq_util.h).
 */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include <tq/clock.h>

#include "selftests/tap.h"
#include "libtq_util.h"

int64_t lt_now_ms(void)
{
	return (int64_t)(tq_now_ns() / 1000000);
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

long long lt_stat(const char *name)
{
	return lt_socket() ? tqt_stat(tqt_client_path(), name) : raw_stat(name);
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

pid_t lt_tqsubmitd_start(const char *prog, char *dir)
{
	char csock[128], ssock[128];
	int64_t end = lt_now_ms() + 10000;
	pid_t pid;
	int fd;

	if (!prog)
		prog = getenv("TQSUBMITD") ? getenv("TQSUBMITD") : TQSUBMITD;
	if (access(prog, X_OK)) {
		fprintf(stderr, "%s: %s\n", prog, strerror(errno));
		return -1;
	}
	strcpy(dir, "/tmp/tq-tqsubmitd.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(csock, sizeof(csock), "%s/tqsubmit.sock", dir);
	snprintf(ssock, sizeof(ssock), "%s/sched.sock", dir);
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 2);	/* its log of each attach: noise in a benchmark's output */
		execl(prog, "tqsubmitd", "--foreground", "--socket", csock, "--sched-socket", ssock,
		      (char *)NULL);
		_exit(127);
	}
	while ((fd = tqt_connect(ssock)) < 0) {
		if (waitpid(pid, NULL, WNOHANG) == pid || lt_now_ms() > end) {
			fprintf(stderr, "%s did not come up\n", prog);
			lt_tqsubmitd_stop(pid, dir);
			return -1;
		}
		usleep(5000);
	}
	close(fd);
	setenv(TQT_ENV_SOCKET, csock, 1);
	setenv(TQT_ENV_SCHED_SOCKET, ssock, 1);
	return pid;
}

void lt_tqsubmitd_stop(pid_t pid, const char *dir)
{
	char path[128];

	if (pid > 0) {
		kill(pid, SIGTERM);
		waitpid(pid, NULL, 0);
	}
	snprintf(path, sizeof(path), "%s/tqsubmit.sock", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/sched.sock", dir);
	unlink(path);
	rmdir(dir);
}
