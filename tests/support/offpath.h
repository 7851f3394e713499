/* What the off-path SCTP tests (test_sctp_offpath, test_sctp_icmp) share:
 * a network namespace of the test's own with its event loop, running that
 * loop until a flag, the SCTP common header a side last received, and an
 * endpoint's UDP-layer counters. Root only (the namespace, the raw sockets
 * that forge). Not linked into the libFuzzer builds. */
#ifndef DDP_TEST_OFFPATH_H
#define DDP_TEST_OFFPATH_H

#include <stddef.h>
#include <stdint.h>

#include <ddp/sctp.h>

#include "ddp_test.h"

struct event_base;

/* the SCTP common header (ports, verification tag, checksum) of the last
 * packet an endpoint received */
struct offpath_hdr {
	uint8_t b[12];
	int have;
};

/* an SCTP-over-UDP filter (sctp_ll_set_filter; user: a struct
 * offpath_hdr) that keeps the header and passes every packet on */
unsigned offpath_grab_hdr(void *user, uint8_t *pkt, size_t len);

/* the cmocka group set-up: a network namespace of the process's own
 * (icmp_own_netns: forged ICMP plants route exceptions that die with it),
 * alarm(120) and a new event_base in *base; *base stays NULL (the tests
 * skip) when not root. Returns 0 or -1. */
int offpath_setup(struct event_base **base);
/* the event_base freed, the alarm cleared */
void offpath_teardown(struct event_base **base);

/* runs base in 5 ms slices until *flag or secs went by; returns *flag */
int offpath_run_until(struct event_base *base, const int *flag, double secs);

/* The tests' ULP on stream 0 (one session, its peer's messages into n
 * buffers of len octets at bufs): a peer's Initiate is accepted, or the
 * peer accepted ours; then the buffers are posted on s. Returns 1 when
 * the session is open, 0 for any other stream or event, -1 when a post or
 * the accept failed. */
int offpath_open_stream0(ddp_sctp_assoc *a, ddp_session *s, uint32_t stream,
                         enum ddp_sctp_event ev, uint8_t *bufs, int n, size_t len);

/* ep's UDP-layer counters */
sctp_ll_io_stats offpath_io(ddp_sctp_ep *ep);

/* first in a test: skip it when the set-up made no namespace */
#define OFFPATH_NEED_NETNS(base)                                                                   \
	do {                                                                                       \
		if (!(base)) {                                                                     \
			print_message("not root / no namespace: skipped\n");                       \
			skip();                                                                    \
		}                                                                                  \
	} while (0)

#endif
