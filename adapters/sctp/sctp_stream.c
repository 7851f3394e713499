/* DDP Stream Session state machine (RFC 5043 §6, RFC 6581 §7). */
#include "sctp/sctp_stream.h"

#include <string.h>

#include <ddp/ddp.h>

static const char *const sst_names[SCTP_SST__COUNT] = {
    [SCTP_SST_IDLE] = "idle",
    [SCTP_SST_INIT_SENT] = "initiate-sent",
    [SCTP_SST_INIT_RCVD] = "initiate-received",
    [SCTP_SST_OPEN] = "open",
    [SCTP_SST_CLOSING] = "terminating",
    [SCTP_SST_CLOSED] = "closed",
};

const char *sctp_sst_name(unsigned state)
{
	return state < SCTP_SST__COUNT ? sst_names[state] : "?";
}

void sctp_stream_init(struct sctp_stream *st)
{
	memset(st, 0, sizeof(*st));
}

/* Fresh session: DDP-SSN restarts at 0 in both directions (RFC 5043 §6.1). */
static void new_session(struct sctp_stream *st, int active, int enhanced)
{
	uint64_t dropped = st->dropped;
	memset(st, 0, sizeof(*st));
	st->dropped = dropped;
	st->active = (uint8_t)active;
	st->enhanced = (uint8_t)enhanced;
}

/* ------------------------------------------------------------ rx window */

/* The received-SSN window is a ring of bits indexed by ssn % SCTP_RX_WIN:
 * O(1) per chunk whatever the window size. */
static int bit_test(const struct sctp_stream *st, uint16_t ssn)
{
	uint16_t i = ssn % SCTP_RX_WIN;
	return (st->rx_bits[i / 32] >> (i % 32)) & 1;
}

static void bit_set(struct sctp_stream *st, uint16_t ssn, int on)
{
	uint16_t i = ssn % SCTP_RX_WIN;
	if (on)
		st->rx_bits[i / 32] |= 1u << (i % 32);
	else
		st->rx_bits[i / 32] &= ~(1u << (i % 32));
}

/* Move the window while its first SSN has arrived. */
static void advance(struct sctp_stream *st)
{
	while (bit_test(st, st->rx_base)) {
		bit_set(st, st->rx_base, 0);
		st->rx_base++;
	}
}

/* Record DDP-SSN ssn as received. RFC 5043 §10: an SSN that no chunk in
 * flight can explain (outside the window, or seen before) is invalid. */
static int mark(struct sctp_stream *st, uint16_t ssn)
{
	uint16_t off = sctp_ssn_dist(st->rx_base, ssn);
	if (off >= SCTP_RX_WIN || bit_test(st, ssn))
		return DDP_ERR_PROTO;
	bit_set(st, ssn, 1);
	advance(st);
	return 0;
}

/* Has every chunk before the peer's Terminate arrived? */
static int term_in_order(const struct sctp_stream *st)
{
	/* the Terminate itself is marked, so base moved past it */
	return sctp_ssn_dist(st->peer_term_ssn, st->rx_base) >= 1 &&
	       sctp_ssn_dist(st->peer_term_ssn, st->rx_base) <= (int)SCTP_RX_WIN;
}

static void violation(struct sctp_stream *st, struct sctp_act *act, uint8_t code)
{
	act->flags |= SCTP_ACT_VIOLATION;
	act->code = code;
	if (st->failed)
		return;
	st->failed = 1;
	/* RFC 5043 §6.1: a broken session pattern terminates the session.
	 * In an open session the ULP first gets the error and may send its
	 * RDMAP Terminate (RFC 5043 §11.2: the session Terminate follows
	 * it), so our Terminate goes when the core closes the stream. */
	if (!st->term_sent && st->state == SCTP_SST_INIT_RCVD) {
		act->flags |= SCTP_ACT_SEND_TERM;
		act->term_ssn = st->tx_ssn++;
		st->term_sent = 1;
		st->tx_dirty = 1;
	}
	if (st->state != SCTP_SST_CLOSED)
		st->state = SCTP_SST_CLOSING;
}

/* Both directions terminated: the session is over. */
static void maybe_closed(struct sctp_stream *st, struct sctp_act *act)
{
	if (st->term_sent && st->term_rcvd && st->state != SCTP_SST_CLOSED) {
		st->state = SCTP_SST_CLOSED;
		act->flags |= SCTP_ACT_CLOSED;
	}
}

static void fire_peer_term(struct sctp_stream *st, struct sctp_act *act)
{
	if (st->term_seen && !st->term_rcvd && term_in_order(st)) {
		st->term_rcvd = 1;
		act->flags |= SCTP_ACT_PEER_CLOSED;
		maybe_closed(st, act);
	}
}

/* A chunk from the peer in an accepted session proves our Accept arrived
 * (the active side sends nothing before it, RFC 5043 §6 rule 2). */
static void peer_confirms(struct sctp_stream *st, struct sctp_act *act)
{
	if (!st->active && st->ctl_unconf) {
		st->ctl_unconf = 0;
		if (st->term_wanted)
			act->flags |= SCTP_ACT_TERM_READY;
	}
}

void sctp_stream_rx_data(struct sctp_stream *st, uint16_t ssn, struct sctp_act *act)
{
	memset(act, 0, sizeof(*act));
	switch (st->state) {
	case SCTP_SST_INIT_SENT:
		/* the peer may send data right after its Accept; unordered
		 * delivery can hand it to us first (RFC 6581 §4.4.1) */
		if (ssn == 0)
			break;
		/* fall through */
	case SCTP_SST_OPEN:
	case SCTP_SST_CLOSING:
		if (st->failed) {
			act->flags = SCTP_ACT_DROP;
			return;
		}
		if (st->term_seen && sctp_ssn_dist(st->peer_term_ssn, ssn) < 0x8000) {
			/* RFC 5041 §6: nothing after the peer's Terminate */
			violation(st, act, DDP_ECODE_LLP_AFTER_CLOSE);
			return;
		}
		if (mark(st, ssn)) {
			violation(st, act, DDP_ECODE_LLP_BAD_SSN);
			return;
		}
		peer_confirms(st, act);
		fire_peer_term(st, act);
		return;
	default:
		break;
	}
	if (st->state == SCTP_SST_INIT_SENT || st->state == SCTP_SST_INIT_RCVD) {
		/* DDP-SSN 0 is the control message; data before it, or data
		 * from the active side before our Accept, breaks §6 rule 2 */
		violation(st, act, DDP_ECODE_LLP_BAD_SSN);
		return;
	}
	/* IDLE or CLOSED: no session, or a stale chunk of an ended one */
	st->dropped++;
	act->flags = SCTP_ACT_DROP;
}

static int is_initiate(unsigned c)
{
	return c == SCTP_CTL_INITIATE || c == SCTP_CTL_ENH_INITIATE;
}

static int is_accept(unsigned c)
{
	return c == SCTP_CTL_ACCEPT || c == SCTP_CTL_ENH_ACCEPT;
}

static int is_reject(unsigned c)
{
	return c == SCTP_CTL_REJECT || c == SCTP_CTL_ENH_REJECT;
}

static void rx_initiate(struct sctp_stream *st, const struct sctp_ctl_msg *m, int cap_ok,
                        struct sctp_act *act)
{
	/* RFC 5043 §6.1: an Initiate is the first chunk (DDP-SSN 0) */
	if (m->ssn != 0) {
		if (st->state == SCTP_SST_IDLE || st->state == SCTP_SST_CLOSED) {
			st->dropped++;
			act->flags = SCTP_ACT_DROP;
		} else {
			violation(st, act, DDP_ECODE_LLP_BAD_SSN);
		}
		return;
	}
	new_session(st, 0, m->code == SCTP_CTL_ENH_INITIATE);
	mark(st, 0);
	st->state = SCTP_SST_INIT_RCVD;
	act->flags = SCTP_ACT_RESET | SCTP_ACT_SKIP;
	if (!cap_ok) {
		/* RFC 5043 §5.2.3: over the cap of Initiates waiting for the
		 * ULP -> Terminate, never Reject */
		act->flags |= SCTP_ACT_SEND_TERM;
		act->term_ssn = st->tx_ssn++;
		st->term_sent = st->term_rcvd = 1;
		st->tx_dirty = 1;
		st->state = SCTP_SST_CLOSED;
		return;
	}
	act->flags |= SCTP_ACT_ULP_INITIATE;
}

static void rx_terminate(struct sctp_stream *st, const struct sctp_ctl_msg *m, struct sctp_act *act)
{
	if (st->term_seen) {
		violation(st, act, DDP_ECODE_LLP_AFTER_CLOSE);
		return;
	}
	if (mark(st, m->ssn)) {
		violation(st, act, DDP_ECODE_LLP_BAD_SSN);
		return;
	}
	act->flags |= SCTP_ACT_SKIP;
	st->term_seen = 1;
	st->peer_term_ssn = m->ssn;
	if (st->state == SCTP_SST_OPEN)
		st->state = SCTP_SST_CLOSING;
	peer_confirms(st, act);
	fire_peer_term(st, act);
}

void sctp_stream_rx_ctl(struct sctp_stream *st, const struct sctp_ctl_msg *m, int cap_ok,
                        struct sctp_act *act)
{
	memset(act, 0, sizeof(*act));
	if (is_initiate(m->code)) {
		if (st->state == SCTP_SST_IDLE || st->state == SCTP_SST_CLOSED)
			rx_initiate(st, m, cap_ok, act);
		else /* Initiate inside a session (or an Initiate collision) */
			violation(st, act, DDP_ECODE_LLP_BAD_SSN);
		return;
	}
	switch (st->state) {
	case SCTP_SST_INIT_SENT:
		/* RFC 5043 §6.2-6.4: the answer is DDP-SSN 0 of the peer */
		if (m->ssn != 0 ||
		    (!is_accept(m->code) && !is_reject(m->code) && m->code != SCTP_CTL_TERMINATE)) {
			violation(st, act, DDP_ECODE_LLP_BAD_SSN);
			return;
		}
		if (mark(st, 0)) {
			violation(st, act, DDP_ECODE_LLP_BAD_SSN);
			return;
		}
		act->flags = SCTP_ACT_SKIP;
		st->ctl_unconf = 0;
		if (is_accept(m->code)) {
			st->state = SCTP_SST_OPEN;
			st->may_send = 1; /* §6 rule 2: Initiate arrived */
			act->flags |= SCTP_ACT_ACCEPTED;
			if (st->term_wanted)
				act->flags |= SCTP_ACT_TERM_READY;
			return;
		}
		/* §6.3 Reject (ULP) or §6.4 Terminate (not the ULP) */
		st->state = SCTP_SST_CLOSED;
		st->term_rcvd = st->term_sent = 1;
		act->flags |= SCTP_ACT_REJECTED;
		return;
	case SCTP_SST_INIT_RCVD:
		if (m->code == SCTP_CTL_TERMINATE && !st->failed && mark(st, m->ssn) == 0) {
			/* the active side gave up before our ULP answered */
			st->state = SCTP_SST_CLOSED;
			st->term_rcvd = st->term_sent = 1;
			act->flags = SCTP_ACT_SKIP | SCTP_ACT_PEER_ABORT;
			return;
		}
		violation(st, act, DDP_ECODE_LLP_BAD_SSN);
		return;
	case SCTP_SST_OPEN:
	case SCTP_SST_CLOSING:
		if (st->failed) {
			act->flags = SCTP_ACT_DROP;
			return;
		}
		if (m->code == SCTP_CTL_TERMINATE) {
			rx_terminate(st, m, act);
			return;
		}
		violation(st, act, DDP_ECODE_LLP_BAD_SSN);
		return;
	default: /* IDLE / CLOSED: stale or stray control chunk */
		st->dropped++;
		act->flags = SCTP_ACT_DROP;
		return;
	}
}

/* ------------------------------------------------------------ tx side */

int sctp_stream_tx_initiate(struct sctp_stream *st, int enhanced, uint16_t *ssn)
{
	if (st->state != SCTP_SST_IDLE && st->state != SCTP_SST_CLOSED)
		return DDP_ERR_STATE;
	/* RFC 5043 §6 rule 3: no reuse while old chunks may be in flight */
	if (st->state == SCTP_SST_CLOSED && st->tx_dirty)
		return DDP_ERR_BUSY;
	new_session(st, 1, enhanced);
	st->state = SCTP_SST_INIT_SENT;
	st->ctl_unconf = 1;
	st->tx_dirty = 1;
	*ssn = st->tx_ssn++;
	return 0;
}

static int tx_answer(struct sctp_stream *st, uint16_t *ssn, int accept)
{
	if (st->state != SCTP_SST_INIT_RCVD)
		return DDP_ERR_STATE;
	st->state = accept ? SCTP_SST_OPEN : SCTP_SST_CLOSED;
	st->may_send = (uint8_t)accept;
	st->ctl_unconf = 1;
	st->tx_dirty = 1;
	if (!accept)
		st->term_sent = st->term_rcvd = 1;
	*ssn = st->tx_ssn++;
	return 0;
}

int sctp_stream_tx_accept(struct sctp_stream *st, uint16_t *ssn)
{
	return tx_answer(st, ssn, 1);
}

int sctp_stream_tx_reject(struct sctp_stream *st, uint16_t *ssn)
{
	return tx_answer(st, ssn, 0);
}

int sctp_stream_tx_peek(const struct sctp_stream *st, uint16_t *ssn)
{
	if (st->term_sent)
		return DDP_ERR_CLOSED;
	if (st->state == SCTP_SST_INIT_SENT)
		return DDP_ERR_AGAIN; /* §6 rule 2 */
	if (st->state != SCTP_SST_OPEN && st->state != SCTP_SST_CLOSING)
		return DDP_ERR_STATE;
	if (!st->may_send)
		return DDP_ERR_AGAIN;
	*ssn = st->tx_ssn;
	return 0;
}

void sctp_stream_violation(struct sctp_stream *st, uint8_t code, struct sctp_act *act)
{
	memset(act, 0, sizeof(*act));
	if (st->state == SCTP_SST_IDLE || st->state == SCTP_SST_CLOSED) {
		st->dropped++;
		act->flags = SCTP_ACT_DROP;
		return;
	}
	violation(st, act, code);
}

int sctp_stream_tx_data(struct sctp_stream *st, uint16_t *ssn)
{
	if (st->term_sent)
		return DDP_ERR_CLOSED;
	if (st->state == SCTP_SST_INIT_SENT)
		return DDP_ERR_AGAIN; /* §6 rule 2 */
	if (st->state != SCTP_SST_OPEN && st->state != SCTP_SST_CLOSING)
		return DDP_ERR_STATE;
	if (!st->may_send)
		return DDP_ERR_AGAIN;
	st->tx_dirty = 1;
	*ssn = st->tx_ssn++;
	return 0;
}

int sctp_stream_tx_terminate(struct sctp_stream *st, uint16_t *ssn, unsigned *flags)
{
	*flags = 0;
	if (st->term_sent)
		return DDP_ERR_CLOSED;
	if (st->state != SCTP_SST_OPEN && st->state != SCTP_SST_CLOSING &&
	    st->state != SCTP_SST_INIT_SENT)
		return DDP_ERR_STATE;
	/* RFC 5043 §6 rule 1: it must not overtake our previous control
	 * chunk (Initiate: wait for the answer; Accept: wait for a sign) */
	if (st->state == SCTP_SST_INIT_SENT || st->ctl_unconf) {
		st->term_wanted = 1;
		return DDP_ERR_AGAIN;
	}
	st->term_wanted = 0;
	st->term_sent = 1;
	st->tx_dirty = 1;
	if (st->state == SCTP_SST_OPEN)
		st->state = SCTP_SST_CLOSING;
	*ssn = st->tx_ssn++;
	if (st->term_rcvd) {
		st->state = SCTP_SST_CLOSED;
		*flags |= SCTP_ACT_CLOSED;
	}
	return 0;
}

unsigned sctp_stream_tx_confirmed(struct sctp_stream *st)
{
	unsigned f = 0;
	st->tx_dirty = 0;
	if (st->ctl_unconf && st->state != SCTP_SST_INIT_SENT) {
		st->ctl_unconf = 0;
		if (st->term_wanted && !st->term_sent)
			f |= SCTP_ACT_TERM_READY;
	}
	return f;
}

void sctp_stream_abort(struct sctp_stream *st, struct sctp_act *act)
{
	memset(act, 0, sizeof(*act));
	if (st->state == SCTP_SST_IDLE || st->state == SCTP_SST_CLOSED)
		return;
	if (!st->term_sent && st->state != SCTP_SST_INIT_SENT && st->state != SCTP_SST_INIT_RCVD) {
		/* an abort may not wait for rule 1: losing the race only
		 * makes the peer see a broken session, which it terminates */
		act->flags |= SCTP_ACT_SEND_TERM;
		act->term_ssn = st->tx_ssn++;
		st->tx_dirty = 1;
	}
	st->term_sent = st->term_rcvd = 1;
	st->state = SCTP_SST_CLOSED;
	act->flags |= SCTP_ACT_CLOSED;
}
