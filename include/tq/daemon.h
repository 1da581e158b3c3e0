/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * daemon.h - how tq's daemons (usched, tqsubmitd) start as daemons: the
 * systemd readiness message, the fork whose parent exits only once the
 * child serves or failed, and stdio on /dev/null; and how both write their
 * metrics file.
 */
#ifndef TQ_DAEMON_H
#define TQ_DAEMON_H

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

/* Tell systemd (Type=notify) we serve: READY=1 to $NOTIFY_SOCKET, if set. */
static inline void tq_sd_ready(void)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len;
	int fd;

	if (!path || (path[0] != '/' && path[0] != '@') || strlen(path) >= sizeof(sa.sun_path))
		return;
	len = strlen(path);
	memcpy(sa.sun_path, path, len);
	if (sa.sun_path[0] == '@')
		sa.sun_path[0] = 0;	/* abstract namespace */
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	sendto(fd, "READY=1", 7, 0, (struct sockaddr *)&sa,
	       offsetof(struct sockaddr_un, sun_path) + len);
	close(fd);
}

/*
 * Fork; the parent exits only once the child serves (status 0) or has
 * failed, so that "daemon && run-clients" works. The child writes its
 * status byte to the returned fd (closing it unwritten: status 1); -1 if
 * the fork could not be made.
 */
static inline int tq_daemonize(void)
{
	int p[2];
	char c;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid > 0) {
		close(p[1]);
		_exit(read(p[0], &c, 1) == 1 ? c : 1);
	}
	close(p[0]);
	setsid();
	return p[1];
}

/* stdin, stdout and stderr on /dev/null. */
static inline void tq_detach_stdio(void)
{
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return;
	dup2(fd, 0);
	dup2(fd, 1);
	dup2(fd, 2);
	close(fd);
}

/*
 * A file that names other users' work (metrics, a trace): created or
 * truncated, mode 0640 in group @gid ((gid_t)-1: the writer's own) whatever
 * the umask, open for writing with @flags added. The fd, or -errno;
 * *@group_err is the errno of a group that could not be set (then only the
 * writer's group may read it), else 0.
 */
static inline int tq_file_create(const char *path, int flags, gid_t gid, int *group_err)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | flags, 0640);

	*group_err = 0;
	if (fd < 0)
		return -errno;
	if (gid != (gid_t)-1 && fchown(fd, -1, gid))
		*group_err = errno;
	fchmod(fd, 0640);
	return fd;
}

/*
 * A Prometheus text file, for node_exporter's textfile collector and
 * tqstat: @print fills PATH.tmp (a name the collector skips), which is then
 * renamed over PATH, so that a reader never sees half of it. Mode 0640 in
 * group @gid ((gid_t)-1: the writer's own), whatever the umask; *@group_err
 * is the errno of a group that could not be set (then only the writer's
 * group may read it), else 0. Returns 0 or -errno.
 */
static inline int tq_prom_write(const char *path, gid_t gid, void (*print)(FILE *f, void *arg),
				void *arg, int *group_err)
{
	size_t len = strlen(path) + 5;
	char *tmp = malloc(len);
	FILE *f = NULL;
	int fd, ret = 0;

	*group_err = 0;
	if (!tmp)
		return -ENOMEM;
	snprintf(tmp, len, "%s.tmp", path);
	fd = tq_file_create(tmp, 0, gid, group_err);
	if (fd < 0) {
		ret = fd;
		goto out;
	}
	f = fdopen(fd, "w");
	if (!f) {
		ret = -errno;
		close(fd);
		goto out;
	}
	print(f, arg);
	if (ferror(f))
		ret = -EIO;
	if (fclose(f) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret)
		unlink(tmp);
out:
	free(tmp);
	return ret;
}

#endif /* TQ_DAEMON_H */
