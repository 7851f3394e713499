/*
 * MPA FPDU framing (RFC 5044 §4): the FPDU constants, MULPDU arithmetic
 * and the transmit framer (builds one FPDU as an iovec without copying
 * payload). The receive side, the deframer, is mpa_deframer.h. Pure: no
 * sockets, no libevent.
 */
#ifndef DDP_MPA_FPDU_H
#define DDP_MPA_FPDU_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include <ddp/llp.h>

#define MPA_MARKER_INTERVAL 512 /* RFC 5044 §4.3 */
#define MPA_MARKER_LEN      4
#define MPA_CRC_LEN         4
#define MPA_LEN_FIELD       2
#define MPA_MULPDU_MIN      128   /* RFC 5044 §3 */
#define MPA_MULPDU_MAX      64768 /* RFC 5044 §3 */

/* RFC 5044 §4.1 (MUST): MULPDU from EMSS,
 *   markers: EMSS - (6 + 4*ceil(EMSS/512) + EMSS mod 4)
 *   no markers: EMSS - (6 + EMSS mod 4)
 * clamped to 128..64768 (RFC 5044 §3). */
uint32_t mpa_mulpdu(uint32_t emss, int markers);

/* PAD octets after ULPDU_Length + ULPDU (RFC 5044 §4.1). */
static inline size_t mpa_pad_len(size_t ulpdu_len)
{
	return (4 - ((ulpdu_len + MPA_LEN_FIELD) & 3)) & 3;
}

/* ------------------------------------------------------------- tx side */

/* Transmit half of one MPA connection direction. */
typedef struct mpa_tx_stream {
	uint64_t pos; /* FPDU-stream octets framed so far (markers incl.) */
	int markers;  /* insert markers (the peer's frame had M=1) */
	int crc;      /* compute the CRC (else the field is zero) */
} mpa_tx_stream;

/* One framed FPDU. iov[] references the caller's payload and the small
 * buffers inside this object (ULPDU_Length + DDP header copy, markers, PAD,
 * CRC). Free with free(). */
typedef struct mpa_fpdu {
	struct mpa_fpdu *next; /* queue link (owned by the user) */
	size_t wire_len;       /* octets on the wire */
	size_t written;        /* octets already written (user's cursor) */
	int pending;           /* user flag: needs ddp_llp_tx_done() */
	int pooled;            /* user flag: memory from the user's pool */
	int iovcnt;
	struct iovec *iov;
	uint8_t head[MPA_LEN_FIELD + DDP_MAX_HDR_LEN];
	uint8_t tail[3 + MPA_CRC_LEN];
	uint8_t (*mk)[MPA_MARKER_LEN];
	/* iov[] and mk[] storage follow */
} mpa_fpdu;

/* Frame one ULPDU. iov[0] is the DDP header (copied), iov[1..] the payload
 * (referenced: must stay valid until the FPDU is written), ulpdu_len their
 * total. Advances t->pos by the FPDU's wire length. Markers go at every
 * 512-octet boundary of the stream counted from the first FPDU octet
 * (RFC 5044 §4.3, first one at pos 0 with FPDUPTR 0); the CRC covers
 * ULPDU_Length, ULPDU, markers and PAD (RFC 5044 §4.4) and is written LSB
 * first. *out is malloc'ed (free()).
 * Errors: DDP_ERR_INVAL (NULL, iovcnt < 1, iov[0] not a 14/18-octet header,
 * lengths disagree), DDP_ERR_TOOBIG (ulpdu_len > 64768), DDP_ERR_NOMEM. */
int mpa_fpdu_build(mpa_tx_stream *t, const struct iovec *iov, int iovcnt, size_t ulpdu_len,
                   mpa_fpdu **out);

/* Octets mpa_fpdu_build_in needs for an FPDU of iovcnt pieces and
 * ulpdu_len octets on t (its marker setting). */
size_t mpa_fpdu_size(const mpa_tx_stream *t, int iovcnt, size_t ulpdu_len);
/* As mpa_fpdu_build, in the caller's memory: mem holds at least
 * mpa_fpdu_size() octets, aligned as malloc's are, and stays the caller's
 * (*out == mem). The same errors except DDP_ERR_NOMEM; nothing is written
 * to mem on an error. */
int mpa_fpdu_build_in(mpa_tx_stream *t, const struct iovec *iov, int iovcnt, size_t ulpdu_len,
                      void *mem, mpa_fpdu **out);

/* FPDU memory kept for reuse by one connection: every data FPDU without
 * markers (header, a few payload pieces, trailer) fits one block of
 * MPA_FPDU_BLOCK octets; up to MPA_FPDU_POOL_MAX blocks (256 KiB) are kept
 * instead of a malloc and a free per FPDU, a cost a sender at MTU 1500
 * pays for every 1442-octet FPDU (docs/performance.md, section 5).
 * Zero-initialise; not thread-safe. */
#define MPA_FPDU_BLOCK    512
#define MPA_FPDU_POOL_MAX 512
typedef struct mpa_fpdu_pool {
	mpa_fpdu *free; /* spare blocks (linked by next) */
	unsigned alive; /* blocks allocated: spare or in use */
} mpa_fpdu_pool;

/* As mpa_fpdu_build, in a pooled block when the FPDU fits one (else
 * malloc'ed as by mpa_fpdu_build). Give it back with mpa_fpdu_pool_put. */
int mpa_fpdu_pool_build(mpa_fpdu_pool *p, mpa_tx_stream *t, const struct iovec *iov, int iovcnt,
                        size_t ulpdu_len, mpa_fpdu **out);
/* Return an FPDU made by mpa_fpdu_pool_build or mpa_fpdu_build. */
void mpa_fpdu_pool_put(mpa_fpdu_pool *p, mpa_fpdu *f);
/* Free the spare blocks (those in use are put back first). */
void mpa_fpdu_pool_drain(mpa_fpdu_pool *p);

#endif
