// SPDX-License-Identifier: GPL-2.0
/*
 * conf.c - usched's configuration: a file of "key = value" lines
 * (/etc/tq/usched.conf unless --config says otherwise) and flags of the
 * same names that override it. One table lists every setting, so the file,
 * the flags and the help text cannot disagree.
 *
 * The limits may also be set per user and per group, in sections that run
 * to the next section or the end of the file:
 *
 *	[user alice]		or [user 1000]
 *	[group tq-dev]		or [group 1001]
 *
 * dconf_limits() says which value a user gets. Drop-ins, FILE.d/NAME.conf, are
 * read after the file in the lexical order of NAME, each as a file of its
 * own (it starts outside any section). Every value is checked as it is
 * read, and dconf_check() looks for the device before usched attaches.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon.h"
#include "tq/num.h"
#include "sim/tqsim.h"

/*
 * STR to INFILE are strings: POLICY a sim/ policy's name, XPORT a
 * transport's (tq_transport.h), INFILE a file usched reads, which must be
 * there. SIZE, COUNT, TIME and YESNO are limits: u64 entries of struct
 * dlimits, per user too.
 */
/*
 * WORD is one of the words of the setting's arg ("refuse|flag"), stored as
 * its index; DURATION a time in ns. PRIO (a class's name: max-prio) and WEIGHT (1 .. USCHED_SHARE_MAX)
 * are limits too. UINT_AUTO is a UINT or auto (DCONF_AUTO).
 */
enum kind { STR, POLICY, XPORT, INFILE, UINT, UINT_AUTO, BOOL, DEV, U64, WORD, DURATION,
	    SIZE, COUNT, TIME, YESNO, PRIO, WEIGHT };

struct setting {
	const char *key;
	enum kind kind;
	size_t off;		/* of the field in struct dconf; a limit's enum dlim */
	unsigned int min, max;	/* UINT; UINT_AUTO: or auto, DCONF_AUTO */
	const char *arg, *help;
};

/* max-prio's words: the uapi's classes from normal up (TQ_PRIO_NORMAL + i). */
#define PRIO_WORDS	"normal|high|critical"

#define F(field) offsetof(struct dconf, field)
#define IS_LIMIT(k)	((k) >= SIZE)
#define IS_STRING(k)	((k) <= INFILE)

static const struct setting settings[] = {
	{ "device", DEV, 0, 0, 0, "[PLATFORM/]DEVICE",
	  "OpenCL platform and device, each by index or name substring" },
	{ "policy", POLICY, F(policy), 0, 0, "NAME", "ordering policy: fifo paper neh exact auto flow" },
	{ "max-tg", UINT, F(max_tg), 1, USCHED_MAX_TG, "N", "most tasks in a task group (8)" },
	{ "kernel-queues", UINT_AUTO, F(kernel_queues), 1, 8, "N|auto",
	  "kernel queues (1); auto: the count the model favours for the profile's kernels" },
	{ "copy-engines", UINT, F(copy_engines), 1, 2, "N",
	  "copy engines, 1 or 2 (default: the profile's, else probed)" },
	{ "profile", INFILE, F(profile), 0, 0, "FILE", "device profile (tq-profile format)" },
	{ "metrics", STR, F(metrics), 0, 0, "FILE", "write Prometheus metrics there" },
	{ "metrics-group", STR, F(metrics_group), 0, 0, "GROUP",
	  "the metrics file's group, which may read it (mode 0640; default usched's own)" },
	{ "metrics-interval", UINT, F(metrics_interval), 0, 86400, "SECONDS",
	  "how often to write them (5; 0: at exit and SIGHUP only)" },
	{ "metrics-clients", UINT, F(metrics_clients), 0, 4096, "N",
	  "uids, and cgroups, with series of their own; the rest are \"other\" (64)" },
	{ "trace", STR, F(trace), 0, 0, "FILE",
	  "trace from the start there (Chrome JSON, Perfetto); SIGUSR1 starts one there, else in "
	  USCHED_TRACE_DEFAULT ", SIGUSR2 stops it" },
	{ "trace-max", U64, F(trace_max), 0, 0, "BYTES",
	  "the trace's bound: it stops growing there and says so (256M)" },
	{ "tg-log", STR, F(tg_log), 0, 0, "FILE",
	  "append a CSV line per task group: makespan and stage times, predicted and measured" },
	{ "task-log", STR, F(task_log), 0, 0, "FILE",
	  "append a CSV line per task: kernel, size m, stage times predicted and measured" },
	{ "state", STR, F(state), 0, 0, "FILE",
	  "keep program and kernel ids there across restarts (/run/tq/usched.state)" },
	{ "devnode", STR, F(devnode), 0, 0, "PATH", "the module's device (/dev/tqsubmit)" },
	{ "transport", XPORT, F(transport), 0, 0, "T",
	  "module, socket (tqsubmitd) or auto: the module if devnode exists ($TQ_TRANSPORT)" },
	{ "sched-socket", STR, F(sched_socket), 0, 0, "PATH",
	  "tqsubmitd's scheduler socket ($TQ_SCHED_SOCKET, else " TQ_SCHED_SOCKET_PATH ")" },
	{ "socket", STR, F(socket), 0, 0, "PATH",
	  "the client socket of the tqsubmitd usched starts ($TQ_SOCKET, else " TQ_SOCKET_PATH ")" },
	{ "tqsubmitd", STR, F(tqsubmitd), 0, 0, "PATH",
	  "started when the scheduler socket is absent (next to usched; none: never)" },
	{ "foreground", BOOL, F(foreground), 0, 0, NULL,
	  "stay in the foreground, log to stderr (-f)" },
	{ "verbose", BOOL, F(verbose), 0, 0, NULL, "log each context opened and closed (-v)" },
	{ "no-plans", BOOL, F(no_plans), 0, 0, NULL,
	  "auto orders every task group afresh, not from the best order kept for its mix" },
	{ "no-refine", BOOL, F(no_refine), 0, 0, NULL,
	  "the loop's idle time does not go on with the plans' searches" },
	{ "no-poll", BOOL, F(no_poll), 0, 0, NULL,
	  "a task completes when its OpenCL callback comes, not by polling at its predicted end" },
	{ "build-jobs", UINT, F(build_jobs), 1, 64, "N", "program builds at once (2)" },
	{ "user-build-jobs", UINT, F(user_build_jobs), 1, 64, "N",
	  "of them, builds of one user at once (1)" },
	{ "build-helper", STR, F(build_helper), 0, 0, "PATH",
	  "the build process's program (usched-build next to usched)" },
	{ "state-max", U64, F(state_max), 0, 0, "BYTES",
	  "largest state file; records past it are not kept (64M; 0: no limit)" },
	{ "cache", STR, F(cache), 0, 0, "DIR",
	  "keep the calibration and built programs there (cache beside the state file; none: off)" },
	{ "cache-max", U64, F(cache_max), 0, 0, "BYTES",
	  "bytes of the cache's entries; the least recently used go past it (256M; 0: no limit)" },
	{ "recalibrate", BOOL, F(recalibrate), 0, 0, NULL,
	  "measure the transfers at start even if the cache has them" },
	{ "prio-ahead", DURATION, F(prio_ahead_ns), 0, 0, "TIME",
	  "predicted lower-class work enqueued ahead of a waiting higher class, per engine "
	  "(Nms; 0: 2ms)" },
	{ "deadline", WORD, F(deadline), 0, 0, "refuse|flag",
	  "a task that cannot meet its deadline: fails ETIMEDOUT unrun, or runs, flagged late "
	  "(refuse)" },
	{ "share-by", WORD, F(share_by), 0, 0, "uid|cgroup",
	  "the fair-share groups: each uid, or each v2 cgroup (uid)" },
	/* Limits: per user and per group too. 0 is no limit. */
	{ "max-work-items", COUNT, DLIM_WORK_ITEMS, 0, 0, "N",
	  "a task's global work size, its dimensions multiplied (2^32)" },
	{ "max-work-groups", COUNT, DLIM_WORK_GROUPS, 0, 0, "N",
	  "a task's work-groups, when it gives local sizes (2^24)" },
	{ "max-source", SIZE, DLIM_SOURCE, 0, 0, "BYTES", "a program's source (1M)" },
	{ "max-options", SIZE, DLIM_OPTIONS, 0, 0, "BYTES", "a program's build options (1K)" },
	{ "build-time-limit", TIME, DLIM_BUILD_TIME, 0, 0, "SECONDS",
	  "a build's time; then it is killed and fails -ETIME (60s)" },
	{ "build-memory", SIZE, DLIM_BUILD_MEMORY, 0, 0, "BYTES",
	  "data memory of a build process (2G)" },
	{ "kernel-time-limit", TIME, DLIM_KERNEL_TIME, 0, 0, "SECONDS",
	  "a kernel's running time; then it fails -ETIME (0: 10 s)" },
	{ "context-programs", COUNT, DLIM_CTX_PROGRAMS, 0, 0, "N",
	  "programs one context registers (64)" },
	{ "user-programs", COUNT, DLIM_USER_PROGRAMS, 0, 0, "N",
	  "programs all the contexts of one user register (256)" },
	{ "context-kernels", COUNT, DLIM_CTX_KERNELS, 0, 0, "N",
	  "kernels one context registers (256)" },
	{ "user-kernels", COUNT, DLIM_USER_KERNELS, 0, 0, "N",
	  "kernels all the contexts of one user register (1024)" },
	{ "context-arena", SIZE, DLIM_CTX_ARENA, 0, 0, "BYTES",
	  "arena of a context served; a larger one's tasks fail -EDQUOT (1G)" },
	{ "user-arena", SIZE, DLIM_USER_ARENA, 0, 0, "BYTES",
	  "arenas of all the open contexts of one user (4G)" },
	{ "allow-source", YESNO, DLIM_ALLOW_SOURCE, 0, 0, NULL,
	  "may register OpenCL C source, not only built-in kernels (no; root: yes)" },
	{ "isolate-source", YESNO, DLIM_ISOLATE_SOURCE, 0, 0, NULL,
	  "without allow-source, source runs in an OpenCL context of the user's own (yes)" },
	{ "max-prio", PRIO, DLIM_MAX_PRIO, 0, 0, PRIO_WORDS,
	  "the highest class a user's tasks may take; above it they fail EPERM (high; root: "
	  "critical)" },
	{ "share", WEIGHT, DLIM_SHARE, 0, 0, "N",
	  "the weight of a user's share group in its class, 1-10000 (1)" },
};

#define NSETTINGS (sizeof(settings) / sizeof(settings[0]))

/*
 * The most kernel queues auto weighs, and the TGs of the profile's kernels
 * it weighs them on: long ones, since usched's TGs follow each other
 * without a gap on the kernel queues, so a TG's tail is no gap either.
 */
#define KQ_AUTO_MAX	4
#define KQ_AUTO_TASKS	TQSIM_MAX_TASKS

int dconf_kqueues_auto(const char *profile, unsigned int *kq, char *why, size_t len)
{
	struct tqsim_profile *p = NULL;
	struct tqsim_parse_err perr;
	double mean[KQ_AUTO_MAX];
	char *text = NULL;
	size_t tlen = 0;
	int ret = 0, n;
	FILE *f;

	*kq = DCONF_KQ_UNKNOWN;
	if (!profile || !*profile) {
		snprintf(why, len, "no profile, so no kernel shares to weigh: %u, the default that "
			 "served the real mixes best on the H100 and H200", *kq);
		return 0;
	}
	f = fopen(profile, "r");
	if (!f) {
		ret = -errno;
		snprintf(why, len, "%s: %s", profile, strerror(errno));
		return ret;
	}
	if (getdelim(&text, &tlen, 0, f) < 0)
		ret = -EIO;
	fclose(f);
	p = malloc(sizeof(*p));
	if (!ret && !p)
		ret = -ENOMEM;
	if (!ret && tqsim_profile_parse(p, text, strlen(text), &perr)) {
		snprintf(why, len, "%s:%u: %s", profile, perr.line, perr.reason);
		ret = -EINVAL;
	} else if (ret) {
		snprintf(why, len, "%s: %s", profile, strerror(-ret));
	}
	free(text);
	if (ret) {
		free(p);
		return ret;
	}
	n = tqsim_profile_kqueues(p, KQ_AUTO_TASKS, KQ_AUTO_MAX, mean);
	free(p);
	if (n == -ENODATA) {
		snprintf(why, len, "the profile gives no kernel shares (tqcalib's width or demand "
			 "lines): %u, the default that served the real mixes best on the H100 and "
			 "H200", *kq);
		return 0;
	}
	if (n < 0) {
		snprintf(why, len, "%s", strerror(-n));
		return n;
	}
	*kq = n;
	ret = snprintf(why, len, "the model's mean makespan of %d TGs of %d of the profile's "
		       "kernels, 1 queue %.2f ms", TQSIM_KQ_TGS, KQ_AUTO_TASKS, mean[0] / 1e6);
	for (unsigned int k = 1; k < KQ_AUTO_MAX && ret > 0 && (size_t)ret < len; k++)
		ret += snprintf(why + ret, len - ret, ", %u: %.2f ms (%+.1f%%)", k + 1,
				mean[k] / 1e6, 100 * (mean[k] / mean[0] - 1));
	if (ret > 0 && (size_t)ret < len)
		snprintf(why + ret, len - ret, "; a queue more only where %.0f%% faster than fewer",
			 100 * TQSIM_KQ_GAIN);
	return 0;
}

void dconf_init(struct dconf *c)
{
	memset(c, 0, sizeof(*c));
	c->metrics_interval = 5;
	c->metrics_clients = 64;
	c->state = strdup("/run/tq/usched.state");
	c->devnode = strdup(USCHED_DEVNODE);
	/* the clients' variables are the defaults, under the file and the flags */
	c->transport = strdup(getenv(TQT_ENV) && *getenv(TQT_ENV) ? getenv(TQT_ENV) : "auto");
	c->sched_socket = strdup(tqt_sched_path());
	c->socket = strdup(tqt_client_path());
	c->build_jobs = 2;
	c->user_build_jobs = 1;
	c->state_max = 64ull << 20;
	c->cache_max = 256ull << 20;
	c->lim.v[DLIM_WORK_ITEMS] = 1ull << 32;
	c->lim.v[DLIM_WORK_GROUPS] = 1ull << 24;
	c->lim.v[DLIM_SOURCE] = 1ull << 20;
	c->lim.v[DLIM_OPTIONS] = 1024;
	c->lim.v[DLIM_BUILD_TIME] = 60 * 1000000000ull;
	c->lim.v[DLIM_BUILD_MEMORY] = 2ull << 30;
	c->lim.v[DLIM_CTX_PROGRAMS] = 64;
	c->lim.v[DLIM_USER_PROGRAMS] = 256;
	c->lim.v[DLIM_CTX_KERNELS] = 256;
	c->lim.v[DLIM_USER_KERNELS] = 1024;
	c->lim.v[DLIM_CTX_ARENA] = 1ull << 30;
	c->lim.v[DLIM_USER_ARENA] = 4ull << 30;
	c->lim.v[DLIM_ISOLATE_SOURCE] = 1;
	c->lim.v[DLIM_MAX_PRIO] = TQ_PRIO_HIGH;
	c->lim.v[DLIM_SHARE] = 1;
}

const char *dlim_name(enum dlim i)
{
	for (unsigned int j = 0; j < NSETTINGS; j++)
		if (IS_LIMIT(settings[j].kind) && settings[j].off == i)
			return settings[j].key;
	return "?";
}

void dconf_free(struct dconf *c)
{
	for (unsigned int i = 0; i < NSETTINGS; i++)
		if (IS_STRING(settings[i].kind))
			free(*(char **)((char *)c + settings[i].off));
	free(c->device_at);
	free(c->platform);
	free(c->device);
	free(c->config);
	free(c->sect);
	memset(c, 0, sizeof(*c));
}

void dconf_take_limits(struct dconf *c, struct dconf *from)
{
	free(c->sect);
	c->sect = from->sect;
	c->nsect = from->nsect;
	from->sect = NULL;
	from->nsect = 0;
	c->lim = from->lim;
}

/* A count or size (K, M, G, T when @suffix), or "none": 0. */
static int parse_u64(const char *val, bool suffix, uint64_t *out)
{
	if (!strcmp(val, "none")) {
		*out = 0;
		return 0;
	}
	return tq_parse_u64(val, suffix, out);
}

/* Seconds, or a number with ms, s or m after it; stored in ns. */
static int parse_time(const char *val, uint64_t *ns)
{
	static const struct { const char *sfx; uint64_t ns; } units[] = {
		{ "", 1000000000ull }, { "s", 1000000000ull }, { "ms", 1000000ull },
		{ "m", 60000000000ull },
	};
	unsigned long long v;
	char *end;

	if (!strcmp(val, "none")) {
		*ns = 0;
		return 0;
	}
	errno = 0;
	v = strtoull(val, &end, 10);
	if (errno || end == val || !isdigit((unsigned char)*val))
		return -EINVAL;
	for (unsigned int i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (!strcmp(end, units[i].sfx)) {
			if (v > UINT64_MAX / units[i].ns)
				return -EINVAL;
			*ns = v * units[i].ns;
			return 0;
		}
	}
	return -EINVAL;
}

static int parse_yesno(const char *val, bool *out)
{
	if (!strcmp(val, "yes") || !strcmp(val, "true") || !strcmp(val, "1"))
		*out = true;
	else if (!strcmp(val, "no") || !strcmp(val, "false") || !strcmp(val, "0"))
		*out = false;
	else
		return -EINVAL;
	return 0;
}

static const struct setting *find_setting(const char *key)
{
	for (unsigned int i = 0; i < NSETTINGS; i++)
		if (!strcmp(settings[i].key, key))
			return &settings[i];
	return NULL;
}

/* One of @words ("a|b|c"): its index, or -EINVAL. */
static int parse_word(const char *val, const char *words)
{
	size_t n = strlen(val);

	for (int i = 0; *words; i++) {
		size_t len = strcspn(words, "|");

		if (len == n && !strncmp(val, words, n))
			return i;
		words += len + !!words[len];
	}
	return -EINVAL;
}

/* "want a, b or c" for @words ("a|b|c"); the buffer lives until the next call. */
static const char *want_words(const char *words)
{
	static char why[128];
	const char *last = strrchr(words, '|');
	size_t n = snprintf(why, sizeof(why), "want");

	for (const char *w = words; w < last && n < sizeof(why); w += strcspn(w, "|") + 1)
		n += snprintf(why + n, sizeof(why) - n, "%s %.*s", w == words ? "" : ",",
			      (int)strcspn(w, "|"), w);
	if (n < sizeof(why))
		snprintf(why + n, sizeof(why) - n, " or %s", last + 1);
	return why;
}

/* A limit's value into lim (and its bit into *set). */
static int set_limit(const struct setting *s, struct dlimits *lim, uint32_t *set,
		     const char *val, const char **why)
{
	uint64_t v;
	bool b;
	int ret;

	switch (s->kind) {
	case SIZE:
	case COUNT:
		ret = parse_u64(val, s->kind == SIZE, &v);
		*why = s->kind == SIZE ? "want a size: N, NK, NM, NG, NT or none" :
					 "want a number or none";
		break;
	case TIME:
		ret = parse_time(val, &v);
		*why = "want a time: N (seconds), Ns, Nms, Nm or none";
		break;
	case PRIO:
		ret = parse_word(val, PRIO_WORDS);
		v = TQ_PRIO_NORMAL + ret;
		ret = ret < 0 ? ret : 0;
		*why = want_words(PRIO_WORDS);
		break;
	case WEIGHT:
		ret = tq_parse_u64(val, false, &v);
		if (!ret && (v < 1 || v > USCHED_SHARE_MAX))
			ret = -EINVAL;
		*why = "want a weight, 1 to 10000";
		break;
	default:
		ret = parse_yesno(val, &b);
		v = !ret && b;	/* b is set only when the value parsed */
		*why = "want yes or no";
		break;
	}
	if (ret)
		return -EINVAL;
	lim->v[s->off] = v;
	if (set)
		*set |= 1u << s->off;
	return 0;
}

/* An empty value unsets a string, so "trace =" turns a trace off. */
static void set_str(char **field, const char *val, size_t len)
{
	free(*field);
	*field = len ? strndup(val, len) : NULL;
}

int dconf_set(struct dconf *c, const char *key, const char *val, const char **why)
{
	const struct setting *s = find_setting(key);
	unsigned long v;
	uint64_t v64;
	char *end;

	if (!s) {
		*why = "unknown setting";
		return -EINVAL;
	}
	if (IS_LIMIT(s->kind))
		return set_limit(s, &c->lim, NULL, val, why);
	switch (s->kind) {
	case WORD: {
		int w = parse_word(val, s->arg);

		if (w < 0) {
			*why = want_words(s->arg);
			return -EINVAL;
		}
		*(unsigned int *)((char *)c + s->off) = w;
		return 0;
	}
	case DURATION:
		if (parse_time(val, &v64)) {
			*why = "want a time: N (seconds), Ns, Nms or Nm";
			return -EINVAL;
		}
		*(uint64_t *)((char *)c + s->off) = v64;
		return 0;
	case U64:
		if (parse_u64(val, true, &v64)) {
			*why = "want a size: N, NK, NM, NG, NT or none";
			return -EINVAL;
		}
		*(uint64_t *)((char *)c + s->off) = v64;
		return 0;
	case POLICY:
		if (*val && !tqsim_policy_find(val)) {
			*why = "no such policy (fifo, paper, neh, exact, auto or flow)";
			return -EINVAL;
		}
		set_str((char **)((char *)c + s->off), val, strlen(val));
		return 0;
	case XPORT:
		if (tqt_parse(val) < 0) {
			*why = "want auto, module or socket";
			return -EINVAL;
		}
		set_str((char **)((char *)c + s->off), val, strlen(val));
		return 0;
	case INFILE:
		if (*val && access(val, R_OK)) {
			*why = errno == ENOENT ? "no such file" : "cannot read the file";
			return -EINVAL;
		}
		set_str((char **)((char *)c + s->off), val, strlen(val));
		return 0;
	case STR:
		set_str((char **)((char *)c + s->off), val, strlen(val));
		return 0;
	case DEV:
		/* "P/D", "D", "P/": an empty part means any. */
		end = strchr(val, '/');
		if (end) {
			set_str(&c->platform, val, end - val);
			set_str(&c->device, end + 1, strlen(end + 1));
		} else {
			set_str(&c->platform, NULL, 0);
			set_str(&c->device, val, strlen(val));
		}
		return 0;
	case BOOL:
		if (!strcmp(val, "yes") || !strcmp(val, "true") || !strcmp(val, "1"))
			*(bool *)((char *)c + s->off) = true;
		else if (!strcmp(val, "no") || !strcmp(val, "false") || !strcmp(val, "0"))
			*(bool *)((char *)c + s->off) = false;
		else {
			*why = "want yes or no";
			return -EINVAL;
		}
		return 0;
	case UINT_AUTO:
		if (!strcmp(val, "auto")) {
			*(unsigned int *)((char *)c + s->off) = DCONF_AUTO;
			return 0;
		}
		/* fall through */
	case UINT:
		errno = 0;
		v = strtoul(val, &end, 10);
		if (errno || end == val || *end || !isdigit((unsigned char)*val) ||
		    v < s->min || v > s->max) {
			*why = s->kind == UINT_AUTO ? "not auto or a number in range" :
						     "not a number in range";
			return -EINVAL;
		}
		*(unsigned int *)((char *)c + s->off) = v;
		return 0;
	default:
		break;
	}
	return -EINVAL;
}

/* "[user NAME|UID]" or "[group NAME|GID]" (line without its brackets): a new section. */
static int section_start(struct dconf *c, const char *hdr, const char **why)
{
	const char *kind = hdr, *name;
	struct dsection *s, *n;
	unsigned long id;
	char *end;

	size_t klen = strcspn(hdr, " \t");

	name = hdr + klen;
	while (isspace((unsigned char)*name))
		name++;
	if (!*name || !((klen == 4 && !strncmp(kind, "user", 4)) ||
			(klen == 5 && !strncmp(kind, "group", 5)))) {
		*why = "want [user NAME|UID] or [group NAME|GID]";
		return -EINVAL;
	}
	n = realloc(c->sect, (c->nsect + 1) * sizeof(*n));
	if (!n) {
		*why = "out of memory";
		return -ENOMEM;
	}
	c->sect = n;
	s = &n[c->nsect];
	*s = (struct dsection){ .group = klen == 5 };
	errno = 0;
	id = strtoul(name, &end, 10);
	if (isdigit((unsigned char)*name) && !*end && !errno && id <= UINT32_MAX) {
		s->id = id;
	} else if (s->group) {
		struct group *g = getgrnam(name);

		if (!g) {
			*why = "no such group";
			return -EINVAL;
		}
		s->id = g->gr_gid;
	} else {
		struct passwd *p = getpwnam(name);

		if (!p) {
			*why = "no such user";
			return -EINVAL;
		}
		s->id = p->pw_uid;
	}
	c->nsect++;
	return 0;
}

/* A key in the last section: only limits may be set per user or group. */
static int section_set(struct dconf *c, const char *key, const char *val, const char **why)
{
	const struct setting *s = find_setting(key);
	struct dsection *sec = &c->sect[c->nsect - 1];

	if (!s) {
		*why = "unknown setting";
		return -EINVAL;
	}
	if (!IS_LIMIT(s->kind)) {
		*why = "not a per-user setting (only limits, allow-source, isolate-source, max-prio "
		       "and share are)";
		return -EINVAL;
	}
	return set_limit(s, &sec->lim, &sec->set, val, why);
}

/* Of two groups' values for limit i, the more generous. */
static uint64_t generous(enum dlim i, uint64_t a, uint64_t b)
{
	if (i == DLIM_ALLOW_SOURCE || i == DLIM_ISOLATE_SOURCE)
		return a || b;
	if (i == DLIM_MAX_PRIO || i == DLIM_SHARE)
		return a > b ? a : b;	/* never 0 */
	if (!a || !b)
		return 0;	/* no limit */
	return a > b ? a : b;
}

void dconf_limits(const struct dconf *c, uint32_t uid, const uint32_t *gids,
		  unsigned int ngids, struct dlimits *out)
{
	uint32_t by_user = 0, by_group = 0;
	struct dlimits user = { 0 }, group = { 0 };

	for (unsigned int s = 0; s < c->nsect; s++) {
		const struct dsection *sec = &c->sect[s];
		bool match = false;

		if (!sec->group) {
			if (sec->id != uid)
				continue;
			/* Several sections of one user: the later one's keys win. */
			for (unsigned int i = 0; i < DLIM_N; i++)
				if (sec->set & (1u << i))
					user.v[i] = sec->lim.v[i];
			by_user |= sec->set;
			continue;
		}
		for (unsigned int g = 0; g < ngids && !match; g++)
			match = gids[g] == sec->id;
		if (!match)
			continue;
		for (unsigned int i = 0; i < DLIM_N; i++) {
			if (!(sec->set & (1u << i)))
				continue;
			group.v[i] = by_group & (1u << i) ?
				generous(i, group.v[i], sec->lim.v[i]) : sec->lim.v[i];
		}
		by_group |= sec->set;
	}
	for (unsigned int i = 0; i < DLIM_N; i++) {
		if (by_user & (1u << i))
			out->v[i] = user.v[i];
		else if (by_group & (1u << i))
			out->v[i] = group.v[i];
		else if (i == DLIM_ALLOW_SOURCE && uid == 0)
			out->v[i] = 1;	/* root can read every client's memory anyway */
		else if (i == DLIM_MAX_PRIO && uid == 0)
			out->v[i] = TQ_PRIO_CRITICAL;
		else
			out->v[i] = c->lim.v[i];
	}
}

void dconf_user_limits(const struct dconf *c, uint32_t uid, struct dlimits *out)
{
	struct passwd pw, *p = NULL;
	gid_t stack[64], *gids = stack;
	int n = 64;
	char buf[4096];

	/* A uid the database does not know has no groups: the global values, or its [user]. */
	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &p) || !p) {
		dconf_limits(c, uid, NULL, 0, out);
		return;
	}
	if (getgrouplist(p->pw_name, p->pw_gid, gids, &n) < 0) {
		gids = malloc(n * sizeof(*gids));
		if (!gids || getgrouplist(p->pw_name, p->pw_gid, gids, &n) < 0) {
			/* Out of memory: the primary group alone. */
			free(gids);
			gids = stack;
			stack[0] = p->pw_gid;
			n = 1;
		}
	}
	_Static_assert(sizeof(gid_t) == sizeof(uint32_t), "gid_t is a uint32_t");
	dconf_limits(c, uid, (const uint32_t *)gids, n, out);
	if (gids != stack)
		free(gids);
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

/* A '#' after a value: usched(8)'s grammar has comments on lines of their own. */
static bool trailing_comment(const char *val)
{
	const char *h = strchr(val, '#');

	return h && (h == val || isspace((unsigned char)h[-1]));
}

static int load_file(struct dconf *c, const char *path, char *err, size_t errlen)
{
	char *line = NULL, *key, *val, *eq;
	const char *why;
	unsigned int lineno = 0;
	bool in_section = false;
	size_t cap = 0;
	int ret = 0;
	FILE *f;

	f = fopen(path, "re");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	while (getline(&line, &cap, f) > 0) {
		lineno++;
		key = trim(line);
		if (!*key || *key == '#')
			continue;
		if (*key == '[') {
			char *close = strchr(key, ']');

			if (!close || *trim(close + 1)) {
				snprintf(err, errlen, "%s:%u: want [user NAME|UID] or [group NAME|GID]",
					 path, lineno);
				ret = -EINVAL;
				break;
			}
			*close = 0;
			ret = section_start(c, trim(key + 1), &why);
			if (ret) {
				snprintf(err, errlen, "%s:%u: %s: %s", path, lineno, trim(key + 1), why);
				break;
			}
			in_section = true;
			continue;
		}
		eq = strchr(key, '=');
		if (!eq) {
			snprintf(err, errlen, "%s:%u: want key = value", path, lineno);
			ret = -EINVAL;
			break;
		}
		*eq = 0;
		val = trim(eq + 1);
		key = trim(key);
		why = "a comment takes a line of its own";
		ret = trailing_comment(val) ? -EINVAL :
		      in_section ? section_set(c, key, val, &why) : dconf_set(c, key, val, &why);
		if (ret) {
			snprintf(err, errlen, "%s:%u: %s: %s", path, lineno, key, why);
			break;
		}
		if (!strcmp(key, "device")) {
			free(c->device_at);
			if (asprintf(&c->device_at, "%s:%u", path, lineno) < 0)
				c->device_at = NULL;
		}
	}
	free(line);
	fclose(f);
	return ret;
}

static int is_dropin(const struct dirent *e)
{
	size_t n = strlen(e->d_name);

	return e->d_name[0] != '.' && n > 5 && !strcmp(e->d_name + n - 5, ".conf");
}

int dconf_load(struct dconf *c, const char *path, char *err, size_t errlen)
{
	struct dirent **ents;
	char *dir, *sub;
	int ret, n, i, r = 0;

	ret = load_file(c, path, err, errlen);
	if (ret && ret != -ENOENT)
		return ret;
	if (asprintf(&dir, "%s.d", path) < 0)
		return -ENOMEM;
	n = scandir(dir, &ents, is_dropin, alphasort);
	for (i = 0; i < n; i++) {
		if (!r && asprintf(&sub, "%s/%s", dir, ents[i]->d_name) >= 0) {
			r = load_file(c, sub, err, errlen);
			free(sub);
		}
		free(ents[i]);
	}
	if (n >= 0)
		free(ents);
	free(dir);
	return r ? r : ret;
}

int dconf_check(const struct dconf *c, const char *prog)
{
	char names[1024], at[PATH_MAX + 16];

	/* the file and the flags are checked as they are read; the environment's default not */
	if (tqt_parse(c->transport) < 0) {
		fprintf(stderr, "%s: %s=%s: want auto, module or socket\n", prog, TQT_ENV,
			c->transport);
		return -EINVAL;
	}
	if (!c->platform && !c->device)
		return 0;
	if (!usched_device_check(c->platform, c->device, names, sizeof(names)))
		return 0;
	/* "FILE:LINE: device" or "--device VALUE", as dconf_args() names a bad setting */
	if (c->device_at)
		snprintf(at, sizeof(at), "%s: device", c->device_at);
	else
		snprintf(at, sizeof(at), "--device %s%s%s", c->platform ? c->platform : "",
			 c->platform ? "/" : "", c->device ? c->device : "");
	fprintf(stderr, "%s: %s: no such OpenCL device (%s%s)\n", prog, at,
		*names ? "there are " : "none", names);
	return -EINVAL;
}

static void usage(FILE *f, const char *prog)
{
	fprintf(f, "usage: %s [--config FILE] [options]\n\n"
		"The tq scheduling service: runs the GPU tasks processes submit through\n"
		"%s on one OpenCL device, in the order a policy chooses.\n\n"
		"  --config FILE                settings file (%s), then FILE.d/*.conf;\n"
		"                               flags override them\n"
		"  --check-config               check the settings, the device too, and exit\n"
		"                               (0: good, 2: bad) without attaching\n",
		prog, USCHED_DEVNODE, USCHED_CONFIG);
	for (unsigned int i = 0; i < NSETTINGS; i++) {
		char opt[48];

		snprintf(opt, sizeof(opt), "--%s%s%s", settings[i].key, settings[i].arg ? " " : "",
			 settings[i].arg ? settings[i].arg : "");
		fprintf(f, "  %-28s %s\n", opt, settings[i].help);
	}
	fprintf(f, "  --help                       this text\n"
		"  --version                    the version, and exit\n\n"
		"Limits, allow-source, isolate-source, max-prio and share may also be set per\n"
		"user and group in the file's [user NAME|UID] and [group NAME|GID] sections.\n"
		"See usched(8).\n");
}

int dconf_args(struct dconf *c, int argc, char **argv)
{
	struct option opts[NSETTINGS + 4];
	const char *config = NULL, *why;
	char err[512];
	int i, o, ret;

	for (i = 0; i < (int)NSETTINGS; i++)
		opts[i] = (struct option){ settings[i].key,
			settings[i].kind == BOOL ? no_argument : required_argument, NULL, 256 + i };
	opts[i++] = (struct option){ "config", required_argument, NULL, 'c' };
	opts[i++] = (struct option){ "help", no_argument, NULL, 'h' };
	opts[i++] = (struct option){ "check-config", no_argument, NULL, 'C' };
	opts[i] = (struct option){ 0 };

	/* First pass: only --config and --help, and check the syntax. */
	opterr = 1;
	optind = 0;	/* 0: glibc starts afresh; dconf_args() runs again on SIGHUP */
	while ((o = getopt_long(argc, argv, "c:hfv", opts, NULL)) != -1) {
		if (o == 'c')
			config = optarg;
		else if (o == 'C')
			c->check_config = true;
		else if (o == 'h') {
			usage(stdout, argv[0]);
			return 1;
		} else if (o == '?') {
			usage(stderr, argv[0]);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", argv[0], argv[optind]);
		return -EINVAL;
	}
	ret = dconf_load(c, config ? config : USCHED_CONFIG, err, sizeof(err));
	if (ret == -ENOENT && !config)
		ret = 0;	/* the default file is optional */
	else if (!ret)
		c->config = strdup(config ? config : USCHED_CONFIG);
	if (ret) {
		fprintf(stderr, "%s: %s\n", argv[0], err);
		return -EINVAL;
	}

	/* Second pass: the flags over the file. */
	optind = 0;
	while ((o = getopt_long(argc, argv, "c:hfv", opts, NULL)) != -1) {
		const char *key = o >= 256 ? settings[o - 256].key : NULL;
		const char *val = optarg;

		if (o == 'f' || o == 'v') {
			key = o == 'f' ? "foreground" : "verbose";
			val = "yes";
		} else if (key && settings[o - 256].kind == BOOL) {
			val = "yes";
		}
		if (!key)
			continue;
		if (dconf_set(c, key, val, &why)) {
			fprintf(stderr, "%s: --%s %s: %s\n", argv[0], key, val, why);
			return -EINVAL;
		}
		if (!strcmp(key, "device")) {
			free(c->device_at);
			c->device_at = NULL;	/* the flag's */
		}
	}
	return 0;
}
