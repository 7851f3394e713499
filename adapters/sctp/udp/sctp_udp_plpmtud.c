/*
 * Packetization-layer path MTU discovery for each UDP peer (RFC 8899, with
 * the SCTP probe of §6.2.1: a HEARTBEAT padded to the probed size), run by
 * this layer itself: it sees every packet usrsctp sends (the tags of each
 * association, sctp_udp_tags_note) and every packet in (the HEARTBEAT ACK
 * of a probe, taken out here: usrsctp never sees it).
 *
 * A peer starts at the interface MTU (sctp_udp_mtu.c): a clean path runs
 * at full size from the first packet. Once one of its associations is up
 * at both ends (a verification tag each way known, and a packet with ours
 * heard from the peer since its COOKIE ECHO or COOKIE ACK: before that a
 * probe, which leaves ahead of the queued handshake, would reach no
 * association there) the peer's probes start, each over an association
 * still heard:
 *
 *   BASE      confirm BASE_PLPMTU (1200 IPv4, 1280 IPv6; never below the
 *             floor) - RFC 8899 §5.2, §5.1.4
 *   SEARCHING probe the interface MTU, then halve between the largest
 *             confirmed and the smallest failed size - §5.3.2
 *   COMPLETE  after PMTU_RAISE_TIMER probe upwards again if below the
 *             interface MTU, else confirm the size every
 *             CONFIRMATION_TIMER - §5.2, §5.1.1
 *   ERROR     BASE failed: the floor, BASE probed again - §5.2
 *
 * MAX_PROBES probes of a size unanswered, PROBE_TIMER apart, fail it
 * (§5.1.2). The first failure of a search (a black hole: the path drops
 * what it cannot carry and no ICMP says so) puts the peer at the largest
 * confirmed size; from then on its path MTU never exceeds a confirmed size,
 * and each confirmation raises it (ops.peer_mtu tells usrsctp). A verified
 * ICMP still lowers at once (sctp_udp_plpmtud_ptb, proof); it stops the search
 * until PMTU_RAISE_TIMER, after which a probe may take the path back up
 * (§4.6.2: a PTB is a hint the probes confirm or refute).
 *
 * An acknowledgement counts only if it carries our own verification tag
 * of the probed association, the ports of the probe, our marker and the
 * nonce (a keyed SipHash of peer, size and sequence): an off-path sender
 * can neither raise nor confirm anything (RFC 8899 §4.5.2). A lone
 * HEARTBEAT ACK of ours is consumed; bundled with other chunks, its chunk
 * is cut out and the rest goes to usrsctp (which would drop the packet's
 * remaining chunks after an unknown HEARTBEAT ACK).
 */
#include "sctp/udp/sctp_udp_int.h"
#include "sctp/udp/sctp_udp_probe.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#define BASE_PLPMTU_V4  1200 /* RFC 8899 §5.1.2 */
#define BASE_PLPMTU_V6  1280
#define MAX_PROBES      3 /* RFC 8899 §5.1.2 */
#define SEARCH_STEP     8 /* search done once failed - confirmed is this */
#define V4_OVERHEAD     28
#define V6_OVERHEAD     48
#define UDP_MAX_PAYLOAD 65507 /* the largest UDP payload (IPv4 total length) */
#define SEND_TRIES      3     /* sends of one probe an ICMP report may fail */

enum { PL_OFF, PL_BASE, PL_SEARCHING, PL_COMPLETE, PL_ERROR };

/* RFC 8899 §5.1.1. PROBE_TIMER is below the RFC's "SHOULD be larger than
 * 15 s": an association in a black hole stalls for MAX_PROBES of it, and
 * a probe is one packet per timer per peer. */
static uint32_t probe_ms = 2000, raise_ms = 600000, confirm_ms = 600000;

void sctp_udp_plpmtud_set_timers_for_test(uint32_t probe, uint32_t raise, uint32_t confirm)
{
	probe_ms = probe ? probe : 2000;
	raise_ms = raise ? raise : 600000;
	confirm_ms = confirm ? confirm : 600000;
}

static uint32_t overhead(const struct sctp_udp_peer *p)
{
	return p->sa.ss_family == AF_INET6 ? V6_OVERHEAD : V4_OVERHEAD;
}

/* The largest size to probe: the interface's MTU, at most one UDP
 * datagram's worth (a loopback's 65536 is more than IPv4 can carry: the
 * kernel refuses it and reports an ICMP error quoting our own tag). */
static uint32_t top(const struct sctp_udp_peer *p)
{
	uint32_t t = p->plp.max, m = overhead(p) + UDP_MAX_PAYLOAD;
	return (t < m ? t : m) & ~3u;
}

static uint32_t base_size(const struct sctp_udp_peer *p)
{
	uint32_t b = p->sa.ss_family == AF_INET6 ? BASE_PLPMTU_V6 : BASE_PLPMTU_V4;
	uint32_t f = sctp_udp_mtu_floor(p->sa.ss_family);
	b = b > f ? b : f;
	return b < top(p) ? b : top(p);
}

static void arm(struct sctp_udp_peer *p, uint32_t ms)
{
	struct timeval tv = {(time_t)(ms / 1000), (suseconds_t)(ms % 1000) * 1000};
	event_add(p->plp.ev, &tv);
}

static uint64_t nonce(const struct sctp_udp *u, const struct sctp_udp_peer *p, uint32_t size,
                      uint32_t seq)
{
	uint8_t b[sizeof(p->sa) + 16];
	memcpy(b, "plpmtud", 8);
	memcpy(b + 8, &size, 4);
	memcpy(b + 12, &seq, 4);
	memcpy(b + 16, &p->sa, p->salen);
	return ddp_siphash24(u->hkey, b, 16 + (size_t)p->salen);
}

/* The association to probe over: a slot with both tags known that the
 * peer is known to hold (heard). */
static int pick_tags(struct sctp_udp *u, struct sctp_udp_peer *p)
{
	int ok = 0;
	pthread_mutex_lock(&u->qlock);
	for (int i = 0; i < SCTP_UDP_TAGS && !ok; i++)
		if (p->tags.e[i].used && !p->tags.e[i].init && p->tags.e[i].own &&
		    p->tags.e[i].heard) {
			p->plp.sport = p->tags.e[i].sport;
			p->plp.dport = p->tags.e[i].dport;
			p->plp.tag = p->tags.e[i].tag;
			p->plp.own = p->tags.e[i].own;
			ok = 1;
		}
	pthread_mutex_unlock(&u->qlock);
	return ok;
}

/* One probe of p->plp.size, straight to the socket (RFC 8899 §4.1: not
 * part of the association's data; lost ones are not resent by SCTP). */
static void send_probe(struct sctp_udp *u, struct sctp_udp_peer *p)
{
	struct sctp_probe pr;
	size_t len = p->plp.size - overhead(p);
	uint8_t *buf;
	ssize_t n;
	int e = 0;
	if (!pick_tags(u, p)) {
		arm(p, probe_ms);
		return;
	}
	buf = malloc(len);
	if (!buf) {
		arm(p, probe_ms);
		return;
	}
	pr.sport = p->plp.sport;
	pr.dport = p->plp.dport;
	pr.vtag = p->plp.tag;
	pr.size = p->plp.size;
	pr.seq = ++p->plp.seq;
	if (!p->plp.count)
		p->plp.seq0 = pr.seq;
	pr.nonce = nonce(u, p, pr.size, pr.seq);
	n = 0;
	if (sctp_probe_build(buf, len, &pr))
		for (int i = 0; i < SEND_TRIES; i++) {
			n = sendto(u->fd, buf, len, MSG_DONTWAIT, (struct sockaddr *)&p->sa,
			           p->salen);
			e = n < 0 ? errno : 0;
			/* IP_RECVERR: a send fails with the error of any ICMP
			 * report that came meanwhile (which anyone can forge),
			 * once: the next send goes; the error queue's reader
			 * (sctp_udp_rx.c) acts only on reports that quote our
			 * tag. An interface too small refuses every try. */
			if (n >= 0 || e == EAGAIN || e == EWOULDBLOCK)
				break;
		}
	free(buf);
	p->plp.count++;
	p->plp.sent_ms = sctp_udp_now_ms();
	u->c.probes_sent++;
	/* the interface itself refuses the size: failed without waiting */
	if (e == EMSGSIZE)
		p->plp.count = MAX_PROBES;
	arm(p, e == EMSGSIZE ? 1 : probe_ms);
}

static void probe(struct sctp_udp *u, struct sctp_udp_peer *p, uint32_t size)
{
	p->plp.size = size & ~3u;
	p->plp.count = 0;
	send_probe(u, p);
}

/* RFC 8899 §5.2: done searching; come back after the raise timer if the
 * interface allows more, else to confirm the size. */
static void complete(struct sctp_udp_peer *p)
{
	p->plp.state = PL_COMPLETE;
	p->plp.count = 0;
	arm(p, p->plp.confirmed < top(p) ? raise_ms : confirm_ms);
}

/* RFC 8899 §5.3.2: the next size of the search, or COMPLETE. */
static void search_next(struct sctp_udp *u, struct sctp_udp_peer *p)
{
	uint32_t t = top(p), next;
	p->plp.state = PL_SEARCHING;
	if (!p->plp.failed) {
		if (p->plp.confirmed >= t)
			return complete(p);
		return probe(u, p, t);
	}
	if (p->plp.failed <= p->plp.confirmed + SEARCH_STEP)
		return complete(p);
	next = (p->plp.confirmed + (p->plp.failed - p->plp.confirmed) / 2) & ~3u;
	if (next <= p->plp.confirmed)
		return complete(p);
	probe(u, p, next);
}

/* Put the path at mtu (a confirmed size, or the floor). */
static void use(struct sctp_udp *u, struct sctp_udp_peer *p, uint32_t mtu)
{
	p->plp.limited = 1;
	sctp_udp_mtu_probed(u, p, mtu);
}

/* MAX_PROBES probes of p->plp.size went unanswered (RFC 8899 §5.1.2). */
static void size_failed(struct sctp_udp *u, struct sctp_udp_peer *p)
{
	u->c.probes_failed++;
	switch (p->plp.state) {
	case PL_BASE:
	case PL_ERROR:
		/* §5.2: even BASE fails: the floor, keep the association */
		p->plp.state = PL_ERROR;
		p->plp.confirmed = 0;
		use(u, p, sctp_udp_mtu_floor(p->sa.ss_family));
		probe(u, p, base_size(p));
		return;
	case PL_SEARCHING:
		/* §4.3: black hole: back to what was confirmed */
		p->plp.failed = p->plp.size;
		if (p->mtu > p->plp.confirmed)
			use(u, p, p->plp.confirmed);
		p->plp.limited = 1;
		search_next(u, p);
		return;
	default:
		/* §5.2: the confirmed size no longer gets through */
		p->plp.failed = p->plp.size;
		p->plp.confirmed = 0;
		use(u, p, base_size(p));
		p->plp.state = PL_BASE;
		probe(u, p, base_size(p));
	}
}

static void acked(struct sctp_udp *u, struct sctp_udp_peer *p)
{
	uint32_t s = p->plp.size;
	u->c.probes_acked++;
	event_del(p->plp.ev);
	p->plp.count = 0;
	if (s > p->plp.confirmed)
		p->plp.confirmed = s;
	if (p->plp.failed && p->plp.failed <= s)
		p->plp.failed = 0;
	/* a size is proven: used if the path follows probes (a failure or
	 * a verified ICMP), never above the proof */
	if (p->plp.limited && p->mtu != s)
		sctp_udp_mtu_probed(u, p, s);
	if (p->plp.state == PL_COMPLETE)
		return complete(p);
	search_next(u, p);
}

static void timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct sctp_udp_peer *p = arg;
	struct sctp_udp *u = p->u;
	(void)fd;
	(void)what;
	if (!p->refs) {
		/* no association: probing resumes with the next one */
		p->plp.state = PL_OFF;
		return;
	}
	if (p->plp.state == PL_COMPLETE && !p->plp.count) {
		/* PMTU_RAISE_TIMER: search upwards; CONFIRMATION_TIMER:
		 * the current size once more */
		if (p->plp.confirmed < top(p)) {
			p->plp.failed = 0;
			return search_next(u, p);
		}
		return probe(u, p, p->plp.confirmed);
	}
	if (p->plp.count >= MAX_PROBES)
		return size_failed(u, p);
	send_probe(u, p);
}

static void start(struct sctp_udp *u, struct sctp_udp_peer *p)
{
	if (!p->plp.ev) {
		if (!u->rd)
			return;
		p->plp.ev = evtimer_new(event_get_base(u->rd), timer_cb, p);
		if (!p->plp.ev)
			return;
	}
	if (!pick_tags(u, p))
		return;
	p->plp.state = PL_BASE;
	p->plp.confirmed = 0;
	probe(u, p, base_size(p));
}

/* Is a's acknowledgement the answer to the probe in flight? */
static int genuine(const struct sctp_udp *u, const struct sctp_udp_peer *p,
                   const struct sctp_probe *a)
{
	return p->plp.state != PL_OFF && p->plp.count && a->vtag == p->plp.own &&
	       a->sport == p->plp.dport && a->dport == p->plp.sport && a->size == p->plp.size &&
	       a->seq >= p->plp.seq0 && a->seq <= p->plp.seq &&
	       a->nonce == nonce(u, p, a->size, a->seq);
}

/* May a packet from p now carry the HEARTBEAT ACK of one of our probes?
 * Only while a probe of p is unanswered (count), or within PROBE_TIMER of
 * the last probe sent: the time this file itself waits for an answer
 * before it counts a probe lost (RFC 8899 §5.1.1), so the answer to every
 * probe in flight lands in it, and so does a second answer to a size just
 * acknowledged (two probes of it were out), which is still taken out.
 * Every other packet goes to usrsctp without a walk of its chunks. An
 * answer later than that goes to usrsctp as it came, which does not take
 * it for one of its own heartbeats: sctp_process_control (its
 * SCTP_HEARTBEAT_ACK case) discards a HEARTBEAT ACK whose length is not
 * that of usrsctp's own heartbeat chunk, and ours (SCTP_PROBE_HB_LEN) is
 * shorter; sctp_handle_heartbeat_ack, behind it, checks the same length
 * first and then wants the Heartbeat Info to name one of the association's
 * addresses. usrsctp reads no further chunks of that packet: a lone
 * answer (as a peer sends it when it has nothing else to send) costs
 * nothing; chunks bundled behind it are lost to usrsctp, which SCTP's
 * retransmission repairs as for a lost packet. p->last_ms is this
 * packet's arrival (sctp_udp_classify). */
static int ack_possible(const struct sctp_udp_peer *p)
{
	return p->plp.count || (p->plp.sent_ms && p->last_ms < p->plp.sent_ms + probe_ms);
}

int sctp_udp_plpmtud_input(struct sctp_udp *u, struct sctp_udp_peer *p, uint8_t *b, size_t *n)
{
	struct sctp_probe a;
	size_t off, clen;
	enum sctp_probe_ack r;
	pthread_mutex_lock(&u->qlock);
	if (*n > SCTP_COMMON_HDR && b[SCTP_COMMON_HDR] == 10 /* COOKIE ECHO */)
		sctp_udp_tags_cookie_echo(&p->tags, b, *n);
	else
		sctp_udp_tags_heard(&p->tags, b, *n);
	pthread_mutex_unlock(&u->qlock);
	if (p->plp.state == PL_OFF && p->refs)
		start(u, p);
	if (!ack_possible(p))
		return 0;
	r = sctp_probe_ack_parse(b, *n, &a, &off, &clen);
	if (r == SCTP_PROBE_NONE)
		return 0;
	if (r == SCTP_PROBE_ACK && genuine(u, p, &a))
		acked(u, p);
	else
		u->c.probe_bad_acks++;
	if (*n - clen <= SCTP_COMMON_HDR)
		return 1;
	memmove(b + off, b + off + clen, *n - off - clen);
	*n -= clen;
	return 0;
}

/* RFC 8899 §4.6.2: a PTB that quotes our tag lowers the path at once; the
 * probes may take it back up after PMTU_RAISE_TIMER. */
void sctp_udp_plpmtud_ptb(struct sctp_udp *u, struct sctp_udp_peer *p, uint32_t mtu)
{
	uint32_t old = sctp_udp_mtu_lower(u, p, mtu);
	if (!old)
		return;
	p->plp.limited = 1;
	if (p->plp.confirmed > p->mtu)
		p->plp.confirmed = p->mtu & ~3u;
	p->plp.failed = old & ~3u;
	/* RFC 8899 §4.6.2: the search waits PMTU_RAISE_TIMER */
	if (p->plp.ev && (p->plp.state == PL_SEARCHING || p->plp.state == PL_COMPLETE)) {
		event_del(p->plp.ev);
		complete(p);
	}
}

void sctp_udp_peer_mtu_drop(struct sctp_udp_peer *p, uint32_t mtu)
{
	if (p->u)
		sctp_udp_plpmtud_ptb(p->u, p, mtu);
}

void sctp_udp_plpmtud_free(struct sctp_udp_peer *p)
{
	if (p->plp.ev)
		event_free(p->plp.ev);
	p->plp.ev = NULL;
}
