/*
 * One MPA connection (RFC 5044 §7 start-up, §4 full operation) as a pure
 * state machine over an I/O callback table: no sockets, no libevent, no
 * timers. It owns the start-up exchange (the Initiator role is a setting,
 * independent of who opened TCP), then implements ddp_llp_ops for one DDP
 * stream (index 0): FPDUs are framed without copying payload, queued, and
 * written with one writev per flush.
 *
 * Lifetime: mpa_proto_new(), then ddp_session_new(ctx, cfg, &mpa_proto_llp_ops,
 * conn, ...), mpa_proto_attach(), mpa_proto_start(). Free the session first
 * (ddp_session_free), then mpa_proto_free().
 */
#ifndef DDP_MPA_CONN_H
#define DDP_MPA_CONN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include <ddp/llp.h>

#include "mpa/mpa_deframer.h"
#include "mpa/mpa_fpdu.h"
#include "mpa/mpa_startup.h"

typedef struct mpa_proto mpa_proto;

enum mpa_proto_event {
	MPA_CEV_REQUEST = 1, /* responder: valid Request in; call accept/reject */
	MPA_CEV_UP,          /* full operation reached */
	MPA_CEV_REJECTED,    /* initiator: peer said R=1; responder: our R=1
	                      * Reply was written. MPA is left; close TCP. */
	MPA_CEV_FAILED,      /* start-up failed or connection lost; close TCP */
	MPA_CEV_CLOSED,      /* orderly end: the DDP core closed and the peer
	                      * sent FIN, or an abortive close was done */
	MPA_CEV_WANT_WRITE,  /* err = 1: call mpa_proto_on_writable() when the
	                      * transport is writable; 0: no longer needed */
	MPA_CEV_STOP_READ,   /* input is finished (EOF): stop read events */
};

typedef struct mpa_proto_io {
	/* as mpa_read_fn: > 0 octets, 0 nothing now, DDP_ERR_CLOSED at FIN,
	 * other negative on failure */
	ssize_t (*read)(void *io, void *dst, size_t n);
	/* >= 0 octets written (0: would block), negative DDP_ERR_* on error */
	ssize_t (*writev)(void *io, const struct iovec *iov, int iovcnt);
	/* close our sending half (abortive 0) or reset the connection (1) */
	void (*shutdown)(void *io, int abortive);
	/* events (enum mpa_proto_event); err: DDP_ERR_* or flag, ecode: MPA
	 * error code (DDP_MPA_ECODE_*) when one applies, else 0 */
	void (*event)(void *io, enum mpa_proto_event ev, int err, uint8_t ecode);
	/* optional scatter read (as mpa_readv_fn), same results as read */
	ssize_t (*readv)(void *io, const struct iovec *iov, int iovcnt);
	/* optional: our (peer 0) or the peer's address as text (the LLP
	 * ops' addr, ddp_session_addr) */
	int (*addr)(void *io, int peer, char *buf, size_t len);
	/* optional: abort the connection (ddp_session_close(s, 1)) unless it
	 * is down within ms (the LLP ops' close_deadline) */
	void (*close_deadline)(void *io, unsigned ms);
} mpa_proto_io;

/* FPDUs queued before send returns DDP_ERR_AGAIN, whatever their size:
 * each holds a block of bookkeeping (MPA_FPDU_BLOCK octets), so a peer
 * that stops reading makes us hold at most 64 KiB of it, however small
 * the FPDUs (at MTU 1500, 128 FPDUs are 180 KiB on the wire: the kernel's
 * send buffer, not this queue, keeps the path busy). */
#define MPA_TX_FPDU_MAX 128u

typedef struct mpa_proto_config {
	int initiator;         /* 1: send the Request (RFC 5044 §7.1) */
	mpa_local local;       /* our start-up settings (priv copied) */
	uint16_t priv_cap;     /* largest PD_Length accepted (default 512) */
	uint32_t emss;         /* TCP EMSS for MULPDU (default 1460) */
	uint32_t rx_max_ulpdu; /* larger ULPDU_Length stops rx (default
	                        * 64768, RFC 5044 §3) */
	size_t tx_cap;         /* queued FPDU octets before send returns
	                        * DDP_ERR_AGAIN (default 1 MiB) */
	uint32_t stage_max;    /* stage (copy, CRC-check, then hand up)
	                        * ULPDUs up to this size; 0 = default
	                        * MPA_RING_SWITCH (with a receive ring of
	                        * MPA_RING_ALLOC octets; above MPA_STAGE_MAX
	                        * the connection allocates one),
	                        * UINT32_MAX = never */
} mpa_proto_config;

/* LLP ops to give ddp_session_new() with llp = the mpa_proto. */
extern const ddp_llp_ops mpa_proto_llp_ops;

/* Create a connection. cfg and its private data are copied.
 * Errors: DDP_ERR_INVAL (NULL, rev not 1/2, private data too long for the
 * enhanced word + 512 cap), DDP_ERR_NOMEM. */
int mpa_proto_new(const mpa_proto_config *cfg, const mpa_proto_io *io, void *io_ctx,
                  mpa_proto **out);
/* Free: drops queued FPDUs without completing them (the session must be
 * freed first or its sends flushed). NULL is a no-op. */
void mpa_proto_free(mpa_proto *c);
/* Bind the DDP session created over this conn. Errors: DDP_ERR_INVAL. */
int mpa_proto_attach(mpa_proto *c, ddp_session *s);
/* Begin the start-up: the Initiator writes its Request. Errors:
 * DDP_ERR_STATE (started already), or a write error. */
int mpa_proto_start(mpa_proto *c);

/* Input is available: run the start-up parser or the deframer until the
 * reader is dry. Returns 0, or a negative code when the connection is
 * finished (the event was raised already). */
int mpa_proto_on_readable(mpa_proto *c);
/* The transport can take data: flush queued octets. Returns 0 or the
 * writev error (MPA_CEV_FAILED raised). */
int mpa_proto_on_writable(mpa_proto *c);
/* The owner's start-up timer fired (RFC 5044 §7.1: SHOULD time out).
 * Raises MPA_CEV_FAILED with DDP_ERR_TIMEOUT when still starting up. */
void mpa_proto_on_timeout(mpa_proto *c);
/* The connection's owner freed it inside a callback: stop at once, with
 * no event: nothing more is read, handed to DDP or written. The session
 * must be silenced too (ddp_llp_session_silence). */
void mpa_proto_stop(mpa_proto *c);
/* Abort from outside (owner shutting down): FAILED reported to DDP. */
void mpa_proto_on_failed(mpa_proto *c, int err);
/* New EMSS (e.g. from TCP_MAXSEG): MULPDU recomputed, DDP told. */
void mpa_proto_set_emss(mpa_proto *c, uint32_t emss);
/* The owner saw the connection quiet for a while (nothing read, nothing
 * written): give back the receive ring when it holds nothing (it comes
 * back with the next run of FPDUs that wants it) and the spare FPDU
 * blocks. Returns the octets given back. */
size_t mpa_proto_quiet(mpa_proto *c);

/* Responder after MPA_CEV_REQUEST: accept with reply private data (NULL/0
 * for none) or reject (R=1). Errors: DDP_ERR_STATE (no Request pending),
 * DDP_ERR_INVAL (priv too long). */
int mpa_proto_accept(mpa_proto *c, const void *priv, uint16_t priv_len);
int mpa_proto_reject(mpa_proto *c, const void *priv, uint16_t priv_len);

/* Start-up still in progress (the owner's timer should run). */
int mpa_proto_starting(const mpa_proto *c);
/* The peer's frame (valid from MPA_CEV_REQUEST / MPA_CEV_UP / REJECTED)
 * and the negotiated result (valid from MPA_CEV_UP, peer IRD/ORD also on
 * rejection). NULL before. */
const mpa_frame *mpa_proto_peer_frame(const mpa_proto *c);
const mpa_result *mpa_proto_result(const mpa_proto *c);
uint32_t mpa_proto_mulpdu(const mpa_proto *c);
int mpa_proto_is_initiator(const mpa_proto *c);
/* octets waiting in the tx queue */
size_t mpa_proto_queued(const mpa_proto *c);
/* the receive deframer (statistics) */
const mpa_deframer *mpa_proto_deframer(const mpa_proto *c);
/* number of writev calls made so far (tests check batching) */
uint64_t mpa_proto_writev_calls(const mpa_proto *c);
/* number of DDP_ERR_AGAIN answers to ops->send (backpressure) */
uint64_t mpa_proto_again_count(const mpa_proto *c);
/* Name of the connection's phase (state-name table). */
const char *mpa_proto_phase_name(const mpa_proto *c);

#endif
