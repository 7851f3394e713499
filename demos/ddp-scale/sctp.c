/* ddp-scale: the DDP/SCTP server and client (scale.h). One endpoint (one
 * UDP socket) per side; the client opens the associations INFLIGHT at a
 * time and initiates `sctp_streams` DDP stream sessions on each (RFC 5043
 * §6.2), the server accepts every one with a receive buffer posted and
 * echoes every message on its stream. While moving the client sends on
 * each (association, stream) in turn, one message outstanding on each. */
#include "scale.h"

#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include <event2/event.h>

#include <ddp/ddp.h>
#include <ddp/sctp.h>

#include "ddp_test.h"

#define INFLIGHT 32 /* client associations being set up at once */

struct aslot {
	ddp_sctp_assoc *a;
	ddp_session *s;
	uint8_t *rx;	      /* streams x size octets: the posted buffers */
	uint8_t *outstanding; /* per stream: its echo is not back yet */
	int up, gone, connecting;
	long open;	      /* stream sessions open */
};

struct sctp_side {
	ddp_ctx *ctx;
	ddp_sctp_ep *ep;
	struct aslot *sl;
	uint8_t *rxmem, *outmem, *txbuf;
	unsigned n, k, next;
	unsigned cursor; /* round-robin over n * k (association, stream) */
	int port, moving;
	long up, gone, failed, inflight, streams, outstanding, errors;
	uint64_t rx, tx, last_ms;
	double acc;
	struct side *sd;
};

static struct sctp_side *G; /* this process's side */

static struct aslot *slot_of(ddp_sctp_assoc *a, ddp_session *s)
{
	struct aslot *sl = s ? ddp_session_user_data(s) : NULL;
	for (unsigned i = 0; !sl && i < G->next; i++)
		if (G->sl[i].a == a)
			sl = &G->sl[i];
	return sl;
}

static int send_one(ddp_session *s, uint32_t stream)
{
	struct iovec v = {G->txbuf, G->sd->o->size};
	if (ddp_send_untagged(s, stream, 0, 0, &v, 1, NULL) != 0) {
		G->errors++;
		return -1;
	}
	G->tx++;
	return 0;
}

static int post(struct aslot *sl, uint32_t stream)
{
	size_t sz = G->sd->o->size;
	if (ddp_post_recv(sl->s, stream, 0, sl->rx + (size_t)stream * sz, sz, NULL) != 0) {
		G->errors++;
		return -1;
	}
	return 0;
}

static void deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	struct aslot *sl = ddp_session_user_data(s);
	if (d->status != 0 || !sl || d->stream >= G->k)
		return;
	G->rx++;
	post(sl, d->stream);
	if (G->sd->server) {
		send_one(s, d->stream);
	} else if (sl->outstanding[d->stream]) {
		sl->outstanding[d->stream] = 0;
		G->outstanding--;
	}
}

static void on_error(ddp_session *s, const ddp_error_info *e, void *user)
{
	G->errors++;
}

static void on_assoc(ddp_sctp_assoc *a, ddp_session *s, int status, void *user)
{
	struct aslot *sl;
	if (status == 0) {
		if (G->sd->server) {
			if (G->next >= G->n) {
				ddp_sctp_close(a, 1);
				return;
			}
			sl = &G->sl[G->next++];
			sl->a = a;
		} else if (!(sl = slot_of(a, NULL))) {
			return;
		}
		sl->s = s;
		sl->up = 1;
		G->up++;
		ddp_session_set_user_data(s, sl);
		if (!G->sd->server) {
			sl->connecting = 0;
			G->inflight--;
			for (uint32_t st = 0; st < G->k; st++)
				if (post(sl, st) == 0 && ddp_sctp_initiate(a, st, NULL, 0) != 0)
					G->errors++;
		}
		return;
	}
	sl = slot_of(a, s);
	if (!sl || sl->gone)
		return;
	if (sl->connecting) {
		sl->connecting = 0;
		G->inflight--;
		G->failed++;
	} else if (status != DDP_ERR_CLOSED) {
		G->errors++;
	}
	sl->gone = 1;
	G->gone++;
	G->streams -= sl->open;
	for (uint32_t st = 0; st < G->k; st++)
		if (sl->outstanding[st]) {
			sl->outstanding[st] = 0;
			G->outstanding--;
		}
	sl->a = NULL;
	sl->s = NULL;
}

static void on_ctl(ddp_sctp_assoc *a, uint32_t stream, enum ddp_sctp_event ev, int status,
		   const void *pd, size_t len, void *user)
{
	struct aslot *sl = slot_of(a, ddp_sctp_session(a));
	if (!sl || stream >= G->k) {
		G->errors++;
		return;
	}
	switch (ev) {
	case DDP_SCTP_INITIATE:
		if (post(sl, stream) == 0 && ddp_sctp_accept(a, stream, NULL, 0) == 0) {
			sl->open++;
			G->streams++;
		}
		break;
	case DDP_SCTP_ACCEPTED:
		sl->open++;
		G->streams++;
		break;
	default:
		G->errors++;
		break;
	}
}

static int init(struct side *sd)
{
	struct sctp_side *m = calloc(1, sizeof(*m));
	if (!m)
		return -1;
	G = m;
	sd->llp = m;
	m->sd = sd;
	m->n = sd->o->sctp_assocs;
	m->k = sd->o->sctp_streams;
	size_t units = (size_t)m->n * m->k;
	m->sl = calloc(m->n, sizeof(*m->sl));
	m->rxmem = malloc(units * sd->o->size);
	m->outmem = malloc(units);
	m->txbuf = malloc(sd->o->size);
	if (!m->sl || !m->rxmem || !m->outmem || !m->txbuf || ddp_ctx_new(NULL, &m->ctx) != 0)
		return -1;
	/* the application's own memory counts in "before" */
	memset(m->sl, 0, m->n * sizeof(*m->sl));
	memset(m->rxmem, 0, units * sd->o->size);
	memset(m->outmem, 0, units);
	memset(m->txbuf, 's', sd->o->size);
	for (unsigned i = 0; i < m->n; i++) {
		m->sl[i].rx = m->rxmem + (size_t)i * m->k * sd->o->size;
		m->sl[i].outstanding = m->outmem + (size_t)i * m->k;
	}
	ddp_sctp_config c;
	memset(&c, 0, sizeof(c));
	c.port = -1;
	c.nstreams = (uint16_t)m->k;
	c.max_assocs = m->n + 64;
	c.max_streams = (m->n + 64) * m->k;
	c.idle_assoc_timeout_ms = DDP_SCTP_IDLE_NEVER;
	c.ctx = m->ctx;
	c.ddp.deliver = deliver;
	c.ddp.error = on_error;
	c.sctp.assoc = on_assoc;
	c.sctp.session_ctl = on_ctl;
	c.user = m;
	if (ddp_sctp_ep_new(sd->base, &c, &m->ep) != 0)
		return -1;
	if (sd->server && ddp_sctp_listen(m->ep) != 0)
		return -1;
	return sd->server ? ddp_sctp_ep_port(m->ep) : 0;
}

static void open_more(struct sctp_side *m)
{
	while (m->port && m->inflight < INFLIGHT && m->next < m->n) {
		struct aslot *sl = &m->sl[m->next++];
		if (ddp_sctp_connect(m->ep, "127.0.0.1", m->port, &sl->a) != 0) {
			m->failed++;
			sl->gone = 1;
			continue;
		}
		sl->connecting = 1;
		m->inflight++;
	}
}

static int start(struct side *sd, int c, int arg)
{
	struct sctp_side *m = sd->llp;
	switch (c) {
	case CMD_OPEN:
		m->port = arg;
		open_more(m);
		return sd->server ? -1 : 0;
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
		if (!sd->server)
			for (unsigned i = 0; i < m->next; i++)
				if (m->sl[i].a && !m->sl[i].gone)
					ddp_sctp_close(m->sl[i].a, 0);
		return 0;
	}
	return -1;
}

static int done(struct side *sd, int c)
{
	struct sctp_side *m = sd->llp;
	switch (c) {
	case CMD_OPEN:
		return m->next == m->n && m->inflight == 0 &&
		       m->streams + m->errors >= m->up * (long)m->k;
	case CMD_STOP:
		return m->outstanding == 0;
	case CMD_CLOSE:
		return sd->server ? m->gone >= m->up : m->gone + m->failed >= (long)m->next;
	}
	return 1;
}

static void tick(struct side *sd)
{
	struct sctp_side *m = sd->llp;
	open_more(m);
	unsigned units = m->n * m->k;
	if (!m->moving || !units)
		return;
	unsigned due = scale_due(sd->o, units, &m->last_ms, &m->acc);
	for (unsigned i = 0; i < due; i++) {
		struct aslot *sl = &m->sl[m->cursor / m->k];
		uint32_t st = m->cursor % m->k;
		m->cursor = (m->cursor + 1) % units;
		if (!sl->up || sl->gone || sl->outstanding[st])
			continue; /* its echo is not back yet: skipped this round */
		if (send_one(sl->s, st) == 0) {
			sl->outstanding[st] = 1;
			m->outstanding++;
		}
	}
}

static void fill(struct side *sd, struct scale_rep *r)
{
	struct sctp_side *m = sd->llp;
	if (!m)
		return;
	r->conns = m->up - m->gone;
	r->streams = m->streams;
	r->gone = m->gone;
	r->msgs_rx = m->rx;
	r->msgs_tx = m->tx;
	r->errors = m->errors + m->failed;
	sctp_ll_rx_areas(&r->rings_now, &r->rings_peak);
}

const struct side_ops scale_sctp_server = {init, start, done, tick, fill};
const struct side_ops scale_sctp_client = {init, start, done, tick, fill};
