// SPDX-License-Identifier: GPL-2.0
/*
 * tqsubmit_isolation - what a process cannot reach: the rings and arena of
 * a context (or the arenas of the scheduler) from a child forked after
 * madvise(MADV_DOFORK), the scheduler's fd from another address space, and
 * the scheduler's role through an fd its opener could not have attached.
 * Runs as root in the test VM.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "tq_util.h"

static sigjmp_buf fault_jmp;

static void on_sigbus(int sig)
{
	siglongjmp(fault_jmp, sig);
}

/* Whether touching @p (a read, or a write) raises SIGBUS. */
static bool touch_faults(volatile char *p, bool write)
{
	struct sigaction sa = { .sa_handler = on_sigbus }, old;
	bool faulted;

	sigaction(SIGBUS, &sa, &old);
	if (sigsetjmp(fault_jmp, 1)) {
		faulted = true;
	} else {
		if (write)
			p[0] = 'x';
		else
			(void)p[0];
		faulted = false;
	}
	sigaction(SIGBUS, &old, NULL);
	return faulted;
}

/* Whether /proc/self/maps has a mapping starting at @p. */
static bool mapped_at(const void *p)
{
	char maps[16384], name[32];
	ssize_t n;
	int fd = open("/proc/self/maps", O_RDONLY);

	if (fd < 0)
		return false;
	n = read(fd, maps, sizeof(maps) - 1);
	close(fd);
	if (n < 0)
		return false;
	maps[n] = 0;
	snprintf(name, sizeof(name), "%lx-", (unsigned long)p);
	return strstr(maps, name) != NULL;
}

/* Whether the kernel can copy into @p on our behalf (a read() into it). */
static int kernel_copy_into(void *p)
{
	int fds[2], ret;

	if (pipe(fds))
		return -errno;
	ret = write(fds[1], "abc", 3) == 3 ? 0 : -errno;
	if (!ret)
		ret = read(fds[0], p, 3) == 3 ? 0 : -errno;
	close(fds[0]);
	close(fds[1]);
	return ret;
}

/*
 * Read @p through get_user_pages(), as a driver pinning it would:
 * process_vm_readv() on ourselves. 0 or -errno.
 */
static int gup_read(void *p, size_t len)
{
	char buf[64];
	struct iovec local = { .iov_base = buf, .iov_len = len };
	struct iovec remote = { .iov_base = p, .iov_len = len };
	ssize_t n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);

	return n == (ssize_t)len ? 0 : n < 0 ? -errno : -EIO;
}

static int wait_child(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Complete the tasks of @n events read; returns how many. */
static int complete_all(int sfd, const struct tq_event *ev, int n)
{
	int i, done = 0;

	for (i = 0; i < n; i++)
		if (ev[i].type == TQ_EV_TASK && !raw_sched_complete(sfd, &ev[i], 0, 0))
			done++;
	return done;
}

FIXTURE(iso) {
	struct raw_client c;
	int sfd;
};

FIXTURE_SETUP(iso)
{
	self->sfd = -1;
	ASSERT_EQ(0, raw_client_open(&self->c, 8, 0, 4 * 4096, -1));
}

FIXTURE_TEARDOWN(iso)
{
	raw_client_close(&self->c);
	if (self->sfd >= 0)
		close(self->sfd);
}

/* The rings are VM_IO: fork sharing cannot be turned back on. */
TEST_F(iso, rings_refuse_dofork)
{
	struct tq_setup *s = &self->c.s;

	EXPECT_EQ(-1, madvise(self->c.sq, s->sq_off.mmap_size, MADV_DOFORK));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, madvise(self->c.cq, s->cq_off.mmap_size, MADV_DOFORK));
	EXPECT_EQ(EINVAL, errno);
	/* What VM_IO costs: no get_user_pages() on a ring; the arena keeps it. */
	EXPECT_EQ(-EFAULT, gup_read(self->c.sq, 16));
	EXPECT_EQ(0, gup_read(self->c.arena, 16));
	/* MADV_DONTFORK, which they already are, is accepted. */
	EXPECT_EQ(0, madvise(self->c.sq, s->sq_off.mmap_size, MADV_DONTFORK));
}

/*
 * The arena accepts MADV_DOFORK (it must stay pinnable, so it is not
 * VM_IO), but a child that inherits it faults on every access, its own or
 * the kernel's on its behalf; the parent's mapping is untouched.
 */
TEST_F(iso, client_arena_after_dofork)
{
	char *arena = self->c.arena;
	struct tq_event ev[8];
	struct tq_cqe cqe;
	struct tq_desc d;
	pid_t pid;
	int n;

	strcpy(arena, "parent's data");
	ASSERT_EQ(0, madvise(arena, self->c.s.arena_bytes, MADV_DOFORK));
	EXPECT_EQ(-1, madvise(self->c.sq, self->c.s.sq_off.mmap_size, MADV_DOFORK));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (mapped_at(self->c.sq) || mapped_at(self->c.cq))
			_exit(1);	/* a ring was copied */
		if (!mapped_at(arena))
			_exit(2);	/* nothing inherited: the check is not exercised */
		if (!touch_faults(arena, false))
			_exit(3);
		if (!touch_faults(arena + 4096, true))
			_exit(4);
		if (kernel_copy_into(arena + 8192) != -EFAULT)
			_exit(5);
		if (gup_read(arena, 16) != -EFAULT)
			_exit(6);
		_exit(0);
	}
	EXPECT_EQ(0, wait_child(pid));

	/* The parent's arena and context work as before; it can still be pinned. */
	EXPECT_STREQ("parent's data", arena);
	EXPECT_EQ(0, gup_read(arena, 16));
	EXPECT_EQ(0, kernel_copy_into(arena + 8192));
	EXPECT_EQ(0, memcmp(arena + 8192, "abc", 3));
	self->sfd = raw_sched_open(O_NONBLOCK);
	ASSERT_LE(0, self->sfd);
	raw_nop(&d, 42);
	ASSERT_EQ(1, raw_client_submit(&self->c, &d, 1));
	n = raw_sched_collect(self->sfd, ev, 8, 1, 5000);
	ASSERT_EQ(1, complete_all(self->sfd, ev, n));
	ASSERT_EQ(1, raw_client_wait(&self->c, &cqe, 1, 5000));
	EXPECT_EQ(42, cqe.user_data);
}

/*
 * The scheduler's arena mappings likewise; and a child of the scheduler,
 * which holds its fd, can neither map arenas through it nor read or write.
 */
TEST_F(iso, scheduler_arena_after_dofork)
{
	struct tq_completion cmpl = { .ctx_id = self->c.s.ctx_id };
	struct tq_event ev[8];
	struct tq_cqe cqe;
	struct tq_desc d;
	char *a;
	pid_t pid;
	int n;

	strcpy(self->c.arena, "client's data");
	self->sfd = raw_sched_open(O_NONBLOCK);
	ASSERT_LE(0, self->sfd);
	ASSERT_EQ(1, raw_sched_read(self->sfd, ev, 8, 5000));
	ASSERT_EQ(TQ_EV_OPEN, ev[0].type);
	a = mmap(NULL, ev[0].open.arena_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, self->sfd,
		 ev[0].open.arena_offset);
	ASSERT_NE(MAP_FAILED, a);
	ASSERT_EQ(0, madvise(a, ev[0].open.arena_bytes, MADV_DOFORK));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct tq_event cev;

		if (!mapped_at(a))
			_exit(1);
		if (!touch_faults(a, false) || !touch_faults(a, true))
			_exit(2);
		if (gup_read(a, 16) != -EFAULT)
			_exit(6);
		if (mmap(NULL, ev[0].open.arena_bytes, PROT_READ, MAP_SHARED, self->sfd,
			 ev[0].open.arena_offset) != MAP_FAILED || errno != EPERM)
			_exit(3);
		if (read(self->sfd, &cev, sizeof(cev)) != -1 || errno != EPERM)
			_exit(4);
		if (write(self->sfd, &cmpl, sizeof(cmpl)) != -1 || errno != EPERM)
			_exit(5);
		_exit(0);
	}
	EXPECT_EQ(0, wait_child(pid));

	EXPECT_STREQ("client's data", a);
	EXPECT_EQ(0, gup_read(a, 16));
	raw_nop(&d, 7);
	ASSERT_EQ(1, raw_client_submit(&self->c, &d, 1));
	n = raw_sched_collect(self->sfd, ev, 8, 1, 5000);
	ASSERT_EQ(1, complete_all(self->sfd, ev, n));
	ASSERT_EQ(1, raw_client_wait(&self->c, &cqe, 1, 5000));
	munmap(a, self->c.s.arena_bytes);
}

/*
 * unshare(CLONE_NEWUSER), in a child about to exit. The kernel refuses it
 * (EPERM) to a chrooted process, and the test VM runs us in a chroot: the
 * child, which is root, first returns to its mount namespace's root, where
 * the VM's init has /dev, /proc and /sys too.
 */
static int new_user_ns(void)
{
	int i;

	if (!unshare(CLONE_NEWUSER))
		return 0;
	if (errno != EPERM)
		return -errno;
	if (mkdir("/tmp/tq-chroot", 0700) && errno != EEXIST)
		return -errno;
	if (chroot("/tmp/tq-chroot"))
		return -errno;
	for (i = 0; i < 64; i++)
		if (chdir(".."))
			return -errno;
	if (chroot("."))
		return -errno;
	return unshare(CLONE_NEWUSER) ? -errno : 0;
}

/* Write "0 <uid> 1" to our uid_map after unshare(CLONE_NEWUSER). */
static int map_root(uid_t outer)
{
	char line[32];
	int fd = open("/proc/self/uid_map", O_WRONLY), n, ret;

	if (fd < 0)
		return -errno;
	n = snprintf(line, sizeof(line), "0 %u 1\n", outer);
	ret = write(fd, line, n) == n ? 0 : -errno;
	close(fd);
	return ret;
}

static int attach_fd(int fd)
{
	struct tq_attach a = { .size = sizeof(a) };

	return ioctl(fd, TQ_IOC_ATTACH, &a) ? -errno : 0;
}

/* Root of a user namespace is not root: no scheduler from there. */
TEST(attach_in_user_namespace)
{
	pid_t pid = fork();
	int status;

	ASSERT_LE(0, pid);
	if (pid == 0) {
		uid_t outer = geteuid();
		int fd;

		if (new_user_ns())
			_exit(10);	/* no user namespaces here */
		if (map_root(outer) || geteuid() != 0)
			_exit(2);
		fd = open(TQ_DEV, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			_exit(3);
		if (attach_fd(fd) != -EPERM)
			_exit(4);
		/* A context of its own is fine. */
		if (ioctl(fd, TQ_IOC_QUERY, &(struct tq_query){ .size = sizeof(struct tq_query) }))
			_exit(5);
		_exit(0);
	}
	status = wait_child(pid);
	if (status == 10)
		SKIP(return, "unshare(CLONE_NEWUSER) is not permitted here");
	EXPECT_EQ(0, status);
	EXPECT_EQ(0, raw_stat("scheduler_pid"));
}

/* Send @fd over a unix socket, or receive one. */
static int send_fd(int sock, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 }, byte = 'f';
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == 1 ? 0 : -errno;
}

static int recv_fd(int sock)
{
	char cbuf[CMSG_SPACE(sizeof(int))], byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm;
	int fd;

	if (recvmsg(sock, &msg, 0) != 1)
		return -errno;
	cm = CMSG_FIRSTHDR(&msg);
	if (!cm || cm->cmsg_type != SCM_RIGHTS)
		return -EBADMSG;
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

/* An fd opened without the privilege does not gain it in root's hands. */
TEST(attach_fd_of_unprivileged_opener)
{
	int sv[2], fd, own;
	pid_t pid;

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(sv[0]);
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(2);
		fd = open(TQ_DEV, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			_exit(3);
		_exit(send_fd(sv[1], fd) ? 4 : 0);
	}
	close(sv[1]);
	fd = recv_fd(sv[0]);
	close(sv[0]);
	EXPECT_EQ(0, wait_child(pid));
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, geteuid());
	EXPECT_EQ(-EPERM, attach_fd(fd));
	EXPECT_EQ(0, raw_stat("scheduler_pid"));
	/* Root's own fd attaches. */
	own = open(TQ_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, own);
	EXPECT_EQ(0, attach_fd(own));
	close(own);
	close(fd);
}

/*
 * The converse: a daemon opens the device as root, then drops every
 * privilege (or moves into a user namespace) and still attaches with that
 * fd, while a fresh fd opened after the drop does not.
 */
TEST(attach_by_opener_after_dropping_privileges)
{
	pid_t pid = fork();

	ASSERT_LE(0, pid);
	if (pid == 0) {
		int fd = open(TQ_DEV, O_RDWR | O_CLOEXEC), fresh;

		if (fd < 0)
			_exit(2);
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(3);
		fresh = open(TQ_DEV, O_RDWR | O_CLOEXEC);
		if (fresh < 0 || attach_fd(fresh) != -EPERM)
			_exit(4);
		if (attach_fd(fd))
			_exit(5);
		if (raw_stat("scheduler_pid") != getpid())
			_exit(6);
		_exit(0);
	}
	EXPECT_EQ(0, wait_child(pid));
	EXPECT_EQ(0, raw_stat("scheduler_pid"));
}

TEST(attach_by_opener_inside_user_namespace)
{
	pid_t pid = fork();
	int status;

	ASSERT_LE(0, pid);
	if (pid == 0) {
		uid_t outer = geteuid();
		int fd = open(TQ_DEV, O_RDWR | O_CLOEXEC);

		if (fd < 0)
			_exit(2);
		if (new_user_ns())
			_exit(10);
		if (map_root(outer))
			_exit(3);
		_exit(attach_fd(fd) ? 4 : 0);
	}
	status = wait_child(pid);
	if (status == 10)
		SKIP(return, "unshare(CLONE_NEWUSER) is not permitted here");
	EXPECT_EQ(0, status);
}

TEST_HARNESS_MAIN
