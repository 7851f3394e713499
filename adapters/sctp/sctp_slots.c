/*
 * Association slots of a listening SCTP endpoint, so that associations
 * that never Initiate a DDP stream session cannot hold every slot and
 * lock new clients out unnoticed:
 *
 *  - an accepted association that has had no DDP stream session (no
 *    stream being initiated, open or closing, RFC 5043 §6) for
 *    ddp_sctp_config.idle_assoc_timeout_ms (default 10 s) is ended with a
 *    graceful SHUTDOWN (ABORT if that has not finished 5 s later);
 *  - at max_assocs the oldest such unproductive association is ABORTed to
 *    make room for the new one; only when every association holds a
 *    stream session is the new one refused (ABORT);
 *  - each time-out, eviction and refusal is logged (DDP_LOG_WARN) with
 *    the peer's UDP address.
 *
 *  - the streams of all associations together are capped too
 *    (ddp_sctp_config.max_streams, default 65536): each stream costs the
 *    core's per-stream state whether or not it is used, so a few hundred
 *    peers asking for 65,535 streams each would take gigabytes of address
 *    space (docs/performance.md, section 18). An
 *    association that does not fit evicts the oldest unproductive ones,
 *    else it is refused (ABORT), logged like the association cap.
 *
 * Associations this endpoint opened (ddp_sctp_connect) are the
 * application's own: neither reaped nor evicted. Ended associations
 * still count until their DOWN event, but no longer against the cap
 * (ep->nleaving). Driven by the endpoint's timer (sctp_ll_set_tick).
 */
#include "sctp/sctp_ddp_int.h"
#include "log_limit.h"

#include <time.h>

#include <ddp/llp.h>

#define SHUTDOWN_GRACE_MS 5000 /* then ABORT */

uint64_t sctp_slots_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* A stream being initiated, open or closing is a DDP stream session. */
static int has_session(const struct ddp_sctp_assoc *a)
{
	if (!a->s || !a->st)
		return 0;
	for (uint32_t i = 0; i < a->nlive; i++) {
		uint8_t s = a->st[a->live[i]]->sm.state;
		if (s != SCTP_SST_IDLE && s != SCTP_SST_CLOSED)
			return 1;
	}
	return 0;
}

static void uncount_streams(struct ddp_sctp_assoc *a)
{
	if (a->streams_counted) {
		a->streams_counted = 0;
		a->ep->nstreams_used -= a->nstreams;
	}
}

static void end_assoc(struct ddp_sctp_assoc *a, int abortive, uint64_t now)
{
	uncount_streams(a);
	if (!a->leaving) {
		a->leaving = 1;
		a->leave_ms = now;
		a->ep->nleaving++;
	}
	sctp_ll_close(a->ll, abortive);
}

void sctp_slots_gone(struct ddp_sctp_assoc *a)
{
	uncount_streams(a);
	if (a->leaving)
		a->ep->nleaving--;
}

/* The oldest accepted association without a DDP stream session, other
 * than skip. */
static struct ddp_sctp_assoc *oldest_unproductive(ddp_sctp_ep *ep, uint64_t now,
                                                  const struct ddp_sctp_assoc *skip)
{
	struct ddp_sctp_assoc *best = NULL;
	for (struct ddp_sctp_assoc *a = ep->assocs; a; a = a->next) {
		if (!a->inbound || a->leaving || a->down || a == skip)
			continue;
		if (has_session(a)) {
			a->idle_ms = now;
			continue;
		}
		/* the list is newest first: on a tie the later one is older */
		if (!best || a->born_ms <= best->born_ms)
			best = a;
	}
	return best;
}

int sctp_slots_admit(ddp_sctp_ep *ep, sctp_ll_assoc *ll)
{
	char who[64], old[64];
	if (ep->nassocs - ep->nleaving < ep->cfg.max_assocs)
		return 0;
	uint64_t now = sctp_slots_now_ms();
	struct ddp_sctp_assoc *v = oldest_unproductive(ep, now, NULL);
	if (!v) {
		ddp_llp_log_limited(ep->cfg.ctx, DDP_LOGK_SCTP_ASSOC_CAP, DDP_LOG_WARN,
		                    "SCTP association cap %u reached, every association "
		                    "has a DDP stream session: refused %s",
		                    ep->cfg.max_assocs, sctp_ll_assoc_peer(ll, who));
		return -1;
	}
	ddp_llp_log_limited(ep->cfg.ctx, DDP_LOGK_SCTP_ASSOC_CAP, DDP_LOG_WARN,
	                    "SCTP association cap %u reached: evicted %s (up %llu ms, no "
	                    "DDP stream session for %llu ms) for %s",
	                    ep->cfg.max_assocs, sctp_ll_assoc_peer(v->ll, old),
	                    (unsigned long long)(now - v->born_ms),
	                    (unsigned long long)(now - v->idle_ms), sctp_ll_assoc_peer(ll, who));
	end_assoc(v, 1, now);
	return 0;
}

int sctp_slots_admit_streams(ddp_sctp_ep *ep, struct ddp_sctp_assoc *a, uint32_t nstreams)
{
	char who[64], old[64];
	uint64_t max = ep->cfg.max_streams, now = sctp_slots_now_ms();
	while (a->inbound && ep->nstreams_used + nstreams > max) {
		struct ddp_sctp_assoc *v = nstreams <= max ? oldest_unproductive(ep, now, a) : NULL;
		if (!v) {
			ddp_llp_log_limited(ep->cfg.ctx, DDP_LOGK_SCTP_STREAM_CAP, DDP_LOG_WARN,
			                    "SCTP stream cap %llu reached (%llu in use): refused "
			                    "%s with %u streams",
			                    (unsigned long long)max,
			                    (unsigned long long)ep->nstreams_used,
			                    sctp_ll_assoc_peer(a->ll, who), nstreams);
			return -1;
		}
		ddp_llp_log_limited(ep->cfg.ctx, DDP_LOGK_SCTP_STREAM_CAP, DDP_LOG_WARN,
		                    "SCTP stream cap %llu reached: evicted %s (%u streams, no DDP "
		                    "stream session for %llu ms) for %s with %u streams",
		                    (unsigned long long)max, sctp_ll_assoc_peer(v->ll, old),
		                    v->nstreams, (unsigned long long)(now - v->idle_ms),
		                    sctp_ll_assoc_peer(a->ll, who), nstreams);
		end_assoc(v, 1, now);
	}
	a->nstreams = nstreams;
	a->streams_counted = 1;
	ep->nstreams_used += nstreams;
	return 0;
}

void sctp_slots_tick(void *user)
{
	ddp_sctp_ep *ep = user;
	uint32_t to = ep->cfg.idle_assoc_timeout_ms;
	uint64_t now = sctp_slots_now_ms();
	char who[64];
	for (struct ddp_sctp_assoc *a = ep->assocs; a; a = a->next) {
		if (!a->inbound || a->down)
			continue;
		if (a->leaving) {
			/* a peer that does not complete the SHUTDOWN */
			if (!a->aborting && now - a->leave_ms >= SHUTDOWN_GRACE_MS) {
				a->aborting = 1;
				ddp_llp_log_limited(
				    ep->cfg.ctx, DDP_LOGK_SCTP_SHUTDOWN_ABORT, DDP_LOG_WARN,
				    "SCTP association from %s: SHUTDOWN not "
				    "finished after %u ms: ABORT",
				    sctp_ll_assoc_peer(a->ll, who), SHUTDOWN_GRACE_MS);
				sctp_ll_close(a->ll, 1);
			}
			continue;
		}
		if (has_session(a)) {
			a->idle_ms = now;
			continue;
		}
		if (to == DDP_SCTP_IDLE_NEVER || now - a->idle_ms < to)
			continue;
		ddp_llp_log_limited(ep->cfg.ctx, DDP_LOGK_SCTP_IDLE, DDP_LOG_WARN,
		                    "SCTP association from %s timed out: no DDP stream "
		                    "session for %llu ms (idle_assoc_timeout_ms %u): SHUTDOWN",
		                    sctp_ll_assoc_peer(a->ll, who),
		                    (unsigned long long)(now - a->idle_ms), to);
		end_assoc(a, 0, now);
	}
}
