/* ddp-xfer over MPA/TCP: one TCP connection (one DDP session, stream 0)
 * per transfer stream. The receiver groups connections by the hello in
 * the MPA Request's private data (see main.c) and rejects strangers. */
#include <stdint.h>
#include <ddp/mpa.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xfer.h"

#define MAX_CONNS (2 * XF_MAX_STREAMS)

struct mconn {
	ddp_mpa_conn *c;
	int idx;    /* transfer stream, -1 while unknown / a stranger */
	int ended;  /* FAILED, REJECTED or CLOSED seen */
};

static ddp_mpa_listener *lis;
static struct mconn conns[MAX_CONNS];

static struct mconn *slot_of(ddp_mpa_conn *c)
{
	for (unsigned i = 0; i < MAX_CONNS; i++)
		if (conns[i].c == c)
			return &conns[i];
	return NULL;
}

static struct mconn *new_slot(ddp_mpa_conn *c)
{
	struct mconn *m = slot_of(NULL);
	if (m) {
		m->c = c;
		m->idx = -1;
		m->ended = 0;
	}
	return m;
}

static int resolve(struct sockaddr_storage *ss, socklen_t *len)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *ai;
	char port[16];
	snprintf(port, sizeof(port), "%d", xf.o.port);
	int rc = getaddrinfo(xf.o.host, port, &hints, &ai);
	if (rc) {
		xf_fail("%s: %s", xf.o.host, gai_strerror(rc));
		return -1;
	}
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*len = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

static void on_event(ddp_mpa_conn *c, enum ddp_mpa_event ev, int err, uint8_t code, void *user)
{
	struct mconn *m = slot_of(c);
	if (!m)
		return;
	if (ev == DDP_MPA_CONNECTED) {
		xf_heard();
		return;
	}
	int sys = errno;
	m->ended = 1;
	if (m->idx < 0) { /* a stranger we rejected: forget it */
		m->c = NULL;
		ddp_mpa_conn_free(c);
		return;
	}
	if (!xf.succeeded && !xf.failed) {
		const char *peer = xf.o.sender ? "receiver" : "sender";
		if (ev == DDP_MPA_REJECTED) {
			ddp_mpa_info i;
			char why[128] = "";
			if (ddp_mpa_get_info(c, &i) == 0 && i.private_data_len) {
				size_t n = i.private_data_len < sizeof(why) - 1 ? i.private_data_len
										 : sizeof(why) - 1;
				memcpy(why, i.private_data, n);
				why[n] = 0;
			}
			xf_fail("stream %d: the %s rejected the connection%s%s", m->idx, peer,
				*why ? ": " : "", why);
		} else if (ev == DDP_MPA_CLOSED) {
			xf_fail("stream %d: the %s closed the connection", m->idx, peer);
		} else if (err == DDP_ERR_SYS) {
			xf_fail("stream %d: connection to %s:%d failed: %s", m->idx, xf.o.host,
				xf.o.port, strerror(sys));
		} else {
			xf_fail("stream %d: connection failed: %s (MPA code %u)", m->idx,
				ddp_strerror(err), code);
		}
	}
	xf_net_closed();
}

static void on_request(ddp_mpa_conn *c, const ddp_mpa_info *req, void *user)
{
	struct mconn *m = new_slot(c);
	if (!m) {
		ddp_mpa_conn_free(c);
		return;
	}
	unsigned idx;
	const char *why = "";
	if (xf.failed || xf.succeeded ||
	    xf_recv_join(ddp_mpa_session(c), 0, c, req->private_data, req->private_data_len, &idx,
			 &why) != 0) {
		if (xf.failed || xf.succeeded)
			why = "transfer over";
		ddp_mpa_reject(c, why, (uint16_t)strlen(why));
		return;
	}
	m->idx = (int)idx;
	xf_heard();
	int rc = ddp_mpa_accept(c, NULL, 0);
	if (rc) {
		xf_fail("stream %u: MPA accept: %s", idx, ddp_strerror(rc));
		return;
	}
	xf_recv_start(idx);
}

static ddp_mpa_config config(void)
{
	ddp_mpa_config cfg = { .revision = 2 };
	/* RFC 5044 §7.1.4: the Responder (our receiver) may send nothing
	 * before the Initiator's first FPDU, but the receiver speaks first
	 * (ADVERT). RFC 6581 peer-to-peer mode: the Initiator sends a
	 * zero-length RTR FPDU at once, which the MPA layer consumes. */
	cfg.peer_to_peer = xf.o.sender;
	/* the sender queues depth (write + DONE) pairs and an END */
	cfg.session.max_tx_queued = 256;
	/* ddp-xfer's own credits bound what is in flight (the receiver's
	 * advertised buffers: depth x chunk per stream); the send queue's
	 * octet limit must not stop a window of large chunks */
	cfg.session.max_tx_octets = UINT64_C(1) << 40;
	cfg.tx_queue_cap = 4u << 20;
	/* a peer that stops acknowledging (host or path gone) is TCP's to
	 * notice after --timeout + 2 s: main.c's own check (nothing heard for
	 * --timeout) speaks first. A peer that only stops reading is kept. */
	cfg.dead_peer_timeout_ms = xf.o.timeout * 1000 + 2000;
	return cfg;
}

static int start(void)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	if (resolve(&ss, &sl))
		return -1;
	ddp_mpa_config cfg = config();
	int rc;
	if (!xf.o.sender) {
		rc = ddp_mpa_listen(xf.base, xf.ctx, (struct sockaddr *)&ss, sl, &cfg,
				    &xf_recv_callbacks, on_request, on_event, NULL, &lis);
		if (rc) {
			xf_fail("MPA listen on %s:%d: %s%s%s", xf.o.host, xf.o.port,
				ddp_strerror(rc), rc == DDP_ERR_SYS ? ": " : "",
				rc == DDP_ERR_SYS ? strerror(errno) : "");
			return -1;
		}
		fprintf(stderr, "recv: listening on %s:%d (MPA/TCP)\n", xf.o.host,
			ddp_mpa_listener_port(lis));
		return 0;
	}
	for (unsigned i = 0; i < xf.nstreams; i++) {
		uint8_t pd[XF_HELLO_LEN];
		xf_send_hello(i, pd);
		cfg.private_data = pd;
		cfg.private_data_len = XF_HELLO_LEN;
		ddp_mpa_conn *c;
		rc = ddp_mpa_connect(xf.base, xf.ctx, (struct sockaddr *)&ss, sl, &cfg,
				     &xf_send_callbacks, on_event, NULL, &c);
		if (rc) {
			xf_fail("connect to %s:%d: %s%s%s", xf.o.host, xf.o.port, ddp_strerror(rc),
				rc == DDP_ERR_SYS ? ": " : "",
				rc == DDP_ERR_SYS ? strerror(errno) : "");
			return -1;
		}
		struct mconn *m = new_slot(c);
		m->idx = (int)i; /* MAX_CONNS > XF_MAX_STREAMS: never NULL */
		/* the session exists at once; nothing arrives before we return
		 * to the loop, so the buffers are posted in time */
		rc = xf_send_prepare(i, ddp_mpa_session(c), 0, c);
		if (rc) {
			xf_fail("stream %u: posting buffers: %s", i, ddp_strerror(rc));
			return -1;
		}
		xf_send_open(i);
	}
	return 0;
}

static void finish(void)
{
	for (unsigned i = 0; i < MAX_CONNS; i++)
		if (conns[i].c && conns[i].idx >= 0 && !conns[i].ended)
			ddp_session_close(ddp_mpa_session(conns[i].c), 0);
}

static int all_closed(void)
{
	for (unsigned i = 0; i < MAX_CONNS; i++)
		if (conns[i].c && conns[i].idx >= 0 && !conns[i].ended)
			return 0;
	return 1;
}

static void net_free(void)
{
	ddp_mpa_listener_free(lis);
	lis = NULL;
	for (unsigned i = 0; i < MAX_CONNS; i++) {
		if (conns[i].c) {
			if (conns[i].idx >= 0)
				xf.str[conns[i].idx].s = NULL;
			ddp_mpa_conn_free(conns[i].c);
		}
		conns[i].c = NULL;
	}
}

const struct xf_net xf_net_mpa = { start, finish, all_closed, net_free };
