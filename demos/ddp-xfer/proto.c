/* ddp-xfer: encode/decode of the ULP messages over a bounds-checked
 * cursor (never a struct overlay); all integers big-endian. */
#include "proto.h"

#include <string.h>

struct cur {
	const uint8_t *p, *end;
	int bad; /* a read went past the end: every later read yields 0 */
};

static uint64_t get(struct cur *c, unsigned n)
{
	uint64_t v = 0;
	if (c->bad || (size_t)(c->end - c->p) < n) {
		c->bad = 1;
		return 0;
	}
	for (unsigned i = 0; i < n; i++)
		v = v << 8 | *c->p++;
	return v;
}

static uint8_t *put(uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
	return p + n;
}

static int printable(uint8_t c)
{
	return c >= 0x20 && c < 0x7f;
}

static int abort_ok(uint8_t code, const uint8_t *text, size_t len)
{
	if (code < XF_ABORT_DISK_FULL || code > XF_ABORT_OTHER || len > XF_ABORT_TEXT_MAX)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (!printable(text[i]))
			return 0;
	return 1;
}

void xf_abort_msg(struct xf_msg *m, uint8_t code, const char *text)
{
	memset(m, 0, sizeof(*m));
	m->type = XF_ABORT;
	m->code = code;
	size_t n = 0;
	for (; text && text[n] && n < XF_ABORT_TEXT_MAX; n++)
		m->text[n] = printable((uint8_t)text[n]) ? text[n] : '?';
	m->text_len = (uint8_t)n;
}

const char *xf_abort_name(uint8_t code)
{
	switch (code) {
	case XF_ABORT_DISK_FULL: return "disk full";
	case XF_ABORT_WRITE: return "write error";
	default: return "failed";
	}
}

size_t xf_msg_encode(const struct xf_msg *m, uint8_t out[XF_MSG_MAX])
{
	uint8_t *p = put(out, m->type, 1);
	switch (m->type) {
	case XF_ADVERT:
		p = put(p, m->id, 4);
		p = put(p, m->stag, 4);
		p = put(p, m->to, 8);
		p = put(p, m->len, 4);
		break;
	case XF_DONE:
		p = put(p, m->id, 4);
		p = put(p, m->off, 8);
		p = put(p, m->len, 4);
		break;
	case XF_END:
		p = put(p, m->total, 8);
		p = put(p, m->count, 4);
		break;
	case XF_RESULT:
		p = put(p, m->total, 8);
		memcpy(p, m->sha, XF_SHA256_LEN);
		p += XF_SHA256_LEN;
		break;
	case XF_ABORT:
		if (!abort_ok(m->code, (const uint8_t *)m->text, m->text_len))
			return 0;
		p = put(p, m->code, 1);
		p = put(p, m->text_len, 1);
		memcpy(p, m->text, m->text_len);
		p += m->text_len;
		break;
	default:
		return 0;
	}
	return (size_t)(p - out);
}

int xf_msg_decode(const uint8_t *p, size_t n, struct xf_msg *m)
{
	struct cur c = { p, p + n, 0 };
	memset(m, 0, sizeof(*m));
	m->type = (uint8_t)get(&c, 1);
	switch (m->type) {
	case XF_ADVERT:
		m->id = (uint32_t)get(&c, 4);
		m->stag = (uint32_t)get(&c, 4);
		m->to = get(&c, 8);
		m->len = (uint32_t)get(&c, 4);
		break;
	case XF_DONE:
		m->id = (uint32_t)get(&c, 4);
		m->off = get(&c, 8);
		m->len = (uint32_t)get(&c, 4);
		break;
	case XF_END:
		m->total = get(&c, 8);
		m->count = (uint32_t)get(&c, 4);
		break;
	case XF_RESULT:
		m->total = get(&c, 8);
		for (int i = 0; i < XF_SHA256_LEN; i++)
			m->sha[i] = (uint8_t)get(&c, 1);
		break;
	case XF_ABORT:
		m->code = (uint8_t)get(&c, 1);
		m->text_len = (uint8_t)get(&c, 1);
		if (c.bad || m->text_len > XF_ABORT_TEXT_MAX ||
		    (size_t)(c.end - c.p) < m->text_len)
			return -1;
		for (unsigned i = 0; i < m->text_len; i++)
			m->text[i] = (char)get(&c, 1);
		if (!abort_ok(m->code, (const uint8_t *)m->text, m->text_len))
			return -1;
		break;
	default:
		return -1;
	}
	/* exactly the message: nothing missing, nothing trailing */
	return c.bad || c.p != c.end ? -1 : 0;
}

void xf_hello_encode(const struct xf_hello *h, uint8_t out[XF_HELLO_LEN])
{
	uint8_t *p = put(out, XF_MAGIC, 4);
	p = put(p, h->id, 8);
	p = put(p, h->idx, 2);
	p = put(p, h->nstreams, 2);
	put(p, h->credits, 2);
}

int xf_hello_decode(const uint8_t *p, size_t n, struct xf_hello *h)
{
	struct cur c = { p, p + n, 0 };
	uint32_t magic = (uint32_t)get(&c, 4);
	h->id = get(&c, 8);
	h->idx = (uint16_t)get(&c, 2);
	h->nstreams = (uint16_t)get(&c, 2);
	h->credits = (uint16_t)get(&c, 2);
	if (c.bad || c.p != c.end || magic != XF_MAGIC)
		return -1;
	if (h->nstreams == 0 || h->nstreams > XF_MAX_STREAMS || h->idx >= h->nstreams ||
	    h->credits < 2)
		return -1;
	return 0;
}
