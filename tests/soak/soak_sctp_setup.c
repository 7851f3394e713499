/* ddp-soak: the SCTP loads' shared set-up (soak_sctp_setup.h). */
#include <string.h>

#if HAVE_USRSCTP
#include "soak_sctp_setup.h"
#include "sctp/sctp_ssn.h"

void soak_sctp_half_closed(ddp_session *s, uint32_t st, enum ddp_stream_event ev, int status,
                           void *user)
{
	(void)status, (void)user;
	if (ev == DDP_EV_HALF_CLOSED)
		ddp_stream_close(s, st); /* may fail on a broken stream: fine */
}

void soak_sctp_vconfig(ddp_sctp_config *c, ddp_ctx *ctx, ddp_pd *pd, uint16_t nstreams)
{
	memset(c, 0, sizeof(*c));
	c->port = -1;
	c->nstreams = nstreams;
	c->ctx = ctx;
	c->session.pd = pd;
	c->ddp.stream_event = soak_sctp_half_closed;
}

int soak_sctp_vlisten(struct event_base *base, const ddp_sctp_config *c, enum soak_port slot,
                      ddp_sctp_ep **ep)
{
	int rc;
	if ((rc = ddp_sctp_ep_new(base, c, ep)) || (rc = ddp_sctp_listen(*ep)))
		return rc;
	soak_sh->port[slot] = ddp_sctp_ep_port(*ep);
	return 0;
}

int soak_sctp_att_ep(struct event_base *base, uint16_t nstreams, uint32_t bufs, sctp_ll_ep **ep)
{
	sctp_ll_config ac;
	memset(&ac, 0, sizeof(ac));
	ac.port = -1;
	ac.nstreams = nstreams;
	ac.adaptation = SCTP_ADAPTATION_DDP; /* RFC 5043 §11.1 */
	ac.require_adaptation = 1;
	ac.sndbuf = ac.rcvbuf = bufs;
	return sctp_ll_ep_new(base, &ac, ep);
}

void soak_sctp_drain(sctp_ll_assoc *a)
{
	static uint8_t sink[70000];
	sctp_ll_rinfo ri;
	while (sctp_ll_recv(a, sink, sizeof(sink), &ri) >= 0)
		;
}
#endif
