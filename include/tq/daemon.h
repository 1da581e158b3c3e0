/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * daemon.h - how tq's daemons (usched, tqsubmitd) start as daemons: the
 * systemd readiness message, the fork whose parent exits only once the
 * child serves or failed, and stdio on /dev/null.
 */
#ifndef TQ_DAEMON_H
#define TQ_DAEMON_H

#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
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

#endif /* TQ_DAEMON_H */
