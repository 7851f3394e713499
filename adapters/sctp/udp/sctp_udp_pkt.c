/* The send queue's packets: allocated with one of two capacities (an
 * MTU 1500 packet, a 9000-octet jumbo one) and, once sent, kept on the
 * owner thread's free list of their size for the next packet, up to
 * PKT_POOL_BYTES of each size. A packet larger than a jumbo one, or one
 * queued by another thread, is malloc'd and freed as before: only the
 * owner thread touches the free lists, so they take no lock. */
#include "sctp/udp/sctp_udp_int.h"

#include <stdlib.h>

/* capacity of each size class: the UDP payload of an IPv4 packet at MTU
 * 1500 and 9000 (an IPv6 one is smaller) */
static const size_t pkt_cap[PKT_CLASSES] = {1500 - 28, 9000 - 28};
/* packets each free list keeps at most: PKT_POOL_BYTES of its class */
static const size_t pkt_keep[PKT_CLASSES] = {PKT_POOL_BYTES / (1500 - 28),
                                             PKT_POOL_BYTES / (9000 - 28)};

static int class_of(size_t len)
{
	for (int c = 0; c < PKT_CLASSES; c++)
		if (len <= pkt_cap[c])
			return c;
	return -1;
}

struct pkt *sctp_udp_pkt_new(struct sctp_udp *u, size_t len, int local)
{
	int c = class_of(len);
	struct pkt *k;
	if (local && c >= 0 && u->pool[c]) {
		k = u->pool[c];
		u->pool[c] = k->next;
		u->npool[c]--;
		return k;
	}
	k = malloc(sizeof(*k) + (c >= 0 ? pkt_cap[c] : len));
	if (k)
		k->cls = c;
	return k;
}

void sctp_udp_pkt_free(struct sctp_udp *u, struct pkt *k)
{
	int c = k->cls;
	if (c >= 0 && u->npool[c] < pkt_keep[c]) {
		k->next = u->pool[c];
		u->pool[c] = k;
		u->npool[c]++;
		return;
	}
	free(k);
}

void sctp_udp_pkt_pool_free(struct sctp_udp *u)
{
	for (int c = 0; c < PKT_CLASSES; c++) {
		while (u->pool[c]) {
			struct pkt *k = u->pool[c];
			u->pool[c] = k->next;
			free(k);
		}
		u->npool[c] = 0;
	}
}
