/*
 * fuzz_xfer_proto: the ddp-xfer program's message and hello decoders
 * (demos/ddp-xfer/proto.c, compiled in by #include: the fuzz build links
 * only the libraries). Input byte 0 picks the decoder, the rest is the
 * message. A message that decodes must encode back to the same octets
 * (the encoding is canonical), and the decoder reads only [data, data+n)
 * (ASan checks that on a copy of exactly n octets).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../demos/ddp-xfer/proto.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t n = size - 1;
	uint8_t *p = malloc(n ? n : 1);
	if (!p)
		return 0;
	memcpy(p, data + 1, n);
	if (data[0] & 1) {
		struct xf_hello h;
		if (xf_hello_decode(p, n, &h) == 0) {
			uint8_t back[XF_HELLO_LEN];
			xf_hello_encode(&h, back);
			if (n != XF_HELLO_LEN || memcmp(back, p, n) != 0)
				abort();
		}
	} else {
		struct xf_msg m;
		if (xf_msg_decode(p, n, &m) == 0) {
			uint8_t back[XF_MSG_MAX];
			size_t k = xf_msg_encode(&m, back);
			if (k != n || memcmp(back, p, n) != 0)
				abort();
		}
	}
	free(p);
	return 0;
}
