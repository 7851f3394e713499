/*
 * MPA receive deframer (RFC 5044 §4): a resumable state machine that
 * survives any segmentation, routes markers around, reads payload straight
 * into the destination the DDP core names (header-first placement) and
 * checks the CRC before the segment counts.
 */
#include "mpa/mpa_deframer.h"

#include <string.h>

#include "common/crc32c.h"
#include "cursor.h"

static const char *const state_names[MPA_DFR_NSTATES] = {
    [MPA_DFR_LEN] = "ULPDU_LENGTH", [MPA_DFR_HDR] = "DDP_HEADER", [MPA_DFR_PAYLOAD] = "PAYLOAD",
    [MPA_DFR_DISCARD] = "DISCARD",  [MPA_DFR_STAGE] = "STAGE",    [MPA_DFR_TRAILER] = "PAD_CRC",
    [MPA_DFR_ERROR] = "ERROR",
};

const char *mpa_dfr_state_name(enum mpa_dfr_state st)
{
	if ((unsigned)st >= MPA_DFR_NSTATES)
		return "?";
	return state_names[st];
}

void mpa_dfr_init(mpa_deframer *d, int markers, int crc, uint32_t max_ulpdu,
                  const mpa_rx_sink *sink, void *sink_ctx)
{
	memset(d, 0, sizeof(*d));
	d->state = MPA_DFR_LEN;
	d->markers = markers;
	d->crc = crc;
	d->max_ulpdu = (max_ulpdu == 0 || max_ulpdu > MPA_MULPDU_MAX) ? MPA_MULPDU_MAX : max_ulpdu;
	d->sink = sink;
	d->sink_ctx = sink_ctx;
	mpa_ra_init(&d->ra);
}

static void stop(mpa_deframer *d, uint8_t layer, uint8_t etype, uint8_t code)
{
	if (d->ticket_open) {
		/* nothing of this segment counts (RFC 5044 §4.4) */
		d->sink->end(d->sink_ctx, &d->rx, 0);
		d->ticket_open = 0;
	}
	d->state = MPA_DFR_ERROR;
	d->ra.len = 0;
	d->err_layer = layer;
	d->err_etype = etype;
	d->err_code = code;
	d->sink->error(d->sink_ctx, layer, etype, code);
}

/* Raw octets from the current position that are certainly not payload
 * bound for a header-first destination (a lower bound: markers only add
 * raw octets): they may be read ahead into our buffer in one call. */
static size_t safe_ahead(const mpa_deframer *d)
{
	/* In a run of small FPDUs, as much as the read-ahead buffer holds
	 * (mpa_ra_run_ahead). Should the next FPDU be a large one after all,
	 * the payload octets that came along are served from our buffer and
	 * counted as copied (sink->copied). */
	size_t small = mpa_ra_run_ahead(&d->ra);
	switch (d->state) {
	case MPA_DFR_LEN:
		if (small > sizeof(d->lh) - d->got)
			return small - d->got;
		return sizeof(d->lh) - d->got;
	case MPA_DFR_HDR:
		return d->hdr_len - d->got;
	case MPA_DFR_STAGE: { /* rest of a staged FPDU + the next LEN+14, or
		               * in a run as much as `ra` holds: the FPDUs
		               * after this one then arrive whole and are
		               * handed over in place (whole_fpdu) */
		size_t rest =
		    (size_t)d->ulpdu_len - d->got + d->pad_len + MPA_CRC_LEN + sizeof(d->lh);
		return small > rest ? small : rest;
	}
	case MPA_DFR_TRAILER: /* PAD + CRC + the next LEN+14 (or small FPDU) */
		return d->pad_len + MPA_CRC_LEN - d->got +
		       (small > sizeof(d->lh) ? small : sizeof(d->lh));
	default:
		return 0;
	}
}

/* Every read of the stream goes through here: serve read-ahead octets
 * first; read ahead only what safe_ahead() allows, so payload octets of a
 * header-first FPDU always go from the socket straight to their place. */
static ssize_t dread(mpa_deframer *d, mpa_read_fn rd, void *io, void *dst, size_t n, int payload)
{
	if (d->ra.len == 0) {
		mpa_ra_pick_buffer(&d->ra);
		size_t ahead = safe_ahead(d);
		if (ahead > d->ra.cap)
			ahead = d->ra.cap;
		if (ahead <= n)
			return rd(io, dst, n);
		ssize_t r = rd(io, d->ra.buf, ahead);
		if (r <= 0)
			return r;
		if ((size_t)r > ahead)
			return DDP_ERR_INVAL; /* broken reader */
		d->ra.off = 0;
		d->ra.len = (size_t)r;
	}
	size_t k = n < d->ra.len ? n : d->ra.len;
	memcpy(dst, d->ra.buf + d->ra.off, k);
	if (payload && d->sink->copied)
		d->sink->copied(d->sink_ctx, k);
	if (d->state == MPA_DFR_STAGE && d->sink->copied) {
		/* payload octets of a staged ULPDU copied into d->ra.stage (the
		 * core counts its own copy out of it) */
		size_t hl = ddp_hdr_len(d->ra.stage[0]);
		size_t from = d->got > hl ? d->got : hl;
		if (d->got + k > from)
			d->sink->copied(d->sink_ctx, d->got + k - from);
	}
	d->ra.off += k;
	d->ra.len -= k;
	return (ssize_t)k;
}

/* The read that completes a header-first payload or a staged ULPDU: the
 * remainder (n octets, no marker inside) into dst and, in the same call,
 * what follows (PAD, CRC, the next FPDU's first octets) into `ra`.
 * Returns the octets that went into dst, like rd(). */
static ssize_t scatter_read(mpa_deframer *d, void *io, void *dst, size_t n)
{
	mpa_ra_pick_buffer(&d->ra);
	size_t ahead = mpa_ra_run_ahead(&d->ra);
	if (d->state == MPA_DFR_PAYLOAD || !ahead)
		ahead = mpa_ra_payload_ahead(&d->ra, d->pad_len);
	if (ahead > d->ra.cap)
		ahead = d->ra.cap;
	struct iovec iov[2] = {{dst, n}, {d->ra.buf, ahead}};
	ssize_t r = d->readv(io, iov, 2);
	if (r <= 0)
		return r;
	if ((size_t)r > n + iov[1].iov_len)
		return DDP_ERR_INVAL; /* broken reader */
	if ((size_t)r > n) {
		d->ra.off = 0;
		d->ra.len = (size_t)r - n;
		return (ssize_t)n;
	}
	return r;
}

static int marker_due(const mpa_deframer *d)
{
	return d->markers && (d->mk_got > 0 || d->pos % MPA_MARKER_INTERVAL == 0);
}

/* Read (part of) the marker due at d->pos. Returns > 0 when complete, 0
 * when the reader is dry, < 0 reader error. */
static ssize_t read_marker(mpa_deframer *d, mpa_read_fn rd, void *io)
{
	while (d->mk_got < MPA_MARKER_LEN) {
		ssize_t r = dread(d, rd, io, d->mk + d->mk_got, MPA_MARKER_LEN - d->mk_got, 0);
		if (r <= 0)
			return r;
		d->mk_got += (size_t)r;
	}
	/* The marker is at stream position pos. Before ULPDU_Length it
	 * belongs to the FPDU that starts after it and must be 0; otherwise
	 * FPDUPTR = pos - start of ULPDU_Length (RFC 5044 §4.3; receiver
	 * treats the low 2 bits as 0). */
	struct rcur mc = rc_init(d->mk, MPA_MARKER_LEN);
	uint64_t ptr = 0;
	rc_skip(&mc, 2);         /* RESERVED: ignored (CRC-covered) */
	rc_get_be(&mc, 2, &ptr); /* cannot fail: 4 of 4 octets */
	ptr &= 0xfffc;
	uint64_t expect = 0;
	if (!(d->state == MPA_DFR_LEN && d->got == 0))
		expect = d->pos - d->fpdu_start;
	/* FPDUPTR is 16 bits: deep inside an FPDU with a ULPDU_Length past
	 * 64768 (an oversize error awaiting its CRC) the sender can only send
	 * the distance modulo 2^16; legal FPDUs never get that far. */
	if (ptr != (expect & 0xfffc))
		d->bad_marker = 1;
	if (d->crc)
		d->crc_acc = ddp_crc32c(d->crc_acc, d->mk, MPA_MARKER_LEN);
	d->pos += MPA_MARKER_LEN;
	d->mk_got = 0;
	if (d->state == MPA_DFR_LEN && d->got == 0)
		d->fpdu_start = d->pos;
	return 1;
}

/* Read up to n logical octets into dst (stopping before the next marker
 * and reading the marker itself first when one is due). Returns octets
 * read into dst (> 0), 0 when dry, < 0 reader error. */
static ssize_t read_logical(mpa_deframer *d, mpa_read_fn rd, void *io, void *dst, size_t n)
{
	if (marker_due(d)) {
		ssize_t r = read_marker(d, rd, io);
		if (r <= 0)
			return r;
	}
	if (d->markers) {
		size_t room = MPA_MARKER_INTERVAL - d->pos % MPA_MARKER_INTERVAL;
		if (n > room)
			n = room;
	}
	ssize_t r;
	if (d->readv && d->ra.len == 0 &&
	    ((d->state == MPA_DFR_PAYLOAD && n == d->payload_len - d->got) ||
	     (d->state == MPA_DFR_STAGE && n == d->ulpdu_len - d->got)))
		r = scatter_read(d, io, dst, n);
	else
		r = dread(d, rd, io, dst, n, d->state == MPA_DFR_PAYLOAD);
	if (r <= 0)
		return r;
	if ((size_t)r > n)
		return DDP_ERR_INVAL; /* broken reader */
	if (d->crc)
		d->crc_acc = ddp_crc32c(d->crc_acc, dst, (size_t)r);
	d->pos += (size_t)r;
	return r;
}

static int open_segment(mpa_deframer *d)
{
	d->payload_len = (size_t)d->ulpdu_len - d->hdr_len;
	int rc = d->sink->begin(d->sink_ctx, d->hdr, d->hdr_len, d->payload_len, &d->rx);
	if (rc < 0) {
		if (d->state != MPA_DFR_ERROR)
			stop(d, DDP_LAYER_LLP, 0, DDP_MPA_ECODE_LOCAL_CATASTROPHIC);
		return rc;
	}
	if (d->state == MPA_DFR_ERROR) {
		/* stopped from inside the callback (connection aborted) */
		d->sink->end(d->sink_ctx, &d->rx, 0);
		return DDP_ERR_CLOSED;
	}
	d->ticket_open = 1;
	d->got = 0;
	d->state = d->rx.verdict == DDP_RX_PLACE ? MPA_DFR_PAYLOAD : MPA_DFR_DISCARD;
	return 0;
}

/* The one verdict every FPDU gets, whichever way it is handed up: the CRC
 * first (RFC 5044 §4.4: computed `crc` against the field at `field`, LSB
 * first; with CRCs off the field MUST NOT be checked), then a marker that
 * disagreed with ULPDU_Length (§4.3), then a ULPDU_Length no DDP segment
 * can have (its code, once the CRC passed). A failure stops the stream
 * (RFC 5044 §8, an open receive ticket ends with ok = 0) and returns 0;
 * an FPDU that passed counts and returns 1. */
static int fpdu_verdict(mpa_deframer *d, uint32_t crc, const uint8_t *field)
{
	struct rcur tc = rc_init(field, MPA_CRC_LEN);
	uint64_t want = 0;
	rc_get_le(&tc, MPA_CRC_LEN, &want); /* cannot fail: 4 of 4 */
	if (d->crc && want != crc) {
		d->crc_errors++;
		stop(d, DDP_LAYER_LLP, 0, DDP_MPA_ECODE_CRC);
		return 0;
	}
	if (d->bad_marker) {
		d->marker_errors++;
		stop(d, DDP_LAYER_LLP, 0, DDP_MPA_ECODE_MARKER);
		return 0;
	}
	if (d->len_err) { /* the CRC passed: the length was sent so */
		stop(d, DDP_LAYER_DDP, DDP_ETYPE_LLP, d->len_err);
		return 0;
	}
	d->fpdus++;
	return 1;
}

/* A whole ULPDU whose FPDU passed its verdict goes to DDP (RFC 5044 §4.4:
 * nothing of it before the CRC). */
static void hand_up(mpa_deframer *d, const uint8_t *ulpdu, size_t len)
{
	if (d->sink->segment(d->sink_ctx, ulpdu, len) < 0)
		stop(d, DDP_LAYER_LLP, 0, DDP_MPA_ECODE_LOCAL_CATASTROPHIC);
}

/* PAD + CRC of a step-by-step FPDU are in d->trailer: its verdict, then
 * the header-first ticket closes (ok) or the staged ULPDU goes up. */
static void close_segment(mpa_deframer *d)
{
	int staged = d->staged;

	d->staged = 0;
	if (!fpdu_verdict(d, d->crc_acc, d->trailer + d->pad_len))
		return;
	if (d->ticket_open) {
		d->ticket_open = 0;
		d->sink->end(d->sink_ctx, &d->rx, 1);
		if (d->state == MPA_DFR_ERROR)
			return; /* aborted from inside the callback */
	}
	d->started = 0;
	d->state = MPA_DFR_LEN;
	d->got = 0;
	if (staged)
		hand_up(d, d->ra.stage, d->ulpdu_len);
}

/* The DDP header is complete: ask the core, then read the payload. */
static ssize_t begin_payload(mpa_deframer *d)
{
	if (open_segment(d) < 0)
		return 1;
	if (d->payload_len == 0) {
		d->got = 0;
		d->state = MPA_DFR_TRAILER;
	}
	return 1;
}

/* r more octets of the FPDU's body (payload, staged ULPDU or discarded
 * payload) of `total`: on to PAD + CRC when complete. Returns 1. */
static ssize_t body_read(mpa_deframer *d, ssize_t r, size_t total)
{
	d->got += (size_t)r;
	if (d->got == total) {
		d->got = 0;
		d->state = MPA_DFR_TRAILER;
	}
	return 1;
}

/* The common case of a run of small FPDUs (no markers): a whole FPDU at
 * the head of the read-ahead buffer. Its verdict over the FPDU in one CRC
 * pass, then its ULPDU to DDP straight from the buffer, no copy of ours.
 * Returns 1 when done so (or stopped), 0 to take the step-by-step path
 * (an FPDU cut at the buffer's end, a header-first one, or a length error,
 * which that path reports). */
static int whole_fpdu(mpa_deframer *d)
{
	if (d->markers || d->ra.len < MPA_LEN_FIELD + DDP_TAGGED_HDR_LEN || !d->sink->segment)
		return 0;
	const uint8_t *p = d->ra.buf + d->ra.off;
	struct rcur c = rc_init(p, d->ra.len);
	uint64_t ulen = 0;
	rc_peek_be(&c, MPA_LEN_FIELD, &ulen); /* cannot fail: len >= 16 */
	if (ulen < DDP_TAGGED_HDR_LEN || ulen > d->max_ulpdu || ulen > d->ra.stage_max)
		return 0;
	size_t body = MPA_LEN_FIELD + (size_t)ulen + mpa_pad_len(ulen);
	if (d->ra.len < body + MPA_CRC_LEN)
		return 0;
	mpa_ra_classify(&d->ra, (uint16_t)ulen, p[MPA_LEN_FIELD], 1);
	d->ra.off += body + MPA_CRC_LEN;
	d->ra.len -= body + MPA_CRC_LEN;
	d->pos += body + MPA_CRC_LEN;
	d->bad_marker = 0;
	d->len_err = 0;
	uint32_t crc = d->crc ? ddp_crc32c(0, p, body) : 0;
	if (fpdu_verdict(d, crc, p + body))
		hand_up(d, p + MPA_LEN_FIELD, (size_t)ulen);
	return 1;
}

/* At an FPDU's start with nothing read ahead, in a run of small FPDUs and
 * without markers: fill the read-ahead buffer first, so that the FPDUs
 * that arrive whole are handed up in place (whole_fpdu). Returns 1 to go
 * on, or the (<= 0) reader result. */
static ssize_t fill_ahead(mpa_deframer *d, mpa_read_fn rd, void *io)
{
	if (d->markers || d->ra.len || mpa_ra_run_ahead(&d->ra) <= sizeof(d->lh))
		return 1;
	mpa_ra_pick_buffer(&d->ra);
	size_t ahead = safe_ahead(d);
	if (ahead > d->ra.cap)
		ahead = d->ra.cap;
	ssize_t r = rd(io, d->ra.buf, ahead);
	if (r <= 0)
		return r;
	if ((size_t)r > ahead)
		return DDP_ERR_INVAL; /* broken reader */
	d->ra.off = 0;
	d->ra.len = (size_t)r;
	return 1;
}

/* ULPDU_Length is one no DDP segment can have (code: OVERSIZE above
 * max_ulpdu, SHORT below the DDP header). RFC 5044 §4.4 and §6: the
 * receiver MUST verify the CRC before anything of the FPDU counts, so a
 * length field damaged in transit is a CRC error, not the peer's DDP error.
 * The FPDU's end is known from ULPDU_Length whatever its value (2 +
 * ULPDU_Length + PAD + CRC <= 65544 octets, plus the markers, whose
 * positions are known): read on to it, discarding through the scratch
 * buffer (bounded memory and work), and let close_segment decide: CRC
 * error, else a marker error, else this length error. With CRCs off there
 * is no verdict to wait for: a marker error seen so far, else the length
 * error, now. Should the stream end before that CRC, the FPDU was cut
 * short and its length never verified: mpa_dfr_abort reports the cut (TCP
 * closed mid-FPDU), not the length. */
static void length_error(mpa_deframer *d, uint8_t code)
{
	d->len_ok = 0;
	if (!d->crc) {
		if (d->bad_marker) {
			d->marker_errors++;
			stop(d, DDP_LAYER_LLP, 0, DDP_MPA_ECODE_MARKER);
		} else {
			stop(d, DDP_LAYER_DDP, DDP_ETYPE_LLP, code);
		}
		return;
	}
	d->len_err = code;
	/* ULPDU octets still to come: d->got counts ULPDU_Length too */
	d->payload_len = (size_t)d->ulpdu_len + MPA_LEN_FIELD - d->got;
	d->got = 0;
	d->state = d->payload_len ? MPA_DFR_DISCARD : MPA_DFR_TRAILER;
}

/* In state LEN: may ULPDU_Length and the 14 octets after it be read at
 * once? Yes once the length was checked, or when it sits whole in the
 * read-ahead buffer (no marker due before it) and is >= 14. */
static int len_then_header(const mpa_deframer *d)
{
	if (d->got >= MPA_LEN_FIELD)
		return 1;
	if (d->got > 0 || marker_due(d))
		return 0;
	struct rcur c = rc_init(d->ra.buf + d->ra.off, d->ra.len);
	uint64_t ulen;
	return rc_peek_be(&c, MPA_LEN_FIELD, &ulen) == 0 && ulen >= DDP_TAGGED_HDR_LEN;
}

/* One step. Returns 1 to go on, or the (<= 0) reader result. */
static ssize_t step(mpa_deframer *d, mpa_read_fn rd, void *io)
{
	uint8_t scratch[2048];
	ssize_t r;

	switch (d->state) {
	case MPA_DFR_LEN:
		if (!d->started && d->got == 0 && d->mk_got == 0) {
			r = fill_ahead(d, rd, io);
			if (r <= 0)
				return r;
			if (whole_fpdu(d))
				return 1;
		}
		if (!d->started) {
			d->started = 1;
			d->crc_acc = 0;
			d->bad_marker = 0;
			d->len_err = 0;
			if (!marker_due(d))
				d->fpdu_start = d->pos;
		}
		if (d->got == 0 && marker_due(d)) {
			/* RFC 5044 §4.3: the marker right before ULPDU_Length
			 * belongs to this FPDU and MUST be 0 (the first octets
			 * of the stream are one). Another value says the FPDU
			 * starts elsewhere (a peer that omits the markers it
			 * agreed to: these are its ULPDU_Length and DDP
			 * control octets): which octets are ULPDU_Length is
			 * unknown, so the FPDU's end and CRC cannot be found.
			 * The marker error now (RFC 5044 §8 code 3), nothing
			 * handed to DDP. */
			r = read_marker(d, rd, io);
			if (r <= 0)
				return r;
			if (d->bad_marker) {
				d->marker_errors++;
				stop(d, DDP_LAYER_LLP, 0, DDP_MPA_ECODE_MARKER);
				return 1;
			}
		}
		/* ULPDU_Length and the 14 octets every DDP header has, but
		 * nothing past ULPDU_Length before it is checked (an FPDU too
		 * short for a DDP header may end sooner): in one read when the
		 * length is already in the read-ahead buffer and says >= 14,
		 * else the length alone first (no extra read of the stream:
		 * the second piece comes from the read-ahead buffer). */
		r = read_logical(d, rd, io, d->lh + d->got,
		                 len_then_header(d) ? sizeof(d->lh) - d->got
		                                    : MPA_LEN_FIELD - d->got);
		if (r <= 0)
			return r;
		d->got += (size_t)r;
		if (d->got >= MPA_LEN_FIELD && !d->len_ok) {
			struct rcur lc = rc_init(d->lh, MPA_LEN_FIELD);
			uint64_t ulen = 0;
			rc_get_be(&lc, MPA_LEN_FIELD, &ulen); /* 2 of 2 */
			d->ulpdu_len = (uint16_t)ulen;
			d->pad_len = mpa_pad_len(d->ulpdu_len);
			d->len_ok = 1;
			if (d->ulpdu_len > d->max_ulpdu) {
				length_error(d, DDP_ECODE_LLP_OVERSIZE);
				return 1;
			}
			if (d->ulpdu_len < DDP_TAGGED_HDR_LEN) {
				length_error(d, DDP_ECODE_LLP_SHORT);
				return 1;
			}
		}
		if (d->got < sizeof(d->lh))
			return 1;
		d->len_ok = 0;
		/* small (staged through our buffers) or header-first: the
		 * read-ahead policy decides (mpa_readahead.h) */
		if (mpa_ra_classify(&d->ra, d->ulpdu_len, d->lh[MPA_LEN_FIELD],
		                    d->sink->segment != NULL)) {
			d->staged = 1;
			memcpy(d->ra.stage, d->lh + MPA_LEN_FIELD, DDP_TAGGED_HDR_LEN);
			d->got = DDP_TAGGED_HDR_LEN;
			d->state = MPA_DFR_STAGE;
			if (d->got == d->ulpdu_len) {
				d->got = 0;
				d->state = MPA_DFR_TRAILER;
			}
			return 1;
		}
		memcpy(d->hdr, d->lh + MPA_LEN_FIELD, DDP_TAGGED_HDR_LEN);
		d->hdr_len = ddp_hdr_len(d->hdr[0]);
		if (d->ulpdu_len < d->hdr_len) {
			length_error(d, DDP_ECODE_LLP_SHORT);
			return 1;
		}
		d->got = DDP_TAGGED_HDR_LEN;
		d->state = MPA_DFR_HDR;
		if (d->got < d->hdr_len)
			return 1;
		return begin_payload(d);
	case MPA_DFR_HDR:
		r = read_logical(d, rd, io, d->hdr + d->got, d->hdr_len - d->got);
		if (r <= 0)
			return r;
		d->got += (size_t)r;
		if (d->got < d->hdr_len)
			return 1;
		return begin_payload(d);
	case MPA_DFR_PAYLOAD: {
		void *dst = d->sink->dst(d->sink_ctx, &d->rx, d->got);
		if (!dst) { /* revoked meanwhile: discard the rest */
			d->state = MPA_DFR_DISCARD;
			return 1;
		}
		r = read_logical(d, rd, io, dst, d->payload_len - d->got);
		return r <= 0 ? r : body_read(d, r, d->payload_len);
	}
	case MPA_DFR_STAGE:
		r = read_logical(d, rd, io, d->ra.stage + d->got, d->ulpdu_len - d->got);
		return r <= 0 ? r : body_read(d, r, d->ulpdu_len);
	case MPA_DFR_DISCARD: {
		size_t n = d->payload_len - d->got;
		if (n > sizeof(scratch))
			n = sizeof(scratch);
		r = read_logical(d, rd, io, scratch, n);
		return r <= 0 ? r : body_read(d, r, d->payload_len);
	}
	case MPA_DFR_TRAILER: {
		/* PAD is CRC-covered; a marker right before the CRC too. The
		 * CRC itself is never split by a marker (4-octet aligned). */
		size_t need = d->pad_len + MPA_CRC_LEN;
		if (d->got < d->pad_len) {
			r = read_logical(d, rd, io, d->trailer + d->got, d->pad_len - d->got);
			if (r <= 0)
				return r;
			d->got += (size_t)r;
			return 1;
		}
		if (d->got == d->pad_len && marker_due(d)) {
			r = read_marker(d, rd, io);
			if (r <= 0)
				return r;
		}
		r = dread(d, rd, io, d->trailer + d->got, need - d->got, 0);
		if (r <= 0)
			return r;
		d->got += (size_t)r;
		d->pos += (size_t)r;
		if (d->got == need)
			close_segment(d);
		return 1;
	}
	case MPA_DFR_ERROR:
	default:
		/* RFC 5044 §8: after an error nothing more is passed up; keep
		 * draining so EOF is still seen. */
		d->ra.len = 0;
		r = rd(io, scratch, sizeof(scratch));
		return r <= 0 ? r : 1;
	}
}

int mpa_dfr_run(mpa_deframer *d, mpa_read_fn rd, void *io)
{
	for (;;) {
		ssize_t r = step(d, rd, io);
		if (r == 0)
			return DDP_ERR_NEED_MORE;
		if (r < 0)
			return (int)r;
	}
}

int mpa_dfr_abort(mpa_deframer *d)
{
	int partial = d->state != MPA_DFR_ERROR &&
	              (d->state != MPA_DFR_LEN || d->got > 0 || d->mk_got > 0 || d->ra.len > 0);

	if (d->ticket_open) {
		d->sink->end(d->sink_ctx, &d->rx, 0);
		d->ticket_open = 0;
	}
	d->state = MPA_DFR_ERROR;
	d->ra.len = 0;
	return partial;
}

void mpa_dfr_set_stage_max(mpa_deframer *d, uint32_t n)
{
	mpa_ra_set_stage_max(&d->ra, n);
}

void mpa_dfr_set_ring(mpa_deframer *d, uint8_t *ring)
{
	mpa_ra_set_ring(&d->ra, ring);
}

void mpa_dfr_set_readv(mpa_deframer *d, mpa_readv_fn fn)
{
	d->readv = fn;
}
