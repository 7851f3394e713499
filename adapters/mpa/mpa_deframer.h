/*
 * MPA receive deframer (RFC 5044 §4, §8): a resumable state machine that
 * reads FPDUs through a callback straight into the DDP core's destination
 * (header-first placement), routes markers around, stages small FPDUs
 * through our buffers (policy in mpa_readahead.h) and gives the MPA CRC
 * verdict before any other. Pure: no sockets, no libevent.
 */
#ifndef DDP_MPA_DEFRAMER_H
#define DDP_MPA_DEFRAMER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include <ddp/llp.h>

#include "mpa/mpa_fpdu.h"
#include "mpa/mpa_readahead.h"

/* Octets read ahead together with a payload's last piece: PAD + CRC (at
 * most 7) and the next ULPDU_Length + the longest DDP header; when a small
 * FPDU followed the last large one (the tail segment of a message), that
 * whole FPDU too (see mpa_dfr_set_readv). */
#define MPA_SCATTER_AHEAD (3 + 4 + 2 + 18)

/* Read callback: read up to n octets into dst. Returns > 0 octets read,
 * 0 when nothing is available now, or a negative DDP_ERR_*: DDP_ERR_CLOSED
 * at orderly end of stream (FIN), another code for a failure. */
typedef ssize_t (*mpa_read_fn)(void *io, void *dst, size_t n);

/* Optional scatter read: as mpa_read_fn, filling iov[0], then iov[1], ...
 * in order (one recvmsg). Returns the total octets read. */
typedef ssize_t (*mpa_readv_fn)(void *io, const struct iovec *iov, int iovcnt);

/* Where the deframer sends ULPDUs: the DDP core's header-first entry
 * points (mpa_proto wires these to ddp_llp_rx_begin/dst/end and
 * ddp_llp_error), or a test double. */
typedef struct mpa_rx_sink {
	int (*begin)(void *ctx, const uint8_t *hdr, size_t hdr_len, size_t payload_len, ddp_rx *rx);
	void *(*dst)(void *ctx, ddp_rx *rx, size_t off);
	int (*end)(void *ctx, ddp_rx *rx, int ok);
	/* optional: a whole staged ULPDU, CRC already verified (small FPDUs,
	 * see mpa_dfr_set_stage_max); maps to ddp_llp_rx_segment() */
	int (*segment)(void *ctx, const uint8_t *seg, size_t len);
	/* stream stopped: (layer, etype, code) as for ddp_llp_error() */
	void (*error)(void *ctx, uint8_t layer, uint8_t etype, uint8_t code);
	/* optional: n payload octets of a header-first FPDU were served from
	 * our read-ahead buffer (a copy; maps to ddp_llp_count_copy()) */
	void (*copied)(void *ctx, size_t n);
} mpa_rx_sink;

enum mpa_dfr_state {
	MPA_DFR_LEN = 0, /* ULPDU_Length */
	MPA_DFR_HDR,     /* DDP header */
	MPA_DFR_PAYLOAD, /* payload into the core's destination */
	MPA_DFR_DISCARD, /* payload read and thrown away */
	MPA_DFR_STAGE,   /* small ULPDU read into our buffer */
	MPA_DFR_TRAILER, /* PAD + CRC */
	MPA_DFR_ERROR,   /* stopped; input is drained and ignored */
	MPA_DFR_NSTATES
};

typedef struct mpa_deframer {
	enum mpa_dfr_state state;
	int markers, crc;
	uint32_t max_ulpdu;  /* larger ULPDU_Length stops the stream */
	uint64_t pos;        /* FPDU-stream octets consumed (markers incl.) */
	uint64_t fpdu_start; /* pos of this FPDU's ULPDU_Length */
	uint32_t crc_acc;
	size_t got;  /* octets of the current state */
	int started; /* this FPDU's first octet was seen */
	uint16_t ulpdu_len;
	size_t hdr_len, payload_len, pad_len;
	uint8_t lh[MPA_LEN_FIELD + DDP_TAGGED_HDR_LEN]; /* length + 14 */
	int len_ok;                                     /* ULPDU_Length checked */
	uint8_t hdr[DDP_MAX_HDR_LEN];
	uint8_t trailer[3 + MPA_CRC_LEN];
	uint8_t mk[MPA_MARKER_LEN];
	size_t mk_got;   /* octets of a marker being read (0..3) */
	int bad_marker;  /* a marker disagreed with ULPDU_Length */
	uint8_t len_err; /* ULPDU_Length out of range: the DDP code,
	                  * reported once the CRC passed (0: none) */
	int ticket_open;
	int staged;         /* this FPDU is being staged */
	mpa_readv_fn readv; /* optional: see mpa_dfr_set_readv */
	mpa_readahead ra;   /* read-ahead policy and buffers */
	ddp_rx rx;
	const mpa_rx_sink *sink;
	void *sink_ctx;
	/* statistics */
	uint64_t fpdus, crc_errors, marker_errors;
	uint8_t err_layer, err_etype, err_code; /* the stopping error */
} mpa_deframer;

const char *mpa_dfr_state_name(enum mpa_dfr_state st);

/* Start a deframer at the first FPDU octet of the direction.
 * max_ulpdu 0 = MPA_MULPDU_MAX. */
void mpa_dfr_init(mpa_deframer *d, int markers, int crc, uint32_t max_ulpdu,
                  const mpa_rx_sink *sink, void *sink_ctx);

/* Read and process input until the reader has nothing more. Returns
 * DDP_ERR_NEED_MORE (the reader returned 0: wait for input), or the
 * reader's negative code (DDP_ERR_CLOSED at EOF, ...). Protocol errors do
 * not end the call: they are reported once through sink->error, the
 * deframer enters MPA_DFR_ERROR and from then on drains and ignores input
 * (RFC 5044 §8: no more FPDUs passed up, TCP not closed for codes 2/3).
 * The CRC verdict comes first (RFC 5044 §4.4, §6), for every ULPDU_Length:
 *  - CRC mismatch: (2, 0, DDP_MPA_ECODE_CRC), RFC 5044 §4.4;
 *  - marker FPDUPTR disagreeing with ULPDU_Length (CRC good or off):
 *    (2, 0, DDP_MPA_ECODE_MARKER), RFC 5044 §4.3. A marker due right
 *    before an FPDU's ULPDU_Length MUST be 0; when it is not (e.g. a peer
 *    that omits the markers it agreed to) the FPDU's start, hence its end,
 *    is unknown and no CRC can be checked: this error comes at once;
 *  - ULPDU_Length above max_ulpdu: (1, DDP_ETYPE_LLP,
 *    DDP_ECODE_LLP_OVERSIZE); shorter than the DDP header:
 *    (1, DDP_ETYPE_LLP, DDP_ECODE_LLP_SHORT). With CRCs on, reported only
 *    after the rest of that FPDU (its end is known from ULPDU_Length) was
 *    read and its CRC passed; a bad CRC makes it a CRC error. With CRCs
 *    off, at once. */
int mpa_dfr_run(mpa_deframer *d, mpa_read_fn rd, void *io);

/* Stage ULPDUs of at most n octets (clamped to what the stage buffer
 * holds: MPA_STAGE_MAX, or MPA_RING_STAGE_MAX with a ring; 0 = never;
 * needs sink->segment): such an FPDU is read whole into our buffer, its CRC
 * checked, and only then handed to DDP with sink->segment (one copy of its
 * payload, counted by the core; RFC 5044 §4.4 CRC before DDP). Larger
 * FPDUs always take the header-first path (no copy). Call after
 * mpa_dfr_set_ring. */
void mpa_dfr_set_stage_max(mpa_deframer *d, uint32_t n);

/* Give the deframer a ring of MPA_RING_ALLOC octets (owned by the caller,
 * valid until the deframer is re-initialised or no longer run; NULL:
 * none). With it, runs of small FPDUs are read up to MPA_RING_LEN octets
 * per call and FPDUs up to MPA_RING_STAGE_MAX can be staged (see
 * mpa_readahead.h). */
void mpa_dfr_set_ring(mpa_deframer *d, uint8_t *ring);

/* Give the deframer a scatter reader (NULL: none). The last read of a
 * header-first payload then takes the payload's remainder into the ULP
 * buffer and, in the same call, PAD + CRC and the next FPDU's
 * ULPDU_Length + DDP header (MPA_SCATTER_AHEAD octets) into our read-ahead
 * buffer: one read per large FPDU instead of two or three. When the last
 * DDP message ended with a small (staged) FPDU, e.g. 64 KiB messages over a
 * 64768-octet MULPDU, and the current FPDU sits just before where that
 * tail sat (same index in its message, L=0), the tail's length comes along
 * too, so a large message with its small tail costs one read per large
 * FPDU.
 * Octets of a header-first payload that came along by misprediction are
 * served from our buffer and counted (sink->copied). */
void mpa_dfr_set_readv(mpa_deframer *d, mpa_readv_fn fn);

/* The stream ended or failed in the middle of an FPDU: close an open
 * receive ticket with ok = 0 (nothing of the segment counts) and enter
 * MPA_DFR_ERROR without reporting an error. Returns 1 when an FPDU was cut
 * short (octets of it had been read), else 0. */
int mpa_dfr_abort(mpa_deframer *d);

#endif
