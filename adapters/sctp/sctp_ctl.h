/*
 * DDP Stream Session Control messages (PPID 17): RFC 5043 §5.2.3 with the
 * RFC 6581 §7 enhanced codes. Pure codec over a bounds-checked cursor.
 *
 * Wire: DDP-SSN(2) | Function Code(2) | Private Data (0..512, none for
 * Terminate). Enhanced Initiate/Accept private data starts with the MPA
 * IRD/ORD word (A B IRD(14) | C D ORD(14)), included in the 512.
 */
#ifndef SCTP_CTL_H
#define SCTP_CTL_H

#include <stddef.h>
#include <stdint.h>

enum sctp_ctl_code {
	SCTP_CTL_INITIATE = 0x0001,
	SCTP_CTL_ACCEPT = 0x0002,
	SCTP_CTL_REJECT = 0x0003,
	SCTP_CTL_TERMINATE = 0x0004,
	SCTP_CTL_ENH_INITIATE = 0x0005, /* RFC 6581 §7 */
	SCTP_CTL_ENH_ACCEPT = 0x0006,
	SCTP_CTL_ENH_REJECT = 0x0007,
};

#define SCTP_CTL_HDR_LEN     4   /* DDP-SSN + function code */
#define SCTP_CTL_MAX_PD      512 /* RFC 5043 §5.2.3 */
#define SCTP_CTL_MAX_LEN     (SCTP_CTL_HDR_LEN + SCTP_CTL_MAX_PD)
#define SCTP_CTL_IRD_ORD_LEN 4
#define SCTP_CTL_IRD_ORD_MAX 0x3fff /* 14 bits; 0x3FFF = "ULP negotiates" */

/* Why a decode failed (distinct reasons; the return code is the DDP one). */
enum sctp_ctl_why {
	SCTP_CTL_OK = 0,
	SCTP_CTL_E_SHORT,           /* < 4 octets           -> DDP_ERR_PROTO */
	SCTP_CTL_E_UNKNOWN_CODE,    /* not 1..7             -> DDP_ERR_UNSUPPORTED */
	SCTP_CTL_E_PD_TOO_LONG,     /* private data > 512   -> DDP_ERR_TOOBIG */
	SCTP_CTL_E_PD_ON_TERMINATE, /* Terminate with PD -> DDP_ERR_PROTO */
	SCTP_CTL_E_NO_IRD_ORD,      /* enhanced I/A < 4 PD  -> DDP_ERR_PROTO */
};

/* RFC 6581 §7 / mpa.md §6.3 IRD/ORD word. */
struct sctp_ird_ord {
	uint8_t a, b, c, d; /* A peer-to-peer, B/C/D zero-length RTR types */
	uint16_t ird, ord;  /* 14 bits each */
};

struct sctp_ctl_msg {
	uint16_t ssn;
	uint16_t code;   /* enum sctp_ctl_code */
	int has_ird_ord; /* Enhanced Initiate/Accept */
	struct sctp_ird_ord ird_ord;
	const uint8_t *priv; /* ULP private data (after the IRD/ORD word);
	                      * decode: points into the input buffer */
	size_t priv_len;
};

/* Decode one complete PPID-17 user message buf/len into *out (out->priv
 * aliases buf). Returns 0, or DDP_ERR_PROTO (short, PD on Terminate,
 * enhanced Initiate/Accept without the IRD/ORD word), DDP_ERR_UNSUPPORTED
 * (unknown or reserved function code), DDP_ERR_TOOBIG (private data over
 * 512 octets), DDP_ERR_INVAL (NULL out, or NULL buf with len > 0).
 * *why (may be NULL) names the reason. */
int sctp_ctl_decode(struct sctp_ctl_msg *out, const uint8_t *buf, size_t len,
                    enum sctp_ctl_why *why);

/* Encode m into buf[0..cap). *out_len receives the message length.
 * Returns 0, DDP_ERR_INVAL (NULL, unknown code, PD on Terminate, IRD/ORD
 * over 14 bits), DDP_ERR_TOOBIG (private data + IRD/ORD word > 512, or
 * cap too small). */
int sctp_ctl_encode(uint8_t *buf, size_t cap, const struct sctp_ctl_msg *m, size_t *out_len);

/* Static name of a function code ("?" for unknown). */
const char *sctp_ctl_code_name(unsigned code);
/* Static text of a decode failure reason. */
const char *sctp_ctl_why_str(enum sctp_ctl_why why);

#endif
