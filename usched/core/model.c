// SPDX-License-Identifier: GPL-2.0
/*
 * model.c - what the policy's simulation is fed: transfer times per
 * direction, alone (from the device profile, or measured at startup by
 * kernels/cl/clu_calib.h's quick calibration, the one tqcalib's sweep shares) and
 * overlapped (from there at first, then learned from the TGs' copies), and
 * kernel times T = eta * m + gamma learned online from each
 * kernel's profiled runs, or a size's own mean time where that size has run
 * before.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/cl/clu_calib.h"
#include "tq/num.h"
#include "internal.h"
#include <CL/cl_ext.h>

#define KM_WINDOW	64	/* runs that weigh in a kernel's fit */
#define KM_GAMMA	10e3	/* prior launch latency, ns */
#define KM_SPREAD	1e-4	/* sizes vary enough for a line: var(m) > this * mean(m)^2 */
#define KM_SIZE_WINDOW	16	/* runs that weigh in a size's mean */


/* Kernels */

void kmodel_init(struct kmodel *km, const struct tqsim_profile *p, const char *name)
{
	memset(km, 0, sizeof(*km));
	km->gamma0 = KM_GAMMA;
	km->eta0 = -1;
	for (unsigned int i = 0; i < p->nkernels; i++) {
		if (!strcmp(p->kernel[i].name, name)) {
			km->eta0 = p->kernel[i].eta_ns;
			km->gamma0 = p->kernel[i].gamma_ns;
		}
	}
}

/* The entry of size @m, or NULL. */
static const struct kmodel_size *size_find(const struct kmodel *km, double m)
{
	for (unsigned int i = 0; i < KM_SIZES; i++)
		if (km->size[i].n && km->size[i].m == m)
			return &km->size[i];
	return NULL;
}

/* The entry of size @m, else the least recently used one, emptied for @m. */
static struct kmodel_size *size_take(struct kmodel *km, double m)
{
	struct kmodel_size *lru = &km->size[0];
	const struct kmodel_size *sz = size_find(km, m);

	if (sz)
		return &km->size[sz - km->size];
	for (unsigned int i = 1; i < KM_SIZES; i++)
		if (km->size[i].used < lru->used)
			lru = &km->size[i];
	*lru = (struct kmodel_size){ .m = m };
	return lru;
}

/*
 * A size's own mean time: kernels need not scale linearly with m (a
 * working set that leaves a cache, a grid that fills the device), so a
 * kernel's line may miss some sizes by far
 * (Documentation/design/usched-core.md). A size's first run is dropped as
 * the kernel's is: PoCL compiles per size.
 */
static void kmodel_size_add(struct kmodel *km, double m, double ns)
{
	struct kmodel_size *sz = size_take(km, m);
	double w;

	sz->used = ++km->clock;
	if (sz->n++ == 0)
		return;
	w = fmax(1 / (sz->n - 1), 1.0 / KM_SIZE_WINDOW);
	sz->mean_t += w * (ns - sz->mean_t);
}

/*
 * Exponentially weighted means and co-moments (West's update). A kernel's
 * first run is dropped: drivers compile or load its code on first launch.
 */
void kmodel_add(struct kmodel *km, double m, double ns)
{
	double w, dm, dt;

	if (!km->warm) {
		km->warm = true;
		return;
	}
	kmodel_size_add(km, m, ns);
	km->n++;
	w = fmax(1 / km->n, 1.0 / KM_WINDOW);
	dm = m - km->mean_m;
	dt = ns - km->mean_t;
	km->mean_m += w * dm;
	km->mean_t += w * dt;
	km->c_mm = (1 - w) * (km->c_mm + w * dm * dm);
	km->c_mt = (1 - w) * (km->c_mt + w * dm * dt);
}

/*
 * The fit: least squares once sizes vary, clamped so that neither
 * parameter is negative. Before that, one point and the prior: the prior's
 * gamma (at most half the time seen) and eta through the point. With no run
 * yet, the profile's line, or else a kernel as short as a launch.
 */
void kmodel_params(const struct kmodel *km, double *eta, double *gamma)
{
	if (!km->n) {
		*eta = fmax(km->eta0, 0);
		*gamma = km->gamma0;
		return;
	}
	if (km->c_mm > KM_SPREAD * km->mean_m * km->mean_m) {
		*eta = km->c_mt / km->c_mm;
		*gamma = km->mean_t - *eta * km->mean_m;
		if (*eta < 0) {
			*eta = 0;
			*gamma = km->mean_t;
		} else if (*gamma < 0) {
			*gamma = 0;
			*eta = km->mean_m > 0 ? km->mean_t / km->mean_m : 0;
		}
		return;
	}
	*gamma = fmin(km->gamma0, km->mean_t / 2);
	*eta = km->mean_m > 0 ? (km->mean_t - *gamma) / km->mean_m : 0;
}

double kmodel_predict(const struct kmodel *km, double m)
{
	const struct kmodel_size *sz = size_find(km, m);
	double eta, gamma;

	if (sz && sz->n > 1)
		return fmax(sz->mean_t, 1);
	kmodel_params(km, &eta, &gamma);
	return fmax(eta * m + gamma, 1);	/* 0 would mean "no kernel" to the simulator */
}

/* Standalone times of t's stages, for the policy. */
void model_predict(struct usched *u, struct task *t)
{
	memset(t->pred, 0, sizeof(t->pred));
	for (unsigned int i = 0; i < t->t.nbufs; i++) {
		const struct usched_buf *b = &t->t.buf[i];

		if (b->dir & USCHED_IN)
			t->pred[USCHED_HTD] += tqsim_profile_xfer_ns(&u->prof, TQSIM_HTD, b->len);
		if (b->dir & USCHED_OUT)
			t->pred[USCHED_DTH] += tqsim_profile_xfer_ns(&u->prof, TQSIM_DTH, b->len);
	}
	t->pred[USCHED_K] = kmodel_predict(&t->kern->model, t->t.m);
	t->kwidth = tqsim_profile_kernel_share(&u->prof, t->kern->name, t->t.m);
}

/* Transfers */

static int load_profile(struct usched *u, const char *path)
{
	struct tqsim_parse_err perr;
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int ret;

	f = fopen(path, "r");
	if (!f)
		return -errno;
	ret = getdelim(&text, &len, 0, f) < 0 ? -EIO : 0;
	fclose(f);
	if (!ret) {
		ret = tqsim_profile_parse(&u->prof, text, strlen(text), &perr);
		if (ret)
			fprintf(stderr, "usched: %s:%u: %s\n", path, perr.line, perr.reason);
	}
	free(text);
	return ret;
}

/*
 * The quick calibration of kernels/cl/clu_calib.h, shared with tqcalib: each
 * direction alone at two sizes, then both large copies at once: each
 * direction's line and overlapped bandwidth, and whether the device has two
 * copy engines.
 */
static int calibrate(struct usched *u)
{
	int ret = clu_cal_quick(u->shared.ctx, u->shared.q[USCHED_HTD], u->shared.q[USCHED_DTH],
				&u->prof);

	if (!ret)
		snprintf(u->prof.device, sizeof(u->prof.device), "%.63s", u->st.device);
	return ret;
}

/* Whether the device's extensions name ext (a whole word). */
static bool has_ext(cl_device_id dev, const char *ext)
{
	char exts[8192], *p;
	size_t n = strlen(ext);

	if (clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, sizeof(exts), exts, NULL))
		return false;
	exts[sizeof(exts) - 1] = 0;
	for (p = strstr(exts, ext); p; p = strstr(p + 1, ext))
		if ((p == exts || p[-1] == ' ') && (!p[n] || p[n] == ' '))
			return true;
	return false;
}

/* "name value\n" of a string the device (or its platform) has, appended at *off. */
static int key_str(char *key, size_t len, size_t *off, const char *name, cl_int err,
		   const char *val)
{
	int n;

	if (err)
		val = "?";
	n = snprintf(key + *off, len - *off, "%s %s\n", name, val);
	if (n < 0 || (size_t)n >= len - *off)
		return -ENOSPC;
	*off += n;
	return 0;
}

int usched_device_key(struct usched *u, char *key, size_t len)
{
	static const struct { const char *name; cl_device_info what; } strs[] = {
		{ "vendor", CL_DEVICE_VENDOR }, { "device", CL_DEVICE_NAME },
		{ "driver", CL_DRIVER_VERSION }, { "version", CL_DEVICE_VERSION },
	};
	char val[256], id[64] = "";
	size_t off = 0;
	int ret;

	if (has_ext(u->device, "cl_khr_device_uuid")) {
		cl_uchar uuid[CL_UUID_SIZE_KHR];

		if (!clGetDeviceInfo(u->device, CL_DEVICE_UUID_KHR, sizeof(uuid), uuid, NULL))
			for (int i = 0; i < CL_UUID_SIZE_KHR; i++)
				snprintf(id + 2 * i, 3, "%02x", uuid[i]);
	}
	if (!*id && has_ext(u->device, "cl_khr_pci_bus_info")) {
		cl_device_pci_bus_info_khr pci;

		if (!clGetDeviceInfo(u->device, CL_DEVICE_PCI_BUS_INFO_KHR, sizeof(pci), &pci,
				     NULL))
			snprintf(id, sizeof(id), "pci %04x:%02x:%02x.%x", pci.pci_domain,
				 pci.pci_bus, pci.pci_device, pci.pci_function);
	}
	ret = key_str(key, len, &off, "uuid", 0, *id ? id : "none");
	ret = ret ?: key_str(key, len, &off, "platform",
			     clGetPlatformInfo(u->platform, CL_PLATFORM_NAME, sizeof(val), val,
					       NULL), val);
	for (unsigned int i = 0; !ret && i < sizeof(strs) / sizeof(strs[0]); i++)
		ret = key_str(key, len, &off, strs[i].name,
			      clGetDeviceInfo(u->device, strs[i].what, sizeof(val), val, NULL),
			      val);
	return ret;
}

/*
 * A calibration kept for this device (its key in @key; "" if it has none):
 * 0 if there is one, now in u->prof.
 */
static int calib_kept(struct usched *u, char *key, size_t len)
{
	if (!u->o.calib_load || usched_device_key(u, key, len)) {
		*key = 0;
		return -ENOENT;
	}
	return u->o.calib_load(u->o.calib_arg, key, &u->prof);
}

/*
 * Copies overlapped by the other direction. The profile's one factor per
 * direction is what tqcalib measured, but the factor moves between
 * experiments and from copy to copy (Documentation/design/usched-core.md).
 * So usched learns it from its own TGs: a copy stage that its TG's copies
 * the other way covered throughout ran overlapped, and its measured time
 * over its standalone prediction is a sample. (Copies of other TGs are not
 * looked at: a stage covered by its own TG's copies is covered whatever
 * else ran.) The median of the last samples, robust to the single slow
 * copy, replaces the prior once there are XM_MIN.
 */
#define XM_COVER	0.98	/* covered throughout: at least this share of it */

void xmodel_init(struct xmodel *xm, double prior)
{
	*xm = (struct xmodel){ .slow = prior };
}

/*
 * Follow the median only when it moved past XM_MOVE: a window of noisy
 * samples moves a little with every TG, and every move unproves the plans
 * (plans.c), so small ones would cost each TG of a mix its proven order.
 */
static void xmodel_follow(struct xmodel *xm)
{
	double v[XM_SAMPLES], med;

	if (xm->n < XM_MIN)
		return;
	memcpy(v, xm->ratio, xm->n * sizeof(v[0]));
	med = fmax(tq_median(v, xm->n), 1);
	if (fabs(med / xm->slow - 1) > XM_MOVE)
		xm->slow = med;
}

void xmodel_learn(struct xmodel *xm, const struct tg_copy *c, unsigned int nc,
		  const struct tg_copy *o, unsigned int no)
{
	for (unsigned int i = 0; i < nc; i++) {
		double len = (double)c[i].end - (double)c[i].start, cover = 0;

		if (!(len > 0) || !(c[i].pred >= XM_MIN_NS))
			continue;
		/* one engine runs the other direction: its stages never overlap */
		for (unsigned int j = 0; j < no; j++)
			cover += fmax(0, fmin((double)c[i].end, (double)o[j].end) -
					 fmax((double)c[i].start, (double)o[j].start));
		if (cover < XM_COVER * len)
			continue;
		xm->ratio[xm->next] = len / c[i].pred;
		xm->next = (xm->next + 1) % XM_SAMPLES;
		if (xm->n < XM_SAMPLES)
			xm->n++;
	}
	xmodel_follow(xm);
}

/* The transfer model and dma: from the profile, or measured; opts.dma wins. */
int model_init(struct usched *u)
{
	char key[1024] = "";
	int ret;

	if (u->o.profile) {
		ret = load_profile(u, u->o.profile);
	} else if (!calib_kept(u, key, sizeof(key))) {
		u->st.calib = USCHED_CALIB_KEPT;
		ret = 0;
	} else {
		u->st.calib = USCHED_CALIB_MEASURED;
		ret = calibrate(u);
		if (!ret && u->o.calib_save && *key)
			u->o.calib_save(u->o.calib_arg, key, &u->prof);
	}
	if (ret)
		return ret;
	tqsim_profile_to_dev(&u->prof, &u->dev);
	xmodel_init(&u->xm[0], u->dev.slow[TQSIM_HTD]);
	xmodel_init(&u->xm[1], u->dev.slow[TQSIM_DTH]);
	if (u->o.dma)
		u->dev.dma = u->o.dma;
	u->dev.kq = u->o.kqueues;
	u->st.dma = u->dev.dma;
	u->st.copy_slow[0] = u->dev.slow[TQSIM_HTD];
	u->st.copy_slow[1] = u->dev.slow[TQSIM_DTH];
	return tqsim_dev_check(&u->dev);
}
