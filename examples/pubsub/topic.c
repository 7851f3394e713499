/*
 * topic.c — subscriptions and fan-out on one worker. A message goes to each
 * subscriber with ddp_send_untagged() pointing at the same buffer; each
 * send holds one reference, dropped at its send_done. A send refused with
 * DDP_ERR_LIMIT (the subscriber's send queue is full) waits in that
 * subscriber's backlog, still holding its reference, so the publisher's
 * buffer is not reposted and the publisher gets no credit for it: a slow
 * subscriber slows the publishers of its topics, and the backlog can never
 * hold more entries than the relay has buffers.
 */
#include "relay.h"

#include <stdio.h>
#include <stdlib.h>

void outq_init(struct outq *q)
{
	q->head.next = q->head.prev = &q->head;
	q->n = 0;
}

static void outq_unlink(struct outq *q, struct out *o)
{
	o->prev->next = o->next;
	o->next->prev = o->prev;
	q->n--;
}

static void outq_insert_after(struct outq *q, struct out *at, struct out *o)
{
	o->prev = at;
	o->next = at->next;
	at->next->prev = o;
	at->next = o;
	q->n++;
}

static void outq_push_tail(struct outq *q, struct out *o) { outq_insert_after(q, q->head.prev, o); }

/* Hand o to DDP. 0: taken (o may be gone already: with SCTP send_done can
 * run inside the call); DDP_ERR_LIMIT: o is back at the backlog's head;
 * another error: o was released. */
static int try_send(struct conn *c, struct out *o)
{
	struct iovec v = {(void *)o->m->data, o->m->len};
	outq_push_tail(&c->inflight, o);
	int rc = ddp_send_untagged(c->s, o->stream, PS_QN, ps_rsvdulp(PS_DATA, 0), &v, 1, o);
	if (rc == 0)
		return 0;
	outq_unlink(&c->inflight, o);
	if (rc == DDP_ERR_LIMIT) {
		outq_insert_after(&c->backlog, &c->backlog.head, o);
		return rc;
	}
	msg_put(o->m); /* closing: the message is not for this subscriber any more */
	free(o);
	return rc;
}

static void sub_send(struct conn *c, struct msg *m)
{
	struct out *o = malloc(sizeof(*o));
	if (!o) {
		fprintf(stderr, "relay: out of memory: %s misses a message\n", c->peer);
		return;
	}
	msg_get(m);
	o->m = m;
	o->stream = m->topic % c->nstreams; /* one topic, one stream: in order */
	if (c->inflight.n + c->backlog.n == 0)
		c->progress_ms = now_ms();
	if (c->backlog.n > 0) { /* behind older messages */
		outq_push_tail(&c->backlog, o);
		return;
	}
	try_send(c, o);
}

/* The writable callback: the oldest waiting messages go first. */
void sub_flush(struct conn *c)
{
	while (c->s && c->backlog.n > 0) {
		struct out *o = c->backlog.head.next;
		outq_unlink(&c->backlog, o);
		if (try_send(c, o) == DDP_ERR_LIMIT)
			return; /* writable is armed again */
	}
}

void sub_send_done(struct conn *c, struct out *o, int status)
{
	outq_unlink(&c->inflight, o);
	if (status == 0) {
		c->progress_ms = now_ms();
		c->msgs_out++;
		c->w->msgs_out++;
	}
	msg_put(o->m);
	free(o);
}

/* The subscriber is gone: every message still waiting for it lets go. */
void sub_release_all(struct conn *c)
{
	struct outq *qs[2] = {&c->inflight, &c->backlog};
	for (int i = 0; i < 2; i++) {
		while (qs[i]->n > 0) {
			struct out *o = qs[i]->head.next;
			outq_unlink(qs[i], o);
			msg_put(o->m);
			free(o);
		}
	}
}

int topic_subscribe(struct worker *w, struct conn *c, uint32_t topic)
{
	struct sublist *l = &w->topics[topic];
	for (uint32_t i = 0; i < l->n; i++)
		if (l->v[i] == c)
			return 0; /* named twice */
	if (l->n == l->cap) {
		uint32_t cap = l->cap ? 2 * l->cap : 4;
		struct conn **v = realloc(l->v, cap * sizeof(*v));
		if (!v)
			return -1;
		l->v = v, l->cap = cap;
	}
	l->v[l->n++] = c;
	if (l->n == 1) /* publishers on other workers forward it here from now on */
		atomic_fetch_or(&w->r->interest[topic], (uint64_t)1 << w->id);
	return 0;
}

void topic_unsubscribe_all(struct worker *w, struct conn *c)
{
	for (uint32_t k = 0; k < c->ntopics; k++) {
		struct sublist *l = &w->topics[c->topics[k]];
		for (uint32_t i = 0; i < l->n; i++) {
			if (l->v[i] != c)
				continue;
			l->v[i] = l->v[--l->n];
			if (l->n == 0)
				atomic_fetch_and(&w->r->interest[c->topics[k]], ~((uint64_t)1 << w->id));
			break;
		}
	}
	c->ntopics = 0;
}

void topic_publish(struct worker *w, struct msg *m)
{
	struct sublist *l = &w->topics[m->topic];
	for (uint32_t i = 0; i < l->n; i++)
		if (l->v[i]->s && !l->v[i]->dropping)
			sub_send(l->v[i], m);
}
