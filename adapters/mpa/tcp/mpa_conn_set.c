/*
 * The connections of one MPA listener, for its caps on connections in
 * total and per source address (ddp_mpa_config.max_conns,
 * max_conns_per_addr): a list ordered by last activity, least recent
 * first, so the connection to evict at a cap is found from its head; and
 * which of them are stalled (their peer takes nothing of what we send),
 * the first to go. Calls nothing of the glue but the clock and the send
 * queue's size: mpa_tcp.c (activity, the liveness check, end of a
 * connection) and mpa_listener.c (the caps) call it. The list holds a
 * reference to the listener's shared count per connection; the caller of
 * mpa_conns_remove drops it (mpa_tcp_startup_put).
 */
#include "mpa/tcp/mpa_tcp_int.h"

#include "dlist.h"

#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

void mpa_conns_src(const struct sockaddr *sa, struct mpa_src *out)
{
	memset(out, 0, sizeof(*out));
	if (sa->sa_family == AF_INET) {
		memcpy(out->a, &((const struct sockaddr_in *)sa)->sin_addr, 4);
		out->len = 4;
	} else if (sa->sa_family == AF_INET6) {
		const uint8_t *a = ((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr;
		static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
		if (memcmp(a, mapped, 12) == 0) { /* ::ffff:a.b.c.d is a.b.c.d */
			memcpy(out->a, a + 12, 4);
			out->len = 4;
		} else {
			memcpy(out->a, a, 16);
			out->len = 16;
		}
	}
}

static int same_src(const struct mpa_src *x, const struct mpa_src *y)
{
	return x->len == y->len && memcmp(x->a, y->a, x->len) == 0;
}

static void unlink_conn(struct startup_count *sc, ddp_mpa_conn *c)
{
	DLIST_UNLINK_T(sc->lru_head, sc->lru_tail, c, lru_prev, lru_next);
}

static void append(struct startup_count *sc, ddp_mpa_conn *c)
{
	DLIST_APPEND_T(sc->lru_head, sc->lru_tail, c, lru_prev, lru_next);
}

void mpa_conns_add(struct startup_count *sc, ddp_mpa_conn *c, const struct mpa_src *src)
{
	c->lc = sc;
	sc->refs++;
	c->src = *src;
	c->active_ms = mpa_tcp_mono_ms();
	append(sc, c);
}

struct startup_count *mpa_conns_remove(ddp_mpa_conn *c)
{
	struct startup_count *sc = c->lc;
	if (!sc)
		return NULL;
	unlink_conn(sc, c);
	c->lc = NULL;
	return sc;
}

void mpa_conns_touch(ddp_mpa_conn *c)
{
	struct startup_count *sc = c->lc;
	if (!sc)
		return;
	c->active_ms = mpa_tcp_mono_ms();
	if (sc->lru_tail != c) {
		unlink_conn(sc, c);
		append(sc, c);
	}
}

/* Holds a slot of the caps: not ended (a connection being freed has
 * closed its socket already), in start-up or past it. */
static int counted(const ddp_mpa_conn *c)
{
	return !c->finished && c->fd >= 0 && c->mc && !c->life.closing;
}

static int starting(const ddp_mpa_conn *c)
{
	return mpa_proto_starting(c->mc);
}

unsigned mpa_conns_count(const struct startup_count *sc, const struct mpa_src *src)
{
	unsigned n = 0;
	for (const ddp_mpa_conn *c = sc->lru_head; c; c = c->lru_next)
		if (counted(c) && (!src || same_src(&c->src, src)))
			n++;
	return n;
}

/*
 * Whether the peer takes what we send. The octets it acknowledged are
 * the octets the kernel took from us less what its send queue still holds
 * (TIOCOUTQ: sent and unacknowledged, or not sent yet); they grow as the
 * peer reads, and stop while its receive window stays closed. Each
 * liveness check (mpa_tcp.c on_live, at most 1 s apart) compares them with
 * the check before while octets wait for the peer, in the kernel or in our
 * FPDU queue. The first check that sees octets wait does not judge: the
 * peer took what it had room for when they were sent, which says nothing
 * of whether it reads.
 */
void mpa_conns_check_drain(ddp_mpa_conn *c, uint64_t outq, uint64_t now)
{
	uint64_t acked = c->tx_octets - outq;
	int waiting = outq > 0 || mpa_proto_queued(c->mc) > 0;
	if (!waiting)
		c->drain = MPA_DRAIN_EMPTY;
	else if (c->drain == MPA_DRAIN_EMPTY)
		c->drain = MPA_DRAIN_NEW, c->took_ms = now;
	else if (acked != c->acked_seen)
		c->drain = MPA_DRAIN_OK, c->took_ms = now;
	else
		c->drain = MPA_DRAIN_NONE;
	c->acked_seen = acked;
	c->tx_seen = c->tx_octets;
}

/* Stalled: octets wait for the peer and it took none of them for
 * MPA_TCP_IDLE_MS (a zero window: it does not read). */
static int stalled(const ddp_mpa_conn *c, uint64_t now)
{
	return c->drain == MPA_DRAIN_NONE && now - c->took_ms >= MPA_TCP_IDLE_MS;
}

/* Not yet known to take what it is sent: octets wait and the checks have
 * not seen it take any (judged at the next check), or octets went out
 * since the last check and some wait now. */
static int judging(const ddp_mpa_conn *c)
{
	if (c->drain == MPA_DRAIN_NEW || c->drain == MPA_DRAIN_NONE)
		return 1;
	if (c->drain == MPA_DRAIN_OK)
		return 0;
	return mpa_proto_queued(c->mc) > 0 || (c->tx_octets != c->tx_seen && mpa_tcp_outq(c) > 0);
}

static int quiet(const ddp_mpa_conn *c, uint64_t now)
{
	return c->active_ms + MPA_TCP_IDLE_MS <= now;
}

/*
 * The victim at a cap, least recently active first:
 *  1. a connection still in MPA start-up that the application has not
 *     seen (half-open, slowloris), or an established one that is stalled
 *     and quiet (nothing read or written for MPA_TCP_IDLE_MS);
 *  2. only when no connection is stalled (quiet or not) or being judged
 *     (judging above): an established, quiet one. It reads what it is
 *     sent, so it is well-behaved: it never makes room for a flood while
 *     a stalled connection exists, nor while a new one might turn out to
 *     be stalled.
 * Otherwise none: the new connection is refused. A stalled peer that
 * keeps sending is not taken (it is active), but it blocks 2.
 */
ddp_mpa_conn *mpa_conns_victim(const struct startup_count *sc, const struct mpa_src *src,
                               uint64_t now, enum mpa_victim *why)
{
	ddp_mpa_conn *idle = NULL;
	int blocked = 0;
	for (ddp_mpa_conn *c = sc->lru_head; c; c = c->lru_next) {
		if (!counted(c) || (src && !same_src(&c->src, src)))
			continue;
		if (starting(c)) {
			if (!c->app_owned) {
				*why = MPA_VICTIM_STARTUP;
				return c;
			}
			continue; /* its Request waits for the application */
		}
		if (stalled(c, now) && quiet(c, now)) {
			*why = MPA_VICTIM_STALLED;
			return c;
		}
		if (blocked)
			continue;
		if (judging(c))
			blocked = 1;
		else if (!idle && quiet(c, now))
			idle = c;
	}
	if (blocked || !idle)
		return NULL;
	*why = MPA_VICTIM_IDLE;
	return idle;
}
