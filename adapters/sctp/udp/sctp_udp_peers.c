/*
 * The peer table of our UDP socket: state only for proven peers.
 *
 * SCTP's handshake keeps the listener stateless until the COOKIE ECHO
 * returns its signed cookie (RFC 9260 §5.1, §5.1.3): an INIT costs the
 * answer and nothing that stays. This table keeps to that. A datagram
 * from an unknown source goes up to usrsctp only when it is a valid SCTP
 * packet that may start an association: long enough, CRC32c correct
 * (checked by the caller) and either a lone INIT chunk with verification
 * tag 0 (RFC 9260 §8.5.1, §3.3.2: INIT MUST be alone and carry tag 0) or a
 * packet that starts with a COOKIE ECHO. It gets a peer on probation (an
 * id that usrsctp's answer is addressed to) for the length of the read
 * batch; then the answer is sent and the peer freed, unless usrsctp
 * answered with a COOKIE ACK (the cookie checked out: the association
 * exists). So spoofed INITs and forged cookies leave nothing behind and
 * spend nothing a real client needs. A packet with any other tag from an
 * unknown source cannot belong to one of our associations (in AF_CONN
 * mode each association has exactly the one address its UDP source gave
 * it), so it is dropped without state.
 *
 * Lookup by address and by id is O(1) (two hash tables that double as
 * they fill). usrsctp knows a peer by its id, not by its pointer: an SCTP
 * packet usrsctp still emits for a peer we freed (graceful shutdown
 * finishing inside usrsctp) finds no peer and is dropped instead of
 * touching freed memory. The id is the source address's keyed hash, so a
 * source has the same id whenever it is a peer (peer_id): usrsctp's
 * cookie names the INIT's source by it, and the COOKIE ECHO, which comes
 * to a new peer after the INIT's peer was freed, must come from the same
 * one; a packet usrsctp emits for a freed peer whose source has become a
 * peer again goes to that same address. Ids are process-wide because usrsctp's
 * output callback is (several endpoints share one usrsctp stack); so is
 * the id table, behind g_ids.lock: usrsctp's output callback looks peers
 * up from whichever thread called into usrsctp. A peer found there stays
 * valid while that thread holds the usrsctp glue's lock, because
 * peer_free unlinks it, then deregisters its address through the glue
 * (which takes that lock), and only then drops its queued packets and
 * frees it.
 *
 * Peers are referenced by associations (sctp_udp_peer_ref); an
 * unreferenced peer sits on an LRU idle list and expires PEER_IDLE_MS after
 * its last datagram or reference; at most PEER_IDLE_MAX idle peers exist
 * (the oldest is freed first).
 */
#include "sctp/udp/sctp_udp_int.h"

#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/crc32c.h"
#include "common/siphash.h"
#include "cursor.h"

#define SCTP_CHUNK_INIT        1
#define SCTP_CHUNK_COOKIE_ECHO 10
#define SCTP_CHUNK_COOKIE_ACK  11
#define SCTP_INIT_LEN          20 /* RFC 4960 §3.3.2: fixed part of INIT */
#define SCTP_CHUNK_HDR         4

static struct {
	pthread_mutex_t lock;
	struct sctp_udp_peer **tab;
	size_t cap, n;
} g_ids = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Keyed (SipHash-2-4, a random key per socket): sources are chosen by
 * whoever sends us datagrams; with an unkeyed hash they can be picked to
 * share one bucket and turn every lookup into a walk of one long chain. */
static size_t hash_addr(const struct sctp_udp *u, const struct sockaddr_storage *sa)
{
	uint8_t k[2 + 2 + 16];
	size_t n;
	memset(k, 0, sizeof(k));
	k[0] = (uint8_t)sa->ss_family;
	if (sa->ss_family == AF_INET) {
		const struct sockaddr_in *s = (const void *)sa;
		memcpy(k + 2, &s->sin_port, 2);
		memcpy(k + 4, &s->sin_addr, 4);
		n = 8;
	} else {
		const struct sockaddr_in6 *s = (const void *)sa;
		memcpy(k + 2, &s->sin6_port, 2);
		memcpy(k + 4, &s->sin6_addr, 16);
		n = 20;
	}
	return (size_t)ddp_siphash24(u->hkey, k, n);
}

static size_t hash_id(uintptr_t id)
{
	uint64_t h = (uint64_t)id * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 17);
}

static int same_addr(const struct sockaddr_storage *a, socklen_t al,
                     const struct sockaddr_storage *b, socklen_t bl)
{
	if (al != bl || a->ss_family != b->ss_family)
		return 0;
	if (a->ss_family == AF_INET) {
		const struct sockaddr_in *x = (const void *)a, *y = (const void *)b;
		return x->sin_port == y->sin_port && x->sin_addr.s_addr == y->sin_addr.s_addr;
	}
	const struct sockaddr_in6 *x = (const void *)a, *y = (const void *)b;
	return x->sin6_port == y->sin6_port && memcmp(&x->sin6_addr, &y->sin6_addr, 16) == 0;
}

/* ------------------------------------------------------------ tables */

static int grow_addr(struct sctp_udp *u)
{
	size_t cap = u->pcap ? u->pcap * 2 : 64;
	struct sctp_udp_peer **t = calloc(cap, sizeof(*t));
	if (!t)
		return -1;
	for (size_t i = 0; i < u->pcap; i++)
		while (u->ptab[i]) {
			struct sctp_udp_peer *p = u->ptab[i];
			u->ptab[i] = p->next;
			size_t h = hash_addr(u, &p->sa) & (cap - 1);
			p->next = t[h];
			t[h] = p;
		}
	free(u->ptab);
	u->ptab = t;
	u->pcap = cap;
	return 0;
}

/* Under g_ids.lock. */
static int grow_ids(void)
{
	size_t cap = g_ids.cap ? g_ids.cap * 2 : 64;
	struct sctp_udp_peer **t = calloc(cap, sizeof(*t));
	if (!t)
		return -1;
	for (size_t i = 0; i < g_ids.cap; i++)
		while (g_ids.tab[i]) {
			struct sctp_udp_peer *p = g_ids.tab[i];
			g_ids.tab[i] = p->id_next;
			size_t h = hash_id(p->id) & (cap - 1);
			p->id_next = t[h];
			t[h] = p;
		}
	free(g_ids.tab);
	g_ids.tab = t;
	g_ids.cap = cap;
	return 0;
}

struct sctp_udp_peer *sctp_udp_peer_find(struct sctp_udp *u, const struct sockaddr_storage *sa,
                                         socklen_t salen)
{
	u->c.peer_lookups++;
	if (!u->pcap)
		return NULL;
	for (struct sctp_udp_peer *p = u->ptab[hash_addr(u, sa) & (u->pcap - 1)]; p; p = p->next) {
		u->c.peer_probes++;
		if (same_addr(&p->sa, p->salen, sa, salen))
			return p;
	}
	return NULL;
}

struct sctp_udp_peer *sctp_udp_peer_by_id(const void *id)
{
	uintptr_t v = (uintptr_t)id;
	struct sctp_udp_peer *p = NULL;
	if (!v)
		return NULL;
	pthread_mutex_lock(&g_ids.lock);
	if (g_ids.cap)
		for (p = g_ids.tab[hash_id(v) & (g_ids.cap - 1)]; p; p = p->id_next)
			if (p->id == v)
				break;
	pthread_mutex_unlock(&g_ids.lock);
	return p;
}

void *sctp_udp_peer_conn_addr(const struct sctp_udp_peer *p)
{
	return (void *)p->id;
}

/* ------------------------------------------------------------ idle LRU */

static void idle_unlink(struct sctp_udp *u, struct sctp_udp_peer *p)
{
	if (p->idle_prev)
		p->idle_prev->idle_next = p->idle_next;
	else
		u->idle_head = p->idle_next;
	if (p->idle_next)
		p->idle_next->idle_prev = p->idle_prev;
	else
		u->idle_tail = p->idle_prev;
	p->idle_prev = p->idle_next = NULL;
	u->nidle--;
}

static void idle_append(struct sctp_udp *u, struct sctp_udp_peer *p)
{
	p->idle_prev = u->idle_tail;
	p->idle_next = NULL;
	if (u->idle_tail)
		u->idle_tail->idle_next = p;
	else
		u->idle_head = p;
	u->idle_tail = p;
	u->nidle++;
}

/* A datagram from p: an idle peer's clock starts again. */
void sctp_udp_peer_touch(struct sctp_udp *u, struct sctp_udp_peer *p, uint64_t now)
{
	p->last_ms = now;
	if (!p->refs && u->idle_tail != p) {
		idle_unlink(u, p);
		idle_append(u, p);
	}
}

/* ------------------------------------------------------------ life */

static void unlink_tables(struct sctp_udp *u, struct sctp_udp_peer *p)
{
	struct sctp_udp_peer **pp = &u->ptab[hash_addr(u, &p->sa) & (u->pcap - 1)];
	while (*pp && *pp != p)
		pp = &(*pp)->next;
	if (*pp)
		*pp = p->next;
	u->npeers--;
	pthread_mutex_lock(&g_ids.lock);
	pp = &g_ids.tab[hash_id(p->id) & (g_ids.cap - 1)];
	while (*pp && *pp != p)
		pp = &(*pp)->id_next;
	if (*pp)
		*pp = p->id_next;
	g_ids.n--;
	if (!g_ids.n) {
		free(g_ids.tab);
		g_ids.tab = NULL;
		g_ids.cap = 0;
	}
	pthread_mutex_unlock(&g_ids.lock);
}

static void trans_unlink(struct sctp_udp *u, struct sctp_udp_peer *p)
{
	if (p->trans_prev)
		p->trans_prev->trans_next = p->trans_next;
	else
		u->trans_head = p->trans_next;
	if (p->trans_next)
		p->trans_next->trans_prev = p->trans_prev;
	p->trans_prev = p->trans_next = NULL;
	p->transient = 0;
	u->ntrans--;
}

/* Free p: usrsctp forgets its address (ops->peer_free), then queued
 * datagrams to it are dropped (they would name a freed address). In that
 * order: once unlinked and deregistered no thread can queue more for it. */
static void peer_free(struct sctp_udp *u, struct sctp_udp_peer *p)
{
	struct pkt **kp;
	if (!p->refs)
		idle_unlink(u, p);
	if (p->transient)
		trans_unlink(u, p);
	unlink_tables(u, p);
	if (u->ops.peer_free)
		u->ops.peer_free(u->user, p);
	pthread_mutex_lock(&u->qlock);
	kp = &u->q_head;
	u->q_tail = NULL;
	while (*kp) {
		struct pkt *k = *kp;
		if (k->peer == p) {
			*kp = k->next;
			free(k);
			u->qlen--;
			continue;
		}
		u->q_tail = k;
		kp = &k->next;
	}
	pthread_mutex_unlock(&u->qlock);
	if (u->held && u->held->peer == p) {
		free(u->held);
		u->held = NULL;
	}
	sctp_udp_plpmtud_free(p);
	free(p);
}

/* Under g_ids.lock: the id of a peer at sa, the address's keyed hash
 * (never 0, unique: a hash that names another socket's peer is moved on). */
static uintptr_t peer_id(const struct sctp_udp *u, const struct sockaddr_storage *sa)
{
	uintptr_t id = (uintptr_t)hash_addr(u, sa);
	for (;;) {
		struct sctp_udp_peer *q = NULL;
		if (id)
			for (q = g_ids.tab[hash_id(id) & (g_ids.cap - 1)]; q; q = q->id_next)
				if (q->id == id)
					break;
		if (id && !q)
			return id;
		id++;
	}
}

struct sctp_udp_peer *sctp_udp_peer_add(struct sctp_udp *u, const struct sockaddr_storage *sa,
                                        socklen_t salen)
{
	struct sctp_udp_peer *p;
	size_t h;
	if (u->npeers + 1 > u->pcap && grow_addr(u))
		return NULL;
	/* the oldest idle peer makes room (a flood of valid INITs) */
	if (u->nidle >= PEER_IDLE_MAX) {
		u->c.peers_evicted++;
		peer_free(u, u->idle_head);
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->u = u;
	memcpy(&p->sa, sa, salen);
	p->salen = salen;
	p->last_ms = sctp_udp_now_ms();
	sctp_udp_mtu_init(u, p);
	pthread_mutex_lock(&g_ids.lock);
	if (g_ids.n + 1 > g_ids.cap && grow_ids()) {
		pthread_mutex_unlock(&g_ids.lock);
		free(p);
		return NULL;
	}
	p->id = peer_id(u, sa);
	h = hash_id(p->id) & (g_ids.cap - 1);
	p->id_next = g_ids.tab[h];
	g_ids.tab[h] = p;
	g_ids.n++;
	pthread_mutex_unlock(&g_ids.lock);
	h = hash_addr(u, sa) & (u->pcap - 1);
	p->next = u->ptab[h];
	u->ptab[h] = p;
	u->npeers++;
	idle_append(u, p);
	return p;
}

void sctp_udp_peer_ref(struct sctp_udp_peer *p)
{
	if (p->transient && p->u)
		trans_unlink(p->u, p);
	p->ever_ref = 1;
	if (p->u && p->refs++ == 0)
		idle_unlink(p->u, p);
}

void sctp_udp_peer_unref(struct sctp_udp_peer *p)
{
	if (!p->u || !p->refs || --p->refs)
		return;
	p->last_ms = sctp_udp_now_ms();
	idle_append(p->u, p);
}

/* Expire idle peers (called about once a second): one that an
 * association used after peer_idle_ms, one that none ever used (a handshake
 * that did not complete, or a spoofed source's INIT) after
 * PEER_HANDSHAKE_MS, so a flood of spoofed INITs keeps few peers. The list is
 * in last_ms order: the walk stops at the first peer younger than the
 * shorter lifetime. */
void sctp_udp_peers_sweep(struct sctp_udp *u, uint64_t now)
{
	uint32_t hs = PEER_HANDSHAKE_MS < u->peer_idle_ms ? PEER_HANDSHAKE_MS : u->peer_idle_ms;
	struct sctp_udp_peer *p = u->idle_head;
	while (p && now - p->last_ms >= hs) {
		struct sctp_udp_peer *n = p->idle_next;
		if (!p->ever_ref || now - p->last_ms >= u->peer_idle_ms) {
			u->c.peers_expired++;
			peer_free(u, p);
		}
		p = n;
	}
}

void sctp_udp_peers_free_all(struct sctp_udp *u)
{
	for (size_t i = 0; i < u->pcap; i++)
		while (u->ptab[i]) {
			struct sctp_udp_peer *p = u->ptab[i];
			if (p->refs) { /* associations die with the socket */
				p->refs = 0;
				idle_append(u, p);
			}
			peer_free(u, p);
		}
	free(u->ptab);
	u->ptab = NULL;
	u->pcap = 0;
}

/* RFC 4960 §8.5.1 / §3.3.2 / §5.1: may this packet (CRC already
 * verified) from an unknown source go up to usrsctp on probation? Only a
 * lone INIT with verification tag 0, or a COOKIE ECHO first (usrsctp
 * checks its signature; RFC 9260 §5.1 allows DATA bundled after it). */
int sctp_udp_proves_peer(const uint8_t *b, size_t n)
{
	uint64_t ports, vtag, csum, type, flags, clen;
	if (n < SCTP_COMMON_HDR + SCTP_CHUNK_HDR)
		return 0;
	/* common header: ports, verification tag, checksum; then a chunk
	 * header: type, flags, length */
	struct rcur c = rc_init(b, n);
	if (rc_get_be(&c, 4, &ports) || rc_get_be(&c, 4, &vtag) || rc_get_be(&c, 4, &csum) ||
	    rc_get_be(&c, 1, &type) || rc_get_be(&c, 1, &flags) || rc_get_be(&c, 2, &clen))
		return 0;
	if (clen < SCTP_CHUNK_HDR || clen > n - SCTP_COMMON_HDR)
		return 0;
	if (type == SCTP_CHUNK_COOKIE_ECHO)
		return vtag != 0 && clen > SCTP_CHUNK_HDR;
	if (vtag != 0 || type != SCTP_CHUNK_INIT || clen < SCTP_INIT_LEN)
		return 0;
	/* nothing but padding after the INIT chunk */
	return n - SCTP_COMMON_HDR - clen < 4;
}

int sctp_udp_is_cookie_ack(const uint8_t *b, size_t n)
{
	struct rcur c = rc_init(b, n);
	uint64_t type, flags, clen;
	if (rc_skip(&c, SCTP_COMMON_HDR))
		return 0;
	while (!rc_get_be(&c, 1, &type) && !rc_get_be(&c, 1, &flags) && !rc_get_be(&c, 2, &clen)) {
		if (type == SCTP_CHUNK_COOKIE_ACK)
			return 1;
		/* the chunk's value and padding (RFC 9260 §3.2) */
		if (clen < SCTP_CHUNK_HDR ||
		    rc_skip(&c, (((size_t)clen + 3) & ~(size_t)3) - SCTP_CHUNK_HDR))
			return 0;
	}
	return 0;
}

/* CRC32c check (RFC 4960 §6.8); the checksum field is left as it was. */
int sctp_udp_crc_ok(uint8_t *b, size_t n)
{
	uint32_t want, got;
	if (n < SCTP_COMMON_HDR)
		return 0;
	want = ddp_crc32c_get_wire(b + SCTP_CSUM_OFF);
	memset(b + SCTP_CSUM_OFF, 0, 4);
	got = ddp_crc32c(0, b, n);
	ddp_crc32c_put_wire(b + SCTP_CSUM_OFF, want);
	return got == want;
}

static void trans_append(struct sctp_udp *u, struct sctp_udp_peer *p)
{
	p->transient = 1;
	p->trans_prev = NULL;
	p->trans_next = u->trans_head;
	if (u->trans_head)
		u->trans_head->trans_prev = p;
	u->trans_head = p;
	u->ntrans++;
}

void sctp_udp_peers_settle(struct sctp_udp *u)
{
	if (!u->trans_head)
		return;
	sctp_udp_flush(u); /* the answers leave before their peers go */
	while (u->trans_head) {
		struct sctp_udp_peer *p = u->trans_head;
		trans_unlink(u, p);
		if (!p->proven && !p->refs && !p->ever_ref)
			peer_free(u, p);
	}
}

/* Every datagram, in this order (RFC 4960 §6.8): the CRC32c
 * first, so junk costs a CRC and nothing else (no lookup, no state); then
 * the source's peer (one keyed-hash lookup); an unknown source gets a peer
 * on probation only with a lone INIT or a COOKIE ECHO on a socket that
 * learns. */
enum sctp_udp_verdict sctp_udp_classify(struct sctp_udp *u, const struct sockaddr_storage *sa,
                                        socklen_t salen, uint8_t *b, size_t n,
                                        struct sctp_udp_peer **out)
{
	struct sctp_udp_peer *p;
	*out = NULL;
	if (!sctp_udp_crc_ok(b, n)) {
		u->c.bad_crc++;
		return SCTP_UDP_BAD_CRC;
	}
	p = sctp_udp_peer_find(u, sa, salen);
	if (p) {
		/* last_ms also tells a dead-peer check when the peer was last
		 * heard (dead_peer_check) */
		sctp_udp_peer_touch(u, p, sctp_udp_now_ms());
		*out = p;
		return SCTP_UDP_KNOWN;
	}
	if (!sctp_udp_proves_peer(b, n) || !(u->ops.learn && u->ops.learn(u->user))) {
		u->c.rx_unproven++;
		return SCTP_UDP_UNPROVEN;
	}
	if (u->ntrans >= PEER_TRANSIENT_MAX) {
		u->c.init_limited++;
		return SCTP_UDP_UNPROVEN;
	}
	p = sctp_udp_peer_add(u, sa, salen);
	if (!p) {
		u->c.rx_unproven++;
		return SCTP_UDP_NOMEM;
	}
	trans_append(u, p);
	*out = p;
	return SCTP_UDP_NEW;
}

size_t sctp_udp_peer_max_chain(const struct sctp_udp *u)
{
	size_t most = 0;
	for (size_t i = 0; i < u->pcap; i++) {
		size_t k = 0;
		for (const struct sctp_udp_peer *p = u->ptab[i]; p; p = p->next)
			k++;
		if (k > most)
			most = k;
	}
	return most;
}
