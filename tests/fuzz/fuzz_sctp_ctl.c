/* Fuzz target: SCTP session-control decoder and DDP segment-chunk split.
 * Invariants: decode never over-reads; a decoded message re-encodes to the
 * same bytes; split never claims more than it was given. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <ddp/ddp.h>
#include "sctp/sctp_ctl.h"
#include "sctp/sctp_ssn.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sctp_ctl_msg m;
	enum sctp_ctl_why why;
	uint8_t out[SCTP_CTL_MAX_LEN];
	const uint8_t *seg;
	size_t n, sl;
	uint16_t ssn;
	int rc;

	/* exact-size heap copy so ASan sees any over-read */
	uint8_t *buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	if (size)
		memcpy(buf, data, size);

	rc = sctp_ctl_decode(&m, buf, size, &why);
	if (rc == 0) {
		if (sctp_ctl_encode(out, sizeof(out), &m, &n) != 0)
			abort();
		if (n != size || memcmp(out, buf, n) != 0)
			abort();
	} else if (why == SCTP_CTL_OK) {
		abort();
	}

	if (sctp_seg_split(buf, size, &ssn, &seg, &sl) == 0) {
		if (sl + SCTP_SSN_LEN != size || seg != buf + SCTP_SSN_LEN)
			abort();
		if (sl < sctp_seg_prefix_len(seg[0]) - SCTP_SSN_LEN)
			abort();
	}
	free(buf);
	return 0;
}
