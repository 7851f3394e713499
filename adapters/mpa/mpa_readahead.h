/*
 * MPA receive read-ahead policy: which FPDUs are read through buffers of
 * ours (and how much of the byte stream to read in one call), and which
 * are read header-first with their payload going from the socket straight
 * into the ULP buffer. The RFC 5044 deframer (mpa_deframer.c) asks; this
 * module decides and owns the buffers. Pure: no sockets, no libevent.
 *
 * Why: where TCP's MSS bounds MULPDU (1454 octets at MTU 1500), one read
 * per FPDU costs a system call per 1.4 KiB; reading 64 KiB or more at once
 * into a ring and copying each payload out after its CRC and DDP checks
 * costs one counted copy and saves some 40 system calls per 64 KiB. Large
 * FPDUs (loopback, jumbo frames) keep the zero-copy direct reads. Why the
 * switch point (MPA_RING_SWITCH) is where it is: docs/performance.md,
 * section 4, "MPA receive: ring or direct".
 */
#ifndef DDP_MPA_READAHEAD_H
#define DDP_MPA_READAHEAD_H

#include <stddef.h>
#include <stdint.h>

#include <ddp/llp.h>

/* Staged ULPDUs up to this length fit the inline stage buffer: a 1 KiB
 * message with its DDP header. */
#define MPA_STAGE_MAX (1024 + DDP_MAX_HDR_LEN)
#define MPA_RA_MAX    4096 /* inline read-ahead buffer (no ring) */
/* The ring: what a run of small FPDUs reads in one call, at most. */
#define MPA_RING_LEN (128u * 1024)
/* ULPDU_Length up to which FPDUs go through our buffers when a ring is
 * there (the default switch point); above it, direct reads. Below it the
 * ring saves a system call per FPDU; FPDUs of 16 KiB and more stay
 * zero-copy (the copy budget of such paths; docs/performance.md,
 * section 4). */
#ifndef MPA_RING_SWITCH
#define MPA_RING_SWITCH 16383u
#endif
/* The stage area that comes with a ring: the largest switch point. */
#ifndef MPA_RING_STAGE_MAX
#define MPA_RING_STAGE_MAX (16384u + DDP_MAX_HDR_LEN)
#endif
/* Bytes a ring owner allocates: the ring plus its stage area. */
#define MPA_RING_ALLOC (MPA_RING_LEN + MPA_RING_STAGE_MAX)

typedef struct mpa_readahead {
	/* policy */
	uint32_t stage_max;  /* stage ULPDUs up to this length (0: never):
	                      * stage_want clamped to the stage buffer */
	uint32_t stage_want; /* as asked (mpa_ra_set_stage_max) */
	int ring_lazy;       /* allocate a ring of our own when an FPDU
	                      * would use it (mpa_ra_set_ring_lazy) */
	int ring_own;        /* `ring` is ours: mpa_ra_release/mpa_ra_fini */
	unsigned small_run;  /* FPDUs staged in a row: from 2 on, read
	                      * ahead as much as the buffer holds */
	/* tail prediction: FPDU index within its DDP message, and where the
	 * last message's final FPDU was (a hint, never trusted for placement) */
	unsigned msg_idx;  /* index the next FPDU will have */
	unsigned cur_idx;  /* index of the current FPDU */
	int cur_last;      /* the current FPDU has L=1 */
	unsigned tail_idx; /* index of the last message's final FPDU */
	uint16_t tail_len; /* its ULPDU_Length when it was staged, else 0 */
	/* buffers: read-ahead octets live in buf[off, off + len) */
	uint8_t *buf; /* small_buf or the ring */
	size_t cap, off, len;
	uint8_t *stage; /* small_stage or the ring's stage area */
	size_t stage_cap;
	uint8_t *ring; /* MPA_RING_ALLOC octets (the caller's, or ours
	                * with ring_own), or NULL */
	uint8_t small_stage[MPA_STAGE_MAX];
	uint8_t small_buf[MPA_RA_MAX];
} mpa_readahead;

/* No ring, stage_max 0. */
void mpa_ra_init(mpa_readahead *r);
/* Give the policy a ring of MPA_RING_ALLOC octets (owned by the caller,
 * which frees it after the deframer; NULL: none). Without a ring, staging
 * is limited to MPA_STAGE_MAX and read-ahead to MPA_RA_MAX. */
void mpa_ra_set_ring(mpa_readahead *r, uint8_t *ring);
/* on: no ring is held while none is needed; one of our own is allocated
 * when an FPDU would use it (a stageable FPDU above MPA_STAGE_MAX, or the
 * second small FPDU of a run), and given back by mpa_ra_release. Without
 * memory for it the inline buffers serve (smaller reads, larger FPDUs
 * header-first). A connection that goes quiet thus holds only the inline
 * buffers (~5 KiB), not MPA_RING_ALLOC (~144 KiB). */
void mpa_ra_set_ring_lazy(mpa_readahead *r, int on);
/* Give back our own ring when it holds no read-ahead octets; the caller
 * makes sure its stage area is not in use (no FPDU being staged). Its
 * pages go back to the system at once. Returns 1 when it was given back. */
int mpa_ra_release(mpa_readahead *r);
/* Free our own ring (end of the connection). */
void mpa_ra_fini(mpa_readahead *r);
/* Stage ULPDUs up to n octets (clamped to what the stage buffer holds). */
void mpa_ra_set_stage_max(mpa_readahead *r, uint32_t n);
/* A new FPDU: its ULPDU_Length and the DDP control octet (L flag, RFC 5041
 * §4.2). Returns 1 when it is to be staged (read into our buffer, checked,
 * handed up whole), 0 for header-first. can_stage: the sink takes whole
 * segments. */
int mpa_ra_classify(mpa_readahead *r, uint16_t ulpdu_len, uint8_t ctl, int can_stage);
/* Octets to read ahead in a run of small FPDUs (0 outside a run): grows
 * with the run, 4 KiB to the whole buffer. */
size_t mpa_ra_run_ahead(const mpa_readahead *r);
/* Octets to read ahead with the last piece of a header-first payload:
 * PAD + CRC and the next header; the whole predicted tail FPDU when the
 * last message ended with a staged one at the next index. */
size_t mpa_ra_payload_ahead(const mpa_readahead *r, size_t pad_len);
/* Where the next read-ahead goes (the buffer must be empty): the ring in
 * a run when there is one, else the inline buffer. */
void mpa_ra_pick_buffer(mpa_readahead *r);

#endif
