/*
 * The model of one direction of the link, clock-free: the caller passes the
 * time. Order along the path: outage check, bottleneck queue (tail drop) and
 * serialisation at the rate, loss on the wire, duplication, propagation delay
 * with jitter. A lost packet has used the bottleneck (it is lost after it).
 */
#include "linkem.h"

#include <stdlib.h>
#include <string.h>

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* xoshiro256** */
uint64_t lk_rand(struct lk_path *p)
{
	uint64_t *s = p->rng;
	uint64_t r = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return r;
}

static double unif(struct lk_path *p)
{
	return (double)(lk_rand(p) >> 11) * 0x1.0p-53;
}

int lk_path_init(struct lk_path *p, const struct lk_dir_spec *sp, uint64_t t0)
{
	memset(p, 0, sizeof *p);
	p->sp = *sp;
	p->t0 = t0;
	uint64_t x = sp->seed;
	for (int i = 0; i < 4; i++)
		p->rng[i] = splitmix(&x);
	if (sp->rate_bps) {
		p->dep_cap = sp->queue ? sp->queue : 1;
		p->dep = calloc(p->dep_cap, sizeof *p->dep);
		if (!p->dep)
			return -1;
	}
	return 0;
}

void lk_path_free(struct lk_path *p)
{
	free(p->dep);
	p->dep = NULL;
}

int lk_path_down(const struct lk_path *p, uint64_t now)
{
	if (now < p->t0)
		return 0;
	uint64_t t = now - p->t0;
	for (int i = 0; i < p->sp.n_outage; i++) {
		const struct lk_outage *o = &p->sp.outage[i];
		if (t >= o->at_ns && t - o->at_ns < o->len_ns)
			return 1;
	}
	return 0;
}

int lk_path_lose(struct lk_path *p)
{
	int lost = 0;
	if (p->sp.ge.on) {
		const struct lk_ge *g = &p->sp.ge;
		/* state for this packet, then its loss in that state */
		if (p->ge_bad) {
			if (unif(p) < g->r)
				p->ge_bad = 0;
		} else if (unif(p) < g->p) {
			p->ge_bad = 1;
		}
		double pl = p->ge_bad ? g->bad_loss : g->good_loss;
		if (pl > 0 && unif(p) < pl)
			lost = 1;
	}
	if (p->sp.loss > 0 && unif(p) < p->sp.loss)
		lost = 1;
	return lost;
}

int lk_path_dup(struct lk_path *p)
{
	return p->sp.dup > 0 && unif(p) < p->sp.dup;
}

int lk_path_enqueue(struct lk_path *p, uint64_t now, uint32_t wire_bytes, uint64_t *depart)
{
	if (!p->sp.rate_bps) {
		*depart = now;
		return 0;
	}
	while (p->dep_n && p->dep[p->dep_head] <= now) {
		p->dep_head = (p->dep_head + 1) % p->dep_cap;
		p->dep_n--;
	}
	if (p->dep_n >= p->dep_cap)
		return -1;
	/* picoseconds from t0: exact enough at any rate, no overflow for
	 * 200 days of link or below 10 Tbit/s */
	uint64_t start = now > p->t0 ? (now - p->t0) * 1000 : 0;
	if (p->last_dep_ps > start)
		start = p->last_dep_ps;
	p->last_dep_ps = start + (uint64_t)wire_bytes * 8000000000000ULL / p->sp.rate_bps;
	*depart = p->t0 + p->last_dep_ps / 1000;
	p->dep[(p->dep_head + p->dep_n) % p->dep_cap] = *depart;
	p->dep_n++;
	return 0;
}

uint64_t lk_path_release(struct lk_path *p, uint64_t depart)
{
	uint64_t t = depart + p->sp.delay_ns;
	if (p->sp.jitter_ns) {
		uint64_t j = p->sp.jitter_ns;
		uint64_t off = (uint64_t)(unif(p) * (double)(2 * j));
		t = t + off >= j ? t + off - j : 0;
		if (t < depart)
			t = depart;
	}
	if (!p->sp.reorder) {
		if (t < p->last_release)
			t = p->last_release;
		p->last_release = t;
	}
	return t;
}
