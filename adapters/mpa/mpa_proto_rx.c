/*
 * What the deframer hands up from an MPA connection goes to DDP (the sink
 * of mpa_deframer.h): header-first placement, staged small FPDUs, errors
 * and copies; the negotiated RTR is consumed here first (RFC 6581 §9.3).
 */
#include "mpa/mpa_proto_int.h"

#include <string.h>

static int sink_begin(void *ctx, const uint8_t *hdr, size_t hl, size_t pl, ddp_rx *rx)
{
	mpa_proto *c = ctx;

	if (c->expect_rtr) {
		/* RFC 6581 §9.3: the first FPDU is the negotiated RTR; we
		 * consume it here, DDP never sees it. */
		c->expect_rtr = 0;
		if (!mpa_rtr_match(c->res.rtr, hdr, hl, pl)) {
			c->rtr_bad = 1;
			return DDP_ERR_PROTO;
		}
		memset(rx, 0, sizeof(*rx));
		rx->verdict = DDP_RX_DROP;
		rx->payload_len = pl;
		c->swallowing = 1;
		return 0;
	}
	return ddp_llp_rx_begin(c->s, 0, DDP_LLP_INORDER, hdr, hl, pl, rx);
}

static void *sink_dst(void *ctx, ddp_rx *rx, size_t off)
{
	mpa_proto *c = ctx;
	return ddp_llp_rx_dst(c->s, rx, off);
}

static int sink_end(void *ctx, ddp_rx *rx, int ok)
{
	mpa_proto *c = ctx;
	int rc = 0;

	if (c->swallowing)
		c->swallowing = 0;
	else
		rc = ddp_llp_rx_end(c->s, rx, ok);
	/* RFC 5044 §7.1.4: the Responder sends nothing before it received
	 * and validated one FPDU. */
	if (ok && !c->tx_ok && c->phase == PH_FULL) {
		c->tx_ok = 1;
		ddp_llp_writable(c->s);
	}
	return rc;
}

static int sink_segment(void *ctx, const uint8_t *seg, size_t len)
{
	mpa_proto *c = ctx;

	if (c->expect_rtr) {
		c->expect_rtr = 0;
		size_t hl = ddp_hdr_len(seg[0]);
		if (len < hl || !mpa_rtr_match(c->res.rtr, seg, hl, len - hl)) {
			c->rtr_bad = 1;
			return DDP_ERR_PROTO;
		}
	} else {
		/* staged small FPDU: one counted copy inside the core */
		int rc = ddp_llp_rx_segment(c->s, 0, DDP_LLP_INORDER, seg, len);
		if (rc < 0)
			return rc;
	}
	if (!c->tx_ok && c->phase == PH_FULL) {
		c->tx_ok = 1;
		ddp_llp_writable(c->s);
	}
	return 0;
}

static void sink_error(void *ctx, uint8_t layer, uint8_t etype, uint8_t code)
{
	mpa_proto *c = ctx;

	if (c->rtr_bad) {
		/* RFC 6581 §9.3: the first FPDU was no negotiated RTR */
		c->rtr_bad = 0;
		layer = DDP_LAYER_LLP;
		etype = 0;
		code = DDP_MPA_ECODE_NO_RTR;
	}
	c->swallowing = 0;
	/* RFC 5044 §8: report to DDP; codes 2/3 do not close TCP here */
	ddp_llp_error(c->s, 0, layer, etype, code);
}

static void sink_copied(void *ctx, size_t n)
{
	mpa_proto *c = ctx;
	if (c->s)
		ddp_llp_count_copy(c->s, n);
}

const mpa_rx_sink mpa_proto_sink = {sink_begin,   sink_dst,   sink_end,
                                    sink_segment, sink_error, sink_copied};
