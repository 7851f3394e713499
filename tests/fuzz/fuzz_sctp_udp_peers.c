/* Fuzz target: the packet classification of the SCTP UDP layer's peer
 * table (sctp_udp_classify in sctp_udp_peers.c): CRC32c first, then the
 * keyed-hash lookup, the lone-INIT proof and the insert, with the idle
 * sweep and references in between. No socket is read; a new peer's route
 * MTU is asked of the kernel as in the library.
 *
 * Input: records [op][src][len][len octets]; op & 3: 0 datagram as is,
 * 1 datagram with its CRC32c fixed up, 2 sweep far in the future, 3 take
 * or drop a reference on src's peer. src % 48 picks one of 48 sources
 * (IPv4 and IPv6). Invariants: a bad CRC never reaches the table (no
 * lookup); only a lone INIT creates a peer; a known peer is the one with
 * the source's address; the counts add up; everything is freed. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include "common/crc32c.h"
#include "sctp/udp/sctp_udp_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NSRC 48

static int learn(void *user)
{
	(void)user;
	return 1;
}

static void make_src(unsigned i, struct sockaddr_storage *ss, socklen_t *sl)
{
	memset(ss, 0, sizeof(*ss));
	if (i % 3 == 2) {
		struct sockaddr_in6 *s = (struct sockaddr_in6 *)ss;
		s->sin6_family = AF_INET6;
		s->sin6_addr.s6_addr[15] = 1; /* ::1 */
		s->sin6_port = htons((uint16_t)(20000 + i));
		*sl = sizeof(*s);
	} else {
		struct sockaddr_in *s = (struct sockaddr_in *)ss;
		s->sin_family = AF_INET;
		s->sin_addr.s_addr = htonl(0x7f000001u + i % 4);
		s->sin_port = htons((uint16_t)(20000 + i));
		*sl = sizeof(*s);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sctp_udp *u = calloc(1, sizeof(*u));
	struct sctp_udp_peer *refd[NSRC] = {0};
	size_t off = 0;
	int recs = 0;
	if (!u)
		return 0;
	u->ops.learn = learn;
	u->family = AF_INET;
	u->peer_idle_ms = 10000;
	for (int i = 0; i < DDP_SIPHASH_KEY_LEN; i++)
		u->hkey[i] = (uint8_t)(i * 37 + 1);
	pthread_mutex_init(&u->qlock, NULL);

	while (off + 3 <= size && recs++ < 256) {
		unsigned op = data[off] & 3, src = data[off + 1] % NSRC;
		size_t len = data[off + 2];
		struct sockaddr_storage ss;
		socklen_t sl;
		off += 3;
		if (len > size - off)
			len = size - off;
		make_src(src, &ss, &sl);
		if (op == 2) {
			sctp_udp_peers_sweep(u, sctp_udp_now_ms() + 3600000);
		} else if (op == 3) {
			struct sctp_udp_peer *p = sctp_udp_peer_find(u, &ss, sl);
			if (refd[src]) {
				sctp_udp_peer_unref(refd[src]);
				refd[src] = NULL;
			} else if (p) {
				sctp_udp_peer_ref(p);
				refd[src] = p;
			}
		} else {
			uint8_t *b = malloc(len ? len : 1);
			struct sctp_udp_peer *p, *had;
			if (!b)
				break;
			memcpy(b, data + off, len);
			if (op == 1 && len >= 12) {
				memset(b + 8, 0, 4);
				ddp_crc32c_put_wire(b + 8, ddp_crc32c(0, b, len));
			}
			int crc = sctp_udp_crc_ok(b, len);
			had = sctp_udp_peer_find(u, &ss, sl);
			uint64_t lk = u->c.peer_lookups, np = u->npeers;
			enum sctp_udp_verdict v = sctp_udp_classify(u, &ss, sl, b, len, &p);
			switch (v) {
			case SCTP_UDP_BAD_CRC:
				if (crc || p || u->c.peer_lookups != lk)
					abort();
				break;
			case SCTP_UDP_KNOWN:
				if (!crc || !p || p != had)
					abort();
				break;
			case SCTP_UDP_NEW:
				if (!crc || had || !p || !sctp_udp_proves_peer(b, len) ||
				    u->npeers != np + 1 ||
				    sctp_udp_peer_find(u, &ss, sl) != p)
					abort();
				break;
			case SCTP_UDP_UNPROVEN:
			case SCTP_UDP_NOMEM:
				if (!crc || had || p || u->npeers != np)
					abort();
				break;
			}
			free(b);
		}
		off += len;
	}
	for (unsigned i = 0; i < NSRC; i++)
		if (refd[i])
			sctp_udp_peer_unref(refd[i]);
	if (u->nidle != u->npeers)
		abort();
	sctp_udp_peers_free_all(u);
	pthread_mutex_destroy(&u->qlock);
	free(u);
	return 0;
}
