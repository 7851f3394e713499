/*
 * fuzz_rdmap_term: the Terminate decoder (RFC 5040 §4.8, with siw's swapped
 * control word). Any input either fails cleanly or yields a defined
 * (layer, type, code) whose headers fit their fields, consuming no more
 * than the input; re-encoding it in the RFC layout and decoding that again
 * gives the same error.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <ddp/rdmap.h>

#include "rdmap_wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ddp_rdmap_term t;
	const uint8_t *p = data, *end = data + size;
	int rc = ddp_rdmap_term_decode(&t, &p, end);
	if (rc) {
		if (p != data)
			abort();
		return 0;
	}
	if (p < data || p > end || !ddp_rdmap_term_valid(t.layer, t.etype, t.code) ||
	    t.ddp_hdr_len > sizeof(t.ddp_hdr) || t.rdmap_hdr_len > sizeof(t.rdmap_hdr))
		abort();
	uint8_t buf[RDMAPI_TERM_MAX];
	int n = rdmapi_term_encode(&t, buf, sizeof(buf));
	if (n < 4)
		abort();
	ddp_rdmap_term u;
	const uint8_t *q = buf;
	if (ddp_rdmap_term_decode(&u, &q, buf + n) || u.layer != t.layer || u.etype != t.etype ||
	    u.code != t.code || u.d != t.d || u.r != t.r)
		abort();
	(void)ddp_rdmap_term_str(t.layer, t.etype, t.code);
	return 0;
}
