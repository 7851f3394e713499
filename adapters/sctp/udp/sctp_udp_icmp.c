/*
 * ICMP errors for our UDP datagrams (sctp_udp_icmp.h). RFC 6951 §5.5: an
 * ICMP message that cannot be related to an association, or whose
 * verification tag cannot be checked, is discarded. The quote Linux hands
 * back with an error-queue entry is the UDP payload of the offending
 * datagram, as much of it as the ICMP message carried (none when a router
 * quoted only the 8-octet UDP header, RFC 792): the SCTP common header is
 * its first 12 octets (RFC 9260 §3.1).
 */
#include "sctp/udp/sctp_udp_icmp.h"

#include <string.h>

#include "cursor.h"

#define SCTP_COMMON_LEN         12
#define CHUNK_INIT              1
#define CHUNK_INIT_ACK          2
#define CHUNK_ABORT             6
#define CHUNK_SHUTDOWN_ACK      8
#define CHUNK_COOKIE_ECHO       10
#define CHUNK_COOKIE_ACK        11
#define CHUNK_SHUTDOWN_COMPLETE 14
#define CHUNK_FLAG_T            0x01

/* ICMPv4 (RFC 792, RFC 1122 §3.2.2.1, RFC 1812 §5.2.7.1) */
#define ICMP4_UNREACH 3
#define ICMP4_PROTO   2
#define ICMP4_PORT    3
#define ICMP4_FRAG    4
/* ICMPv6 (RFC 4443) */
#define ICMP6_UNREACH  1
#define ICMP6_TOO_BIG  2
#define ICMP6_PARAM    4
#define ICMP6_PORT     4
#define ICMP6_NEXT_HDR 1

static enum sctp_icmp_kind kind_of(const struct sctp_icmp_in *in)
{
	switch (in->origin) {
	case SCTP_ICMP_ORIGIN_LOCAL:
		return SCTP_ICMP_LOCAL;
	case SCTP_ICMP_ORIGIN_ICMP:
		if (in->type != ICMP4_UNREACH)
			return SCTP_ICMP_OTHER;
		/* RFC 9260 App. C: protocol / port unreachable may be
		 * treated as an ABORT */
		if (in->code == ICMP4_PROTO || in->code == ICMP4_PORT)
			return SCTP_ICMP_DEAD;
		if (in->code == ICMP4_FRAG)
			return SCTP_ICMP_MTU;
		return SCTP_ICMP_UNREACH;
	case SCTP_ICMP_ORIGIN_ICMP6:
		if (in->type == ICMP6_TOO_BIG)
			return SCTP_ICMP_MTU;
		if (in->type == ICMP6_UNREACH)
			return in->code == ICMP6_PORT ? SCTP_ICMP_DEAD : SCTP_ICMP_UNREACH;
		/* RFC 9260 App. C: "unrecognized next header" is ICMPv6's
		 * protocol unreachable */
		if (in->type == ICMP6_PARAM && in->code == ICMP6_NEXT_HDR)
			return SCTP_ICMP_DEAD;
		return SCTP_ICMP_OTHER;
	default:
		return SCTP_ICMP_OTHER;
	}
}

/* The SCTP common header and first chunk header of a (quoted) packet. */
struct quoted {
	int have_hdr, have_chunk;
	uint16_t sport, dport;
	uint32_t vtag, itag; /* itag: an INIT's Initiate Tag */
	uint8_t type, flags;
};

static void parse(const uint8_t *b, size_t n, struct quoted *q)
{
	uint64_t sp, dp, vtag, type, flags, clen, itag;
	memset(q, 0, sizeof(*q));
	if (!b || n < SCTP_COMMON_LEN)
		return;
	struct rcur c = rc_init(b, n);
	if (rc_get_be(&c, 2, &sp) || rc_get_be(&c, 2, &dp) || rc_get_be(&c, 4, &vtag) ||
	    rc_skip(&c, 4))
		return;
	q->have_hdr = 1;
	q->sport = (uint16_t)sp;
	q->dport = (uint16_t)dp;
	q->vtag = (uint32_t)vtag;
	if (rc_get_be(&c, 1, &type) || rc_get_be(&c, 1, &flags) || rc_get_be(&c, 2, &clen))
		return;
	q->have_chunk = 1;
	q->type = (uint8_t)type;
	q->flags = (uint8_t)flags;
	if (type == CHUNK_INIT && rc_get_be(&c, 4, &itag) == 0)
		q->itag = (uint32_t)itag;
}

/* The tag that proves the packet ours: its verification tag, or with tag
 * 0 an INIT's Initiate Tag (RFC 9260 App. C). 0: none. */
static uint32_t proof_tag(const struct quoted *q, int *init)
{
	*init = 0;
	if (!q->have_hdr)
		return 0;
	if (q->vtag)
		return q->vtag;
	if (q->have_chunk && q->type == CHUNK_INIT && q->itag) {
		*init = 1;
		return q->itag;
	}
	return 0;
}

void sctp_udp_icmp_classify(const struct sctp_icmp_in *in, struct sctp_icmp_out *out)
{
	struct quoted q;
	memset(out, 0, sizeof(*out));
	out->kind = kind_of(in);
	if (out->kind == SCTP_ICMP_MTU)
		out->mtu = in->info;
	/* only the UDP header quoted (qlen 0): unverifiable */
	parse(in->quote, in->qlen, &q);
	out->tag = proof_tag(&q, &out->init);
	if (!out->tag)
		return;
	out->sport = q.sport;
	out->dport = q.dport;
	out->tagged = 1;
}

/* The first chunk ends the association (ABORT, SHUTDOWN ACK, SHUTDOWN
 * COMPLETE): the slot is not heard any more. */
static int ending(const struct quoted *q)
{
	return q->have_chunk && (q->type == CHUNK_ABORT || q->type == CHUNK_SHUTDOWN_ACK ||
	                         q->type == CHUNK_SHUTDOWN_COMPLETE);
}

void sctp_udp_tags_note(struct sctp_udp_tags *t, const uint8_t *pkt, size_t len)
{
	struct quoted q;
	uint32_t tag, own = 0;
	int init, i;
	parse(pkt, len, &q);
	/* our own tag: an INIT's Initiate Tag, or the tag of the COOKIE
	 * ECHO this COOKIE ACK answers (RFC 9260 §5.1 D, E) */
	if (q.have_chunk && q.type == CHUNK_COOKIE_ACK && t->ce_tag && t->ce_sport == q.sport &&
	    t->ce_dport == q.dport) {
		own = t->ce_tag;
		t->ce_tag = 0;
	}
	/* A tag we reflect is not a proof: an INIT ACK carries the
	 * Initiate Tag of whoever sent the INIT, an ABORT or SHUTDOWN
	 * COMPLETE with the T bit the tag of an out-of-the-blue packet
	 * (RFC 9260 §8.4, §8.5.1) - both chosen by the sender, who may
	 * be anyone. */
	if (!q.have_chunk || q.type == CHUNK_INIT_ACK ||
	    ((q.type == CHUNK_ABORT || q.type == CHUNK_SHUTDOWN_COMPLETE) &&
	     (q.flags & CHUNK_FLAG_T)))
		return;
	tag = proof_tag(&q, &init);
	if (!tag)
		return;
	for (i = 0; i < SCTP_UDP_TAGS; i++)
		if (t->e[i].used && t->e[i].sport == q.sport && t->e[i].dport == q.dport)
			break;
	if (i == SCTP_UDP_TAGS) {
		i = t->next;
		t->next = (uint8_t)((t->next + 1) % SCTP_UDP_TAGS);
		t->e[i].own = 0;
		t->e[i].heard = 0;
	}
	t->e[i].sport = q.sport;
	t->e[i].dport = q.dport;
	if (init)
		own = tag;
	if (own && own != t->e[i].own) {
		t->e[i].own = own;
		t->e[i].heard = 0;
	}
	if (tag != t->e[i].tag || ending(&q))
		t->e[i].heard = 0;
	t->e[i].tag = tag;
	t->e[i].init = (uint8_t)init;
	t->e[i].used = 1;
}

void sctp_udp_tags_cookie_echo(struct sctp_udp_tags *t, const uint8_t *b, size_t n)
{
	struct quoted q;
	parse(b, n, &q);
	if (!q.have_chunk || q.type != CHUNK_COOKIE_ECHO || !q.vtag)
		return;
	/* received: its destination port is our source port */
	t->ce_sport = q.dport;
	t->ce_dport = q.sport;
	t->ce_tag = q.vtag;
}

void sctp_udp_tags_heard(struct sctp_udp_tags *t, const uint8_t *b, size_t n)
{
	struct quoted q;
	parse(b, n, &q);
	if (!q.have_chunk || !q.vtag || q.type == CHUNK_INIT || q.type == CHUNK_INIT_ACK ||
	    q.type == CHUNK_COOKIE_ECHO)
		return;
	/* received: its ports are ours swapped */
	for (int i = 0; i < SCTP_UDP_TAGS; i++)
		if (t->e[i].used && t->e[i].own == q.vtag && t->e[i].sport == q.dport &&
		    t->e[i].dport == q.sport)
			t->e[i].heard = !ending(&q);
}

int sctp_udp_tags_match(const struct sctp_udp_tags *t, const struct sctp_icmp_out *o)
{
	if (!o->tagged)
		return 0;
	for (int i = 0; i < SCTP_UDP_TAGS; i++)
		if (t->e[i].used && t->e[i].sport == o->sport && t->e[i].dport == o->dport &&
		    t->e[i].tag == o->tag && t->e[i].init == o->init)
			return 1;
	return 0;
}
