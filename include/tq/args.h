/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * args.h - the values of tq's tools' options, checked: numbers through
 * num.h's parsers, lists through the names they may hold. Each says which
 * value it refused, and how, on stderr; the tool then exits 2.
 */
#ifndef TQ_ARGS_H
#define TQ_ARGS_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "tq/num.h"

/* @s of option --@opt as an unsigned number up to @max; false, said, if not. */
static inline bool tq_arg_uint(const char *prog, const char *opt, const char *s, uint64_t max,
			       unsigned int *v)
{
	uint64_t u;

	if (tq_parse_u64(s, false, &u) || u > max) {
		fprintf(stderr, "%s: --%s: '%s' is not a number from 0 to %llu\n", prog, opt, s,
			(unsigned long long)max);
		return false;
	}
	*v = (unsigned int)u;
	return true;
}

/* A size in bytes, with K, M, G or T (powers of 1024). */
static inline bool tq_arg_size(const char *prog, const char *opt, const char *s, uint64_t *v)
{
	if (tq_parse_u64(s, true, v)) {
		fprintf(stderr, "%s: --%s: '%s' is not a size (bytes, or with K, M, G or T)\n",
			prog, opt, s);
		return false;
	}
	return true;
}

/* A finite number, not negative. */
static inline bool tq_arg_double(const char *prog, const char *opt, const char *s, double *v)
{
	if (tq_parse_double(s, v) || *v < 0) {
		fprintf(stderr, "%s: --%s: '%s' is not a number >= 0\n", prog, opt, s);
		return false;
	}
	return true;
}

/*
 * Every name of the comma-separated @list among @names[0..@n); false, the
 * first other one (an empty one too) said with the names it may be, if not.
 */
static inline bool tq_arg_list(const char *prog, const char *opt, const char *list,
			       const char *const *names, size_t n)
{
	for (const char *p = list;; p++) {
		size_t len = strcspn(p, ","), i = 0;

		while (i < n && (strlen(names[i]) != len || strncmp(p, names[i], len)))
			i++;
		if (i == n) {
			fprintf(stderr, "%s: --%s: unknown '%.*s' (one of", prog, opt, (int)len, p);
			for (i = 0; i < n; i++)
				fprintf(stderr, "%s%s", i ? ", " : " ", names[i]);
			fprintf(stderr, ")\n");
			return false;
		}
		p += len;
		if (!*p)
			break;
	}
	return true;
}

#endif /* TQ_ARGS_H */
