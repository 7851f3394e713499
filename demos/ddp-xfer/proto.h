/* ddp-xfer: the ULP's wire messages (see the protocol comment in main.c).
 * Pure encode/decode, bounds checked, big-endian; no I/O. */
#ifndef DDP_XFER_PROTO_H
#define DDP_XFER_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "digest.h"

#define XF_MAGIC 0x44584631u /* "DXF1" */
#define XF_HELLO_LEN 18	     /* private data of MPA Request / SCTP Initiate */
#define XF_MSG_MAX 64	     /* size of every posted untagged buffer */
#define XF_MAX_STREAMS 64

/* Sent by the sender when it opens a stream. */
struct xf_hello {
	uint64_t id;	    /* transfer id: random, the same on every stream */
	uint16_t idx;	    /* this stream's index, < nstreams */
	uint16_t nstreams;  /* streams of the transfer, 1..XF_MAX_STREAMS */
	uint16_t credits;   /* untagged buffers the sender posted on it */
};

enum xf_type {
	XF_ADVERT = 1, /* R->S: buffer id is writable: stag, to, len */
	XF_DONE = 2,   /* S->R: buffer id holds file octets [off, off+len) */
	XF_END = 3,    /* S->R: no more chunks; file size, chunks on stream */
	XF_RESULT = 4, /* R->S: octets received and their SHA-256 */
	XF_ABORT = 5,  /* R->S: the receiver stops the transfer: why */
};

/* XF_ABORT reasons (the text says more, e.g. strerror's) */
enum xf_abort_code {
	XF_ABORT_DISK_FULL = 1, /* ENOSPC, EDQUOT, EFBIG writing --out */
	XF_ABORT_WRITE = 2,	/* any other error writing / closing --out */
	XF_ABORT_OTHER = 3,	/* anything else on the receiver's side */
};
#define XF_ABORT_TEXT_MAX 60 /* printable ASCII octets of an ABORT's text */

struct xf_msg {
	uint8_t type;	/* enum xf_type */
	uint32_t id;	/* ADVERT, DONE: receiver's buffer id */
	uint32_t stag;	/* ADVERT */
	uint64_t to;	/* ADVERT */
	uint32_t len;	/* ADVERT: buffer length, DONE: chunk length */
	uint64_t off;	/* DONE: file offset */
	uint64_t total; /* END, RESULT: file size */
	uint32_t count; /* END: DONE messages sent on this stream */
	uint8_t sha[XF_SHA256_LEN]; /* RESULT */
	uint8_t code;	/* ABORT: enum xf_abort_code */
	uint8_t text_len; /* ABORT: octets of text, <= XF_ABORT_TEXT_MAX */
	char text[XF_ABORT_TEXT_MAX + 1]; /* ABORT: printable ASCII, NUL
					   * terminated after decode */
};

/* Encode m into out; returns the length (never above XF_MSG_MAX), 0 for an
 * unknown type or an ABORT whose code, text_len or text is out of range. */
size_t xf_msg_encode(const struct xf_msg *m, uint8_t out[XF_MSG_MAX]);
/* Decode one message of exactly n octets. Errors: -1 (unknown type, wrong
 * length for its type; ABORT: unknown code, text longer than
 * XF_ABORT_TEXT_MAX or not printable ASCII). */
int xf_msg_decode(const uint8_t *p, size_t n, struct xf_msg *m);

void xf_hello_encode(const struct xf_hello *h, uint8_t out[XF_HELLO_LEN]);
/* Errors: -1 (length, magic, idx >= nstreams, nstreams or credits out of
 * range). */
int xf_hello_decode(const uint8_t *p, size_t n, struct xf_hello *h);

/* An ABORT message of code with text (cut to XF_ABORT_TEXT_MAX octets,
 * anything but printable ASCII replaced by '?'). */
void xf_abort_msg(struct xf_msg *m, uint8_t code, const char *text);
/* "disk full" / "write error" / "failed" for an ABORT code. */
const char *xf_abort_name(uint8_t code);

#endif
