// SPDX-License-Identifier: GPL-2.0
/*
 * build_child.c - usched-build, the process in which usched builds one
 * client's OpenCL C program (build.c starts it):
 *
 *	usched-build PLATFORM DEVICE
 *
 * stdin and stdout are one socket. It reads "SRCLEN OPTLEN\n", the source
 * and the options, builds them for the device of that platform and name in
 * an OpenCL context of its own, with USCHED_BUILD_OPTS before the options
 * as the daemon's core does, and writes "STATUS LOGLEN BINLEN\n", the log
 * and the program binary: STATUS 0 built (the binary follows), 1 the
 * compiler refused it (the log follows), 2 anything else (a message). The
 * daemon kills it at the build-time limit; its memory and CPU time are
 * limited with setrlimit() before it starts. Asking for the binary is
 * where some drivers (PoCL) generate the code, so that is done here too.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernels/tqk_cl.h"
#include "usched/core/usched.h"
#include "tq/version.h"

#define SRC_MAX		(64u << 20)	/* the daemon's max-source is far below */

static int read_all(int fd, char *p, size_t len)
{
	while (len) {
		ssize_t n = read(fd, p, len);

		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

static int answer(int status, const char *log, const void *bin, size_t binlen)
{
	size_t loglen = log ? strlen(log) : 0;
	char hdr[64];
	int n = snprintf(hdr, sizeof(hdr), "%d %zu %zu\n", status, loglen, binlen);

	if (write_all(1, hdr, n) || write_all(1, log, loglen) || write_all(1, bin, binlen))
		return 1;
	return status == 2;
}

struct want {
	const char *platform, *device;
};

static bool wanted(const struct clu_dev *d, void *arg)
{
	const struct want *w = arg;

	return !strcmp(d->plat_name, w->platform) && !strcmp(d->name, w->device);
}

int main(int argc, char **argv)
{
	struct want w = { argc == 3 ? argv[1] : NULL, argc == 3 ? argv[2] : NULL };
	size_t srclen, optlen, binlen = 0;
	char hdr[64], *src, *opts, *log = NULL, msg[128];
	unsigned char *bin = NULL;
	struct clu_ctx c;
	cl_program prog;
	cl_int err;
	int i = 0, used;

	tq_version_opt(argc, argv, "usched-build");
	if (argc != 3) {
		fprintf(stderr, "usage: usched-build PLATFORM DEVICE (usched starts it)\n");
		return 2;
	}
	/* The header, a byte at a time: nothing past it is ours to read yet. */
	while (i < (int)sizeof(hdr) - 1 && read(0, &hdr[i], 1) == 1 && hdr[i] != '\n')
		i++;
	hdr[i] = 0;
	if (sscanf(hdr, "%zu %zu%n", &srclen, &optlen, &used) != 2 || hdr[used] ||
	    !srclen || srclen > SRC_MAX || optlen > 4096)
		return answer(2, "usched-build: bad request\n", NULL, 0);
	src = malloc(srclen + 1);
	opts = malloc(sizeof(USCHED_BUILD_OPTS) + 1 + optlen);
	if (!src || !opts)
		return answer(2, "usched-build: out of memory\n", NULL, 0);
	strcpy(opts, USCHED_BUILD_OPTS " ");
	if (read_all(0, src, srclen) || read_all(0, opts + sizeof(USCHED_BUILD_OPTS), optlen))
		return answer(2, "usched-build: short request\n", NULL, 0);
	src[srclen] = 0;
	opts[sizeof(USCHED_BUILD_OPTS) + optlen] = 0;

	err = clu_open(&c, wanted, &w);
	if (!c.d.dev) {
		snprintf(msg, sizeof(msg), "usched-build: no device %s/%s (%d)\n", w.platform,
			 w.device, err);
		return answer(2, msg, NULL, 0);
	}
	if (err) {
		snprintf(msg, sizeof(msg), "usched-build: no OpenCL context (%d)\n", err);
		return answer(2, msg, NULL, 0);
	}
	err = clu_build(c.ctx, c.d.dev, src, opts, &prog, &log);
	if (err == CL_BUILD_PROGRAM_FAILURE)
		return answer(1, log ? log : "", NULL, 0);
	if (err) {
		snprintf(msg, sizeof(msg), "usched-build: the build failed (%d)\n", err);
		return answer(2, msg, NULL, 0);
	}
	err = clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof(binlen), &binlen, NULL);
	if (!err && binlen) {
		bin = malloc(binlen);
		if (!bin)
			return answer(2, "usched-build: out of memory\n", NULL, 0);
		err = clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof(bin), &bin, NULL);
	}
	if (err || !binlen) {
		snprintf(msg, sizeof(msg), "usched-build: no program binary (%d)\n", err);
		return answer(2, msg, NULL, 0);
	}
	/* Exit without tearing the context down: the daemon kills us once it has read this. */
	return answer(0, NULL, bin, binlen);
}
