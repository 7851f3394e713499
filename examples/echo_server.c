/*
 * echo_server — a server against the installed libddp: echoes every
 * untagged DDP message back on its stream, QN and RsvdULP, over MPA/TCP and
 * over SCTP at once, on one event_base. The echo ULP (ddp_conn_callbacks)
 * is the same code for both LLPs; only the setup call differs
 * (ddp_mpa_listen_on / ddp_sctp_listen_on).
 *
 *   cc -o echo_server echo_server.c $(pkg-config --cflags --libs libddp-mpa libddp-sctp)
 *   ./echo_server 127.0.0.1 5000 9899 &      # MPA on TCP 5000, SCTP on UDP 9899
 *   (HOST: an IPv4 or IPv6 address or a name)
 *   ./echo_client 127.0.0.1 5000 hello
 *   ./echo_client --sctp 127.0.0.1 9899 hello
 *
 * Per-connection state hangs off the session's user-data slot (no lookup);
 * a send refused with DDP_ERR_LIMIT (the send queue is full) waits for the
 * writable callback. SIGINT / SIGTERM stop it; exit status 0, 2 on bad usage.
 */
#define _POSIX_C_SOURCE 200809L /* signal(), struct timeval under -std=c11 */

#include <ddp/ddp.h>
#include <ddp/mpa.h>
#include <ddp/sctp.h>
#include <event2/event.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NQUEUES 3  /* untagged queues 0..2 (the core's default) */
#define DEPTH   8  /* buffers posted per (stream, queue) */
#define BUFSZ   65536

/* One posted buffer: it carries a message in, then the echo out. */
struct buf {
	uint32_t stream, qn;
	uint64_t rsvdulp;
	uint32_t len;
	struct buf *next; /* waiting for the writable callback */
	char data[BUFSZ];
};

struct conn {
	struct conn *next, *prev; /* every open connection (for shutdown) */
	ddp_session *s;
	uint32_t nstreams;
	struct buf *bufs;    /* nstreams * NQUEUES * DEPTH */
	struct buf *waiting; /* echoes refused with DDP_ERR_LIMIT */
};

static struct event_base *base;
static struct conn *conns;
static int stopping;

static int post(ddp_session *s, struct buf *b)
{
	return ddp_post_recv(s, b->stream, b->qn, b->data, sizeof(b->data), b);
}

/* A new session, or a stream that opened: post its buffers. */
static struct conn *conn_new(ddp_session *s)
{
	struct conn *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->nstreams = ddp_session_nstreams(s);
	c->bufs = calloc((size_t)c->nstreams * NQUEUES * DEPTH, sizeof(*c->bufs));
	if (!c->bufs) {
		free(c);
		return NULL;
	}
	for (uint32_t i = 0; i < c->nstreams * NQUEUES * DEPTH; i++) {
		c->bufs[i].stream = i / (NQUEUES * DEPTH);
		c->bufs[i].qn = i / DEPTH % NQUEUES;
	}
	c->s = s;
	c->next = conns;
	if (conns)
		conns->prev = c;
	conns = c;
	ddp_session_set_user_data(s, c);
	return c;
}

static int stream_start(ddp_session *s, uint32_t stream)
{
	struct conn *c = ddp_session_user_data(s);
	for (uint32_t i = 0; i < NQUEUES * DEPTH; i++) {
		int rc = post(s, &c->bufs[stream * NQUEUES * DEPTH + i]);
		if (rc != 0)
			return rc;
	}
	return 0;
}

static void conn_free(ddp_session *s)
{
	struct conn *c = ddp_session_user_data(s);
	if (!c)
		return;
	ddp_session_set_user_data(s, NULL);
	if (c->prev)
		c->prev->next = c->next;
	else
		conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	free(c->bufs);
	free(c);
	if (!conns && stopping)
		event_base_loopbreak(base); /* the last one ended */
}

/* ------------------------------------------------ the echo ULP (any LLP) */

static int echo(ddp_session *s, struct buf *b)
{
	struct iovec v = {b->data, b->len};
	return ddp_send_untagged(s, b->stream, b->qn, b->rsvdulp, &v, 1, b);
}

static void on_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	(void)user;
	struct conn *c = ddp_session_user_data(s);
	struct buf *b = d->buf_ctx;
	if (!c || !b || d->status != 0 || d->tagged)
		return; /* flushed at teardown */
	b->rsvdulp = d->rsvdulp;
	b->len = d->len;
	int rc = echo(s, b);
	if (rc == DDP_ERR_LIMIT) { /* queue full: the writable callback follows */
		b->next = c->waiting;
		c->waiting = b;
	} else if (rc != 0) {
		fprintf(stderr, "echo_server: send: %s\n", ddp_strerror(rc));
	}
}

static void on_send_done(ddp_session *s, uint32_t stream, void *ctx, int status, void *user)
{
	(void)stream, (void)user;
	if (ddp_session_user_data(s) && status == 0)
		post(s, ctx); /* the buffer takes the next message */
}

static void on_writable(ddp_session *s, uint32_t stream, void *user)
{
	(void)stream, (void)user;
	struct conn *c = ddp_session_user_data(s);
	while (c && c->waiting) {
		struct buf *b = c->waiting;
		if (echo(s, b) == DDP_ERR_LIMIT)
			return; /* armed again */
		c->waiting = b->next;
	}
}

static void on_error(ddp_session *s, const ddp_error_info *e, void *user)
{
	(void)user;
	fprintf(stderr, "echo_server: stream %u: %s (%u/%u/0x%02x)\n", e->stream,
	        ddp_error_str(e->layer, e->etype, e->code), e->layer, e->etype, e->code);
	ddp_stream_close(s, e->stream); /* in order: FIN / SHUTDOWN */
}

static void on_stream_event(ddp_session *s, uint32_t stream, enum ddp_stream_event ev,
                            int status, void *user)
{
	(void)status, (void)user;
	if (ev == DDP_EV_HALF_CLOSED)
		ddp_stream_close(s, stream); /* the peer is done: so are we */
}


/* ------------------------------------------------- connection events */

/* A connection is up: its state hangs off the session. */
static void up(ddp_session *s, void *user)
{
	char peer[64];
	(void)user;
	if (!conn_new(s)) {
		ddp_session_close(s, 1);
		return;
	}
	ddp_session_addr(s, 1, peer, sizeof(peer));
	printf("echo_server: connection from %s\n", peer);
	fflush(stdout);
}

/* A stream opened: post its buffers before the peer's first message. */
static void stream_open(ddp_session *s, uint32_t stream, void *user)
{
	(void)user;
	if (!ddp_session_user_data(s) || stream_start(s, stream) != 0)
		ddp_session_close(s, 1);
}

static void down(ddp_session *s, int status, void *user)
{
	(void)user;
	if (status != 0)
		fprintf(stderr, "echo_server: connection ended: %s\n", ddp_strerror(status));
	if (s)
		conn_free(s);
}

static const ddp_conn_callbacks echo_ulp = {
	.ddp = {.deliver = on_deliver,
	        .send_done = on_send_done,
	        .writable = on_writable,
	        .error = on_error,
	        .stream_event = on_stream_event},
	.up = up,
	.stream_open = stream_open,
	.down = down,
};

/* ---------------------------------------------------------------- main */

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	(void)sig, (void)what, (void)arg;
	event_base_loopbreak(base);
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: echo_server HOST MPA-TCP-PORT SCTP-UDP-PORT\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	base = event_base_new();
	ddp_ctx *ctx;
	ddp_listener *mpa = NULL, *sctp = NULL;
	int rc = ddp_ctx_new(NULL, &ctx);
	/* the same ULP on both LLPs: only the setup call differs */
	if (rc == 0)
		rc = ddp_mpa_listen_on(base, ctx, argv[1], atoi(argv[2]), NULL, &echo_ulp, NULL, &mpa);
	if (rc == 0)
		rc = ddp_sctp_listen_on(base, ctx, argv[1], atoi(argv[3]), NULL, &echo_ulp, NULL, &sctp);
	if (rc != 0) {
		fprintf(stderr, "echo_server: %s\n", ddp_strerror(rc));
		return 1;
	}
	printf("echo_server: MPA on %s:%d, SCTP on %s:%d\n", argv[1], ddp_listener_port(mpa),
	       argv[1], ddp_listener_port(sctp));
	fflush(stdout);
	struct event *sint = evsignal_new(base, SIGINT, on_signal, NULL);
	struct event *sterm = evsignal_new(base, SIGTERM, on_signal, NULL);
	event_add(sint, NULL);
	event_add(sterm, NULL);
	event_base_dispatch(base);
	event_free(sint);
	event_free(sterm);
	/* orderly shutdown: every open connection ends in order (FIN /
	 * SHUTDOWN; at most 2 s), then the listeners (an SCTP listener's
	 * endpoint carries its associations), then the deferred frees */
	stopping = 1;
	for (struct conn *c = conns, *n; c; c = n) {
		n = c->next;
		ddp_session_close(c->s, 0);
	}
	if (conns) {
		struct timeval limit = {2, 0};
		event_base_loopexit(base, &limit);
		event_base_dispatch(base);
	}
	ddp_listener_free(mpa);
	ddp_listener_free(sctp);
	/* frees what the adapters left for the loop too: no extra pass */
	rc = ddp_ctx_free(ctx);
	if (rc != 0)
		fprintf(stderr, "echo_server: ddp_ctx_free: %s\n", ddp_strerror(rc));
	event_base_free(base);
	return rc == 0 ? 0 : 1;
}
