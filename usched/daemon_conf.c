// SPDX-License-Identifier: GPL-2.0
/*
 * daemon_conf.c - usched's configuration: a file of "key = value" lines
 * (/etc/tq/usched.conf unless --config says otherwise) and flags of the
 * same names that override it. One table lists every setting, so the file,
 * the flags and the help text cannot disagree.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"

enum kind { STR, UINT, BOOL, DEV };

struct setting {
	const char *key;
	enum kind kind;
	size_t off;		/* of the field in struct dconf */
	unsigned int min, max;	/* UINT */
	const char *arg, *help;
};

#define F(field) offsetof(struct dconf, field)

static const struct setting settings[] = {
	{ "device", DEV, 0, 0, 0, "[PLATFORM/]DEVICE",
	  "OpenCL platform and device, each by index or name substring" },
	{ "policy", STR, F(policy), 0, 0, "NAME", "ordering policy: fifo paper neh exact auto" },
	{ "max-tg", UINT, F(max_tg), 1, USCHED_MAX_TG, "N", "most tasks in a task group (8)" },
	{ "kernel-queues", UINT, F(kernel_queues), 1, 8, "N", "kernel queues (1)" },
	{ "copy-engines", UINT, F(copy_engines), 1, 2, "N",
	  "copy engines, 1 or 2 (default: the profile's, else probed)" },
	{ "profile", STR, F(profile), 0, 0, "FILE", "device profile (tq-profile format)" },
	{ "metrics", STR, F(metrics), 0, 0, "FILE", "write Prometheus metrics there" },
	{ "metrics-interval", UINT, F(metrics_interval), 0, 86400, "SECONDS",
	  "how often to write them (5; 0: at exit and SIGHUP only)" },
	{ "trace", STR, F(trace), 0, 0, "FILE", "write the measured timeline (Chrome JSON)" },
	{ "state", STR, F(state), 0, 0, "FILE",
	  "keep program and kernel ids there across restarts (/run/tq/usched.state)" },
	{ "devnode", STR, F(devnode), 0, 0, "PATH", "the module's device (/dev/tqsubmit)" },
	{ "foreground", BOOL, F(foreground), 0, 0, NULL,
	  "stay in the foreground, log to stderr (-f)" },
	{ "verbose", BOOL, F(verbose), 0, 0, NULL, "log each context opened and closed (-v)" },
	{ "no-plans", BOOL, F(no_plans), 0, 0, NULL,
	  "auto orders every task group afresh, not from the best order kept for its mix" },
	{ "no-refine", BOOL, F(no_refine), 0, 0, NULL,
	  "the loop's idle time does not go on with the plans' searches" },
	{ "no-poll", BOOL, F(no_poll), 0, 0, NULL,
	  "a task completes when its OpenCL callback comes, not by polling at its predicted end" },
};

#define NSETTINGS (sizeof(settings) / sizeof(settings[0]))

void dconf_init(struct dconf *c)
{
	memset(c, 0, sizeof(*c));
	c->metrics_interval = 5;
	c->state = strdup("/run/tq/usched.state");
	c->devnode = strdup(USCHED_DEVNODE);
}

void dconf_free(struct dconf *c)
{
	for (unsigned int i = 0; i < NSETTINGS; i++)
		if (settings[i].kind == STR)
			free(*(char **)((char *)c + settings[i].off));
	free(c->platform);
	free(c->device);
	free(c->config);
	memset(c, 0, sizeof(*c));
}

/* An empty value unsets a string, so "trace =" turns a trace off. */
static void set_str(char **field, const char *val, size_t len)
{
	free(*field);
	*field = len ? strndup(val, len) : NULL;
}

int dconf_set(struct dconf *c, const char *key, const char *val, const char **why)
{
	const struct setting *s = NULL;
	unsigned long v;
	char *end;

	for (unsigned int i = 0; i < NSETTINGS; i++)
		if (!strcmp(settings[i].key, key))
			s = &settings[i];
	if (!s) {
		*why = "unknown setting";
		return -EINVAL;
	}
	switch (s->kind) {
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
	case UINT:
		errno = 0;
		v = strtoul(val, &end, 10);
		if (errno || end == val || *end || !isdigit((unsigned char)*val) ||
		    v < s->min || v > s->max) {
			*why = "not a number in range";
			return -EINVAL;
		}
		*(unsigned int *)((char *)c + s->off) = v;
		return 0;
	}
	return -EINVAL;
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

int dconf_load(struct dconf *c, const char *path, char *err, size_t errlen)
{
	char *line = NULL, *key, *val, *eq;
	const char *why;
	unsigned int lineno = 0;
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
		eq = strchr(key, '=');
		if (!eq) {
			snprintf(err, errlen, "%s:%u: want key = value", path, lineno);
			ret = -EINVAL;
			break;
		}
		*eq = 0;
		val = trim(eq + 1);
		key = trim(key);
		ret = dconf_set(c, key, val, &why);
		if (ret) {
			snprintf(err, errlen, "%s:%u: %s: %s", path, lineno, key, why);
			break;
		}
	}
	free(line);
	fclose(f);
	return ret;
}

static void usage(FILE *f, const char *prog)
{
	fprintf(f, "usage: %s [--config FILE] [options]\n\n"
		"The tq scheduling service: runs the GPU tasks processes submit through\n"
		"%s on one OpenCL device, in the order a policy chooses.\n\n"
		"  --config FILE                settings file (%s); flags override it\n",
		prog, USCHED_DEVNODE, USCHED_CONFIG);
	for (unsigned int i = 0; i < NSETTINGS; i++) {
		char opt[48];

		snprintf(opt, sizeof(opt), "--%s%s%s", settings[i].key, settings[i].arg ? " " : "",
			 settings[i].arg ? settings[i].arg : "");
		fprintf(f, "  %-28s %s\n", opt, settings[i].help);
	}
	fprintf(f, "  --help                       this text\n\nSee usched(8).\n");
}

int dconf_args(struct dconf *c, int argc, char **argv)
{
	struct option opts[NSETTINGS + 3];
	const char *config = NULL, *why;
	char err[512];
	int i, o, ret;

	for (i = 0; i < (int)NSETTINGS; i++)
		opts[i] = (struct option){ settings[i].key,
			settings[i].kind == BOOL ? no_argument : required_argument, NULL, 256 + i };
	opts[i++] = (struct option){ "config", required_argument, NULL, 'c' };
	opts[i++] = (struct option){ "help", no_argument, NULL, 'h' };
	opts[i] = (struct option){ 0 };

	/* First pass: only --config and --help, and check the syntax. */
	opterr = 1;
	optind = 0;	/* 0: glibc starts afresh; dconf_args() runs again on SIGHUP */
	while ((o = getopt_long(argc, argv, "c:hfv", opts, NULL)) != -1) {
		if (o == 'c')
			config = optarg;
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
	}
	return 0;
}
