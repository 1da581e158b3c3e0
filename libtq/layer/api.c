// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * api.c - the entry points of libtqcl.so: clGetLayerInfo and clInitLayer,
 * which ocl-icd calls when OPENCL_LAYERS names this library, the layer's
 * settings (TQCL_*), and the dispatch table clInitLayer hands back: the
 * next one's functions, with the layer's overrides in place of some. Every
 * other function of the table is the next one's, untouched.
 *
 * Three kinds of override:
 *  - tracking (contexts, queues, buffers: track.c; programs, kernels:
 *    program.c; events: events.c): call the driver, then note what the
 *    layer needs;
 *  - capture (clEnqueueWriteBuffer, clEnqueueReadBuffer,
 *    clEnqueueNDRangeKernel, clEnqueueTask: enqueue.c): done through tq
 *    when every check passes, else passed through with the reason counted;
 *  - pass-through of every other command on a queue (pass.c): first the
 *    buffers it names are brought up to date in the driver and the command
 *    is ordered after the queue's captured ones (tqcl_pass_begin /
 *    tqcl_pass_end).
 * A check that fails because an argument is invalid passes the call
 * through too: the driver gives the error OpenCL specifies.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tqcl.h"

struct _cl_icd_dispatch tqcl_next;
static struct _cl_icd_dispatch layer;

struct tqcl tqcl = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER,
	.stats_fd = -1,
};

/* fork(): the child has no tq context (libtq(7)); it passes everything through. */
static void tqcl_atfork_child(void)
{
	tqcl.forked = true;
	tqcl.tq_ok = false;
	tqcl.tq_tried = true;
	pthread_mutex_init(&tqcl.lock, NULL);
	pthread_cond_init(&tqcl.cond, NULL);
}

static size_t parse_size(const char *s, size_t dflt)
{
	char *end;
	unsigned long long v;

	if (!s || !*s)
		return dflt;
	v = strtoull(s, &end, 0);
	switch (*end) {
	case 'G': case 'g':
		v <<= 10;
		/* fall through */
	case 'M': case 'm':
		v <<= 10;
		/* fall through */
	case 'K': case 'k':
		v <<= 10;
		end++;
	}
	if (*end || !v) {
		fprintf(stderr, "tqcl: TQCL_ARENA=%s is not a size; using %zu\n", s, dflt);
		return dflt;
	}
	return v;
}

static void tqcl_init(void)
{
	const char *s = getenv("TQCL_STATS");

	tqcl.disabled = getenv("TQCL_DISABLE") && strcmp(getenv("TQCL_DISABLE"), "0");
	tqcl.profiling = getenv("TQCL_PROFILING") && !strcmp(getenv("TQCL_PROFILING"), "1");
	tqcl.device = getenv("TQCL_DEVICE");
	if (tqcl.device && !*tqcl.device)
		tqcl.device = NULL;
	tqcl.arena_bytes = parse_size(getenv("TQCL_ARENA"), 256 << 20);
	s = getenv("TQCL_PRIO");
	if (s) {
		int prio = tq_prio_parse(s);

		if (prio < 0)
			fprintf(stderr, "tqcl: TQCL_PRIO=%s is not background, normal, high or "
				"critical; using the default\n", s);
		tqcl.prio = prio < 0 ? TQ_PRIO_DEFAULT : prio;
	}
	s = getenv("TQCL_STATS");
	if (s && !strcmp(s, "1")) {
		tqcl.stats_fd = 2;
	} else if (s && *s && strcmp(s, "0")) {
		snprintf(tqcl.stats_path, sizeof(tqcl.stats_path), "%s", s);
		tqcl.stats_fd = open(s, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
		if (tqcl.stats_fd < 0)
			fprintf(stderr, "tqcl: TQCL_STATS=%s: %s\n", s, strerror(errno));
	}
	pthread_atfork(NULL, NULL, tqcl_atfork_child);
	tqcl.inited = true;
}

/* ---- the layer API ------------------------------------------------------ */

__attribute__((visibility("default"))) CL_API_ENTRY cl_int CL_API_CALL clGetLayerInfo(cl_layer_info name, size_t size, void *value,
					       size_t *size_ret)
{
	static const char layer_name[] = "tqcl: OpenCL copy-kernel-copy through tq";
	cl_layer_api_version v = CL_LAYER_API_VERSION_100;

	switch (name) {
	case CL_LAYER_API_VERSION:
		return tqcl_info_ret(&v, sizeof(v), size, value, size_ret);
	case CL_LAYER_NAME:
		return tqcl_info_ret(layer_name, sizeof(layer_name), size, value, size_ret);
	default:
		return CL_INVALID_VALUE;
	}
}

__attribute__((visibility("default"))) CL_API_ENTRY cl_int CL_API_CALL clInitLayer(cl_uint num_entries,
					    const struct _cl_icd_dispatch *target,
					    cl_uint *num_entries_ret,
					    const struct _cl_icd_dispatch **layer_ret)
{
	size_t n = num_entries * sizeof(void *);

	if (!target || !num_entries_ret || !layer_ret)
		return CL_INVALID_VALUE;
	if (n > sizeof(tqcl_next))
		n = sizeof(tqcl_next);
	memcpy(&tqcl_next, target, n);
	layer = tqcl_next;
	tqcl_init();
	if (!tqcl.disabled) {
		tqcl_override_track(&layer);
		tqcl_override_program(&layer);
		tqcl_override_events(&layer);
		tqcl_override_enqueue(&layer);
		tqcl_override_pass(&layer);
	}
	*layer_ret = &layer;
	*num_entries_ret = sizeof(layer) / sizeof(void *);
	return CL_SUCCESS;
}
