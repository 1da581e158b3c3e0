// SPDX-License-Identifier: GPL-2.0
/*
 * share.c - concurrent kernels' sharing rules (issue 44): the profile's
 * "demand" and "concurrent" lines, the first-come rule and the interference
 * cost worked by hand, properties of the rules on random TGs, and the
 * kernel queues the model favours for a profile (tqsim_profile_kqueues()).
 * The rule before issue 44 (width, fair, no cost) is model.c's tests'.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim/tqsim.h"
#include "selftests/tap.h"

static uint64_t rng = 0x44;

static double uniform(double lo, double hi)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return lo + (hi - lo) * (double)(rng >> 11) / (double)(1ull << 53);
}

static int parse(struct tqsim_profile *p, const char *text, struct tqsim_parse_err *err)
{
	return tqsim_profile_parse(p, text, strlen(text), err);
}

#define HEAD "tq-profile 1\ndma 1\nhtd alone 1 1\ndth alone 1 1\n"

static void test_profile(void)
{
	static const struct {
		const char *text;
		unsigned int line;
		const char *reason;
	} bad[] = {
		{ HEAD "concurrent demand fair\n", 5, "expected: concurrent width|demand" },
		{ HEAD "concurrent depth fair 0\n", 5, "expected: concurrent width|demand" },
		{ HEAD "concurrent demand last 0\n", 5, "expected: concurrent width|demand" },
		{ HEAD "concurrent demand fair -0.1\n", 5, "expected: concurrent width|demand" },
		{ HEAD "concurrent demand fair nan\n", 5, "expected: concurrent width|demand" },
		{ HEAD "concurrent width fair 0\nconcurrent width fair 0\n", 6,
		  "concurrent given twice" },
		{ HEAD "demand a 1:1\n", 5, "demand of kernel a before its kernel line" },
		{ HEAD "kernel a 1 1\ndemand a 1:0\n", 6, "demand point: m > 0" },
		{ HEAD "kernel a 1 1\ndemand a 2:1 1:1\n", 6, "demand points must ascend" },
		{ HEAD "kernel a 1 1\ndemand a 1:1\ndemand a 2:1\n", 7, "demand a given twice" },
	};
	static const char good[] = HEAD
		"kernel mm 2.5 4000\n"
		"width mm 100:0.5 10000:1\n"
		"demand mm 100:0.1 10000:0.9\n"
		"concurrent demand first 0.25\n";
	struct tqsim_profile p;
	struct tqsim_parse_err err;
	struct tqsim_dev dev;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int ret = parse(&p, bad[i].text, &err);

		tap_ok(ret == -EINVAL && err.line == bad[i].line &&
		       !strncmp(err.reason, bad[i].reason, strlen(bad[i].reason)),
		       "refused at line %u: %s (%s)", bad[i].line, bad[i].reason, err.reason);
	}
	tap_ok(!parse(&p, HEAD, &err) && p.share_src == TQSIM_SRC_WIDTH &&
	       p.kshare == TQSIM_SHARE_FAIR && p.kcost == 0,
	       "no concurrent line: width, fair, no cost (the rule before)");
	tap_ok(!parse(&p, good, &err), "demand and concurrent lines parse");
	tap_ok(p.share_src == TQSIM_SRC_DEMAND && p.kshare == TQSIM_SHARE_FIRST && p.kcost == 0.25,
	       "concurrent demand first 0.25 read");
	tap_ok(tqsim_profile_kernel_demand(&p, "mm", 10) == 0.1 &&
	       fabs(tqsim_profile_kernel_demand(&p, "mm", 1000) - 0.5) < 1e-12 &&
	       tqsim_profile_kernel_demand(&p, "mm", 1e6) == 0.9 &&
	       tqsim_profile_kernel_demand(&p, "va", 1000) == 1,
	       "demand: interpolated in log m, held at the ends, 1 for a kernel without it");
	tap_ok(fabs(tqsim_profile_kernel_share(&p, "mm", 1000) - 0.5) < 1e-12 &&
	       tqsim_profile_kernel_share(&p, "mm", 1e6) == 0.9 &&
	       tqsim_profile_kernel_width(&p, "mm", 1e6) == 1,
	       "the share is the demand when the rule says demand");
	p.share_src = TQSIM_SRC_WIDTH;
	tap_ok(tqsim_profile_kernel_share(&p, "mm", 1e6) == 1, "and the width when it says width");
	tqsim_profile_to_dev(&p, &dev);
	tap_ok(dev.kshare == TQSIM_SHARE_FIRST && dev.kcost == 0.25 && !tqsim_dev_check(&dev),
	       "the rule goes to the device");
	dev.kshare = 2;
	tap_ok(tqsim_dev_check(&dev) == -EINVAL, "an unknown sharing rule is refused");
	dev.kshare = TQSIM_SHARE_FAIR;
	dev.kcost = -0.1;
	tap_ok(tqsim_dev_check(&dev) == -EINVAL, "a negative cost is refused");
	dev.kcost = NAN;
	tap_ok(tqsim_dev_check(&dev) == -EINVAL, "a NaN cost is refused");
}

/* Two kernel-only tasks of @a and @b ns, shares @wa and @wb, on two queues. */
static void two(struct tqsim_tg *tg, double a, double wa, double b, double wb)
{
	tqsim_tg_init(tg);
	tqsim_tg_add(tg, 0, a, 0);
	tqsim_tg_add(tg, 0, b, 0);
	tqsim_tg_set_width(tg, 0, wa);
	tqsim_tg_set_width(tg, 1, wb);
}

static void test_by_hand(void)
{
	static struct tqsim_sim_result res;
	const uint8_t ab[] = { 0, 1 }, ba[] = { 1, 0 };
	struct tqsim_tg tg;
	struct tqsim_dev dev;

	tqsim_dev_init(&dev);
	dev.kq = 2;
	/* fair, cost 0.1: shares 0.5 + 0.5 fit, each 1.1 times slower */
	dev.kcost = 0.1;
	two(&tg, 10, 0.5, 10, 0.5);
	tap_ok(fabs(tqsim_makespan(&tg, &dev, ab, 2) - 11) < 1e-9,
	       "fair, cost 0.1: two half-device kernels of 10 end at 11");
	two(&tg, 10, 1, 10, 1);
	tap_ok(fabs(tqsim_makespan(&tg, &dev, ab, 2) - 22) < 1e-9,
	       "fair, cost 0.1: two full-device kernels of 10 end at 22, over the 20 of one queue");
	dev.kq = 1;
	tap_ok(tqsim_makespan(&tg, &dev, ab, 2) == 20, "one queue: no cost");
	dev.kq = 2;
	tqsim_tg_init(&tg);
	tqsim_tg_add(&tg, 0, 10, 0);
	tap_ok(tqsim_makespan(&tg, &dev, ab, 1) == 10, "a kernel alone pays no cost");

	/* first come: 0.75 first runs at 1, 0.5 beside it gets 0.25 of the device: rate 0.5 */
	dev.kcost = 0;
	dev.kshare = TQSIM_SHARE_FIRST;
	two(&tg, 10, 0.75, 10, 0.5);
	tqsim_simulate(&tg, &dev, ab, 2, &res);
	tap_ok(res.end[0] == 10 && res.end[1] == 15,
	       "first come: 0.75 then 0.5, both of 10: ends 10 and 15 (fair: 12.5 both)");
	tqsim_simulate(&tg, &dev, ba, 2, &res);
	tap_ok(res.end[1] == 10 && fabs(res.end[0] - 10 - 10.0 / 3) < 1e-9,
	       "the other way round: 0.5 first at 1, 0.75 at 2/3: ends 10 and 13.33");
	two(&tg, 10, 1, 4, 1);
	tqsim_simulate(&tg, &dev, ab, 2, &res);
	tap_ok(res.end[0] == 10 && res.end[1] == 14,
	       "first come, full-device kernels: the second waits for the first");
	dev.kshare = TQSIM_SHARE_FAIR;
	tqsim_simulate(&tg, &dev, ab, 2, &res);
	tap_ok(res.end[1] == 8 && res.end[0] == 14, "fair: they share, the short one ends at 8");

	/* a later start is served after: B released at 2 */
	dev.kshare = TQSIM_SHARE_FIRST;
	two(&tg, 4, 0.5, 10, 0.75);
	tqsim_tg_set_release(&tg, 0, 2);
	tqsim_simulate(&tg, &dev, ab, 2, &res);
	tap_ok(res.end[1] == 10 && res.end[0] == 10,
	       "first come by start time: the kernel started at 0 keeps its rate, the other gets "
	       "half of its own (ends 10 and 2 + 4 / 0.5)");
}

/* Random TGs with copies on two or three kernel queues: properties of the rules. */
static void test_random(void)
{
	unsigned int fit_same = 0, bound_ok = 0, cost_slower = 0, runs = 300;

	for (unsigned int r = 0; r < runs; r++) {
		struct tqsim_tg tg, low;
		struct tqsim_dev dev;
		uint8_t order[8];
		unsigned int n = 2 + r % 6;
		double kwork = 0, fair, first, costly;

		tqsim_dev_init(&dev);
		dev.kq = 2 + r % 2;
		dev.slow[TQSIM_HTD] = uniform(1, 1.3);
		dev.slow[TQSIM_DTH] = uniform(1, 1.3);
		tqsim_tg_init(&tg);
		tqsim_tg_init(&low);
		for (unsigned int t = 0; t < n; t++) {
			double h = uniform(0, 5), k = uniform(0.5, 10), d = uniform(0, 5);
			double w = uniform(0.05, 1);

			tqsim_tg_add(&tg, h, k, d);
			tqsim_tg_add(&low, h, k, d);
			tqsim_tg_set_width(&tg, t, w);
			/* shares that always fit together: the rules agree */
			tqsim_tg_set_width(&low, t, 1.0 / (dev.kq + 1));
			kwork += k * w;
			order[t] = n - 1 - t;
		}
		dev.kshare = TQSIM_SHARE_FAIR;
		fair = tqsim_makespan(&low, &dev, order, n);
		dev.kshare = TQSIM_SHARE_FIRST;
		fit_same += fabs(tqsim_makespan(&low, &dev, order, n) - fair) < 1e-9 * fair;
		/* the device serves at most a share of 1 at a time */
		first = tqsim_makespan(&tg, &dev, order, n);
		bound_ok += isfinite(first) && first >= kwork - 1e-9;
		/* fair, kernels only: a cost never shortens the TG */
		dev.kshare = TQSIM_SHARE_FAIR;
		tqsim_tg_init(&low);
		for (unsigned int t = 0; t < n; t++) {
			tqsim_tg_add(&low, 0, tqsim_task_work(&tg, t, TQSIM_K), 0);
			tqsim_tg_set_width(&low, t, tg.kwidth[t]);
		}
		fair = tqsim_makespan(&low, &dev, order, n);
		dev.kcost = 0.2;
		costly = tqsim_makespan(&low, &dev, order, n);
		cost_slower += costly >= fair - 1e-9;
	}
	tap_ok(fit_same == runs, "shares that fit together: first come gives fair's makespan (%u/%u)",
	       fit_same, runs);
	tap_ok(bound_ok == runs, "first come: finite, and no less than the kernels' share-work (%u/%u)",
	       bound_ok, runs);
	tap_ok(cost_slower == runs, "fair, kernels alone: a cost never makes a TG shorter (%u/%u)", cost_slower, runs);
}

static void test_kqueues(void)
{
	static const char half[] = HEAD "kernel a 1 10000\nwidth a 1000:0.5 1e8:0.5\n";
	static const char full[] = HEAD "kernel a 1 10000\nwidth a 1000:1 1e8:1\n";
	static const char near[] = HEAD "kernel a 1 10000\nwidth a 1000:0.99 1e8:0.99\n";
	static const char costly[] = HEAD
		"kernel a 1 10000\ndemand a 1000:1 1e8:1\nconcurrent demand fair 0.1\n";
	static const char none[] = HEAD "kernel a 1 10000\n";
	struct tqsim_profile p;
	struct tqsim_parse_err err;
	double mean[4];
	int kq;

	parse(&p, half, &err);
	kq = tqsim_profile_kqueues(&p, 64, 4, mean);
	tap_ok(kq >= 2 && mean[1] < 0.6 * mean[0],
	       "kernels of half the device: %d queues (means %.1f %.1f %.1f %.1f ms)", kq,
	       mean[0] / 1e6, mean[1] / 1e6, mean[2] / 1e6, mean[3] / 1e6);
	parse(&p, full, &err);
	kq = tqsim_profile_kqueues(&p, 64, 4, mean);
	tap_ok(kq == 1 && fabs(mean[1] / mean[0] - 1) < 1e-9 && fabs(mean[3] / mean[0] - 1) < 1e-9,
	       "kernels that fill the device: 1 queue, nothing gained");
	parse(&p, near, &err);
	kq = tqsim_profile_kqueues(&p, 64, 2, mean);
	tap_ok(kq == 1 && mean[1] < mean[0] && mean[1] > (1 - TQSIM_KQ_GAIN) * mean[0],
	       "width 0.99: a second queue gains %.2f%%, under 2%%: 1", 100 * (1 - mean[1] / mean[0]));
	parse(&p, costly, &err);
	kq = tqsim_profile_kqueues(&p, 64, 2, mean);
	tap_ok(kq == 1 && mean[1] > 1.05 * mean[0],
	       "demand 1 at a cost of 0.1: a second queue loses (%.1f against %.1f ms): 1",
	       mean[1] / 1e6, mean[0] / 1e6);
	parse(&p, none, &err);
	tap_ok(tqsim_profile_kqueues(&p, 8, 4, mean) == -ENODATA,
	       "no kernel with shares: -ENODATA (the model cannot tell)");
	parse(&p, half, &err);
	p.share_src = TQSIM_SRC_DEMAND;
	tap_ok(tqsim_profile_kqueues(&p, 8, 4, mean) == -ENODATA,
	       "widths only, under the demand rule: -ENODATA");
	tap_ok(tqsim_profile_kqueues(&p, 0, 4, mean) == -EINVAL &&
	       tqsim_profile_kqueues(&p, 8, 0, mean) == -EINVAL &&
	       tqsim_profile_kqueues(&p, 8, TQSIM_MAX_KQ + 1, mean) == -EINVAL,
	       "no tasks, no queue or too many queues: -EINVAL");
}

int main(void)
{
	test_profile();
	test_by_hand();
	test_random();
	test_kqueues();
	return tap_done();
}
