/*
 * ddpwire: an independent reference encoder/decoder of RFC 5041 §4 DDP
 * headers for tests (written from the RFC, not from src/), so the tests can
 * check the core's bytes and build hostile segments.
 *
 *   tagged (§4.2):   ctrl(1) RsvdULP(1) STag(4) TO(8)            14 octets
 *   untagged (§4.3): ctrl(1) RsvdULP(5) QN(4) MSN(4) MO(4)        18 octets
 *   ctrl: T(0x80) L(0x40) Rsvd(0x3c) DV(0x03), all big endian.
 */
#ifndef DDP_TEST_DDPWIRE_H
#define DDP_TEST_DDPWIRE_H

#include <stddef.h>
#include <stdint.h>

#define TW_T 0x80
#define TW_L 0x40
#define TW_RSVD 0x3c
#define TW_DV 0x03

typedef struct tw_hdr {
	int tagged, last;
	uint8_t dv, rsvd; /* rsvd: the 4 reserved bits, shifted down */
	uint64_t rsvdulp; /* 8 bits tagged, 40 bits untagged */
	uint32_t stag;
	uint64_t to;
	uint32_t qn, msn, mo;
	size_t hdr_len, payload_len;
	const uint8_t *payload;
} tw_hdr;

/* Encode header + payload into out (room for hdr + plen octets); returns
 * the segment length. dv is written as given (1 for a good segment). */
size_t tw_tagged(uint8_t *out, int last, uint8_t dv, uint8_t rsvdulp,
		 uint32_t stag, uint64_t to, const void *payload, size_t plen);
size_t tw_untagged(uint8_t *out, int last, uint8_t dv, uint64_t rsvdulp,
		   uint32_t qn, uint32_t msn, uint32_t mo, const void *payload,
		   size_t plen);
/* Decode one segment; returns 0, or -1 when len is shorter than the header. */
int tw_decode(const uint8_t *seg, size_t len, tw_hdr *h);

void tw_put32(uint8_t *p, uint32_t v);
void tw_put64(uint8_t *p, uint64_t v);
uint32_t tw_get32(const uint8_t *p);
uint64_t tw_get64(const uint8_t *p);

#endif
