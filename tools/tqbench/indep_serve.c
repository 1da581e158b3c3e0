// SPDX-License-Identifier: GPL-2.0
/*
 * indep_serve.c - an independent client process's side (indep.c forks
 * them): its commands, each answered, until its socket closes. IC_SETUP
 * gives it tqbench's layout, the device and the suite; IC_STREAM runs
 * stream.c's client, IC_OPENLOOP openloop_indep.c's; IC_RESET closes its
 * context and buffers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tools/tqbench/bench.h"

/* A client: commands until its socket closes. */
void indep_serve(struct opts *o, int sock)
{
	static struct suite s;
	struct env e = { .o = o };
	struct ic_hdr h;

	while (!indep_get(sock, &h, sizeof(h))) {
		struct obuf out = { 0 };
		void *req = h.len ? malloc(h.len) : NULL;
		int ret = h.len && !req ? -ENOMEM : 0;

		ret = ret ?: indep_get(sock, req, h.len);
		if (ret)
			_exit(1);
		switch (h.cmd) {
		case IC_SETUP: {
			const struct ic_setup *su = req;

			if (h.len != sizeof(*su)) {
				ret = -EINVAL;
				break;
			}
			e.arena_len = su->arena_len;
			e.out_base = su->out_base;
			snprintf(e.c.name, sizeof(e.c.name), "%s", su->device);
			s = su->s;
			break;
		}
		case IC_STREAM:
			ret = indep_stream_client(&e, &s, req, h.len, &out);
			break;
		case IC_OPENLOOP:
			ret = openloop_indep_client(&e, &s, req, h.len, &out);
			break;
		case IC_RESET:
			openloop_indep_forget();
			runners_reset(&e);
			break;
		default:
			ret = -EINVAL;
		}
		free(req);
		h = (struct ic_hdr){ .cmd = h.cmd, .status = ret, .len = out.len };
		if (indep_put(sock, &h, sizeof(h)) || indep_put(sock, out.p, out.len))
			_exit(1);
		free(out.p);
	}
	openloop_indep_forget();
	runners_reset(&e);
	_exit(0);
}
