/* What the SCTP integration tests' endpoints share: a configuration with
 * the test's callbacks and failure detection in seconds, the endpoint
 * opened (listening or not), and what an endpoint saw of its one
 * association. Not linked into the libFuzzer builds. */
#ifndef DDP_TEST_SCTP_END_H
#define DDP_TEST_SCTP_END_H

#include <stdint.h>

#include <ddp/ddp.h>
#include <ddp/sctp.h>

struct event_base;

/* The association of an endpoint as its assoc callback reported it. */
struct sctp_assoc_seen {
	ddp_sctp_assoc *a; /* while up */
	ddp_session *s;	   /* its session, while up */
	int up, down;	   /* it came up; it went */
	int down_status;   /* the status it went with */
};

/* Note one assoc callback: up (status 0: a and s kept) or gone (status
 * kept; a and s cleared when a is the association kept). */
void sctp_assoc_seen_note(struct sctp_assoc_seen *w, ddp_sctp_assoc *a, ddp_session *s,
			  int status);

/* *c zeroed, then: any port, nstreams, ctx, session.pd = pd (may be
 * NULL), the callbacks and user; failures detected in seconds (heartbeat
 * every second, RTO at most 1 s, 4 retransmissions on the path and the
 * association: the defaults ride out a 30 s stall, test_sctp_stall). */
void sctp_end_config(ddp_sctp_config *c, ddp_ctx *ctx, ddp_pd *pd, uint16_t nstreams,
		     const ddp_callbacks *ddp, const ddp_sctp_callbacks *sctp, void *user);

/* ddp_sctp_ep_new, then ddp_sctp_listen when listen. Returns 0 or what
 * failed returned (nothing left open then). */
int sctp_end_open(struct event_base *base, const ddp_sctp_config *c, int listen,
		  ddp_sctp_ep **ep);

#endif
