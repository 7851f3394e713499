/*
 * ddp-soak, peer-table flood ("peerflood"): datagrams from very many
 * distinct spoofed sources (127.x.y.z, a new address and port for each,
 * rawudp.h) at the UDP port of the SCTP load's server, PER_TICK every
 * tick. Seven in eight are junk: one octet, an INIT with a bad CRC32c,
 * a DATA chunk with a valid CRC32c and some tag, an INIT with a non-zero
 * tag; none may create state (RFC 9260 §8.4, §8.5.1: only a lone INIT
 * with tag 0 makes an unknown source a peer, the CRC32c is checked before
 * the keyed peer table is looked at). One in eight is such a lone INIT:
 * it makes a peer, which usrsctp answers (an INIT ACK to nobody). That is
 * more new peers than expire in their idle time (peer_idle_ms, 10 s), so
 * the bound on them (PEER_IDLE_MAX per socket, oldest freed) acts.
 *
 * Pass: the server's peer count never exceeds PF_PEER_BOUND (else a "bad"
 * event), and the
 * legitimate association goes on at its rate (soak_sctp.c counters). Needs
 * root (a raw socket): the soak then runs in a network namespace of its
 * own (soak_main.c), as for the icmp load.
 */
#include "soak.h"

#include <stdio.h>
#include <unistd.h>

#if HAVE_USRSCTP
#include "sctp/usrsctp/sctp_ll.h"

#include "rawudp.h"

#define PER_TICK      40
#define PF_PEER_BOUND (4096 + 16) /* PEER_IDLE_MAX + the associations' */

static int raw = -1;
static uint32_t next_src;

int soak_peerflood_start(void)
{
	if (!(soak_loads & SOAK_PEERFLOOD) || !soak_attacker)
		return 0;
	raw = rawudp_open();
	return raw < 0 ? -1 : 0;
}

static size_t junk(uint8_t *pkt, uint32_t i, uint16_t sp, uint16_t port)
{
	switch (i % 8) {
	case 0: /* the lone INIT that proves a source */
		soak_st->pf_inits++;
		return rawudp_sctp(pkt, sp, port, 0, 1, 20, i);
	case 1:
	case 5: { /* an INIT with a bad CRC32c */
		size_t n = rawudp_sctp(pkt, sp, port, 0, 1, 20, i);
		pkt[8] ^= 1;
		return n;
	}
	case 2:
	case 6: /* valid CRC32c, DATA with some tag */
		return rawudp_sctp(pkt, sp, port, soak_rand() | 1, 0, 48, i);
	case 3: /* valid CRC32c, INIT with a non-zero tag */
		return rawudp_sctp(pkt, sp, port, soak_rand() | 1, 1, 20, i);
	default: /* one octet */
		pkt[0] = (uint8_t)i;
		return 1;
	}
}

/* the victim: its SCTP server's peer table and what it dropped */
static void victim_check(void)
{
	sctp_ll_io_stats io;
	if (soak_sctp_srv_io(&io))
		return;
	if ((long)io.peers > soak_st->pf_peers_max) {
		if (io.peers > PF_PEER_BOUND && soak_st->pf_peers_max <= PF_PEER_BOUND) {
			printf("peerflood: %llu peers, over the bound %d\n",
			       (unsigned long long)io.peers, PF_PEER_BOUND);
			SOAK_BAD();
		}
		soak_st->pf_peers_max = (long)io.peers;
	}
	soak_st->pf_unproven = (long)io.rx_unproven;
	soak_st->pf_bad_crc = (long)io.bad_crc;
	soak_st->pf_limited = (long)io.init_limited;
}

void soak_peerflood_tick(void)
{
	int sport, cport;
	uint8_t pkt[256];
	if ((soak_loads & SOAK_PEERFLOOD) && soak_victim)
		victim_check();
	if (raw < 0 || soak_sctp_ports(&sport, &cport))
		return;
	for (int k = 0; k < PER_TICK; k++) {
		uint32_t ip, i = next_src++;
		uint16_t sp;
		rawudp_source(i, &ip, &sp);
		size_t n = junk(pkt, i, sp, (uint16_t)sport);
		if (rawudp_send(raw, ip, sp, (uint16_t)sport, pkt, n) == 0)
			soak_st->pf_sent++;
	}
}

void soak_peerflood_stop(void)
{
	if ((soak_loads & SOAK_PEERFLOOD) && soak_victim)
		printf("peerflood: %ld datagrams from as many sources (%ld lone INITs); the SCTP "
	       "server: %ld unproven, %ld bad CRC32c, %ld lone INITs past the new-peer budget, at "
		       "most %ld peers (bound %d)\n",
	       soak_st->pf_sent, soak_st->pf_inits, soak_st->pf_unproven, soak_st->pf_bad_crc,
	       soak_st->pf_limited,
	       soak_st->pf_peers_max, PF_PEER_BOUND);
	if (raw >= 0)
		close(raw);
	raw = -1;
}

#else /* !HAVE_USRSCTP */

int soak_peerflood_start(void)
{
	soak_loads &= ~(unsigned)SOAK_PEERFLOOD; /* not built */
	return 0;
}

void soak_peerflood_tick(void)
{
}

void soak_peerflood_stop(void)
{
}
#endif
