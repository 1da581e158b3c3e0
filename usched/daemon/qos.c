// SPDX-License-Identifier: GPL-2.0
/*
 * qos.c - a context's task in the core's terms of quality of service: its
 * class, its deadline and its fair-share group (core.c, 10; usched.conf's
 * max-prio, share and share-by).
 */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

#include "daemon.h"

/* The uapi's classes 1..4 are the core's -1..2. */
_Static_assert(TQ_PRIO_BACKGROUND - TQ_PRIO_NORMAL == USCHED_PRIO_BACKGROUND &&
	       TQ_PRIO_CRITICAL - TQ_PRIO_NORMAL == USCHED_PRIO_CRITICAL, "classes");

const char *const dprio_name[TQ_PRIO_MAX + 1] = {
	"default", "background", "normal", "high", "critical",
};

int ctx_task_qos(const struct dctx *c, const struct tq_desc *t, uint64_t submit_ns,
		 uint64_t max_prio, struct usched_task *ut)
{
	unsigned int prio = TQ_DESC_PRIO_OF(t->flags);
	uint64_t units = TQ_DESC_DEADLINE_OF(t->flags);

	if (!prio)
		prio = c->prio;
	if (prio > max_prio)
		return -EPERM;
	ut->prio = (int32_t)prio - TQ_PRIO_NORMAL;
	ut->deadline_ns = units ? submit_ns + units * TQ_DEADLINE_UNIT_NS : 0;
	ut->share = c->share;
	return 0;
}

/*
 * uid + 1 (the core's share 0 is "its owner", and root's uid is 0), or the
 * cgroup's id: the inode of its directory in the v2 hierarchy, with the top
 * bit set so that it is no uid's. A cgroup not found (the process gone
 * already, no v2 hierarchy) falls back to the uid's group.
 */
uint64_t ctx_share(unsigned int share_by, uint32_t uid, uint32_t pid)
{
	char cg[4096], path[4096 + 32];
	struct stat st;

	if (share_by == DSHARE_CGROUP) {
		metrics_cgroup(pid, cg, sizeof(cg));
		snprintf(path, sizeof(path), "/sys/fs/cgroup%s", cg);
		if (*cg == '/' && !stat(path, &st))
			return (uint64_t)st.st_ino | 1ull << 63;
	}
	return (uint64_t)uid + 1;
}
