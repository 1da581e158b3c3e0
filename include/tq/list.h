/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * list.h - the intrusive circular doubly linked list of tq's user space
 * (usched's core, tqsubmitd): the kernel's list_head in miniature, so that
 * code mirroring the module reads like it. A deleted entry is left empty
 * (the kernel's list_del_init()), never poisoned, so deleting it again is
 * harmless.
 */
#ifndef _TQ_LIST_H
#define _TQ_LIST_H

#include <stdbool.h>
#include <stddef.h>

struct list {
	struct list *next, *prev;
};

#define LIST_INIT(name)		{ &(name), &(name) }
#define list_entry(p, type, member) ((type *)((char *)(p) - offsetof(type, member)))
#define list_first(head, type, member) list_entry((head)->next, type, member)

static inline void list_init(struct list *l)
{
	l->next = l->prev = l;
}

static inline bool list_empty(const struct list *l)
{
	return l->next == l;
}

static inline void list_add_between(struct list *n, struct list *prev, struct list *next)
{
	next->prev = n;
	n->next = next;
	n->prev = prev;
	prev->next = n;
}

static inline void list_add(struct list *n, struct list *head)
{
	list_add_between(n, head, head->next);
}

static inline void list_add_tail(struct list *n, struct list *head)
{
	list_add_between(n, head->prev, head);
}

static inline void list_del_init(struct list *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	list_init(n);
}

static inline void list_move(struct list *n, struct list *head)
{
	list_del_init(n);
	list_add(n, head);
}

static inline void list_move_tail(struct list *n, struct list *head)
{
	list_del_init(n);
	list_add_tail(n, head);
}

/* Put all of from at the front of to, in order; from ends empty. */
static inline void list_splice_init(struct list *from, struct list *to)
{
	struct list *first = from->next, *last = from->prev;

	if (list_empty(from))
		return;
	first->prev = to;
	last->next = to->next;
	to->next->prev = last;
	to->next = first;
	list_init(from);
}

/* Move every entry of from to the tail of to; from ends empty. */
static inline void list_splice_tail(struct list *from, struct list *to)
{
	if (list_empty(from))
		return;
	from->next->prev = to->prev;
	to->prev->next = from->next;
	from->prev->next = to;
	to->prev = from->prev;
	list_init(from);
}

#define list_for_each_safe(p, n, head) \
	for (p = (head)->next, n = p->next; p != (head); p = n, n = p->next)

#endif /* _TQ_LIST_H */
