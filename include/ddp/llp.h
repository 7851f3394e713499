/*
 * The LLP contract: what a lower-layer protocol adapter (MPA/TCP, SCTP,
 * in-memory test pair) implements for the DDP core, and the entry points it
 * calls on the core. RFC 5041 §3 lists what an LLP must provide.
 *
 * Everything runs on the one thread that owns the session. ULP callbacks
 * (deliver, error, send_done, stream_event) run inside the entry points
 * below, and a ULP may react by sending (ops->send), closing or aborting
 * (ops->close_stream / ops->close): an adapter must accept those calls while
 * it is inside ddp_llp_rx_begin/end or a pump (queue the work, or return
 * DDP_ERR_AGAIN from send). No callback may free the session.
 *
 * The ops run inside the application's calls (ddp_send_*, ddp_stream_close,
 * ddp_session_close, ...), and ddp.h ("Callbacks") promises that those run
 * no callback beyond their flush. So an op reports nothing back before it
 * returns: no ddp_llp_tx_done / _closed / _failed / _peer_closed and no
 * event of the adapter's own (a connection's end) from inside send, close,
 * close_stream or close_deadline; the adapter reports them from its event
 * loop (both adapters of this library: an event made active at once). A
 * send the LLP cannot take because the connection is ending returns
 * DDP_ERR_AGAIN; the end, reported later, fails the stream.
 *
 * After the core called ops->close_stream(abortive=1) / ops->close(1), or
 * after the adapter reported ddp_llp_failed(), the adapter must not touch the
 * payload of segments it took with DDP_LLP_PENDING: the core hands that
 * memory back to the ULP right after.
 */
#ifndef DDP_LLP_H
#define DDP_LLP_H

#include <ddp/ddp.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Flags of one outgoing segment. */
enum {
	DDP_LLP_SEG_LAST = 0x1,   /* L=1: last segment of a message */
	DDP_LLP_SEG_TAGGED = 0x2, /* T=1 (tagged; short ones MAY be bundled) */
};

/* Return value of ops->send when the LLP took the segment but still reads
 * the payload memory; it then calls ddp_llp_tx_done() once per such segment,
 * in the order they were sent. */
#define DDP_LLP_PENDING 1

typedef struct ddp_llp_ops {
	/* Send one DDP segment. iov[0] is the DDP header (14 or 18 octets, only
	 * valid during the call: copy it), iov[1..] the payload (valid until the
	 * segment is done). len = total octets, always <= the MULPDU in force.
	 * Returns 0 (taken, memory no longer needed), DDP_LLP_PENDING (taken,
	 * payload still referenced), DDP_ERR_AGAIN (not taken: the core retries
	 * after ddp_llp_writable()), or another negative code (fatal for the
	 * stream; the core reports it and flushes the stream). RFC 5041 §3:
	 * the LLP never asks the core to re-segment a segment it took. */
	int (*send)(void *llp, uint32_t stream, const struct iovec *iov, int iovcnt, size_t len,
	            unsigned flags);
	/* Initial MULPDU (largest DDP segment, header included). */
	uint32_t (*mulpdu)(void *llp);
	/* Tear down one stream: graceful (abortive == 0: after everything
	 * already taken is sent, close the sending half) or abortive. May be
	 * NULL when the LLP has one stream (close is used instead). */
	void (*close_stream)(void *llp, uint32_t stream, int abortive);
	/* Tear down the whole connection (graceful or abortive). */
	void (*close)(void *llp, int abortive);
	/* Optional: the peer's (peer != 0) or our address as text
	 * ("192.0.2.1:5000", "[2001:db8::1]:5000") into buf (len octets,
	 * NUL terminated). Returns 0 or DDP_ERR_NOENT. */
	int (*addr)(void *llp, int peer, char *buf, size_t len);
	/* Optional: when the connection is not down within ms milliseconds,
	 * end it abortively through ddp_session_close(s, 1) (a graceful close
	 * is under way: ddp_session_close_deadline). Called again: the new
	 * deadline replaces the old. */
	void (*close_deadline)(void *llp, unsigned ms);
} ddp_llp_ops;

/* Ordering information for LLPs that hand segments up out of order
 * (RFC 5041 §3 item 5, DDP-LLP-5). An in-order LLP (MPA over TCP) passes
 * DDP_LLP_INORDER; SCTP passes the 16-bit DDP-SSN of the chunk. */
#define DDP_LLP_INORDER UINT32_MAX

/* ---------------------------------------------------------- receive side */

/* The core's answer to a segment header. */
enum ddp_rx_verdict {
	DDP_RX_PLACE = 0, /* read the payload into dst (may be 0 octets) */
	DDP_RX_DROP = 1,  /* read and discard the payload (silent drop) */
	DDP_RX_ERROR = 2, /* an error was reported; discard the payload */
};

/* Receive ticket filled by ddp_llp_rx_begin(); owned by the adapter, opaque
 * fields are the core's. */
typedef struct ddp_rx {
	enum ddp_rx_verdict verdict;
	void *dst;          /* with DDP_RX_PLACE: where the payload goes */
	size_t payload_len; /* payload octets announced by the adapter */
	/* private to the core */
	uint32_t stream_, seq_, stag_, gen_;
	uint8_t hdr_[DDP_MAX_HDR_LEN];
	uint8_t hdr_len_, tagged_, last_, active_, etype_, ecode_;
	void *slot_;
} ddp_rx;

/* Length of the DDP header whose first (control) octet is ctrl: 14 when the
 * T bit is set, else 18 (RFC 5041 §4.1). */
DDP_API size_t ddp_hdr_len(uint8_t ctrl);

/* Header-first placement, step 1 (the receive contract): hdr holds the
 * whole DDP header (hdr_len = ddp_hdr_len(hdr[0])), payload_len the payload
 * octets that follow it. The core runs every RFC 5041 §7.1 check and fills
 * rx. With DDP_RX_PLACE the adapter reads payload_len octets into rx->dst
 * (straight from the socket), then calls ddp_llp_rx_end(). With DROP/ERROR
 * it discards the payload and still calls ddp_llp_rx_end(). An ERROR is
 * reported to the ULP only at ddp_llp_rx_end(ok != 0): a header that an
 * integrity check (the MPA CRC, RFC 5044 §8) later condemns never turns
 * into a DDP error; the LLP reports its own error instead.
 * seq is DDP_LLP_INORDER or the LLP's 16-bit ordering number.
 * Returns 0, or DDP_ERR_INVAL (misuse: NULL, bad stream, hdr_len wrong,
 * a ticket still open on this session). */
DDP_API int ddp_llp_rx_begin(ddp_session *s, uint32_t stream, uint32_t seq, const uint8_t *hdr,
                             size_t hdr_len, size_t payload_len, ddp_rx *rx);

/* Before each partial read into rx->dst (a payload read that spans several
 * socket reads), ask again where the bytes may go: returns rx->dst + off, or
 * NULL when the destination was revoked meanwhile (ddp_stag_invalidate):
 * then discard the rest. off is the number of payload octets already read. */
DDP_API void *ddp_llp_rx_dst(ddp_session *s, ddp_rx *rx, size_t off);

/* Header-first placement, step 2: the payload was read (ok != 0 when the
 * LLP's integrity check, e.g. the MPA CRC, passed). With ok == 0 nothing of
 * the segment counts as placed and nothing is delivered; the adapter then
 * reports the LLP error with ddp_llp_error(). May deliver messages.
 * Returns 0 or DDP_ERR_INVAL. */
DDP_API int ddp_llp_rx_end(ddp_session *s, ddp_rx *rx, int ok);

/* Whole-segment entry: seg/len is a complete DDP segment. Equivalent to
 * begin + memcpy + end (the copy is counted in ddp_session_copied_bytes).
 * Returns 0 or DDP_ERR_INVAL. A malformed segment is reported through the
 * error callback, not as a return value. */
DDP_API int ddp_llp_rx_segment(ddp_session *s, uint32_t stream, uint32_t seq, const uint8_t *seg,
                               size_t len);

/* An out-of-order LLP consumed ordering number seq for something that is not
 * a DDP segment (an SCTP session-control chunk): the core's in-order window
 * advances past it. Returns 0, DDP_ERR_INVAL, or DDP_ERR_LIMIT /
 * DDP_ERR_NOMEM when seq is ahead of a hole and the context has no memory
 * to hold it (max_reorder_bytes): the stream is then stopped with a local
 * catastrophic error (RFC 5041 §7.2) reported through the error callback. */
DDP_API int ddp_llp_rx_skip(ddp_session *s, uint32_t stream, uint32_t seq);

/* Reset a stream for a new DDP stream session (SCTP re-initiate): MSNs back
 * to 1, ordering back to seq 0, error state cleared. Outstanding sends and
 * posted buffers complete with DDP_ERR_ABORTED. Returns 0 or DDP_ERR_INVAL. */
DDP_API int ddp_llp_stream_reset(ddp_session *s, uint32_t stream);

/* The object that owns the session was freed inside a callback (the
 * lifetime rule of ddp.h): from now on the session calls nothing back,
 * places nothing into the ULP's buffers and sends nothing; the adapter
 * frees it with ddp_session_free() once its frames unwound. Idempotent;
 * NULL is a no-op. */
DDP_API void ddp_llp_session_silence(ddp_session *s);

/* ---------------------------------------------------------- events from LLP */

/* MULPDU changed (DDP-LLP-1); applies to segments not yet handed over. */
DDP_API void ddp_llp_mulpdu_changed(ddp_session *s, uint32_t mulpdu);
/* The LLP can take more segments again (after DDP_ERR_AGAIN). */
DDP_API void ddp_llp_writable(ddp_session *s);
/* One DDP_LLP_PENDING segment of the stream is fully handed to the transport. */
DDP_API void ddp_llp_tx_done(ddp_session *s, uint32_t stream);
/* Count payload octets the adapter copied itself (staging). */
DDP_API void ddp_llp_count_copy(ddp_session *s, uint64_t n);
/* LLP error on a stream (e.g. MPA CRC: layer 2, etype 0, code 2): stops the
 * stream like a DDP error (first error wins, reported once). */
DDP_API void ddp_llp_error(ddp_session *s, uint32_t stream, uint8_t layer, uint8_t etype,
                           uint8_t code);
/* The same about one received segment whose header the LLP has: the error
 * report carries it (RFC 5041 §7.2 DDP-ERR-2; RFC 5040 §4.8: an RDMAP
 * Terminate carries the offending segment's DDP header) and seg_len, the
 * segment's length. hdr holds hdr_len octets (at most DDP_MAX_HDR_LEN are
 * kept); a header cut short by the end of the segment is reported at its
 * full length (ddp_hdr_len(hdr[0])) with the missing octets zero. */
DDP_API void ddp_llp_error_seg(ddp_session *s, uint32_t stream, uint8_t layer, uint8_t etype,
                               uint8_t code, const uint8_t *hdr, size_t hdr_len, uint64_t seg_len);
/* The peer closed its sending half of the stream gracefully (FIN, SCTP
 * session Terminate): RFC 5041 §6 half-close; later data on it is an error. */
DDP_API void ddp_llp_peer_closed(ddp_session *s, uint32_t stream);
/* The stream (UINT32_MAX: every stream) is gone (connection lost, reset,
 * peer died). Outstanding requests complete with err (DDP_ERR_LLP when err
 * is not negative), DDP-TRD-7. */
DDP_API void ddp_llp_failed(ddp_session *s, uint32_t stream, int err);
/* The LLP finished a graceful close of the stream (both halves). */
DDP_API void ddp_llp_closed(ddp_session *s, uint32_t stream);

/* An adapter object freed inside a callback whose memory the event loop
 * releases later (its last frame unwound inside an application's call,
 * with frames of the core still below: src/life.h). The adapter registers
 * it here when it schedules that release, and ddp_ctx_free() runs
 * release() itself for every one still registered, so that the context
 * can be freed without another pass of the loop. release must free the
 * object and cancel its scheduled release (the deferred event);
 * ddp_llp_release_done() was called before it. */
typedef struct ddp_llp_release {
	void (*release)(struct ddp_llp_release *r);
	/* private to the core */
	struct ddp_llp_release *next_, *prev_;
	ddp_ctx *ctx_;
} ddp_llp_release;
/* Register r with ctx (no-op when NULL or already registered). */
DDP_API void ddp_llp_release_defer(ddp_ctx *ctx, ddp_llp_release *r);
/* Unregister r: the release ran from the loop, or ran now. Idempotent;
 * NULL is a no-op. */
DDP_API void ddp_llp_release_done(ddp_llp_release *r);

/* Adapters: report through ctx's log hook (ddp_ctx_config.log), printf
 * style, cut at 255 octets. Nothing is formatted without a hook. ctx may
 * be NULL (no-op). */
DDP_API void ddp_llp_log(ddp_ctx *ctx, enum ddp_log_level level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#ifdef __cplusplus
}
#endif
#endif
