/*
 * What an ICMP error for one of our UDP datagrams may do (RFC 6951 §5.5,
 * RFC 9260 Appendix C), decided without a socket: the classification of
 * an error-queue entry (IP_RECVERR / IPV6_RECVERR: origin, ICMP type and
 * code, ee_info, and the quoted UDP payload the kernel hands back), and
 * the proof that the quoted SCTP packet was ours: its ports and
 * verification tag (or, for an INIT, its Initiate Tag) equal those of a
 * packet we recently sent to that peer. Pure: no socket, no allocation.
 */
#ifndef SCTP_UDP_ICMP_H
#define SCTP_UDP_ICMP_H

#include <stddef.h>
#include <stdint.h>

/* sock_extended_err origins (linux/errqueue.h) */
#define SCTP_ICMP_ORIGIN_LOCAL 1
#define SCTP_ICMP_ORIGIN_ICMP  2
#define SCTP_ICMP_ORIGIN_ICMP6 3

enum sctp_icmp_kind {
	SCTP_ICMP_LOCAL,   /* our own send failed: the send path acted */
	SCTP_ICMP_DEAD,    /* port / protocol unreachable: may end the
	                    * peer's associations (if the quote is ours) */
	SCTP_ICMP_MTU,     /* fragmentation needed / packet too big:
	                    * may lower what we send (if the quote is ours) */
	SCTP_ICMP_UNREACH, /* host / net unreachable, prohibited, ...:
	                    * counted only */
	SCTP_ICMP_OTHER,   /* any other type or origin: counted only */
};

struct sctp_icmp_in {
	uint8_t origin, type, code; /* ee_origin, ee_type, ee_code */
	uint32_t info;              /* ee_info: the next-hop MTU for MTU */
	const uint8_t *quote;       /* the quoted UDP payload (may be NULL) */
	size_t qlen;
};

struct sctp_icmp_out {
	enum sctp_icmp_kind kind;
	int tagged;            /* the quote holds what proves it ours: */
	uint16_t sport, dport; /* SCTP ports of the quoted packet */
	uint32_t tag;          /* its verification tag; the Initiate Tag of an
	                        * INIT sent with tag 0 */
	int init;              /* tag is an INIT's Initiate Tag */
	uint32_t mtu;          /* MTU: ee_info (0: the router did not say) */
};

/* Classify one error-queue entry. Reads at most in->qlen octets of
 * in->quote. Never fails. */
void sctp_udp_icmp_classify(const struct sctp_icmp_in *in, struct sctp_icmp_out *out);

/* The proof tags of the last packets sent to one peer, one slot per SCTP
 * port pair (an association), oldest replaced. own: our own verification
 * tag of that association (what the peer's packets carry), known from
 * the Initiate Tag of the INIT we sent, or from a COOKIE ECHO usrsctp
 * answered with a COOKIE ACK (its cookie checked out, so the tag is the
 * one usrsctp chose); 0 unknown. heard: a packet from the peer carried
 * own since, so the peer holds the association (sctp_udp_tags_heard);
 * cleared by an ABORT, SHUTDOWN ACK or SHUTDOWN COMPLETE either way.
 * The path MTU probes (sctp_udp_plpmtud.c) are sent with tag, only over
 * a slot heard, and their acknowledgements must carry own. */
#define SCTP_UDP_TAGS 4
struct sctp_udp_tags {
	struct {
		uint16_t sport, dport;
		uint32_t tag, own;
		uint8_t init, used, heard;
	} e[SCTP_UDP_TAGS];
	uint8_t next;
	/* the last COOKIE ECHO received (ports as we send them): its tag
	 * becomes own when usrsctp answers it with a COOKIE ACK */
	uint16_t ce_sport, ce_dport;
	uint32_t ce_tag;
};

/* Record the SCTP packet pkt[0..len) we are sending. Ignored: packets
 * without a chunk, tag 0 without an INIT, and packets whose tag we only
 * reflect (INIT ACK; ABORT / SHUTDOWN COMPLETE with the T bit). */
void sctp_udp_tags_note(struct sctp_udp_tags *t, const uint8_t *pkt, size_t len);
/* 1 if o (tagged) quotes a packet recorded in t, else 0. */
int sctp_udp_tags_match(const struct sctp_udp_tags *t, const struct sctp_icmp_out *o);
/* A received packet b[0..n) that starts with a COOKIE ECHO: remember its
 * tag for the COOKIE ACK that may answer it (sctp_udp_tags_note). */
void sctp_udp_tags_cookie_echo(struct sctp_udp_tags *t, const uint8_t *b, size_t n);
/* A received packet b[0..n): a slot whose own tag it carries is heard,
 * unless it is an INIT, INIT ACK or COOKIE ECHO (RFC 9260 §5.1: the peer
 * that accepts holds the association from the COOKIE ECHO on, the one that
 * initiates from the COOKIE ACK on; before that a packet of the
 * association's tags reaches no association there, and a probe would
 * draw an ABORT). */
void sctp_udp_tags_heard(struct sctp_udp_tags *t, const uint8_t *b, size_t n);

#endif
