/*
 * DDP-SSN helpers and the DDP Segment Chunk (PPID 16) framing of RFC 5043
 * §5.2.1 / §3.1 of spec/sctp-adaptation.md. Pure: no usrsctp, no sockets.
 */
#ifndef SCTP_SSN_H
#define SCTP_SSN_H

#include <stddef.h>
#include <stdint.h>

#define SCTP_PPID_DDP       16u         /* DDP Segment Chunk (RFC 5043 §5.2.1) */
#define SCTP_PPID_CTL       17u         /* DDP Stream Session Control (§5.2.3) */
#define SCTP_SSN_LEN        2           /* DDP-SSN octets in front of every chunk */
#define SCTP_ADAPTATION_DDP 0x00000001u /* RFC 5043 §11.1 code point */
#define SCTP_MIN_USER_MSG   516u        /* RFC 5043 §9 floor (user message) */

/* Store / load a 16-bit DDP-SSN, network order. */
void sctp_ssn_put(uint8_t *p, uint16_t ssn);
uint16_t sctp_ssn_get(const uint8_t *p);

/* Serial distance b - a modulo 2^16 (RFC 5043 §10: plain comparison holds
 * while fewer than 32768 chunks are in flight). */
static inline uint16_t sctp_ssn_dist(uint16_t a, uint16_t b)
{
	return (uint16_t)(b - a);
}

/* Octets that must be read from a PPID-16 user message before the core can
 * be asked where the payload goes: DDP-SSN + DDP header. first2 = the first
 * octet of the DDP header (its T bit picks 14 or 18, RFC 5041 §4.1). */
size_t sctp_seg_prefix_len(uint8_t ddp_ctrl);

/* Split a whole PPID-16 user message into DDP-SSN and DDP segment.
 * Returns 0, or DDP_ERR_PROTO when the message is shorter than DDP-SSN +
 * the DDP header its T bit announces. */
int sctp_seg_split(const uint8_t *msg, size_t len, uint16_t *ssn, const uint8_t **seg,
                   size_t *seg_len);

#endif
