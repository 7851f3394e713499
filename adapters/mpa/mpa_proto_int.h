/*
 * Internals of an MPA connection shared by mpa_proto.c (start-up, the
 * transmit path, the LLP ops), mpa_proto_rx.c (what the deframer hands
 * up goes to DDP) and mpa_proto_info.c (read-only accessors). Not
 * installed.
 */
#ifndef DDP_MPA_PROTO_INT_H
#define DDP_MPA_PROTO_INT_H

#include "mpa/mpa_proto.h"
#include "mpa/mpa_rtr.h"

enum phase {
	PH_IDLE = 0, /* not started */
	PH_WAIT_REQ, /* responder: waiting for the Request */
	PH_DECIDE,   /* responder: Request in, ULP deciding */
	PH_WAIT_REP, /* initiator: Request sent, waiting for the Reply */
	PH_FULL,     /* full operation (FPDUs) */
	PH_LEFT,     /* MPA left after a rejection */
	PH_DONE,     /* failed or closed: nothing more happens */
	PH_N
};

struct mpa_proto {
	mpa_proto_config cfg;
	uint8_t local_pd[MPA_PD_MAX];
	const mpa_proto_io *io;
	void *io_ctx;
	ddp_session *s;
	enum phase phase;

	/* start-up */
	mpa_startup_parser sp;
	mpa_frame req; /* our Request (initiator) */
	mpa_result res;
	int have_res;
	uint8_t sbuf[MPA_FRAME_HDR_LEN + MPA_PD_MAX];
	size_t slen, sdone; /* start-up frame being written */
	int reject_after_write;

	/* full operation */
	mpa_tx_stream tx;
	mpa_deframer rx;
	mpa_fpdu_pool pool; /* FPDU memory for reuse */
	uint32_t mulpdu;
	int tx_ok;      /* responder: a valid FPDU came in (§7.1.4) */
	int expect_rtr; /* responder: first FPDU must be an RTR */
	int swallowing; /* the open rx ticket is our RTR */
	int rtr_bad;    /* the first FPDU was not an RTR */
	uint8_t rtr_hdr[DDP_MAX_HDR_LEN];
	uint8_t rtr_pl[MPA_RTR_READ_PAYLOAD];
	mpa_fpdu *q_head, *q_tail;
	size_t queued;
	unsigned q_fpdus; /* FPDUs in the queue (MPA_TX_FPDU_MAX) */
	int blocked;      /* DDP got DDP_ERR_AGAIN */
	int want_write;
	int closing; /* DDP asked for a graceful close */
	int fin_sent, rx_eof;
	uint64_t writevs;
	uint64_t agains; /* DDP_ERR_AGAIN answers given */
	int in_flush;
};

/* mpa_proto_rx.c: the deframer's sink, wired to the connection's DDP
 * session (the negotiated RTR consumed first, RFC 6581 §9.3). */
extern const mpa_rx_sink mpa_proto_sink;

#endif
