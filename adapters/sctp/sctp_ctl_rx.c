/*
 * What an SCTP association does with what arrived (RFC 5043 §6, RFC 6581
 * §7): the receive machine (sctp_rx.c) reports stream-machine actions,
 * control messages, fatal PPIDs and ordered chunks; this file acts on
 * them: incoming DDP Stream Session control (Initiate to the ULP, the
 * answers to ours, Terminates), the core's window for control chunks'
 * DDP-SSNs, violations as stream errors, and pausing reading while our
 * own control messages are not being taken (sctp_ctl_tx.c).
 */
#include "sctp/sctp_ddp_int.h"
#include "log_limit.h"

#include <stdio.h>
#include <string.h>

static void ulp_ctl(struct ddp_sctp_assoc *a, uint16_t sid, enum ddp_sctp_event ev, int status,
                    const void *priv, size_t len)
{
	const ddp_sctp_config *c = &a->ep->cfg;
	if (c->sctp.session_ctl && !a->down)
		c->sctp.session_ctl(a, sid, ev, status, priv, len, c->user);
}

void sctp_ddp_cancel_pending(struct ddp_sctp_assoc *a, uint16_t sid)
{
	struct sctp_sstream *ss = sctp_ss(a, sid);
	if (!ss || !ss->ulp_pending)
		return;
	ss->ulp_pending = 0;
	a->pending_init--;
	ulp_ctl(a, sid, DDP_SCTP_CANCELLED, DDP_ERR_ABORTED, NULL, 0);
}

/* ------------------------------------------------------------ rx skip */

/* A control chunk used up DDP-SSN ssn of the peer: the core's in-order
 * window must skip it (ddp_llp_rx_skip). When that cannot be recorded
 * (DDP_ERR_LIMIT: the context's max_reorder_bytes; DDP_ERR_NOMEM) the core
 * has stopped the stream with a local catastrophic error (RFC 5041 §7.2,
 * first error wins): the data behind that DDP-SSN could never be
 * delivered. Logged here; the ULP sees the stream error. */
static int rx_skip(struct ddp_sctp_assoc *a, uint16_t sid, uint16_t ssn)
{
	char peer[SCTP_LL_ADDR_STRLEN];
	int rc = ddp_llp_rx_skip(a->s, sid, ssn);
	if (rc == 0)
		return 0;
	ddp_llp_log_limited(
	    a->ep->cfg.ctx, DDP_LOGK_SCTP_SSN_SKIP, DDP_LOG_ERROR,
	    "ddp-sctp: peer %s stream %u: DDP-SSN %u of a control chunk not recorded (%s): "
	    "stream stopped",
	    sctp_ll_peer_fmt(a->ll, peer), (unsigned)sid, (unsigned)ssn, ddp_strerror(rc));
	/* the core stopped it already; this only makes sure (no-op then) */
	ddp_llp_error(a->s, sid, DDP_LAYER_DDP, DDP_ETYPE_CATASTROPHIC, 0);
	return rc;
}

/* ------------------------------------------------------------ actions */

/* seg: the receive machine's report when the actions are about one
 * segment (its DDP header goes into the error report), else NULL. */
static void actions_seg(struct ddp_sctp_assoc *a, uint16_t sid, const struct sctp_act *act,
                        const struct sctp_rx_out *seg)
{
	struct sctp_sstream *ss = sctp_ss(a, sid); /* NULL: idle, never used */
	unsigned f = act->flags;

	if (f & SCTP_ACT_DROP)
		a->stats.rx_dropped++;
	if (f & SCTP_ACT_SEND_TERM)
		sctp_ctl_send(a, sid, SCTP_CTL_TERMINATE, act->term_ssn, NULL, 0);
	if (f & SCTP_ACT_VIOLATION) {
		if (ss && ss->ulp_pending)
			sctp_ddp_cancel_pending(a, sid);
		else { /* first error wins in the core (DDP-ERR-1) */
			if (seg && seg->seg_hdr_len)
				ddp_llp_error_seg(a->s, sid, DDP_LAYER_DDP, DDP_ETYPE_LLP,
				                  act->code, seg->seg_hdr, seg->seg_hdr_len,
				                  seg->seg_len);
			else
				ddp_llp_error(a->s, sid, DDP_LAYER_DDP, DDP_ETYPE_LLP, act->code);
			/* RFC 5041 §6 (DDP-TRD-3): data after the peer's
			 * graceful teardown means abortive teardown */
			if (act->code == DDP_ECODE_LLP_AFTER_CLOSE)
				ddp_stream_abort(a->s, sid);
		}
	}
	if (f & SCTP_ACT_PEER_ABORT)
		sctp_ddp_cancel_pending(a, sid);
	if (f & SCTP_ACT_PEER_CLOSED) /* RFC 5041 §6 half close */
		ddp_llp_peer_closed(a->s, sid);
	if (f & SCTP_ACT_TERM_READY)
		sctp_ctl_send_terminate(a, sid);
	if (f & SCTP_ACT_CLOSED)
		ddp_llp_closed(a->s, sid);
}

void sctp_ddp_actions(struct ddp_sctp_assoc *a, uint16_t sid, const struct sctp_act *act)
{
	actions_seg(a, sid, act, NULL);
}

static const char *ctl_name(uint16_t code)
{
	switch (code) {
	case SCTP_CTL_ACCEPT:
		return "Accept";
	case SCTP_CTL_REJECT:
		return "Reject";
	case SCTP_CTL_TERMINATE:
		return "Terminate";
	case SCTP_CTL_ENH_ACCEPT:
		return "Enhanced Accept";
	case SCTP_CTL_ENH_REJECT:
		return "Enhanced Reject";
	default:
		return "control message";
	}
}

/* A control message on a stream without state (never had a session), that
 * does not start one: an Initiate refused at max_pending_initiates gets
 * its Terminate (RFC 5043 §5.2.3) and the stream stays without state
 * (nothing of that session reaches the core: data on an idle stream is
 * dropped, so no DDP-SSN is skipped); anything else is stray. A peer
 * initiating on every stream thus costs no per-stream memory. */
static void stateless_ctl(struct ddp_sctp_assoc *a, uint16_t sid, const struct sctp_ctl_msg *m,
                          int cap_ok)
{
	struct sctp_stream idle;
	struct sctp_act act;
	sctp_stream_init(&idle);
	sctp_stream_rx_ctl(&idle, m, cap_ok, &act);
	if (act.flags & SCTP_ACT_SEND_TERM) {
		sctp_ctl_send(a, sid, SCTP_CTL_TERMINATE, act.term_ssn, NULL, 0);
		/* in flight until SENDER_DRY: no Initiate of ours before
		 * (sctp_session_api.c) */
		a->idle_tx[sid / 8] |= (uint8_t)(1u << (sid % 8));
		a->any_idle_tx = 1;
		return;
	}
	if (m->code != SCTP_CTL_INITIATE && m->code != SCTP_CTL_ENH_INITIATE) {
		char what[96];
		snprintf(what, sizeof(what), "unsolicited %s ignored (stream idle)",
		         ctl_name(m->code));
		sctp_trace(a, sid, what);
	}
	a->stats.rx_dropped++;
}

/* A PPID-17 message arrived on stream sid. */
static void ctl_in(struct ddp_sctp_assoc *a, uint16_t sid, const uint8_t *buf, size_t len)
{
	struct sctp_sstream *ss = sctp_ss(a, sid);
	struct sctp_stream idle;
	struct sctp_ctl_msg m;
	struct sctp_act act;
	enum sctp_ctl_why why;
	int cap_ok;

	a->stats.rx_ctl++;
	if (sctp_ctl_decode(&m, buf, len, &why) != 0) {
		/* RFC 5043 §6.1: a broken control message ends the session */
		sctp_stream_violation(sctp_sm_or_idle(a, sid, &idle), DDP_ECODE_LLP_BAD_CTL, &act);
		if (act.flags & SCTP_ACT_DROP) /* no session: nothing else */
			sctp_trace(a, sid,
			           "malformed session control message ignored "
			           "(no session)");
		sctp_ddp_actions(a, sid, &act);
		return;
	}
	cap_ok = a->pending_init < a->ep->cfg.max_pending_initiates;
	if (!ss && !(cap_ok && (m.code == SCTP_CTL_INITIATE || m.code == SCTP_CTL_ENH_INITIATE))) {
		stateless_ctl(a, sid, &m, cap_ok);
		return;
	}
	if (!ss && !(ss = sctp_ss_get(a, sid))) {
		/* no memory for the stream: as if over the cap */
		stateless_ctl(a, sid, &m, 0);
		return;
	}
	sctp_stream_rx_ctl(&ss->sm, &m, cap_ok, &act);
	if ((act.flags & SCTP_ACT_DROP) && m.code != SCTP_CTL_INITIATE &&
	    m.code != SCTP_CTL_ENH_INITIATE) {
		/* an answer or Terminate for no session of ours */
		char what[96];
		snprintf(what, sizeof(what), "unsolicited %s ignored (stream %s)", ctl_name(m.code),
		         sctp_sst_name(ss->sm.state));
		sctp_trace(a, sid, what);
	}
	if (act.flags & SCTP_ACT_RESET) {
		/* a new session on a used stream: RFC 5043 §6.1 fresh state */
		if (ss->used)
			ddp_llp_stream_reset(a->s, sid);
		ss->sent = 0;         /* the reset flushed them */
		ss->closed_later = 0; /* the old session's end is moot */
		ss->used = 1;
		ss->has_peer_io = 0;
	}
	if (m.has_ird_ord && (act.flags & (SCTP_ACT_ULP_INITIATE | SCTP_ACT_ACCEPTED))) {
		ss->peer_io = m.ird_ord; /* RFC 6581 §7 */
		ss->has_peer_io = 1;
	}
	if (act.flags & SCTP_ACT_ULP_INITIATE) {
		act.flags &= ~(unsigned)SCTP_ACT_SKIP;
		/* DDP-SSN 0 after the reset: the window's base, no memory
		 * needed, so this cannot fail short of a bug (reported) */
		rx_skip(a, sid, m.ssn);
		ss->ulp_pending = 1;
		a->pending_init++;
		ulp_ctl(a, sid, DDP_SCTP_INITIATE, 0, m.priv, m.priv_len);
	}
	if (act.flags & SCTP_ACT_ACCEPTED) {
		/* tell the ULP first, then release data that overtook it */
		ulp_ctl(a, sid, DDP_SCTP_ACCEPTED, 0, m.priv, m.priv_len);
		if (a->down)
			return;
		act.flags &= ~(unsigned)SCTP_ACT_SKIP;
		rx_skip(a, sid, m.ssn); /* failed: stream stopped, reported */
		ddp_llp_writable(a->s);
	}
	if (act.flags & SCTP_ACT_REJECTED) {
		act.flags &= ~(unsigned)SCTP_ACT_SKIP;
		rx_skip(a, sid, m.ssn); /* the session is over either way */
		ulp_ctl(a, sid, DDP_SCTP_REJECTED,
		        m.code == SCTP_CTL_TERMINATE ? DDP_ERR_CLOSED : DDP_ERR_REJECTED, m.priv,
		        m.priv_len);
		/* sends the ULP queued for it cannot go anywhere */
		if (!a->down)
			ddp_llp_failed(a->s, sid, DDP_ERR_REJECTED);
	}
	if (act.flags & SCTP_ACT_SKIP)
		rx_skip(a, sid, m.ssn); /* failed: stream stopped, reported */
	if (!a->down)
		sctp_ddp_actions(a, sid, &act);
}

/* Association-level failure (wrong PPID, ...): ABORT. */
static void fatal(struct ddp_sctp_assoc *a, int err)
{
	if (a->down)
		return;
	a->fatal = err;
	if (a->s)
		ddp_llp_failed(a->s, UINT32_MAX, err);
	sctp_ll_close(a->ll, 1);
}

/* The receive machine (sctp_rx.c) reads; this acts on what it reports. */
void sctp_ddp_readable(struct ddp_sctp_assoc *a)
{
	struct sctp_rx_out o;
	char peer[SCTP_LL_ADDR_STRLEN];

	while (!a->down && !a->fatal) {
		if (sctp_ctl_queue_full(a)) {
			/* our answers are not being taken: stop reading
			 * until usrsctp took half of them (sctp_ctl_tx.c) */
			a->rx_paused = 1;
			return;
		}
		switch (sctp_rx_next(a, &o)) {
		case SCTP_RX_ACTIONS:
			actions_seg(a, o.sid, &o.act, &o);
			break;
		case SCTP_RX_CONTROL:
			ctl_in(a, o.sid, o.ctl, o.ctl_len);
			break;
		case SCTP_RX_ORDERED:
			/* RFC 5043 §5.1 (sender MUST send U=1): accepted,
			 * the DDP-SSN orders it (README "Ordered chunks") */
			sctp_trace(a, o.sid,
			           o.ppid == SCTP_PPID_CTL
			               ? "ordered (U=0) session control chunk accepted"
			               : "ordered (U=0) DDP segment chunk accepted");
			break;
		case SCTP_RX_FATAL:
			ddp_llp_log_limited(
			    a->ep->cfg.ctx, DDP_LOGK_SCTP_NOT_DDP, DDP_LOG_WARN,
			    "ddp-sctp: peer %s stream %u: PPID %u is not DDP (16/17): ABORT",
			    sctp_ll_peer_fmt(a->ll, peer), (unsigned)o.sid, (unsigned)o.ppid);
			fatal(a, o.err);
			return;
		default:
			return;
		}
	}
}

void sctp_ddp_writable(struct ddp_sctp_assoc *a)
{
	sctp_ctl_flush(a);
	if (a->rx_paused && a->pc_bytes <= a->ep->cfg.max_ctl_queue_bytes / 2) {
		a->rx_paused = 0;
		if (a->s && !a->down)
			sctp_ddp_readable(a);
	}
	if (a->blocked && a->s && !a->down) {
		a->blocked = 0;
		ddp_llp_writable(a->s);
	}
}
