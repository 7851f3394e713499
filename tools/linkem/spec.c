/*
 * The SPEC grammar (docs/linkem.md):
 *
 *   SPEC  := PART (';' PART)*
 *   PART  := ['fwd:' | 'rev:'] ITEM (',' ITEM)*     no prefix: both directions
 *   ITEM  := delay=TIME | jitter=TIME | reorder=0|1 | loss=PROB | dup=PROB
 *          | ge=p:PROB/r:PROB[/1-h:PROB][/1-k:PROB] | rate=RATE | queue=N
 *          | outage=TIME@TIME | seed=N | mtu=N | gso=0|1
 *
 * Later items override earlier ones; outage= adds one more outage.
 */
#include "linkem.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int err_at(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int err_at(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* number followed by exactly one of the suffixes (mult[i] per suffix) */
static int parse_num(const char *s, size_t n, const char *const *suf, const double *mult,
		     double *out)
{
	char tmp[64];
	char *end;
	if (n == 0 || n >= sizeof tmp)
		return -1;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	errno = 0;
	double v = strtod(tmp, &end);
	if (end == tmp || errno || !isfinite(v) || v < 0)
		return -1;
	for (int i = 0; suf[i]; i++) {
		if (strcmp(end, suf[i]) == 0) {
			*out = v * mult[i];
			return 0;
		}
	}
	return -1;
}

static int parse_time(const char *s, size_t n, uint64_t *ns)
{
	static const char *const suf[] = {"ns", "us", "ms", "s", NULL};
	static const double mult[] = {1, 1e3, 1e6, 1e9};
	double v;
	if (n == 1 && s[0] == '0') {
		*ns = 0;
		return 0;
	}
	if (parse_num(s, n, suf, mult, &v) || v > 1e15)
		return -1;
	*ns = (uint64_t)llround(v);
	return 0;
}

static int parse_prob(const char *s, size_t n, double *p)
{
	static const char *const suf[] = {"%", "", NULL};
	static const double mult[] = {0.01, 1};
	if (parse_num(s, n, suf, mult, p) || *p > 1)
		return -1;
	return 0;
}

static int parse_rate(const char *s, size_t n, uint64_t *bps)
{
	static const char *const suf[] = {"bit", "kbit", "mbit", "gbit", "k", "m", "g",
					  "Kbit", "Mbit", "Gbit", "K", "M", "G", NULL};
	static const double mult[] = {1, 1e3, 1e6, 1e9, 1e3, 1e6, 1e9, 1e3, 1e6, 1e9, 1e3, 1e6, 1e9};
	double v;
	if (n == 1 && s[0] == '0') {
		*bps = 0;
		return 0;
	}
	if (parse_num(s, n, suf, mult, &v) || v < 1000 || v > 1e13)
		return -1;
	*bps = (uint64_t)llround(v);
	return 0;
}

static int parse_uint(const char *s, size_t n, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	if (n == 0 || n > 20)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		if (v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v > max)
		return -1;
	*out = v;
	return 0;
}

static int parse_ge(const char *s, size_t n, struct lk_ge *ge)
{
	struct lk_ge g = {.on = 1, .bad_loss = 1.0, .good_loss = 0.0};
	int have_p = 0, have_r = 0;
	const char *end = s + n;
	while (s < end) {
		const char *slash = memchr(s, '/', (size_t)(end - s));
		const char *e = slash ? slash : end;
		const char *colon = memchr(s, ':', (size_t)(e - s));
		if (!colon)
			return -1;
		size_t kl = (size_t)(colon - s);
		double v;
		if (parse_prob(colon + 1, (size_t)(e - colon - 1), &v))
			return -1;
		if (kl == 1 && s[0] == 'p') {
			g.p = v;
			have_p = 1;
		} else if (kl == 1 && s[0] == 'r') {
			g.r = v;
			have_r = 1;
		} else if (kl == 3 && memcmp(s, "1-h", 3) == 0) {
			g.bad_loss = v;
		} else if (kl == 3 && memcmp(s, "1-k", 3) == 0) {
			g.good_loss = v;
		} else {
			return -1;
		}
		s = slash ? slash + 1 : end;
	}
	if (!have_p || !have_r)
		return -1;
	*ge = g;
	return 0;
}

static int parse_item(const char *s, size_t n, struct lk_link *link, struct lk_dir_spec *d,
		      char *err, size_t errlen)
{
	const char *eq = memchr(s, '=', n);
	if (!eq)
		return err_at(err, errlen, "'%.*s': expected KEY=VALUE", (int)n, s);
	size_t kl = (size_t)(eq - s);
	const char *v = eq + 1;
	size_t vl = n - kl - 1;
	struct lk_dir_spec tmp = *d;
	uint64_t u;
#define KEY(k) (kl == sizeof(k) - 1 && memcmp(s, k, kl) == 0)
	if (KEY("mtu")) {
		if (parse_uint(v, vl, 65535, &u) || u < 576)
			goto bad;
		link->mtu = (uint32_t)u;
		return 0;
	}
	if (KEY("gso")) {
		if (parse_uint(v, vl, 1, &u))
			goto bad;
		link->gso = (int)u;
		return 0;
	}
	if (KEY("delay")) {
		if (parse_time(v, vl, &tmp.delay_ns))
			goto bad;
	} else if (KEY("jitter")) {
		if (parse_time(v, vl, &tmp.jitter_ns))
			goto bad;
	} else if (KEY("reorder")) {
		if (parse_uint(v, vl, 1, &u))
			goto bad;
		tmp.reorder = (int)u;
	} else if (KEY("loss")) {
		if (parse_prob(v, vl, &tmp.loss))
			goto bad;
	} else if (KEY("dup")) {
		if (parse_prob(v, vl, &tmp.dup))
			goto bad;
	} else if (KEY("ge")) {
		if (vl == 1 && v[0] == '0')
			tmp.ge.on = 0;
		else if (parse_ge(v, vl, &tmp.ge))
			goto bad;
	} else if (KEY("rate")) {
		if (parse_rate(v, vl, &tmp.rate_bps))
			goto bad;
	} else if (KEY("queue")) {
		if (parse_uint(v, vl, 1000000, &u) || u == 0)
			goto bad;
		tmp.queue = (uint32_t)u;
	} else if (KEY("seed")) {
		if (parse_uint(v, vl, UINT64_MAX, &tmp.seed))
			goto bad;
	} else if (KEY("outage")) {
		const char *at = memchr(v, '@', vl);
		struct lk_outage o;
		if (!at || parse_time(v, (size_t)(at - v), &o.len_ns) ||
		    parse_time(at + 1, vl - (size_t)(at - v) - 1, &o.at_ns) || o.len_ns == 0)
			goto bad;
		if (tmp.n_outage == LK_MAX_OUTAGES)
			return err_at(err, errlen, "more than %d outages", LK_MAX_OUTAGES);
		tmp.outage[tmp.n_outage++] = o;
	} else {
		return err_at(err, errlen, "unknown key '%.*s'", (int)kl, s);
	}
#undef KEY
	*d = tmp;
	return 0;
bad:
	return err_at(err, errlen, "bad value in '%.*s'", (int)n, s);
}

int lk_spec_parse(const char *spec, struct lk_link *link, char *err, size_t errlen)
{
	memset(link, 0, sizeof *link);
	link->mtu = 1500;
	link->gso = 1;
	link->dir[0].queue = link->dir[1].queue = 1000;
	link->dir[0].seed = 1;
	link->dir[1].seed = 2;
	if (errlen)
		err[0] = '\0';
	const char *s = spec;
	while (*s) {
		const char *semi = strchr(s, ';');
		const char *pe = semi ? semi : s + strlen(s);
		int mask = 3;
		if (pe - s >= 4 && memcmp(s, "fwd:", 4) == 0) {
			mask = 1;
			s += 4;
		} else if (pe - s >= 4 && memcmp(s, "rev:", 4) == 0) {
			mask = 2;
			s += 4;
		}
		while (s < pe) {
			const char *comma = memchr(s, ',', (size_t)(pe - s));
			const char *ie = comma ? comma : pe;
			for (int d = 0; d < 2 && ie > s; d++)
				if ((mask & (1 << d)) && parse_item(s, (size_t)(ie - s), link,
								    &link->dir[d], err, errlen))
					return -1;
			s = comma ? comma + 1 : pe;
		}
		s = semi ? semi + 1 : pe;
	}
	for (int d = 0; d < 2; d++) {
		const struct lk_dir_spec *x = &link->dir[d];
		if (x->ge.on && x->ge.r <= 0 && x->ge.p > 0)
			return err_at(err, errlen, "ge: r must be > 0 (the bad state must end)");
	}
	return 0;
}

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

void lk_spec_format(const struct lk_dir_spec *d, char *out, size_t outlen)
{
	int n = snprintf(out, outlen,
			 "delay=%gms,jitter=%gms,reorder=%d,loss=%g%%,dup=%g%%,rate=%llubit,queue=%u,"
			 "seed=%llu",
			 ms(d->delay_ns), ms(d->jitter_ns), d->reorder, d->loss * 100, d->dup * 100,
			 (unsigned long long)d->rate_bps, d->queue, (unsigned long long)d->seed);
	if (d->ge.on && n > 0 && (size_t)n < outlen)
		n += snprintf(out + n, outlen - (size_t)n, ",ge=p:%g/r:%g/1-h:%g/1-k:%g", d->ge.p,
			      d->ge.r, d->ge.bad_loss, d->ge.good_loss);
	for (int i = 0; i < d->n_outage && n > 0 && (size_t)n < outlen; i++)
		n += snprintf(out + n, outlen - (size_t)n, ",outage=%gs@%gs",
			      (double)d->outage[i].len_ns / 1e9, (double)d->outage[i].at_ns / 1e9);
}
