/*
 * libddp public API: Direct Data Placement (RFC 5041), transport independent.
 *
 * Conventions
 *  - Opaque handles, every public symbol prefixed ddp_/DDP_.
 *  - Functions return 0 on success or a negative DDP_ERR_* code.
 *  - Callbacks take the user data pointer last.
 *  - A call that takes or fills a public struct (ddp_ctx_new,
 *    ddp_session_new, ddp_stag_register, the statistics, the adapters'
 *    setup calls, ...) is a macro that adds one hidden last argument,
 *    the sizes of those structs as your program was compiled:
 *    ddp_ctx_new(&cfg, &ctx) is ddp_ctx_new_sized(&cfg, &ctx,
 *    DDP_SIZES1(ddp_ctx_config)). With it a library built with more
 *    fields still reads and fills your structs right. The function the
 *    library exports is the _sized one: through a function pointer, call
 *    it with DDP_SIZES1/2() yourself. ddp/export.h has the rules.
 *  - Threads: one thread owns a ddp_ctx and everything created from it
 *    (sessions, PDs, STags); the adapters' objects (MPA listeners and
 *    connections, SCTP endpoints and associations) belong to the thread
 *    that runs their event_base, and their callbacks run there. No locks
 *    on any of these: use each only from its thread. Any number of
 *    threads may each run their own context and event_base at once. The
 *    one process-wide part is usrsctp under the SCTP adapter: the library
 *    holds one internal lock around every call into it and hands work for
 *    another thread's association over to that thread (ddp/sctp.h,
 *    "Threading", has what this costs); a thread with SCTP endpoints
 *    keeps running its event_base, else the peers of its associations
 *    stall. The core and MPA share nothing between threads.
 *  - Callbacks, one rule for both LLPs: a call of this library runs none
 *    of the application's callbacks before it returns, except the calls
 *    of the table below, which hand work back to the caller at once.
 *    Everything else comes from the event loop (event_base_loop): every
 *    end of a connection (down(), the MPA events, the SCTP assoc
 *    callback), send_done (over SCTP too), writable, a stream's graceful
 *    end (also when the peer had closed first), up / stream_open / the
 *    MPA CONNECTED event (also after ddp_mpa_accept()), deliveries.
 *
 *      call (any LLP)              may run inside, before it returns
 *      ddp_session_close(s, 1),    deliver and send_done with status
 *      ddp_stream_abort()          DDP_ERR_ABORTED (the stream's posted
 *                                  buffers and queued sends), then
 *                                  stream_event DDP_EV_ABORTED (through
 *                                  an RDMAP queue pair on the stream:
 *                                  its terminate and complete); never
 *                                  down(), which follows from the loop
 *      ddp_session_free(),         deliver and send_done with
 *      ddp_mpa_conn_free(),        DDP_ERR_ABORTED, released of the
 *      ddp_sctp_ep_free()          STags bound to its streams (outside
 *                                  the object's own callbacks; inside
 *                                  them: nothing, see Lifetime)
 *      ddp_stag_invalidate(),      released of that region (when the
 *      _invalidate_remote(),       call returns 0, resp. drops the last
 *      ddp_stag_unhold()           hold)
 *      ddp_rdmap_qp_free()         complete (DDP_ERR_ABORTED),
 *                                  terminate, released (ddp/rdmap.h)
 *      ddp_send_*(), ddp_rdmap_    only when the LLP refuses a segment
 *      post_*(), ddp_stream_       for good inside the call (no memory,
 *      close(), ddp_session_       a local LLP error): the stream fails
 *      close(s, 0), ddp_session_   as by ddp_stream_abort() with that
 *      close_deadline()            error (never for a connection that
 *                                  is merely ending: that is reported
 *                                  from the loop); MPA without memory
 *                                  for the deadline's timer aborts at
 *                                  once, as ddp_session_close(s, 1)
 *      ddp_ctx_free()              released of the STags bound to the
 *                                  sessions of adapter objects freed in
 *                                  a callback whose release it completes
 *                                  (the loop had not run since)
 *
 *    What the caller may touch after such a call: everything it could
 *    before. A session, stream or connection stays valid until its
 *    down() (or the adapter object's free), and down() never runs inside
 *    a call, so a loop that closes every session of a list may read the
 *    list's `next` after ddp_session_close(). The same holds inside
 *    callbacks: a call made in a callback runs only what the table lists.
 *    tests/integration/test_callback_rule.c and _llp.c check this table
 *    call by call on both LLPs.
 *  - Lifetime, one rule for every object that calls back (MPA connection,
 *    SCTP endpoint and association, listener, RDMAP queue pair): freeing
 *    it inside any of its callbacks is safe and silences it at once: no
 *    callback of any kind follows, nothing more is placed into the
 *    application's buffers, nothing more is read from or written to the
 *    wire; its memory goes when the library's frames that use it have
 *    unwound (at once, or on the next pass of the event loop where the
 *    free was made inside a callback that ran inside one of the
 *    application's calls; ddp_ctx_free() completes such a release itself
 *    if the loop has not run yet). The buffers it still held
 *    are the application's again when the free returns. Freed outside its
 *    callbacks, work still queued completes with DDP_ERR_ABORTED through
 *    the callbacks during the free. A session the application made itself
 *    (ddp_session_new) is the exception: ddp_session_free() inside its own
 *    callbacks answers DDP_ERR_BUSY.
 *  - Structs grow only at their end: every call that takes or fills one
 *    is a macro that passes the struct sizes the program was compiled
 *    with (ddp/export.h, "Struct sizes"), so a program built against an
 *    older header keeps working with a newer library.
 *  - Memory handed to the library stays owned by the caller but MUST stay
 *    valid, unchanged where the library reads it, until the library gives
 *    it back. The application may reuse or free:
 *      - a send payload (ddp_send_untagged/_tagged, and the RDMAP Sends
 *        and Writes built on them): after its send_done (any status);
 *        the iovec array itself as soon as the call returns;
 *      - a posted receive buffer: when it is delivered or comes back with
 *        a status < 0 (deliver callback), or after the session's down();
 *      - a registered buffer (ddp_stag_register): when its region is
 *        released: the released callback of its ddp_mr_attr runs, which
 *        is inside ddp_stag_invalidate() when that returns 0, and later
 *        when it returns DDP_STAG_IN_USE (RDMA Read Responses still being
 *        sent from it; the last one leaving or being flushed, e.g. by
 *        ddp_rdmap_qp_free(), releases it). The same holds for a region
 *        invalidated by the peer (RDMAP Send with Invalidate) or by
 *        ddp_session_free(). Without a released callback: after
 *        ddp_stag_invalidate() returned 0, or once every queue pair that
 *        could read it was freed.
 */
#ifndef DDP_DDP_H
#define DDP_DDP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include <ddp/export.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- errors */

enum ddp_err {
	DDP_OK = 0,
	DDP_ERR_INVAL = -1,        /* invalid argument (NULL, out of range) */
	DDP_ERR_NOMEM = -2,        /* allocation failed */
	DDP_ERR_TOOBIG = -3,       /* message >= 2^32 octets, or over an LLP limit */
	DDP_ERR_CLOSED = -4,       /* stream or session closed / closing */
	DDP_ERR_STATE = -5,        /* not allowed in the current state */
	DDP_ERR_NOENT = -6,        /* no such STag, stream or object */
	DDP_ERR_LIMIT = -7,        /* a configured cap was reached */
	DDP_ERR_AGAIN = -8,        /* LLP ops only: cannot take more now (the
	                            * ULP sees DDP_ERR_LIMIT instead) */
	DDP_ERR_STREAM = -9,       /* stream stopped after a DDP/LLP error */
	DDP_ERR_LLP = -10,         /* lower layer failed (connection lost, ...) */
	DDP_ERR_PROTO = -11,       /* peer violated the protocol */
	DDP_ERR_NEED_MORE = -12,   /* parser needs more input (not an error) */
	DDP_ERR_BUSY = -13,        /* object still in use */
	DDP_ERR_TIMEOUT = -14,     /* a timer expired */
	DDP_ERR_REJECTED = -15,    /* peer rejected the connection / session */
	DDP_ERR_ABORTED = -16,     /* request flushed by teardown */
	DDP_ERR_UNSUPPORTED = -17, /* feature not built or not supported */
	DDP_ERR_SYS = -18,         /* operating-system call failed (see errno) */
	DDP_ERR_ACCESS = -19,      /* access rights or binding do not allow it */
};

/* The library's version at run time ("1.0.0"; DDP_LIB_VERSION_NUM's
 * encoding), to compare with the DDP_LIB_VERSION_* macros of the headers
 * a program was built with. Never fail. */
DDP_API const char *ddp_version(void);
DDP_API uint32_t ddp_version_num(void);

/* Human readable text for a DDP_ERR_* code (never NULL, static storage). */
DDP_API const char *ddp_strerror(int err);

/* Name of an error report's (layer, type, code) triple as RFC 5041 §7.2
 * (layer DDP), RFC 5044 §8 / RFC 6581 (layer LLP: MPA) and libddp's LLP
 * type 3 codes define it, e.g. (1, 1, 0x00) "invalid STag"; layer 0
 * (RDMAP) names come from ddp_rdmap_term_str() in ddp/rdmap.h.
 * "undefined error" for a triple no RFC defines. Static storage. */
DDP_API const char *ddp_error_str(uint8_t layer, uint8_t etype, uint8_t code);

/* RFC 5040 §4.8 / RFC 5041 §7.2 error numbers carried in error reports. */
enum ddp_layer { DDP_LAYER_RDMAP = 0, DDP_LAYER_DDP = 1, DDP_LAYER_LLP = 2 };

/* RFC 5041 §7.2: DDP layer error types and codes. */
enum {
	DDP_ETYPE_CATASTROPHIC = 0x0,
	DDP_ETYPE_TAGGED = 0x1,
	DDP_ETYPE_UNTAGGED = 0x2,
	DDP_ETYPE_LLP = 0x3, /* reserved for the LLP (RFC 5041 §7.2) */
};
enum {
	DDP_ECODE_T_INVALID_STAG = 0x00,
	DDP_ECODE_T_BOUNDS = 0x01,
	DDP_ECODE_T_NOT_ASSOCIATED = 0x02,
	DDP_ECODE_T_TO_WRAP = 0x03,
	DDP_ECODE_T_BAD_VERSION = 0x04,
	DDP_ECODE_U_INVALID_QN = 0x01,
	DDP_ECODE_U_MSN_NOBUF = 0x02,
	DDP_ECODE_U_MSN_RANGE = 0x03,
	DDP_ECODE_U_INVALID_MO = 0x04,
	DDP_ECODE_U_TOO_LONG = 0x05,
	DDP_ECODE_U_BAD_VERSION = 0x06,
	/* EType 0x3 (LLP) codes used by libddp's adapters (INFERRED, RFC 5041
	 * reserves the type for the LLP and defines no codes): */
	DDP_ECODE_LLP_BAD_SSN = 0x01,     /* DDP-SSN outside the window */
	DDP_ECODE_LLP_OVERSIZE = 0x02,    /* segment larger than MULPDU */
	DDP_ECODE_LLP_SHORT = 0x03,       /* segment shorter than a header */
	DDP_ECODE_LLP_AFTER_CLOSE = 0x04, /* data after graceful teardown */
	DDP_ECODE_LLP_BAD_CTL = 0x05,     /* undecodable SCTP session control */
};
/* RFC 5044 §8 / RFC 6581: MPA error codes (layer 2, type 0). */
enum {
	DDP_MPA_ECODE_CLOSED = 0x01,
	DDP_MPA_ECODE_CRC = 0x02,
	DDP_MPA_ECODE_MARKER = 0x03,
	DDP_MPA_ECODE_BAD_FRAME = 0x04,
	DDP_MPA_ECODE_LOCAL_CATASTROPHIC = 0x05,
	DDP_MPA_ECODE_IRD = 0x06,
	DDP_MPA_ECODE_NO_RTR = 0x07,
};

#define DDP_TAGGED_HDR_LEN   14
#define DDP_UNTAGGED_HDR_LEN 18
#define DDP_MAX_HDR_LEN      18
#define DDP_VERSION          1 /* RFC 5041 §4.1: DV */

/* One error report (RFC 5041 §7.2, DDP-ERR-2). */
typedef struct ddp_error_info {
	uint32_t stream;              /* DDP stream index within the session */
	uint8_t layer;                /* enum ddp_layer */
	uint8_t etype;                /* error type */
	uint8_t code;                 /* error code */
	uint8_t hdr_len;              /* 0, 14 or 18: octets valid in hdr[] */
	uint8_t hdr[DDP_MAX_HDR_LEN]; /* offending DDP header as received */
	uint32_t seg_len;             /* offending DDP segment length (header+payload) */
	int have_segment;             /* hdr/seg_len are meaningful */
} ddp_error_info;

/* --------------------------------------------------------------- objects */

typedef struct ddp_ctx ddp_ctx;         /* STag table + PDs, "the device" */
typedef struct ddp_pd ddp_pd;           /* protection domain */
typedef struct ddp_session ddp_session; /* one LLP connection, N streams */

/* Severity of a log message (ddp_ctx_config.log). */
enum ddp_log_level {
	DDP_LOG_ERROR = 0, /* a connection / association failed */
	DDP_LOG_WARN = 1,  /* a peer was refused, evicted or timed out */
	DDP_LOG_INFO = 2,  /* notable but expected */
	DDP_LOG_DEBUG = 3,
};

/* Limits of a context. Zero fields take the defaults shown. */
typedef struct ddp_ctx_config {
	uint32_t max_stags;         /* default 65536, at most 2^23 */
	uint32_t max_pds;           /* default 1024 */
	uint64_t max_reorder_bytes; /* memory for out-of-order segments held
	                             * by all sessions of the context (each stream
	                             * that holds any takes one ring of about
	                             * 56 octets x reorder_window); default 64 MiB.
	                             * Shared fairly (docs/fairness.md): with n
	                             * sessions holding rings, each one's share
	                             * is (max - max/8) / n; room no share claims
	                             * is lent; max/8 is kept for the first ring
	                             * of sessions that start reordering later.
	                             * A segment that needs a ring the rule
	                             * refuses stops its stream with RFC 5041
	                             * §7.2 (0, 0x00) local catastrophic (logged,
	                             * DDP_LOG_WARN); other sessions go on */
	/* Random source for STag indices and keys; NULL = getrandom(2).
	 * Tests may pass a deterministic generator. */
	uint32_t (*random)(void *user);
	void *random_user;
	/* Diagnostics of the context and of the adapters built on it (MPA
	 * listener and connections, SCTP endpoints): every refusal at a cap,
	 * eviction, time-out and dropped peer message, with the peer's
	 * address where there is one. What a peer can trigger is
	 * rate-limited per kind (at most 10 lines in any second in all);
	 * the lines left out are counted in one line "<kind>: N more like
	 * this suppressed in the last T ms". msg is one line without a newline,
	 * valid during the call only; called on the thread that runs the
	 * event loop / the LLP. NULL (the default): silent. */
	void (*log)(void *user, enum ddp_log_level level, const char *msg);
	void *log_user;
} ddp_ctx_config;

/* Create a context. *out is owned by the caller; free with ddp_ctx_free().
 * Errors: DDP_ERR_INVAL, DDP_ERR_NOMEM. */
DDP_API int ddp_ctx_new_sized(const ddp_ctx_config *cfg, ddp_ctx **out, uint64_t sizes);
#define ddp_ctx_new(...) ddp_ctx_new_sized(__VA_ARGS__, DDP_SIZES1(ddp_ctx_config))

/* Free a context. Fails with DDP_ERR_BUSY while sessions, PDs or STags
 * created from it still exist (nothing is freed then), and says which
 * through the log hook (DDP_LOG_ERROR) and ddp_ctx_live_objects(). An adapter
 * object (MPA connection, SCTP endpoint) freed inside one of its
 * callbacks whose release still waits for the event loop is released
 * here first: no extra pass of the loop is needed (the released callbacks
 * of STags bound to their sessions run then, inside this call). Not from
 * inside a callback. NULL is a no-op. */
DDP_API int ddp_ctx_free(ddp_ctx *ctx);

/* What still holds a context alive (see ddp_ctx_free()). */
typedef struct ddp_ctx_live {
	uint32_t sessions, pds, stags;
} ddp_ctx_live;
/* Errors: DDP_ERR_INVAL (NULL). */
DDP_API int ddp_ctx_live_objects_sized(const ddp_ctx *ctx, ddp_ctx_live *out, uint64_t sizes);
#define ddp_ctx_live_objects(...) ddp_ctx_live_objects_sized(__VA_ARGS__, DDP_SIZES1(ddp_ctx_live))

/* Protection domains (RFC 5041 §8, DDP-SEC-1).
 * Errors: DDP_ERR_INVAL, DDP_ERR_NOMEM, DDP_ERR_LIMIT. */
DDP_API int ddp_pd_new(ddp_ctx *ctx, ddp_pd **out);
/* Errors: DDP_ERR_BUSY while STags or sessions use the PD. NULL: no-op. */
DDP_API int ddp_pd_free(ddp_pd *pd);

/* ----------------------------------------------------------------- STags */

enum ddp_access {
	DDP_ACCESS_REMOTE_WRITE = 0x1, /* peer may place tagged payload */
	DDP_ACCESS_REMOTE_READ = 0x2,  /* peer may read (RDMAP Read source) */
};

/* The region of stag is released: it was invalidated (by
 * ddp_stag_invalidate(), by the peer through ddp_stag_invalidate_remote(),
 * or when its session was freed) and nothing reads its buffer any more.
 * From this call on, addr (ddp_mr_attr.addr) is the application's: it may
 * free or reuse it here. Runs exactly once per registration, on the
 * context's thread, inside the call that released the region: the
 * invalidation itself, or the RDMAP event that ended the last Read
 * Response (send completion, flush, ddp_rdmap_qp_free()). It may register
 * and invalidate STags; it must not free the queue pair, session or
 * context whose call it runs in. */
typedef void (*ddp_stag_released_cb)(ddp_ctx *ctx, uint32_t stag, void *addr, void *user);

/* A tagged buffer registration (RFC 5041 §8, DDP-SEC-4..7). Exactly one of
 * pd / session must be set: with pd the STag is usable on every stream bound
 * to that PD; with session it is usable on that one stream only. */
typedef struct ddp_mr_attr {
	void *addr;                    /* first octet of the buffer (owned by the caller) */
	size_t len;                    /* octets; addr..addr+len-1 is the only placeable range */
	uint64_t to_base;              /* Tagged Offset that names addr (0 = zero based) */
	unsigned access;               /* DDP_ACCESS_* bits */
	ddp_pd *pd;                    /* PD binding, or NULL */
	ddp_session *session;          /* stream binding, or NULL */
	uint32_t stream;               /* with session: the stream index */
	ddp_stag_released_cb released; /* optional: told when the buffer is
	                                * the application's again */
	void *released_user;           /* its user argument */
} ddp_mr_attr;

/* Register a buffer and return its STag (24-bit random index | 8-bit random
 * key). The buffer must stay valid until the region is released (see
 * ddp_stag_released_cb and the memory rules at the top of this file).
 * Errors: DDP_ERR_INVAL (NULL, len 0, both/neither binding, bad stream,
 * addr+len wraps), DDP_ERR_LIMIT (max_stags; invalidated regions not yet
 * released count), DDP_ERR_NOMEM. */
DDP_API int ddp_stag_register_sized(ddp_ctx *ctx, const ddp_mr_attr *attr, uint32_t *stag,
                                    uint64_t sizes);
#define ddp_stag_register(...) ddp_stag_register_sized(__VA_ARGS__, DDP_SIZES1(ddp_mr_attr))

/* Returned (a success) by the invalidate calls when the STag is invalid but
 * outgoing RDMA Read Responses still read its buffer: the buffer is the
 * application's only when the released callback runs. */
#define DDP_STAG_IN_USE 1

/* Revoke an STag at once (DDP-SEC-5): when this returns, no segment, not even
 * one whose payload is being read right now, can write the buffer again; a
 * segment that tries gets (1, 0x00) Invalid STag; no new Read Request can
 * name it. The STag value is not handed out again until its 8-bit key has
 * cycled. Read Responses resolved before (queued behind a peer that does
 * not take them) still send from the buffer, so the invalidation completes
 * in two steps: returns 0 when the region is released (the released
 * callback has run inside this call: the buffer is the caller's), or
 * DDP_STAG_IN_USE when Read Responses still hold it (the released callback
 * runs when the last of them was sent or flushed; until then the buffer
 * must stay valid and unchanged).
 * Errors: DDP_ERR_NOENT (unknown or already invalid), DDP_ERR_INVAL. */
DDP_API int ddp_stag_invalidate(ddp_ctx *ctx, uint32_t stag);

/* Invalidate an STag on behalf of the peer of (s, stream) (an RDMAP Send
 * with Invalidate, RFC 5040 §5.3): as ddp_stag_invalidate() (returns 0 or
 * DDP_STAG_IN_USE), but only an STag bound to that stream or to its
 * stream's PD.
 * Errors: DDP_ERR_INVAL (NULL, bad stream), DDP_ERR_NOENT (unknown or
 * already invalid), DDP_ERR_ACCESS (bound elsewhere: nothing changes). */
DDP_API int ddp_stag_invalidate_remote(ddp_ctx *ctx, ddp_session *s, uint32_t stream,
                                       uint32_t stag);

/* Change the access rights of a registered STag (DDP-SEC-6).
 * Errors: DDP_ERR_NOENT, DDP_ERR_INVAL. */
DDP_API int ddp_stag_set_access(ddp_ctx *ctx, uint32_t stag, unsigned access);

/* Look up the local buffer behind an STag for a remote-read style access:
 * checks validity, the PD/stream binding of (session, stream),
 * DDP_ACCESS_REMOTE_READ and the bounds of [to, to+len). On success *ptr
 * points inside the registered buffer. Takes no hold: *ptr may be used
 * only until the STag is invalidated; anything that reads the buffer later
 * (a queued send) uses ddp_stag_hold_read().
 * Errors: DDP_ERR_NOENT (invalid STag), DDP_ERR_ACCESS (binding or rights),
 * DDP_ERR_INVAL (NULL ptr, bounds or TO wrap). */
DDP_API int ddp_stag_resolve_read(ddp_ctx *ctx, ddp_session *s, uint32_t stream, uint32_t stag,
                                  uint64_t to, uint64_t len, void **ptr);

/* A hold on a region's buffer (an RDMAP Read Response being sent). */
typedef struct ddp_stag_hold ddp_stag_hold;

/* As ddp_stag_resolve_read(), and hold the region: *ptr stays valid until
 * ddp_stag_unhold(*hold), even when the STag is invalidated meanwhile (the
 * STag is invalid at once; the region is released, and its buffer given
 * back to the application, when the last hold is dropped). Every hold
 * taken must be dropped exactly once; the holder (libddp-rdmap: the queue
 * pair) drops it when its send completed or was flushed.
 * Errors: those of ddp_stag_resolve_read(), DDP_ERR_INVAL (NULL hold),
 * DDP_ERR_LIMIT (2^32 - 1 holds on one region). */
DDP_API int ddp_stag_hold_read(ddp_ctx *ctx, ddp_session *s, uint32_t stream, uint32_t stag,
                               uint64_t to, uint64_t len, void **ptr, ddp_stag_hold **hold);

/* Drop a hold of ddp_stag_hold_read(). The last one on an invalidated
 * region releases it (its released callback runs inside this call).
 * NULL ctx or hold: no-op. */
DDP_API void ddp_stag_unhold(ddp_ctx *ctx, ddp_stag_hold *hold);

/* -------------------------------------------------------------- sessions */

/* What the ULP receives when a message is delivered (RFC 5041 §5.4/§7). */
typedef struct ddp_delivery {
	uint32_t stream;
	int status;       /* 0: a message. < 0: a posted buffer comes back
	                   * with no message in it: DDP_ERR_ABORTED (abort,
	                   * reset, ddp_session_free), DDP_ERR_CLOSED (graceful
	                   * end), DDP_ERR_LLP or the LLP's error (connection
	                   * lost) */
	int tagged;       /* 1: tagged message, 0: untagged */
	uint32_t len;     /* message length: untagged = MO+len of the L=1
	                   * segment (DDP-SEG-10); tagged = sum of payloads */
	uint64_t rsvdulp; /* untagged: 40 bits; tagged: 8 bits */
	/* untagged */
	uint32_t qn, msn;
	void *buf; /* the posted buffer, given back to the ULP */
	size_t buf_len;
	void *buf_ctx; /* the ctx passed to ddp_post_recv() */
	/* tagged */
	uint32_t stag;
	uint64_t to;       /* TO of the L=1 (last) segment's first octet,
	                    * not of the message's start */
	uint64_t to_first; /* TO of the message's first octet: the message
	                    * placed [to_first, to_first + len) of the STag's
	                    * buffer (tagged segments of one message are
	                    * contiguous, RFC 5041 §4.2 / DDP-SEG-5) */
} ddp_delivery;

enum ddp_stream_event {
	DDP_EV_HALF_CLOSED = 1, /* peer closed its sending half (RFC 5041 §6) */
	DDP_EV_CLOSED = 2,      /* stream closed gracefully, both halves */
	DDP_EV_ABORTED = 3,     /* stream or connection torn down abortively */
};

typedef struct ddp_callbacks {
	/* A message was delivered in order (DDP-DLV-1), or a posted buffer is
	 * returned with a status < 0 (see ddp_delivery.status). Required. */
	void (*deliver)(ddp_session *s, const ddp_delivery *d, void *user);
	/* Source completion: the LLP accepted every segment of the message
	 * (DDP-DLV-4), or status < 0 when it was flushed/failed. Completions come
	 * in submission order per stream, from the event loop on both LLPs
	 * (never inside ddp_send_*(); flushes: see "Callbacks" at the top);
	 * a send from inside send_done completes after the running send_done
	 * returns, never nested in it. Optional. */
	void (*send_done)(ddp_session *s, uint32_t stream, void *msg_ctx, int status, void *user);
	/* First error on a stream (DDP-ERR-1, first error wins). After it the
	 * stream places nothing more; the ULP may send one more message (e.g. an
	 * RDMAP Terminate, DDP-ERR-4) and then should close it. Optional. */
	void (*error)(ddp_session *s, const ddp_error_info *e, void *user);
	/* Stream lifecycle (half-closed, closed, aborted). Optional. */
	void (*stream_event)(ddp_session *s, uint32_t stream, enum ddp_stream_event ev, int status,
	                     void *user);
	/* Backpressure: the stream can take more again. Called once per
	 * arming, outside any ddp_send_*() call: armed by a send refused
	 * with DDP_ERR_LIMIT (the stream's queue held max_tx_queued messages
	 * or max_tx_octets octets behind its oldest message; called when a
	 * message can be queued again and the queued octets are at most half
	 * of max_tx_octets) and by ddp_stream_notify_writable(). What a
	 * sender can pin per stream is bounded in ddp_session_config.
	 * Optional. */
	void (*writable)(ddp_session *s, uint32_t stream, void *user);
} ddp_callbacks;

typedef struct ddp_session_config {
	uint32_t nstreams;       /* DDP streams, default 1, max 65535 */
	uint32_t nqueues;        /* untagged queues per stream, default 3 */
	uint32_t max_posted;     /* posted buffers per (stream, QN), def. 1024 */
	uint32_t max_tx_queued;  /* queued send messages per stream, def 4096 */
	uint64_t max_tx_octets;  /* queued send octets per stream, default
	                          * 4 MiB. Counted: the payload octets of the
	                          * messages queued behind the oldest one not
	                          * yet completed (the one the LLP is working
	                          * on). A send is refused (DDP_ERR_LIMIT)
	                          * once they reach the limit; below it a
	                          * message of any size is taken, so an empty
	                          * queue takes any one message and the one
	                          * behind it (a small notification after a
	                          * large write) is never refused for its
	                          * size. Worst case per stream: the oldest
	                          * message, max_tx_octets - 1 octets and the
	                          * message that crossed the limit, i.e.
	                          * max_tx_octets - 1 + 2 * (2^32 - 1) octets
	                          * of the caller's memory (and max_tx_queued
	                          * messages). writable fires once the queue
	                          * holds at most half of it */
	uint32_t reorder_window; /* segments held for out-of-order LLPs,
	                          * default 1024, max 32768 */
	ddp_pd *pd;              /* PD of every stream, or NULL */
} ddp_session_config;

/* Forward declared in llp.h. */
struct ddp_llp_ops;

/* Create a session over an LLP connection described by ops/llp (see
 * ddp/llp.h; applications normally get sessions from an adapter).
 * cb is copied; user is passed to every callback.
 * Errors: DDP_ERR_INVAL, DDP_ERR_NOMEM. */
DDP_API int ddp_session_new_sized(ddp_ctx *ctx, const ddp_session_config *cfg,
                                  const struct ddp_llp_ops *ops, void *llp, const ddp_callbacks *cb,
                                  void *user, ddp_session **out, uint64_t sizes);
#define ddp_session_new(...)                                                                       \
	ddp_session_new_sized(__VA_ARGS__, DDP_SIZES2(ddp_session_config, ddp_callbacks))

/* Free a session. Outstanding sends complete with DDP_ERR_ABORTED and posted
 * buffers are returned with DDP_ERR_ABORTED (callbacks run inside this call,
 * the "Callbacks" table at the top, and may not post or send again);
 * STags bound to its streams are invalidated. Does not call the LLP; use
 * ddp_session_close() first for an orderly end. NULL is a no-op (0).
 * Errors: DDP_ERR_STATE for a session an adapter made (MPA connection,
 * SCTP association, the one adapter model): the adapter frees it, after
 * down() or with its connection; nothing is freed (end it with
 * ddp_session_close()). DDP_ERR_BUSY when called inside one of this
 * session's callbacks (nothing is freed; free it after the callback has
 * returned; ddp_stream_abort() and ddp_session_close() work inside them). */
DDP_API int ddp_session_free(ddp_session *s);

/* The session's DDP streams, its MULPDU now (the largest DDP segment the
 * LLP takes, header included; it may shrink with the path, DDP-LLP-1) and
 * its context. 0 / NULL for a NULL session. */
DDP_API uint32_t ddp_session_nstreams(const ddp_session *s);
DDP_API uint32_t ddp_session_mulpdu(const ddp_session *s);
DDP_API ddp_ctx *ddp_session_ctx(const ddp_session *s);
/* Payload octets the library itself copied (staging, whole-segment entry,
 * contiguous tx build). The header-first receive path leaves it at 0. */
DDP_API uint64_t ddp_session_copied_bytes(const ddp_session *s);
/* Application data of a session and of each of its streams: slots the
 * library never reads (unlike the callbacks' user pointer, which an
 * adapter may own). NULL until set. Setting on a bad stream: DDP_ERR_INVAL;
 * getting from a NULL session or a bad stream: NULL. */
DDP_API void ddp_session_set_user_data(ddp_session *s, void *data);
DDP_API void *ddp_session_user_data(const ddp_session *s);
DDP_API int ddp_stream_set_user_data(ddp_session *s, uint32_t stream, void *data);
DDP_API void *ddp_stream_user_data(const ddp_session *s, uint32_t stream);

/* Counters of one stream, or of a whole session (the sum over its
 * streams). Octets are ULP payload octets, headers not included. */
typedef struct ddp_stats {
	uint64_t msgs_tx, octets_tx;         /* messages the LLP took completely
	                                      * (send_done with status 0) */
	uint64_t msgs_rx, octets_rx;         /* messages delivered (status 0) */
	uint64_t errors;                     /* DDP/LLP errors detected on the stream(s);
	                                      * only the first per stream is reported
	                                      * (DDP-ERR-1), later ones are counted */
	uint64_t copied;                     /* session only (0 per stream): payload
	                                      * octets the library copied, as
	                                      * ddp_session_copied_bytes() */
	uint64_t queued_msgs, queued_octets; /* submitted and not yet completed:
	                                      * what ddp_stream_queued() reports */
} ddp_stats;
/* Errors: DDP_ERR_INVAL (NULL, bad stream). */
DDP_API int ddp_stream_get_stats_sized(const ddp_session *s, uint32_t stream, ddp_stats *out,
                                       uint64_t sizes);
#define ddp_stream_get_stats(...) ddp_stream_get_stats_sized(__VA_ARGS__, DDP_SIZES1(ddp_stats))
DDP_API int ddp_session_get_stats_sized(const ddp_session *s, ddp_stats *out, uint64_t sizes);
#define ddp_session_get_stats(...) ddp_session_get_stats_sized(__VA_ARGS__, DDP_SIZES1(ddp_stats))

/* Octets submitted on a stream with ddp_send_*() and not yet completed
 * (send_done not yet called); *msgs (may be NULL) gets the message count.
 * Both are bounded by ddp_session_config (max_tx_octets plus two
 * messages, max_tx_queued). 0 for a NULL session or a bad stream. */
DDP_API uint64_t ddp_stream_queued(const ddp_session *s, uint32_t stream, uint32_t *msgs);

/* Ask for the writable callback once the stream's queued octets are at
 * most lowat and a message can be queued (below both limits of
 * ddp_session_config). Returns 1 when that already
 * holds (nothing is armed, the ULP may send now), 0 when armed (the
 * callback runs later, never inside this call).
 * Errors: DDP_ERR_INVAL (NULL, bad stream, no writable callback),
 * DDP_ERR_CLOSED (the stream can send nothing more). */
DDP_API int ddp_stream_notify_writable(ddp_session *s, uint32_t stream, uint64_t lowat);

/* Bind a stream to a PD (NULL: none) before its traffic: once a message
 * was queued on it or a segment arrived, the binding is fixed.
 * Errors: DDP_ERR_INVAL (NULL session, bad stream, PD of another
 * context), DDP_ERR_STATE (the stream has had traffic). */
DDP_API int ddp_stream_set_pd(ddp_session *s, uint32_t stream, ddp_pd *pd);

/* Post an untagged receive buffer on (stream, qn). Buffers of one queue are
 * consumed in MSN order (the first posted takes the next MSN). A message is
 * shorter than 2^32 octets (RFC 5041 §5.3), so of a longer buffer only the
 * first UINT32_MAX octets receive; the delivery reports buf_len as
 * posted. Flow control: posting a buffer again inside each deliver
 * callback keeps a receiver supplied on both LLPs, however far ahead the
 * peer sends: MPA hands messages up in order, and over SCTP a message that
 * overtakes earlier ones before its buffer is posted waits for its turn
 * (within the stream's reorder window and the context's reorder budget;
 * docs/design.md, "Ordering").
 * Errors: DDP_ERR_INVAL (NULL session/buf with len>0, bad stream/qn),
 * DDP_ERR_LIMIT (max_posted), DDP_ERR_CLOSED, DDP_ERR_NOMEM. */
DDP_API int ddp_post_recv(ddp_session *s, uint32_t stream, uint32_t qn, void *buf, size_t len,
                          void *buf_ctx);

/* Send an untagged message (RFC 5041 §4.3). rsvdulp: low 40 bits used.
 * The payload (iov[].iov_base) is owned by the caller until send_done; the
 * iov array itself may be reused when this returns.
 * Errors: DDP_ERR_INVAL (NULL, bad stream/qn, rsvdulp > 40 bits, iovcnt<0),
 * DDP_ERR_TOOBIG (total >= 2^32, DDP-SEG-2), DDP_ERR_CLOSED (after close,
 * DDP-TRD-2), DDP_ERR_STREAM (stream stopped and its one extra message was
 * already sent), DDP_ERR_LIMIT (the stream's queue is at max_tx_queued
 * messages or holds max_tx_octets octets behind its oldest message: wait
 * for writable), DDP_ERR_NOMEM.
 * Never DDP_ERR_AGAIN (an LLP-level code the core handles itself). */
DDP_API int ddp_send_untagged(ddp_session *s, uint32_t stream, uint32_t qn, uint64_t rsvdulp,
                              const struct iovec *iov, int iovcnt, void *msg_ctx);

/* Send a tagged message (RFC 5041 §4.2) to the peer's STag at TO.
 * Same ownership and errors as ddp_send_untagged(), plus DDP_ERR_INVAL when
 * to + length wraps 2^64. */
DDP_API int ddp_send_tagged(ddp_session *s, uint32_t stream, uint32_t stag, uint64_t to,
                            uint8_t rsvdulp, const struct iovec *iov, int iovcnt, void *msg_ctx);

/* Graceful close of one stream (RFC 5041 §6, DDP-TRD-2): messages already
 * submitted are sent first, later sends fail with DDP_ERR_CLOSED; reception
 * continues until the peer closes too. The stream's end (stream_event
 * DDP_EV_CLOSED, buffers back with DDP_ERR_CLOSED) comes from the loop,
 * also when the peer had closed first. Errors: DDP_ERR_INVAL. */
DDP_API int ddp_stream_close(ddp_session *s, uint32_t stream);

/* Abortive teardown of one stream: flushes sends and posted buffers with
 * DDP_ERR_ABORTED (deliver / send_done, then stream_event DDP_EV_ABORTED,
 * inside this call) and asks the LLP to stop the stream; what follows
 * (down() when it was the last stream) comes from the loop.
 * Errors: INVAL. */
DDP_API int ddp_stream_abort(ddp_session *s, uint32_t stream);

/* Close every stream gracefully (abortive != 0: abort them) and ask the LLP
 * to end the connection. An abortive close works at any time, also after a
 * graceful one started (a peer that stopped answering cannot hold the
 * close: MPA resets TCP, SCTP sends ABORT). Abortive, the streams' flush
 * runs inside this call as for ddp_stream_abort(); graceful, nothing
 * calls back inside it. down() (the one adapter model) and the LLP's own
 * end events always come later, from the loop: s stays valid until then.
 * Errors: DDP_ERR_INVAL. */
DDP_API int ddp_session_close(ddp_session *s, int abortive);

/* A graceful close with a deadline: as ddp_session_close(s, 0) now, and
 * as ddp_session_close(s, 1) when the connection is not down after ms
 * milliseconds (MPA: exact to the event loop; SCTP: within 100 ms more).
 * Calling it again moves the deadline. Errors: DDP_ERR_INVAL (NULL, ms 0),
 * DDP_ERR_UNSUPPORTED (an LLP of the application's own without the
 * close_deadline operation, see llp.h: call ddp_session_close(s, 1)
 * yourself). */
DDP_API int ddp_session_close_deadline(ddp_session *s, unsigned ms);

/* Our address (peer 0) or the peer's (peer != 0) as text into buf (len
 * octets, NUL terminated): "192.0.2.1:5000", "[2001:db8::1]:5000"; an SCTP
 * session names its UDP encapsulation addresses (RFC 6951).
 * Errors: DDP_ERR_INVAL (NULL, len too small for "?"), DDP_ERR_UNSUPPORTED
 * (the LLP keeps no address), DDP_ERR_NOENT (not known / gone). */
DDP_API int ddp_session_addr(const ddp_session *s, int peer, char *buf, size_t len);

/* ------------------------------------------ one adapter model (any LLP)
 *
 * Both adapters offer the same setup: ddp_mpa_connect_to() /
 * ddp_sctp_connect_to() and ddp_mpa_listen_on() / ddp_sctp_listen_on()
 * take a host string and a port (numeric or a name; IPv4 or IPv6 where the
 * LLP has it), the adapter's own tuning (NULL: defaults), these callbacks
 * and one user pointer. Everything after setup is the same for both: the
 * session (ddp_session) is the connection; per-session and per-stream
 * state hangs off ddp_session_set_user_data() / ddp_stream_set_user_data();
 * ddp_session_close() ends it; the adapter owns and frees the connection
 * (and its session: ddp_session_free() on it is refused) after down()
 * returns. A listener's connections each own a share of the listener's
 * setup: freeing the listener, or the end of one of them, leaves every
 * other one hearing all its events until its own down(). A ULP switches
 * LLP by changing the setup call only (examples/echo_server.c).
 *
 * One behaviour: what the one model does the same on both LLPs
 * (tests/integration/test_one_behaviour.c runs one scenario on both and
 * compares what each end observes):
 *
 *   what                        both LLPs
 *   DDP streams of a            session.nstreams, default 1; stream_open
 *   connection                  on both ends for each. SCTP: one SCTP
 *                               stream each, the smaller of the two
 *                               ends' values (ddp_sctp_config.nstreams
 *                               when session.nstreams is 0); MPA: one
 *                               DDP stream per connection (RFC 5044),
 *                               more is DDP_ERR_INVAL at setup
 *   the peer closes a stream    stream_event DDP_EV_HALF_CLOSED (status
 *   while ours is open          0); we may still send, then close
 *   our close is answered       stream_event DDP_EV_CLOSED only (no
 *   (we closed first)           half-close for the side that closed first)
 *   a graceful end              status 0 in stream_event (DDP_EV_CLOSED)
 *                               and in down(); a posted buffer it returns
 *                               unused: deliver with DDP_ERR_CLOSED (0
 *                               there means a message); a send it refuses:
 *                               DDP_ERR_CLOSED
 *   an abortive end             DDP_ERR_ABORTED here, DDP_ERR_LLP at the
 *                               peer (test_same_behaviour.c)
 *   a silent peer (its host     down(DDP_ERR_TIMEOUT) about
 *   cut off, its path gone)     dead_peer_timeout_ms after it was last
 *                               heard (ddp_mpa_config and ddp_sctp_config
 *                               each have the field, the same meaning and
 *                               default: DDP_DEAD_PEER_TIMEOUT_MS, 8 s, so a
 *                               dead peer is reported within 10 s; with
 *                               data in flight, the time after the first
 *                               transmission it left unanswered;
 *                               test_dead_peer_both.c). A peer process
 *                               that is stopped (SIGSTOP, a debugger) is
 *                               silent over SCTP (usrsctp runs in it) and
 *                               dead after that time; over MPA its kernel
 *                               answers for it and it is kept
 *                               (docs/timeouts.md) */
/* The default dead-peer time of both LLPs, ms (the table above). */
#define DDP_DEAD_PEER_TIMEOUT_MS 8000
typedef struct ddp_listener ddp_listener;
/* A connect in progress (ddp_mpa_connect_async / _addr, ddp_sctp_
 * connect_async / _addr): valid until that connection's up() or down() is
 * called, or until ddp_connect_cancel(). */
typedef struct ddp_connecting ddp_connecting;

typedef struct ddp_conn_callbacks {
	ddp_callbacks ddp; /* data path, as for ddp_session_new() */
	/* The connection is up; no stream is open yet. Optional. */
	void (*up)(ddp_session *s, void *user);
	/* A DDP stream is open for traffic: post its receive buffers here
	 * (the peer's first message cannot arrive before this returns).
	 * MPA: stream 0 once MPA is in full operation; SCTP: each stream
	 * session, initiated by the connecting side for every stream of the
	 * association and accepted by the listening side. Required. */
	void (*stream_open)(ddp_session *s, uint32_t stream, void *user);
	/* The connection ended: status 0 in order (FIN / SHUTDOWN), else
	 * DDP_ERR_*, the same on both LLPs for the same event:
	 * DDP_ERR_ABORTED (our abortive close, also one a close deadline
	 * made), DDP_ERR_LLP (reset or aborted by the peer, or its port
	 * went away), DDP_ERR_REJECTED (a connect refused: nobody listens,
	 * or the peer refused the connection), DDP_ERR_TIMEOUT (the peer
	 * stopped answering; a connect that got no answer), DDP_ERR_PROTO,
	 * DDP_ERR_LIMIT (ended to make room under a listener's cap), ...
	 * Also for a connect that never came up (s may be NULL then: SCTP
	 * without an association). Always from the event loop, never inside
	 * a call of the application ("Callbacks" at the top): after
	 * ddp_session_close(s, 1) the session is still valid until this
	 * runs. When it returns, the adapter frees the
	 * connection and the session; posted buffers and unfinished sends are
	 * not reported any more: their memory is the ULP's again. Required. */
	void (*down)(ddp_session *s, int status, void *user);
} ddp_conn_callbacks;

/* Give up a connect that has not reached up() or down() yet: name
 * resolution stops, a TCP connection or SCTP association already begun is
 * reset, and no callback of any kind comes for it; h is invalid after.
 * Not from inside that connection's own callbacks (it is up or down by
 * then, and h is gone). NULL: no-op. */
DDP_API void ddp_connect_cancel(ddp_connecting *h);

/* The bound port of a listener (host order). */
DDP_API int ddp_listener_port(const ddp_listener *l);
/* Stop listening (allowed inside any callback): no new connection; the
 * connections already up live on, on both LLPs, each until its down()
 * (SCTP: the listener's UDP port stays bound until the last one went).
 * Runs no callback. ddp_ctx_free() may follow at once. One small block
 * of the setup (the callbacks and user pointer the listener shares with
 * its connections, a few hundred octets) goes on the next pass of the
 * event loop, as does each outgoing connection's after its down() (a
 * callback frame that still uses it may be below the call), or in
 * ddp_ctx_free() when that comes first: no shutdown needs another pass
 * of the loop, as long as ddp_ctx_free() comes before event_base_free().
 * NULL: no-op. */
DDP_API void ddp_listener_free(ddp_listener *l);

#ifdef __cplusplus
}
#endif
#endif
