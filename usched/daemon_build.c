// SPDX-License-Identifier: GPL-2.0
/*
 * daemon_build.c - program builds on a thread of their own. An OpenCL build
 * takes from milliseconds (a cached binary) to many seconds (PoCL compiling
 * under emulation); on the event loop's thread it would hold back every
 * other client's completions for that long. The loop queues a struct dbuild,
 * this thread calls the core (whose functions may be called from any thread)
 * and hands the result back through an eventfd the loop reads.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "daemon.h"

static void build_one(struct daemon *d, struct dbuild *b)
{
	b->start_ns = mono_ns();
	if (b->builtin)
		b->status = usched_prog_builtin(d->u, b->text, &b->core);
	else
		b->status = usched_prog_add(d->u, b->text, strlen(b->text), b->opts, &b->core,
					    &b->log);
	b->end_ns = mono_ns();
}

static void *builder(void *arg)
{
	struct daemon *d = arg;
	struct dbuild *b;

	pthread_mutex_lock(&d->blk);
	for (;;) {
		while (!d->bq && !d->bstop)
			pthread_cond_wait(&d->bcond, &d->blk);
		if (!d->bq)
			break;
		b = d->bq;
		d->bq = b->next;
		pthread_mutex_unlock(&d->blk);

		build_one(d, b);

		pthread_mutex_lock(&d->blk);
		b->next = d->bdone;	/* newest first; order does not matter */
		d->bdone = b;
		eventfd_write(d->build_efd, 1);
	}
	pthread_mutex_unlock(&d->blk);
	return NULL;
}

int build_start(struct daemon *d)
{
	int ret;

	d->build_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (d->build_efd < 0)
		return -errno;
	pthread_mutex_init(&d->blk, NULL);
	pthread_cond_init(&d->bcond, NULL);
	ret = -pthread_create(&d->builder, NULL, builder, d);
	if (ret)
		return ret;
	d->builder_started = true;
	return 0;
}

/* Lets a build in progress finish; what is still queued is dropped. */
void build_stop(struct daemon *d)
{
	struct dbuild *b;

	if (!d->builder_started)
		return;
	pthread_mutex_lock(&d->blk);
	d->bstop = true;
	while ((b = d->bq)) {
		d->bq = b->next;
		build_free(b);
	}
	pthread_cond_signal(&d->bcond);
	pthread_mutex_unlock(&d->blk);
	pthread_join(d->builder, NULL);
	while ((b = build_take_done(d)))
		build_free(b);
	d->builder_started = false;
	close(d->build_efd);
}

void build_queue(struct daemon *d, struct dbuild *b)
{
	struct dbuild **p;

	b->next = NULL;
	pthread_mutex_lock(&d->blk);
	for (p = &d->bq; *p; p = &(*p)->next)
		;
	*p = b;
	pthread_cond_signal(&d->bcond);
	pthread_mutex_unlock(&d->blk);
}

struct dbuild *build_take_done(struct daemon *d)
{
	struct dbuild *b;

	pthread_mutex_lock(&d->blk);
	b = d->bdone;
	if (b)
		d->bdone = b->next;
	pthread_mutex_unlock(&d->blk);
	return b;
}

void build_free(struct dbuild *b)
{
	free(b->text);
	free(b->opts);
	free(b->log);
	free(b);
}
