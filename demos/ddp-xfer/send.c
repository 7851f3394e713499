/* ddp-xfer: the sending ULP. Per stream: CREDITS posted untagged buffers
 * (announced in the hello), a queue of the receiver's ADVERTs and up to
 * --depth chunk buffers in flight. File octets are read in increasing
 * offset order (and hashed in that order) by whichever stream has both an
 * ADVERT and a free chunk buffer. */
#include "xfer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#define CREDITS 64 /* untagged buffers posted per stream (hello.credits) */

struct txbuf {
	struct sstream *ss;
	uint8_t *data;	/* --chunk octets, allocated on first use */
	int pending;	/* sends not yet completed (tagged write + DONE) */
	uint8_t msg[XF_MSG_MAX];
};

struct advert {
	uint32_t id, stag, len;
	uint64_t to;
};

struct sstream {
	struct xf_stream *x;
	unsigned idx;
	uint8_t rx[CREDITS][XF_MSG_MAX];
	struct advert q[CREDITS];
	unsigned qhead, qlen;
	struct txbuf *tx; /* --depth of them */
	int open, end_sent, result_got, pumping;
	uint8_t end_msg[XF_MSG_MAX];
};

static struct {
	int fd;
	uint64_t size, next_off;
	uint64_t id;
	struct xf_sha256 sha;
	uint8_t digest[XF_SHA256_LEN];
	int digest_done;
	unsigned results;
	struct sstream *ss[XF_MAX_STREAMS];
} snd = { .fd = -1 };

int xf_send_init(void)
{
	struct stat st;
	snd.fd = open(xf.o.file, O_RDONLY);
	if (snd.fd < 0 || fstat(snd.fd, &st) != 0) {
		xf_fail("%s: %s", xf.o.file, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		xf_fail("%s: not a regular file", xf.o.file);
		return -1;
	}
	snd.size = (uint64_t)st.st_size;
	xf.total = snd.size;
	xf.total_known = 1;
	xf.nstreams = xf.o.streams;
	if (getrandom(&snd.id, sizeof(snd.id), 0) != sizeof(snd.id))
		snd.id = (uint64_t)getpid() << 32 ^ (uint64_t)(xf_now() * 1e6);
	xf_sha256_init(&snd.sha);
	return 0;
}

void xf_send_hello(unsigned idx, uint8_t pd[XF_HELLO_LEN])
{
	struct xf_hello h = { .id = snd.id, .idx = (uint16_t)idx,
			      .nstreams = (uint16_t)xf.nstreams, .credits = CREDITS };
	xf_hello_encode(&h, pd);
}

static void finish_digest(void)
{
	if (!snd.digest_done) {
		xf_sha256_final(&snd.sha, snd.digest);
		snd.digest_done = 1;
	}
}

/* All file octets handed out: tell every stream (in order after its last
 * DONE) the size and how many chunks it carried. */
static void send_ends(void)
{
	if (snd.next_off != snd.size)
		return;
	finish_digest();
	for (unsigned i = 0; i < xf.nstreams; i++) {
		struct sstream *ss = snd.ss[i];
		if (!ss || !ss->open || ss->end_sent || ss->pumping || xf.failed)
			continue;
		struct xf_msg m = { .type = XF_END, .total = snd.size, .count = ss->x->chunks };
		struct iovec v = { ss->end_msg, xf_msg_encode(&m, ss->end_msg) };
		ss->end_sent = 1;
		int rc = ddp_send_untagged(ss->x->s, ss->x->st, 0, 0, &v, 1, NULL);
		if (rc) {
			xf_fail("stream %u: sending END: %s", i, ddp_strerror(rc));
			return;
		}
	}
}

static int read_at(uint8_t *p, size_t n, uint64_t off)
{
	while (n) {
		ssize_t r = pread(snd.fd, p, n, (off_t)off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			xf_fail("%s: read: %s", xf.o.file, strerror(errno));
			return -1;
		}
		if (r == 0) {
			xf_fail("%s: file shrank during the transfer", xf.o.file);
			return -1;
		}
		p += r;
		n -= (size_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

static struct txbuf *free_txbuf(struct sstream *ss)
{
	for (unsigned i = 0; i < xf.o.depth; i++)
		if (!ss->tx[i].pending)
			return &ss->tx[i];
	return NULL;
}

/* Fill advertised buffers while there is file left and a chunk buffer.
 * State advances before each send: a completion may run inside the send
 * call and re-enter (ss->pumping keeps that to this one loop). */
static void pump(struct sstream *ss)
{
	struct xf_stream *x = ss->x;
	struct txbuf *t;
	if (ss->pumping)
		return;
	ss->pumping = 1;
	while (!xf.failed && ss->qlen && snd.next_off < snd.size && (t = free_txbuf(ss))) {
		struct advert a = ss->q[ss->qhead];
		ss->qhead = (ss->qhead + 1) % CREDITS;
		ss->qlen--;
		uint64_t off = snd.next_off, left = snd.size - off;
		uint32_t len = a.len < xf.o.chunk ? a.len : xf.o.chunk;
		if (left < len)
			len = (uint32_t)left;
		if (!t->data && !(t->data = malloc(xf.o.chunk))) {
			xf_fail("out of memory");
			break;
		}
		if (read_at(t->data, len, off))
			break;
		xf_sha256_update(&snd.sha, t->data, len);
		snd.next_off += len;
		x->bytes += len;
		x->chunks++;
		xf.progress += len;
		t->pending = 2;
		/* the chunk: one tagged message into the advertised buffer */
		struct iovec v = { t->data, len };
		int rc = ddp_send_tagged(x->s, x->st, a.stag, a.to, 0, &v, 1, t);
		if (rc) {
			xf_fail("stream %u: tagged write: %s", ss->idx, ddp_strerror(rc));
			break;
		}
		/* then DONE on the same stream: delivered only after the write
		 * was placed (RFC 5041 §5.4, DDP-DLV-1 / DDP-ORD-5) */
		struct xf_msg m = { .type = XF_DONE, .id = a.id, .off = off, .len = len };
		struct iovec dv = { t->msg, xf_msg_encode(&m, t->msg) };
		rc = ddp_send_untagged(x->s, x->st, 0, 0, &dv, 1, t);
		if (rc) {
			xf_fail("stream %u: sending DONE: %s", ss->idx, ddp_strerror(rc));
			break;
		}
	}
	ss->pumping = 0;
	send_ends();
}

int xf_send_prepare(unsigned idx, ddp_session *s, uint32_t st, void *conn)
{
	struct sstream *ss = calloc(1, sizeof(*ss));
	if (!ss || !(ss->tx = calloc(xf.o.depth, sizeof(*ss->tx)))) {
		free(ss);
		return DDP_ERR_NOMEM;
	}
	struct xf_stream *x = &xf.str[idx];
	snd.ss[idx] = ss;
	x->role = ss;
	x->s = s;
	x->st = st;
	x->conn = conn;
	ss->x = x;
	ss->idx = idx;
	for (unsigned i = 0; i < xf.o.depth; i++)
		ss->tx[i].ss = ss;
	for (unsigned i = 0; i < CREDITS; i++) {
		int rc = ddp_post_recv(s, st, 0, ss->rx[i], XF_MSG_MAX, ss);
		if (rc)
			return rc;
	}
	x->joined = 1;
	return 0;
}

void xf_send_open(unsigned idx)
{
	struct sstream *ss = snd.ss[idx];
	if (!ss)
		return;
	ss->open = 1;
	send_ends(); /* an empty file needs no ADVERT */
}

static void on_result(struct sstream *ss, const struct xf_msg *m)
{
	if (ss->result_got || !ss->end_sent) {
		xf_fail("stream %u: protocol error: unexpected RESULT", ss->idx);
		return;
	}
	finish_digest();
	if (m->total != snd.size || memcmp(m->sha, snd.digest, XF_SHA256_LEN) != 0) {
		char h[2 * XF_SHA256_LEN + 1];
		xf_sha256_hex(m->sha, h);
		xf_fail("receiver got a different file: sha256 %s bytes %llu", h,
			(unsigned long long)m->total);
		return;
	}
	ss->result_got = 1;
	ss->x->finished = 1;
	if (++snd.results < xf.nstreams)
		return;
	xf_print_result(snd.digest, snd.size);
	xf_succeed();
}

static void on_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	struct xf_stream *x = xf_find(s, d->stream);
	if (d->status || !x || !x->role || xf.failed)
		return; /* a posted buffer flushed by teardown */
	struct sstream *ss = x->role;
	xf_heard();
	if (d->tagged) { /* we registered nothing: the core refuses it */
		xf_fail("stream %u: protocol error: tagged message to the sender", ss->idx);
		return;
	}
	struct xf_msg m;
	if (xf_msg_decode(d->buf, d->len, &m) != 0) {
		xf_fail("stream %u: protocol error: bad message (%u octets)", ss->idx, d->len);
		return;
	}
	/* the buffer is free again at once: the receiver may count it */
	int rc = ddp_post_recv(s, d->stream, 0, d->buf, XF_MSG_MAX, ss);
	if (rc) {
		xf_fail("stream %u: re-posting a buffer: %s", ss->idx, ddp_strerror(rc));
		return;
	}
	switch (m.type) {
	case XF_ADVERT:
		if (ss->qlen == CREDITS || m.len == 0 || m.to > UINT64_MAX - m.len) {
			xf_fail("stream %u: protocol error: bad ADVERT", ss->idx);
			return;
		}
		ss->q[(ss->qhead + ss->qlen++) % CREDITS] =
			(struct advert){ .id = m.id, .stag = m.stag, .len = m.len, .to = m.to };
		pump(ss);
		break;
	case XF_RESULT:
		on_result(ss, &m);
		break;
	default:
		xf_fail("stream %u: protocol error: message type %u to the sender", ss->idx, m.type);
	}
}

static void on_send_done(ddp_session *s, uint32_t stream, void *ctx, int status, void *user)
{
	if (status && !xf.failed && !xf.succeeded)
		xf_fail("stream %u: connection to the receiver lost (a send failed: %s)", stream,
			ddp_strerror(status));
	struct txbuf *t = ctx;
	if (!t)
		return;
	if (t->pending > 0)
		t->pending--;
	if (!t->pending && !xf.failed)
		pump(t->ss);
}

static void on_error(ddp_session *s, const ddp_error_info *e, void *user)
{
	char b[96];
	if (!xf.succeeded)
		xf_fail("stream %u: DDP error: %s", e->stream, xf_err_text(e, b, sizeof(b)));
}

static void on_stream_event(ddp_session *s, uint32_t stream, enum ddp_stream_event ev,
			    int status, void *user)
{
	struct xf_stream *x = xf_find(s, stream);
	if (!x || x->finished || xf.succeeded)
		return;
	struct sstream *ss = x->role;
	if (ev == DDP_EV_ABORTED)
		xf_fail("stream %u: connection to the receiver lost (%s)", ss ? ss->idx : stream,
			ddp_strerror(status));
	else
		xf_fail("stream %u: the receiver closed the stream before the result",
			ss ? ss->idx : stream);
}

const ddp_callbacks xf_send_callbacks = {
	.deliver = on_deliver,
	.send_done = on_send_done,
	.error = on_error,
	.stream_event = on_stream_event,
};

void xf_send_free(void)
{
	for (unsigned i = 0; i < XF_MAX_STREAMS; i++) {
		struct sstream *ss = snd.ss[i];
		if (!ss)
			continue;
		for (unsigned k = 0; k < xf.o.depth; k++)
			free(ss->tx[k].data);
		free(ss->tx);
		free(ss);
		snd.ss[i] = NULL;
		xf.str[i].role = NULL;
	}
	if (snd.fd >= 0)
		close(snd.fd);
	snd.fd = -1;
}
