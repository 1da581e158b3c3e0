// SPDX-License-Identifier: GPL-2.0
/*
 * test_model.c - the kernel model T = eta * m + gamma: its prior, one size,
 * an exact and a noisy line, clamping, and forgetting an old line; the copy
 * model's overlapped slowdown. No device needed.
 */
#include <math.h>
#include <string.h>
#include <tq/rand.h>

#include "selftests/tap.h"
#include "internal.h"

static int near(double got, double want, double rel)
{
	return fabs(got - want) <= rel * fabs(want);
}

/* Deterministic noise in [-1, 1]. */
static double noise(uint64_t *s)
{
	return 2 * tq_rand_unit(s) - 1;
}

/*
 * The copy model: HtD stages of @pred ns predicted, each run against a DtH
 * stage of the same TG that covers it (or not), at @ratio of the prediction.
 */
static void copies_of(struct xmodel *xm, unsigned int n, double pred, double ratio,
		      double cover)
{
	struct tg_copy h[16], d[16];

	for (unsigned int i = 0; i < n; i++) {
		uint64_t t0 = 10000000ull * (i + 1), len = (uint64_t)(ratio * pred);

		h[i] = (struct tg_copy){ t0, t0 + len, pred };
		/* the DtH starts as late as leaves @cover of the HtD covered */
		d[i] = (struct tg_copy){ t0 + (uint64_t)((1 - cover) * len), t0 + 2 * len, pred };
	}
	xmodel_learn(xm, h, n, d, n);
}

static void copies(struct xmodel *xm, unsigned int n, double ratio, double cover)
{
	copies_of(xm, n, 1e6, ratio, cover);
}

static void test_copies(void)
{
	struct xmodel xm;

	xmodel_init(&xm, 1.05);
	copies(&xm, XM_MIN - 1, 1.2, 1);
	tap_ok(xm.slow == 1.05, "fewer than %d covered copies: the profile's factor",
	       XM_MIN);
	copies(&xm, 1, 1.2, 1);
	tap_ok(near(xm.slow, 1.2, 1e-6), "then their median (%.3f)", xm.slow);
	copies(&xm, 10, 3.0, 0.9);
	tap_ok(near(xm.slow, 1.2, 1e-6), "copies covered for 90%% of their time count not");
	copies(&xm, 3, 2.5, 1);
	tap_ok(near(xm.slow, 1.2, 1e-6), "a few slow copies move the median not");
	copies_of(&xm, 16, XM_MIN_NS - 1, 2.0, 1);
	tap_ok(near(xm.slow, 1.2, 1e-6), "copies shorter than %d us count not",
	       XM_MIN_NS / 1000);
	for (int i = 0; i < 3; i++)
		copies(&xm, 12, 1.1, 1);
	tap_ok(near(xm.slow, 1.1, 1e-6), "the last %d samples only (%.3f)", XM_SAMPLES,
	       xm.slow);
	for (int i = 0; i < 3; i++)
		copies(&xm, 12, 1.105, 1);
	tap_ok(xm.slow == 1.1, "a median 0.5%% away leaves the factor as it is");
	copies(&xm, 16, 0.9, 1);
	copies(&xm, 16, 0.9, 1);
	tap_ok(xm.slow == 1, "never below 1");
}

int main(void)
{
	struct tqsim_profile prof;
	struct kmodel km;
	double eta, gamma;
	uint64_t seed = 1;

	memset(&prof, 0, sizeof(prof));
	kmodel_init(&km, &prof, "k");
	tap_ok(near(kmodel_predict(&km, 1e6), 10e3, 1e-9),
	       "no run, no profile: a kernel as short as a launch");

	prof.nkernels = 1;
	strcpy(prof.kernel[0].name, "k");
	prof.kernel[0].eta_ns = 2;
	prof.kernel[0].gamma_ns = 500;
	kmodel_init(&km, &prof, "k");
	tap_ok(near(kmodel_predict(&km, 1000), 2500, 1e-9), "no run: the profile's line");

	kmodel_add(&km, 1000, 1e9);
	tap_ok(near(kmodel_predict(&km, 1000), 2500, 1e-9), "the first run is dropped");
	kmodel_add(&km, 1000, 5000);
	kmodel_params(&km, &eta, &gamma);
	tap_ok(near(gamma, 500, 1e-9) && near(eta, 4.5, 1e-9),
	       "one size: the prior's gamma, eta through the point (eta %g gamma %g)", eta, gamma);
	kmodel_init(&km, &prof, "other");
	kmodel_add(&km, 1000, 5000);
	kmodel_add(&km, 1000, 5000);
	kmodel_add(&km, 1000, 5000);
	kmodel_params(&km, &eta, &gamma);
	tap_ok(near(gamma, 2500, 1e-9) && near(eta, 2.5, 1e-9),
	       "one size, no prior: gamma at most half the time (eta %g gamma %g)", eta, gamma);

	kmodel_init(&km, &prof, "other");
	for (int i = 0; i < 40; i++) {
		double m = 1000 << (i % 5);

		kmodel_add(&km, m, 3 * m + 1000);
	}
	kmodel_params(&km, &eta, &gamma);
	tap_ok(near(eta, 3, 1e-9) && near(gamma, 1000, 1e-6),
	       "an exact line is found (eta %g gamma %g)", eta, gamma);

	kmodel_init(&km, &prof, "other");
	for (int i = 0; i < 500; i++) {
		double m = 1e4 * (1 + i % 7);

		kmodel_add(&km, m, (3 * m + 20000) * (1 + 0.02 * noise(&seed)));
	}
	kmodel_params(&km, &eta, &gamma);
	tap_ok(near(eta, 3, 0.03) && near(gamma, 20000, 0.3),
	       "a line with 2%% noise: within 3%% (eta %g gamma %g)", eta, gamma);
	tap_ok(near(kmodel_predict(&km, 5e4), 170000, 0.02), "and predicts within 2%%");

	kmodel_init(&km, &prof, "other");
	for (int i = 0; i < 20; i++) {
		double m = 1000 * (1 + i % 4);

		kmodel_add(&km, m, 3 * m - 2000);
	}
	kmodel_params(&km, &eta, &gamma);
	tap_ok(gamma == 0 && eta > 0, "a negative intercept is clamped to 0 (eta %g)", eta);

	/* a kernel whose time is not a line in m: each size seen has its own time */
	kmodel_init(&km, &prof, "other");
	for (int i = 0; i < 60; i++) {
		double m = 1000 << (i % 3);

		kmodel_add(&km, m, m * m / 1000);
	}
	tap_ok(near(kmodel_predict(&km, 1000), 1000, 1e-9) &&
	       near(kmodel_predict(&km, 2000), 4000, 1e-9) &&
	       near(kmodel_predict(&km, 4000), 16000, 1e-9),
	       "sizes run before are predicted from their own runs (%g %g %g)",
	       kmodel_predict(&km, 1000), kmodel_predict(&km, 2000), kmodel_predict(&km, 4000));
	kmodel_params(&km, &eta, &gamma);
	tap_ok(near(kmodel_predict(&km, 3000), eta * 3000 + gamma, 1e-9),
	       "a size not run before: the line");
	kmodel_add(&km, 3000, 1e9);
	kmodel_params(&km, &eta, &gamma);
	tap_ok(near(kmodel_predict(&km, 3000), eta * 3000 + gamma, 1e-9),
	       "a size's first run is not its own time yet (PoCL compiles per size)");
	kmodel_add(&km, 3000, 9000);
	tap_ok(near(kmodel_predict(&km, 3000), 9000, 1e-9), "its second run counts");
	for (int i = 0; i < 4 * KM_SIZES; i++)
		kmodel_add(&km, 10000 + i / 2, 5000);
	tap_ok(!near(kmodel_predict(&km, 1000), 1000, 1e-3) &&
	       near(kmodel_predict(&km, 10000 + 2 * KM_SIZES - 1), 5000, 1e-9) &&
	       near(kmodel_predict(&km, 10000 + KM_SIZES), 5000, 1e-9),
	       "%d sizes kept: the least recently run goes", KM_SIZES);

	kmodel_init(&km, &prof, "other");
	for (int i = 0; i < 20; i++)
		kmodel_add(&km, 1000 * (1 + i % 4), 5000);
	kmodel_params(&km, &eta, &gamma);
	tap_ok(eta == 0 && near(gamma, 5000, 1e-9), "a negative slope is clamped to 0");

	kmodel_init(&km, &prof, "other");
	for (int i = 0; i < 550; i++) {
		double m = 1000 * (1 + i % 4);

		kmodel_add(&km, m, (i < 150 ? 10 : 2) * m + 100);
	}
	kmodel_params(&km, &eta, &gamma);
	tap_ok(near(eta, 2, 0.02), "recent runs outweigh old ones (eta %g, now 2, was 10)", eta);
	test_copies();
	return tap_done();
}
