/*
 * ddp-soak's off-path attacker: forged ICMP errors about the legitimate
 * SCTP association's datagrams (both directions), 40 every tick: port
 * unreachable quoting only the UDP header, port unreachable and
 * fragmentation-needed (next-hop MTU 0 and 68) quoting a random
 * verification tag. None quotes a tag we sent, so none may act: the
 * association goes on at its rate (the SCTP counters; an association that
 * ended on them shows as sctp errors). The whole soak then runs in a
 * network namespace of its own (soak_main.c): a forged frag-needed lowers
 * the kernel's route MTU for the address it names. SOAK_ICMP_KIND=0..3
 * in the environment forges one kind only (in the order above).
 */
#include "soak.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "icmpforge.h"

#define PER_TICK 40

static int raw = -1;

int soak_icmp_start(void)
{
	if (!(soak_loads & SOAK_ICMP) || !soak_attacker)
		return 0;
	raw = icmp_raw_socket();
	return raw < 0 ? -1 : 0;
}

void soak_icmp_tick(void)
{
	int sport, cport;
	if (raw < 0 || soak_sctp_ports(&sport, &cport))
		return;
	for (int i = 0; i < PER_TICK; i++) {
		/* the SCTP common header of a datagram we did not send */
		uint8_t q[12];
		int to_srv = i & 1;
		int from = to_srv ? cport : sport, to = to_srv ? sport : cport;
		uint32_t tag = soak_rand();
		q[0] = (uint8_t)(from >> 8), q[1] = (uint8_t)from;
		q[2] = (uint8_t)(to >> 8), q[3] = (uint8_t)to;
		for (int k = 0; k < 4; k++)
			q[4 + k] = (uint8_t)(tag >> (24 - 8 * k));
		memset(q + 8, 0, 4);
		static const struct {
			uint8_t code;
			uint16_t mtu;
			size_t qn;
		} kinds[4] = { { 3, 0, 0 }, { 3, 0, 12 }, { 4, 0, 12 }, { 4, 68, 12 } };
		int k = (i >> 1) & 3;
		if (getenv("SOAK_ICMP_KIND"))
			k = atoi(getenv("SOAK_ICMP_KIND"));
		if (icmp_forge(raw, 3, kinds[k].code, kinds[k].mtu, "127.0.0.1", from, "127.0.0.1", to,
			       q, kinds[k].qn) == 0)
			soak_st->icmp_forged++;
	}
}

void soak_icmp_stop(void)
{
	if (raw >= 0)
		close(raw);
	raw = -1;
}
