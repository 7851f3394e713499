/*
 * fuzz_rdmap_hdr: the RDMAP header decoders: the control octet (RFC 5040
 * §4.2) and the Read Request header (§4.4). A decode never reads past the
 * input, fails on fewer than 28 octets, and re-encodes to the same octets.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rdmap_wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size) {
		uint8_t c = data[0];
		if (rdmapi_ctrl(rdmapi_ctrl_op(c)) != (uint8_t)((1u << 6) | (c & 0xf)))
			abort();
		data++;
		size--;
	}
	rdmapi_rreq r;
	const uint8_t *p = data;
	int rc = rdmapi_rreq_decode(&r, &p, data + size);
	if (size < RDMAPI_RREQ_LEN) {
		if (rc != DDP_ERR_NEED_MORE || p != data)
			abort();
		return 0;
	}
	if (rc || p != data + RDMAPI_RREQ_LEN)
		abort();
	uint8_t buf[RDMAPI_RREQ_LEN];
	rdmapi_rreq_encode(&r, buf);
	if (memcmp(buf, data, RDMAPI_RREQ_LEN))
		abort();
	return 0;
}
