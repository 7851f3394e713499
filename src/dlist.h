/* Intrusive doubly linked lists: an element has `next` and `prev`, the
 * list is a pointer to its first element. One shape for every list of the
 * core and the adapters (sessions of a context, sessions holding reorder
 * memory, associations of an endpoint). */
#ifndef DDP_DLIST_H
#define DDP_DLIST_H

#include <stddef.h>

/* Put e first in the list *headp. */
#define DLIST_PUSH(headp, e)                                                                       \
	do {                                                                                       \
		(e)->prev = NULL;                                                                  \
		(e)->next = *(headp);                                                              \
		if (*(headp))                                                                      \
			(*(headp))->prev = (e);                                                    \
		*(headp) = (e);                                                                    \
	} while (0)

/* Take e out of the list *headp (e must be in it, or alone). */
#define DLIST_UNLINK(headp, e)                                                                     \
	do {                                                                                       \
		if ((e)->prev)                                                                     \
			(e)->prev->next = (e)->next;                                               \
		else if (*(headp) == (e))                                                          \
			*(headp) = (e)->next;                                                      \
		if ((e)->next)                                                                     \
			(e)->next->prev = (e)->prev;                                               \
		(e)->next = (e)->prev = NULL;                                                      \
	} while (0)

/* Lists with a head and a tail and named links (prev, next), for queues
 * kept in order (oldest first): append at the tail, unlink anywhere. */
#define DLIST_APPEND_T(head, tail, e, prev, next)                                                  \
	do {                                                                                       \
		(e)->prev = (tail);                                                                \
		(e)->next = NULL;                                                                  \
		if (tail)                                                                          \
			(tail)->next = (e);                                                        \
		else                                                                               \
			(head) = (e);                                                              \
		(tail) = (e);                                                                      \
	} while (0)

#define DLIST_UNLINK_T(head, tail, e, prev, next)                                                  \
	do {                                                                                       \
		if ((e)->prev)                                                                     \
			(e)->prev->next = (e)->next;                                               \
		else                                                                               \
			(head) = (e)->next;                                                        \
		if ((e)->next)                                                                     \
			(e)->next->prev = (e)->prev;                                               \
		else                                                                               \
			(tail) = (e)->prev;                                                        \
		(e)->prev = (e)->next = NULL;                                                      \
	} while (0)

#endif
