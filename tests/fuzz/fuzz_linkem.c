/*
 * fuzz_linkem: linkem's two parsers (tools/linkem, compiled in by #include:
 * the fuzz build links only the libraries). Input byte 0 even: the rest is
 * a SPEC string; odd: a packet as a TUN device hands it over (virtio header
 * first). A packet is cut into every single wire packet and into two halves;
 * each piece must fit the size lk_pkt_run reports and the pieces must add up
 * to the whole, and nothing is read outside [data, data+n) (ASan checks that
 * on a copy of exactly n octets).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../tools/linkem/seg.c"
#include "../../tools/linkem/spec.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void cut_all(const uint8_t *p, size_t n)
{
	struct lk_pktinfo pi;
	if (lk_pkt_parse(p, n, &pi))
		return;
	if (pi.nseg == 0)
		abort();
	if (!pi.splittable)
		return;
	size_t cap = LK_VNET_HDR_LEN + pi.hdrlen + pi.mss;
	uint8_t *out = malloc(cap);
	if (!out)
		return;
	size_t sum = 0;
	for (uint32_t i = 0; i < pi.nseg; i++) {
		size_t l = lk_pkt_run(p, n, &pi, i, 1, out, cap);
		if (l == 0 || l > cap || l != LK_VNET_HDR_LEN + lk_pkt_wire_len(&pi, n, i))
			abort();
		sum += l - LK_VNET_HDR_LEN - pi.hdrlen;
	}
	if (sum != pi.payload)
		abort();
	free(out);
	uint32_t half = pi.nseg / 2;
	if (half) {
		out = malloc(n);
		if (!out)
			return;
		size_t a = lk_pkt_run(p, n, &pi, 0, half, out, n);
		size_t b = lk_pkt_run(p, n, &pi, half, pi.nseg - half, out, n);
		if (a + b != n + LK_VNET_HDR_LEN + pi.hdrlen)
			abort();
		free(out);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t n = size - 1;
	uint8_t *p = malloc(n + 1);
	if (!p)
		return 0;
	memcpy(p, data + 1, n);
	if (data[0] & 1) {
		cut_all(p, n);
	} else {
		struct lk_link link;
		char err[128], fmt[512];
		p[n] = '\0';
		if (lk_spec_parse((const char *)p, &link, err, sizeof err) == 0)
			for (int d = 0; d < 2; d++)
				lk_spec_format(&link.dir[d], fmt, sizeof fmt);
	}
	free(p);
	return 0;
}
