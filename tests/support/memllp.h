/*
 * memllp: an in-memory LLP pair for end-to-end tests of the DDP core.
 *
 * Two ddp_sessions (side 0 and side 1) are joined by two queues that
 * implement ddp_llp_ops. ops->send copies the segment (header iov[0] +
 * payload iovs) into a queued record and into a log; memllp_pump() moves
 * queued segments to the peer through either ddp_llp_rx_segment() (whole
 * segment) or the header-first trio ddp_llp_rx_begin / ddp_llp_rx_dst /
 * ddp_llp_rx_end (payload copied into rx.dst in random pieces, asking
 * rx_dst before each piece).
 *
 * Knobs (all driven by a seeded PRNG, see chopper.h):
 *  - out_of_order: stamp every segment with a 16-bit sequence number per
 *    (side, stream) and pass it as seq (else DDP_LLP_INORDER). Only then
 *    are reorder_pct / dup_pct / drop_pct used (a TCP-like in-order LLP
 *    never reorders, duplicates or loses).
 *  - reorder_pct: chance to pick a random segment among the first
 *    reorder_span queued ones instead of the head.
 *  - dup_pct: chance to deliver a segment once more later.
 *  - drop_pct: chance to hold a segment back and redeliver it later.
 *  - mulpdu, queue_cap (send returns DDP_ERR_AGAIN at the cap and
 *    ddp_llp_writable() is called once the queue drained), pending (send
 *    returns DDP_LLP_PENDING, memllp_pump() calls ddp_llp_tx_done()).
 *  - mutate: a per-segment hook that may rewrite header/payload bytes, drop
 *    the segment or fail its "CRC" before it reaches the peer.
 *  - piece_hook: runs between two header-first payload pieces (e.g. to
 *    invalidate an STag while a placement is in progress).
 *  - memllp_inject(): hand arbitrary bytes to the peer's entry points.
 *
 * The sessions get recording callbacks unless cfg->cb is set: deliveries
 * (with a copy of the delivered bytes), errors, send completions and stream
 * events are appended to the side's arrays for the test to assert on.
 * Contract violations seen by the ops (bad header iov, length mismatch,
 * segment over MULPDU) are counted in side->violations.
 *
 * Single-threaded, test-only; every allocation failure aborts the process.
 */
#ifndef DDP_TEST_MEMLLP_H
#define DDP_TEST_MEMLLP_H

#include <stddef.h>
#include <stdint.h>

#include <ddp/ddp.h>
#include <ddp/llp.h>

#include "chopper.h"

typedef struct memllp memllp;

enum memllp_kind { MEMLLP_DATA = 0, MEMLLP_FIN = 1, MEMLLP_ABORT = 2 };

/* Return values of the mutate hook. */
enum { MEMLLP_PASS = 0, MEMLLP_DROP = 1, MEMLLP_BADCRC = 2 };

typedef struct memllp_seg {
	struct memllp_seg *next;
	int kind;	 /* enum memllp_kind */
	uint32_t stream;
	uint32_t seq;	 /* stamped seq, or DDP_LLP_INORDER */
	unsigned flags;	 /* DDP_LLP_SEG_* given to ops->send */
	size_t len;	 /* octets in data (header + payload) */
	uint8_t *data;
} memllp_seg;

typedef struct memllp_sent {
	uint32_t stream;
	unsigned flags;
	size_t len;
	uint8_t *data; /* header + payload as handed to ops->send */
	int ret;       /* what ops->send returned */
} memllp_sent;

typedef struct memllp_dlv {
	ddp_delivery d;
	uint8_t *data; /* copy of the delivered octets (untagged: buf[0..len),
			* tagged: NULL), owned by memllp */
} memllp_dlv;

typedef struct memllp_done {
	uint32_t stream;
	void *msg_ctx;
	int status;
} memllp_done;

typedef struct memllp_event {
	uint32_t stream;
	enum ddp_stream_event ev;
	int status;
} memllp_event;

typedef struct memllp_close {
	uint32_t stream; /* UINT32_MAX: ops->close (whole connection) */
	int abortive;
} memllp_close;

/* Arrays grow as needed; n* is the count. */
typedef struct memllp_side {
	memllp *m;
	int idx;
	ddp_session *s;
	ddp_ctx *ctx;
	uint32_t nstreams;
	uint32_t mulpdu;
	/* transport queue towards the peer, and held-back segments */
	memllp_seg *q_head, *q_tail;
	size_t q_len;
	memllp_seg *held;
	size_t held_len;
	uint16_t *seq_next;	/* per stream */
	uint32_t *pending_n;	/* DDP_LLP_PENDING segments per stream */
	int want_writable;
	int *fin_sent, *fin_rcvd, *closed_sent;
	/* logs */
	memllp_sent *sent;
	size_t nsent, sent_cap;
	size_t nagain;		/* ops->send calls answered DDP_ERR_AGAIN */
	size_t nsend_calls;	/* counted only with cfg.fail_send_at */
	memllp_close *closes;
	size_t ncloses, closes_cap;
	memllp_dlv *dlv;
	size_t ndlv, dlv_cap;
	ddp_error_info *err;
	size_t nerr, err_cap;
	memllp_done *done;
	size_t ndone, done_cap;
	memllp_event *ev;
	size_t nev, ev_cap;
	/* receive side statistics (segments this side received) */
	size_t rx_verdicts[3];	/* by enum ddp_rx_verdict (header-first) */
	size_t rx_segments;
	int last_rx_rc;		/* last entry point return value */
	unsigned violations;
	char violation[160];	/* text of the first violation */
} memllp_side;

typedef struct memllp_cfg {
	uint64_t seed;
	int hdr_first;		/* 1: header-first trio, 0: ddp_llp_rx_segment */
	int out_of_order;	/* stamp seq numbers (SCTP-like) */
	unsigned reorder_pct, dup_pct, drop_pct;
	unsigned reorder_span;	/* default 8 */
	uint32_t mulpdu;	/* default 1500 */
	size_t queue_cap;	/* 0: unlimited */
	int pending;		/* send answers DDP_LLP_PENDING */
	size_t fail_send_at;	/* the n-th send (1-based) answers
				 * DDP_ERR_LLP, a fatal LLP failure */
	size_t max_piece;	/* header-first piece size, default 7 */
	int no_auto_close;	/* do not turn close calls into peer events */
	int no_close_stream;	/* ops->close_stream = NULL (one-stream LLP) */
	ddp_ctx *ctx[2];	/* NULL: memllp creates (and frees) one */
	int share_ctx;		/* with ctx NULL: both sides use one ctx */
	ddp_session_config scfg[2]; /* zero fields: core defaults */
	const ddp_callbacks *cb[2]; /* NULL: the recording callbacks */
	void *user[2];		/* with cb: the user pointer */
	int (*mutate)(memllp *m, int to_side, memllp_seg *seg, void *user);
	void (*piece_hook)(memllp *m, int to_side, ddp_rx *rx, size_t off,
			   void *user);
	void *hook_user;
} memllp_cfg;

struct memllp {
	memllp_cfg cfg;
	chopper rng;
	memllp_side side[2];
	int owns_ctx[2];
};

/* Create the pair. cfg may be NULL (defaults). Returns 0, or the error of
 * ddp_ctx_new / ddp_session_new. *out is freed with memllp_free(). */
int memllp_new(const memllp_cfg *cfg, memllp **out);
/* Free both sessions (their callbacks still record), owned contexts and all
 * records. NULL is a no-op. */
void memllp_free(memllp *m);

ddp_session *memllp_session(memllp *m, int side);

/* Move one queued item from side `from` to the peer (held-back segments
 * included). Returns 1 if something moved, 0 if nothing was queued. */
int memllp_pump_one(memllp *m, int from);
/* Move everything both ways (completing PENDING sends, calling
 * ddp_llp_writable) until nothing is left; returns items moved. */
size_t memllp_pump(memllp *m);
/* Complete the DDP_LLP_PENDING segments of one side (tx_done). */
void memllp_complete(memllp *m, int side);

/* Change a side's MULPDU and tell its session (ddp_llp_mulpdu_changed). */
void memllp_set_mulpdu(memllp *m, int side, uint32_t mulpdu);

/* Hand raw bytes to side `to`'s receive entry points now: whole-segment
 * (hdr_first 0) or header-first (1; falls back to whole-segment when the
 * bytes are shorter than a header). Returns the entry point's result. */
int memllp_inject(memllp *m, int to, uint32_t stream, uint32_t seq,
		  const uint8_t *bytes, size_t len, int hdr_first);

/* Total queued + held items of a side. */
size_t memllp_queued(const memllp *m, int side);

/* The recording callbacks (user must be the memllp_side *). */
extern const ddp_callbacks memllp_recorder;
/* The ops tables (llp must be the memllp_side *); the second one has no
 * close_stream (an LLP whose streams cannot be closed one by one). */
extern const ddp_llp_ops memllp_ops;
extern const ddp_llp_ops memllp_ops_no_close_stream;

#endif
