/* Stopping a payload that is being read header-first (ddp_llp_rx_dst
 * answers NULL from then on): an STag revoked (stag.c) or the stream's
 * buffers given back (session.c). Its own file so that neither of them
 * calls rx.c, which calls both (no call cycle in a folder). */
#include "core.h"
#include "rx_flags.h"

/* DDP-SEC-5: an STag revoked while its payload is being read stops the read. */
void rx_revoke(ddp_ctx *ctx, uint32_t stag)
{
	for (ddp_session *s = ctx->sessions; s; s = s->next) {
		ddp_rx *rx = s->active_rx;
		if (rx && rx->tagged_ && rx->stag_ == stag && rx->verdict == DDP_RX_PLACE)
			rx->gen_ |= RX_REVOKED;
	}
}

/* Posted buffers of the stream go back to the ULP: a payload being read into
 * one of them must stop. */
void rx_stale(ddp_session *s, uint32_t stream)
{
	ddp_rx *rx = s->active_rx;
	if (rx && rx->stream_ == stream)
		rx->gen_ |= RX_STALE;
}
