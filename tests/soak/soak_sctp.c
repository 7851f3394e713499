/* ddp-soak, SCTP part: one association (usrsctp over UDP on 127.0.0.1)
 * with NST streams. The client initiates every stream (RFC 5043 §6.2); the
 * server's ULP accepts with an STag in the Accept's private data; the
 * client then sends tagged writes into that STag and untagged messages,
 * and after MSGS_PER_SESSION messages closes the stream session
 * (ddp_stream_close, session Terminate) and initiates it again (stream
 * session churn); every 10 s the association itself is closed in order and
 * a new one opened (association churn). Stream 0 is never closed by
 * itself: RFC 5041 §3 item 10 (DDP-LLP-10) tears the association down once
 * every stream is closed.
 * Every payload is checked by the server. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#if HAVE_USRSCTP
#include <ddp/sctp.h>

#include "ddp_test.h"
#endif

#include "soak.h"

#if HAVE_USRSCTP

#define NST              16
#define MAXLEN           4096
#define NBUF             4
#define MSGS_PER_SESSION 40
#define MAX_OUT          2

enum cst { C_IDLE, C_OPENING, C_OPEN, C_CLOSING };

struct end {
	ddp_sctp_ep *ep;
	ddp_sctp_assoc *a;
	ddp_session *s;
	int up;
};

static struct end srv, cli;
static ddp_ctx *ctx;
static ddp_pd *pd;
static int stopping;
static int churning;    /* the client closed the association on purpose */
static double assoc_t0; /* when the current association came up */
#define ASSOC_LIFE_S 10 /* association churn: a new one every 10 s */
#define DRAIN_S      2  /* at most, for the messages sent to complete */

/* a payload or protocol surprise, with where it was seen */
#define SCTP_BAD()                                                                                 \
	do {                                                                                       \
		SOAK_BAD();                                                                     \
		fprintf(stderr, "sctp: bad at line %d\n", __LINE__);                              \
	} while (0)

/* server side, per stream */
static uint8_t srx[NST][NBUF][MAXLEN];
static uint8_t stag_buf[NST][MAXLEN];
static uint32_t sstag[NST];
static int shave[NST];
/* client side, per stream */
static uint8_t ctx_buf[NST][MAXLEN];
static enum cst cstate[NST];
static uint32_t cstag[NST];
static int cout[NST], cmsgs[NST];
/* the ULP's credit (RFC 5041 §5.3: a buffer is posted before its message
 * may come): untagged messages the client sent and the server delivered
 * in the stream's session; the client keeps at most NBUF - 1 the server
 * has not delivered (and reposted for). SCTP's completion says nothing of
 * that: with segments lost and retransmitted, later ones arrive first and
 * name an MSN whose buffer is not posted yet. Both ends are in this
 * process, so the count is read directly. */
static long csent[NST], sdelivered[NST];

static uint8_t pat(uint32_t st, size_t i)
{
	return (uint8_t)(st * 57u + i * 11u + (i >> 8));
}

static void srv_release(uint32_t st)
{
	if (shave[st] && ddp_stag_invalidate(ctx, sstag[st]) != 0)
		SCTP_BAD();
	shave[st] = 0;
}

static void deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	if (user != &srv) {
		SCTP_BAD(); /* the server never sends */
		return;
	}
	if (d->status != 0 || d->stream >= NST)
		return;
	const uint8_t *b = d->tagged ? stag_buf[d->stream] : d->buf;
	if (d->len > MAXLEN) {
		SCTP_BAD();
		return;
	}
	for (uint32_t i = 0; i < d->len; i++)
		if (b[i] != pat(d->stream, i)) {
			SCTP_BAD();
			break;
		}
	if (d->tagged) {
		soak_st->sctp_tagged++;
		return;
	}
	soak_st->sctp_msgs++;
	sdelivered[d->stream]++;
	int rc = ddp_post_recv(s, d->stream, 0, d->buf, MAXLEN, NULL);
	if (rc != 0 && rc != DDP_ERR_CLOSED)
		SCTP_BAD();
}

static void send_done(ddp_session *s, uint32_t st, void *mctx, int status, void *user)
{
	if (user == &cli && st < NST)
		cout[st]--;
}

static void on_error(ddp_session *s, const ddp_error_info *e, void *user)
{
	soak_st->sctp_errors++;
	fprintf(stderr, "sctp: %s stream %u error: layer %u etype %u code %u\n",
	        user == &cli ? "client" : "server", e->stream, e->layer, e->etype, e->code);
	SCTP_BAD();
}

static void stream_event(ddp_session *s, uint32_t st, enum ddp_stream_event ev, int status,
                         void *user)
{
	if (st >= NST)
		return;
	if (user == &srv) {
		if (ev == DDP_EV_HALF_CLOSED)
			ddp_stream_close(s, st);
		else
			srv_release(st);
		return;
	}
	if (ev == DDP_EV_CLOSED) {
		cstate[st] = C_IDLE;
		soak_st->sctp_closed++;
	} else if (ev == DDP_EV_ABORTED && !stopping && !churning) {
		SCTP_BAD();
	}
}

static void on_assoc(ddp_sctp_assoc *a, ddp_session *s, int status, void *user)
{
	struct end *e = user;
	if (status == 0) {
		e->a = a;
		e->s = s;
		e->up = 1;
		if (e == &cli) {
			assoc_t0 = soak_now();
			soak_st->sctp_assocs++;
		}
		return;
	}
	e->a = NULL;
	e->s = NULL;
	e->up = 0;
	if (!stopping && !(churning && status == DDP_ERR_CLOSED)) {
		fprintf(stderr, "sctp: %s association ended: %s%s\n", e == &cli ? "client" : "server",
		        ddp_strerror(status), churning ? " (while closing it in order)" : "");
		SCTP_BAD();
	}
}

static void on_ctl(ddp_sctp_assoc *a, uint32_t st, enum ddp_sctp_event ev, int status,
                   const void *p, size_t len, void *user)
{
	if (st >= NST) {
		SCTP_BAD();
		return;
	}
	if (user == &srv && ev == DDP_SCTP_INITIATE) {
		ddp_mr_attr mr = {.addr = stag_buf[st],
		                  .len = MAXLEN,
		                  .access = DDP_ACCESS_REMOTE_WRITE,
		                  .pd = pd};
		uint8_t b[4];
		srv_release(st);
		if (ddp_stag_register(ctx, &mr, &sstag[st]) != 0) {
			SCTP_BAD();
			return;
		}
		shave[st] = 1;
		sdelivered[st] = 0;
		for (int k = 0; k < NBUF; k++)
			if (ddp_post_recv(srv.s, st, 0, srx[st][k], MAXLEN, NULL) != 0)
				SCTP_BAD();
		b[0] = (uint8_t)(sstag[st] >> 24);
		b[1] = (uint8_t)(sstag[st] >> 16);
		b[2] = (uint8_t)(sstag[st] >> 8);
		b[3] = (uint8_t)sstag[st];
		if (ddp_sctp_accept(a, st, b, 4) != 0)
			SCTP_BAD();
		return;
	}
	if (user == &cli && ev == DDP_SCTP_ACCEPTED && len == 4) {
		const uint8_t *q = p;
		cstag[st] =
		    (uint32_t)q[0] << 24 | (uint32_t)q[1] << 16 | (uint32_t)q[2] << 8 | q[3];
		cstate[st] = C_OPEN;
		cmsgs[st] = 0;
		csent[st] = 0;
		return;
	}
	SCTP_BAD(); /* rejected, cancelled or malformed */
}

static int ep_new(struct event_base *base, struct end *e)
{
	ddp_sctp_config c;
	memset(&c, 0, sizeof(c));
	c.port = -1;
	c.nstreams = NST;
	c.ctx = ctx;
	c.session.pd = pd;
	c.ddp.deliver = deliver;
	c.ddp.send_done = send_done;
	c.ddp.error = on_error;
	c.ddp.stream_event = stream_event;
	c.sctp.assoc = on_assoc;
	c.sctp.session_ctl = on_ctl;
	c.user = e;
	return ddp_sctp_ep_new(base, &c, &e->ep);
}

int soak_sctp_start(struct event_base *base, ddp_ctx *c, ddp_pd *p)
{
	int rc;
	if (!(soak_loads & SOAK_SCTP) || !soak_victim)
		return 0;
	ctx = c;
	pd = p;
	for (uint32_t st = 0; st < NST; st++)
		for (size_t i = 0; i < MAXLEN; i++)
			ctx_buf[st][i] = pat(st, i);
	if ((rc = ep_new(base, &srv)) || (rc = ddp_sctp_listen(srv.ep)) ||
	    (rc = ep_new(base, &cli)))
		return rc;
	return ddp_sctp_connect(cli.ep, "127.0.0.1", ddp_sctp_ep_port(srv.ep), &cli.a);
}

static void send_some(uint32_t st)
{
	while (cout[st] + 2 <= MAX_OUT * 2 && (st == 0 || cmsgs[st] < MSGS_PER_SESSION) &&
	       csent[st] - sdelivered[st] < NBUF - 1) {
		struct iovec v = {ctx_buf[st], 1 + soak_rand() % MAXLEN};
		if (ddp_send_tagged(cli.s, st, cstag[st], 0, 0, &v, 1, NULL) ||
		    ddp_send_untagged(cli.s, st, 0, 0, &v, 1, NULL)) {
			SCTP_BAD();
			return;
		}
		cout[st] += 2;
		cmsgs[st]++;
		csent[st]++;
	}
}

/* association churn: close in order every ASSOC_LIFE_S, connect again
 * once both ends saw the end */
static int assoc_churn(void)
{
	if (churning) {
		if (cli.up || srv.up)
			return 1;
		for (uint32_t st = 0; st < NST; st++) {
			cstate[st] = C_IDLE;
			cout[st] = cmsgs[st] = 0;
			srv_release(st);
		}
		churning = 0;
		if (ddp_sctp_connect(cli.ep, "127.0.0.1", ddp_sctp_ep_port(srv.ep), &cli.a))
			SCTP_BAD();
		return 1;
	}
	if (cli.up && srv.up && soak_now() - assoc_t0 > ASSOC_LIFE_S) {
		/* send nothing more; SHUTDOWN once every message we sent
		 * completed: a graceful ddp_sctp_close while DDP still queues
		 * messages SCTP has not taken ends the association with an
		 * ABORT (usrsctp refuses them after the SHUTDOWN began, the
		 * failed stream makes the session's close abortive) */
		int busy = 0;
		for (uint32_t st = 0; st < NST; st++)
			busy |= cout[st] != 0;
		if (busy && soak_now() - assoc_t0 < ASSOC_LIFE_S + DRAIN_S)
			return 1;
		churning = 1;
		if (ddp_sctp_close(cli.a, 0))
			SCTP_BAD();
		return 1;
	}
	return 0;
}

void soak_sctp_tick(void)
{
	if (!soak_victim || stopping || assoc_churn() || !cli.up || !srv.up)
		return;
	for (uint32_t st = 0; st < NST; st++) {
		switch (cstate[st]) {
		case C_IDLE: {
			int rc = ddp_sctp_initiate(cli.a, st, "soak", 4);
			if (rc == 0) {
				cstate[st] = C_OPENING;
				soak_st->sctp_initiated++;
			} else if (rc != DDP_ERR_BUSY) {
				SCTP_BAD();
			}
			break;
		}
		case C_OPEN:
			send_some(st);
			if (st != 0 && cmsgs[st] >= MSGS_PER_SESSION && cout[st] == 0) {
				cstate[st] = C_CLOSING;
				if (ddp_stream_close(cli.s, st) != 0)
					SCTP_BAD();
			}
			break;
		default:
			break;
		}
	}
}

int soak_sctp_ports(int *srv_port, int *cli_port)
{
	if (!soak_victim) { /* published by the victim's tick */
		*srv_port = soak_sh->port[SP_SCTP_SRV];
		*cli_port = soak_sh->port[SP_SCTP_CLI];
		return *srv_port > 0 && *cli_port > 0 ? 0 : -1;
	}
	if (!(soak_loads & SOAK_SCTP) || stopping || !srv.ep || !cli.ep)
		return -1;
	*srv_port = ddp_sctp_ep_port(srv.ep);
	*cli_port = ddp_sctp_ep_port(cli.ep);
	return *srv_port > 0 && *cli_port > 0 ? 0 : -1;
}

int soak_sctp_srv_io(struct sctp_ll_io_stats *out)
{
	if (!(soak_loads & SOAK_SCTP) || stopping || !srv.ep)
		return -1;
	sctp_ll_ep_io_stats(sctp_ddp_ep_ll(srv.ep), out);
	return 0;
}

void soak_sctp_stop(void)
{
	stopping = 1;
	if (!(soak_loads & SOAK_SCTP) || !soak_victim)
		return;
	if (churning) /* an association close that never completed */
		printf("sctp: the association closed at the churn is still up at the end "
		       "(client %d, server %d)\n",
		       cli.up, srv.up);
	ddp_sctp_ep_free(cli.ep);
	ddp_sctp_ep_free(srv.ep);
	for (uint32_t st = 0; st < NST; st++)
		srv_release(st);
}

#else /* !HAVE_USRSCTP: the MPA part alone */

int soak_sctp_start(struct event_base *base, ddp_ctx *c, ddp_pd *p)
{
	soak_loads &= ~(unsigned)SOAK_SCTP; /* not built */
	return 0;
}

void soak_sctp_tick(void)
{
}

void soak_sctp_stop(void)
{
}

int soak_sctp_ports(int *srv_port, int *cli_port)
{
	(void)srv_port, (void)cli_port;
	return -1;
}

int soak_sctp_srv_io(struct sctp_ll_io_stats *out)
{
	(void)out;
	return -1;
}
#endif
