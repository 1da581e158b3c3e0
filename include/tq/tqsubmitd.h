/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * tqsubmitd.h - what tqsubmitd answers beyond the ABI of <linux/tqsubmit.h>:
 * its counters, for tqstat and tq_transport.h's tqt_stat(). Not part of
 * the ABI clients use.
 *
 * TQD_SOCK_STATS on either socket (the client socket at any time, the
 * scheduler socket before TQ_IOC_ATTACH): a struct tq_sock_msg with the
 * command, then a struct tqd_stats (size and flags, as every command's).
 * The reply is a struct tq_sock_msg (status 0), then text: the module's
 * sysfs counters under their sysfs names, and tqsubmitd's own, as
 * Prometheus text ("name value" lines, with "# TYPE name gauge" before
 * the levels).
 */
#ifndef _TQ_TQSUBMITD_H
#define _TQ_TQSUBMITD_H

#include <linux/ioctl.h>
#include <linux/types.h>
#include <linux/tqsubmit.h>

struct tqd_stats {
	__u32	size;
	__u32	flags;
};

#define TQD_SOCK_STATS		_IOWR(TQ_IOC_MAGIC, 0x40, struct tqd_stats)
/* The longest stats reply, text included. */
#define TQD_STATS_MAX		4096

#endif /* _TQ_TQSUBMITD_H */
