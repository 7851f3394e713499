/* Datagram fault injection for tests: a filter sees every SCTP packet the
 * UDP layer receives and returns a mask of these. It may also modify pkt in
 * place (corruption). */
#ifndef SCTP_UDP_FILTER_H
#define SCTP_UDP_FILTER_H

#include <stddef.h>
#include <stdint.h>

enum {
	SCTP_LL_PASS = 0,
	SCTP_LL_DROP = 1, /* discard */
	SCTP_LL_DUP = 2,  /* deliver twice */
	SCTP_LL_HOLD = 4, /* deliver after the next datagram (reorder) */
};
typedef unsigned (*sctp_udp_filter)(void *user, uint8_t *pkt, size_t len);

#endif
