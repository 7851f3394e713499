/* The UDP layer's clock (sctp_udp_now_ms, sctp_udp.h): in a file of its
 * own so that every file of the layer can read the time without calling
 * into another that may call it back (the peer table, the path MTU, its
 * probes). */
#include "sctp/udp/sctp_udp.h"

#include <time.h>

uint64_t sctp_udp_now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}
