/* RDMAP wire codec (RFC 5040 §4): the RDMAP control octet, the Read
 * Request header and the Terminate payload. Pure encode/decode over the
 * core's bounds-checked cursor (src/cursor.h, header-only: byte order lives
 * there); no state, no DDP calls. Internal to libddp-rdmap (rdmapi_). */
#ifndef DDP_RDMAP_WIRE_H
#define DDP_RDMAP_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include <ddp/rdmap.h>

#define RDMAPI_RREQ_LEN 28 /* RFC 5040 §4.4 */
#define RDMAPI_TERM_MAX (4 + 2 + 18 + 28)

/* RFC 5040 §4.2: RV (2 bits) | reserved (2 bits) | Opcode (4 bits). */
static inline uint8_t rdmapi_ctrl(uint8_t opcode)
{
	return (uint8_t)((DDP_RDMAP_VERSION << 6) | (opcode & 0xf));
}
static inline uint8_t rdmapi_ctrl_rv(uint8_t c)
{
	return (uint8_t)(c >> 6);
}
static inline uint8_t rdmapi_ctrl_op(uint8_t c)
{
	return (uint8_t)(c & 0xf);
}

/* RFC 5040 §4.4 RDMA Read Request header. */
typedef struct rdmapi_rreq {
	uint32_t sink_stag;
	uint64_t sink_to;
	uint32_t size;
	uint32_t src_stag;
	uint64_t src_to;
} rdmapi_rreq;

/* Decode 28 octets. Errors: DDP_ERR_NEED_MORE (short). */
int rdmapi_rreq_decode(rdmapi_rreq *out, const uint8_t **src, const uint8_t *end);
/* Encode into buf[RDMAPI_RREQ_LEN]. */
void rdmapi_rreq_encode(const rdmapi_rreq *r, uint8_t *buf);

/* Encode a Terminate payload in the RFC 5040 §4.8 layout (Terminate
 * Control, then with d or m the DDP Segment Length and the DDP header, then
 * with r the RDMAP header). Returns octets written (<= RDMAPI_TERM_MAX), or
 * DDP_ERR_INVAL when cap is too small. */
int rdmapi_term_encode(const ddp_rdmap_term *t, uint8_t *buf, size_t cap);

#endif
