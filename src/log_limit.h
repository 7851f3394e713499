/*
 * Rate-limited log lines: every line a peer can trigger (an eviction, a
 * time-out, a refused resource, an anomaly of the wire) goes through
 * ddp_llp_log_limited() with its kind, so that no flood turns the
 * context's log hook (ddp_ctx_config.log) into a cost of its own.
 * Internal: not installed; libddp exports these functions for libddp-mpa
 * and libddp-sctp (mk/install.mk). Free of socket and event-loop headers.
 *
 * The bound, per context:
 *  - a kind logs at most DDP_LOG_KIND_PER_S lines in a second (the second
 *    starts at its first line), the rest are counted;
 *  - all kinds together draw on one bucket of DDP_LOG_BURST lines refilled
 *    at DDP_LOG_PER_S lines a second, so no second (of any start) sees more
 *    than DDP_LOG_BURST + DDP_LOG_PER_S lines; a line without a token is
 *    counted with its kind;
 *  - a kind's count is reported in one line, "<kind>: N more like this
 *    suppressed in the last T ms", once its second is over: at its next
 *    line, at ddp_llp_log_flush() (the adapters' periodic checks call it)
 *    or at ddp_ctx_free(). That line takes a token too, and waits for one.
 */
#ifndef DDP_LOG_LIMIT_H
#define DDP_LOG_LIMIT_H

#include <stdint.h>

#include <ddp/llp.h>

#define DDP_LOG_KIND_PER_S 3u
#define DDP_LOG_BURST      5u
#define DDP_LOG_PER_S      5u

/* What a line is about; each kind has its own count. */
enum ddp_log_kind {
	/* core */
	DDP_LOGK_REORDER_REFUSED, /* a stream refused a reorder ring */
	/* MPA/TCP */
	DDP_LOGK_MPA_STARTUP_EVICT,   /* start-up cap: the oldest evicted */
	DDP_LOGK_MPA_STARTUP_REFUSE,  /* start-up cap: the new one refused */
	DDP_LOGK_MPA_STARTUP_TIMEOUT, /* start-up not finished in time */
	DDP_LOGK_MPA_CONN_EVICT,      /* a connection cap: one evicted */
	DDP_LOGK_MPA_CONN_REFUSE,     /* a connection cap: the new one refused */
	DDP_LOGK_MPA_UNRESPONSIVE,    /* a peer stopped answering */
	DDP_LOGK_MPA_CLOSE_DEADLINE,  /* a graceful close not done in time */
	/* SCTP */
	DDP_LOGK_SCTP_CONTROL,        /* control-plane anomalies of a peer */
	DDP_LOGK_SCTP_SSN_SKIP,       /* a control chunk's DDP-SSN not recorded */
	DDP_LOGK_SCTP_NOT_DDP,        /* a PPID that is not DDP */
	DDP_LOGK_SCTP_ASSOC_CAP,      /* the association cap: evicted or refused */
	DDP_LOGK_SCTP_STREAM_CAP,     /* the stream cap: evicted or refused */
	DDP_LOGK_SCTP_IDLE,           /* an association without a session ended */
	DDP_LOGK_SCTP_SHUTDOWN_ABORT, /* a SHUTDOWN the peer did not finish */
	DDP_LOGK_SCTP_PEER_ABORT,     /* an association aborted by the peer */
	DDP_LOGK_SCTP_CLOSE_DEADLINE, /* a graceful close not done in time */
	DDP_LOGK_SCTP_UNRESPONSIVE,   /* a peer stopped answering */
	DDP_LOG_KINDS
};

/* The state of one context (struct ddp_ctx holds it, zeroed). */
struct ddp_log_limit {
	struct {
		uint64_t since_ms;   /* start of its second, 0: none yet */
		uint32_t lines;      /* lines of it logged in that second */
		uint64_t suppressed; /* lines counted, not logged, since its last count */
		uint64_t quiet_ms;   /* first of those */
	} k[DDP_LOG_KINDS];
	uint64_t tokens_milli; /* the shared bucket, in thousandths of a line */
	uint64_t filled_ms;    /* when it was last refilled, 0: never (full) */
	uint32_t pending;      /* kinds with a count to report */
};

/* ddp_llp_log for a line a peer can trigger (printf style, cut at 255
 * octets): logged, or counted under kind when over the bound above.
 * ctx may be NULL, and nothing is formatted without a log hook. */
DDP_API void ddp_llp_log_limited(ddp_ctx *ctx, enum ddp_log_kind kind, enum ddp_log_level level,
                                 const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* Report the counts whose second is over (a token each): cheap when
 * there is none. ctx may be NULL. */
DDP_API void ddp_llp_log_flush(ddp_ctx *ctx);

/* ddp_ctx_free: every count left, whatever the bucket holds. */
void log_limit_final(ddp_ctx *ctx);

#endif
