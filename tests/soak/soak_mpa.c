/* ddp-soak, MPA/TCP part. One listener (the Responder side, start-up
 * time-out 500 ms) serves three kinds of peers, all on the same loop:
 *  - good clients (ddp_mpa_connect): the Reply's private data carries an
 *    STag; each client does ROUNDS rounds of one tagged write into it and
 *    one untagged message that the server echoes, then closes in order and
 *    a new client takes its place (connection churn);
 *  - garbage peers: a bad key; a Request followed at once by random octets
 *    (before the Reply); or, after the Reply, an FPDU with a bad CRC or
 *    random octets and a FIN: the server must drop them all (its ULP ends
 *    a connection on the first error report);
 *  - half-open peers: TCP connected, nothing sent: the start-up time-out
 *    must reap them.
 * Every payload is checked. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/event.h>

#include <ddp/mpa.h>

#include "soak.h"

#define MAXLEN       4096
#define ROUNDS       4
#define GOOD_LIVE    32
#define GARBAGE_LIVE 16
#define HALF_LIVE    64
#define STARTUP_MS   500
#define RAW_GIVEUP_S 5.0

static struct event_base *base;
static ddp_ctx *ctx;
static ddp_pd *pd;
static ddp_mpa_listener *lst;
static int port;
static int stopping;

static uint8_t pat(uint8_t seed, size_t i)
{
	return (uint8_t)(seed * 31u + i * 7u + (i >> 8));
}

/* ------------------------------------------------------------- server */

struct sconn {
	ddp_mpa_conn *c;
	uint32_t stag;
	int have_stag;
	uint8_t tag[MAXLEN];
	uint8_t rx[2][MAXLEN];
	uint8_t tx[MAXLEN];
	struct sconn *prev, *next;
};
static struct sconn *sconns;

static void sconn_destroy(struct sconn *sc)
{
	if (sc->have_stag && ddp_stag_invalidate(ctx, sc->stag) != 0) {
		SOAK_BAD();
		fprintf(stderr, "bad at %d\n", __LINE__);
	}
	ddp_mpa_conn_free(sc->c);
	if (sc->prev)
		sc->prev->next = sc->next;
	else
		sconns = sc->next;
	if (sc->next)
		sc->next->prev = sc->prev;
	soak_st->srv_conns_live--;
	free(sc);
}

static void s_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	struct sconn *sc = user;
	if (d->status != 0)
		return;
	uint8_t seed = (uint8_t)d->rsvdulp;
	if (d->tagged) {
		for (uint32_t i = 0; i < d->len; i++)
			if (sc->tag[i] != pat(seed, i)) {
				{
					SOAK_BAD();
					fprintf(stderr, "bad at %d\n", __LINE__);
				}
				break;
			}
		soak_st->mpa_tagged_rx++;
		return;
	}
	memcpy(sc->tx, d->buf, d->len);
	struct iovec v = {sc->tx, d->len};
	if (ddp_send_untagged(s, 0, 0, d->rsvdulp, &v, 1, NULL) != 0 ||
	    ddp_post_recv(s, 0, 0, d->buf, MAXLEN, NULL) != 0) {
		SOAK_BAD();
		fprintf(stderr, "bad at %d\n", __LINE__);
	}
}

/* the ULP's answer to a stream error (DDP-ERR-1): end the connection */
static void s_error(ddp_session *s, const ddp_error_info *e, void *user)
{
	soak_st->garbage_errors++;
	ddp_session_close(s, 1);
}

static void s_stream_event(ddp_session *s, uint32_t st, enum ddp_stream_event ev, int status,
                           void *user)
{
	if (ev == DDP_EV_HALF_CLOSED)
		ddp_session_close(s, 0); /* the client is done: so are we */
}

static const ddp_callbacks s_cbs = {
	.deliver = s_deliver, .error = s_error, .stream_event = s_stream_event,
};

static void s_event(ddp_mpa_conn *c, enum ddp_mpa_event ev, int err, uint8_t code, void *user)
{
	if (ev != DDP_MPA_CONNECTED)
		sconn_destroy(user);
}

static void s_accept(ddp_mpa_conn *c, const ddp_mpa_info *req, void *user)
{
	struct sconn *sc = calloc(1, sizeof(*sc));
	if (!sc) {
		ddp_mpa_conn_free(c);
		{
			SOAK_BAD();
			fprintf(stderr, "bad at %d\n", __LINE__);
		}
		return;
	}
	sc->c = c;
	sc->next = sconns;
	if (sconns)
		sconns->prev = sc;
	sconns = sc;
	soak_st->srv_conns_live++;
	ddp_mpa_set_user(c, sc);
	ddp_session *s = ddp_mpa_session(c);
	ddp_mr_attr mr = {
	    .addr = sc->tag, .len = MAXLEN, .access = DDP_ACCESS_REMOTE_WRITE, .pd = pd};
	uint8_t p[4];
	if (ddp_stag_register(ctx, &mr, &sc->stag) != 0 ||
	    ddp_post_recv(s, 0, 0, sc->rx[0], MAXLEN, NULL) != 0 ||
	    ddp_post_recv(s, 0, 0, sc->rx[1], MAXLEN, NULL) != 0) {
		{
			SOAK_BAD();
			fprintf(stderr, "bad at %d\n", __LINE__);
		}
		sconn_destroy(sc);
		return;
	}
	sc->have_stag = 1;
	p[0] = (uint8_t)(sc->stag >> 24);
	p[1] = (uint8_t)(sc->stag >> 16);
	p[2] = (uint8_t)(sc->stag >> 8);
	p[3] = (uint8_t)sc->stag;
	if (ddp_mpa_accept(c, p, 4) != 0) {
		SOAK_BAD();
		fprintf(stderr, "bad at %d\n", __LINE__);
	}
}

/* ------------------------------------------------------- good clients */

struct cconn {
	ddp_mpa_conn *c;
	uint32_t stag;
	int rounds, outstanding, echoed, closing;
	uint8_t seed;
	uint32_t len;
	uint8_t rx[MAXLEN];
	uint8_t tx[MAXLEN];
	struct cconn *prev, *next;
};
static struct cconn *cconns;

static void cconn_destroy(struct cconn *cc)
{
	ddp_mpa_conn_free(cc->c);
	if (cc->prev)
		cc->prev->next = cc->next;
	else
		cconns = cc->next;
	if (cc->next)
		cc->next->prev = cc->prev;
	soak_st->cli_conns_live--;
	free(cc);
}

static void c_round(struct cconn *cc)
{
	ddp_session *s = ddp_mpa_session(cc->c);
	cc->seed = (uint8_t)soak_rand();
	cc->len = 1 + soak_rand() % MAXLEN;
	for (uint32_t i = 0; i < cc->len; i++)
		cc->tx[i] = pat(cc->seed, i);
	struct iovec v = {cc->tx, cc->len};
	cc->echoed = 0;
	cc->outstanding = 2;
	if (ddp_send_tagged(s, 0, cc->stag, 0, cc->seed, &v, 1, NULL) != 0 ||
	    ddp_send_untagged(s, 0, 0, cc->seed, &v, 1, NULL) != 0) {
		SOAK_BAD();
		fprintf(stderr, "bad at %d\n", __LINE__);
	}
}

/* next round once the echo came back and both sends completed */
static void c_maybe_next(struct cconn *cc)
{
	if (!cc->echoed || cc->outstanding || cc->closing)
		return;
	soak_st->mpa_rounds++;
	ddp_session *s = ddp_mpa_session(cc->c);
	if (++cc->rounds >= ROUNDS) {
		cc->closing = 1;
		ddp_session_close(s, 0);
		return;
	}
	if (ddp_post_recv(s, 0, 0, cc->rx, MAXLEN, NULL) != 0) {
		SOAK_BAD();
		fprintf(stderr, "bad at %d\n", __LINE__);
	}
	c_round(cc);
}

static void c_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	struct cconn *cc = user;
	if (d->status != 0)
		return;
	if (d->tagged || d->len != cc->len || (uint8_t)d->rsvdulp != cc->seed ||
	    memcmp(d->buf, cc->tx, cc->len) != 0) {
		SOAK_BAD();
		fprintf(stderr, "bad at %d\n", __LINE__);
	}
	cc->echoed = 1;
	c_maybe_next(cc);
}

static void c_send_done(ddp_session *s, uint32_t st, void *mctx, int status, void *user)
{
	struct cconn *cc = user;
	if (status != 0)
		return; /* flushed at teardown */
	cc->outstanding--;
	c_maybe_next(cc);
}

static const ddp_callbacks c_cbs = { .deliver = c_deliver, .send_done = c_send_done };

static void c_event(ddp_mpa_conn *c, enum ddp_mpa_event ev, int err, uint8_t code, void *user)
{
	struct cconn *cc = user;
	ddp_mpa_info info;
	if (ev == DDP_MPA_CONNECTED) {
		if (ddp_mpa_get_info(c, &info) != 0 || info.private_data_len != 4) {
			{
				SOAK_BAD();
				fprintf(stderr, "bad at %d\n", __LINE__);
			}
			return;
		}
		const uint8_t *p = info.private_data;
		cc->stag = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
		c_round(cc);
		return;
	}
	if (ev == DDP_MPA_CLOSED && cc->closing)
		soak_st->mpa_closed++;
	else if (!stopping)
		soak_st->mpa_client_fail++;
	cconn_destroy(cc);
}

static void open_good(void)
{
	struct cconn *cc = calloc(1, sizeof(*cc));
	struct sockaddr_in sa;
	ddp_mpa_config mc;
	if (!cc)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	memset(&mc, 0, sizeof(mc));
	mc.private_data = "good";
	mc.private_data_len = 4;
	if (ddp_mpa_connect(base, ctx, (struct sockaddr *)&sa, sizeof(sa), &mc, &c_cbs, c_event, cc,
	                    &cc->c) != 0) {
		soak_st->mpa_client_fail++;
		free(cc);
		return;
	}
	if (ddp_post_recv(ddp_mpa_session(cc->c), 0, 0, cc->rx, MAXLEN, NULL) != 0) {
		SOAK_BAD();
		fprintf(stderr, "bad at %d\n", __LINE__);
	}
	cc->next = cconns;
	if (cconns)
		cconns->prev = cc;
	cconns = cc;
	soak_st->cli_conns_live++;
	soak_st->mpa_opened++;
}

/* ------------------------------------------- garbage and half-open peers */

struct raw {
	int fd, half;
	unsigned kind; /* garbage: GK_* */
	size_t got;    /* octets of the Reply seen */
	double t0;
	struct event *ev;
	struct raw *prev, *next;
};
static struct raw *raws;
static int live_garbage, live_half;

enum {
	GK_BAD_KEY, /* not MPA at all: the Request key is wrong */
	GK_EARLY,   /* Request + octets before the Reply (RFC 5044 §7.1.3) */
	GK_BAD_CRC, /* after the Reply: a well-framed FPDU, bad CRC */
	GK_RANDOM,  /* after the Reply: random octets, then FIN */
	GK_N
};

static void raw_destroy(struct raw *r)
{
	event_free(r->ev);
	close(r->fd);
	if (r->prev)
		r->prev->next = r->next;
	else
		raws = r->next;
	if (r->next)
		r->next->prev = r->prev;
	if (r->half)
		live_half--;
	else
		live_garbage--;
	free(r);
}

static void send_all(int fd, const uint8_t *b, size_t n)
{
	if (send(fd, b, n, MSG_NOSIGNAL) != (ssize_t)n)
		SOAK_BAD(); /* a fresh loopback socket takes 2 KiB */
}

/* a valid RFC 5044 §7.1.2 Request, revision 1, CRC, 4 octets of PD */
static void send_request(int fd)
{
	uint8_t b[24];
	memcpy(b, "MPA ID Req Frame", 16);
	b[16] = 0x40;
	b[17] = 1;
	b[18] = 0;
	b[19] = 4;
	memcpy(b + 20, "junk", 4);
	send_all(fd, b, sizeof(b));
}

static void send_random(int fd, size_t n)
{
	uint8_t b[512];
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)soak_rand();
	send_all(fd, b, n);
	shutdown(fd, SHUT_WR);
}

static void send_bad_crc(int fd)
{
	uint8_t b[2048];
	uint16_t ul = (uint16_t)(18 + soak_rand() % 1000);
	b[0] = (uint8_t)(ul >> 8);
	b[1] = (uint8_t)ul;
	size_t n = 2 + (size_t)ul;
	n += (4 - (n & 3)) & 3;
	n += 4; /* pad and CRC octets random too */
	for (size_t i = 2; i < n; i++)
		b[i] = (uint8_t)soak_rand();
	send_all(fd, b, n);
}

/* the server answered (Reply) or ended the connection */
static void raw_read(evutil_socket_t fd, short what, void *arg)
{
	struct raw *r = arg;
	uint8_t b[512];
	for (;;) {
		ssize_t n = recv(r->fd, b, sizeof(b), 0);
		if (n > 0) {
			size_t before = r->got;
			r->got += (size_t)n;
			if (r->half || r->kind == GK_BAD_KEY || r->got > 24)
				SOAK_BAD(); /* nothing (more) was asked */
			else if (before < 20 && r->got >= 20 && r->kind == GK_BAD_CRC)
				send_bad_crc(r->fd);
			else if (before < 20 && r->got >= 20 && r->kind == GK_RANDOM)
				send_random(r->fd, 300);
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		break; /* closed or reset by the server: reaped */
	}
	if (r->half)
		soak_st->halfopen_reaped++;
	else
		soak_st->garbage_reaped++;
	raw_destroy(r);
}

static void send_garbage(struct raw *r)
{
	switch (r->kind) {
	case GK_BAD_KEY: {
		static const char get[] = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
		send_all(r->fd, (const uint8_t *)get, sizeof(get) - 1);
		break;
	}
	case GK_EARLY:
		send_request(r->fd);
		send_random(r->fd, 300);
		break;
	default: /* the rest follows the Reply */
		send_request(r->fd);
		break;
	}
}

static void open_raw(int half)
{
	struct sockaddr_in sa;
	struct raw *r = calloc(1, sizeof(*r));
	if (!r)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	r->fd = socket(AF_INET, SOCK_STREAM, 0);
	if (r->fd < 0 || connect(r->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		if (r->fd >= 0)
			close(r->fd);
		free(r);
		{
			SOAK_BAD();
			fprintf(stderr, "bad at %d\n", __LINE__);
		}
		return;
	}
	evutil_make_socket_nonblocking(r->fd);
	r->half = half;
	r->t0 = soak_now();
	r->ev = event_new(base, r->fd, EV_READ | EV_PERSIST, raw_read, r);
	event_add(r->ev, NULL);
	r->next = raws;
	if (raws)
		raws->prev = r;
	raws = r;
	if (half) {
		live_half++;
		soak_st->halfopen_conns++;
	} else {
		live_garbage++;
		soak_st->garbage_conns++;
		r->kind = soak_rand() % GK_N;
		send_garbage(r);
	}
}

/* ---------------------------------------------------------------- api */

int soak_mpa_start(struct event_base *b, ddp_ctx *c, ddp_pd *p)
{
	struct sockaddr_in sa;
	ddp_mpa_config mc;
	base = b;
	ctx = c;
	pd = p;
	if (!soak_victim) { /* the garbage and half-open peers aim here */
		port = soak_sh->port[SP_MPA];
		return 0;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	memset(&mc, 0, sizeof(mc));
	mc.startup_timeout_ms = STARTUP_MS;
	mc.session.pd = pd;
	mc.max_private_data = 64;
	int rc = ddp_mpa_listen(base, ctx, (struct sockaddr *)&sa, sizeof(sa), &mc, &s_cbs,
	                        s_accept, s_event, NULL, &lst);
	if (rc)
		return rc;
	port = soak_sh->port[SP_MPA] = ddp_mpa_listener_port(lst);
	return 0;
}

void soak_mpa_tick(void)
{
	double t = soak_now();
	if (stopping)
		return;
	/* rate limits: about 100 good, 400 garbage and 400 half-open
	 * connections a second at most (the good ones end in TIME_WAIT on
	 * our side, which stays well below the ephemeral port range; the
	 * server resets the others) */
	if (soak_victim && (soak_loads & SOAK_GOOD) && soak_st->cli_conns_live < GOOD_LIVE)
		open_good();
	if (!soak_attacker)
		return;
	for (int i = 0; (soak_loads & SOAK_GARBAGE) && i < 4 && live_garbage < GARBAGE_LIVE; i++)
		open_raw(0);
	for (int i = 0; (soak_loads & SOAK_HALFOPEN) && i < 4 && live_half < HALF_LIVE; i++)
		open_raw(1);
	for (struct raw *r = raws, *n; r; r = n) {
		n = r->next;
		if (t - r->t0 > RAW_GIVEUP_S) {
			soak_st->raw_stuck++;
			raw_destroy(r);
		}
	}
}

void soak_mpa_stop(void)
{
	stopping = 1;
	while (cconns)
		cconn_destroy(cconns);
	while (sconns)
		sconn_destroy(sconns);
	while (raws)
		raw_destroy(raws);
	ddp_mpa_listener_free(lst);
	lst = NULL;
}
