/* ddp-xfer: the sending ULP. A pool of --streams x --depth chunk buffers
 * is filled by the worker thread (worker.c) with large pread()s at
 * increasing offsets, each hashed right after it was read, so the file is
 * read and hashed in file order off the event loop. The loop hands the
 * ready chunks, in file order, to whichever stream holds an ADVERT of the
 * receiver (round robin): one tagged write per ADVERT, then DONE, on that
 * stream. A buffer is read again once every write from it completed. */
#include "xfer.h"
#include "worker.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#define CREDITS 64	       /* untagged buffers posted per stream (hello.credits) */
#define PIECES (2 * CREDITS)   /* (tagged write + DONE) pairs in flight per stream */
#define READ_BLOCK (256u << 10) /* pread size: half of a small L2 cache */

enum { CK_FREE, CK_READING, CK_READY };

struct chunk {
	struct xf_job job; /* first: the job is the chunk */
	uint8_t *data;	   /* --chunk octets, allocated on first use */
	uint64_t off;	   /* file octets [off, off + len) */
	uint32_t len, sent; /* sent: octets handed to streams */
	unsigned pending;  /* pieces of it not yet completed */
	int state;
	struct chunk *next; /* ready list */
};

/* One tagged write (part of a chunk) and its DONE. */
struct piece {
	struct chunk *c; /* NULL: free */
	int pending;	 /* of the two sends */
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
	struct piece pc[PIECES];
	int open, end_sent, result_got;
	uint8_t end_msg[XF_MSG_MAX];
};

static struct {
	int fd;
	uint64_t size, read_off, sent_off; /* next octet to read / to hand out */
	uint64_t id;
	struct xf_sha256 sha; /* the worker's until every octet is read */
	uint8_t digest[XF_SHA256_LEN];
	int digest_done, pumping;
	unsigned results, rr;
	struct chunk *pool;
	unsigned npool;
	struct chunk *ready, **ready_tail; /* READY chunks in file order */
	struct sstream *ss[XF_MAX_STREAMS];
} snd = { .fd = -1 };

static void fill(void);
static void pump(void);

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
	/* read in file order: let the kernel read ahead far */
	posix_fadvise(snd.fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	snd.size = (uint64_t)st.st_size;
	xf.total = snd.size;
	xf.total_known = 1;
	xf.nstreams = xf.o.streams;
	if (getrandom(&snd.id, sizeof(snd.id), 0) != sizeof(snd.id))
		snd.id = (uint64_t)getpid() << 32 ^ (uint64_t)(xf_now() * 1e6);
	snd.ready_tail = &snd.ready;
	snd.npool = xf.nstreams * xf.o.depth;
	if (xf_sha256_init(&snd.sha) || !(snd.pool = calloc(snd.npool, sizeof(*snd.pool)))) {
		xf_fail("out of memory");
		return -1;
	}
	if (xf_worker_start(xf.base, snd.npool)) {
		xf_fail("cannot start the worker thread: %s", strerror(errno));
		return -1;
	}
	fill();
	return 0;
}

void xf_send_hello(unsigned idx, uint8_t pd[XF_HELLO_LEN])
{
	struct xf_hello h = { .id = snd.id, .idx = (uint16_t)idx,
			      .nstreams = (uint16_t)xf.nstreams, .credits = CREDITS };
	xf_hello_encode(&h, pd);
}

/* Every octet was read and hashed (the worker is done with snd.sha). */
static int finish_digest(void)
{
	if (!snd.digest_done) {
		if (xf_sha256_final(&snd.sha, snd.digest)) {
			xf_fail("SHA-256 failed (libcrypto)");
			return -1;
		}
		snd.digest_done = 1;
	}
	return 0;
}

/* All file octets handed out: tell every stream (in order after its last
 * DONE) the size and how many chunks it carried. */
static void send_ends(void)
{
	if (snd.sent_off != snd.size || snd.pumping || xf.failed || finish_digest())
		return;
	for (unsigned i = 0; i < xf.nstreams; i++) {
		struct sstream *ss = snd.ss[i];
		if (!ss || !ss->open || ss->end_sent || xf.failed)
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

/* Worker thread: read one chunk at its offset, then hash it. */
static int read_chunk(struct xf_job *j)
{
	struct chunk *c = (struct chunk *)j;
	uint8_t *p = c->data;
	size_t n = c->len;
	uint64_t off = c->off;
	/* ask for the chunk one pool further on: read-ahead on a real disk */
	posix_fadvise(snd.fd, (off_t)(off + (uint64_t)snd.npool * xf.o.chunk), (off_t)xf.o.chunk,
		      POSIX_FADV_WILLNEED);
	/* in blocks of READ_BLOCK, each hashed while it is still in the cache */
	while (n) {
		size_t want = n < READ_BLOCK ? n : READ_BLOCK;
		ssize_t r = pread(snd.fd, p, want, (off_t)off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return errno;
		if (r == 0)
			return ENODATA; /* the file shrank */
		xf_sha256_update(&snd.sha, p, (size_t)r);
		p += r;
		n -= (size_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

static void chunk_read(struct xf_job *j, int rc)
{
	struct chunk *c = (struct chunk *)j;
	if (rc) {
		if (rc == ENODATA)
			xf_fail("%s: file shrank during the transfer", xf.o.file);
		else
			xf_fail("%s: read: %s", xf.o.file, strerror(rc));
		return;
	}
	c->state = CK_READY;
	c->next = NULL;
	*snd.ready_tail = c;
	snd.ready_tail = &c->next;
	pump();
}

/* Hand every free buffer the next part of the file to read. */
static void fill(void)
{
	for (unsigned i = 0; i < snd.npool && snd.read_off < snd.size && !xf.failed; i++) {
		struct chunk *c = &snd.pool[i];
		if (c->state != CK_FREE)
			continue;
		if (!c->data && !(c->data = malloc(xf.o.chunk))) {
			xf_fail("out of memory");
			return;
		}
		uint64_t left = snd.size - snd.read_off;
		c->off = snd.read_off;
		c->len = left < xf.o.chunk ? (uint32_t)left : xf.o.chunk;
		c->sent = 0;
		c->state = CK_READING;
		c->job.run = read_chunk;
		c->job.done = chunk_read;
		snd.read_off += c->len;
		if (xf_worker_submit(&c->job)) {
			xf_fail("internal error: worker queue full");
			return;
		}
	}
}

static struct piece *free_piece(struct sstream *ss)
{
	for (unsigned i = 0; i < PIECES; i++)
		if (!ss->pc[i].c)
			return &ss->pc[i];
	return NULL;
}

/* The next stream (round robin) with an ADVERT and a free piece. */
static struct sstream *next_stream(struct piece **pp)
{
	for (unsigned k = 0; k < xf.nstreams; k++) {
		unsigned i = (snd.rr + k) % xf.nstreams;
		struct sstream *ss = snd.ss[i];
		if (ss && ss->qlen && (*pp = free_piece(ss))) {
			snd.rr = i + 1;
			return ss;
		}
	}
	return NULL;
}

/* Send ready chunks (in file order) into advertised buffers. State
 * advances before each send: a completion may run inside the send call
 * and re-enter (snd.pumping keeps that to this one loop). */
static void pump(void)
{
	struct sstream *ss;
	struct piece *pc;
	if (snd.pumping)
		return;
	snd.pumping = 1;
	while (!xf.failed && snd.ready && (ss = next_stream(&pc))) {
		struct xf_stream *x = ss->x;
		struct chunk *c = snd.ready;
		struct advert a = ss->q[ss->qhead];
		ss->qhead = (ss->qhead + 1) % CREDITS;
		ss->qlen--;
		uint32_t len = c->len - c->sent;
		if (a.len < len)
			len = a.len;
		uint64_t off = c->off + c->sent;
		const uint8_t *data = c->data + c->sent;
		c->sent += len;
		c->pending++;
		if (c->sent == c->len && !(snd.ready = c->next))
			snd.ready_tail = &snd.ready;
		snd.sent_off += len;
		x->bytes += len;
		x->chunks++;
		xf.progress += len;
		pc->c = c;
		pc->pending = 2;
		/* the chunk: one tagged message into the advertised buffer */
		struct iovec v = { (void *)data, len };
		int rc = ddp_send_tagged(x->s, x->st, a.stag, a.to, 0, &v, 1, pc);
		if (rc) {
			xf_fail("stream %u: tagged write: %s", ss->idx, ddp_strerror(rc));
			break;
		}
		/* then DONE on the same stream: delivered only after the write
		 * was placed (RFC 5041 §5.4, DDP-DLV-1 / DDP-ORD-5) */
		struct xf_msg m = { .type = XF_DONE, .id = a.id, .off = off, .len = len };
		struct iovec dv = { pc->msg, xf_msg_encode(&m, pc->msg) };
		rc = ddp_send_untagged(x->s, x->st, 0, 0, &dv, 1, pc);
		if (rc) {
			xf_fail("stream %u: sending DONE: %s", ss->idx, ddp_strerror(rc));
			break;
		}
	}
	snd.pumping = 0;
	send_ends();
}

int xf_send_prepare(unsigned idx, ddp_session *s, uint32_t st, void *conn)
{
	struct sstream *ss = calloc(1, sizeof(*ss));
	if (!ss)
		return DDP_ERR_NOMEM;
	struct xf_stream *x = &xf.str[idx];
	snd.ss[idx] = ss;
	x->role = ss;
	x->s = s;
	x->st = st;
	x->conn = conn;
	ss->x = x;
	ss->idx = idx;
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
	if (finish_digest())
		return;
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
		pump();
		break;
	case XF_RESULT:
		on_result(ss, &m);
		break;
	case XF_ABORT: /* the decoder let only printable text through */
		xf_fail("the receiver stopped the transfer: %s%s%s", xf_abort_name(m.code),
			m.text_len ? ": " : "", m.text);
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
	struct piece *pc = ctx;
	if (!pc || !pc->c || --pc->pending > 0)
		return;
	struct chunk *c = pc->c;
	pc->c = NULL;
	if (--c->pending == 0 && c->sent == c->len) {
		c->state = CK_FREE;
		fill();
	}
	if (!xf.failed)
		pump(); /* a piece is free again */
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
	xf_worker_stop(); /* before the buffers it reads into go */
	for (unsigned i = 0; i < snd.npool; i++)
		free(snd.pool[i].data);
	free(snd.pool);
	snd.pool = NULL;
	snd.npool = 0;
	xf_sha256_free(&snd.sha);
	for (unsigned i = 0; i < XF_MAX_STREAMS; i++) {
		struct sstream *ss = snd.ss[i];
		if (!ss)
			continue;
		free(ss);
		snd.ss[i] = NULL;
		xf.str[i].role = NULL;
	}
	if (snd.fd >= 0)
		close(snd.fd);
	snd.fd = -1;
}
