/*
 * xthread.c — messages between workers. A worker whose publisher's message
 * has subscribers on other workers (their interest bits) takes one
 * reference on its buffer per such worker and hands each an xmsg that
 * points into that same buffer (no copy). The other worker fans it out to
 * its own subscribers; when the last of its sends let go, the xmsg goes
 * back to the first worker's inbox, which drops the reference there (the
 * buffer's count is only ever touched by its own worker).
 *
 * An inbox is a mutex-protected list and an eventfd the worker's event_base
 * watches; a push onto an empty list writes the eventfd. Only the xmsg and
 * the inbox are shared; ddp objects never leave their thread.
 */
#include "relay.h"

#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

enum { X_FORWARD, X_RELEASE };

struct xmsg {
	struct msg m;	    /* the message on the receiving worker */
	struct xmsg *next;
	int kind;
	struct rbuf *origin; /* the buffer, on its own worker */
	struct worker *from;
};

static void push(struct worker *to, struct xmsg *x)
{
	x->next = NULL;
	pthread_mutex_lock(&to->lock);
	int was_empty = to->head == NULL;
	if (to->tail)
		to->tail->next = x;
	else
		to->head = x;
	to->tail = x;
	pthread_mutex_unlock(&to->lock);
	if (was_empty)
		xq_wake(to);
}

void xq_wake(struct worker *w)
{
	uint64_t one = 1;
	if (write(w->efd, &one, sizeof(one)) < 0)
		perror("relay: eventfd");
}

/* The last subscriber on this worker let go: back to the buffer's worker. */
static void xmsg_done(struct msg *m)
{
	struct xmsg *x = (struct xmsg *)m;
	x->kind = X_RELEASE;
	push(x->from, x);
}

void xforward(struct worker *w, struct rbuf *b)
{
	uint64_t bits = atomic_load(&w->r->interest[b->m.topic]) & ~((uint64_t)1 << w->id);
	for (int i = 0; bits; i++, bits >>= 1) {
		if (!(bits & 1))
			continue;
		struct xmsg *x = malloc(sizeof(*x));
		if (!x) {
			fprintf(stderr, "relay: out of memory: worker %d misses a message\n", i);
			continue;
		}
		x->m = (struct msg){b->m.data, b->m.len, b->m.topic, 0, xmsg_done};
		x->kind = X_FORWARD;
		x->origin = b;
		x->from = w;
		msg_get(&b->m);
		push(&w->r->w[i], x);
	}
}

static void on_wake(evutil_socket_t fd, short what, void *arg)
{
	struct worker *w = arg;
	uint64_t n;
	(void)what;
	if (read(fd, &n, sizeof(n)) < 0)
		return;
	if (atomic_load(&w->stop)) {
		event_base_loopbreak(w->base);
		return;
	}
	pthread_mutex_lock(&w->lock);
	struct xmsg *x = w->head;
	w->head = w->tail = NULL;
	pthread_mutex_unlock(&w->lock);
	while (x) {
		struct xmsg *next = x->next;
		if (x->kind == X_FORWARD) {
			x->m.refs = 1; /* held while it fans out */
			topic_publish(w, &x->m);
			msg_put(&x->m); /* may push it straight back */
		} else {
			msg_put(&x->origin->m);
			free(x);
		}
		x = next;
	}
}

int xq_init(struct worker *w)
{
	pthread_mutex_init(&w->lock, NULL);
	w->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (w->efd < 0)
		return -1;
	w->wake = event_new(w->base, w->efd, EV_READ | EV_PERSIST, on_wake, w);
	return w->wake && event_add(w->wake, NULL) == 0 ? 0 : -1;
}

void xq_fini(struct worker *w)
{
	if (w->wake)
		event_free(w->wake);
	if (w->efd >= 0)
		close(w->efd);
	pthread_mutex_destroy(&w->lock);
}
