/*
 * Per-stream DDP Stream Session state machine (RFC 5043 §6, RFC 6581 §7).
 * Pure: the usrsctp glue feeds it what arrived and asks it what may be
 * sent; it answers with DDP-SSNs to use and actions to take.
 *
 *   IDLE --tx Initiate--> INIT_SENT --rx Accept--> OPEN
 *   IDLE --rx Initiate--> INIT_RCVD --tx Accept--> OPEN
 *   INIT_SENT --rx Reject/Terminate--> CLOSED   INIT_RCVD --tx Reject--> CLOSED
 *   OPEN --tx or rx Terminate--> CLOSING --the other Terminate--> CLOSED
 *   CLOSED --new Initiate (either side)--> as from IDLE
 *
 * Receive ordering: chunks arrive unordered (U=1), so a peer Terminate is
 * acted on only once every chunk with a smaller DDP-SSN of the session has
 * arrived (RFC 5043 §6: its place in the DDP-SSN sequence is what counts).
 */
#ifndef SCTP_STREAM_H
#define SCTP_STREAM_H

#include <stdint.h>

#include "sctp/sctp_ctl.h"
#include "sctp/sctp_ssn.h"

enum sctp_sst {
	SCTP_SST_IDLE = 0,
	SCTP_SST_INIT_SENT,
	SCTP_SST_INIT_RCVD,
	SCTP_SST_OPEN,
	SCTP_SST_CLOSING,
	SCTP_SST_CLOSED,
	SCTP_SST__COUNT
};

/* Received-DDP-SSN window (RFC 5043 §10 sanity check): an SSN more than
 * this far beyond the lowest missing one is invalid. */
#define SCTP_RX_WIN 8192u

/* Actions for the glue (bit set). */
enum {
	SCTP_ACT_SKIP = 0x001,         /* ddp_llp_rx_skip(ssn): control chunk */
	SCTP_ACT_RESET = 0x002,        /* ddp_llp_stream_reset: new session */
	SCTP_ACT_ULP_INITIATE = 0x004, /* pass the Initiate to the ULP */
	SCTP_ACT_ACCEPTED = 0x008,     /* our Initiate was accepted */
	SCTP_ACT_REJECTED = 0x010,     /* ... rejected (Reject or Terminate) */
	SCTP_ACT_PEER_CLOSED = 0x020,  /* peer Terminate reached in order */
	SCTP_ACT_CLOSED = 0x040,       /* both Terminates done */
	SCTP_ACT_SEND_TERM = 0x080,    /* send our Terminate now */
	SCTP_ACT_VIOLATION = 0x100,    /* protocol violation (code in act) */
	SCTP_ACT_DROP = 0x200,         /* ignore the chunk silently */
	SCTP_ACT_PEER_ABORT = 0x400,   /* peer ended a session not yet open */
	SCTP_ACT_TERM_READY = 0x800,   /* a deferred Terminate may go now */
};

struct sctp_act {
	unsigned flags;
	uint8_t code;      /* with VIOLATION: DDP_ECODE_LLP_* */
	uint16_t term_ssn; /* with SEND_TERM: DDP-SSN for our Terminate */
};

struct sctp_stream {
	uint8_t state;      /* enum sctp_sst */
	uint8_t active;     /* we sent the Initiate of this session */
	uint8_t enhanced;   /* session set up with RFC 6581 codes */
	uint8_t may_send;   /* DDP segments allowed (RFC 5043 §6 rule 2) */
	uint8_t ctl_unconf; /* our last control chunk not known received */
	uint8_t term_sent, term_rcvd, term_seen, term_wanted, failed;
	uint8_t tx_dirty; /* chunks of this session may be in flight */
	uint16_t tx_ssn;  /* next DDP-SSN we send */
	uint16_t rx_base; /* lowest DDP-SSN of the peer not yet received */
	uint16_t peer_term_ssn;
	uint32_t rx_bits[SCTP_RX_WIN / 32]; /* ring: bit (ssn % SCTP_RX_WIN) */
	uint64_t dropped;                   /* chunks ignored (stale session, idle) */
};

const char *sctp_sst_name(unsigned state);

void sctp_stream_init(struct sctp_stream *st);

/* ----- transmit side: each returns 0 and the DDP-SSN to put on the chunk,
 * or a negative DDP_ERR_* and sends nothing. */

/* Start a session as the active side (RFC 5043 §6.2). From IDLE, or from
 * CLOSED once nothing of the old session may be in flight (§6 rule 3).
 * Errors: DDP_ERR_BUSY (old chunks may be in flight: retry after
 * sctp_stream_tx_confirmed), DDP_ERR_STATE. */
int sctp_stream_tx_initiate(struct sctp_stream *st, int enhanced, uint16_t *ssn);
/* ULP accepted / rejected the peer's Initiate (INIT_RCVD only). Reject is
 * only ever sent on ULP request (RFC 5043 §5.2.3). Errors: DDP_ERR_STATE. */
int sctp_stream_tx_accept(struct sctp_stream *st, uint16_t *ssn);
int sctp_stream_tx_reject(struct sctp_stream *st, uint16_t *ssn);
/* A DDP segment (PPID 16). Errors: DDP_ERR_AGAIN (active side waiting for
 * the Accept, §6 rule 2), DDP_ERR_CLOSED (our Terminate was sent),
 * DDP_ERR_STATE (no open session), DDP_ERR_STREAM (stream failed). */
int sctp_stream_tx_data(struct sctp_stream *st, uint16_t *ssn);
/* Our Terminate. Errors: DDP_ERR_AGAIN (it could overtake our previous
 * control chunk, §6 rule 1: term_wanted is set, the glue retries on
 * SCTP_ACT_TERM_READY), DDP_ERR_CLOSED (already sent), DDP_ERR_STATE. */
int sctp_stream_tx_terminate(struct sctp_stream *st, uint16_t *ssn, unsigned *flags);
/* Everything we sent so far has been acknowledged (association
 * SENDER_DRY). May report SCTP_ACT_TERM_READY. */
unsigned sctp_stream_tx_confirmed(struct sctp_stream *st);

/* ----- receive side */

/* A PPID-16 chunk with DDP-SSN ssn arrived. act->flags == 0: hand it to
 * the core; DROP: ignore; VIOLATION: the session is broken (send
 * Terminate, report act->code). May add PEER_CLOSED/CLOSED (a pending peer
 * Terminate is now in order) and TERM_READY. */
void sctp_stream_rx_data(struct sctp_stream *st, uint16_t ssn, struct sctp_act *act);
/* A decoded PPID-17 chunk arrived. cap_ok == 0: the cap of Initiates
 * waiting for the ULP is reached (an Initiate is then answered with
 * Terminate, RFC 5043 §5.2.3). */
void sctp_stream_rx_ctl(struct sctp_stream *st, const struct sctp_ctl_msg *m, int cap_ok,
                        struct sctp_act *act);

/* Check a PPID-16 chunk may go, without using up its DDP-SSN (the send
 * can still fail with DDP_ERR_AGAIN below us). Same errors as tx_data. */
int sctp_stream_tx_peek(const struct sctp_stream *st, uint16_t *ssn);
/* A malformed chunk on this stream's session (e.g. an undecodable control
 * message): same handling as a violation found by the machine itself. */
void sctp_stream_violation(struct sctp_stream *st, uint8_t code, struct sctp_act *act);

/* Local abortive end of the session: CLOSED at once (Terminate is sent if
 * it may go; later chunks of the session are dropped). */
void sctp_stream_abort(struct sctp_stream *st, struct sctp_act *act);

#endif
