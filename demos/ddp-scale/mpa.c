/* ddp-scale: the MPA/TCP server and client (scale.h). The server accepts
 * every connection, posts one receive buffer on each and echoes every
 * message; the client opens the connections INFLIGHT at a time and, while
 * moving, sends on each in turn (one message outstanding per connection). */
#include "scale.h"

#include <arpa/inet.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <event2/event.h>

#include <ddp/ddp.h>
#include <ddp/mpa.h>
#include "ddp_test.h"

#define INFLIGHT 128 /* client start-ups in progress at once */

struct slot {
	ddp_mpa_conn *c;
	uint8_t *rx; /* the posted buffer: size octets */
	int up, gone, outstanding;
};

struct mpa_side {
	ddp_ctx *ctx;
	ddp_mpa_listener *l;
	struct slot *sl;
	uint8_t *rxmem, *txbuf; /* every slot's rx; the one payload sent */
	unsigned n, next, cursor;
	int port, moving;
	long up, gone, failed, inflight, outstanding, errors;
	uint64_t rx, tx, last_ms;
	double acc;
	struct side *sd;
};

/* this process's side (one per process) */
static struct mpa_side *G;

static int alloc_side(struct side *sd, struct mpa_side **out)
{
	struct mpa_side *m = calloc(1, sizeof(*m));
	if (!m)
		return -1;
	m->sd = sd;
	m->n = sd->o->mpa_conns;
	m->sl = calloc(m->n, sizeof(*m->sl));
	m->rxmem = malloc((size_t)m->n * sd->o->size);
	m->txbuf = malloc(sd->o->size);
	if (!m->sl || !m->rxmem || !m->txbuf || ddp_ctx_new(NULL, &m->ctx) != 0)
		return -1;
	/* the application's own memory counts in "before" */
	memset(m->sl, 0, m->n * sizeof(*m->sl));
	memset(m->rxmem, 0, (size_t)m->n * sd->o->size);
	memset(m->txbuf, 'm', sd->o->size);
	for (unsigned i = 0; i < m->n; i++)
		m->sl[i].rx = m->rxmem + (size_t)i * sd->o->size;
	sd->llp = m;
	G = m;
	*out = m;
	return 0;
}

static int send_one(struct mpa_side *m, ddp_session *s)
{
	struct iovec v = {m->txbuf, m->sd->o->size};
	if (ddp_send_untagged(s, 0, 0, 0, &v, 1, NULL) != 0) {
		m->errors++;
		return -1;
	}
	m->tx++;
	return 0;
}

static void conn_gone(struct mpa_side *m, struct slot *sl, ddp_mpa_conn *c)
{
	if (!sl->gone) {
		sl->gone = 1;
		m->gone++;
		if (sl->outstanding) {
			sl->outstanding = 0;
			m->outstanding--;
		}
	}
	ddp_mpa_conn_free(c);
	sl->c = NULL;
}

static void fill(struct side *sd, struct scale_rep *r)
{
	struct mpa_side *m = sd->llp;
	r->conns = m ? m->up - m->gone : 0;
	r->gone = m ? m->gone : 0;
	r->msgs_rx = m ? m->rx : 0;
	r->msgs_tx = m ? m->tx : 0;
	r->errors = m ? m->errors + m->failed : 0;
	mpa_ra_rings(&r->rings_now, &r->rings_peak);
}

/* ------------------------------------------------------------ server */

static void s_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	struct slot *sl = user;
	struct mpa_side *m = G;
	if (d->status != 0)
		return;
	m->rx++;
	if (ddp_post_recv(s, 0, 0, sl->rx, m->sd->o->size, NULL) != 0)
		m->errors++;
	send_one(m, s);
}

/* the client closed its half: close ours */
static void s_stream_event(ddp_session *s, uint32_t st, enum ddp_stream_event ev, int status,
			   void *user)
{
	if (ev == DDP_EV_HALF_CLOSED)
		ddp_session_close(s, 0);
}

static const ddp_callbacks s_cbs = {
	.deliver = s_deliver,
	.stream_event = s_stream_event,
};

static void s_event(ddp_mpa_conn *c, enum ddp_mpa_event ev, int err, uint8_t code, void *user)
{
	struct slot *sl = user;
	struct mpa_side *m = G;
	if (ev == DDP_MPA_CONNECTED) {
		sl->up = 1;
		m->up++;
		return;
	}
	if (ev != DDP_MPA_CLOSED)
		m->errors++;
	conn_gone(m, sl, c);
}

static void s_accept(ddp_mpa_conn *c, const ddp_mpa_info *req, void *user)
{
	struct mpa_side *m = user;
	if (m->next >= m->n) {
		ddp_mpa_reject(c, NULL, 0);
		return;
	}
	struct slot *sl = &m->sl[m->next++];
	sl->c = c;
	ddp_mpa_set_user(c, sl);
	ddp_session *s = ddp_mpa_session(c);
	if (ddp_post_recv(s, 0, 0, sl->rx, m->sd->o->size, NULL) != 0 ||
	    ddp_mpa_accept(c, NULL, 0) != 0)
		m->errors++;
}

static int s_init(struct side *sd)
{
	struct mpa_side *m;
	if (alloc_side(sd, &m) != 0)
		return -1;
	struct sockaddr_in sa;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ddp_mpa_config cfg;
	memset(&cfg, 0, sizeof(cfg));
	cfg.startup_timeout_ms = 30000;
	cfg.max_conns = cfg.max_conns_per_addr = UINT_MAX; /* all from 127.0.0.1 */
	if (ddp_mpa_listen(sd->base, m->ctx, (struct sockaddr *)&sa, sizeof(sa), &cfg, &s_cbs,
			   s_accept, s_event, m, &m->l) != 0)
		return -1;
	return ddp_mpa_listener_port(m->l);
}

static int s_start(struct side *sd, int c, int arg)
{
	return c == CMD_REPORT || c == CMD_CLOSE ? 0 : -1;
}

static int s_done(struct side *sd, int c)
{
	struct mpa_side *m = sd->llp;
	/* CMD_CLOSE: every connection the client opened has ended here */
	return c == CMD_CLOSE ? m->gone >= m->up && m->next == m->gone : 1;
}

static void s_tick(struct side *sd)
{
}

const struct side_ops scale_mpa_server = {s_init, s_start, s_done, s_tick, fill};

/* ------------------------------------------------------------ client */

static void c_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	struct slot *sl = user;
	struct mpa_side *m = G;
	if (d->status != 0)
		return;
	m->rx++;
	if (sl->outstanding) {
		sl->outstanding = 0;
		m->outstanding--;
	}
	if (ddp_post_recv(s, 0, 0, sl->rx, m->sd->o->size, NULL) != 0)
		m->errors++;
}

static const ddp_callbacks c_cbs = {.deliver = c_deliver};

static void c_event(ddp_mpa_conn *c, enum ddp_mpa_event ev, int err, uint8_t code, void *user)
{
	struct slot *sl = user;
	struct mpa_side *m = G;
	if (ev == DDP_MPA_CONNECTED) {
		sl->up = 1;
		m->up++;
		m->inflight--;
		return;
	}
	if (!sl->up) {
		m->failed++;
		m->inflight--;
	} else if (ev != DDP_MPA_CLOSED) {
		m->errors++;
	}
	conn_gone(m, sl, c);
}

static void open_more(struct mpa_side *m)
{
	struct sockaddr_in sa;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)m->port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ddp_mpa_config cfg;
	memset(&cfg, 0, sizeof(cfg));
	cfg.startup_timeout_ms = 30000;
	while (m->port && m->inflight < INFLIGHT && m->next < m->n) {
		struct slot *sl = &m->sl[m->next++];
		if (ddp_mpa_connect(m->sd->base, m->ctx, (struct sockaddr *)&sa, sizeof(sa), &cfg,
				    &c_cbs, c_event, sl, &sl->c) != 0) {
			m->failed++;
			sl->gone = 1;
			continue;
		}
		m->inflight++;
		ddp_session *s = ddp_mpa_session(sl->c);
			if (ddp_post_recv(s, 0, 0, sl->rx, m->sd->o->size, NULL) != 0)
			m->errors++;
	}
}

static int c_init(struct side *sd)
{
	struct mpa_side *m;
	return alloc_side(sd, &m);
}

static int c_start(struct side *sd, int c, int arg)
{
	struct mpa_side *m = sd->llp;
	switch (c) {
	case CMD_OPEN:
		m->port = arg;
		open_more(m);
		return 0;
	case CMD_MOVE:
		m->moving = 1;
		m->last_ms = 0;
		return 0;
	case CMD_STOP:
		m->moving = 0;
		return 0;
	case CMD_REPORT:
		return 0;
	case CMD_CLOSE:
		for (unsigned i = 0; i < m->next; i++)
			if (m->sl[i].c && !m->sl[i].gone)
				ddp_session_close(ddp_mpa_session(m->sl[i].c), 0);
		return 0;
	}
	return -1;
}

static int c_done(struct side *sd, int c)
{
	struct mpa_side *m = sd->llp;
	switch (c) {
	case CMD_OPEN:
		return m->next == m->n && m->inflight == 0;
	case CMD_STOP:
		return m->outstanding == 0;
	case CMD_CLOSE:
		return m->gone + m->failed >= (long)m->next;
	}
	return 1;
}

static void c_tick(struct side *sd)
{
	struct mpa_side *m = sd->llp;
	open_more(m);
	if (!m->moving || !m->n)
		return;
	unsigned k = scale_due(sd->o, m->n, &m->last_ms, &m->acc);
	for (unsigned i = 0; i < k; i++) {
		struct slot *sl = &m->sl[m->cursor];
		m->cursor = (m->cursor + 1) % m->n;
		if (!sl->up || sl->gone || sl->outstanding)
			continue; /* its echo is not back yet: skipped this round */
		if (send_one(m, ddp_mpa_session(sl->c)) == 0) {
			sl->outstanding = 1;
			m->outstanding++;
		}
	}
}

const struct side_ops scale_mpa_client = {c_init, c_start, c_done, c_tick, fill};
