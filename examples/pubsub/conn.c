/*
 * conn.c — one client connection of the relay, the same code for MPA and
 * SCTP (ddp_conn_callbacks). Every stream gets PS_CREDITS buffers at
 * stream_open; a DATA message is fanned out from its buffer (topic.c) and
 * to other workers (xthread.c), and the buffer is reposted, and credited
 * to its sender, when the last reference to it is dropped.
 */
#include "relay.h"

#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CREDIT_BATCH (PS_CREDITS / 4) /* credits sent back in one message */

static void conn_destroy(struct conn *c)
{
	for (uint32_t i = 0; i < c->nstreams; i++)
		free(c->bufs[i]);
	free(c->bufs);
	free(c->credit);
	free(c->topics);
	free(c);
}

/* held counts the connection's buffers out at subscribers and the
 * callbacks running on it; the memory goes with the last one after down. */
static void conn_put(struct conn *c)
{
	if (--c->held == 0 && !c->s)
		conn_destroy(c);
}

static void credit_flush(struct conn *c, uint32_t stream)
{
	if (!c->s || c->credit[stream] == 0)
		return;
	int rc = ddp_send_untagged(c->s, stream, PS_QN, ps_rsvdulp(PS_CREDIT, c->credit[stream]),
	                           NULL, 0, NULL);
	if (rc == 0)
		c->credit[stream] = 0;
	/* DDP_ERR_LIMIT: the writable callback sends them */
}

static void repost(struct conn *c, struct rbuf *b)
{
	if (ddp_post_recv(c->s, b->stream, PS_QN, b->data, sizeof(b->data), b) != 0)
		return; /* closing */
	if (++c->credit[b->stream] >= CREDIT_BATCH)
		credit_flush(c, b->stream);
}

/* The last reference to a received message is gone: the buffer takes the
 * next one, or, when its connection is down already, may go. */
static void rbuf_release(struct msg *m)
{
	struct rbuf *b = (struct rbuf *)m;
	if (b->owner->s)
		repost(b->owner, b);
	conn_put(b->owner);
}

static void protocol_error(struct conn *c, const char *why)
{
	fprintf(stderr, "relay: worker %d: %s: %s\n", c->w->id, c->peer, why);
	ddp_session_close(c->s, 1);
}

static void hello(struct conn *c, const uint8_t *p, uint32_t len)
{
	uint32_t n = len >= 8 ? ps_get32(p + 4) : 0;
	if (len < 8 || c->role || n > PS_HELLO_MAX_TOPICS || len != 8 + 4 * n ||
	    (ps_get32(p) != PS_PUB && ps_get32(p) != PS_SUB)) {
		protocol_error(c, "bad HELLO");
		return;
	}
	c->role = (int)ps_get32(p);
	if (c->role == PS_SUB) {
		c->topics = calloc(n ? n : 1, sizeof(*c->topics));
		if (!c->topics) {
			protocol_error(c, "out of memory");
			return;
		}
		for (uint32_t i = 0; i < n; i++) {
			uint32_t t = ps_get32(p + 8 + 4 * i);
			if (t >= PS_MAX_TOPICS || topic_subscribe(c->w, c, t) != 0) {
				protocol_error(c, "bad topic");
				return;
			}
			c->topics[c->ntopics++] = t;
		}
	}
	printf("relay: worker %d: %s is a %s of %u topics\n", c->w->id, c->peer,
	       c->role == PS_SUB ? "subscriber" : "publisher", n);
	fflush(stdout);
	/* in force: what is published from now on reaches it */
	if (ddp_send_untagged(c->s, 0, PS_QN, ps_rsvdulp(PS_ACK, 0), NULL, 0, NULL) != 0)
		protocol_error(c, "cannot send ACK");
}

/* ------------------------------------------------- ddp callbacks */

static void on_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	struct conn *c = ddp_session_user_data(s);
	struct rbuf *b = d->buf_ctx;
	(void)user;
	if (!c || !b || d->status != 0)
		return; /* a posted buffer given back at teardown */
	enum ps_kind kind = ps_kind_of(d->rsvdulp);
	c->held++; /* c outlives a close made below */
	if (kind == PS_HELLO && b->stream == 0) {
		hello(c, b->data, d->len);
		if (c->s)
			repost(c, b);
	} else if (kind != PS_DATA || c->role != PS_PUB || d->len < PS_HDR_LEN ||
	           ps_get32(b->data) >= PS_MAX_TOPICS) {
		protocol_error(c, "unexpected message");
	} else {
		c->msgs_in++;
		c->w->msgs_in++;
		b->m = (struct msg){b->data, d->len, ps_get32(b->data), 1, rbuf_release};
		c->held++;		    /* the buffer is out */
		topic_publish(c->w, &b->m); /* subscribers here */
		xforward(c->w, b);	    /* and on other workers */
		msg_put(&b->m);		    /* no subscriber at all: reposted now */
	}
	conn_put(c);
}

static void on_send_done(ddp_session *s, uint32_t stream, void *ctx, int status, void *user)
{
	struct conn *c = ddp_session_user_data(s);
	(void)stream, (void)user;
	if (c && ctx)
		sub_send_done(c, ctx, status);
}

static void on_writable(ddp_session *s, uint32_t stream, void *user)
{
	struct conn *c = ddp_session_user_data(s);
	(void)user;
	if (!c)
		return;
	credit_flush(c, stream);
	sub_flush(c);
}

static void on_error(ddp_session *s, const ddp_error_info *e, void *user)
{
	struct conn *c = ddp_session_user_data(s);
	(void)user;
	if (c)
		protocol_error(c, ddp_error_str(e->layer, e->etype, e->code));
}

static void on_stream_event(ddp_session *s, uint32_t stream, enum ddp_stream_event ev,
                            int status, void *user)
{
	(void)status, (void)user;
	if (ev == DDP_EV_HALF_CLOSED)
		ddp_stream_close(s, stream); /* the client is done: so are we */
}

/* ------------------------------------------------- connection events */

static void up(ddp_session *s, void *user)
{
	struct worker *w = user;
	struct conn *c = calloc(1, sizeof(*c));
	uint32_t n = ddp_session_nstreams(s);
	if (c) {
		c->bufs = calloc(n, sizeof(*c->bufs));
		c->credit = calloc(n, sizeof(*c->credit));
	}
	if (!c || !c->bufs || !c->credit) {
		if (c)
			conn_destroy(c);
		ddp_session_close(s, 1);
		return;
	}
	c->w = w;
	c->s = s;
	c->nstreams = n;
	outq_init(&c->inflight);
	outq_init(&c->backlog);
	ddp_session_addr(s, 1, c->peer, sizeof(c->peer));
	c->next = w->conns;
	if (w->conns)
		w->conns->prev = c;
	w->conns = c;
	ddp_session_set_user_data(s, c);
}

static void stream_open(ddp_session *s, uint32_t stream, void *user)
{
	struct conn *c = ddp_session_user_data(s);
	(void)user;
	if (!c || c->bufs[stream])
		return;
	c->bufs[stream] = calloc(PS_CREDITS, sizeof(struct rbuf));
	if (!c->bufs[stream]) {
		ddp_session_close(s, 1);
		return;
	}
	for (uint32_t i = 0; i < PS_CREDITS; i++) {
		struct rbuf *b = &c->bufs[stream][i];
		b->owner = c;
		b->stream = stream;
		if (ddp_post_recv(s, stream, PS_QN, b->data, sizeof(b->data), b) != 0) {
			ddp_session_close(s, 1);
			return;
		}
	}
}

static void down(ddp_session *s, int status, void *user)
{
	struct conn *c = s ? ddp_session_user_data(s) : NULL;
	struct worker *w = user;
	if (!c)
		return;
	printf("relay: worker %d: %s ended (%s): %llu messages in, %llu out\n", w->id, c->peer,
	       status ? ddp_strerror(status) : "in order", (unsigned long long)c->msgs_in,
	       (unsigned long long)c->msgs_out);
	fflush(stdout);
	ddp_session_set_user_data(s, NULL);
	c->s = NULL; /* buffers released from now on are not reposted */
	if (c->prev)
		c->prev->next = c->next;
	else
		w->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	topic_unsubscribe_all(w, c);
	c->held++; /* hold it while its own messages let go */
	sub_release_all(c);
	conn_put(c);
}

const ddp_conn_callbacks relay_ulp = {
	.ddp = {.deliver = on_deliver,
	        .send_done = on_send_done,
	        .writable = on_writable,
	        .error = on_error,
	        .stream_event = on_stream_event},
	.up = up,
	.stream_open = stream_open,
	.down = down,
};

/* A subscriber with messages outstanding and no send completed for
 * drop_ms has stopped reading: it pins publishers' buffers (and so, through
 * the credits, stops those publishers and every topic they carry), so it is
 * dropped, logged. */
void conn_check_stalled(struct worker *w)
{
	uint64_t now = now_ms();
	for (struct conn *c = w->conns, *next; c; c = next) {
		next = c->next; /* the close may end c at once */
		if (c->dropping || c->inflight.n + c->backlog.n == 0 ||
		    now - c->progress_ms < w->r->drop_ms)
			continue;
		fprintf(stderr, "relay: worker %d: dropping subscriber %s: no message taken for %llu ms, "
		                "%u in flight, %u in its backlog\n",
		        w->id, c->peer, (unsigned long long)(now - c->progress_ms), c->inflight.n,
		        c->backlog.n);
		c->dropping = 1;
		w->dropped++;
		ddp_session_close(c->s, 1);
	}
}

void conn_abort_all(struct worker *w)
{
	for (struct conn *c = w->conns, *next; c; c = next) {
		next = c->next;
		ddp_session_close(c->s, 1);
	}
}
