/* UDP-path fault shim for the SCTP tests (net_udpfault.h). */
#include "net_udpfault.h"

#include <string.h>

#include "ddp_test.h"

void udp_faults_init(struct udp_faults *f, uint32_t seed, unsigned pct,
		     size_t skip)
{
	memset(f, 0, sizeof(*f));
	f->rng = seed;
	f->pct = pct;
	f->skip = skip;
}

unsigned udp_faults_filter(void *user, uint8_t *pkt, size_t len)
{
	struct udp_faults *f = user;
	f->n++;
	f->rng = f->rng * 1103515245u + 12345u;
	unsigned r = (f->rng >> 8) % 100;
	if (r < f->pct) {
		f->drop++;
		return SCTP_LL_DROP;
	}
	if (r < 2 * f->pct) {
		f->dup++;
		return SCTP_LL_DUP;
	}
	if (r < 3 * f->pct) {
		f->hold++;
		return SCTP_LL_HOLD;
	}
	if (r < 4 * f->pct && len > f->skip) {
		f->corrupt++;
		pkt[f->skip + (f->rng >> 12) % (len - f->skip)] ^=
			(uint8_t)(1u << (r % 8));
	}
	return SCTP_LL_PASS;
}

unsigned udp_drop_all(void *user, uint8_t *pkt, size_t len)
{
	return SCTP_LL_DROP;
}
