/* The SCTP integration tests' endpoints (sctp_end.h). */
#include "sctp_end.h"

#if HAVE_LIBEVENT && HAVE_USRSCTP

void sctp_assoc_seen_note(struct sctp_assoc_seen *w, ddp_sctp_assoc *a, ddp_session *s,
			  int status)
{
	if (status == 0) {
		w->a = a;
		w->s = s;
		w->up = 1;
		return;
	}
	w->down = 1;
	w->down_status = status;
	if (w->a == a) {
		w->a = NULL;
		w->s = NULL;
	}
}

void sctp_end_config(ddp_sctp_config *c, ddp_ctx *ctx, ddp_pd *pd, uint16_t nstreams,
		     const ddp_callbacks *ddp, const ddp_sctp_callbacks *sctp, void *user)
{
	*c = (ddp_sctp_config){
		.port = -1,
		.nstreams = nstreams,
		.ctx = ctx,
		.hb_interval_ms = 1000,
		.rto_max_ms = 1000,
		.path_max_retrans = 4,
		.assoc_max_retrans = 4,
		.session = { .pd = pd },
		.ddp = *ddp,
		.sctp = *sctp,
		.user = user,
	};
}

int sctp_end_open(struct event_base *base, const ddp_sctp_config *c, int listen,
		  ddp_sctp_ep **ep)
{
	int rc = ddp_sctp_ep_new(base, c, ep);
	if (rc == 0 && listen && (rc = ddp_sctp_listen(*ep)) != 0) {
		ddp_sctp_ep_free(*ep);
		*ep = NULL;
	}
	return rc;
}
#endif
