/*
 * Header-first receive over SCTP (the receive contract of docs/style.md):
 * each user message is read with usrsctp in pieces: first DDP-SSN + DDP
 * header, then the core names the destination and the payload is read
 * straight into it.
 *
 * The core needs the payload length before it answers (RFC 5041 §7.1
 * bounds checks). SCTP has no length in front of a message; usrsctp gives
 * the length of the *next* complete message with SCTP_RECVNXTINFO
 * (nxt_length, SCTP_COMPLETE). When the message being started was already
 * queued at the previous read, its length is known and the payload is
 * read without a copy; otherwise (first message after the queue ran dry)
 * the segment is read whole into a staging buffer and copied once, counted
 * with ddp_llp_count_copy() (stats: rx_hdr_first vs rx_staged).
 *
 * Small segments (at most SCTP_RX_WHOLE_MAX octets with the DDP-SSN) are
 * not worth two usrsctp calls: the glue reads them whole, several per hold
 * of the usrsctp lock, and hands them out of its staging area
 * (sctp_ll_rinfo.staged, .whole_len). The machine runs the same way on
 * them; the payload octets it copies into place are counted (rx_whole).
 *
 * Resumable: every state survives DDP_ERR_AGAIN between upcalls.
 *
 * The machine never calls up into sctp_ddp.c: what the
 * association has to do (stream-machine actions, a control message to
 * handle, a fatal verdict, an ordered chunk to report) comes back as a
 * struct sctp_rx_out from sctp_rx_next(), and sctp_ddp.c acts on it.
 */
#include "sctp/sctp_ddp_int.h"

#include <string.h>

static const char *const rx_state_names[RXS__COUNT] = {
    [RXS_START] = "start", [RXS_PREFIX] = "prefix", [RXS_PAYLOAD] = "payload",
    [RXS_STAGE] = "stage", [RXS_CTL] = "control",   [RXS_DISCARD] = "discard",
};

const char *sctp_rxs_name(unsigned state)
{
	return state < RXS__COUNT ? rx_state_names[state] : "?";
}

/* One read; remembers what SCTP_RECVNXTINFO says about the next message. */
static long rd(struct ddp_sctp_assoc *a, void *buf, size_t len, sctp_ll_rinfo *ri)
{
	struct sctp_rxm *m = &a->rxm;
	long n = sctp_ll_recv(a->ll, buf, len, ri);
	if (n < 0)
		return n;
	a->stats.rx_calls += ri->calls;
	m->eor = ri->eor;
	if (ri->next_valid) {
		m->nxt_valid = 1;
		m->nxt_sid = ri->next_sid;
		m->nxt_ppid = ri->next_ppid;
		m->nxt_len = ri->next_len;
	}
	return n;
}

/* Each step returns one of these: go on, an event for the caller in
 * *out, or stop (the source ran dry, < 0). */
#define STEP_ON    0
#define STEP_EVENT 1

static int ev_actions(struct sctp_rx_out *out, uint16_t sid, const struct sctp_act *act)
{
	out->kind = SCTP_RX_ACTIONS;
	out->sid = sid;
	out->act = *act;
	return STEP_EVENT;
}

static int llp_err(struct ddp_sctp_assoc *a, uint16_t sid, uint8_t code, struct sctp_rx_out *out)
{
	struct sctp_act act;
	struct sctp_stream idle;
	sctp_stream_violation(sctp_sm_or_idle(a, sid, &idle), code, &act);
	return ev_actions(out, sid, &act);
}

static void to_discard(struct sctp_rxm *m)
{
	m->state = m->eor ? RXS_START : RXS_DISCARD;
}

/* Report the pending error about the current segment (m->err_code) with
 * its DDP header and true length (RFC 5041 §7.2 DDP-ERR-2; the RDMAP
 * Terminate carries that header, RFC 5040 §4.8). Called once the whole
 * segment was read. A segment longer than SCTP_RECVNXTINFO announced is
 * over MULPDU (RFC 5043 §9, EType 3 code 0x02) or, within it, the LLP's
 * own inconsistency: a local catastrophic error (RFC 5041 §7.2, 0x0/0x00):
 * the peer sent a valid segment that the length we were given misstated. */
static void report_seg_err(struct ddp_sctp_assoc *a)
{
	struct sctp_rxm *m = &a->rxm;
	uint8_t etype = DDP_ETYPE_LLP, code = m->err_code;
	if (!code)
		return;
	m->err_code = 0;
	if (code == SCTP_RX_ERR_LONG) {
		if (m->seg_seen > a->mulpdu) {
			code = DDP_ECODE_LLP_OVERSIZE;
		} else {
			etype = DDP_ETYPE_CATASTROPHIC;
			code = 0;
		}
	}
	ddp_llp_error_seg(a->s, m->sid, DDP_LAYER_DDP, etype, code, m->pre + SCTP_SSN_LEN,
	                  m->need - SCTP_SSN_LEN, m->seg_seen);
}

/* The segment is bad (code): discard the rest, then report it. */
static void seg_err(struct ddp_sctp_assoc *a, uint8_t code)
{
	struct sctp_rxm *m = &a->rxm;
	m->err_code = code;
	if (m->eor) {
		report_seg_err(a);
		m->state = RXS_START;
	} else {
		m->state = RXS_DISCARD;
	}
}

/* The segment's stream-machine follow-ups (a peer Terminate that is now
 * in order, ...) run after the core has the segment. */
static int finish_segment(struct ddp_sctp_assoc *a, struct sctp_rx_out *out)
{
	struct sctp_rxm *m = &a->rxm;
	struct sctp_act act;
	memset(&act, 0, sizeof(act));
	act.flags = m->post;
	m->post = 0;
	return act.flags ? ev_actions(out, m->sid, &act) : STEP_ON;
}

/* DDP-SSN + header complete: consult the stream machine and the core. */
static int prefix_done(struct ddp_sctp_assoc *a, struct sctp_rx_out *out)
{
	struct sctp_rxm *m = &a->rxm;
	struct sctp_act act;
	struct sctp_stream idle;
	size_t seg_len;

	m->ssn = sctp_ssn_get(m->pre);
	/* a stream without state is idle: the chunk is dropped */
	sctp_stream_rx_data(sctp_sm_or_idle(a, m->sid, &idle), m->ssn, &act);
	if (act.flags & (SCTP_ACT_DROP | SCTP_ACT_VIOLATION)) {
		to_discard(m);
		return ev_actions(out, m->sid, &act);
	}
	m->post = act.flags;
	if (!m->eor && !m->len_known) {
		/* length unknown: stage the whole segment */
		memcpy(a->stage, m->pre, m->need);
		m->have = m->need;
		m->state = RXS_STAGE;
		return STEP_ON;
	}
	seg_len = (m->eor ? m->need : m->total) - SCTP_SSN_LEN;
	if (seg_len > a->mulpdu) {
		/* RFC 5043 §9: reject segments over the advertised MULPDU */
		m->seg_seen = m->have - SCTP_SSN_LEN;
		seg_err(a, DDP_ECODE_LLP_OVERSIZE);
		return finish_segment(a, out);
	}
	m->plen = seg_len + SCTP_SSN_LEN - m->need;
	if (ddp_llp_rx_begin(a->s, m->sid, m->ssn, m->pre + SCTP_SSN_LEN, m->need - SCTP_SSN_LEN,
	                     m->plen, &m->rx) != 0) {
		to_discard(m);
		return finish_segment(a, out);
	}
	m->rx_open = 1;
	m->off = 0;
	m->state = RXS_PAYLOAD;
	if (m->whole)
		a->stats.rx_whole++;
	else
		a->stats.rx_hdr_first++;
	return STEP_ON;
}

static int payload_end(struct ddp_sctp_assoc *a, int ok, struct sctp_rx_out *out)
{
	struct sctp_rxm *m = &a->rxm;
	m->rx_open = 0;
	ddp_llp_rx_end(a->s, &m->rx, ok);
	if (ok) {
		to_discard(m);
		return finish_segment(a, out);
	}
	/* length disagreed with SCTP_RECVNXTINFO: nothing of it is trusted */
	m->seg_seen = m->need - SCTP_SSN_LEN + m->off;
	/* shorter than announced: a short segment (EType 3 code 0x03);
	 * longer: decided by its true length, known at its end */
	seg_err(a, m->eor ? DDP_ECODE_LLP_SHORT : SCTP_RX_ERR_LONG);
	return finish_segment(a, out);
}

/* Returns STEP_ON to go on, STEP_EVENT with *out filled in, or
 * DDP_ERR_AGAIN / other < 0 to stop. */
static int step(struct ddp_sctp_assoc *a, struct sctp_rx_out *out)
{
	struct sctp_rxm *m = &a->rxm;
	sctp_ll_rinfo ri;
	long n;

	switch (m->state) {
	case RXS_START:
		m->len_known = m->nxt_valid;
		m->total = m->nxt_len;
		m->nxt_valid = 0;
		m->have = m->off = 0;
		/* the shortest header first (tagged, 14); 4 more if untagged */
		n = rd(a, m->pre, SCTP_SSN_LEN + DDP_TAGGED_HDR_LEN, &ri);
		if (n < 0) {
			m->nxt_valid = m->len_known; /* nothing consumed */
			return (int)n;
		}
		m->sid = ri.sid;
		m->ppid = ri.ppid;
		m->have = (size_t)n;
		if (m->len_known && (ri.sid != m->nxt_sid || ri.ppid != m->nxt_ppid))
			m->len_known = 0; /* not the message it described */
		/* read whole into the glue's staging area (sctp_ll.h
		 * rx_whole_max): its length is known, its payload is copied */
		m->whole = ri.whole_len != 0;
		if (m->whole) {
			m->len_known = 1;
			m->total = ri.whole_len;
		}
		if (m->sid >= a->nstreams ||
		    (m->ppid != SCTP_PPID_DDP && m->ppid != SCTP_PPID_CTL)) {
			/* RFC 5043 §5.1: a DDP association carries PPID 16
			 * and 17 only */
			out->kind = SCTP_RX_FATAL;
			out->sid = m->sid;
			out->err = DDP_ERR_PROTO;
			out->ppid = m->ppid;
			return STEP_EVENT;
		}
		if (m->ppid == SCTP_PPID_CTL) {
			memcpy(m->ctl, m->pre, m->have);
			m->state = RXS_CTL;
		} else {
			m->state = RXS_PREFIX;
			m->need = SCTP_SSN_LEN + DDP_TAGGED_HDR_LEN;
		}
		if (!ri.unordered) {
			/* RFC 5043 §5.1: every DDP chunk is sent unordered
			 * (U=1). Accepted anyway (the DDP-SSN orders it, not
			 * SCTP) and reported to the caller, which logs it. */
			out->kind = SCTP_RX_ORDERED;
			out->sid = m->sid;
			out->ppid = m->ppid;
			return STEP_EVENT;
		}
		return STEP_ON;
	case RXS_PREFIX:
		if (m->have > SCTP_SSN_LEN)
			m->need = sctp_seg_prefix_len(m->pre[SCTP_SSN_LEN]);
		while (m->have < m->need && !m->eor) {
			n = rd(a, m->pre + m->have, m->need - m->have, &ri);
			if (n < 0)
				return (int)n;
			m->have += (size_t)n;
			if (m->have > SCTP_SSN_LEN)
				m->need = sctp_seg_prefix_len(m->pre[SCTP_SSN_LEN]);
		}
		if (m->have < m->need) {
			/* RFC 5041 §4: every segment has a whole header; the
			 * error carries the part that arrived */
			to_discard(m);
			llp_err(a, m->sid, DDP_ECODE_LLP_SHORT, out);
			out->seg_hdr = m->pre + SCTP_SSN_LEN;
			out->seg_hdr_len = m->have > SCTP_SSN_LEN ? m->have - SCTP_SSN_LEN : 0;
			out->seg_len = out->seg_hdr_len;
			return STEP_EVENT;
		}
		return prefix_done(a, out);
	case RXS_PAYLOAD:
		while (m->off < m->plen) {
			void *dst = NULL;
			size_t want = m->plen - m->off;
			if (m->rx.verdict == DDP_RX_PLACE)
				dst = ddp_llp_rx_dst(a->s, &m->rx, m->off);
			if (!dst) { /* drop, error, or STag revoked */
				dst = a->stage;
				if (want > a->max_msg)
					want = a->max_msg;
			}
			if (m->eor) /* shorter than announced */
				return payload_end(a, 0, out);
			n = rd(a, dst, want, &ri);
			if (n < 0)
				return (int)n;
			if (ri.staged && dst != a->stage)
				ddp_llp_count_copy(a->s, (size_t)n); /* staging -> place */
			m->off += (size_t)n;
		}
		return payload_end(a, m->eor, out); /* longer: !eor */
	case RXS_STAGE:
		while (!m->eor) {
			if (m->have >= (size_t)a->mulpdu + SCTP_SSN_LEN) {
				/* RFC 5043 §9: over MULPDU */
				m->seg_seen = m->have - SCTP_SSN_LEN;
				seg_err(a, DDP_ECODE_LLP_OVERSIZE);
				return finish_segment(a, out);
			}
			n = rd(a, a->stage + m->have,
			       (size_t)a->mulpdu + SCTP_SSN_LEN + 1 - m->have, &ri);
			if (n < 0)
				return (int)n;
			m->have += (size_t)n;
		}
		if (m->have > (size_t)a->mulpdu + SCTP_SSN_LEN) {
			m->seg_seen = m->have - SCTP_SSN_LEN;
			seg_err(a, DDP_ECODE_LLP_OVERSIZE);
			return finish_segment(a, out);
		}
		m->plen = m->have - m->need;
		a->stats.rx_staged++;
		if (ddp_llp_rx_begin(a->s, m->sid, m->ssn, m->pre + SCTP_SSN_LEN,
		                     m->need - SCTP_SSN_LEN, m->plen, &m->rx) == 0) {
			void *dst =
			    m->rx.verdict == DDP_RX_PLACE ? ddp_llp_rx_dst(a->s, &m->rx, 0) : NULL;
			if (dst && m->plen) {
				memcpy(dst, a->stage + m->need, m->plen);
				ddp_llp_count_copy(a->s, m->plen);
			}
			ddp_llp_rx_end(a->s, &m->rx, 1);
		}
		m->state = RXS_START;
		return finish_segment(a, out);
	case RXS_CTL:
		while (!m->eor && m->have < sizeof(m->ctl)) {
			n = rd(a, m->ctl + m->have, sizeof(m->ctl) - m->have, &ri);
			if (n < 0)
				return (int)n;
			m->have += (size_t)n;
		}
		/* an over-long message is passed on truncated to 517
		 * octets: the decoder rejects it as too long */
		to_discard(m);
		out->kind = SCTP_RX_CONTROL;
		out->sid = m->sid;
		out->ctl = m->ctl;
		out->ctl_len = m->have;
		return STEP_EVENT;
	case RXS_DISCARD:
		while (!m->eor) {
			n = rd(a, a->stage, a->max_msg, &ri);
			if (n < 0)
				return (int)n;
			m->seg_seen += (size_t)n;
		}
		report_seg_err(a);
		m->state = RXS_START;
		return 0;
	default:
		m->state = RXS_START;
		return 0;
	}
}

int sctp_rx_next(struct ddp_sctp_assoc *a, struct sctp_rx_out *out)
{
	int rc;
	memset(out, 0, sizeof(*out));
	while ((rc = step(a, out)) == STEP_ON)
		;
	return rc == STEP_EVENT ? (int)out->kind : SCTP_RX_STOP;
}
