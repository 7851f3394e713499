/* The echo ULP (see echo.h). */
#include "echo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ebuf {
	struct echo_conn *c;
	uint32_t stream, qn;
	uint8_t *data;
	int posted;   /* posted on the stream (not delivered, not flushed) */
	int echoing;  /* its echo is being sent (back to the pool on send_done) */
};

struct echo_conn {
	ddp_session *s;
	char label[64];
	struct echo_stats *st;
	size_t buf_size;
	unsigned depth, nqueues;
	uint32_t nstreams;
	struct ebuf **bufs; /* per stream: nqueues * depth, NULL until started */
};

/* Receive buffers of every session (a peer opens streams at will: each
 * SCTP Initiate or MPA connection asks for one stream's worth). */
static uint64_t mem_used, mem_cap;

void echo_set_memory_cap(uint64_t bytes)
{
	mem_cap = bytes;
}

uint64_t echo_memory_cap(void)
{
	return mem_cap;
}

uint64_t echo_memory_used(void)
{
	return mem_used;
}

uint64_t echo_stream_bytes(const struct echo_conn *c)
{
	return (uint64_t)c->nqueues * c->depth * c->buf_size;
}

/* The session's user-data slot names its echo_conn: no lookup. NULL once
 * echo_conn_free() ran (the session is being torn down). */
struct echo_conn *echo_find(const ddp_session *s)
{
	return ddp_session_user_data(s);
}

const char *echo_label(const ddp_session *s)
{
	struct echo_conn *c = echo_find(s);
	return c ? c->label : "?";
}

static void repost(struct ebuf *b)
{
	/* fails only when the stream is gone; the buffer then waits in the
	 * pool until the stream is re-initiated (echo_stream_start) or
	 * echo_conn_free() */
	b->posted = ddp_post_recv(b->c->s, b->stream, b->qn, b->data, b->c->buf_size, b) == 0;
}

static void on_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	struct echo_stats *st = user;
	struct ebuf *b = d->buf_ctx;
	if (d->tagged || !b || !echo_find(s)) /* !find: session being torn down */
		return;
	b->posted = 0;
	if (d->status) { /* flushed by a stream reset: keep it posted */
		repost(b);
		return;
	}
	st->msgs++;
	st->bytes += d->len;
	struct iovec v = { b->data, d->len };
	/* same stream, same QN, same RsvdULP; our own MSN sequence */
	b->echoing = 1;
	if (ddp_send_untagged(s, d->stream, d->qn, d->rsvdulp, &v, 1, b) != 0) {
		b->echoing = 0;
		repost(b);
	}
}

static void on_send_done(ddp_session *s, uint32_t stream, void *ctx, int status, void *user)
{
	struct ebuf *b = ctx;
	if (b && echo_find(s)) {
		b->echoing = 0;
		repost(b);
	}
}

static void on_error(ddp_session *s, const ddp_error_info *e, void *user)
{
	((struct echo_stats *)user)->errors++;
	fprintf(stderr, "ddp-echo: %s stream %u: error layer %u type 0x%x code 0x%02x\n",
		echo_label(s), e->stream, e->layer, e->etype, e->code);
	/* RFC 5041 §7.2: the stream is stopped; end it. */
	ddp_stream_abort(s, e->stream);
}

/* RFC 5041 §6: the peer closed its half; echoes already queued go out
 * first, then our half is closed too (DDP tells the LLP). */
static void on_stream_event(ddp_session *s, uint32_t stream, enum ddp_stream_event ev, int status,
			    void *user)
{
	if (ev == DDP_EV_HALF_CLOSED)
		ddp_stream_close(s, stream);
}

const ddp_callbacks echo_callbacks = {
	.deliver = on_deliver,
	.send_done = on_send_done,
	.error = on_error,
	.stream_event = on_stream_event,
};

struct echo_conn *echo_conn_new(ddp_session *s, const char *label, struct echo_stats *st,
				size_t buf_size, unsigned depth)
{
	struct echo_conn *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->s = s;
	snprintf(c->label, sizeof(c->label), "%s", label);
	c->st = st;
	c->buf_size = buf_size;
	c->depth = depth;
	c->nqueues = 3; /* RDMAP's QNs 0..2 (the core's default nqueues) */
	c->nstreams = ddp_session_nstreams(s);
	c->bufs = calloc(c->nstreams, sizeof(*c->bufs));
	if (!c->bufs) {
		free(c);
		return NULL;
	}
	ddp_session_set_user_data(s, c);
	st->sessions++;
	st->active++;
	return c;
}

int echo_stream_start(struct echo_conn *c, uint32_t stream)
{
	if (stream >= c->nstreams)
		return DDP_ERR_INVAL;
	if (c->bufs[stream]) {
		/* a re-initiated stream (after a Terminate or a close): its new
		 * DDP stream session starts with no buffers posted (the old
		 * ones were flushed); post every buffer that is back in the
		 * pool, the ones still echoing follow on send_done */
		for (unsigned i = 0; i < c->nqueues * c->depth; i++) {
			struct ebuf *b = &c->bufs[stream][i];
			if (b->posted || b->echoing)
				continue;
			int rc = ddp_post_recv(c->s, stream, b->qn, b->data, c->buf_size, b);
			if (rc)
				return rc;
			b->posted = 1;
		}
		return 0;
	}
	uint64_t need = echo_stream_bytes(c);
	if (mem_cap && (mem_used > mem_cap || need > mem_cap - mem_used))
		return DDP_ERR_LIMIT;
	unsigned n = c->nqueues * c->depth;
	struct ebuf *b = calloc(n, sizeof(*b));
	if (!b)
		return DDP_ERR_NOMEM;
	c->bufs[stream] = b;
	mem_used += need; /* given back whole by echo_conn_free */
	for (unsigned i = 0; i < n; i++) {
		b[i].c = c;
		b[i].stream = stream;
		b[i].qn = i / c->depth;
		b[i].data = calloc(1, c->buf_size); /* no earlier session's octets */
		if (!b[i].data)
			return DDP_ERR_NOMEM;
		int rc = ddp_post_recv(c->s, stream, b[i].qn, b[i].data, c->buf_size, &b[i]);
		if (rc)
			return rc;
		b[i].posted = 1;
	}
	return 0;
}

void echo_conn_free(struct echo_conn *c)
{
	if (!c)
		return;
	ddp_session_set_user_data(c->s, NULL);
	for (uint32_t i = 0; i < c->nstreams; i++) {
		if (!c->bufs[i])
			continue;
		for (unsigned k = 0; k < c->nqueues * c->depth; k++)
			free(c->bufs[i][k].data);
		free(c->bufs[i]);
		mem_used -= echo_stream_bytes(c);
	}
	c->st->active--;
	free(c->bufs);
	free(c);
}
