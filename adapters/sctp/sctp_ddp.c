/*
 * DDP over SCTP (RFC 5043): associations as ddp_sessions, the LLP ops
 * table (send side), endpoints. The receive state machine is in
 * sctp_rx.c, what the association does with what it reports (incoming
 * session control, stream actions) in sctp_ctl_rx.c, outgoing control
 * messages in sctp_ctl_tx.c, the session-control calls of sctp.h in
 * sctp_session_api.c, allocations in sctp_alloc.c; usrsctp is behind
 * sctp_ll.h.
 */
#include "ddp_test.h"
#include "sctp/sctp_ddp_int.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dlist.h"
#include "abi.h"
#include "conn_glue.h"
#include "log_limit.h"

/* ------------------------------------------------------------ LLP ops */

/* RFC 5043 §9: the largest unfragmented segment (from the SCTP
 * fragmentation point, which follows the path MTU), a little under the
 * maximum for bundling, never below 516 - 2 */
static uint32_t mulpdu_of(uint32_t max_msg)
{
	uint32_t m = max_msg - SCTP_SSN_LEN;
	return m > SCTP_BUNDLE_ALLOWANCE + SCTP_MIN_USER_MSG ? m - SCTP_BUNDLE_ALLOWANCE
	                                                     : SCTP_MIN_USER_MSG - SCTP_SSN_LEN;
}

/* The path MTU went down (sctp_ll follows EMSGSIZE / ICMP): new segments
 * are cut for it; segments already cut still go (sctp_ll_sendv). */
static void track_mtu(struct ddp_sctp_assoc *a)
{
	uint32_t mm = sctp_ll_max_msg(a->ll);
	if (mm == a->tx_max_msg || mm < SCTP_MIN_USER_MSG)
		return;
	a->tx_max_msg = mm;
	a->tx_mulpdu = mulpdu_of(mm < a->max_msg ? mm : a->max_msg);
	if (a->s)
		ddp_llp_mulpdu_changed(a->s, a->tx_mulpdu);
}

static uint32_t llp_mulpdu(void *llp)
{
	struct ddp_sctp_assoc *a = llp;
	track_mtu(a);
	return a->tx_mulpdu;
}

/* RFC 5043 §10 + the peer's reorder window: at most SCTP_TX_INFLIGHT
 * chunks of a stream may be unacknowledged. usrsctp reports no per-chunk
 * acknowledgement; ss->inflight counts the stream's chunks sent since a
 * moment when at most that many could be outstanding. It restarts at 0
 * when the association is dry (SCTP_SENDER_DRY_EVENT: everything sent was
 * acknowledged), and when it reaches the cap it is lowered to what the
 * association as a whole has outstanding (DATA chunks sent and not
 * acknowledged plus those queued, usrsctp's SCTP_STATUS): no stream can
 * have more. So the cap slides with the acknowledgements instead of
 * waiting for the association to drain: a wait for dry stopped the sender
 * once per window, let the congestion window decay while idle and cut
 * DDP/SCTP to a fifth of raw usrsctp at a 20 ms round trip
 * (docs/performance.md, "Long paths"). */
static int inflight_ok(struct ddp_sctp_assoc *a, struct sctp_sstream *ss)
{
	sctp_ll_path st;
	if (ss->inflight < SCTP_TX_INFLIGHT)
		return 1;
	if (sctp_ll_path_status(a->ll, &st) == 0 &&
	    (uint64_t)st.unacked + st.pending < ss->inflight)
		ss->inflight = st.unacked + st.pending;
	return ss->inflight < SCTP_TX_INFLIGHT;
}

static int llp_send(void *llp, uint32_t stream, const struct iovec *iov, int iovcnt, size_t len,
                    unsigned flags)
{
	struct ddp_sctp_assoc *a = llp;
	struct sctp_sstream *ss;
	uint16_t ssn;
	int rc;

	(void)flags;
	if (a->down)
		return DDP_ERR_CLOSED;
	if (stream >= a->nstreams || iovcnt < 1)
		return DDP_ERR_INVAL;
	if (len > a->mulpdu) /* RFC 5043 §9 */
		return DDP_ERR_TOOBIG;
	track_mtu(a);
	ss = sctp_ss(a, stream);
	if (!ss) /* no session on it ever */
		return DDP_ERR_STATE;
	rc = sctp_stream_tx_peek(&ss->sm, &ssn);
	if (rc == DDP_ERR_AGAIN) {
		a->blocked = 1; /* §6 rule 2: until the Accept */
		return rc;
	}
	if (rc)
		return rc;
	if (a->pc_head)
		sctp_ctl_flush(a);
	if (a->pc_head) {
		a->blocked = 1; /* control first; retried when writable */
		sctp_ll_want_writable(a->ll);
		return DDP_ERR_AGAIN;
	}
	if (!inflight_ok(a, ss)) {
		/* retried on the next acknowledgement (usrsctp's wake-up when
		 * a SACK frees send space) or SENDER_DRY */
		a->blocked = 1;
		sctp_ll_want_writable(a->ll);
		return DDP_ERR_AGAIN;
	}
	/* one SCTP message: DDP-SSN + segment (RFC 5043 §5.2.1), gathered
	 * from the DDP header and the ULP's payload by usrsctp itself */
	uint8_t ssnb[SCTP_SSN_LEN];
	struct iovec small[16], *v = small;
	if (iovcnt + 1 > 16) {
		v = sctp_xmalloc((size_t)(iovcnt + 1) * sizeof(*v));
		/* not DDP_ERR_AGAIN: nothing would ever retry it (no
		 * writable wake-up follows a failed allocation) */
		if (!v)
			return DDP_ERR_NOMEM;
	}
	sctp_ssn_put(ssnb, ssn);
	v[0].iov_base = ssnb;
	v[0].iov_len = SCTP_SSN_LEN;
	memcpy(v + 1, iov, (size_t)iovcnt * sizeof(*iov));
	rc = sctp_ll_sendv(a->ll, (uint16_t)stream, SCTP_PPID_DDP, v, iovcnt + 1);
	if (v != small)
		free(v);
	if (rc == DDP_ERR_AGAIN || rc == DDP_ERR_CLOSED) {
		/* closed: the association is going down and its end comes
		 * from the loop (SCTP_LL_EV_DOWN fails the streams there),
		 * not inside the ULP's ddp_send_*() */
		a->blocked = 1;
		return DDP_ERR_AGAIN;
	}
	if (rc == DDP_ERR_TOOBIG)
		return rc;
	if (rc)
		return DDP_ERR_LLP;
	sctp_stream_tx_data(&ss->sm, &ssn);
	ss->inflight++;
	/* usrsctp copied the message, but its completion (send_done) is
	 * reported from the loop, as over MPA: no ddp_send_*() runs a
	 * callback (ddp.h, "Callbacks") */
	ss->sent++;
	sctp_ll_later(a->ll);
	return DDP_LLP_PENDING;
}

/* Segments one SCTP_LL_EV_LATER reports at most per stream: what the
 * callbacks send meanwhile is reported in the same event up to this, the
 * rest in the next (the loop's other events are not starved). */
#define SCTP_LATER_BUDGET 4096u

/* SCTP_LL_EV_LATER: the segments taken since the last one are done, and
 * stream sessions that ended inside a call of the application are closed
 * for DDP. The callbacks may send (more segments, reported here too, after
 * the call that sent them returned), reset or close streams and free the
 * endpoint (the session is silenced). */
static void run_later(struct ddp_sctp_assoc *a)
{
	for (uint32_t i = 0; i < a->nlive && a->s && !a->down; i++) {
		struct sctp_sstream *ss = a->st[a->live[i]];
		for (uint32_t n = SCTP_LATER_BUDGET; n && ss->sent && a->s && !a->down; n--) {
			ss->sent--;
			ddp_llp_tx_done(a->s, a->live[i]);
		}
		if (ss->closed_later && a->s && !a->down) {
			ss->closed_later = 0;
			ddp_llp_closed(a->s, a->live[i]);
		}
	}
}

static void llp_close_stream(void *llp, uint32_t stream, int abortive)
{
	struct ddp_sctp_assoc *a = llp;
	struct sctp_act act;
	if (a->down || stream >= a->nstreams)
		return;
	if (!abortive) {
		/* RFC 5043 §6.2: the session ends with our Terminate (maybe
		 * deferred by rule 1 until it cannot overtake our Accept) */
		sctp_ctl_send_terminate(a, (uint16_t)stream);
		return;
	}
	struct sctp_sstream *ss = sctp_ss(a, stream);
	if (!ss) /* idle: nothing to end */
		return;
	sctp_stream_abort(&ss->sm, &act);
	if (act.flags & SCTP_ACT_SEND_TERM)
		sctp_ctl_send(a, (uint16_t)stream, SCTP_CTL_TERMINATE, act.term_ssn, NULL, 0);
	if (ss->ulp_pending)
		sctp_ddp_cancel_pending(a, (uint16_t)stream);
}

static void llp_close(void *llp, int abortive)
{
	struct ddp_sctp_assoc *a = llp;
	if (!a->down)
		sctp_ll_close(a->ll, abortive); /* SHUTDOWN or ABORT */
}

static int llp_addr(void *llp, int peer, char *buf, size_t len)
{
	struct ddp_sctp_assoc *a = llp;
	char t[SCTP_LL_ADDR_STRLEN];
	if (!a->ll)
		return DDP_ERR_NOENT;
	if (peer)
		sctp_ll_peer_fmt(a->ll, t);
	else
		sctp_ll_local_fmt(a->ll, t);
	if (!strcmp(t, "?"))
		return DDP_ERR_NOENT;
	if (strlen(t) >= len)
		return DDP_ERR_INVAL;
	strcpy(buf, t);
	return 0;
}

static void llp_close_deadline(void *llp, unsigned ms)
{
	struct ddp_sctp_assoc *a = llp;
	if (!a->down)
		a->close_by_ms = sctp_slots_now_ms() + ms;
}

static const ddp_llp_ops sctp_ops = {
    .send = llp_send,
    .mulpdu = llp_mulpdu,
    .close_stream = llp_close_stream,
    .close = llp_close,
    .close_deadline = llp_close_deadline,
    .addr = llp_addr,
};

/* ------------------------------------------------------------ assoc */

static void assoc_free(struct ddp_sctp_assoc *a)
{
	ddp_sctp_ep *ep = a->ep;
	ep->nassocs--;
	sctp_slots_gone(a);
	DLIST_UNLINK(&ep->assocs, a);
	a->down = 1;
	if (a->s)
		ddp_session_free_owned(a->s);
	sctp_ll_free(a->ll);
	sctp_ctl_drop_all(a);
	sctp_ss_table_free(a);
	free(a->stage);
	free(a);
}

static int assoc_up(struct ddp_sctp_assoc *a)
{
	const ddp_sctp_config *c = &a->ep->cfg;
	ddp_session_config sc = c->session;

	a->nstreams = sctp_ll_nstreams(a->ll);
	/* what we accept stays; what we send follows our path MTU */
	a->max_msg = sctp_ll_max_msg_rx(a->ll);
	a->tx_max_msg = sctp_ll_max_msg(a->ll);
	if (a->nstreams == 0 || a->tx_max_msg < SCTP_MIN_USER_MSG)
		return DDP_ERR_LLP;
	a->mulpdu = mulpdu_of(a->max_msg);
	a->tx_mulpdu = mulpdu_of(a->tx_max_msg);
	a->stage = sctp_xmalloc(a->max_msg + 1);
	if (!a->stage || sctp_ss_table_new(a) != 0)
		return DDP_ERR_NOMEM;
	sc.nstreams = a->nstreams;
	/* the core holds back as many out-of-order segments as the peer may
	 * have in flight (SCTP_TX_INFLIGHT < SCTP_RX_WIN) */
	if (sc.reorder_window < SCTP_RX_WIN)
		sc.reorder_window = SCTP_RX_WIN;
	/* through this file's frames (ddp_sctp_ep_free inside them) */
	int rc = ddp_session_new(c->ctx, &sc, &sctp_ops, a, &a->ep->wcb, a, &a->s);
	ddp_session_set_owned(a->s); /* freed with the association */
	return rc;
}

/* ------------------------------------------------------------ frames */

/* Every callback to the application runs inside a frame of this file:
 * ll_event() / on_accept() for the SCTP callbacks, the w_* wrappers for
 * the DDP callbacks of its sessions (which the core may run inside the
 * application's own ddp_* call, e.g. send_done inside ddp_send_*). In such
 * a frame ddp_sctp_ep_free() only marks the endpoint; when the outermost
 * frame unwinds the free is handed to the event loop (ep_finish), where no
 * frame of the core, of this file or of the low-level glue is left on the
 * stack: the usual deferred free of libevent. */
static void ep_enter(ddp_sctp_ep *ep)
{
	life_enter(&ep->life);
}

static void ep_destroy(ddp_sctp_ep *ep);

static void ep_finish(void *arg)
{
	ddp_sctp_ep *ep = arg;
	ep->fin = NULL; /* ran: nothing to cancel */
	ep_destroy(ep);
}

static void ep_release_now(ddp_llp_release *r)
{
	ep_destroy((ddp_sctp_ep *)((char *)r - offsetof(ddp_sctp_ep, rel)));
}

static void ep_leave(ddp_sctp_ep *ep)
{
	if (!life_leave(&ep->life))
		return;
	ep->rel.release = ep_release_now;
	ddp_llp_release_defer(ep->cfg.ctx, &ep->rel);
	ep->fin = sctp_ll_ep_defer(ep->ll, ep_finish, ep);
	if (!ep->fin)
		/* no memory for the deferral: ddp_ctx_free() releases it
		 * rather than free here what the frames below still use */
		ddp_llp_log(ep->cfg.ctx, DDP_LOG_ERROR,
		            "ddp-sctp: endpoint free deferred without memory: "
		            "released by ddp_ctx_free()");
}

/* The DDP callbacks of the sessions, through the endpoint's frame. */
static void w_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	ddp_sctp_ep *ep = ((struct ddp_sctp_assoc *)user)->ep;
	if (!life_live(&ep->life))
		return;
	ep_enter(ep);
	ep->cfg.ddp.deliver(s, d, ep->cfg.user);
	ep_leave(ep);
}

static void w_send_done(ddp_session *s, uint32_t stream, void *msg_ctx, int status, void *user)
{
	ddp_sctp_ep *ep = ((struct ddp_sctp_assoc *)user)->ep;
	if (!life_live(&ep->life))
		return;
	ep_enter(ep);
	ep->cfg.ddp.send_done(s, stream, msg_ctx, status, ep->cfg.user);
	ep_leave(ep);
}

static void w_error(ddp_session *s, const ddp_error_info *e, void *user)
{
	ddp_sctp_ep *ep = ((struct ddp_sctp_assoc *)user)->ep;
	if (!life_live(&ep->life))
		return;
	ep_enter(ep);
	ep->cfg.ddp.error(s, e, ep->cfg.user);
	ep_leave(ep);
}

static void w_stream_event(ddp_session *s, uint32_t stream, enum ddp_stream_event ev, int status,
                           void *user)
{
	ddp_sctp_ep *ep = ((struct ddp_sctp_assoc *)user)->ep;
	if (!life_live(&ep->life))
		return;
	ep_enter(ep);
	ep->cfg.ddp.stream_event(s, stream, ev, status, ep->cfg.user);
	ep_leave(ep);
}

static void w_writable(ddp_session *s, uint32_t stream, void *user)
{
	ddp_sctp_ep *ep = ((struct ddp_sctp_assoc *)user)->ep;
	if (!life_live(&ep->life))
		return;
	ep_enter(ep);
	ep->cfg.ddp.writable(s, stream, ep->cfg.user);
	ep_leave(ep);
}

static void ll_event_(struct ddp_sctp_assoc *a, enum sctp_ll_event ev, int status);
static uint32_t dead_peer_ms(const ddp_sctp_config *cfg);

/* A peer that stopped answering is named in the log, as MPA names one. */
static void log_unresponsive(const struct ddp_sctp_assoc *a)
{
	char peer[64];
	uint32_t d = dead_peer_ms(&a->ep->cfg);
	if (d)
		ddp_llp_log_limited(a->ep->cfg.ctx, DDP_LOGK_SCTP_UNRESPONSIVE, DDP_LOG_WARN,
		                    "SCTP peer %s unresponsive for %u.%u s (nothing heard; "
		                    "dead_peer_timeout_ms %u): association failed",
		                    sctp_ll_assoc_peer(a->ll, peer), d / 1000, d % 1000 / 100, d);
	else
		ddp_llp_log_limited(a->ep->cfg.ctx, DDP_LOGK_SCTP_UNRESPONSIVE, DDP_LOG_WARN,
		                    "SCTP peer %s unresponsive (retransmission limits of the "
		                    "configuration reached): association failed",
		                    sctp_ll_assoc_peer(a->ll, peer));
}

static void ll_event(sctp_ll_assoc *ll, enum sctp_ll_event ev, int status, void *user)
{
	struct ddp_sctp_assoc *a = user;
	ddp_sctp_ep *ep = a->ep;
	(void)ll;
	ep_enter(ep);
	if (life_live(&ep->life))
		ll_event_(a, ev, status);
	ep_leave(ep);
}

static void ll_event_(struct ddp_sctp_assoc *a, enum sctp_ll_event ev, int status)
{
	const ddp_sctp_config *c = &a->ep->cfg;
	int rc;

	switch (ev) {
	case SCTP_LL_EV_UP:
		/* every stream costs the core's per-stream state: the
		 * endpoint's streams are capped (sctp_slots.c) */
		if (sctp_slots_admit_streams(a->ep, a, sctp_ll_nstreams(a->ll))) {
			sctp_ll_close(a->ll, 1);
			return;
		}
		rc = assoc_up(a);
		if (rc) {
			sctp_ll_close(a->ll, 1);
			return;
		}
		c->sctp.assoc(a, a->s, 0, c->user);
		return;
	case SCTP_LL_EV_READABLE:
		if (a->s)
			sctp_ddp_readable(a);
		return;
	case SCTP_LL_EV_LATER:
		run_later(a);
		return;
	case SCTP_LL_EV_DRY:
		/* everything sent was acknowledged: the streams with state
		 * (a->live: a ULP callback may add to it during the walk;
		 * the array never moves), and those without (idle_tx) */
		sctp_ctl_llp_dry(a);
		if (a->any_idle_tx) {
			memset(a->idle_tx, 0, (a->nstreams + 7) / 8);
			a->any_idle_tx = 0;
		}
		for (uint32_t i = 0; i < a->nlive && !a->down; i++) {
			struct sctp_sstream *ss = a->st[a->live[i]];
			struct sctp_act act;
			memset(&act, 0, sizeof(act));
			ss->inflight = 0;
			act.flags = sctp_stream_tx_confirmed(&ss->sm);
			if (act.flags)
				sctp_ddp_actions(a, a->live[i], &act);
		}
		/* fall through */
	case SCTP_LL_EV_WRITABLE:
		sctp_ddp_writable(a);
		return;
	case SCTP_LL_EV_DOWN:
		/* errors say what happened */
		if (*sctp_ll_assoc_peer_abort(a->ll))
			ddp_llp_log_limited(c->ctx, DDP_LOGK_SCTP_PEER_ABORT, DDP_LOG_WARN,
			                    "SCTP association aborted by the peer: %s",
			                    sctp_ll_assoc_peer_abort(a->ll));
		else if (status == DDP_ERR_TIMEOUT)
			log_unresponsive(a);
		if (a->s) {
			if (status == DDP_ERR_CLOSED)
				ddp_llp_closed(a->s, UINT32_MAX);
			else /* a dead peer is a time-out for the ULP too */
				ddp_llp_failed(a->s, UINT32_MAX,
				               status == DDP_ERR_TIMEOUT ? status : DDP_ERR_LLP);
		}
		/* DDP_ERR_ABORTED: we aborted it (as MPA reports a reset of
		 * ours); DDP_ERR_LLP: lost or aborted by the peer */
		if (a->fatal)
			status = a->fatal;
		sctp_trace_summary(a);
		c->sctp.assoc(a, a->s, status, c->user);
		assoc_free(a);
		return;
	}
}

static const sctp_ll_assoc_cb ll_cbs = {ll_event};

static struct ddp_sctp_assoc *assoc_new(ddp_sctp_ep *ep)
{
	struct ddp_sctp_assoc *a = sctp_xcalloc(1, sizeof(*a));
	if (!a)
		return NULL;
	a->ep = ep;
	DLIST_PUSH(&ep->assocs, a);
	ep->nassocs++;
	return a;
}

static void on_accept(sctp_ll_ep *lep, sctp_ll_assoc *ll, void *user)
{
	ddp_sctp_ep *ep = user;
	(void)lep;
	if (ep->life.closing || ep->unlistened) { /* take nothing new */
		sctp_ll_free(ll);
		return;
	}
	/* every association can hold nstreams reorder windows and pending
	 * Initiates: their number is capped; at the cap the oldest one
	 * without a DDP stream session makes room, else ABORT (sctp_slots.c) */
	if (sctp_slots_admit(ep, ll)) {
		sctp_ll_free(ll);
		return;
	}
	struct ddp_sctp_assoc *a = assoc_new(ep);
	if (!a) {
		sctp_ll_free(ll);
		return;
	}
	a->ll = ll;
	a->inbound = 1;
	a->born_ms = a->idle_ms = sctp_slots_now_ms();
	sctp_ll_assoc_set_cb(ll, &ll_cbs, a);
}

/* ------------------------------------------------------------ public API */

/* Failure detection from cfg->dead_peer_timeout_ms (the default when it
 * and every finer field are 0): an association whose peer sent nothing
 * for that long is dead, as an MPA connection is (ddp.h, "One
 * behaviour"). Heartbeats on an idle path and retransmissions on a busy
 * one ask the peer at least four times in that span (hb_interval and
 * rto_max a quarter of it, unless set), and usrsctp's own retransmission
 * limits, unless set, allow twice the span, so they never decide first.
 * Finer fields without dead_peer_timeout_ms: they alone decide. */
static uint32_t dead_peer_ms(const ddp_sctp_config *cfg)
{
	int finer = cfg->hb_interval_ms || cfg->rto_min_ms || cfg->rto_initial_ms ||
	            cfg->rto_max_ms || cfg->path_max_retrans || cfg->assoc_max_retrans;
	uint32_t d = cfg->dead_peer_timeout_ms;
	return !d && !finer ? DDP_DEAD_PEER_TIMEOUT_MS : d;
}

static void ll_liveness(const ddp_sctp_config *cfg, sctp_ll_config *lc)
{
	uint32_t d = dead_peer_ms(cfg);
	lc->dead_peer_ms = d;
	if (!d)
		return;
	uint32_t q = d / 4 < 100 ? 100 : d / 4 > 10000 ? 10000 : d / 4;
	if (!lc->hb_interval_ms)
		lc->hb_interval_ms = q;
	if (!lc->rto_max_ms)
		lc->rto_max_ms = q;
	if (!lc->assoc_max_retrans) {
		/* time-outs from RTO min, doubling up to RTO max, that last 2 d */
		uint64_t rto = lc->rto_min_ms ? lc->rto_min_ms : 100, sum = 0;
		uint32_t n = 0;
		for (; sum < 2ull * d && n < 65535; n++) {
			sum += rto;
			rto = rto * 2 < lc->rto_max_ms ? rto * 2 : lc->rto_max_ms;
		}
		lc->assoc_max_retrans = (uint16_t)(n < 15 ? 15 : n);
	}
	if (!lc->path_max_retrans)
		lc->path_max_retrans = lc->assoc_max_retrans;
}

void sctp_ddp_ll_config(const ddp_sctp_config *cfg, sctp_ll_config *lc)
{
	memset(lc, 0, sizeof(*lc));
	lc->addr = cfg->addr;
	lc->port = cfg->port;
	lc->nstreams = cfg->nstreams ? cfg->nstreams : 64;
	/* RFC 5043 §11.1: send and require the DDP adaptation code point */
	lc->adaptation = SCTP_ADAPTATION_DDP;
	lc->require_adaptation = 1;
	lc->path_mtu = cfg->path_mtu;
	lc->hb_interval_ms = cfg->hb_interval_ms;
	lc->rto_min_ms = cfg->rto_min_ms;
	lc->rto_initial_ms = cfg->rto_initial_ms;
	lc->rto_max_ms = cfg->rto_max_ms;
	lc->path_max_retrans = cfg->path_max_retrans;
	lc->assoc_max_retrans = cfg->assoc_max_retrans;
	ll_liveness(cfg, lc);
	lc->unfragmented = 1; /* RFC 5043 §5.1 / §9 */
	lc->sndbuf = cfg->sndbuf;
	lc->rcvbuf = cfg->rcvbuf;
	lc->cc = (unsigned)cfg->cc;
}

/* The endpoint's timer (every 100 ms): graceful closes past their
 * deadline end abortively (ddp_session_close_deadline), then the slots'
 * bookkeeping. In the endpoint's frame: the aborts call back. */
static void ep_tick(void *user)
{
	ddp_sctp_ep *ep = user;
	uint64_t now = sctp_slots_now_ms();
	char who[64];
	ep_enter(ep);
	for (struct ddp_sctp_assoc *a = ep->assocs; a && life_live(&ep->life);) {
		if (!a->close_by_ms || a->down || now < a->close_by_ms) {
			a = a->next;
			continue;
		}
		a->close_by_ms = 0;
		ddp_llp_log_limited(ep->cfg.ctx, DDP_LOGK_SCTP_CLOSE_DEADLINE, DDP_LOG_WARN,
		                    "SCTP graceful close to %s not done by its deadline: ABORT",
		                    sctp_ll_assoc_peer(a->ll, who));
		if (a->s)
			ddp_session_close(a->s, 1);
		else
			sctp_ll_close(a->ll, 1);
		a = ep->assocs; /* the callbacks may have changed the list */
	}
	if (life_live(&ep->life))
		sctp_slots_tick(ep);
	ep_leave(ep);
}

/* ddp_sctp_ep_new; plain: sctp_ddp_ep_new_no_adaptation (ddp_test.h) */
static int ep_new(struct event_base *base, const ddp_sctp_config *cfg, int plain, ddp_sctp_ep **out)
{
	sctp_ll_config lc;
	ddp_sctp_ep *ep;
	int rc;

	if (!base || !cfg || !out || !cfg->ctx || !cfg->sctp.assoc || !cfg->sctp.session_ctl ||
	    !cfg->ddp.deliver || (unsigned)cfg->cc > DDP_SCTP_CC_CUBIC)
		return DDP_ERR_INVAL;
	ep = sctp_xcalloc(1, sizeof(*ep));
	if (!ep)
		return DDP_ERR_NOMEM;
	ep->base = base;
	ep->cfg = *cfg;
	ep->wcb.deliver = w_deliver;
	ep->wcb.send_done = cfg->ddp.send_done ? w_send_done : NULL;
	ep->wcb.error = cfg->ddp.error ? w_error : NULL;
	ep->wcb.stream_event = cfg->ddp.stream_event ? w_stream_event : NULL;
	ep->wcb.writable = cfg->ddp.writable ? w_writable : NULL;
	if (!ep->cfg.max_pending_initiates)
		ep->cfg.max_pending_initiates = 64;
	if (!ep->cfg.max_assocs)
		ep->cfg.max_assocs = 256;
	if (!ep->cfg.idle_assoc_timeout_ms)
		ep->cfg.idle_assoc_timeout_ms = 10000;
	if (!ep->cfg.max_ctl_queue_bytes)
		ep->cfg.max_ctl_queue_bytes = 65536;
	if (!ep->cfg.max_streams)
		ep->cfg.max_streams = 65536;
	sctp_ddp_ll_config(cfg, &lc);
	lc.rx_whole_max = SCTP_RX_WHOLE_MAX; /* sctp_rx.c */
	if (plain) {
		lc.adaptation = 0;
		lc.require_adaptation = 0;
	}
	rc = sctp_ll_ep_new(base, &lc, &ep->ll);
	if (rc) {
		free(ep);
		return rc;
	}
	sctp_ll_set_tick(ep->ll, ep_tick, ep);
	sctp_ll_ep_set_log(ep->ll, cfg->ctx);
	*out = ep;
	return 0;
}

int ddp_sctp_ep_new_sized(struct event_base *base, const ddp_sctp_config *cfg, ddp_sctp_ep **out,
                          uint64_t sizes)
{
	ddp_sctp_config cfg_v;
	int rc = DDP_ABI_IN(cfg_v, cfg, sizes, 0);
	if (rc)
		return rc;
	return ep_new(base, cfg ? &cfg_v : NULL, 0, out);
}

int sctp_ddp_ep_new_no_adaptation(struct event_base *base, const ddp_sctp_config *cfg,
                                  ddp_sctp_ep **out)
{
	return ep_new(base, cfg, 1, out);
}

static void ep_destroy(ddp_sctp_ep *ep)
{
	/* freed outside its callbacks, the sessions' frees flush their work
	 * through the callbacks; a ddp_sctp_ep_free() from there is a no-op */
	ep->life.closing = ep->life.released = 1;
	ddp_llp_release_done(&ep->rel);
	sctp_ll_defer_cancel(ep->fin);
	ep->fin = NULL;
	while (ep->assocs) {
		struct ddp_sctp_assoc *a = ep->assocs;
		a->down = 1; /* no association callbacks from here on */
		assoc_free(a);
	}
	sctp_ll_ep_free(ep->ll);
	free(ep);
}

void ddp_sctp_ep_free(ddp_sctp_ep *ep)
{
	if (!ep || ep->life.closing)
		return;
	if (life_close(&ep->life)) {
		ep_destroy(ep);
		return;
	}
	/* inside one of its callbacks: the frames below still use the
	 * associations. Silent at once (no callback of any kind, nothing
	 * placed into the application's buffers); released when the last
	 * frame unwinds (ep_leave). */
	for (struct ddp_sctp_assoc *a = ep->assocs; a; a = a->next) {
		a->down = 1;
		if (a->s)
			ddp_llp_session_silence(a->s);
	}
}

int ddp_sctp_ep_port(const ddp_sctp_ep *ep)
{
	return ep ? sctp_ll_ep_port(ep->ll) : DDP_ERR_INVAL;
}

int ddp_sctp_listen(ddp_sctp_ep *ep)
{
	if (!ep)
		return DDP_ERR_INVAL;
	return sctp_ll_listen(ep->ll, on_accept, ep);
}

int ddp_sctp_unlisten(ddp_sctp_ep *ep)
{
	if (!ep)
		return DDP_ERR_INVAL;
	ep->unlistened = 1;
	return 0;
}

int ddp_sctp_connect(ddp_sctp_ep *ep, const char *addr, int port, ddp_sctp_assoc **out)
{
	struct ddp_sctp_assoc *a;
	int rc;
	if (!ep || !addr || !out)
		return DDP_ERR_INVAL;
	a = assoc_new(ep);
	if (!a)
		return DDP_ERR_NOMEM;
	rc = sctp_ll_connect(ep->ll, addr, port, &ll_cbs, a, &a->ll);
	if (rc) {
		assoc_free(a);
		return rc;
	}
	*out = a;
	return 0;
}

void ddp_sctp_get_stats_sized(const ddp_sctp_assoc *a, ddp_sctp_stats *st, uint64_t sizes)
{
	if (!st)
		return;
	ddp_sctp_stats v = {0};
	if (a) {
		v = a->stats;
		sctp_ll_ep_stats(a->ep->ll, NULL, &v.udp_bad_crc, NULL);
	}
	(void)DDP_ABI_OUT(st, v, sizes, 0);
}

sctp_ll_ep *sctp_ddp_ep_ll(ddp_sctp_ep *ep)
{
	return ep->ll;
}

sctp_ll_assoc *sctp_ddp_assoc_ll(ddp_sctp_assoc *a)
{
	return a->ll;
}

const char *sctp_ddp_stream_state(const ddp_sctp_assoc *a, uint32_t stream)
{
	if (!a || !a->st || stream >= a->nstreams)
		return "?";
	return sctp_sst_name(sctp_ss(a, stream) ? sctp_ss(a, stream)->sm.state : SCTP_SST_IDLE);
}
