// SPDX-License-Identifier: GPL-2.0
/*
 * tqsubmitd - the tqsubmit ABI served from user space, for hosts that cannot
 * load tqsubmit.ko: clients connect to one Unix socket and get their rings
 * and arena as memfds, the scheduler (usched) to another and reads events
 * and writes completions as it would on /dev/tqsubmit. See tqsubmitd(8).
 *
 * Start-up: options, the sockets (taken from systemd when it passes them,
 * LISTEN_FDS, else made here: the directory, a stale socket removed, the
 * mode and group set), signals into a signalfd, then without --foreground
 * a fork whose parent exits 0 once the child serves (the sockets exist
 * before the parent returns), and READY=1 to $NOTIFY_SOCKET when set.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "tq/daemon.h"
#include "tq/num.h"
#include "tq/version.h"
#include "tqsubmitd.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: tqsubmitd [options]\n"
		"  --socket PATH            client socket ($TQ_SOCKET, else " TQ_SOCKET_PATH ")\n"
		"  --sched-socket PATH      scheduler socket ($TQ_SCHED_SOCKET, else "
		TQ_SCHED_SOCKET_PATH ")\n"
		"  --group NAME             group of the client socket (default tq, if it exists)\n"
		"  --socket-mode MODE       mode of the client socket (default 0660)\n"
		"  --ring-entries-max N     most SQ or CQ entries of a context (4096)\n"
		"  --arena-bytes-max BYTES  largest arena of a context (1G)\n"
		"  --inflight-max N         most tasks a context has taken and not completed (1024)\n"
		"  --contexts-per-user N    most contexts one user holds (64; 0: no limit)\n"
		"  --connections-per-user N most connections one user holds\n"
		"                           (2 * contexts-per-user + 16; 0: no limit)\n"
		"  --user-bytes-max BYTES   arena and ring bytes one user holds (16G)\n"
		"  --metrics FILE           write the counters there for Prometheus (mode 0640,\n"
		"                           the client socket's group)\n"
		"  --metrics-interval SECONDS  how often (5; 0: at exit and on SIGHUP only)\n"
		"  --foreground             do not fork (systemd, tests)\n"
		"  --verbose                log every dropped record and connection refused\n"
		"  --help\n"
		"  --version                print tq's version and exit\n");
}

static int fill_addr(struct sockaddr_un *sa, const char *path)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa->sun_path)) {
		tqd_log(LOG_ERR, "%s: path too long for a Unix socket", path);
		return -1;
	}
	strcpy(sa->sun_path, path);
	return 0;
}

/* mkdir -p of path's directory, 0755. */
static int make_dir_of(const char *path)
{
	char dir[PATH_MAX];
	char *p;

	snprintf(dir, sizeof(dir), "%s", path);
	p = strrchr(dir, '/');
	if (!p || p == dir)
		return 0;
	*p = 0;
	for (p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(dir, 0755) && errno != EEXIST)
			goto fail;
		*p = '/';
	}
	if (mkdir(dir, 0755) && errno != EEXIST)
		goto fail;
	return 0;
fail:
	tqd_log(LOG_ERR, "mkdir %s: %s", dir, strerror(errno));
	return -1;
}

/*
 * Bind path: its directory made, a socket of a dead tqsubmitd removed (a
 * live one is an error: it is serving), then mode and group. With @now it
 * listens at once: the mode keeps others out until it is set, but not
 * root, whom a socket that exists and does not listen yet would refuse.
 * Otherwise main() listens once it has forked, so that the socket's peer
 * credentials name the process that serves it.
 */
static int listen_on(const char *path, mode_t mode, gid_t gid, bool gid_given, bool now)
{
	struct sockaddr_un sa;
	struct stat st;
	mode_t old;
	int fd, ret;

	if (fill_addr(&sa, path) || make_dir_of(path))
		return -1;
	if (!lstat(path, &st)) {
		if (!S_ISSOCK(st.st_mode)) {
			tqd_log(LOG_ERR, "%s exists and is not a socket", path);
			return -1;
		}
		fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
		ret = fd < 0 ? -1 : connect(fd, (struct sockaddr *)&sa, sizeof(sa));
		if (fd >= 0)
			close(fd);
		if (!ret) {
			tqd_log(LOG_ERR, "%s: another tqsubmitd serves it", path);
			return -1;
		}
		unlink(path);
	}
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		tqd_log(LOG_ERR, "socket: %s", strerror(errno));
		return -1;
	}
	/* Born with no access, so no one connects before mode and group are set. */
	old = umask(0777);
	ret = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (!ret && now && listen(fd, 128)) {
		ret = -1;
		unlink(path);
	}
	if (ret) {
		tqd_log(LOG_ERR, "%s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	/* The default group tq is a courtesy: a user outside it keeps its own. */
	if (gid != (gid_t)-1 && chown(path, (uid_t)-1, gid)) {
		if (gid_given || errno != EPERM) {
			tqd_log(LOG_ERR, "%s: group %u: %s", path, (unsigned int)gid, strerror(errno));
			close(fd);
			unlink(path);
			return -1;
		}
		tqd_log(LOG_INFO, "%s: not given to group tq (%s)", path, strerror(errno));
	}
	if (chmod(path, mode)) {
		tqd_log(LOG_ERR, "%s: %s", path, strerror(errno));
		close(fd);
		unlink(path);
		return -1;
	}
	return fd;
}

/* Sockets systemd passed (LISTEN_FDS): which one is which, by path. */
static int listen_fds(const char *client, const char *sched, int *cfd, int *sfd)
{
	const char *pid = getenv("LISTEN_PID"), *n = getenv("LISTEN_FDS");
	int i, count;

	if (!pid || !n || atol(pid) != getpid())
		return 0;
	count = atoi(n);
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
	for (i = 0; i < count; i++) {
		struct sockaddr_un sa;
		socklen_t len = sizeof(sa);
		int fd = 3 + i, type;
		socklen_t tl = sizeof(type);

		fcntl(fd, F_SETFD, FD_CLOEXEC);
		memset(&sa, 0, sizeof(sa));
		if (getsockname(fd, (struct sockaddr *)&sa, &len) || sa.sun_family != AF_UNIX ||
		    getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tl) || type != SOCK_SEQPACKET) {
			tqd_log(LOG_ERR, "passed descriptor %d is not a SOCK_SEQPACKET Unix socket", fd);
			return -1;
		}
		if (!strcmp(sa.sun_path, sched))
			*sfd = fd;
		else if (!strcmp(sa.sun_path, client))
			*cfd = fd;
		else
			tqd_log(LOG_ERR, "passed socket %s is neither %s nor %s: ignored",
				sa.sun_path, client, sched);
	}
	if (*cfd < 0 || *sfd < 0) {
		tqd_log(LOG_ERR, "systemd passed %d sockets, not %s and %s", count, client, sched);
		return -1;
	}
	return 1;
}

int main(int argc, char **argv)
{
	enum { O_SOCKET = 256, O_SCHED, O_GROUP, O_MODE, O_RING, O_ARENA, O_INFLIGHT, O_CTXS, O_CONNS,
	       O_USER_BYTES, O_METRICS, O_METRICS_INTERVAL, O_FG, O_VERBOSE, O_HELP };
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, O_SOCKET },
		{ "sched-socket", required_argument, NULL, O_SCHED },
		{ "group", required_argument, NULL, O_GROUP },
		{ "socket-mode", required_argument, NULL, O_MODE },
		{ "ring-entries-max", required_argument, NULL, O_RING },
		{ "arena-bytes-max", required_argument, NULL, O_ARENA },
		{ "inflight-max", required_argument, NULL, O_INFLIGHT },
		{ "contexts-per-user", required_argument, NULL, O_CTXS },
		{ "connections-per-user", required_argument, NULL, O_CONNS },
		{ "user-bytes-max", required_argument, NULL, O_USER_BYTES },
		{ "metrics", required_argument, NULL, O_METRICS },
		{ "metrics-interval", required_argument, NULL, O_METRICS_INTERVAL },
		{ "foreground", no_argument, NULL, O_FG },
		{ "verbose", no_argument, NULL, O_VERBOSE },
		{ "help", no_argument, NULL, O_HELP },
		{ 0 }
	};
	struct tqd_limits lim = {
		.ring_entries_max = 4096, .arena_bytes_max = 1ull << 30, .inflight_max = 1024,
		.contexts_per_user = 64, .user_bytes_max = 16ull << 30,
	};
	const char *client = TQ_SOCKET_PATH, *sched = TQ_SCHED_SOCKET_PATH, *group = NULL;
	int c, cfd = -1, sfd = -1, sigfd, status_fd = -1, passed, ret;
	struct tqd_metrics metrics = { .interval = 5 };
	mode_t mode = 0660;
	bool fg = false, made = false, verbose = false;
	gid_t gid = (gid_t)-1;
	struct rlimit rl;
	sigset_t sigs;
	uint64_t v, conns = UINT64_MAX;
	char *end;

	int li = 0;

	tq_version_opt(argc, argv, "tqsubmitd");
	/* libtq's and usched's variables, so that one setting moves all three. */
	if (getenv("TQ_SOCKET") && *getenv("TQ_SOCKET"))
		client = getenv("TQ_SOCKET");
	if (getenv("TQ_SCHED_SOCKET") && *getenv("TQ_SCHED_SOCKET"))
		sched = getenv("TQ_SCHED_SOCKET");
	while ((c = getopt_long(argc, argv, "", opts, &li)) != -1) {
		switch (c) {
		case O_SOCKET:
			client = optarg;
			break;
		case O_SCHED:
			sched = optarg;
			break;
		case O_GROUP:
			group = optarg;
			break;
		case O_MODE:
			mode = strtoul(optarg, &end, 8);
			if (*end || end == optarg || mode > 0777) {
				fprintf(stderr, "tqsubmitd: bad --socket-mode '%s'\n", optarg);
				return 2;
			}
			break;
		case O_RING:
		case O_INFLIGHT:
		case O_CTXS:
		case O_CONNS:
			/* 0 is no limit for the per-user ones, and nothing for the others. */
			if (tq_parse_u64(optarg, true, &v) || v > UINT32_MAX ||
			    (!v && c != O_CTXS && c != O_CONNS)) {
				fprintf(stderr, "tqsubmitd: bad --%s '%s'\n", opts[li].name, optarg);
				return 2;
			}
			if (c == O_RING)
				lim.ring_entries_max = v;
			else if (c == O_INFLIGHT)
				lim.inflight_max = v;
			else if (c == O_CTXS)
				lim.contexts_per_user = v;
			else
				conns = v;
			break;
		case O_ARENA:
		case O_USER_BYTES:
			if (tq_parse_u64(optarg, true, &v) || !v) {
				fprintf(stderr, "tqsubmitd: bad --%s '%s'\n", opts[li].name, optarg);
				return 2;
			}
			if (c == O_ARENA)
				lim.arena_bytes_max = v;
			else
				lim.user_bytes_max = v;
			break;
		case O_METRICS:
			metrics.path = optarg;
			break;
		case O_METRICS_INTERVAL:
			if (tq_parse_u64(optarg, false, &v) || v > 86400) {
				fprintf(stderr, "tqsubmitd: bad --metrics-interval '%s' (seconds, "
					"at most 86400)\n", optarg);
				return 2;
			}
			metrics.interval = v;
			break;
		case O_FG:
			fg = true;
			break;
		case O_VERBOSE:
			verbose = true;
			break;
		case O_HELP:
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return 2;
	}
	tqd_log_init(false, verbose);
	/* A connection per context, and as many again opening or asking (tqstat). */
	if (conns == UINT64_MAX)
		conns = lim.contexts_per_user ? 2ull * lim.contexts_per_user + 16 : 0;
	lim.conns_per_user = conns > UINT32_MAX ? UINT32_MAX : conns;
	if (!strcmp(client, sched)) {
		fprintf(stderr, "tqsubmitd: the client and scheduler sockets must differ\n");
		return 2;
	}
	if (group) {
		struct group *g = getgrnam(group);

		if (!g) {
			fprintf(stderr, "tqsubmitd: no group '%s'\n", group);
			return 2;
		}
		gid = g->gr_gid;
	} else {
		struct group *g = getgrnam("tq");

		if (g)
			gid = g->gr_gid;
	}

	/* Four descriptors a context (connection, rings, arena, eventfd): all we may. */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGHUP);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	sigfd = signalfd(-1, &sigs, SFD_CLOEXEC);
	if (sigfd < 0) {
		tqd_log(LOG_ERR, "signalfd: %s", strerror(errno));
		return 1;
	}

	passed = listen_fds(client, sched, &cfd, &sfd);
	if (passed < 0)
		return 1;
	if (!passed) {
		cfd = listen_on(client, mode, gid, group != NULL, fg);
		if (cfd < 0)
			return 1;
		sfd = listen_on(sched, 0600, (gid_t)-1, false, fg);
		if (sfd < 0) {
			unlink(client);
			return 1;
		}
		made = true;
	}
	if (!fg) {
		status_fd = tq_daemonize();
		if (status_fd < 0) {
			tqd_log(LOG_ERR, "fork: %s", strerror(errno));
			return 1;
		}
	}

	tqd_init(&lim, &tqd_loop_io);
	metrics.gid = gid;
	ret = tqd_loop_init(cfd, sfd, sigfd, &metrics);
	if (!ret && made && !fg && (listen(cfd, 128) || listen(sfd, 128))) {
		tqd_log(LOG_ERR, "listen: %s", strerror(errno));
		ret = -errno;
	}
	if (status_fd >= 0) {
		char st = ret ? 1 : 0;

		if (write(status_fd, &st, 1) != 1)
			ret = -EIO;
		close(status_fd);
		if (!ret) {
			tq_detach_stdio();
			tqd_log_init(true, verbose);	/* stderr is /dev/null now */
		}
	}
	if (ret)
		goto out;
	tqd_log(LOG_INFO, "serving %s (clients) and %s (the scheduler)", client, sched);
	tq_sd_ready();
	ret = tqd_loop_run();
out:
	if (made) {
		unlink(client);
		unlink(sched);
	}
	return ret ? 1 : 0;
}
