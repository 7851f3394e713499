/* ddp-xfer: the receiving ULP. Per stream: `depth` chunk buffers, each
 * registered once as an STag bound to that stream; a buffer is writable by
 * the peer only while it is advertised (DDP_ACCESS_REMOTE_WRITE is dropped
 * when its DONE arrives and given back when it is advertised again).
 * A chunk that arrives ahead of the hash frontier stays in its buffer
 * (HELD) until every earlier octet was handed on: the buffers are the
 * bounded reordering window, and the sender can never run more than
 * nstreams * depth chunks ahead. Chunks are handed on in file order to the
 * worker thread (worker.c), which hashes each and pwrite()s it at its
 * offset (--out); the buffer is advertised again when the worker is done
 * with it.
 * --out FILE is written as FILE.partial and renamed to FILE once every
 * octet arrived, so FILE never holds a partial transfer; a failed transfer
 * removes FILE.partial (only a killed receiver leaves it behind). A write
 * error (disk full, EIO) stops the transfer: the receiver sends ABORT with
 * the reason on every stream, closes in order, and the sender reports
 * it. */
#include "xfer.h"
#include "worker.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { RB_FREE, RB_ADVERTISED, RB_HELD, RB_WORK };

#define WORK_BLOCK (256u << 10) /* hashed, then written: half of a small L2 */

struct rbuf {
	struct xf_job job; /* first: the job is the buffer */
	struct rstream *rs;
	uint32_t id, stag;
	uint8_t *data;
	int state;
	int msg_busy;	  /* the ADVERT below is not yet sent */
	uint32_t placed;  /* octets of the tagged message placed in it */
	uint64_t off;	  /* HELD: file offset and length */
	uint32_t len;
	uint8_t msg[XF_MSG_MAX];
};

struct rstream {
	struct xf_stream *x;
	unsigned idx, depth, nposted;
	struct rbuf *b;
	uint8_t (*rx)[XF_MSG_MAX];
	unsigned adv_out; /* ADVERTs without their DONE */
	int end_got, result_sent, result_done;
	uint8_t result_msg[XF_MSG_MAX]; /* RESULT, or ABORT in its place */
	uint8_t abort_tag;		/* send_done context of the ABORT */
};

static struct {
	int fd; /* --out, or -1 */
	char *partial; /* FILE.partial while it is written, or NULL (no --out,
			* or --out is not a regular file: /dev/null, a FIFO) */
	uint64_t id;
	int have_id;
	unsigned joined, results_done;
	uint64_t frontier; /* octets handed to the worker, in file order */
	uint64_t hashed;   /* octets the worker hashed (and wrote) */
	struct xf_sha256 sha;
	uint8_t digest[XF_SHA256_LEN];
	int complete;
	struct rstream *rs[XF_MAX_STREAMS];
} rcv = { .fd = -1 };

int xf_recv_init(void)
{
	if (xf_sha256_init(&rcv.sha)) {
		xf_fail("out of memory");
		return -1;
	}
	/* at most every chunk buffer of XF_MAX_STREAMS streams in the worker */
	if (xf_worker_start(xf.base, XF_MAX_STREAMS * xf.o.depth)) {
		xf_fail("cannot start the worker thread: %s", strerror(errno));
		return -1;
	}
	if (!xf.o.out)
		return 0;
	struct stat st;
	const char *path = xf.o.out;
	if (stat(xf.o.out, &st) != 0 || S_ISREG(st.st_mode)) {
		size_t n = strlen(xf.o.out) + sizeof(".partial");
		if (!(rcv.partial = malloc(n))) {
			xf_fail("out of memory");
			return -1;
		}
		snprintf(rcv.partial, n, "%s.partial", xf.o.out);
		path = rcv.partial;
	}
	rcv.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (rcv.fd < 0) {
		xf_fail("%s: %s", path, strerror(errno));
		free(rcv.partial);
		rcv.partial = NULL; /* not ours to remove */
		return -1;
	}
	return 0;
}

/* Our own trouble with --out (err: errno of the write / close / rename):
 * report it, tell the sender why on every stream (ABORT in the place of
 * the RESULT: the sender always has a buffer posted for it), then close in
 * order so the ABORTs leave before the connections end. */
static void stop_for_local_error(const char *what, int err)
{
	if (xf.failed || xf.succeeded)
		return;
	uint8_t code = err == ENOSPC || err == EDQUOT || err == EFBIG ? XF_ABORT_DISK_FULL
								      : XF_ABORT_WRITE;
	for (unsigned i = 0; i < xf.nstreams && i < XF_MAX_STREAMS; i++) {
		struct rstream *rs = rcv.rs[i];
		if (!rs || !rs->x->s || !rs->x->joined || rs->result_sent)
			continue;
		struct xf_msg m;
		xf_abort_msg(&m, code, strerror(err));
		struct iovec v = { rs->result_msg, xf_msg_encode(&m, rs->result_msg) };
		rs->result_sent = 1;
		ddp_send_untagged(rs->x->s, rs->x->st, 0, 0, &v, 1, &rs->abort_tag);
	}
	xf_fail_notify("%s: %s: %s (the sender was told; %s)", rcv.partial ? rcv.partial : xf.o.out,
		       what, strerror(err),
		       rcv.partial ? "the partial file is removed" : "the output is incomplete");
}

static int setup(struct rstream *rs, ddp_session *s, uint32_t st, const char **why);

int xf_recv_join(ddp_session *s, uint32_t st, void *conn, const uint8_t *pd, size_t len,
		 unsigned *idx, const char **why)
{
	struct xf_hello h;
	if (xf_hello_decode(pd, len, &h) != 0) {
		*why = "not a ddp-xfer hello";
		return DDP_ERR_PROTO;
	}
	if (rcv.have_id && (h.id != rcv.id || h.nstreams != xf.nstreams)) {
		*why = "busy with another transfer";
		return DDP_ERR_BUSY;
	}
	if (rcv.have_id && rcv.rs[h.idx]) {
		*why = "stream index already joined";
		return DDP_ERR_PROTO;
	}
	struct rstream *rs = calloc(1, sizeof(*rs));
	if (!rs) {
		*why = "out of memory";
		return DDP_ERR_NOMEM;
	}
	/* credits: the sender posted h.credits buffers; one stays free for
	 * the RESULT, the rest bound our ADVERTs in flight */
	rs->depth = xf.o.depth < h.credits - 1u ? xf.o.depth : h.credits - 1u;
	/* the sender sends at most one DONE per outstanding ADVERT, then one
	 * END: depth + 1 buffers (+1 spare) can never be overrun */
	rs->nposted = rs->depth + 2;
	rs->idx = h.idx;
	rs->b = calloc(rs->depth, sizeof(*rs->b));
	rs->rx = calloc(rs->nposted, XF_MSG_MAX);
	struct xf_stream *x = &xf.str[h.idx];
	x->s = s;
	x->st = st;
	x->conn = conn;
	x->role = rs;
	rs->x = x;
	rcv.rs[h.idx] = rs; /* freed by xf_recv_free() from here on */
	int rc = setup(rs, s, st, why);
	if (rc) { /* our own trouble, not the peer's: the transfer fails */
		xf_fail("stream %u: %s: %s", rs->idx, *why, ddp_strerror(rc));
		return rc;
	}
	if (!rcv.have_id) {
		rcv.have_id = 1;
		rcv.id = h.id;
		xf.nstreams = h.nstreams;
	}
	x->joined = 1;
	rcv.joined++;
	*idx = h.idx;
	return 0;
}

/* Chunk buffers and their STags (bound to (s, st)), posted buffers. */
static int setup(struct rstream *rs, ddp_session *s, uint32_t st, const char **why)
{
	*why = "out of memory";
	if (!rs->b || !rs->rx)
		return DDP_ERR_NOMEM;
	for (unsigned i = 0; i < rs->depth; i++) {
		struct rbuf *b = &rs->b[i];
		b->rs = rs;
		b->id = i;
		if (!(b->data = malloc(xf.o.chunk)))
			return DDP_ERR_NOMEM;
		ddp_mr_attr a = { .addr = b->data, .len = xf.o.chunk, .to_base = 0,
				  .access = DDP_ACCESS_REMOTE_WRITE, .session = s, .stream = st };
		int rc = ddp_stag_register(xf.ctx, &a, &b->stag);
		if (rc) {
			*why = "STag registration failed";
			return rc;
		}
	}
	for (unsigned i = 0; i < rs->nposted; i++) {
		int rc = ddp_post_recv(s, st, 0, rs->rx[i], XF_MSG_MAX, rs);
		if (rc) {
			*why = "posting buffers failed";
			return rc;
		}
	}
	return 0;
}

static void advertise(struct rbuf *b)
{
	struct rstream *rs = b->rs;
	if (xf.failed || rs->end_got)
		return;
	int rc = ddp_stag_set_access(xf.ctx, b->stag, DDP_ACCESS_REMOTE_WRITE);
	if (rc) {
		xf_fail("stream %u: re-enabling STag: %s", rs->idx, ddp_strerror(rc));
		return;
	}
	b->state = RB_ADVERTISED;
	b->placed = 0;
	rs->adv_out++;
	struct xf_msg m = { .type = XF_ADVERT, .id = b->id, .stag = b->stag, .to = 0,
			    .len = xf.o.chunk };
	struct iovec v = { b->msg, xf_msg_encode(&m, b->msg) };
	b->msg_busy = 1;
	rc = ddp_send_untagged(rs->x->s, rs->x->st, 0, 0, &v, 1, b);
	if (rc)
		xf_fail("stream %u: sending ADVERT: %s", rs->idx, ddp_strerror(rc));
}

void xf_recv_start(unsigned idx)
{
	struct rstream *rs = rcv.rs[idx];
	for (unsigned i = 0; rs && i < rs->depth; i++)
		advertise(&rs->b[i]);
}

static void send_results(void)
{
	if (xf_sha256_final(&rcv.sha, rcv.digest)) {
		xf_fail("SHA-256 failed (libcrypto)");
		return;
	}
	xf_print_result(rcv.digest, rcv.frontier);
	/* one RESULT per stream, in order behind everything else on it, so
	 * the sender never sees a stream end before its RESULT */
	for (unsigned i = 0; i < xf.nstreams && !xf.failed; i++) {
		struct rstream *rs = rcv.rs[i];
		struct xf_msg m = { .type = XF_RESULT, .total = rcv.frontier };
		memcpy(m.sha, rcv.digest, XF_SHA256_LEN);
		struct iovec v = { rs->result_msg, xf_msg_encode(&m, rs->result_msg) };
		rs->result_sent = 1;
		int rc = ddp_send_untagged(rs->x->s, rs->x->st, 0, 0, &v, 1, rs);
		if (rc)
			xf_fail("stream %u: sending RESULT: %s", i, ddp_strerror(rc));
	}
}

static void check_complete(void)
{
	if (rcv.complete || xf.failed || !xf.total_known || rcv.joined < xf.nstreams ||
	    rcv.frontier != xf.total || rcv.hashed != xf.total)
		return;
	for (unsigned i = 0; i < xf.nstreams; i++)
		if (!rcv.rs[i]->end_got)
			return;
	if (rcv.fd >= 0 && close(rcv.fd) != 0) {
		rcv.fd = -1;
		stop_for_local_error("close", errno);
		return;
	}
	rcv.fd = -1;
	/* every octet is in: only now does FILE appear */
	if (rcv.partial && rename(rcv.partial, xf.o.out) != 0) {
		stop_for_local_error("rename", errno);
		return;
	}
	free(rcv.partial);
	rcv.partial = NULL;
	rcv.complete = 1;
	send_results();
}

/* Worker thread: hash the chunk and write it at its offset (--out), in
 * blocks of WORK_BLOCK: the write copies what the hash just brought into
 * the cache. */
static int work_chunk(struct xf_job *j)
{
	struct rbuf *b = (struct rbuf *)j;
	for (uint32_t done = 0; done < b->len;) {
		uint32_t n = b->len - done < WORK_BLOCK ? b->len - done : WORK_BLOCK;
		const uint8_t *p = b->data + done;
		xf_sha256_update(&rcv.sha, p, n);
		for (uint64_t off = b->off + done, left = n; rcv.fd >= 0 && left;) {
			ssize_t w = pwrite(rcv.fd, p, left, (off_t)off);
			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0)
				return errno;
			p += w;
			left -= (uint64_t)w;
			off += (uint64_t)w;
		}
		done += n;
	}
	return 0;
}

static void chunk_done(struct xf_job *j, int rc)
{
	struct rbuf *b = (struct rbuf *)j;
	if (rc) {
		stop_for_local_error("write", rc);
		return;
	}
	rcv.hashed += b->len;
	b->state = RB_FREE;
	if (!b->msg_busy)
		advertise(b);
	check_complete();
}

/* Hand every HELD chunk that continues the frontier to the worker. */
static void consume(void)
{
	for (;;) {
		struct rbuf *hit = NULL;
		for (unsigned i = 0; i < xf.nstreams && !hit; i++) {
			struct rstream *rs = rcv.rs[i];
			for (unsigned k = 0; rs && k < rs->depth && !hit; k++)
				if (rs->b[k].state == RB_HELD && rs->b[k].off == rcv.frontier)
					hit = &rs->b[k];
		}
		if (!hit)
			break;
		hit->state = RB_WORK;
		hit->job.run = work_chunk;
		hit->job.done = chunk_done;
		if (xf_worker_submit(&hit->job)) {
			xf_fail("internal error: worker queue full");
			return;
		}
		rcv.frontier += hit->len;
	}
	check_complete();
}

static int overlaps_held(uint64_t off, uint32_t len)
{
	for (unsigned i = 0; i < xf.nstreams; i++) {
		struct rstream *rs = rcv.rs[i];
		for (unsigned k = 0; rs && k < rs->depth; k++) {
			struct rbuf *b = &rs->b[k];
			if (b->state == RB_HELD && off < b->off + b->len && b->off < off + len)
				return 1;
		}
	}
	return 0;
}

static void on_done(struct rstream *rs, const struct xf_msg *m)
{
	if (m->id >= rs->depth || rs->b[m->id].state != RB_ADVERTISED) {
		xf_fail("stream %u: protocol error: DONE for buffer %u not advertised", rs->idx,
			m->id);
		return;
	}
	struct rbuf *b = &rs->b[m->id];
	/* the chunk must be exactly the one tagged message placed since the
	 * ADVERT, inside the file, and new */
	if (m->len == 0 || m->len != b->placed || m->off < rcv.frontier ||
	    m->off > UINT64_MAX - m->len || (xf.total_known && m->off + m->len > xf.total) ||
	    overlaps_held(m->off, m->len)) {
		xf_fail("stream %u: protocol error: bad DONE (offset %llu, %u octets, %u placed)",
			rs->idx, (unsigned long long)m->off, m->len, b->placed);
		return;
	}
	/* RFC 5041 §8 (DDP-SEC-6): no remote write while we hold the data */
	int rc = ddp_stag_set_access(xf.ctx, b->stag, 0);
	if (rc) {
		xf_fail("stream %u: disabling STag: %s", rs->idx, ddp_strerror(rc));
		return;
	}
	b->state = RB_HELD;
	b->off = m->off;
	b->len = m->len;
	rs->adv_out--;
	rs->x->bytes += m->len;
	rs->x->chunks++;
	xf.progress += m->len;
	consume();
}

static void on_end(struct rstream *rs, const struct xf_msg *m)
{
	if (rs->end_got || (xf.total_known && m->total != xf.total) || m->count != rs->x->chunks ||
	    rcv.frontier > m->total) {
		xf_fail("stream %u: protocol error: bad END (size %llu, %u chunks, got %u)",
			rs->idx, (unsigned long long)m->total, m->count, rs->x->chunks);
		return;
	}
	for (unsigned i = 0; i < xf.nstreams; i++) {
		struct rstream *o = rcv.rs[i];
		for (unsigned k = 0; o && k < o->depth; k++)
			if (o->b[k].state == RB_HELD && o->b[k].off + o->b[k].len > m->total) {
				xf_fail("protocol error: chunk beyond the END size");
				return;
			}
	}
	rs->end_got = 1;
	xf.total = m->total;
	xf.total_known = 1;
	check_complete();
}

static void on_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	struct xf_stream *x = xf_find(s, d->stream);
	if (d->status || !x || !x->role || xf.failed)
		return; /* flushed by teardown, or not ours */
	struct rstream *rs = x->role;
	xf_heard();
	if (d->tagged) {
		struct rbuf *b = NULL;
		for (unsigned k = 0; k < rs->depth; k++)
			if (rs->b[k].stag == d->stag)
				b = &rs->b[k];
		/* one tagged message per ADVERT (the core checked its bounds;
		 * d->to names its last segment, not its start) */
		if (!b || b->state != RB_ADVERTISED || b->placed) {
			xf_fail("stream %u: protocol error: unexpected tagged write (STag 0x%x, TO %llu, %u octets)",
				rs->idx, d->stag, (unsigned long long)d->to, d->len);
			return;
		}
		b->placed = d->len;
		return;
	}
	struct xf_msg m;
	if (xf_msg_decode(d->buf, d->len, &m) != 0) {
		xf_fail("stream %u: protocol error: bad message (%u octets)", rs->idx, d->len);
		return;
	}
	int rc = ddp_post_recv(s, d->stream, 0, d->buf, XF_MSG_MAX, rs);
	if (rc) {
		xf_fail("stream %u: re-posting a buffer: %s", rs->idx, ddp_strerror(rc));
		return;
	}
	if (m.type == XF_DONE && !rs->end_got)
		on_done(rs, &m);
	else if (m.type == XF_END)
		on_end(rs, &m);
	else
		xf_fail("stream %u: protocol error: unexpected message type %u", rs->idx, m.type);
}

static void on_send_done(ddp_session *s, uint32_t stream, void *ctx, int status, void *user)
{
	struct xf_stream *x = xf_find(s, stream);
	if (!x || !x->role || !ctx)
		return;
	if (status) {
		if (!xf.failed && !xf.succeeded)
			xf_fail("stream %u: connection to the sender lost (a send failed: %s)", stream,
				ddp_strerror(status));
		return;
	}
	struct rstream *rs = x->role;
	if (ctx == &rs->abort_tag)
		return; /* the ABORT left; xf_fail_notify closes */
	if (ctx == rs) { /* the RESULT */
		rs->result_done = 1;
		x->finished = 1;
		if (++rcv.results_done == xf.nstreams)
			xf_succeed();
		return;
	}
	struct rbuf *b = ctx;
	b->msg_busy = 0;
	if (b->state == RB_FREE) /* consumed while its ADVERT was queued */
		advertise(b);
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
	if (!x || !x->role || xf.succeeded || xf.failed)
		return;
	struct rstream *rs = x->role;
	if (rs->result_sent)
		return;
	if (ev == DDP_EV_ABORTED)
		xf_fail("stream %u: connection to the sender lost (%s)", rs->idx,
			ddp_strerror(status));
	else
		xf_fail("stream %u: the sender closed the stream before the end", rs->idx);
}

const ddp_callbacks xf_recv_callbacks = {
	.deliver = on_deliver,
	.send_done = on_send_done,
	.error = on_error,
	.stream_event = on_stream_event,
};

void xf_recv_free(void)
{
	xf_worker_stop(); /* before the buffers it reads go */
	xf_sha256_free(&rcv.sha);
	for (unsigned i = 0; i < XF_MAX_STREAMS; i++) {
		struct rstream *rs = rcv.rs[i];
		if (!rs)
			continue;
		for (unsigned k = 0; rs->b && k < rs->depth; k++) {
			if (rs->b[k].stag)
				ddp_stag_invalidate(xf.ctx, rs->b[k].stag);
			free(rs->b[k].data);
		}
		free(rs->b);
		free(rs->rx);
		free(rs);
		rcv.rs[i] = NULL;
		xf.str[i].role = NULL;
	}
	if (rcv.fd >= 0)
		close(rcv.fd);
	rcv.fd = -1;
	if (rcv.partial) /* the transfer did not complete */
		unlink(rcv.partial);
	free(rcv.partial);
	rcv.partial = NULL;
}
