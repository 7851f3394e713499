/*
 * The connections of one MPA listener, for its caps on established
 * connections in total and per source address (ddp_mpa_config.max_conns,
 * max_conns_per_addr): a list ordered by last activity, least recent
 * first, so the connection to evict at a cap is found from its head.
 * Calls nothing of the glue but the clock: mpa_tcp.c (activity, end of a
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

/* Past the MPA start-up and not ended (a connection being freed has
 * closed its socket already): what the caps count. */
static int established(const ddp_mpa_conn *c)
{
	return !c->finished && c->fd >= 0 && c->mc && !mpa_proto_starting(c->mc);
}

unsigned mpa_conns_count(const struct startup_count *sc, const struct mpa_src *src)
{
	unsigned n = 0;
	for (const ddp_mpa_conn *c = sc->lru_head; c; c = c->lru_next)
		if (established(c) && (!src || same_src(&c->src, src)))
			n++;
	return n;
}

ddp_mpa_conn *mpa_conns_idle(const struct startup_count *sc, const struct mpa_src *src,
                             uint64_t now)
{
	for (ddp_mpa_conn *c = sc->lru_head; c; c = c->lru_next) {
		if (c->active_ms + MPA_TCP_IDLE_MS > now)
			return NULL; /* this one and all after it were active */
		if (established(c) && (!src || same_src(&c->src, src)))
			return c;
	}
	return NULL;
}
