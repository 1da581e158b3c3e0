// SPDX-License-Identifier: GPL-2.0
/*
 * limits_client.c - the clients of usched/daemon/tests/limits.sh: each does one
 * thing the limits are about, through libtq, and prints what it saw as
 * "key=value" words on one line, statuses as errno names (ok for 0):
 *
 *	limits_client [--uid UID] program FILE	register FILE's source
 *	limits_client [--uid UID] scale FILE [GO]
 *						register it, run its scale(a, x) on
 *						4096 floats and check every one; with
 *						GO, once registered wait for the file
 *						GO to exist before the run
 *	limits_client big-source BYTES		a source of that many bytes
 *	limits_client flood N [CONTEXTS]	in each of CONTEXTS contexts (1), held
 *						open together, register the VA built-in
 *						N times and its kernel N times: how many
 *						succeeded, and the first refusal
 *	limits_client worksize			VA over 2^63 work-items, then over 1024
 *						(checked)
 *	limits_client arena MiB [MiB...]	one context per size, a NOP in each
 *	limits_client chain N			N VA tasks submitted at once, each
 *						chained after the previous one and
 *						adding 1 to its output: whether each
 *						started after the previous one ended
 *						and the last output is right; then a
 *						chain whose head is refused (-ENOENT)
 *	limits_client prio CLASS		a context of CLASS (tq_prio_parse()):
 *						a VA task of its class, one naming
 *						normal, one naming normal with a 5 s
 *						deadline: each status, and whether the
 *						last came back flagged late
 *	limits_client names			an unknown built-in, kernel name,
 *						program id and kernel id: each status
 *						and tq_strerror()'s message for it
 *	limits_client nosched			with no scheduler attached: a NOP
 *						waited for with no timeout, then the
 *						VA built-in registered: each status and
 *						how long it took (TQ_SCHED_WAIT_MS)
 *
 * --uid drops root for that uid (and its primary group) before opening the
 * device. Exit status 0 when it could do what it was asked (a refusal is a
 * result, not a failure), 1 otherwise.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tq/clock.h>

#include "libtq/tq.h"

static const char *status_name(int status)
{
	const char *n = status ? strerrorname_np(-status) : "ok";

	return n ? n : "unknown";
}

static char *read_text(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf;

	if (!f)
		return NULL;
	buf = malloc(1 << 20);
	*len = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
	fclose(f);
	if (buf)
		buf[*len] = 0;
	return buf;
}

static int open_ctx(struct tq *tq, size_t arena)
{
	int ret = tq_open(tq, 64, arena, 0);

	if (ret)
		fprintf(stderr, "limits_client: tq_open: %s\n", tq_strerror(ret));
	return ret;
}

/* One descriptor, its completion's status. */
static int run_one(struct tq *tq, struct tq_desc *d)
{
	struct tq_desc *s = tq_get_desc(tq);
	struct tq_cqe *cqe;
	int ret;

	*s = *d;
	ret = tq_submit(tq);
	if (ret < 0)
		return ret;
	do
		ret = tq_wait(tq, &cqe, 600000);
	while (ret == -EINTR);
	if (ret)
		return ret;
	ret = cqe->status;
	tq_cqe_seen(tq, cqe);
	return ret;
}

static int program(const char *path, bool run, const char *go)
{
	enum { N = 4096 };
	struct tq tq;
	uint32_t prog, kern;
	size_t len, global = N;
	uint64_t off;
	float *a, x = 3;
	char *src = read_text(path, &len);
	int ret, bad = 0;

	if (!src || open_ctx(&tq, 1 << 20))
		return 1;
	ret = tq_register_program(&tq, src, len, NULL, &prog);
	printf("program=%s", status_name(ret));
	if (!ret && run) {
		struct tq_desc d = { 0 };

		ret = tq_lookup_kernel(&tq, prog, "scale", &kern);
		if (!ret && go) {
			/* Registered: the test may restart usched before the task goes in. */
			printf(" kernel=ok\n");
			fflush(stdout);
			while (access(go, F_OK))
				usleep(100000);
		}
		if (!ret)
			ret = tq_buf_alloc(&tq, N * sizeof(float), (void **)&a, &off);
		if (!ret) {
			for (int i = 0; i < N; i++)
				a[i] = i;
			tq_prep_task(&d, prog, kern, 1, &global, NULL);
			tq_prep_buf(&d, 0, off, N * sizeof(float), TQ_DIR_INOUT);
			tq_prep_scalar(&d, 1, &x, sizeof(x));
			ret = run_one(&tq, &d);
			for (int i = 0; !ret && i < N; i++)
				bad += a[i] != 3.0f * i;
		}
		printf(" run=%s verified=%s", status_name(ret), !ret && !bad ? "yes" : "no");
	}
	printf("\n");
	tq_close(&tq);
	free(src);
	return 0;
}

static int big_source(size_t bytes)
{
	static const char k[] = "__kernel void f(__global int *a) { a[0] = 1; }\n";
	char *src = malloc(bytes + 1);
	struct tq tq;
	uint32_t prog;
	int ret;

	if (!src || bytes < sizeof(k) + 4 || open_ctx(&tq, bytes + (1 << 20)))
		return 1;
	/* A comment pads it: the source is valid at any length. */
	memcpy(src, "/*", 2);
	memset(src + 2, ' ', bytes - 2);
	memcpy(src + bytes - sizeof(k) + 1 - 2, "*/", 2);
	memcpy(src + bytes - sizeof(k) + 1, k, sizeof(k) - 1);
	src[bytes] = 0;
	ret = tq_register_program(&tq, src, bytes, NULL, &prog);
	printf("big-source=%s bytes=%zu\n", status_name(ret), bytes);
	tq_close(&tq);
	free(src);
	return 0;
}

/* Per context in turn, all of them kept open: programs, then kernels, until refused. */
static int flood(unsigned int n, unsigned int nctx)
{
	struct tq tq[8];
	unsigned int c;

	if (nctx < 1 || nctx > 8)
		return 2;
	for (c = 0; c < nctx; c++)
		if (open_ctx(&tq[c], 1 << 20))
			return 1;
	for (c = 0; c < nctx; c++) {
		unsigned int progs = 0, kerns = 0;
		uint32_t prog, first = 0, kern;
		int pret = 0, kret = 0;

		for (unsigned int i = 0; i < n && !pret; i++) {
			pret = tq_register_builtin(&tq[c], "VA", &prog);
			if (!pret) {
				progs++;
				first = first ? first : prog;
			}
		}
		for (unsigned int i = 0; first && i < n && !kret; i++) {
			kret = tq_lookup_kernel(&tq[c], first, "vec_add", &kern);
			kerns += !kret;
		}
		printf("%sprograms=%u program-refusal=%s kernels=%u kernel-refusal=%s",
		       c ? " | " : "", progs, status_name(pret), kerns, status_name(kret));
	}
	printf("\n");
	for (c = 0; c < nctx; c++)
		tq_close(&tq[c]);
	return 0;
}

static int worksize(void)
{
	enum { N = 1024 };
	size_t huge = (size_t)1 << 63, global = N;
	struct tq_desc d = { 0 };
	uint32_t prog, kern;
	uint64_t off[3];
	float *buf[3];
	struct tq tq;
	int ret, bad = 0;

	if (open_ctx(&tq, 1 << 20))
		return 1;
	ret = tq_register_builtin(&tq, "VA", &prog);
	if (!ret)
		ret = tq_lookup_kernel(&tq, prog, "vec_add", &kern);
	for (int i = 0; !ret && i < 3; i++)
		ret = tq_buf_alloc(&tq, N * sizeof(float), (void **)&buf[i], &off[i]);
	if (ret) {
		fprintf(stderr, "limits_client: VA: %s\n", tq_strerror(ret));
		return 1;
	}
	for (int i = 0; i < N; i++) {
		buf[0][i] = i;
		buf[1][i] = 2 * i;
		buf[2][i] = -1;
	}
	tq_prep_task(&d, prog, kern, 1, &huge, NULL);
	tq_prep_buf(&d, 0, off[0], N * sizeof(float), TQ_DIR_IN);
	tq_prep_buf(&d, 1, off[1], N * sizeof(float), TQ_DIR_IN);
	tq_prep_buf(&d, 2, off[2], N * sizeof(float), TQ_DIR_OUT);
	ret = run_one(&tq, &d);
	printf("huge=%s", status_name(ret));
	d.global[0] = global;
	ret = run_one(&tq, &d);
	for (int i = 0; !ret && i < N; i++)
		bad += buf[2][i] != 3.0f * i;
	printf(" small=%s verified=%s\n", status_name(ret), !ret && !bad ? "yes" : "no");
	tq_close(&tq);
	return 0;
}

static void said(const char *what, int status)
{
	printf("%s=%s (%s)\n", what, status_name(status), tq_strerror(status));
}

static int names(void)
{
	struct tq_desc d = { 0 };
	uint32_t prog, kern;
	size_t global = 16;
	struct tq tq;
	int ret;

	if (open_ctx(&tq, 1 << 20))
		return 1;
	said("builtin", tq_register_builtin(&tq, "VAX", &prog));
	ret = tq_register_builtin(&tq, "VA", &prog);
	if (ret) {
		fprintf(stderr, "limits_client: VA: %s\n", tq_strerror(ret));
		return 1;
	}
	said("kernel", tq_lookup_kernel(&tq, prog, "vec_addx", &kern));
	said("program", tq_lookup_kernel(&tq, prog + 9, "vec_add", &kern));
	tq_prep_task(&d, prog, 99, 1, &global, NULL);
	said("task", run_one(&tq, &d));
	tq_close(&tq);
	return 0;
}

static int nosched(void)
{
	struct tq_desc *d;
	struct tq_cqe *cqe;
	uint64_t t0;
	uint32_t prog;
	struct tq tq;
	int ret;

	if (open_ctx(&tq, 1 << 20))
		return 1;
	d = tq_get_desc(&tq);
	tq_prep_nop(d);
	t0 = tq_now_ns();
	ret = tq_submit(&tq);
	if (ret == 1)
		ret = tq_wait(&tq, &cqe, -1);
	said("wait", ret);
	printf("wait_ms=%llu\n", (unsigned long long)(tq_now_ns() - t0) / 1000000);
	tq_close(&tq);
	if (open_ctx(&tq, 1 << 20))
		return 1;
	t0 = tq_now_ns();
	said("register", tq_register_builtin(&tq, "VA", &prog));
	printf("register_ms=%llu\n", (unsigned long long)(tq_now_ns() - t0) / 1000000);
	tq_close(&tq);
	return 0;
}

static int arena(int n, char **mib)
{
	struct tq tq[8];
	int i;

	for (i = 0; i < n && i < 8; i++)
		if (open_ctx(&tq[i], strtoull(mib[i], NULL, 0) << 20))
			return 1;
	for (i = 0; i < n && i < 8; i++) {
		struct tq_desc d = { 0 };

		tq_prep_nop(&d);
		printf("%sarena%d=%s", i ? " " : "", i, status_name(run_one(&tq[i], &d)));
	}
	printf("\n");
	for (i = 0; i < n && i < 8; i++)
		tq_close(&tq[i]);
	return 0;
}

static int prio(const char *name)
{
	enum { M = 1024 };
	uint64_t off[3];
	struct tq_desc d = { 0 };
	int class = tq_prio_parse(name), st[3], ret, late = 0;
	size_t global = M;
	uint32_t prog, kern;
	struct tq tq;
	void *p;

	ret = class < 0 ? class : tq_open(&tq, 64, 1 << 20, TQ_OPEN_PRIO(class));
	if (ret) {
		printf("open=%s", strerrorname_np(-ret));
		return 0;
	}
	ret = tq_register_builtin(&tq, "VA", &prog);
	if (!ret)
		ret = tq_lookup_kernel(&tq, prog, "vec_add", &kern);
	for (int i = 0; !ret && i < 3; i++) {
		ret = tq_buf_alloc(&tq, M * sizeof(float), &p, &off[i]);
		if (!ret)
			memset(p, 0, M * sizeof(float));
	}
	if (ret) {
		fprintf(stderr, "limits_client: VA: %s\n", tq_strerror(ret));
		return 1;
	}
	tq_prep_task(&d, prog, kern, 1, &global, NULL);
	for (int i = 0; i < 3; i++)
		tq_prep_buf(&d, i, off[i], M * sizeof(float), i < 2 ? TQ_DIR_IN : TQ_DIR_OUT);
	st[0] = run_one(&tq, &d);
	tq_desc_set_prio(&d, TQ_PRIO_NORMAL);
	st[1] = run_one(&tq, &d);
	tq_desc_set_deadline(&d, 5000000);
	{
		struct tq_desc *s = tq_get_desc(&tq);
		struct tq_cqe *cqe;

		*s = d;
		ret = tq_submit(&tq) < 0 ? -EIO : tq_wait(&tq, &cqe, 600000);
		st[2] = ret ? ret : cqe->status;
		if (!ret) {
			late = !!(cqe->flags & TQ_CQE_F_LATE);
			tq_cqe_seen(&tq, cqe);
		}
	}
	printf("open=ok own=%s normal=%s deadline=%s late=%d", status_name(st[0]),
	       status_name(st[1]), status_name(st[2]), late);
	tq_close(&tq);
	return 0;
}

static int chain(unsigned int n)
{
	enum { M = 1024 };
	struct tq_cqe *cqe;
	uint64_t off[65], one_off, start[64] = { 0 }, end[64] = { 0 };
	int st[64], ret, bad = 0, cancelled = 0;
	unsigned int ordered = 0, got = 0, i;
	size_t global = M;
	uint32_t prog, kern;
	float *b[65], *one;
	struct tq tq;

	if (!n || n > 32 || open_ctx(&tq, 1 << 20))
		return 1;
	ret = tq_register_builtin(&tq, "VA", &prog);
	if (!ret)
		ret = tq_lookup_kernel(&tq, prog, "vec_add", &kern);
	if (!ret)
		ret = tq_buf_alloc(&tq, M * sizeof(float), (void **)&one, &one_off);
	for (i = 0; !ret && i <= n; i++)
		ret = tq_buf_alloc(&tq, M * sizeof(float), (void **)&b[i], &off[i]);
	if (ret) {
		fprintf(stderr, "limits_client: VA: %s\n", tq_strerror(ret));
		return 1;
	}
	for (int j = 0; j < M; j++) {
		one[j] = 1;
		b[0][j] = j;
	}
	/* task i: b[i + 1] = b[i] + 1, after task i - 1 */
	for (i = 0; i < n; i++) {
		struct tq_desc *d = tq_get_desc(&tq);

		tq_prep_task(d, prog, kern, 1, &global, NULL);
		tq_prep_buf(d, 0, off[i], M * sizeof(float), TQ_DIR_IN);
		tq_prep_buf(d, 1, one_off, M * sizeof(float), TQ_DIR_IN);
		tq_prep_buf(d, 2, off[i + 1], M * sizeof(float), TQ_DIR_OUT);
		tq_desc_set_data(d, i);
		if (i)
			tq_desc_set_after(d, 1);
	}
	if (tq_submit(&tq) < 0)
		return 1;
	while (got < n && !tq_wait(&tq, &cqe, 600000)) {
		if (cqe->user_data < n) {
			st[cqe->user_data] = cqe->status;
			start[cqe->user_data] = cqe->start_ns;
			end[cqe->user_data] = cqe->end_ns;
		}
		tq_cqe_seen(&tq, cqe);
		got++;
	}
	for (i = 0; i < got && i < n; i++)
		bad += st[i] != 0;
	for (i = 1; i < n; i++)
		ordered += start[i] && start[i] >= end[i - 1];
	for (int j = 0; !bad && j < M; j++)
		bad += b[n][j] != (float)(j + n);
	printf("chain=%u ordered=%u verified=%s", got, ordered, !bad && got == n ? "yes" : "no");

	/* The head names no kernel of ours: the rest is cancelled. */
	for (i = 0; i < 3; i++) {
		struct tq_desc *d = tq_get_desc(&tq);

		tq_prep_task(d, prog, i ? kern : kern + 100, 1, &global, NULL);
		tq_prep_buf(d, 0, off[0], M * sizeof(float), TQ_DIR_IN);
		tq_prep_buf(d, 1, one_off, M * sizeof(float), TQ_DIR_IN);
		tq_prep_buf(d, 2, off[1], M * sizeof(float), TQ_DIR_OUT);
		tq_desc_set_data(d, 100 + i);
		if (i)
			tq_desc_set_after(d, 1);
	}
	if (tq_submit(&tq) < 0)
		return 1;
	for (i = 0; i < 3 && !tq_wait(&tq, &cqe, 600000); i++) {
		if (cqe->user_data == 100)
			printf(" head=%s", status_name(cqe->status));
		else
			cancelled += cqe->status == -ECANCELED;
		tq_cqe_seen(&tq, cqe);
	}
	printf(" cancelled=%d\n", cancelled);
	tq_close(&tq);
	return 0;
}

static int drop_to(const char *uid_s)
{
	uid_t uid = strtoul(uid_s, NULL, 0);
	struct passwd *p = getpwuid(uid);
	gid_t gid = p ? p->pw_gid : uid;

	if (setgroups(0, NULL) || setresgid(gid, gid, gid) || setresuid(uid, uid, uid)) {
		perror("limits_client: setresuid");
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int a = 1;

	if (argc > 3 && !strcmp(argv[1], "--uid")) {
		if (drop_to(argv[2]))
			return 1;
		a = 3;
	}
	if (argc - a == 2 && !strcmp(argv[a], "program"))
		return program(argv[a + 1], false, NULL);
	if ((argc - a == 2 || argc - a == 3) && !strcmp(argv[a], "scale"))
		return program(argv[a + 1], true, argc - a == 3 ? argv[a + 2] : NULL);
	if (argc - a == 2 && !strcmp(argv[a], "big-source"))
		return big_source(strtoull(argv[a + 1], NULL, 0));
	if ((argc - a == 2 || argc - a == 3) && !strcmp(argv[a], "flood"))
		return flood(strtoul(argv[a + 1], NULL, 0),
			     argc - a == 3 ? strtoul(argv[a + 2], NULL, 0) : 1);
	if (argc - a == 1 && !strcmp(argv[a], "worksize"))
		return worksize();
	if (argc - a == 2 && !strcmp(argv[a], "prio"))
		return prio(argv[a + 1]);
	if (argc - a == 2 && !strcmp(argv[a], "chain"))
		return chain(strtoul(argv[a + 1], NULL, 0));
	if (argc - a == 1 && !strcmp(argv[a], "names"))
		return names();
	if (argc - a == 1 && !strcmp(argv[a], "nosched"))
		return nosched();
	if (argc - a >= 2 && !strcmp(argv[a], "arena"))
		return arena(argc - a - 1, argv + a + 1);
	fprintf(stderr, "usage: see the head of usched/daemon/tests/limits_client.c\n");
	return 2;
}
