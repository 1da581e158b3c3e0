// SPDX-License-Identifier: GPL-2.0
/*
 * tqsubmit_abi - the /dev/tqsubmit ABI under abuse, with raw syscalls: every
 * ioctl with short, long, zero-tailed and non-zero-tailed structs, unknown
 * commands, bad mappings, every descriptor field out of range, corrupted
 * ring indices, bad completions, the limits, and the event and completion
 * paths, with this process (root, in the test VM) as the scheduler.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "tq_util.h"
#include "tq_desc_cases.h"

/* The layout user space compiles against; kmod/main.c pins the same. */
_Static_assert(sizeof(struct tq_desc) == 256, "tq_desc");
_Static_assert(offsetof(struct tq_desc, bufs) == 64, "tq_desc.bufs");
_Static_assert(offsetof(struct tq_desc, scalars) == 192, "tq_desc.scalars");
_Static_assert(sizeof(struct tq_cqe) == 64, "tq_cqe");
_Static_assert(sizeof(struct tq_event) == 320, "tq_event");
_Static_assert(offsetof(struct tq_event, task) == 64, "tq_event.task");
_Static_assert(sizeof(struct tq_completion) == 48, "tq_completion");
_Static_assert(sizeof(struct tq_setup) == 120, "tq_setup");
_Static_assert(sizeof(struct tq_query) == 56, "tq_query");

static int xioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

static int dev_open(void)
{
	return open(TQ_DEV, O_RDWR | O_CLOEXEC);
}

static void fill_setup(struct tq_setup *s)
{
	memset(s, 0, sizeof(*s));
	s->size = sizeof(*s);
	s->sq_entries = 8;
	s->arena_bytes = 65536;
	s->eventfd = -1;
}

/* raw_sched_gather(): the events read, up to a failed read. */
static int collect(int sfd, struct tq_event *ev, int max, int want, int ms)
{
	int err;

	return raw_sched_gather(sfd, ev, max, want, ms, &err);
}

static int count_type(const struct tq_event *ev, int n, int type)
{
	int i, c = 0;

	for (i = 0; i < n; i++)
		c += ev[i].type == type;
	return c;
}

TEST(query)
{
	struct {
		struct tq_query q;
		uint8_t tail[16];
	} b;
	int fd = dev_open();

	ASSERT_LE(0, fd);
	memset(&b, 0, sizeof(b));
	b.q.size = sizeof(b.q);
	ASSERT_EQ(0, xioctl(fd, TQ_IOC_QUERY, &b));
	EXPECT_EQ(TQ_ABI_VERSION, b.q.abi_version);
	EXPECT_EQ(sizeof(struct tq_desc), b.q.desc_size);
	EXPECT_EQ(sizeof(struct tq_cqe), b.q.cqe_size);
	EXPECT_EQ(sizeof(struct tq_event), b.q.event_size);
	EXPECT_EQ(sizeof(struct tq_completion), b.q.completion_size);
	EXPECT_NE(0, b.q.features & TQ_FEAT_NEED_WAKEUP);
	EXPECT_NE(0, b.q.features & TQ_FEAT_IDEMPOTENT);
	EXPECT_NE(0, b.q.features & TQ_FEAT_QOS);
	EXPECT_LT(0, b.q.max_ring_entries);
	EXPECT_LT(0, b.q.max_arena_bytes);

	/* Short: below the first version's inputs. */
	b.q.size = 4;
	EXPECT_EQ(-EINVAL, xioctl(fd, TQ_IOC_QUERY, &b));
	/* Older and shorter: only what fits comes back. */
	memset(&b, 0, sizeof(b));
	b.q.size = 8;
	EXPECT_EQ(0, xioctl(fd, TQ_IOC_QUERY, &b));
	EXPECT_EQ(0, b.q.features);
	/* Newer with a zero tail: fine; with anything in the tail: E2BIG. */
	memset(&b, 0, sizeof(b));
	b.q.size = sizeof(b);
	EXPECT_EQ(0, xioctl(fd, TQ_IOC_QUERY, &b));
	EXPECT_EQ(0, b.tail[0]);
	b.tail[15] = 1;
	EXPECT_EQ(-E2BIG, xioctl(fd, TQ_IOC_QUERY, &b));
	b.tail[15] = 0;
	b.q.size = 1 << 20;
	EXPECT_EQ(-E2BIG, xioctl(fd, TQ_IOC_QUERY, &b));
	b.q.size = sizeof(b.q);
	b.q.flags = 1;
	EXPECT_EQ(-EINVAL, xioctl(fd, TQ_IOC_QUERY, &b));
	EXPECT_EQ(-EFAULT, xioctl(fd, TQ_IOC_QUERY, (void *)16));
	close(fd);
}

TEST(unknown_ioctl)
{
	struct tq_query q = { .size = sizeof(q) };
	int fd = dev_open();

	ASSERT_LE(0, fd);
	EXPECT_EQ(-ENOTTY, xioctl(fd, _IOWR(TQ_IOC_MAGIC, 0x20, struct tq_query), &q));
	EXPECT_EQ(-ENOTTY, xioctl(fd, _IOWR(TQ_IOC_MAGIC + 1, 0x00, struct tq_query), &q));
	EXPECT_EQ(-ENOTTY, xioctl(fd, _IOR(TQ_IOC_MAGIC, 0x00, struct tq_query), &q));
	EXPECT_EQ(-ENOTTY, xioctl(fd, _IOW(TQ_IOC_MAGIC, 0x00, struct tq_query), &q));
	EXPECT_EQ(-ENOTTY, xioctl(fd, _IO(TQ_IOC_MAGIC, 0x00), &q));
	EXPECT_EQ(-ENOTTY, xioctl(fd, FIONREAD, &q));
	/* The size bits are not what selects the command. */
	EXPECT_EQ(0, xioctl(fd, _IOWR(TQ_IOC_MAGIC, 0x00, struct tq_enter), &q));
	close(fd);
}

TEST(setup_sizes)
{
	struct {
		struct tq_setup s;
		uint8_t tail[8];
	} b;
	int fd;

	/* Short. */
	fd = dev_open();
	ASSERT_LE(0, fd);
	memset(&b, 0, sizeof(b));
	fill_setup(&b.s);
	b.s.size = offsetof(struct tq_setup, arena_offset);
	EXPECT_EQ(-EINVAL, xioctl(fd, TQ_IOC_SETUP, &b));
	/* Non-zero tail, then zero tail. */
	b.s.size = sizeof(b);
	b.tail[3] = 0xff;
	EXPECT_EQ(-E2BIG, xioctl(fd, TQ_IOC_SETUP, &b));
	b.tail[3] = 0;
	EXPECT_EQ(0, xioctl(fd, TQ_IOC_SETUP, &b));
	EXPECT_NE(0, b.s.ctx_id);
	EXPECT_EQ(0, b.tail[0]);
	/* Once per fd. */
	fill_setup(&b.s);
	EXPECT_EQ(-EINVAL, xioctl(fd, TQ_IOC_SETUP, &b));
	close(fd);
}

TEST(setup_args)
{
	struct tq_query q = { .size = sizeof(q) };
	struct tq_setup s;
	int fd, efd;

	fd = dev_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, xioctl(fd, TQ_IOC_QUERY, &q));
	fill_setup(&s);
	s.flags = 1;
	EXPECT_EQ(-EINVAL, xioctl(fd, TQ_IOC_SETUP, &s));
	fill_setup(&s);
	s.resv[2] = 1;
	EXPECT_EQ(-EINVAL, xioctl(fd, TQ_IOC_SETUP, &s));
	fill_setup(&s);
	s.prio = TQ_PRIO_MAX + 1;	/* an unknown class */
	EXPECT_EQ(-EINVAL, xioctl(fd, TQ_IOC_SETUP, &s));
	fill_setup(&s);
	s.prio = 255;
	EXPECT_EQ(-EINVAL, xioctl(fd, TQ_IOC_SETUP, &s));
	fill_setup(&s);
	s.sq_entries = 0;
	EXPECT_EQ(-ERANGE, xioctl(fd, TQ_IOC_SETUP, &s));
	fill_setup(&s);
	s.sq_entries = q.max_ring_entries + 1;
	EXPECT_EQ(-ERANGE, xioctl(fd, TQ_IOC_SETUP, &s));
	fill_setup(&s);
	s.cq_entries = q.max_ring_entries * 2;
	EXPECT_EQ(-ERANGE, xioctl(fd, TQ_IOC_SETUP, &s));
	fill_setup(&s);
	s.arena_bytes = 0;
	EXPECT_EQ(-EINVAL, xioctl(fd, TQ_IOC_SETUP, &s));
	fill_setup(&s);
	s.arena_bytes = q.max_arena_bytes + 1;
	EXPECT_EQ(-EFBIG, xioctl(fd, TQ_IOC_SETUP, &s));
	fill_setup(&s);
	s.eventfd = -2;
	EXPECT_EQ(-EBADF, xioctl(fd, TQ_IOC_SETUP, &s));
	fill_setup(&s);
	s.eventfd = 1000;
	EXPECT_EQ(-EBADF, xioctl(fd, TQ_IOC_SETUP, &s));
	fill_setup(&s);
	s.eventfd = fd;		/* not an eventfd */
	EXPECT_EQ(-EINVAL, xioctl(fd, TQ_IOC_SETUP, &s));

	/* Rounding: entries to powers of two, the CQ twice the SQ, whole pages. */
	efd = eventfd(0, EFD_CLOEXEC);
	ASSERT_LE(0, efd);
	fill_setup(&s);
	s.sq_entries = 5;
	s.arena_bytes = 100;
	s.eventfd = efd;
	ASSERT_EQ(0, xioctl(fd, TQ_IOC_SETUP, &s));
	EXPECT_EQ(8, s.sq_entries);
	EXPECT_EQ(16, s.cq_entries);
	EXPECT_EQ(getpagesize(), s.arena_bytes);
	EXPECT_EQ(16, s.max_inflight);
	EXPECT_NE(s.sq_off.mmap_offset, s.cq_off.mmap_offset);
	EXPECT_NE(s.sq_off.mmap_offset, s.arena_offset);
	EXPECT_EQ(0, s.sq_off.mmap_size % getpagesize());
	close(fd);
	close(efd);
}

TEST(enter_and_attach_sizes)
{
	struct {
		struct tq_attach a;
		uint8_t tail[8];
	} b;
	struct {
		struct tq_enter e;
		uint8_t tail[8];
	} e = { .e.size = sizeof(e) };
	struct raw_client c;
	struct tq_setup s;
	int fd, sfd;

	ASSERT_EQ(0, raw_client_open(&c, 8, 0, 4096, -1));
	EXPECT_EQ(0, xioctl(c.fd, TQ_IOC_ENTER, &e));
	e.tail[7] = 1;
	EXPECT_EQ(-E2BIG, xioctl(c.fd, TQ_IOC_ENTER, &e));
	e.e.size = 4;
	EXPECT_EQ(-EINVAL, xioctl(c.fd, TQ_IOC_ENTER, &e));
	e.e.size = sizeof(e.e);
	e.e.flags = 1;
	EXPECT_EQ(-EINVAL, xioctl(c.fd, TQ_IOC_ENTER, &e));
	/* A context cannot become the scheduler. */
	memset(&b, 0, sizeof(b));
	b.a.size = sizeof(b.a);
	EXPECT_EQ(-EINVAL, xioctl(c.fd, TQ_IOC_ATTACH, &b));

	fd = dev_open();
	ASSERT_LE(0, fd);
	EXPECT_EQ(-EINVAL, raw_enter(fd));	/* not a context */
	b.a.size = 4;
	EXPECT_EQ(-EINVAL, xioctl(fd, TQ_IOC_ATTACH, &b));
	b.a.size = sizeof(b);
	b.tail[0] = 1;
	EXPECT_EQ(-E2BIG, xioctl(fd, TQ_IOC_ATTACH, &b));
	b.tail[0] = 0;
	b.a.flags = 2;
	EXPECT_EQ(-EINVAL, xioctl(fd, TQ_IOC_ATTACH, &b));
	b.a.flags = 0;
	ASSERT_EQ(0, xioctl(fd, TQ_IOC_ATTACH, &b));
	EXPECT_NE(0, b.a.features & TQ_FEAT_REQUEUE);
	EXPECT_EQ(getpid(), raw_stat("scheduler_pid"));
	/* The scheduler cannot become a context, and there is only one. */
	fill_setup(&s);
	EXPECT_EQ(-EINVAL, xioctl(fd, TQ_IOC_SETUP, &s));
	sfd = raw_sched_open(0);
	EXPECT_EQ(-EBUSY, sfd);
	close(fd);
	EXPECT_EQ(0, raw_stat("scheduler_pid"));
	sfd = raw_sched_open(0);
	EXPECT_LE(0, sfd);
	close(sfd);
	raw_client_close(&c);
}

TEST(attach_needs_cap_sys_admin)
{
	int status;
	pid_t pid = fork();

	ASSERT_LE(0, pid);
	if (pid == 0) {
		/* Leave root: no capabilities left. */
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(2);
		_exit(raw_sched_open(0) == -EPERM ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

FIXTURE(ctx) {
	struct raw_client c;
	int sfd;
};

FIXTURE_SETUP(ctx)
{
	self->sfd = -1;
	ASSERT_EQ(0, raw_client_open(&self->c, 64, 0, 1 << 20, -1));
}

FIXTURE_TEARDOWN(ctx)
{
	raw_client_close(&self->c);
	if (self->sfd >= 0)
		close(self->sfd);
}

TEST_F(ctx, mmap_checks)
{
	struct tq_setup *s = &self->c.s;
	long pg = getpagesize();
	void *p;
	int fd, sfd;

	/* Unknown offsets, wrong sizes. */
	p = mmap(NULL, pg, PROT_READ, MAP_SHARED, self->c.fd, 0x7000000);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, s->sq_off.mmap_size + pg, PROT_READ, MAP_SHARED, self->c.fd,
		 s->sq_off.mmap_offset);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, s->cq_off.mmap_size - pg, PROT_READ, MAP_SHARED, self->c.fd,
		 s->cq_off.mmap_offset);
	if (s->cq_off.mmap_size > (uint64_t)pg) {
		EXPECT_EQ(MAP_FAILED, p);
		EXPECT_EQ(EINVAL, errno);
	}
	p = mmap(NULL, s->arena_bytes * 2, PROT_READ, MAP_SHARED, self->c.fd, s->arena_offset);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, pg, PROT_READ, MAP_SHARED, self->c.fd, s->arena_offset + pg);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);

	/* Protections: never executable, never private. */
	p = mmap(NULL, s->sq_off.mmap_size, PROT_READ | PROT_EXEC, MAP_SHARED, self->c.fd,
		 s->sq_off.mmap_offset);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EPERM, errno);
	p = mmap(NULL, s->arena_bytes, PROT_READ | PROT_EXEC, MAP_SHARED, self->c.fd,
		 s->arena_offset);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EPERM, errno);
	p = mmap(NULL, s->sq_off.mmap_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, self->c.fd,
		 s->sq_off.mmap_offset);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	EXPECT_NE(0, mprotect(self->c.sq, s->sq_off.mmap_size, PROT_READ | PROT_EXEC));
	EXPECT_NE(0, mprotect(self->c.arena, s->arena_bytes, PROT_READ | PROT_EXEC));
	p = mremap(self->c.cq, s->cq_off.mmap_size, s->cq_off.mmap_size + pg, MREMAP_MAYMOVE);
	EXPECT_EQ(MAP_FAILED, p);

	/* A fresh fd has nothing to map. */
	fd = dev_open();
	ASSERT_LE(0, fd);
	p = mmap(NULL, pg, PROT_READ, MAP_SHARED, fd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(ENODEV, errno);
	close(fd);

	/* The scheduler maps arenas by context id only. */
	sfd = raw_sched_open(0);
	ASSERT_LE(0, sfd);
	p = mmap(NULL, pg, PROT_READ, MAP_SHARED, sfd, 123);
	EXPECT_EQ(MAP_FAILED, p);
	p = mmap(NULL, s->arena_bytes, PROT_READ, MAP_SHARED, sfd,
		 ((uint64_t)s->ctx_id << 40) + pg);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, pg, PROT_READ, MAP_SHARED, sfd, (uint64_t)0x3fffff << 40);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(ENOENT, errno);
	close(sfd);
}

TEST_F(ctx, read_write_misuse)
{
	struct tq_event ev[2];
	char buf[64];

	EXPECT_EQ(-1, read(self->c.fd, ev, sizeof(ev)));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, write(self->c.fd, buf, 48));
	EXPECT_EQ(EINVAL, errno);
	self->sfd = raw_sched_open(O_NONBLOCK);
	ASSERT_LE(0, self->sfd);
	EXPECT_EQ(-1, read(self->sfd, ev, sizeof(ev[0]) - 1));
	EXPECT_EQ(EINVAL, errno);
	memset(buf, 0, sizeof(buf));
	EXPECT_EQ(-1, write(self->sfd, buf, 47));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, write(self->sfd, buf, 0));
	EXPECT_EQ(EINVAL, errno);
}

/* Tasks wait without a scheduler; the next one gets them, stamped. */
TEST_F(ctx, no_daemon_then_attach)
{
	struct tq_event ev[16];
	struct tq_cqe cqe[8];
	struct tq_desc d[4];
	long long submitted = raw_stat("submitted");
	uint64_t t0 = tq_now_ns();
	int i, n, tasks = 0;

	for (i = 0; i < 4; i++)
		raw_task(&d[i], 100 + i);
	ASSERT_EQ(4, raw_client_submit(&self->c, d, 4));
	usleep(100000);
	EXPECT_EQ(0, raw_load_acquire(self->c.sq_cons));
	EXPECT_EQ(submitted, raw_stat("submitted"));
	EXPECT_EQ(0, raw_client_reap(&self->c, cqe, 8));

	self->sfd = raw_sched_open(O_NONBLOCK);
	ASSERT_LE(0, self->sfd);
	n = collect(self->sfd, ev, 16, 4, 5000);
	ASSERT_EQ(5, n);
	EXPECT_EQ(TQ_EV_OPEN, ev[0].type);
	EXPECT_EQ(self->c.s.ctx_id, ev[0].ctx_id);
	EXPECT_EQ(getpid(), ev[0].pid);
	EXPECT_EQ(getuid(), ev[0].uid);
	EXPECT_EQ(self->c.s.arena_bytes, ev[0].open.arena_bytes);
	EXPECT_EQ((uint64_t)self->c.s.ctx_id << 40, ev[0].open.arena_offset);
	EXPECT_EQ(self->c.s.sq_entries, ev[0].open.sq_entries);
	for (i = 1; i < n; i++) {
		ASSERT_EQ(TQ_EV_TASK, ev[i].type);
		EXPECT_EQ(self->c.s.ctx_id, ev[i].ctx_id);
		EXPECT_EQ(getpid(), ev[i].pid);
		EXPECT_EQ(0, ev[i].flags);
		EXPECT_LE(t0, ev[i].submit_ns);
		EXPECT_EQ(0, memcmp(&d[i - 1], &ev[i].task, sizeof(d[0])));
		EXPECT_EQ(0, raw_sched_complete(self->sfd, &ev[i], 0, 0));
		tasks++;
	}
	EXPECT_EQ(4, raw_load_acquire(self->c.sq_cons));
	n = raw_client_wait(&self->c, cqe, 8, 5000);
	ASSERT_EQ(4, n);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(100 + i, cqe[i].user_data);
		EXPECT_EQ(0, cqe[i].status);
		EXPECT_LE(cqe[i].queued_ns, cqe[i].start_ns);
		EXPECT_LE(cqe[i].start_ns, cqe[i].end_ns);
	}
	EXPECT_EQ(4, tasks);
}

TEST_F(ctx, descriptor_fields)
{
	struct tq_desc d[NBAD + NGOOD];
	struct tq_event ev[NBAD + NGOOD + 2];
	struct tq_cqe cqe[NBAD + NGOOD];
	long long rejected = raw_stat("rejected");
	int i, n, got = 0, seen[NBAD + NGOOD] = { 0 };

	ASSERT_LE(NBAD + NGOOD, (int)self->c.s.sq_entries);
	for (i = 0; i < NBAD; i++) {
		raw_task(&d[i], i);
		bad_cases[i].edit(&d[i]);
	}
	for (i = 0; i < NGOOD; i++)
		good_case(&d[NBAD + i], i, NBAD + i);
	ASSERT_EQ(NBAD + NGOOD, raw_client_submit(&self->c, d, NBAD + NGOOD));

	self->sfd = raw_sched_open(O_NONBLOCK);
	ASSERT_LE(0, self->sfd);
	n = collect(self->sfd, ev, NBAD + NGOOD + 2, NGOOD, 5000);
	ASSERT_EQ(NGOOD, count_type(ev, n, TQ_EV_TASK));
	for (i = 0; i < n; i++) {
		if (ev[i].type != TQ_EV_TASK)
			continue;
		EXPECT_LE(NBAD, (int)ev[i].task.user_data);
		EXPECT_EQ(0, memcmp(&d[ev[i].task.user_data], &ev[i].task, sizeof(d[0])));
		EXPECT_EQ(0, raw_sched_complete(self->sfd, &ev[i], 0, 0));
	}
	while (got < NBAD + NGOOD) {
		n = raw_client_wait(&self->c, cqe, NBAD + NGOOD, 5000);
		ASSERT_LT(0, n);
		for (i = 0; i < n; i++) {
			uint64_t k = cqe[i].user_data;

			EXPECT_GT(NBAD + NGOOD, k);
			if (k >= NBAD + NGOOD)
				continue;
			seen[k]++;
			if (k < NBAD) {
				EXPECT_EQ(bad_cases[k].status, cqe[i].status)
					TH_LOG("%s: status %d", bad_cases[k].what, cqe[i].status);
			} else {
				EXPECT_EQ(0, cqe[i].status);
			}
		}
		got += n;
	}
	for (i = 0; i < NBAD + NGOOD; i++)
		EXPECT_EQ(1, seen[i]);
	EXPECT_EQ(rejected + NBAD, raw_stat("rejected"));
}

/* A program registers through the rings; its id comes back in result. */
TEST_F(ctx, program_registration)
{
	static const char src[] = "__kernel void k(__global int *a) { a[0] = 1; }";
	static const char name[] = "k";
	struct tq_event ev[4];
	struct tq_cqe cqe[2];
	struct tq_desc d;
	int n, i;

	memcpy(self->c.arena, src, sizeof(src));
	memcpy((char *)self->c.arena + 4096, name, sizeof(name));
	memset(&d, 0, sizeof(d));
	d.opcode = TQ_OP_PROGRAM;
	d.user_data = 1;
	d.nr_bufs = 1;
	d.bufs[0] = (struct tq_buf){ .offset = 0, .len = sizeof(src) - 1, .dir = TQ_DIR_IN };
	ASSERT_EQ(1, raw_client_submit(&self->c, &d, 1));
	d.opcode = TQ_OP_KERNEL;
	d.user_data = 2;
	d.program = 41;
	d.bufs[0] = (struct tq_buf){ .offset = 4096, .len = 1, .dir = TQ_DIR_IN };
	ASSERT_EQ(1, raw_client_submit(&self->c, &d, 1));

	self->sfd = raw_sched_open(O_NONBLOCK);
	ASSERT_LE(0, self->sfd);
	n = collect(self->sfd, ev, 4, 2, 5000);
	ASSERT_EQ(2, count_type(ev, n, TQ_EV_TASK));
	for (i = 0; i < n; i++) {
		if (ev[i].type != TQ_EV_TASK)
			continue;
		uint64_t id = ev[i].task.opcode == TQ_OP_PROGRAM ? 41 : 7;

		EXPECT_EQ(0, raw_sched_complete(self->sfd, &ev[i], 0, id));
	}
	n = raw_client_wait(&self->c, cqe, 2, 5000);
	if (n == 1)
		n += raw_client_wait(&self->c, cqe + 1, 1, 5000);
	ASSERT_EQ(2, n);
	for (i = 0; i < 2; i++)
		EXPECT_EQ(cqe[i].user_data == 1 ? 41 : 7, cqe[i].result);
}

TEST_F(ctx, corrupt_sq_producer)
{
	struct raw_client other;
	struct tq_event ev[8];
	struct tq_cqe cqe[2];
	struct tq_desc d;
	struct pollfd p = { .fd = self->c.fd, .events = POLLIN };
	int n;

	ASSERT_EQ(0, raw_client_open(&other, 8, 0, 4096, -1));
	raw_nop(&d, 9);
	ASSERT_EQ(1, raw_client_submit(&other, &d, 1));
	/* An index the kernel could not have produced. */
	raw_store_release(self->c.sq_prod, self->c.s.sq_entries + 5);
	self->sfd = raw_sched_open(O_NONBLOCK);
	ASSERT_LE(0, self->sfd);
	n = collect(self->sfd, ev, 8, 1, 5000);
	EXPECT_EQ(1, count_type(ev, n, TQ_EV_TASK));
	EXPECT_NE(0, *self->c.sq_flags & TQ_RING_BROKEN);
	EXPECT_NE(0, *self->c.cq_flags & TQ_RING_BROKEN);
	EXPECT_EQ(-EBADFD, raw_enter(self->c.fd));
	EXPECT_EQ(1, poll(&p, 1, 0));
	EXPECT_NE(0, p.revents & POLLERR);
	/* Only that context is affected. */
	EXPECT_EQ(0, raw_sched_complete(self->sfd, &ev[n - 1], 0, 0));
	EXPECT_EQ(1, raw_client_wait(&other, cqe, 2, 5000));
	raw_client_close(&other);
}

TEST_F(ctx, corrupt_cq_consumer)
{
	struct tq_event ev[8];
	struct tq_desc d[2];
	int n, i;

	raw_nop(&d[0], 1);
	raw_nop(&d[1], 2);
	ASSERT_EQ(2, raw_client_submit(&self->c, d, 2));
	self->sfd = raw_sched_open(O_NONBLOCK);
	ASSERT_LE(0, self->sfd);
	n = collect(self->sfd, ev, 8, 2, 5000);
	ASSERT_EQ(2, count_type(ev, n, TQ_EV_TASK));
	/* The consumer runs ahead of what was produced. */
	raw_store_release(self->c.cq_cons, 1000);
	for (i = 0; i < n; i++)
		if (ev[i].type == TQ_EV_TASK)
			EXPECT_EQ(0, raw_sched_complete(self->sfd, &ev[i], 0, 0));
	EXPECT_NE(0, *self->c.sq_flags & TQ_RING_BROKEN);
	EXPECT_EQ(-EBADFD, raw_enter(self->c.fd));
	EXPECT_EQ(0, raw_stat("in_flight"));
}

TEST_F(ctx, need_wakeup)
{
	struct tq_event ev[4];
	struct pollfd p;
	struct tq_desc d;

	self->sfd = raw_sched_open(O_NONBLOCK);
	ASSERT_LE(0, self->sfd);
	/* The context's OPEN, then nothing: the scheduler would sleep. */
	ASSERT_EQ(1, raw_sched_read(self->sfd, ev, 4, 1000));
	EXPECT_EQ(TQ_EV_OPEN, ev[0].type);
	EXPECT_EQ(-1, read(self->sfd, ev, sizeof(ev)));
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_NE(0, *self->c.sq_flags & TQ_RING_NEED_WAKEUP);
	p = (struct pollfd){ .fd = self->sfd, .events = POLLIN };
	EXPECT_EQ(0, poll(&p, 1, 0));

	/* Publishing without the doorbell is not seen by poll ... */
	raw_nop(&d, 5);
	self->c.sqes[0] = d;
	raw_store_release(self->c.sq_prod, ++self->c.sq_tail);
	EXPECT_EQ(0, poll(&p, 1, 0));
	/* ... the doorbell wakes the scheduler. */
	EXPECT_EQ(0, raw_enter(self->c.fd));
	EXPECT_EQ(1, poll(&p, 1, 1000));
	ASSERT_EQ(1, raw_sched_read(self->sfd, ev, 4, 1000));
	EXPECT_EQ(5, ev[0].task.user_data);
	/* A busy scheduler: no doorbell needed. */
	EXPECT_EQ(0, *self->c.sq_flags & TQ_RING_NEED_WAKEUP);
	EXPECT_EQ(0, raw_sched_complete(self->sfd, &ev[0], 0, 0));
}

/* A reader's bad buffer loses nothing: what did not fit comes next time. */
TEST_F(ctx, read_bad_buffer)
{
	long pg = getpagesize();
	struct tq_event ev[4], *two;
	struct tq_desc d[2];
	char *p;
	int n;

	raw_nop(&d[0], 1);
	raw_nop(&d[1], 2);
	ASSERT_EQ(2, raw_client_submit(&self->c, d, 2));
	self->sfd = raw_sched_open(O_NONBLOCK);
	ASSERT_LE(0, self->sfd);
	p = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, munmap(p + pg, pg));
	EXPECT_EQ(-1, read(self->sfd, p + pg, 2 * sizeof(ev[0])));
	EXPECT_EQ(EFAULT, errno);
	/* Room for the OPEN and a task, then the unmapped page. */
	two = (struct tq_event *)(p + pg - 2 * sizeof(*two));
	EXPECT_EQ(2 * sizeof(*two), read(self->sfd, two, 3 * sizeof(*two)));
	EXPECT_EQ(TQ_EV_OPEN, two[0].type);
	EXPECT_EQ(TQ_EV_TASK, two[1].type);
	EXPECT_EQ(1, two[1].task.user_data);
	n = raw_sched_read(self->sfd, ev, 4, 1000);
	ASSERT_EQ(1, n);
	EXPECT_EQ(2, ev[0].task.user_data);
	EXPECT_EQ(0, raw_sched_complete(self->sfd, &two[1], 0, 0));
	EXPECT_EQ(0, raw_sched_complete(self->sfd, &ev[0], 0, 0));
	munmap(p, pg);
}

TEST_F(ctx, completion_errors)
{
	struct tq_completion c[2], good;
	struct tq_event ev[4];
	struct tq_cqe cqe;
	struct tq_desc d;
	int n;

	raw_nop(&d, 77);
	ASSERT_EQ(1, raw_client_submit(&self->c, &d, 1));
	self->sfd = raw_sched_open(O_NONBLOCK);
	ASSERT_LE(0, self->sfd);
	n = collect(self->sfd, ev, 4, 1, 5000);
	ASSERT_EQ(2, n);
	good = (struct tq_completion){ .ctx_id = ev[1].ctx_id, .tag = ev[1].tag };

	c[0] = good;
	c[0].ctx_id = 0;
	EXPECT_EQ(-1, write(self->sfd, c, sizeof(c[0])));
	EXPECT_EQ(ENOENT, errno);
	c[0] = good;
	c[0].tag ^= 1ull << 32;		/* another generation */
	EXPECT_EQ(-1, write(self->sfd, c, sizeof(c[0])));
	EXPECT_EQ(ENOENT, errno);
	c[0] = good;
	c[0].tag |= 0xffff;		/* no such slot */
	EXPECT_EQ(-1, write(self->sfd, c, sizeof(c[0])));
	EXPECT_EQ(ENOENT, errno);
	c[0] = good;
	c[0].status = 1;
	EXPECT_EQ(-1, write(self->sfd, c, sizeof(c[0])));
	EXPECT_EQ(EINVAL, errno);
	c[0].status = -5000;
	EXPECT_EQ(-1, write(self->sfd, c, sizeof(c[0])));
	EXPECT_EQ(EINVAL, errno);
	c[0] = good;
	c[0].resv = 1;
	EXPECT_EQ(-1, write(self->sfd, c, sizeof(c[0])));
	EXPECT_EQ(EINVAL, errno);
	c[0] = good;
	c[0].flags = 1 << 3;		/* no such flag */
	EXPECT_EQ(-1, write(self->sfd, c, sizeof(c[0])));
	EXPECT_EQ(EINVAL, errno);
	c[0] = good;
	c[0].flags = TQ_COMPL_F_LATE;	/* a NOP has no deadline */
	EXPECT_EQ(-1, write(self->sfd, c, sizeof(c[0])));
	EXPECT_EQ(EINVAL, errno);
	c[0] = good;
	c[0].flags = TQ_COMPL_F_LATE | TQ_COMPL_F_STARTED;
	EXPECT_EQ(-1, write(self->sfd, c, sizeof(c[0])));
	EXPECT_EQ(EINVAL, errno);
	c[0] = (struct tq_completion){ .ctx_id = good.ctx_id, .flags = TQ_COMPL_F_RELEASE };
	EXPECT_EQ(-1, write(self->sfd, c, sizeof(c[0])));
	EXPECT_EQ(EINVAL, errno);	/* the context is not closed */
	EXPECT_EQ(-1, write(self->sfd, c, 47));
	EXPECT_EQ(EINVAL, errno);

	/* A good record then a bad one: the write stops between them. */
	c[0] = good;
	c[0].status = -EIO;
	c[1] = good;
	EXPECT_EQ(sizeof(c[0]), write(self->sfd, c, sizeof(c)));
	/* A task completes once. */
	EXPECT_EQ(-1, write(self->sfd, &good, sizeof(good)));
	EXPECT_EQ(ENOENT, errno);
	ASSERT_EQ(1, raw_client_wait(&self->c, &cqe, 1, 5000));
	EXPECT_EQ(77, cqe.user_data);
	EXPECT_EQ(-EIO, cqe.status);
}

TEST(eventfd_and_poll)
{
	struct raw_client c;
	struct tq_event ev[4];
	struct tq_desc d;
	struct pollfd p;
	uint64_t v = 0;
	int efd, sfd, n;

	efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	ASSERT_LE(0, efd);
	ASSERT_EQ(0, raw_client_open(&c, 8, 0, 4096, efd));
	p = (struct pollfd){ .fd = c.fd, .events = POLLIN };
	EXPECT_EQ(0, poll(&p, 1, 0));
	raw_nop(&d, 3);
	ASSERT_EQ(1, raw_client_submit(&c, &d, 1));
	sfd = raw_sched_open(O_NONBLOCK);
	ASSERT_LE(0, sfd);
	n = collect(sfd, ev, 4, 1, 5000);
	ASSERT_EQ(2, n);
	EXPECT_EQ(-1, read(efd, &v, sizeof(v)));
	EXPECT_EQ(0, raw_sched_complete(sfd, &ev[1], 0, 0));
	EXPECT_EQ(sizeof(v), read(efd, &v, sizeof(v)));
	EXPECT_EQ(1, v);
	EXPECT_EQ(1, poll(&p, 1, 0));
	close(sfd);
	raw_client_close(&c);
	close(efd);
}

/* The scheduler maps the client's arena: one set of pages, both ways. */
TEST(arena_shared)
{
	struct raw_client c;
	struct tq_event ev[4];
	long long contexts = raw_stat("contexts");
	uint32_t id;
	char *a;
	int sfd, n;

	ASSERT_EQ(0, raw_client_open(&c, 8, 0, 3 * 4096, -1));
	id = c.s.ctx_id;
	strcpy((char *)c.arena + 4096, "from the client");
	sfd = raw_sched_open(O_NONBLOCK);
	ASSERT_LE(0, sfd);
	n = raw_sched_read(sfd, ev, 4, 5000);
	ASSERT_EQ(1, n);
	ASSERT_EQ(TQ_EV_OPEN, ev[0].type);
	a = mmap(NULL, ev[0].open.arena_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, sfd,
		 ev[0].open.arena_offset);
	ASSERT_NE(MAP_FAILED, a);
	EXPECT_STREQ("from the client", a + 4096);
	strcpy(a + 8192, "from the scheduler");
	EXPECT_STREQ("from the scheduler", (char *)c.arena + 8192);

	/* The arena outlives the client until the scheduler lets go. */
	raw_client_close(&c);
	EXPECT_STREQ("from the client", a + 4096);
	EXPECT_EQ(contexts + 1, raw_stat("contexts"));
	n = raw_sched_read(sfd, ev, 4, 5000);
	ASSERT_EQ(1, n);
	EXPECT_EQ(TQ_EV_CLOSE, ev[0].type);
	EXPECT_EQ(id, ev[0].ctx_id);
	EXPECT_EQ(0, raw_sched_release(sfd, id));
	EXPECT_EQ(contexts, raw_stat("contexts"));
	EXPECT_EQ(-ENOENT, raw_sched_release(sfd, id));
	EXPECT_STREQ("from the scheduler", a + 8192);
	munmap(a, 3 * 4096);
	close(sfd);
}

TEST_F(ctx, fdinfo)
{
	char path[64], buf[2048];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", self->c.fd);
	fd = open(path, O_RDONLY);
	ASSERT_LE(0, fd);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	ASSERT_LT(0, n);
	buf[n] = 0;
	EXPECT_NE(NULL, strstr(buf, "tq-ctx:"));
	EXPECT_NE(NULL, strstr(buf, "sq-entries:\t64"));
	EXPECT_NE(NULL, strstr(buf, "arena-bytes:\t1048576"));

	self->sfd = raw_sched_open(0);
	ASSERT_LE(0, self->sfd);
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", self->sfd);
	fd = open(path, O_RDONLY);
	ASSERT_LE(0, fd);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	ASSERT_LT(0, n);
	buf[n] = 0;
	EXPECT_NE(NULL, strstr(buf, "tq-scheduler:"));
}

/* Arenas count against RLIMIT_MEMLOCK without CAP_IPC_LOCK. */
TEST(memlock_limit)
{
	int status;
	pid_t pid = fork();

	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
		struct __user_cap_data_struct d[2];
		struct rlimit rl = { 256 << 10, 256 << 10 };
		struct raw_client c;

		if (syscall(SYS_capget, &h, d))
			_exit(2);
		d[CAP_IPC_LOCK / 32].effective &= ~(1u << (CAP_IPC_LOCK % 32));
		if (syscall(SYS_capset, &h, d) || setrlimit(RLIMIT_MEMLOCK, &rl))
			_exit(3);
		if (raw_client_open(&c, 8, 0, 1 << 20, -1) != -ENOMEM)
			_exit(4);
		if (raw_client_open(&c, 8, 0, 64 << 10, -1))
			_exit(5);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

TEST(contexts_per_user)
{
	struct raw_client c[3];
	long old;
	int base = (int)raw_stat("contexts");

	ASSERT_EQ(0, base) TH_LOG("contexts left over from earlier tests");
	ASSERT_EQ(0, raw_set_param("contexts_per_user", 2, &old));
	EXPECT_EQ(0, raw_client_open(&c[0], 8, 0, 4096, -1));
	EXPECT_EQ(0, raw_client_open(&c[1], 8, 0, 4096, -1));
	EXPECT_EQ(-EMFILE, raw_client_open(&c[2], 8, 0, 4096, -1));
	raw_client_close(&c[0]);
	EXPECT_EQ(0, raw_client_open(&c[2], 8, 0, 4096, -1));
	raw_client_close(&c[1]);
	raw_client_close(&c[2]);
	EXPECT_EQ(0, raw_set_param("contexts_per_user", old, NULL));
}

/* Beyond inflight_max, descriptors wait in the SQ until tasks complete. */
TEST(inflight_limit)
{
	struct raw_client c;
	struct tq_event ev[16];
	struct tq_desc d[10];
	struct tq_cqe cqe[10];
	int i, n, sfd, done = 0, delivered = 0;
	long old;

	ASSERT_EQ(0, raw_set_param("inflight_max", 4, &old));
	ASSERT_EQ(0, raw_client_open(&c, 16, 0, 4096, -1));
	EXPECT_EQ(0, raw_set_param("inflight_max", old, NULL));
	EXPECT_EQ(4, c.s.max_inflight);
	for (i = 0; i < 10; i++)
		raw_nop(&d[i], i);
	ASSERT_EQ(10, raw_client_submit(&c, d, 10));
	sfd = raw_sched_open(O_NONBLOCK);

	ASSERT_LE(0, sfd);
	while (delivered < 10) {
		n = collect(sfd, ev, 16, 1, 5000);
		ASSERT_LT(0, n);
		EXPECT_GE(4, count_type(ev, n, TQ_EV_TASK));
		delivered += count_type(ev, n, TQ_EV_TASK);
		for (i = 0; i < n; i++)
			if (ev[i].type == TQ_EV_TASK)
				ASSERT_EQ(0, raw_sched_complete(sfd, &ev[i], 0, 0));
	}
	while (done < 10) {
		n = raw_client_wait(&c, cqe, 10, 5000);
		ASSERT_LT(0, n);
		done += n;
	}
	EXPECT_EQ(10, delivered);
	close(sfd);
	raw_client_close(&c);
}

/*
 * A full CQ stops the kernel taking tasks; reaping makes room and, with the
 * scheduler asleep, rings the doorbell so they flow again.
 */
TEST(cq_full_then_reap)
{
	struct raw_client c;
	struct tq_event ev[20];
	struct tq_desc d[8];
	struct tq_cqe cqe[8];
	int i, n, sfd;

	ASSERT_EQ(0, raw_client_open(&c, 4, 4, 4096, -1));
	sfd = raw_sched_open(O_NONBLOCK);
	ASSERT_LE(0, sfd);
	for (i = 0; i < 8; i++)
		raw_nop(&d[i], i);
	ASSERT_EQ(4, raw_client_submit(&c, d, 4));
	n = collect(sfd, ev, 20, 4, 5000);
	ASSERT_EQ(4, count_type(ev, n, TQ_EV_TASK));
	for (i = 0; i < n; i++)
		if (ev[i].type == TQ_EV_TASK)
			ASSERT_EQ(0, raw_sched_complete(sfd, &ev[i], 0, 0));

	/* The CQ is full of unreaped completions: the next four wait. */
	ASSERT_EQ(4, raw_client_submit(&c, d + 4, 4));
	n = collect(sfd, ev, 20, 1, 300);
	EXPECT_EQ(0, count_type(ev, n, TQ_EV_TASK));
	EXPECT_EQ(4, raw_load_acquire(c.sq_cons));
	EXPECT_NE(0, *c.sq_flags & TQ_RING_NEED_WAKEUP);

	/* Reaping makes room and rings; they flow again. */
	ASSERT_EQ(4, raw_client_reap(&c, cqe, 8));
	n = collect(sfd, ev, 20, 4, 5000);
	ASSERT_EQ(4, count_type(ev, n, TQ_EV_TASK));
	for (i = 0; i < n; i++)
		if (ev[i].type == TQ_EV_TASK)
			ASSERT_EQ(0, raw_sched_complete(sfd, &ev[i], 0, 0));
	ASSERT_EQ(4, raw_client_wait(&c, cqe, 8, 5000));
	EXPECT_EQ(4, cqe[0].user_data);
	EXPECT_EQ(7, cqe[3].user_data);
	close(sfd);
	raw_client_close(&c);
}

/* fork() shares no mapping; the child cannot drive its parent's context. */
TEST_F(ctx, fork)
{
	struct tq_cqe cqe;
	struct tq_desc d;
	struct tq_event ev[8];
	int status, n, i;
	pid_t pid;

	self->sfd = raw_sched_open(O_NONBLOCK);
	ASSERT_LE(0, self->sfd);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct raw_client own;
		char maps[8192] = "";
		char name[64];
		int fd = open("/proc/self/maps", O_RDONLY);

		if (fd < 0 || read(fd, maps, sizeof(maps) - 1) < 0)
			_exit(2);
		snprintf(name, sizeof(name), "%lx-", (unsigned long)self->c.sq);
		if (strstr(maps, name))
			_exit(3);	/* the SQ was copied */
		snprintf(name, sizeof(name), "%lx-", (unsigned long)self->c.arena);
		if (strstr(maps, name))
			_exit(4);	/* the arena was copied */
		if (raw_enter(self->c.fd) != -EPERM)
			_exit(5);
		if (mmap(NULL, self->c.s.sq_off.mmap_size, PROT_READ, MAP_SHARED, self->c.fd,
			 self->c.s.sq_off.mmap_offset) != MAP_FAILED || errno != EPERM)
			_exit(6);
		/* A context of its own works. */
		if (raw_client_open(&own, 8, 0, 4096, -1))
			_exit(7);
		raw_nop(&d, 1000);
		if (raw_client_submit(&own, &d, 1) != 1 || raw_client_wait(&own, &cqe, 1, 10000) != 1)
			_exit(8);
		_exit(cqe.user_data == 1000 ? 0 : 9);
	}
	/* Serve the child until it exits. */
	for (i = 0; i < 200; i++) {
		n = raw_sched_read(self->sfd, ev, 8, 100);
		while (n-- > 0)
			if (ev[n].type == TQ_EV_TASK)
				raw_sched_complete(self->sfd, &ev[n], 0, 0);
		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
	}
	if (i == 200)
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
	/* The parent's context still works after the child is gone. */
	raw_nop(&d, 2000);
	ASSERT_EQ(1, raw_client_submit(&self->c, &d, 1));
	n = collect(self->sfd, ev, 8, 1, 5000);
	for (i = 0; i < n; i++)
		if (ev[i].type == TQ_EV_TASK)
			EXPECT_EQ(0, raw_sched_complete(self->sfd, &ev[i], 0, 0));
	ASSERT_EQ(1, raw_client_wait(&self->c, &cqe, 1, 5000));
	EXPECT_EQ(2000, cqe.user_data);
}

/* A client closing with tasks the scheduler holds: the arena waits for it. */
TEST(close_with_tasks_in_flight)
{
	struct raw_client c;
	struct tq_event ev[8];
	struct tq_desc d[3];
	long long contexts = raw_stat("contexts"), dropped = raw_stat("dropped");
	long long inflight = raw_stat("in_flight");
	int sfd, n, i;
	uint32_t id;

	ASSERT_EQ(0, raw_client_open(&c, 8, 0, 4096, -1));
	id = c.s.ctx_id;
	for (i = 0; i < 3; i++)
		raw_nop(&d[i], i);
	ASSERT_EQ(3, raw_client_submit(&c, d, 3));
	sfd = raw_sched_open(O_NONBLOCK);
	ASSERT_LE(0, sfd);
	n = collect(sfd, ev, 8, 3, 5000);
	ASSERT_EQ(3, count_type(ev, n, TQ_EV_TASK));
	EXPECT_EQ(inflight + 3, raw_stat("in_flight"));
	raw_client_close(&c);
	/* Its completions are still taken (and dropped); then it is let go. */
	EXPECT_EQ(0, raw_sched_complete(sfd, &ev[1], 0, 0));
	n = raw_sched_read(sfd, ev + 4, 4, 5000);
	ASSERT_EQ(1, n);
	EXPECT_EQ(TQ_EV_CLOSE, ev[4].type);
	EXPECT_EQ(contexts + 1, raw_stat("contexts"));
	EXPECT_EQ(0, raw_sched_complete(sfd, &ev[2], -ECANCELED, 0));
	EXPECT_EQ(0, raw_sched_release(sfd, id));
	EXPECT_EQ(contexts, raw_stat("contexts"));
	EXPECT_EQ(inflight, raw_stat("in_flight"));
	EXPECT_EQ(dropped + 1, raw_stat("dropped"));
	EXPECT_EQ(-ENOENT, raw_sched_complete(sfd, &ev[3], 0, 0));
	close(sfd);
}

/* A fresh fd is neither kind: only QUERY works on it. No fd seeks. */
TEST(fresh_fd_misuse)
{
	struct tq_query q = { .size = sizeof(q) };
	struct pollfd p;
	struct tq_event ev;
	char buf[48] = { 0 };
	int fd = dev_open();

	ASSERT_LE(0, fd);
	EXPECT_EQ(0, xioctl(fd, TQ_IOC_QUERY, &q));
	EXPECT_EQ(-1, read(fd, &ev, sizeof(ev)));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, write(fd, buf, sizeof(buf)));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, lseek(fd, 0, SEEK_SET));
	EXPECT_EQ(ESPIPE, errno);
	p = (struct pollfd){ .fd = fd, .events = POLLIN | POLLOUT };
	EXPECT_EQ(1, poll(&p, 1, 0));
	EXPECT_NE(0, p.revents & POLLERR);
	close(fd);
}

/* The scheduler fd: no doorbell, QUERY works, always writable. */
TEST(scheduler_fd_misuse)
{
	struct tq_query q = { .size = sizeof(q) };
	struct pollfd p;
	int sfd = raw_sched_open(O_NONBLOCK);

	ASSERT_LE(0, sfd);
	EXPECT_EQ(-EINVAL, raw_enter(sfd));
	EXPECT_EQ(0, xioctl(sfd, TQ_IOC_QUERY, &q));
	p = (struct pollfd){ .fd = sfd, .events = POLLOUT };
	EXPECT_EQ(1, poll(&p, 1, 0));
	EXPECT_NE(0, p.revents & POLLOUT);
	close(sfd);
}

/* The CQ is never smaller than the SQ; max_inflight is bounded by both limits. */
TEST(cq_rounding)
{
	struct tq_setup s;
	long old;
	int fd;

	fd = dev_open();
	ASSERT_LE(0, fd);
	fill_setup(&s);
	s.sq_entries = 8;
	s.cq_entries = 3;
	ASSERT_EQ(0, xioctl(fd, TQ_IOC_SETUP, &s));
	EXPECT_EQ(8, s.cq_entries);
	EXPECT_EQ(8, s.max_inflight);
	close(fd);

	fd = dev_open();
	ASSERT_LE(0, fd);
	fill_setup(&s);
	s.sq_entries = 4;
	s.cq_entries = 5;
	ASSERT_EQ(0, raw_set_param("inflight_max", 3, &old));
	EXPECT_EQ(0, xioctl(fd, TQ_IOC_SETUP, &s));
	EXPECT_EQ(0, raw_set_param("inflight_max", old, NULL));
	EXPECT_EQ(8, s.cq_entries);
	EXPECT_EQ(3, s.max_inflight);
	close(fd);
}

/* The scheduler's arena mappings follow the same rules as the client's. */
TEST(scheduler_arena_mmap_checks)
{
	struct raw_client c;
	struct tq_event ev[4];
	long pg = getpagesize();
	uint64_t off;
	void *p;
	int sfd;

	ASSERT_EQ(0, raw_client_open(&c, 8, 0, 2 * pg, -1));
	sfd = raw_sched_open(O_NONBLOCK);
	ASSERT_LE(0, sfd);
	ASSERT_EQ(1, raw_sched_read(sfd, ev, 4, 5000));
	off = ev[0].open.arena_offset;
	p = mmap(NULL, 2 * pg, PROT_READ | PROT_EXEC, MAP_SHARED, sfd, off);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EPERM, errno);
	p = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE, sfd, off);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, pg, PROT_READ, MAP_SHARED, sfd, off);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_SHARED, sfd, off);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_NE(0, mprotect(p, 2 * pg, PROT_READ | PROT_EXEC));
	EXPECT_EQ(MAP_FAILED, mremap(p, 2 * pg, 4 * pg, MREMAP_MAYMOVE));
	munmap(p, 2 * pg);

	/* Once the context is released, its offset maps nothing. */
	raw_client_close(&c);
	ASSERT_EQ(1, raw_sched_read(sfd, ev, 4, 5000));
	ASSERT_EQ(TQ_EV_CLOSE, ev[0].type);
	ASSERT_EQ(0, raw_sched_release(sfd, ev[0].ctx_id));
	p = mmap(NULL, 2 * pg, PROT_READ, MAP_SHARED, sfd, off);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(ENOENT, errno);
	close(sfd);
}

/* One busy context cannot crowd another out of a read: 32 tasks per turn. */
TEST(round_robin_between_contexts)
{
	struct raw_client a, b;
	struct tq_event ev[40];
	struct tq_desc d[64];
	int i, n, sfd, b_task = -1, a_tasks = 0;

	ASSERT_EQ(0, raw_client_open(&a, 64, 0, 4096, -1));
	ASSERT_EQ(0, raw_client_open(&b, 8, 0, 4096, -1));
	for (i = 0; i < 64; i++)
		raw_nop(&d[i], i);
	ASSERT_EQ(64, raw_client_submit(&a, d, 64));
	raw_nop(&d[0], 1000);
	ASSERT_EQ(1, raw_client_submit(&b, d, 1));
	sfd = raw_sched_open(O_NONBLOCK);
	ASSERT_LE(0, sfd);
	n = raw_sched_read(sfd, ev, 40, 5000);
	ASSERT_EQ(40, n);
	for (i = 0; i < n; i++) {
		if (ev[i].type != TQ_EV_TASK)
			continue;
		if (ev[i].ctx_id == b.s.ctx_id)
			b_task = i;
		else
			a_tasks++;
	}
	ASSERT_LE(0, b_task) TH_LOG("the second context got no turn");
	EXPECT_EQ(1000, ev[b_task].task.user_data);
	EXPECT_EQ(40 - 2 - 1, a_tasks);
	close(sfd);		/* requeued; dropped as the clients close */
	raw_client_close(&a);
	raw_client_close(&b);
	EXPECT_EQ(0, raw_stat("in_flight"));
}

/* More completions in one write than the kernel stages at once. */
TEST(write_many_records)
{
	struct tq_completion cmpl[100];
	struct tq_event ev[128];
	struct tq_cqe cqe[128];
	struct tq_desc d[100];
	struct raw_client c;
	int i, n, k = 0, got = 0, seen[100] = { 0 };
	int sfd;

	ASSERT_EQ(0, raw_client_open(&c, 128, 0, 4096, -1));
	for (i = 0; i < 100; i++)
		raw_nop(&d[i], i);
	ASSERT_EQ(100, raw_client_submit(&c, d, 100));
	sfd = raw_sched_open(O_NONBLOCK);
	ASSERT_LE(0, sfd);
	n = collect(sfd, ev, 128, 100, 5000);
	for (i = 0; i < n; i++) {
		if (ev[i].type != TQ_EV_TASK)
			continue;
		cmpl[k] = (struct tq_completion){ .ctx_id = ev[i].ctx_id, .tag = ev[i].tag,
						  .result = ev[i].task.user_data };
		k++;
	}
	ASSERT_EQ(100, k);
	EXPECT_EQ(sizeof(cmpl), write(sfd, cmpl, sizeof(cmpl)));
	while (got < 100) {
		n = raw_client_wait(&c, cqe, 128, 5000);
		ASSERT_LT(0, n);
		for (i = 0; i < n; i++) {
			ASSERT_GT(100, cqe[i].user_data);
			seen[cqe[i].user_data]++;
			EXPECT_EQ(cqe[i].user_data, cqe[i].result);
			EXPECT_EQ(0, cqe[i].resv[0] | cqe[i].resv[1]);
		}
		got += n;
	}
	for (i = 0; i < 100; i++)
		EXPECT_EQ(1, seen[i]);
	close(sfd);
	raw_client_close(&c);
}

/* A writer's bad buffer: the records before the fault are taken, no more. */
TEST(write_bad_buffer)
{
	struct tq_event ev[8];
	struct tq_completion *rec;
	struct tq_desc d[2];
	struct raw_client c;
	struct tq_cqe cqe[4];
	long pg = getpagesize();
	char *p;
	int sfd, n;

	ASSERT_EQ(0, raw_client_open(&c, 8, 0, 4096, -1));
	raw_nop(&d[0], 1);
	raw_nop(&d[1], 2);
	ASSERT_EQ(2, raw_client_submit(&c, d, 2));
	sfd = raw_sched_open(O_NONBLOCK);
	ASSERT_LE(0, sfd);
	n = collect(sfd, ev, 8, 2, 5000);
	ASSERT_EQ(3, n);
	p = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, munmap(p + pg, pg));
	EXPECT_EQ(-1, write(sfd, p + pg, sizeof(*rec)));
	EXPECT_EQ(EFAULT, errno);
	/* One whole record, then the unmapped page. */
	rec = (struct tq_completion *)(p + pg - sizeof(*rec));
	*rec = (struct tq_completion){ .ctx_id = ev[1].ctx_id, .tag = ev[1].tag };
	EXPECT_EQ(sizeof(*rec), write(sfd, rec, 2 * sizeof(*rec)));
	ASSERT_EQ(1, raw_client_wait(&c, cqe, 4, 5000));
	EXPECT_EQ(1, cqe[0].user_data);
	EXPECT_EQ(0, raw_sched_complete(sfd, &ev[2], 0, 0));
	ASSERT_EQ(1, raw_client_wait(&c, cqe, 4, 5000));
	EXPECT_EQ(2, cqe[0].user_data);
	munmap(p, pg);
	close(sfd);
	raw_client_close(&c);
}

/* A closed context the scheduler has not released still counts for its user. */
TEST(closed_context_counts_until_released)
{
	struct raw_client c[3];
	struct tq_event ev[4];
	long old;
	int sfd, n;

	ASSERT_EQ(0, raw_stat("contexts"));
	ASSERT_EQ(0, raw_set_param("contexts_per_user", 2, &old));
	sfd = raw_sched_open(O_NONBLOCK);
	ASSERT_LE(0, sfd);
	EXPECT_EQ(0, raw_client_open(&c[0], 8, 0, 4096, -1));
	EXPECT_EQ(0, raw_client_open(&c[1], 8, 0, 4096, -1));
	n = raw_sched_read(sfd, ev, 4, 5000);
	EXPECT_EQ(2, n);
	raw_client_close(&c[0]);
	EXPECT_EQ(-EMFILE, raw_client_open(&c[2], 8, 0, 4096, -1));
	ASSERT_EQ(1, raw_sched_read(sfd, ev, 4, 5000));
	ASSERT_EQ(TQ_EV_CLOSE, ev[0].type);
	EXPECT_EQ(0, raw_sched_release(sfd, ev[0].ctx_id));
	EXPECT_EQ(0, raw_client_open(&c[2], 8, 0, 4096, -1));
	EXPECT_EQ(0, raw_set_param("contexts_per_user", old, NULL));
	raw_client_close(&c[1]);
	raw_client_close(&c[2]);
	close(sfd);
	EXPECT_EQ(0, raw_stat("contexts"));
}

/* Events carry zeros where the ABI says so, and a context opened later gets its OPEN. */
TEST(event_fields)
{
	struct raw_client a, b;
	struct tq_event ev[8];
	struct tq_desc d;
	uint32_t id;
	int sfd, n, i;

	ASSERT_EQ(0, raw_client_open(&a, 8, 0, 4096, -1));
	sfd = raw_sched_open(O_NONBLOCK);
	ASSERT_LE(0, sfd);
	ASSERT_EQ(1, raw_sched_read(sfd, ev, 8, 5000));
	EXPECT_EQ(TQ_EV_OPEN, ev[0].type);
	EXPECT_EQ(0, ev[0].flags);
	EXPECT_EQ(0, ev[0].tag);
	EXPECT_EQ(0, ev[0].open.prio);
	EXPECT_EQ(0, ev[0].open.resv[0] | ev[0].open.resv[1] | ev[0].open.resv[2]);
	EXPECT_EQ(a.s.max_inflight, ev[0].open.max_inflight);
	EXPECT_EQ(a.s.cq_entries, ev[0].open.cq_entries);
	EXPECT_EQ(0, ev[0].seq);
	EXPECT_EQ(0, ev[0].pred);
	for (i = 0; i < 2; i++)
		EXPECT_EQ(0, ev[0].resv[i]);

	ASSERT_EQ(0, raw_client_open(&b, 8, 0, 4096, -1));
	EXPECT_NE(a.s.ctx_id, b.s.ctx_id);
	raw_nop(&d, 5);
	ASSERT_EQ(1, raw_client_submit(&b, &d, 1));
	n = collect(sfd, ev, 8, 1, 5000);
	ASSERT_EQ(2, n);
	EXPECT_EQ(TQ_EV_OPEN, ev[0].type);
	EXPECT_EQ(b.s.ctx_id, ev[0].ctx_id);
	EXPECT_EQ(TQ_EV_TASK, ev[1].type);
	EXPECT_NE(0, ev[1].tag);
	EXPECT_EQ(1, ev[1].seq);	/* the context's first descriptor */
	EXPECT_EQ(0, ev[1].pred);
	for (i = 0; i < 2; i++)
		EXPECT_EQ(0, ev[1].resv[i]);
	EXPECT_EQ(0, raw_sched_complete(sfd, &ev[1], 0, 0));

	id = b.s.ctx_id;
	raw_client_close(&b);
	ASSERT_EQ(1, raw_sched_read(sfd, ev, 8, 5000));
	EXPECT_EQ(TQ_EV_CLOSE, ev[0].type);
	EXPECT_EQ(id, ev[0].ctx_id);
	EXPECT_EQ(0, ev[0].tag);
	EXPECT_EQ(0, raw_sched_release(sfd, ev[0].ctx_id));
	close(sfd);
	raw_client_close(&a);
}

/*
 * QoS (TQ_FEAT_QOS): the context's class reaches the scheduler in its OPEN,
 * a task's class and deadline in its descriptor, and TQ_COMPL_F_LATE on a
 * task with a deadline gives its cqe TQ_CQE_F_LATE.
 */
TEST(qos)
{
	struct raw_client a;
	struct tq_event ev[8];
	struct tq_completion c;
	struct tq_cqe cqe;
	struct tq_desc d;
	int sfd;

	ASSERT_EQ(0, raw_client_open_prio(&a, 8, 0, 4096, -1, TQ_PRIO_HIGH));
	sfd = raw_sched_open(O_NONBLOCK);
	ASSERT_LE(0, sfd);
	ASSERT_EQ(1, raw_sched_read(sfd, ev, 8, 5000));
	EXPECT_EQ(TQ_EV_OPEN, ev[0].type);
	EXPECT_EQ(TQ_PRIO_HIGH, ev[0].open.prio);
	raw_task(&d, 9);
	d.flags = TQ_DESC_PRIO(TQ_PRIO_CRITICAL) | TQ_DESC_DEADLINE(TQ_DEADLINE_MAX);
	ASSERT_EQ(1, raw_client_submit(&a, &d, 1));
	ASSERT_EQ(1, collect(sfd, ev, 8, 1, 5000));
	EXPECT_EQ(TQ_EV_TASK, ev[0].type);
	EXPECT_EQ(d.flags, ev[0].task.flags);
	c = (struct tq_completion){ .ctx_id = ev[0].ctx_id, .tag = ev[0].tag,
				    .flags = TQ_COMPL_F_LATE, .start_ns = 1, .end_ns = 2 };
	EXPECT_EQ(sizeof(c), write(sfd, &c, sizeof(c)));
	ASSERT_EQ(1, raw_client_wait(&a, &cqe, 1, 5000));
	EXPECT_EQ(9, cqe.user_data);
	EXPECT_EQ(0, cqe.status);
	EXPECT_EQ(TQ_CQE_F_LATE, cqe.flags);
	close(sfd);
	raw_client_close(&a);
}

/* The TASK events among n, in order, into t: their count. */
static int tasks_of(const struct tq_event *ev, int n, struct tq_event *t)
{
	int i, k = 0;

	for (i = 0; i < n; i++)
		if (ev[i].type == TQ_EV_TASK)
			t[k++] = ev[i];
	return k;
}

static int status_of(const struct tq_cqe *cqe, int n, uint64_t ud)
{
	int i;

	for (i = 0; i < n; i++)
		if (cqe[i].user_data == ud)
			return cqe[i].status;
	return 1;
}

static void chained(struct tq_desc *d, uint64_t ud, uint32_t after)
{
	raw_task(d, ud);
	d->flags = TQ_DESC_F_AFTER;
	d->after = after;
}

/*
 * Chains (TQ_DESC_F_AFTER) in the module: a scheduler without
 * TQ_ATTACH_F_CHAINS gets a successor only once its predecessor completed
 * with 0; a failed one cancels the rest of the chain; with the flag the
 * chain comes at once, each naming its predecessor's seq, and after the
 * scheduler's exit again in order, or cancelled behind an abandoned head.
 */
TEST_F(ctx, chains)
{
	struct tq_event ev[16], t[16];
	struct tq_desc d[3];
	struct tq_cqe cqe[8];
	int n, k, got;

	raw_task(&d[0], 1);
	chained(&d[1], 2, 1);
	chained(&d[2], 3, 1);
	ASSERT_EQ(3, raw_client_submit(&self->c, d, 3));
	self->sfd = raw_sched_open(O_NONBLOCK);
	ASSERT_LE(0, self->sfd);
	n = collect(self->sfd, ev, 16, 3, 300);
	k = tasks_of(ev, n, t);
	ASSERT_EQ(1, k);
	EXPECT_EQ(1, t[0].task.user_data);
	EXPECT_EQ(1, t[0].seq);
	EXPECT_EQ(0, t[0].pred);
	EXPECT_EQ(0, raw_sched_complete(self->sfd, &t[0], 0, 0));
	n = collect(self->sfd, ev, 16, 3, 300);
	k = tasks_of(ev, n, t);
	ASSERT_EQ(1, k);
	EXPECT_EQ(2, t[0].task.user_data);
	EXPECT_EQ(2, t[0].seq);
	EXPECT_EQ(0, t[0].pred);
	EXPECT_EQ(0, raw_sched_complete(self->sfd, &t[0], -EIO, 0));
	got = raw_client_wait(&self->c, cqe, 8, 5000);
	while (got < 3) {
		n = raw_client_wait(&self->c, cqe + got, 8 - got, 5000);
		ASSERT_LT(0, n);
		got += n;
	}
	EXPECT_EQ(0, status_of(cqe, got, 1));
	EXPECT_EQ(-EIO, status_of(cqe, got, 2));
	EXPECT_EQ(-ECANCELED, status_of(cqe, got, 3));
	EXPECT_EQ(0, raw_sched_read(self->sfd, ev, 16, 100));

	/* A task after the cancelled one is cancelled when taken. */
	chained(&d[0], 4, 1);
	ASSERT_EQ(1, raw_client_submit(&self->c, d, 1));
	/* The module takes descriptors in the scheduler's read(): it returns none. */
	EXPECT_EQ(0, raw_sched_read(self->sfd, ev, 16, 100));
	ASSERT_EQ(1, raw_client_wait(&self->c, cqe, 8, 5000));
	EXPECT_EQ(-ECANCELED, cqe[0].status);
	close(self->sfd);

	/* With TQ_ATTACH_F_CHAINS: at once; requeued in order; abandoned head. */
	raw_task(&d[0], 5);
	chained(&d[1], 6, 1);
	chained(&d[2], 7, 1);
	ASSERT_EQ(3, raw_client_submit(&self->c, d, 3));
	self->sfd = raw_sched_open_flags(O_NONBLOCK, TQ_ATTACH_F_CHAINS);
	ASSERT_LE(0, self->sfd);
	n = collect(self->sfd, ev, 16, 3, 5000);
	k = tasks_of(ev, n, t);
	ASSERT_EQ(3, k);
	EXPECT_EQ(5, t[0].seq);
	EXPECT_EQ(0, t[0].pred);
	EXPECT_EQ(5, t[1].pred);
	EXPECT_EQ(6, t[2].pred);
	close(self->sfd);
	self->sfd = raw_sched_open_flags(O_NONBLOCK, TQ_ATTACH_F_CHAINS);
	ASSERT_LE(0, self->sfd);
	n = collect(self->sfd, ev, 16, 3, 5000);
	k = tasks_of(ev, n, t);
	ASSERT_EQ(3, k);
	EXPECT_EQ(5, t[0].seq);
	EXPECT_EQ(5, t[1].pred);
	EXPECT_EQ(6, t[2].pred);
	EXPECT_NE(0, t[2].flags & TQ_EV_F_REQUEUED);
	EXPECT_EQ(0, raw_sched_mark(self->sfd, &t[0]));
	close(self->sfd);
	self->sfd = -1;
	got = 0;
	while (got < 3) {
		n = raw_client_wait(&self->c, cqe + got, 8 - got, 5000);
		ASSERT_LT(0, n);
		got += n;
	}
	EXPECT_EQ(-EOWNERDEAD, status_of(cqe, got, 5));
	EXPECT_EQ(-ECANCELED, status_of(cqe, got, 6));
	EXPECT_EQ(-ECANCELED, status_of(cqe, got, 7));
}

TEST_HARNESS_MAIN
