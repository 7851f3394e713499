/*
 * libddp-rdmap: the RDMA Protocol (RFC 5040) on one DDP stream, built on the
 * public DDP API only (ddp/ddp.h). Works over any LLP: MPA/TCP (ddp/mpa.h,
 * the RFC 6581 IRD/ORD word gives ird/ord) and SCTP (ddp/sctp.h, one RDMAP
 * stream per SCTP stream, the Enhanced Initiate/Accept give ird/ord).
 *
 * A call that takes a callback table or ddp_rdmap_config is a macro that
 * adds one hidden argument, the sizes of those structs as the program was
 * compiled, and calls the exported function of its name with _sized
 * appended: ddp_rdmap_qp_new(...) is ddp_rdmap_qp_new_sized(..., sizes)
 * (ddp/export.h).
 *
 * Objects
 *  - ddp_rdmap_dev: the dispatcher. The DDP callbacks of a session carry one
 *    user pointer for the whole session (for SCTP: the whole endpoint), so
 *    the application gives the sessions the callback table from
 *    ddp_rdmap_dev_callbacks() with the dev as user pointer; the dev hands
 *    every event to the queue pair of its (session, stream), or to the
 *    application's own callbacks when the stream has none.
 *  - ddp_rdmap_qp: one RDMAP stream (a queue pair): a send queue of work
 *    requests (Send, Send with Invalidate / Solicited Event, RDMA Write,
 *    RDMA Read), receive buffers for Sends, IRD internal buffers on QN 1 for
 *    incoming Read Requests, one on QN 2 for a Terminate.
 *
 * Ordering (RFC 5040 §5.5): work requests go to DDP in the order posted and
 * complete in that order (a Send posted after a Read completes after the
 * Read's Response arrived); at most ORD Read Requests are outstanding (a
 * Read beyond ORD waits, and so does everything posted after it); incoming
 * Read Requests are answered in order, at most IRD at a time. A Send with
 * Invalidate invalidates the STag before the Send is delivered.
 *
 * Errors: the first error on the stream wins (RFC 5040 §4.8, §7). A local
 * detection sends one Terminate (QN 2) with layer/type/code and the
 * offending headers; a received Terminate is decoded (leniently: siw's
 * nibble-swapped control word is recognised) and reported. Either way every
 * outstanding work request and posted receive buffer then completes with
 * status DDP_ERR_ABORTED, later posts fail with DDP_ERR_STREAM, and the
 * terminate callback runs once. The application then closes the LLP.
 *
 * Memory (the rules of ddp/ddp.h, "Memory handed to the library"): every
 * buffer stays the application's but must stay valid until the library
 * gives it back:
 *  - a Send's or Write's payload, and a receive buffer: until its work
 *    completion (any status);
 *  - a region the peer writes into (an RDMA Write's or our Read's sink):
 *    until its STag is invalidated: nothing places into it once that call
 *    returned (a Read's data is complete at the Read's completion);
 *  - a region peers may read (DDP_ACCESS_REMOTE_READ): a Read Request
 *    resolves the source STag when it arrives, and its Response holds the
 *    region until the LLP took the last octet or the Response was flushed
 *    (Terminate, stream end, ddp_rdmap_qp_free). Invalidating the STag
 *    (ddp_stag_invalidate, or the peer's Send with Invalidate) refuses
 *    every later access at once, but the buffer is the application's only
 *    when the region's released callback runs (ddp_mr_attr.released):
 *    inside the invalidation when no Response holds it (which then
 *    returns 0), else when the last one was sent or flushed. A peer can
 *    delay that by not reading (its window closed); freeing the queue pair
 *    ends the wait at once. Without a released callback: free the queue
 *    pairs that could read the region first.
 *
 * Conventions as in ddp/ddp.h: 0 or a negative DDP_ERR_*, callbacks take
 * user last, everything on one thread.
 */
#ifndef DDP_RDMAP_H
#define DDP_RDMAP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include <ddp/ddp.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DDP_RDMAP_VERSION 1 /* RFC 5040 §4.2: RV */

/* RFC 5040 §4.3 opcodes. */
enum ddp_rdmap_opcode {
	DDP_RDMAP_OP_WRITE = 0x0,
	DDP_RDMAP_OP_READ_REQ = 0x1,
	DDP_RDMAP_OP_READ_RESP = 0x2,
	DDP_RDMAP_OP_SEND = 0x3,
	DDP_RDMAP_OP_SEND_INV = 0x4,
	DDP_RDMAP_OP_SEND_SE = 0x5,
	DDP_RDMAP_OP_SEND_SE_INV = 0x6,
	DDP_RDMAP_OP_TERMINATE = 0x7,
};

/* RDMAP's DDP queue numbers (RFC 5040 §5.1..§5.3). */
enum { DDP_RDMAP_QN_SEND = 0, DDP_RDMAP_QN_READ = 1, DDP_RDMAP_QN_TERM = 2 };

/* RFC 5040 §4.8: Terminate error types (layer DDP_LAYER_RDMAP) and codes. */
enum {
	DDP_RDMAP_ETYPE_CATASTROPHIC = 0x0,
	DDP_RDMAP_ETYPE_PROTECTION = 0x1, /* remote protection error */
	DDP_RDMAP_ETYPE_OPERATION = 0x2,  /* remote operation error */
};
enum {
	DDP_RDMAP_ECODE_INVALID_STAG = 0x00,
	DDP_RDMAP_ECODE_BOUNDS = 0x01,
	DDP_RDMAP_ECODE_ACCESS = 0x02,
	DDP_RDMAP_ECODE_NOT_ASSOCIATED = 0x03,
	DDP_RDMAP_ECODE_TO_WRAP = 0x04,
	DDP_RDMAP_ECODE_VERSION = 0x05,
	DDP_RDMAP_ECODE_OPCODE = 0x06,
	DDP_RDMAP_ECODE_STREAM_CATASTROPHIC = 0x07,
	DDP_RDMAP_ECODE_GLOBAL_CATASTROPHIC = 0x08,
	DDP_RDMAP_ECODE_CANNOT_INVALIDATE = 0x09,
	DDP_RDMAP_ECODE_UNSPECIFIED = 0xff,
};

typedef struct ddp_rdmap_dev ddp_rdmap_dev;
typedef struct ddp_rdmap_qp ddp_rdmap_qp;

/* A decoded Terminate (RFC 5040 §4.8), sent or received. */
typedef struct ddp_rdmap_term {
	uint8_t layer, etype, code; /* enum ddp_layer, type, code */
	uint8_t m, d, r;            /* Hdrct: segment length valid, DDP header
	                             * included, RDMAP header included */
	uint8_t swapped;            /* received in siw's layout (Layer in the
	                             * low nibble of octet 0, M/D/R in the low
	                             * bits of octet 2) */
	uint16_t seg_len;           /* DDP Segment Length (with m) */
	uint8_t ddp_hdr_len;        /* 0, 14 or 18 */
	uint8_t ddp_hdr[18];        /* terminated DDP header */
	uint8_t rdmap_hdr_len;      /* 0..28 */
	uint8_t rdmap_hdr[28];      /* terminated RDMAP header (Read Request) */
} ddp_rdmap_term;

enum ddp_rdmap_wc_kind {
	DDP_RDMAP_WC_SEND = 1,  /* a Send (any variant) posted by us */
	DDP_RDMAP_WC_WRITE = 2, /* an RDMA Write posted by us */
	DDP_RDMAP_WC_READ = 3,  /* an RDMA Read posted by us: data placed */
	DDP_RDMAP_WC_RECV = 4,  /* a receive buffer: a Send arrived */
};

/* One work completion. */
typedef struct ddp_rdmap_wc {
	enum ddp_rdmap_wc_kind kind;
	int status;   /* 0, or DDP_ERR_ABORTED (flushed: terminate, abort,
	               * free), or a DDP_ERR_* from the DDP send path */
	void *wr_ctx; /* the ctx given when posting */
	uint32_t len; /* RECV: message length; READ/SEND/WRITE: octets
	               * the work request named (also when flushed). A
	               * RECV with status != 0 has len 0: no message was
	               * delivered into buf (RFC 5040 §7.1: nothing is
	               * processed after the stream stopped, even a Send
	               * whose octets reached buf; RFC 5040 gives a
	               * flushed completion no length), so its contents
	               * are undefined. */
	/* RECV only */
	uint8_t opcode;      /* enum ddp_rdmap_opcode (a Send variant) */
	uint8_t solicited;   /* Send with Solicited Event */
	uint8_t invalidated; /* Send with Invalidate: inv_stag is now invalid
	                      * (its buffer: when its released callback
	                      * runs, which may be later: ddp/ddp.h) */
	uint32_t inv_stag;
	void *buf; /* the posted buffer */
} ddp_rdmap_wc;

typedef struct ddp_rdmap_callbacks {
	/* Every work request and receive buffer completes here exactly once,
	 * in order per queue (send queue / receive queue). Required. */
	void (*complete)(ddp_rdmap_qp *qp, const ddp_rdmap_wc *wc, void *user);
	/* The stream stopped: t is the Terminate we sent (sent = 1) or the
	 * one we received (sent = 0: only a Terminate that arrived); t is
	 * NULL when the LLP failed (a reset or lost connection, also in the
	 * middle of a Read Response or any other send), the stream was
	 * aborted without a Terminate, or the peer closed its sending half
	 * (FIN / SCTP stream reset: nothing more can arrive). Runs once,
	 * before the flush completions. Optional. */
	void (*terminate)(ddp_rdmap_qp *qp, const ddp_rdmap_term *t, int sent, void *user);
} ddp_rdmap_callbacks;

typedef struct ddp_rdmap_config {
	uint32_t ird;         /* incoming Read Requests served at once (>= 0) */
	uint32_t ord;         /* outgoing Read Requests outstanding at once */
	uint32_t max_send_wr; /* queued work requests, default 1024 */
} ddp_rdmap_config;

/* Create a dispatcher over ctx. other/other_user (both optional) receive
 * the DDP events of streams that have no queue pair. *out is the caller's:
 * ddp_rdmap_dev_free(). Errors: DDP_ERR_INVAL, DDP_ERR_NOMEM. */
DDP_API int ddp_rdmap_dev_new_sized(ddp_ctx *ctx, const ddp_callbacks *other, void *other_user,
                                    ddp_rdmap_dev **out, uint64_t sizes);
#define ddp_rdmap_dev_new(...) ddp_rdmap_dev_new_sized(__VA_ARGS__, DDP_SIZES1(ddp_callbacks))
/* Free a dispatcher. Errors: DDP_ERR_BUSY while queue pairs exist (nothing
 * freed). NULL is a no-op (returns 0). */
DDP_API int ddp_rdmap_dev_free(ddp_rdmap_dev *dev);
/* The DDP callback table to give the sessions (with dev as user): every
 * field of *out is written (writable NULL). */
DDP_API void ddp_rdmap_dev_callbacks_sized(ddp_callbacks *out, uint64_t sizes);
#define ddp_rdmap_dev_callbacks(...)                                                               \
	ddp_rdmap_dev_callbacks_sized(__VA_ARGS__, DDP_SIZES1(ddp_callbacks))

/* Create a queue pair on (s, stream) with the negotiated ird/ord (MPA:
 * ddp_mpa_info.ird/.ord; SCTP: from the Enhanced Initiate/Accept). Posts ird buffers on QN 1 and
 * one on QN 2 at once, so call it before the peer can send (MPA: in the CONNECTED event; SCTP:
 * before ddp_sctp_accept() / on ACCEPTED). cb is copied. *out is the caller's: ddp_rdmap_qp_free().
 * Errors: DDP_ERR_INVAL (NULL, bad stream, ird or ord over 16383),
 * DDP_ERR_BUSY (the stream has a queue pair), DDP_ERR_NOMEM, and the errors
 * of ddp_post_recv(). */
DDP_API int ddp_rdmap_qp_new_sized(ddp_rdmap_dev *dev, ddp_session *s, uint32_t stream,
                                   const ddp_rdmap_config *cfg, const ddp_rdmap_callbacks *cb,
                                   void *user, ddp_rdmap_qp **out, uint64_t sizes);
#define ddp_rdmap_qp_new(...)                                                                      \
	ddp_rdmap_qp_new_sized(__VA_ARGS__, DDP_SIZES2(ddp_rdmap_config, ddp_rdmap_callbacks))
/* Free a queue pair. Unless the stream already ended, it is aborted first
 * (ddp_stream_abort), so outstanding work completes with DDP_ERR_ABORTED
 * during this call, and the Read Responses still queued are dropped: the
 * regions they held are released in this call (the released callbacks of
 * those already invalidated run inside it). Call it before the session is freed (MPA: before
 * ddp_mpa_conn_free; SCTP: in the assoc-down callback at the latest).
 * Inside one of this queue pair's own callbacks it is silent at once
 * (ddp.h, "Lifetime": no completion or terminate callback follows) and
 * goes when the callback has returned, its stream aborted then.
 * NULL is a no-op. Returns 0. */
DDP_API int ddp_rdmap_qp_free(ddp_rdmap_qp *qp);
DDP_API void ddp_rdmap_qp_set_user(ddp_rdmap_qp *qp, void *user);
DDP_API void *ddp_rdmap_qp_get_user(const ddp_rdmap_qp *qp);
DDP_API ddp_session *ddp_rdmap_qp_session(const ddp_rdmap_qp *qp);
/* 1 once the stream stopped (Terminate sent or received, LLP gone). */
DDP_API int ddp_rdmap_qp_failed(const ddp_rdmap_qp *qp);

/* Post a receive buffer for one incoming Send (QN 0).
 * Errors: DDP_ERR_INVAL, DDP_ERR_STREAM (stopped), those of ddp_post_recv. */
DDP_API int ddp_rdmap_post_recv(ddp_rdmap_qp *qp, void *buf, size_t len, void *ctx);

enum ddp_rdmap_send_flags {
	DDP_RDMAP_SEND_SE = 0x1,  /* Solicited Event */
	DDP_RDMAP_SEND_INV = 0x2, /* Invalidate inv_stag at the peer */
};
/* Post a Send (flags select Send / with SE / with Invalidate / both).
 * Errors: DDP_ERR_INVAL (NULL qp, iovcnt < 0, unknown flags),
 * DDP_ERR_TOOBIG (total >= 2^32), DDP_ERR_LIMIT (max_send_wr),
 * DDP_ERR_STREAM (stopped), DDP_ERR_NOMEM. */
DDP_API int ddp_rdmap_post_send(ddp_rdmap_qp *qp, unsigned flags, uint32_t inv_stag,
                                const struct iovec *iov, int iovcnt, void *ctx);
/* Post an RDMA Write of iov to the peer's (stag, to).
 * Errors: those of ddp_rdmap_post_send, DDP_ERR_INVAL when to + length
 * wraps 2^64. */
DDP_API int ddp_rdmap_post_write(ddp_rdmap_qp *qp, uint32_t stag, uint64_t to,
                                 const struct iovec *iov, int iovcnt, void *ctx);
/* Post an RDMA Read of len octets from the peer's (src_stag, src_to) into
 * our sink (sink_stag, sink_to), which must be registered with
 * DDP_ACCESS_REMOTE_WRITE for this stream. Completes when the Read
 * Response was placed. Errors: those of ddp_rdmap_post_send, DDP_ERR_INVAL
 * (ORD is 0). */
DDP_API int ddp_rdmap_post_read(ddp_rdmap_qp *qp, uint32_t sink_stag, uint64_t sink_to,
                                uint32_t src_stag, uint64_t src_to, uint32_t len, void *ctx);

/* Decode a Terminate's payload (the QN 2 message after the DDP header) into
 * *out: RFC 5040 §4.8 layout, or siw's swapped control word when only that
 * reading names a defined (layer, type, code) or its Hdrct bits sit where
 * siw puts them. Truncated headers are kept as far as present. Advances
 * *src. Errors: DDP_ERR_NEED_MORE (fewer than 4 octets), DDP_ERR_PROTO
 * (neither reading is a defined error). */
DDP_API int ddp_rdmap_term_decode(ddp_rdmap_term *out, const uint8_t **src, const uint8_t *end);
/* 1 when (layer, etype, code) is an error RFC 5040 §4.8 / RFC 5041 §7.2 /
 * RFC 5044 §8 / RFC 6581 defines, or libddp's LLP codes (ddp/ddp.h). */
DDP_API int ddp_rdmap_term_valid(uint8_t layer, uint8_t etype, uint8_t code);
/* Short text for a Terminate's (layer, etype, code), static storage. */
DDP_API const char *ddp_rdmap_term_str(uint8_t layer, uint8_t etype, uint8_t code);

#ifdef __cplusplus
}
#endif
#endif
