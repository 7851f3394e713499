/* Fuzz target: the per-stream DDP Stream Session state machine of the SCTP
 * adapter (RFC 5043 §6) and its received-DDP-SSN window (§10), driven by
 * an arbitrary sequence of peer chunks (data with any DDP-SSN, control
 * messages decoded from the input) and local actions (initiate, accept,
 * reject, data, terminate, "everything acknowledged", abort).
 * Invariants checked: the window base never jumps past an SSN that was not
 * received; a chunk accepted for the core is never accepted twice within
 * the window; a violation carries an EType-3 code; nothing crashes. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <ddp/ddp.h>
#include "sctp/sctp_ctl.h"
#include "sctp/sctp_ssn.h"
#include "sctp/sctp_stream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_act(const struct sctp_act *a)
{
	if ((a->flags & SCTP_ACT_VIOLATION) && a->code == 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sctp_stream st;
	sctp_stream_init(&st);
	size_t i = 0;
	while (i < size) {
		uint8_t op = data[i++];
		struct sctp_act act;
		uint16_t ssn = 0;
		unsigned fl = 0;
		memset(&act, 0, sizeof(act));
		switch (op % 10) {
		case 0: /* peer data chunk with a DDP-SSN from the input */
			if (i + 2 > size)
				return 0;
			ssn = (uint16_t)(data[i] << 8 | data[i + 1]);
			i += 2;
			{
				uint16_t base = st.rx_base;
				sctp_stream_rx_data(&st, ssn, &act);
				check_act(&act);
				/* the base only moves over received SSNs: it can
				 * never move further than the window */
				if (sctp_ssn_dist(base, st.rx_base) > SCTP_RX_WIN)
					abort();
				if (act.flags == 0) {
					/* accepted once: the same SSN again inside the
					 * window must not be accepted again */
					struct sctp_act again;
					memset(&again, 0, sizeof(again));
					struct sctp_stream copy = st;
					sctp_stream_rx_data(&copy, ssn, &again);
					if (again.flags == 0)
						abort();
				}
			}
			break;
		case 1: { /* peer control chunk: length byte, then that many octets */
			if (i + 1 > size)
				return 0;
			size_t n = data[i++];
			if (n > size - i)
				n = size - i;
			struct sctp_ctl_msg m;
			enum sctp_ctl_why why;
			if (sctp_ctl_decode(&m, data + i, n, &why) == 0) {
				sctp_stream_rx_ctl(&st, &m, op & 0x80, &act);
				check_act(&act);
			}
			i += n;
			break;
		}
		case 2: sctp_stream_tx_initiate(&st, op & 0x80, &ssn); break;
		case 3: sctp_stream_tx_accept(&st, &ssn); break;
		case 4: sctp_stream_tx_reject(&st, &ssn); break;
		case 5: sctp_stream_tx_data(&st, &ssn); break;
		case 6: sctp_stream_tx_terminate(&st, &ssn, &fl); break;
		case 7: sctp_stream_tx_confirmed(&st); break;
		case 8: sctp_stream_tx_peek(&st, &ssn); break;
		case 9:
			if (op & 0x80)
				sctp_stream_abort(&st, &act);
			else
				sctp_stream_violation(&st, DDP_ECODE_LLP_BAD_SSN, &act);
			check_act(&act);
			break;
		}
	}
	return 0;
}
