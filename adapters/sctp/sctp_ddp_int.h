/* Private structures shared by sctp_ddp.c (association, control, send)
 * and sctp_rx.c (header-first receive). */
#ifndef SCTP_DDP_INT_H
#define SCTP_DDP_INT_H

#include "life.h"
#include <ddp/llp.h>
#include <ddp/sctp.h>

#include "sctp/sctp_ctl.h"
#include "sctp/usrsctp/sctp_ll.h"
#include "sctp/sctp_ssn.h"
#include "sctp/sctp_stream.h"

/* RFC 5043 §9: leave room so SACKs etc. can be bundled with a full chunk */
#define SCTP_BUNDLE_ALLOWANCE 32
/* RFC 5043 §10 + the peer's reorder window: chunks of one stream that
 * may be unacknowledged at once (the receiver rejects DDP-SSNs more than
 * SCTP_RX_WIN ahead of its first missing one) */
#define SCTP_TX_INFLIGHT (SCTP_RX_WIN / 2)
/* Receive policy: SCTP messages (DDP-SSN + segment) of at most this many
 * octets are read whole with one usrsctp call and placed with one counted
 * copy (sctp_ll_config.rx_whole_max); longer ones header-first, the
 * payload straight into place. 16 KiB of payload with its headers: every
 * segment at a link MTU of 1500 or 9000, and 16 KiB messages on loopback,
 * where whole reads cost the receiver less CPU than header-first ones;
 * 64 KiB segments cost the same either way and stay zero-copy
 * (docs/performance.md, section 10, "SCTP receive: one call per small
 * segment"). */
#define SCTP_RX_WHOLE_MAX (16384 + 64)

/* err_code of a segment longer than SCTP_RECVNXTINFO announced: at its
 * end it is DDP_ECODE_LLP_OVERSIZE when over MULPDU, else a local error */
#define SCTP_RX_ERR_LONG 0xFF

/* Resumable receive machine states (sctp_rx.c, names in rx_state_names). */
enum sctp_rxs {
	RXS_START = 0, /* next message: read the first piece */
	RXS_PREFIX,    /* DDP-SSN + DDP header */
	RXS_PAYLOAD,   /* payload straight into the core's rx.dst */
	RXS_STAGE,     /* length unknown: whole segment into stage[] */
	RXS_CTL,       /* PPID 17 control message into ctl[] */
	RXS_DISCARD,   /* skip the rest of the message */
	RXS__COUNT
};

struct sctp_rxm {
	enum sctp_rxs state;
	uint16_t sid;
	uint16_t ssn;
	uint32_t ppid;
	int eor;       /* the current message has been read to its end */
	int len_known; /* total length known from SCTP_RECVNXTINFO */
	int whole;     /* held whole in the glue's staging area */
	size_t total;  /* user message length when len_known */
	size_t have;   /* octets in pre[] / ctl[] / stage[] */
	size_t need;   /* prefix length (2 + 14 or 18) */
	size_t off;    /* payload octets read */
	size_t plen;   /* payload length announced to the core */
	int rx_open;   /* ticket between rx_begin and rx_end */
	unsigned post; /* sctp_act flags to run after the segment */
	/* an error about the segment being discarded, reported with its DDP
	 * header and true length once its end is read (0: none) */
	uint8_t err_code; /* DDP_ECODE_LLP_*, or SCTP_RX_ERR_LONG */
	size_t seg_seen;  /* octets of the segment (after the DDP-SSN) read */
	ddp_rx rx;
	uint8_t pre[SCTP_SSN_LEN + DDP_MAX_HDR_LEN];
	uint8_t ctl[SCTP_CTL_MAX_LEN + 1];
	/* SCTP_RECVNXTINFO of the last read: the next message */
	int nxt_valid;
	uint16_t nxt_sid;
	uint32_t nxt_ppid;
	uint32_t nxt_len;
};

struct sctp_sstream {
	struct sctp_stream sm;
	uint32_t inflight;    /* chunks sent since the association was dry */
	uint32_t sent;        /* segments taken (DDP_LLP_PENDING) and not yet
	                       * reported with ddp_llp_tx_done (SCTP_LL_EV_LATER) */
	uint8_t closed_later; /* its session ended in our call: ddp_llp_closed
	                       * from SCTP_LL_EV_LATER */
	uint8_t used;         /* had a session before (reset the core's stream) */
	uint8_t ulp_pending;  /* INITIATE given to the ULP, not answered */
	uint8_t has_peer_io;  /* peer_io valid (RFC 6581 enhanced session) */
	struct sctp_ird_ord peer_io;
};

/* One control message waiting for room in usrsctp, sized to the message
 * (a Terminate takes 4 octets of buf, not SCTP_CTL_MAX_LEN). */
struct pend_ctl {
	struct pend_ctl *next;
	uint16_t sid;
	uint16_t code;
	uint16_t len;
	uint8_t buf[];
};
/* What a queued control message counts against max_ctl_queue_bytes. */
#define SCTP_PC_COST(len) (sizeof(struct pend_ctl) + (len))
/* Control messages handed to usrsctp and not known to be acknowledged
 * (sctp_ctl_tx.c): past this many the association's control queue waits
 * for usrsctp to free them. usrsctp bounds its send buffer in payload octets, so a
 * 4-octet Terminate costs it 4 octets of the bound but a few hundred of
 * memory (its message and mbuf); this count bounds that memory instead. */
#define SCTP_CTL_LLP_MAX 4096

struct ddp_sctp_assoc {
	struct ddp_sctp_assoc *next, *prev;
	ddp_sctp_ep *ep;
	sctp_ll_assoc *ll;
	ddp_session *s;
	uint32_t nstreams;
	uint32_t mulpdu; /* at UP: the most we send or accept */
	uint32_t max_msg;
	uint32_t tx_mulpdu;  /* now: follows the path MTU down */
	uint32_t tx_max_msg; /* sctp_ll_max_msg it was derived from */
	uint32_t pending_init;
	int blocked; /* a send returned DDP_ERR_AGAIN */
	int down;
	int fatal;        /* status to report for a local fatal ABORT */
	uint64_t trace_n; /* control-plane anomalies seen (rate-limited log) */
	/* Per-stream state, created when a stream first gets a session
	 * (an Initiate passed to the ULP, or ours) and kept until the
	 * association goes: st[sid] NULL = idle, never used (sctp_ss). A
	 * stream that only ever saw stray chunks, or an Initiate refused at
	 * max_pending_initiates, costs its pointer and one bit. */
	struct sctp_sstream **st;
	uint16_t *live; /* the sids whose st[] exists, nlive of them */
	uint32_t nlive;
	uint8_t *term_q;  /* bit sid: a Terminate of ours waits in pc_head */
	uint8_t *idle_tx; /* bit sid: a stream without state sent a chunk
	                   * (a Terminate refusing an Initiate) that may be
	                   * in flight: no Initiate of ours on it before
	                   * SENDER_DRY (RFC 5043 §6 rule 3) */
	int any_idle_tx;  /* some idle_tx bit is set */
	struct pend_ctl *pc_head, *pc_tail;
	size_t pc_bytes;  /* SCTP_PC_COST of the queued control messages */
	uint32_t ctl_llp; /* control messages handed to usrsctp since it was
	                   * last dry (SCTP_CTL_LLP_MAX) */
	int rx_paused;    /* not reading: pc_bytes reached the bound */
	struct sctp_rxm rxm;
	ddp_sctp_stats stats;
	uint8_t *stage; /* max_msg octets: tx build, rx staging, discard */
	/* slots (sctp_slots.c) */
	uint64_t born_ms;        /* accepted */
	uint64_t idle_ms;        /* last seen with a DDP stream session (or born) */
	uint64_t leave_ms;       /* ended by sctp_slots.c */
	uint8_t inbound;         /* accepted by the listener */
	uint8_t streams_counted; /* nstreams is in ep->nstreams_used */
	uint8_t leaving, aborting;
	uint64_t close_by_ms; /* graceful close deadline (0: none) */
};

struct ddp_sctp_ep {
	struct event_base *base;
	ddp_sctp_config cfg;
	sctp_ll_ep *ll;
	struct ddp_sctp_assoc *assocs;
	uint32_t nassocs;     /* associations alive (capped by cfg.max_assocs) */
	struct ddp_life life; /* frames on the stack, freed (src/life.h) */
	/* freed inside a callback made in an application's call: released
	 * from the loop (fin), or by ddp_ctx_free() when that comes first */
	sctp_ll_defer *fin;
	ddp_llp_release rel;
	int unlistened;         /* ddp_sctp_unlisten: no new associations */
	ddp_callbacks wcb;      /* the sessions' callbacks: cfg.ddp in our frames */
	uint32_t nleaving;      /* of them ended by sctp_slots.c, not gone yet */
	uint64_t nstreams_used; /* streams of the associations up and not
	                         * ended by sctp_slots.c (cfg.max_streams) */
};

/* sctp_rx.c: what the receive machine hands back to sctp_ddp.c (it never
 * calls up). */
enum sctp_rx_kind {
	SCTP_RX_STOP = 0, /* nothing more now: the source ran dry */
	SCTP_RX_ACTIONS,  /* run act for stream sid (sctp_stream flags) */
	SCTP_RX_CONTROL,  /* a PPID-17 message ctl[0..ctl_len) on stream sid */
	SCTP_RX_FATAL,    /* association-level violation: ABORT with err */
	SCTP_RX_ORDERED,  /* a chunk with U=0 on stream sid (ppid): it is
	                   * being received as usual; report it */
};

struct sctp_rx_out {
	enum sctp_rx_kind kind;
	uint16_t sid;
	uint32_t ppid;
	struct sctp_act act;
	const uint8_t *ctl; /* valid until the next sctp_rx_next() */
	size_t ctl_len;
	/* ACTIONS with a violation about one segment: its DDP header (as
	 * much as arrived) and length, for the error report (RFC 5040 §4.8) */
	const uint8_t *seg_hdr;
	size_t seg_hdr_len;
	size_t seg_len;
	int err;
};

/* Run the receive machine until it has something for the association to
 * do (returns out->kind, > 0) or the source runs dry (SCTP_RX_STOP). The
 * caller acts on *out and calls again while the association is alive. */
int sctp_rx_next(struct ddp_sctp_assoc *a, struct sctp_rx_out *out);
const char *sctp_rxs_name(unsigned state);

/* Tests: let n more allocations of sctp_ddp.c succeed, then fail every
 * one (n < 0: never fail, the default). The core's ddp_debug_fail_alloc
 * does not reach the adapter's own allocations. */
void sctp_ddp_debug_fail_alloc(long n);
/* sctp_alloc.c: every allocation of the adapter (failable by the above) */
void *sctp_xmalloc(size_t n);
void *sctp_xcalloc(size_t nmemb, size_t size);
/* sctp_alloc.c: the per-stream state table of an association (a->st,
 * a->live, a->term_q for a->nstreams streams). Errors: DDP_ERR_NOMEM. */
int sctp_ss_table_new(struct ddp_sctp_assoc *a);
void sctp_ss_table_free(struct ddp_sctp_assoc *a);
/* The state of stream sid, NULL while it never had a session. */
static inline struct sctp_sstream *sctp_ss(const struct ddp_sctp_assoc *a, uint32_t sid)
{
	return a->st && sid < a->nstreams ? a->st[sid] : NULL;
}
/* ... created (idle) on first use; NULL: no memory or sid out of range */
struct sctp_sstream *sctp_ss_get(struct ddp_sctp_assoc *a, uint32_t sid);
/* The stream machine of sid, or *tmp set to an idle one when the stream
 * has no state: what the machine does to tmp is not kept. */
struct sctp_stream *sctp_sm_or_idle(struct ddp_sctp_assoc *a, uint32_t sid,
                                    struct sctp_stream *tmp);

/* sctp_ctl_tx.c: queue one control message (kept in order with earlier
 * ones) and flush; io: the RFC 6581 IRD/ORD word of an enhanced
 * Initiate/Accept (NULL: 0x3FFF both, "the ULP negotiates").
 * Errors: DDP_ERR_NOMEM, the encoder's. */
int sctp_ctl_send_io(struct ddp_sctp_assoc *a, uint16_t sid, uint16_t code, uint16_t ssn,
                     const struct sctp_ird_ord *io, const void *priv, size_t priv_len);
int sctp_ctl_send(struct ddp_sctp_assoc *a, uint16_t sid, uint16_t code, uint16_t ssn,
                  const void *priv, size_t priv_len);
void sctp_ctl_flush(struct ddp_sctp_assoc *a);
/* usrsctp reported everything sent acknowledged (SENDER_DRY): the control
 * messages it held are gone (SCTP_CTL_LLP_MAX). */
void sctp_ctl_llp_dry(struct ddp_sctp_assoc *a);
/* The queue of control messages has reached cfg.max_ctl_queue_bytes: the
 * association stops reading (sctp_ddp_readable) until it is half empty. */
int sctp_ctl_queue_full(const struct ddp_sctp_assoc *a);
/* Free every queued control message (the association is going). */
void sctp_ctl_drop_all(struct ddp_sctp_assoc *a);
/* Terminate the stream's DDP stream session (session Terminate). */
void sctp_ctl_send_terminate(struct ddp_sctp_assoc *a, uint16_t sid);

/* sctp_trace.c: log one control-plane anomaly of the peer on stream sid
 * (first SCTP_TRACE_FIRST per association, then a count every
 * SCTP_TRACE_EVERY), and the total when the association goes. */
#define SCTP_TRACE_FIRST 8
#define SCTP_TRACE_EVERY 1024
void sctp_trace(struct ddp_sctp_assoc *a, uint16_t sid, const char *what);
void sctp_trace_summary(struct ddp_sctp_assoc *a);

/* sctp_ctl_rx.c: read and act until the source runs dry (the readable
 * event; the unit tests drive it directly). */
void sctp_ddp_readable(struct ddp_sctp_assoc *a);
/* sctp_ctl_rx.c: run the stream machine's actions for stream sid; the
 * ULP's Initiate on sid is void (DDP_SCTP_CANCELLED) if it was waiting. */
void sctp_ddp_actions(struct ddp_sctp_assoc *a, uint16_t sid, const struct sctp_act *act);
void sctp_ddp_cancel_pending(struct ddp_sctp_assoc *a, uint16_t sid);
/* usrsctp has room again (SCTP_LL_EV_WRITABLE / DRY): flush the control
 * queue, resume reading if it was paused, wake the core's senders. */
void sctp_ddp_writable(struct ddp_sctp_assoc *a);

/* sctp_slots.c: the association cap and the idle reaper. */
/* At max_assocs: evict the oldest association without a DDP stream
 * session (logged) and return 0, or return -1 (refuse ll, logged). */
int sctp_slots_admit(ddp_sctp_ep *ep, sctp_ll_assoc *ll);
/* a is up with nstreams streams: count them against cfg.max_streams. An
 * accepted association that does not fit evicts the oldest ones without a
 * DDP stream session (logged) until it does; returns -1 when it cannot
 * (refuse it: ABORT, logged). Associations we opened always fit. */
int sctp_slots_admit_streams(ddp_sctp_ep *ep, struct ddp_sctp_assoc *a, uint32_t nstreams);
/* The endpoint's timer (sctp_ll_set_tick; user: the ddp_sctp_ep). */
void sctp_slots_tick(void *ep);
/* a is being freed. */
void sctp_slots_gone(struct ddp_sctp_assoc *a);
uint64_t sctp_slots_now_ms(void);

#endif
