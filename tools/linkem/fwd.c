/*
 * One direction: read packets from one TUN device, pass each wire packet
 * through the model (path.c), hold what survives in a min-heap keyed on its
 * release time and write it to the other TUN device when that time comes.
 * A super-packet whose wire packets all share one fate stays whole; otherwise
 * it is cut into runs (seg.c). Reads are batched until EAGAIN; the thread
 * sleeps in ppoll until the next release or the next packet.
 */
#include "linkem.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SMALL_BUF   2048
#define BIG_BUF     (LK_VNET_HDR_LEN + 65536 + 128)
#define READ_BATCH  64
#define MAX_INFLIGHT (512u << 20) /* octets held in the delay line */

#define ADD(x, v) __atomic_store_n(&(x), (x) + (v), __ATOMIC_RELAXED)

struct item {
	uint64_t t;   /* release time */
	uint64_t ord; /* insertion order: FIFO among equal times */
	uint64_t seq; /* wire sequence number of its first packet */
	uint8_t *buf;
	uint32_t len;
	uint32_t nseg;
	uint32_t wire; /* IP octets of its wire packets */
	uint8_t big;
	uint8_t dup;
};

struct pool {
	uint8_t **v;
	size_t n, cap, size;
};

struct lk_fwd {
	int in, out, stop_fd;
	struct lk_path p;
	struct item *heap;
	size_t n, cap;
	struct pool small, big;
	uint8_t *scratch;
	uint64_t seq, ord, max_end;
	size_t inflight;
};

uint64_t lk_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint8_t *pool_get(struct pool *pl)
{
	if (pl->n)
		return pl->v[--pl->n];
	return malloc(pl->size);
}

static void pool_put(struct pool *pl, uint8_t *b)
{
	if (pl->n == pl->cap) {
		size_t nc = pl->cap ? pl->cap * 2 : 256;
		uint8_t **nv = realloc(pl->v, nc * sizeof *nv);
		if (!nv) {
			free(b);
			return;
		}
		pl->v = nv;
		pl->cap = nc;
	}
	pl->v[pl->n++] = b;
}

static void pool_free(struct pool *pl)
{
	for (size_t i = 0; i < pl->n; i++)
		free(pl->v[i]);
	free(pl->v);
}

static int before(const struct item *a, const struct item *b)
{
	return a->t < b->t || (a->t == b->t && a->ord < b->ord);
}

static int heap_push(struct lk_fwd *f, const struct item *it)
{
	if (f->n == f->cap) {
		size_t nc = f->cap ? f->cap * 2 : 1024;
		struct item *nh = realloc(f->heap, nc * sizeof *nh);
		if (!nh)
			return -1;
		f->heap = nh;
		f->cap = nc;
	}
	size_t i = f->n++;
	while (i > 0) {
		size_t up = (i - 1) / 2;
		if (!before(it, &f->heap[up]))
			break;
		f->heap[i] = f->heap[up];
		i = up;
	}
	f->heap[i] = *it;
	return 0;
}

static void heap_pop(struct lk_fwd *f, struct item *out)
{
	*out = f->heap[0];
	struct item last = f->heap[--f->n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= f->n)
			break;
		if (c + 1 < f->n && before(&f->heap[c + 1], &f->heap[c]))
			c++;
		if (!before(&f->heap[c], &last))
			break;
		f->heap[i] = f->heap[c];
		i = c;
	}
	if (f->n)
		f->heap[i] = last;
}

static void put_buf(struct lk_fwd *f, uint8_t *b, int big)
{
	f->inflight -= big ? BIG_BUF : SMALL_BUF;
	pool_put(big ? &f->big : &f->small, b);
}

static void deliver(struct lk_fwd *f, const struct item *it)
{
	struct lk_counters *c = &f->p.c;
	if (lk_path_down(&f->p, it->t)) {
		ADD(c->outage, it->nseg);
		return;
	}
	ssize_t w = write(f->out, it->buf, it->len);
	if (w != (ssize_t)it->len) {
		ADD(c->errors, it->nseg);
		return;
	}
	ADD(c->passed, it->nseg);
	ADD(c->bytes, it->wire);
	if (it->dup)
		return;
	if (it->seq < f->max_end)
		ADD(c->reordered, it->nseg);
	else
		f->max_end = it->seq + it->nseg;
}

/* Holds (or, when nothing is waiting and its time has come, writes) the
 * packet buf[0..len). own: buf is the scratch buffer and may be kept. */
static void emit(struct lk_fwd *f, uint8_t *buf, uint32_t len, int own, uint64_t t, uint64_t now,
		 uint64_t seq, uint32_t nseg, uint32_t wire, int dup)
{
	struct item it = {.t = t, .ord = f->ord++, .seq = seq, .buf = buf, .len = len,
			  .nseg = nseg, .wire = wire, .dup = (uint8_t)dup};
	if (f->n == 0 && t <= now) {
		deliver(f, &it);
		if (!own)
			put_buf(f, buf, len > SMALL_BUF);
		return;
	}
	if (f->inflight + BIG_BUF > MAX_INFLIGHT) {
		ADD(f->p.c.errors, nseg);
		if (!own)
			put_buf(f, buf, len > SMALL_BUF);
		return;
	}
	if (own) {
		if (len <= SMALL_BUF) {
			uint8_t *b = pool_get(&f->small);
			if (!b) {
				ADD(f->p.c.errors, nseg);
				return;
			}
			memcpy(b, buf, len);
			it.buf = b;
			f->inflight += SMALL_BUF;
		} else {
			uint8_t *nb = pool_get(&f->big);
			if (!nb) {
				ADD(f->p.c.errors, nseg);
				return;
			}
			f->scratch = nb; /* the item keeps the old scratch */
			f->inflight += BIG_BUF;
		}
	}
	it.big = it.buf != NULL && len > SMALL_BUF;
	if (heap_push(f, &it)) {
		ADD(f->p.c.errors, nseg);
		put_buf(f, it.buf, it.big);
	}
}

/* A copy of wire packets [first, first+n) in a buffer of the pools. */
static uint8_t *cut(struct lk_fwd *f, const uint8_t *buf, size_t len,
		    const struct lk_pktinfo *pi, uint32_t first, uint32_t n, uint32_t *outlen)
{
	int whole = first == 0 && n == pi->nseg;
	size_t need = len;
	if (!whole) {
		if (!pi->splittable || first >= pi->nseg)
			return NULL;
		size_t plen = pi->payload - (size_t)first * pi->mss;
		if (plen > (size_t)n * pi->mss)
			plen = (size_t)n * pi->mss;
		need = LK_VNET_HDR_LEN + pi->hdrlen + plen;
	}
	int big = need > SMALL_BUF;
	uint8_t *b = pool_get(big ? &f->big : &f->small);
	if (!b)
		return NULL;
	f->inflight += big ? BIG_BUF : SMALL_BUF;
	size_t l;
	if (whole) {
		memcpy(b, buf, len);
		l = len;
	} else {
		l = lk_pkt_run(buf, len, pi, first, n, b, big ? BIG_BUF : SMALL_BUF);
	}
	if (l == 0 || (l > SMALL_BUF) != big) {
		put_buf(f, b, big);
		return NULL;
	}
	*outlen = (uint32_t)l;
	return b;
}

enum { F_PASS, F_LOST, F_QUEUE };

static void process(struct lk_fwd *f, uint8_t *buf, size_t len, uint64_t now)
{
	struct lk_counters *c = &f->p.c;
	struct lk_pktinfo pi;
	ADD(c->items, 1);
	if (lk_pkt_parse(buf, len, &pi)) {
		ADD(c->errors, 1);
		return;
	}
	uint64_t seq = f->seq;
	f->seq += pi.nseg;
	if (lk_path_down(&f->p, now)) {
		ADD(c->outage, pi.nseg);
		return;
	}
	/* a packet we cannot cut is one unit of nseg wire packets */
	uint32_t units = pi.splittable ? pi.nseg : 1;
	uint8_t fate[LK_MAX_SEGS], dup[LK_MAX_SEGS];
	uint64_t dep[LK_MAX_SEGS];
	uint32_t wire[LK_MAX_SEGS];
	int same = 1, anydup = 0;
	for (uint32_t i = 0; i < units; i++) {
		wire[i] = units == 1 ? (uint32_t)(len - LK_VNET_HDR_LEN) : lk_pkt_wire_len(&pi, len, i);
		if (lk_path_enqueue(&f->p, now, wire[i], &dep[i]))
			fate[i] = F_QUEUE;
		else if (lk_path_lose(&f->p))
			fate[i] = F_LOST;
		else
			fate[i] = F_PASS;
		dup[i] = fate[i] == F_PASS && lk_path_dup(&f->p);
		anydup |= dup[i];
		same &= fate[i] == fate[0];
	}
	uint32_t per = units == 1 ? pi.nseg : 1; /* wire packets per unit */
	int single = f->p.sp.reorder && f->p.sp.jitter_ns;
	for (uint32_t i = 0; i < units;) {
		if (fate[i] != F_PASS) {
			if (fate[i] == F_LOST)
				ADD(c->lost, per);
			else
				ADD(c->queue, per);
			i++;
			continue;
		}
		uint32_t j = i + 1;
		uint32_t w = wire[i];
		while (!single && j < units && fate[j] == F_PASS) {
			w += wire[j];
			j++;
		}
		uint64_t t = lk_path_release(&f->p, dep[j - 1]);
		if (same && !single && !anydup) {
			emit(f, buf, (uint32_t)len, 1, t, now, seq, pi.nseg, w, 0);
			return;
		}
		uint32_t l;
		uint8_t *b = (i == 0 && j == units) ? cut(f, buf, len, &pi, 0, pi.nseg, &l)
						    : cut(f, buf, len, &pi, i, j - i, &l);
		if (b)
			emit(f, b, l, 0, t, now, seq + i, (j - i) * per, w, 0);
		else
			ADD(c->errors, (j - i) * per);
		for (uint32_t k = i; k < j; k++) {
			if (!dup[k])
				continue;
			b = units == 1 ? cut(f, buf, len, &pi, 0, pi.nseg, &l)
				       : cut(f, buf, len, &pi, k, 1, &l);
			if (!b) {
				ADD(c->errors, per);
				continue;
			}
			ADD(c->dup, per);
			emit(f, b, l, 0, t, now, seq + k, per, wire[k], 1);
		}
		i = j;
	}
}

static void release_due(struct lk_fwd *f, uint64_t now)
{
	struct item it;
	while (f->n && f->heap[0].t <= now) {
		heap_pop(f, &it);
		deliver(f, &it);
		put_buf(f, it.buf, it.big);
	}
}

struct lk_fwd *lk_fwd_new(int in_fd, int out_fd, const struct lk_dir_spec *sp, uint64_t t0,
			  int stop_fd)
{
	struct lk_fwd *f = calloc(1, sizeof *f);
	if (!f)
		return NULL;
	f->in = in_fd;
	f->out = out_fd;
	f->stop_fd = stop_fd;
	f->small.size = SMALL_BUF;
	f->big.size = BIG_BUF;
	f->scratch = malloc(BIG_BUF);
	if (!f->scratch || lk_path_init(&f->p, sp, t0)) {
		lk_fwd_free(f);
		return NULL;
	}
	return f;
}

void lk_fwd_run(struct lk_fwd *f, volatile int *stop)
{
	while (!__atomic_load_n(stop, __ATOMIC_RELAXED)) {
		uint64_t now = lk_now_ns();
		release_due(f, now);
		int got = 0;
		for (; got < READ_BATCH; got++) {
			ssize_t r = read(f->in, f->scratch, BIG_BUF);
			if (r < 0) {
				if (errno != EAGAIN && errno != EINTR)
					ADD(f->p.c.errors, 1);
				break;
			}
			now = lk_now_ns();
			process(f, f->scratch, (size_t)r, now);
		}
		if (got)
			continue;
		now = lk_now_ns();
		if (f->n && f->heap[0].t <= now)
			continue;
		uint64_t wait = 100000000ULL;
		if (f->n && f->heap[0].t - now < wait)
			wait = f->heap[0].t - now;
		struct timespec ts = {.tv_sec = (time_t)(wait / 1000000000ULL),
				      .tv_nsec = (long)(wait % 1000000000ULL)};
		struct pollfd pf[2] = {{.fd = f->in, .events = POLLIN},
				       {.fd = f->stop_fd, .events = POLLIN}};
		ppoll(pf, f->stop_fd >= 0 ? 2 : 1, &ts, NULL);
	}
}

void lk_fwd_counters(struct lk_fwd *f, struct lk_counters *o)
{
	const struct lk_counters *c = &f->p.c;
	o->passed = __atomic_load_n(&c->passed, __ATOMIC_RELAXED);
	o->bytes = __atomic_load_n(&c->bytes, __ATOMIC_RELAXED);
	o->lost = __atomic_load_n(&c->lost, __ATOMIC_RELAXED);
	o->queue = __atomic_load_n(&c->queue, __ATOMIC_RELAXED);
	o->outage = __atomic_load_n(&c->outage, __ATOMIC_RELAXED);
	o->dup = __atomic_load_n(&c->dup, __ATOMIC_RELAXED);
	o->reordered = __atomic_load_n(&c->reordered, __ATOMIC_RELAXED);
	o->errors = __atomic_load_n(&c->errors, __ATOMIC_RELAXED);
	o->items = __atomic_load_n(&c->items, __ATOMIC_RELAXED);
}

void lk_fwd_free(struct lk_fwd *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->n; i++)
		free(f->heap[i].buf);
	free(f->heap);
	pool_free(&f->small);
	pool_free(&f->big);
	free(f->scratch);
	lk_path_free(&f->p);
	free(f);
}
