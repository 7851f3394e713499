/* Internal structures of the DDP core. Nothing here is public. */
#ifndef DDP_CORE_H
#define DDP_CORE_H

#include <ddp/ddp.h>
#include <ddp/llp.h>
#include <stdint.h>

#include "log_limit.h"
#include "wire.h"

/* ------------------------------------------------------------ STag table */

struct ddp_mr {
	uint32_t stag;
	uint8_t *addr;
	size_t len;
	uint64_t to_base;
	unsigned access;
	ddp_pd *pd;
	ddp_session *session;
	uint32_t stream;
	struct ddp_mr *s_next, *s_prev; /* list of the session's bound MRs */
	uint32_t holds;                 /* outgoing readers (ddp_stag_hold_read) */
	int dying;                      /* invalidated, off the map, waits for holds == 0 */
	ddp_stag_released_cb released;
	void *released_user;
};

struct stag_map { /* open addressing, linear probing, keyed by 24-bit index */
	struct ddp_mr **slot;
	uint32_t cap; /* power of two */
	uint32_t used;
};

/* Memory of out-of-order rings, shared by every stream of a context
 * (ddp_ctx_config.max_reorder_bytes): a peer cannot pin more than this
 * with early segments whose predecessors never come. It is shared fairly
 * between sessions (docs/fairness.md); the rule is ooo_charge()
 * in order.c. */
struct ooo_acct;
struct ooo_budget {
	uint64_t used, max;
	uint32_t sessions;       /* sessions sharing the budget */
	uint32_t nactive;        /* of them holding a ring now */
	struct ooo_acct *active; /* those, linked */
	uint64_t refused;        /* rings refused so far */
};

/* One session's part of the budget. */
struct ooo_acct {
	struct ooo_acct *next, *prev; /* budget->active while used > 0 */
	uint64_t used;                /* octets of rings its streams hold */
};

void ooo_join(struct ooo_budget *b, struct ooo_acct *a);
void ooo_leave(struct ooo_budget *b, struct ooo_acct *a);
/* 0, or DDP_ERR_LIMIT: the session may not take `bytes` more now. */
int ooo_charge(struct ooo_budget *b, struct ooo_acct *a, uint64_t bytes);
void ooo_refund(struct ooo_budget *b, struct ooo_acct *a, uint64_t bytes);

#define REVOKED_RING 4096

struct ddp_ctx {
	ddp_ctx_config cfg;
	struct stag_map map;
	uint32_t npds, nsessions;
	uint32_t ndying;                /* invalidated regions still held (struct ddp_mr.dying) */
	ddp_session *sessions;          /* for revocation of in-flight placements */
	ddp_llp_release *releases;      /* adapter objects the loop frees later */
	uint32_t revoked[REVOKED_RING]; /* recently invalidated STag values (FIFO) */
	uint32_t revoked_pos, revoked_n;
	uint32_t revoked_set[2 * REVOKED_RING]; /* the same values, hashed */
	struct ooo_budget ooo;
	struct ddp_log_limit log; /* rate-limited lines (log_limit.h) */
};

struct ddp_pd {
	ddp_ctx *ctx;
	uint32_t refs; /* STags + streams bound to it */
};

int stag_map_init(struct stag_map *m, uint32_t cap);
void stag_map_free(struct stag_map *m);
struct ddp_mr *stag_map_get(const struct stag_map *m, uint32_t index);
int stag_map_put(struct stag_map *m, struct ddp_mr *mr);
void stag_map_del(struct stag_map *m, uint32_t index);

struct ddp_mr *stag_lookup(ddp_ctx *ctx, uint32_t stag);
void stag_release_session(ddp_session *s);
uint32_t ctx_random(ddp_ctx *ctx);

/* ---------------------------------------------------- untagged queues */

struct uq_ent {
	void *buf;
	size_t len;
	void *ctx;
};

struct uq { /* posted buffers of one (stream, QN), FIFO ring */
	struct uq_ent *ring;
	uint32_t cap, head, count;
	uint32_t head_msn; /* MSN the oldest posted buffer answers to */
	uint32_t tx_msn;   /* next MSN we send on this QN (DDP-UNT-3) */
	/* the message whose segments are being handed up, in the order the
	 * LLP sent them (uq_rx_segment) */
	uint32_t rx_msn;  /* its MSN */
	uint32_t rx_next; /* octets placed so far: the MO of its next segment */
	uint8_t rx_open;  /* a segment of rx_msn came, its L=1 one not yet */
};

enum uq_verdict { UQ_OK = 0, UQ_NOBUF, UQ_RANGE };
/* A queue of a new or reset stream: MSN 1 first both ways, no message
 * being received. */
void uq_reset(struct uq *q);
int uq_push(struct uq *q, uint32_t max, void *buf, size_t len, void *ctx);
/* Account one placed untagged segment of msn (payload octets at mo, last:
 * its L=1 segment), in the order the LLP sent the segments: 0 when it
 * starts a message at MO 0 or continues this queue's message exactly where
 * the octets placed so far end, -1 when it would leave octets of the
 * message unplaced or place some twice (nothing is recorded then). */
int uq_rx_segment(struct uq *q, uint32_t msn, uint32_t mo, uint32_t payload, int last);
/* 1 when uq_rx_segment would take a segment of msn at mo now. */
int uq_rx_continues(const struct uq *q, uint32_t msn, uint32_t mo);
enum uq_verdict uq_find(const struct uq *q, uint32_t msn, struct uq_ent **out);
void uq_pop(struct uq *q, struct uq_ent *out);
void uq_free(struct uq *q);

/* ---------------------------------------------------- ordering window */

enum { SLOT_EMPTY = 0, SLOT_PLACED, SLOT_SKIP, SLOT_HELD };

/* An untagged segment that arrived out of order before its buffer was
 * posted (rx.c, check_untagged): its header and payload wait here, charged
 * to the reorder budget, until every segment before it was handed up;
 * then it is checked again and copied into its buffer, or reported. */
struct rx_held {
	uint32_t len; /* payload octets */
	uint8_t hdr_len;
	uint8_t hdr[DDP_MAX_HDR_LEN];
	uint8_t data[];
};

/* What delivery needs to know about a message once its L=1 segment is
 * placed (RFC 5041 §5.4); for every placed segment, what the count of
 * placed octets needs (tagged, qn, msn, mo, payload). */
struct dlv_rec {
	uint8_t tagged;
	uint64_t rsvdulp;
	uint32_t qn, msn, len; /* untagged: len = MO + payload (DDP-SEG-10) */
	uint32_t mo, payload;  /* of the L=1 segment (error reports) */
	uint32_t stag;
	uint64_t to;
};

struct order_slot {
	uint8_t state, last;
	uint32_t payload;
	union {
		struct dlv_rec rec;   /* SLOT_PLACED */
		struct rx_held *held; /* SLOT_HELD */
	};
};

struct order_win {
	struct ooo_budget *budget;
	struct ooo_acct *acct;   /* the session's part of budget */
	uint32_t base;           /* next sequence number of the contiguous prefix */
	uint32_t size;           /* window in segments (power of two) */
	uint32_t held;           /* slots in use beyond base */
	struct order_slot *ring; /* allocated on the first out-of-order segment */
	uint32_t cap;            /* its slots (power of two, at most size): it
	                          * grows with the farthest segment held */
	uint64_t msg_bytes;      /* payload of the message being completed */
};

enum order_check { ORD_NEW = 0, ORD_DUP, ORD_OUTSIDE };
/* Map an LLP ordering number to the 32-bit sequence (INORDER: base). */
enum order_check order_classify(const struct order_win *w, uint32_t llp_seq, uint32_t *seq);
int order_mark(struct order_win *w, uint32_t seq, uint8_t state, uint8_t last, uint32_t payload,
               const struct dlv_rec *rec);
/* A held segment of len payload octets, charged to the window's budget:
 * NULL when the budget or memory has no room. */
struct rx_held *order_hold_new(struct order_win *w, size_t len);
void order_hold_free(struct order_win *w, struct rx_held *hd);
/* Record seq as held (hd is the window's from now on). Errors as
 * order_mark (hd not taken then). */
int order_mark_held(struct order_win *w, uint32_t seq, uint8_t last, struct rx_held *hd);
void order_reset(struct order_win *w);
void order_free(struct order_win *w);
/* Give the ring back once nothing is held (the window drained). */
void order_release_if_empty(struct order_win *w);

/* ---------------------------------------------------------- send queue */

struct tx_msg {
	struct tx_msg *next;
	struct ddp_hdr hdr; /* template: STag/TO or QN/MSN/RsvdULP */
	uint64_t total;     /* payload octets */
	uint64_t sent;      /* payload octets handed to the LLP */
	uint32_t pending;   /* segments the LLP still references */
	uint8_t handed_all; /* the L=1 segment was taken */
	int iovcnt;
	int iov_idx; /* cursor into iov */
	size_t iov_off;
	void *ctx;
	struct iovec iov[]; /* copy of the caller's array */
};

/* ---------------------------------------------------------- streams */

enum { TX_OPEN = 0, TX_CLOSING, TX_CLOSED };
enum { RX_OPEN = 0, RX_PEER_CLOSED };

struct ddp_stream {
	uint32_t idx;
	ddp_pd *pd;
	struct uq *uq; /* nqueues */
	struct order_win win;
	/* tx */
	struct tx_msg *txq, *txq_tail;
	struct tx_msg *tx_cur; /* first message not completely handed over */
	uint32_t txq_len;
	uint8_t tx_state, rx_state;
	uint8_t blocked; /* LLP said AGAIN */
	uint8_t in_pump;
	uint8_t in_complete;       /* tx_complete_ready() running (no recursion) */
	uint8_t errored;           /* first error reported (DDP-ERR-1) */
	uint8_t dead;              /* aborted / failed / closed: no traffic */
	uint8_t aborted;           /* dead by an abort: the connection ends abortively */
	uint8_t llp_closed;        /* close_stream already called */
	uint8_t sends_after_error; /* DDP-ERR-4 allowance */
	uint8_t traffic;           /* a message was queued or a segment came in:
	                            * the PD is fixed (ddp_stream_set_pd) */
	uint32_t epoch;            /* bumped on reset/abort; guards callback loops */
	uint8_t wr_armed;          /* the writable callback is wanted */
	uint64_t wr_lowat;         /* ... once txq_bytes is at most this */
	uint64_t txq_bytes;        /* payload octets queued and not completed */
	void *udata;               /* ddp_stream_set_user_data() */
	struct stream_counts {
		uint64_t msgs_tx, octets_tx, msgs_rx, octets_rx, errors;
	} cnt;
};

struct ddp_session {
	ddp_ctx *ctx;
	ddp_session *next, *prev; /* ctx->sessions */
	ddp_session_config cfg;
	const ddp_llp_ops *ops;
	void *llp;
	ddp_callbacks cb;
	void *user;
	uint32_t mulpdu;
	uint64_t copied;
	struct ddp_stream *st;
	struct ooo_acct ooo;   /* its part of ctx->ooo */
	ddp_rx *active_rx;     /* header-first ticket between begin and end */
	struct ddp_mr *mrs;    /* MRs bound to a stream of this session */
	struct iovec *scratch; /* segment iov build area */
	int scratch_cap;
	uint8_t closing, conn_closed, conn_abortive;
	void *udata;      /* ddp_session_set_user_data() */
	uint32_t in_cb;   /* callbacks of this session on the stack */
	uint8_t silenced; /* its owner was freed (ddp_llp_session_silence) */
	uint8_t owned;    /* its adapter frees it (ddp_session_set_owned) */
};

/* Every callback into the ULP goes through here: none once the session
 * is silenced (src/life.h: the object that owns it was freed inside a
 * callback); while one runs, ddp_session_free() of its session is
 * refused (DDP_ERR_BUSY). */
#define CALLBACK(s, name, ...)                                                                     \
	do {                                                                                       \
		if (!(s)->silenced) {                                                              \
			(s)->in_cb++;                                                              \
			(s)->cb.name(__VA_ARGS__);                                                 \
			(s)->in_cb--;                                                              \
		}                                                                                  \
	} while (0)

/* session.c */
void stream_error(ddp_session *s, struct ddp_stream *st, uint8_t layer, uint8_t etype, uint8_t code,
                  const uint8_t *hdr, size_t hdr_len, uint64_t seg_len);
void stream_flush(ddp_session *s, struct ddp_stream *st, int status);
void session_check_all_closed(ddp_session *s);
void stream_tx_drained(ddp_session *s, struct ddp_stream *st);
/* Stop the stream: buffers and sends back with status, stream_event. */
void stream_kill(ddp_session *s, struct ddp_stream *st, int abortive, int status, int call_llp);

/* tx.c: calls nothing of session.c; send.c acts on tx_pump's
 * verdict. tx_submit queues a message (no pump): 0 or DDP_ERR_*. */
#define TX_PUMP_OK      0 /* nothing for the caller to do */
#define TX_PUMP_DRAINED 1 /* closing and everything handed over: drained */
/* tx_pump: TX_PUMP_OK, TX_PUMP_DRAINED, or the LLP's fatal send error
 * (< 0): the caller fails the stream with it (ddp_llp_failed, DDP-TRD-7) */
int tx_pump(ddp_session *s, struct ddp_stream *st);
int tx_submit(ddp_session *s, uint32_t stream, const struct ddp_hdr *tmpl, const struct iovec *iov,
              int iovcnt, void *ctx);
int tx_drained(const struct ddp_stream *st);
void tx_complete_ready(ddp_session *s, struct ddp_stream *st);
void tx_flush(ddp_session *s, struct ddp_stream *st, int status);
void tx_writable_check(ddp_session *s, struct ddp_stream *st);
/* 1 when a message can be queued on st now: below max_tx_queued
 * messages, and below max_tx_octets octets behind the oldest message. */
int tx_can_queue(const ddp_session *s, const struct ddp_stream *st);

/* send.c: run the pump and act on its verdict */
void tx_run(ddp_session *s, struct ddp_stream *st);

/* rx.c */
void rx_deliver_ready(ddp_session *s, struct ddp_stream *st);

/* rx_cancel.c: stop a payload being read (no call into rx.c, stag.c or
 * session.c, which all use it) */
void rx_revoke(ddp_ctx *ctx, uint32_t stag);
void rx_stale(ddp_session *s, uint32_t stream);

#endif
