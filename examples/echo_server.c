/*
 * echo_server — a server against the installed libddp: echoes every
 * untagged DDP message back on its stream, QN and RsvdULP, over MPA/TCP and
 * over SCTP at once, on one event_base. The echo ULP (deliver, send_done,
 * writable) is the same code for both LLPs; only the setup call differs.
 *
 *   cc -o echo_server echo_server.c $(pkg-config --cflags --libs libddp-mpa libddp-sctp)
 *   ./echo_server 127.0.0.1 5000 9899 &      # MPA on TCP 5000, SCTP on UDP 9899
 *   ./echo_client 127.0.0.1 5000 hello
 *   ./echo_client --sctp 127.0.0.1 9899 hello
 *
 * Per-connection state hangs off the session's user-data slot (no lookup);
 * a send refused with DDP_ERR_LIMIT (the send queue is full) waits for the
 * writable callback. SIGINT / SIGTERM stop it; exit status 0, 2 on bad usage.
 */
#define _POSIX_C_SOURCE 200809L /* inet_pton, struct sigaction under -std=c11 */

#include <ddp/ddp.h>
#include <ddp/mpa.h>
#include <ddp/sctp.h>
#include <event2/event.h>

#include <arpa/inet.h>
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
	uint32_t nstreams;
	struct buf *bufs;    /* nstreams * NQUEUES * DEPTH */
	struct buf *waiting; /* echoes refused with DDP_ERR_LIMIT */
};

static struct event_base *base;

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
	free(c->bufs);
	free(c);
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

static const ddp_callbacks echo_cb = {
	.deliver = on_deliver,
	.send_done = on_send_done,
	.writable = on_writable,
	.error = on_error,
	.stream_event = on_stream_event,
};

/* ------------------------------------------------------ MPA/TCP setup */

static void mpa_event(ddp_mpa_conn *mc, enum ddp_mpa_event ev, int err, uint8_t code, void *user)
{
	(void)err, (void)code, (void)user;
	ddp_session *s = ddp_mpa_session(mc);
	if (ev == DDP_MPA_CONNECTED) {
		if (!conn_new(s) || stream_start(s, 0) != 0)
			ddp_session_close(s, 1);
		return;
	}
	conn_free(s);
	ddp_mpa_conn_free(mc); /* allowed inside its callbacks */
}

/* -------------------------------------------------------- SCTP setup */

static void sctp_assoc(ddp_sctp_assoc *a, ddp_session *s, int status, void *user)
{
	(void)user;
	if (status == 0) {
		if (!conn_new(s))
			ddp_sctp_close(a, 1);
		return;
	}
	conn_free(s); /* the association is freed by the library */
}

static void sctp_ctl(ddp_sctp_assoc *a, uint32_t stream, enum ddp_sctp_event ev, int status,
                     const void *pd, size_t pd_len, void *user)
{
	(void)status, (void)pd, (void)pd_len, (void)user;
	if (ev != DDP_SCTP_INITIATE)
		return;
	if (stream_start(ddp_sctp_session(a), stream) == 0)
		ddp_sctp_accept(a, stream, NULL, 0);
	else
		ddp_sctp_reject(a, stream, NULL, 0);
}

/* ---------------------------------------------------------------- main */

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	(void)sig, (void)what, (void)arg;
	event_base_loopbreak(base);
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: echo_server ADDR MPA-TCP-PORT SCTP-UDP-PORT\n");
		return 2;
	}
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[2]))};
	if (inet_pton(AF_INET, argv[1], &sa.sin_addr) != 1) {
		fprintf(stderr, "echo_server: bad IPv4 address %s\n", argv[1]);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	base = event_base_new();
	ddp_ctx *ctx;
	ddp_mpa_listener *l = NULL;
	ddp_sctp_ep *ep = NULL;
	int rc = ddp_ctx_new(NULL, &ctx);
	ddp_mpa_config mcfg = {.revision = 2};
	if (rc == 0)
		rc = ddp_mpa_listen(base, ctx, (struct sockaddr *)&sa, sizeof(sa), &mcfg, &echo_cb,
		                    NULL, mpa_event, NULL, &l);
	ddp_sctp_config scfg = {.addr = argv[1], .port = atoi(argv[3]), .ctx = ctx, .ddp = echo_cb};
	scfg.sctp.assoc = sctp_assoc;
	scfg.sctp.session_ctl = sctp_ctl;
	if (rc == 0)
		rc = ddp_sctp_ep_new(base, &scfg, &ep);
	if (rc == 0)
		rc = ddp_sctp_listen(ep);
	if (rc != 0) {
		fprintf(stderr, "echo_server: %s\n", ddp_strerror(rc));
		return 1;
	}
	printf("echo_server: MPA on %s:%d, SCTP on %s:%d\n", argv[1], ddp_mpa_listener_port(l),
	       argv[1], ddp_sctp_ep_port(ep));
	fflush(stdout);
	struct event *sint = evsignal_new(base, SIGINT, on_signal, NULL);
	struct event *sterm = evsignal_new(base, SIGTERM, on_signal, NULL);
	event_add(sint, NULL);
	event_add(sterm, NULL);
	event_base_dispatch(base);
	event_free(sint);
	event_free(sterm);
	ddp_mpa_listener_free(l);
	ddp_sctp_ep_free(ep);
	/* MPA connections still open at exit are the OS's to close */
	ddp_ctx_free(ctx);
	event_base_free(base);
	return 0;
}
