/*
 * ddp-soak, zero-window MPA peers ("zerowin"). A listener of its own
 * (caps ZW_MAX connections, ZW_PER_ADDR per source address; send queues
 * bounded: session.max_tx_octets ZW_TX_OCTETS, tx_queue_cap, tcp_sndbuf)
 * whose ULP pushes 16 KiB untagged messages to every connection as fast as
 * DDP takes them (a feed to subscribers), stops at DDP_ERR_LIMIT and goes on
 * at the writable callback. Its peers are plain TCP sockets with a 4 KiB
 * receive buffer that send an MPA Request (RFC 5044 §7.1.2, revision 1,
 * CRC), read exactly the Reply and then never read again (zero window):
 *  - keepers (ZW_KEEP, from 127.0.0.3, under both caps): each sends a small
 *    untagged message every KEEP_EVERY_S. They must be kept for the whole
 *    soak: a peer that keeps ACKing (its kernel answers the window probes)
 *    is slow, not dead, and one that sends is not idle;
 *  - flooders (from 127.0.0.4 .. 127.0.0.6, FLOOD_PER_ADDR each, more than
 *    the caps allow in total and per address): never send after the
 *    Request; the listener evicts the idle ones or refuses new ones at a
 *    cap (logged: zw_capped). A flooder closes after FLOOD_LIFE_S, or when
 *    its connection was ended, and another takes its place.
 *
 * Pass: no keeper lost (zw_keep_lost == 0, all ZW_KEEP up at the end), the
 * caps acted (zw_capped > 0), no connection ever had more queued than
 * ZW_TX_OCTETS plus two messages (zw_over == 0), RSS flat.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/event.h>

#include <ddp/mpa.h>

#include "ddpwire.h"
#include "mpa_craft.h"
#include "soak.h"

#define ZW_MAX         12
#define ZW_PER_ADDR    4
#define ZW_KEEP        3
#define FLOOD_ADDRS    3
#define FLOOD_PER_ADDR 6
#define FLOOD_LIFE_S   5.0
#define KEEP_EVERY_S   0.5
#define ZW_MSG         16384
#define ZW_TX_OCTETS   (256u << 10)
#define ZW_NBUF        4
#define ZW_BUFLEN      256
#define PEER_RCVBUF    4096
#define REPLY_LEN      20 /* the Reply's frame without private data */

static struct event_base *base;
static ddp_mpa_listener *lst;
static int port, stopping;
static uint8_t feed[ZW_MSG];

/* ------------------------------------------------------------- server */

struct zsrv {
	ddp_mpa_conn *c;
	int keeper, up;
	uint8_t rx[ZW_NBUF][ZW_BUFLEN];
	struct zsrv *prev, *next;
};
static struct zsrv *zsrvs;

static void zsrv_destroy(struct zsrv *z)
{
	ddp_mpa_conn_free(z->c);
	if (z->prev)
		z->prev->next = z->next;
	else
		zsrvs = z->next;
	if (z->next)
		z->next->prev = z->prev;
	free(z);
}

static void push(struct zsrv *z)
{
	ddp_session *s = ddp_mpa_session(z->c);
	struct iovec v = {feed, ZW_MSG};
	for (;;) {
		int rc = ddp_send_untagged(s, 0, 0, 0, &v, 1, NULL);
		if (rc == DDP_ERR_LIMIT) {
			soak_st->zw_limit++; /* the writable callback goes on */
			return;
		}
		if (rc != 0)
			return; /* ending */
	}
}

static void z_writable(ddp_session *s, uint32_t st, void *user)
{
	(void)s, (void)st;
	push(user);
}

static void z_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	(void)user;
	if (d->status == 0 && ddp_post_recv(s, 0, 0, d->buf, ZW_BUFLEN, NULL) != 0)
		SOAK_BAD();
}

static void z_error(ddp_session *s, const ddp_error_info *e, void *user)
{
	(void)e, (void)user;
	SOAK_BAD(); /* the keepers' messages are valid */
	ddp_session_close(s, 1);
}

static const ddp_callbacks z_cbs = {.deliver = z_deliver, .error = z_error, .writable = z_writable};

static void z_event(ddp_mpa_conn *c, enum ddp_mpa_event ev, int err, uint8_t code, void *user)
{
	struct zsrv *z = user;
	(void)c, (void)code;
	if (ev == DDP_MPA_CONNECTED) {
		z->up = 1;
		push(z);
		return;
	}
	if (z->keeper && !stopping && !soak_sh->ending) {
		soak_st->zw_keep_lost++;
		printf("zerowin: a keeper's connection ended (event %d, %s)\n", (int)ev,
		       ddp_strerror(err));
	}
	zsrv_destroy(z);
}

static void z_accept(ddp_mpa_conn *c, const ddp_mpa_info *req, void *user)
{
	struct zsrv *z = calloc(1, sizeof(*z));
	(void)user;
	if (!z) {
		ddp_mpa_conn_free(c);
		return;
	}
	z->c = c;
	z->keeper = req->private_data_len == 4 && memcmp(req->private_data, "keep", 4) == 0;
	z->next = zsrvs;
	if (zsrvs)
		zsrvs->prev = z;
	zsrvs = z;
	ddp_mpa_set_user(c, z);
	soak_st->zw_conns++;
	for (int k = 0; k < ZW_NBUF; k++)
		if (ddp_post_recv(ddp_mpa_session(c), 0, 0, z->rx[k], ZW_BUFLEN, NULL) != 0)
			SOAK_BAD();
	if (ddp_mpa_accept(c, NULL, 0) != 0)
		SOAK_BAD();
}

/* -------------------------------------------------------------- peers */

struct zpeer {
	int fd, keeper;
	size_t got; /* octets of the Reply read */
	uint32_t msn;
	double t0, t_sent;
	struct event *ev;
};
static struct zpeer keepers[ZW_KEEP], flooders[FLOOD_ADDRS][FLOOD_PER_ADDR];

static void peer_close(struct zpeer *p)
{
	if (p->ev)
		event_free(p->ev);
	if (p->fd >= 0)
		close(p->fd);
	memset(p, 0, sizeof(*p));
	p->fd = -1;
}

/* read the Reply, not one octet more */
static void peer_read(evutil_socket_t fd, short what, void *arg)
{
	struct zpeer *p = arg;
	uint8_t b[REPLY_LEN];
	(void)fd, (void)what;
	ssize_t n = recv(p->fd, b, REPLY_LEN - p->got, 0);
	if (n > 0 && (p->got += (size_t)n) < REPLY_LEN)
		return;
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return;
	event_del(p->ev); /* done (or refused): never read again */
	if (n <= 0)
		p->got = 0;
}

static int peer_open(struct zpeer *p, uint32_t src, int keeper)
{
	struct sockaddr_in me, to;
	int rb = PEER_RCVBUF;
	uint8_t req[24];
	p->fd = socket(AF_INET, SOCK_STREAM, 0);
	if (p->fd < 0)
		return -1;
	memset(&me, 0, sizeof(me));
	me.sin_family = AF_INET;
	me.sin_addr.s_addr = htonl(src);
	to = me;
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	to.sin_port = htons((uint16_t)port);
	setsockopt(p->fd, SOL_SOCKET, SO_RCVBUF, &rb, sizeof(rb));
	if (bind(p->fd, (struct sockaddr *)&me, sizeof(me)) < 0 ||
	    connect(p->fd, (struct sockaddr *)&to, sizeof(to)) < 0) {
		peer_close(p);
		return -1;
	}
	/* RFC 5044 §7.1.2: key, flags (C), revision 1, PD_Length 4, PD */
	memcpy(req, "MPA ID Req Frame", 16);
	req[16] = 0x40;
	req[17] = 1;
	req[18] = 0;
	req[19] = 4;
	memcpy(req + 20, keeper ? "keep" : "zwin", 4);
	if (mpa_craft_send_all(p->fd, req, sizeof(req)) != 0) {
		peer_close(p);
		return -1;
	}
	evutil_make_socket_nonblocking(p->fd);
	p->keeper = keeper;
	p->msn = 1;
	p->t0 = p->t_sent = soak_now();
	p->ev = event_new(base, p->fd, EV_READ | EV_PERSIST, peer_read, p);
	event_add(p->ev, NULL);
	return 0;
}

/* still established (the server did not end it) */
static int peer_alive(const struct zpeer *p)
{
	struct tcp_info ti;
	socklen_t l = sizeof(ti);
	return p->fd >= 0 && getsockopt(p->fd, IPPROTO_TCP, TCP_INFO, &ti, &l) == 0 &&
	       ti.tcpi_state == 1 /* TCP_ESTABLISHED */;
}

/* a small untagged message on QN 0 (RFC 5041 §4.3) in one FPDU */
static void keeper_send(struct zpeer *p)
{
	uint8_t seg[64], fpdu[128];
	size_t n = tw_untagged(seg, 1, 1, 0, 0, p->msn, 0, "still here", 10);
	size_t f = mpa_craft_fpdu(fpdu, sizeof(fpdu), seg, n, 1);
	if (send(p->fd, fpdu, f, MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)f)
		return; /* lost: seen by the server */
	p->msn++;
	p->t_sent = soak_now();
}

int soak_mpa_zerowin_start(struct event_base *b, ddp_ctx *ctx, ddp_pd *pd)
{
	struct sockaddr_in sa;
	ddp_mpa_config mc;
	if (!(soak_loads & SOAK_ZEROWIN))
		return 0;
	base = b;
	if (soak_victim) {
		memset(feed, 'z', sizeof(feed));
		memset(&sa, 0, sizeof(sa));
		sa.sin_family = AF_INET;
		sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		memset(&mc, 0, sizeof(mc));
		mc.startup_timeout_ms = 2000;
		mc.max_conns = ZW_MAX;
		mc.max_conns_per_addr = ZW_PER_ADDR;
		mc.tx_queue_cap = 64u << 10;
		mc.tcp_sndbuf = 64u << 10;
		mc.session.pd = pd;
		mc.session.max_tx_octets = ZW_TX_OCTETS;
		mc.session.max_tx_queued = 64;
		int rc = ddp_mpa_listen(base, ctx, (struct sockaddr *)&sa, sizeof(sa), &mc, &z_cbs,
		                        z_accept, z_event, NULL, &lst);
		if (rc)
			return rc;
		soak_sh->port[SP_ZEROWIN] = ddp_mpa_listener_port(lst);
	}
	if (!soak_attacker)
		return 0;
	port = soak_sh->port[SP_ZEROWIN];
	for (int i = 0; i < ZW_KEEP; i++)
		if (peer_open(&keepers[i], 0x7f000003u, 1) != 0)
			return DDP_ERR_SYS;
	for (int a = 0; a < FLOOD_ADDRS; a++)
		for (int i = 0; i < FLOOD_PER_ADDR; i++)
			flooders[a][i].fd = -1;
	return 0;
}

void soak_mpa_zerowin_log(const char *msg)
{
	if (strncmp(msg, "MPA ", 4) == 0 && strstr(msg, " cap ") && !strstr(msg, "start-up"))
		soak_st->zw_capped++;
}

void soak_mpa_zerowin_tick(void)
{
	double now = soak_now();
	int opened = 0;
	if (!(soak_loads & SOAK_ZEROWIN) || stopping)
		return;
	for (struct zsrv *z = zsrvs; z; z = z->next) { /* the victim's queues */
		long q = (long)ddp_stream_queued(ddp_mpa_session(z->c), 0, NULL);
		if (q > soak_st->zw_queued_max)
			soak_st->zw_queued_max = q;
		if (q > (long)(ZW_TX_OCTETS + 2 * ZW_MSG))
			soak_st->zw_over++;
	}
	if (!soak_attacker)
		return;
	soak_st->zw_keep_live = 0;
	for (int i = 0; i < ZW_KEEP; i++) {
		struct zpeer *p = &keepers[i];
		if (!peer_alive(p))
			continue;
		soak_st->zw_keep_live++;
		if (p->got == REPLY_LEN && now - p->t_sent >= KEEP_EVERY_S)
			keeper_send(p);
	}
	for (int a = 0; a < FLOOD_ADDRS; a++)
		for (int i = 0; i < FLOOD_PER_ADDR; i++) {
			struct zpeer *p = &flooders[a][i];
			if (p->fd >= 0 &&
			    (now - p->t0 > FLOOD_LIFE_S || (now - p->t0 > 0.5 && !peer_alive(p))))
				peer_close(p);
			if (p->fd < 0 && !opened && peer_open(p, 0x7f000004u + (uint32_t)a, 0) == 0)
				opened++;
		}
}

void soak_mpa_zerowin_stop(void)
{
	if (!(soak_loads & SOAK_ZEROWIN))
		return;
	stopping = 1;
	if (soak_victim)
		printf("zerowin: %ld connections (%d keepers), %ld ended or refused at a cap, %ld "
	       "times a send queue was full; at most %ld octets queued on a connection "
	       "(bound %u + one message); keepers up at the end %ld, lost %ld\n",
	       soak_st->zw_conns, ZW_KEEP, soak_st->zw_capped, soak_st->zw_limit,
	       soak_st->zw_queued_max, ZW_TX_OCTETS, soak_st->zw_keep_live, soak_st->zw_keep_lost);
	for (int i = 0; i < ZW_KEEP && soak_attacker; i++)
		peer_close(&keepers[i]);
	for (int a = 0; a < FLOOD_ADDRS && soak_attacker; a++)
		for (int i = 0; i < FLOOD_PER_ADDR; i++)
			peer_close(&flooders[a][i]);
	while (zsrvs)
		zsrv_destroy(zsrvs);
	ddp_mpa_listener_free(lst);
	lst = NULL;
}
