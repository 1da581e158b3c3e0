// SPDX-License-Identifier: GPL-2.0
/*
 * cl-region: host memory registered with a device (clu_region_add()) keeps
 * the host's bytes: those there before, and those written between the
 * buffer's creation and its map, as a client writes its arena while usched
 * registers it. The second is the invalidating map's job: a driver that
 * copies a CL_MEM_USE_HOST_PTR buffer at creation would write that copy
 * back over the host's newer bytes at a reading map (reported, not failed:
 * drivers may). Then a copy from the registered memory to the device and
 * back carries the bytes. Skipped without an OpenCL device.
 */
#include <stdlib.h>
#include <string.h>

#include "kernels/cl/clu.h"
#include "selftests/tap.h"

#define LEN	(16u << 20)

static bool any(const struct clu_dev *d, void *arg)
{
	(void)d;
	(void)arg;
	return true;
}

static void fill(unsigned char *p, size_t len, unsigned char v)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (unsigned char)(v + i % 251);
}

static bool holds(const unsigned char *p, size_t len, unsigned char v)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != (unsigned char)(v + i % 251))
			return false;
	return true;
}

/* Create, write the host's bytes anew, then map with @flags: do they survive? */
static bool write_between(struct clu_ctx *c, cl_command_queue q, unsigned char *host,
			  cl_map_flags flags)
{
	cl_mem mem;
	cl_event ev;
	cl_int err;
	void *map;
	bool kept;

	fill(host, LEN, 1);
	mem = clCreateBuffer(c->ctx, CL_MEM_USE_HOST_PTR | CL_MEM_READ_WRITE, LEN, host, &err);
	if (err)
		return false;
	fill(host, LEN, 7);
	map = clEnqueueMapBuffer(q, mem, CL_FALSE, flags, 0, LEN, 0, NULL, &ev, &err);
	if (!err) {
		clu_wait(ev);
		clReleaseEvent(ev);
	}
	kept = !err && map == (void *)host && holds(host, LEN, 7);
	if (!err) {
		clEnqueueUnmapMemObject(q, mem, map, 0, NULL, &ev);
		clu_wait(ev);
		clReleaseEvent(ev);
	}
	clReleaseMemObject(mem);
	return kept;
}

int main(void)
{
	struct clu_region r;
	struct clu_ctx c;
	cl_command_queue q = NULL;
	unsigned char *host;
	cl_mem dev;
	cl_int err;

	if (clu_open(&c, any, NULL) || !c.d.dev)
		tap_skip_all("no OpenCL device");
	host = clu_mmap(LEN);
	err = clu_queues(&c, &q, 1);
	if (!host || err)
		tap_skip_all("no memory or command queue");
	tap_diag("device %s (%s)", c.d.name, c.d.plat_name);
	fill(host, LEN, 3);
	err = clu_region_add(c.ctx, q, host, LEN, &r);
	tap_ok(!err && r.map == (void *)host, "the region maps at its host address");
	tap_ok(holds(host, LEN, 3), "registering keeps the bytes there before");
	if (!err)
		clu_region_del(q, &r, true);

	tap_ok(write_between(&c, q, host, CL_MAP_WRITE_INVALIDATE_REGION),
	       "bytes written between creation and an invalidating map survive");
	tap_diag("a reading map %s them", write_between(&c, q, host, CL_MAP_READ | CL_MAP_WRITE) ?
		 "keeps" : "writes the driver's copy over");

	/* a round trip through the device from the registered memory */
	fill(host, LEN / 2, 9);
	memset(host + LEN / 2, 0, LEN / 2);
	err = clu_region_add(c.ctx, q, host, LEN, &r);
	dev = err ? NULL : clCreateBuffer(c.ctx, CL_MEM_READ_WRITE, LEN / 2, NULL, &err);
	if (!err)
		err = clu_copy(q, true, dev, LEN / 2, host, 0, NULL, NULL);
	if (!err)
		err = clu_copy(q, false, dev, LEN / 2, host + LEN / 2, 0, NULL, NULL);
	if (!err)
		err = clFinish(q);
	tap_ok(!err && holds(host + LEN / 2, LEN / 2, 9),
	       "a copy to the device and back from registered memory carries the bytes");
	if (dev)
		clReleaseMemObject(dev);
	clu_region_del(q, &r, true);
	clReleaseCommandQueue(q);
	clu_unmap(host, LEN);
	clu_close(&c);
	return tap_done();
}
