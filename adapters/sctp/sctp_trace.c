/*
 * Control-plane trace of the DDP/SCTP adapter: what a
 * peer does to session control without any session effect (unsolicited
 * Accept / Reject / Terminate, malformed control on a stream without a
 * session, ordered U=0 chunks, a PPID other than 16/17) goes to the
 * context's log hook with the peer's address and the stream, rate-limited
 * per association. Called by sctp_ddp.c only.
 */
#include "sctp/sctp_ddp_int.h"
#include "log_limit.h"

void sctp_trace(struct ddp_sctp_assoc *a, uint16_t sid, const char *what)
{
	char peer[SCTP_LL_ADDR_STRLEN];
	ddp_ctx *ctx = a->ep->cfg.ctx;
	a->trace_n++;
	if (a->trace_n <= SCTP_TRACE_FIRST) {
		ddp_llp_log_limited(ctx, DDP_LOGK_SCTP_CONTROL, DDP_LOG_WARN,
		                    "ddp-sctp: peer %s stream %u: %s%s",
		                    sctp_ll_peer_fmt(a->ll, peer), (unsigned)sid, what,
		                    a->trace_n == SCTP_TRACE_FIRST
		                        ? " (further ones on this association are counted)"
		                        : "");
		return;
	}
	if ((a->trace_n - SCTP_TRACE_FIRST) % SCTP_TRACE_EVERY == 0)
		ddp_llp_log_limited(ctx, DDP_LOGK_SCTP_CONTROL, DDP_LOG_WARN,
		                    "ddp-sctp: peer %s: %llu control-plane anomalies so far",
		                    sctp_ll_peer_fmt(a->ll, peer), (unsigned long long)a->trace_n);
}

/* The count of the ones not logged, when the association goes. */
void sctp_trace_summary(struct ddp_sctp_assoc *a)
{
	char peer[SCTP_LL_ADDR_STRLEN];
	if (a->trace_n <= SCTP_TRACE_FIRST)
		return;
	ddp_llp_log_limited(
	    a->ep->cfg.ctx, DDP_LOGK_SCTP_CONTROL, DDP_LOG_WARN,
	    "ddp-sctp: peer %s: %llu control-plane anomalies in all, %llu not logged",
	    sctp_ll_peer_fmt(a->ll, peer), (unsigned long long)a->trace_n,
	    (unsigned long long)(a->trace_n - SCTP_TRACE_FIRST));
}
