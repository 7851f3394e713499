/*
 * MPA connection: start-up exchange, then the DDP LLP for one stream over
 * FPDUs (RFC 5044 §4, §7). Pure: all I/O goes through mpa_proto_io.
 */
#include "mpa/mpa_proto_int.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "mpa/mpa_rtr.h"

#ifndef IOV_MAX
#define IOV_MAX 1024
#endif
#define WRITEV_MAX (IOV_MAX < 1024 ? IOV_MAX : 1024)

static const char *const phase_names[PH_N] = {
    [PH_IDLE] = "IDLE",           [PH_WAIT_REQ] = "WAIT_REQUEST", [PH_DECIDE] = "DECIDE",
    [PH_WAIT_REP] = "WAIT_REPLY", [PH_FULL] = "FULL_OPERATION",   [PH_LEFT] = "LEFT_MPA",
    [PH_DONE] = "DONE",
};

const char *mpa_proto_phase_name(const mpa_proto *c)
{
	return c && c->phase < PH_N ? phase_names[c->phase] : "?";
}

static void raise_ev(mpa_proto *c, enum mpa_proto_event ev, int err, uint8_t ecode)
{
	if (c->io->event)
		c->io->event(c->io_ctx, ev, err, ecode);
}

static void set_want_write(mpa_proto *c, int on)
{
	if (c->want_write == on)
		return;
	c->want_write = on;
	raise_ev(c, MPA_CEV_WANT_WRITE, on, 0);
}

#define FLUSH_MAX_CALLS                                                                            \
	16 /* writev calls per flush (each up to                                                   \
	    * WRITEV_MAX pieces, ~480 KiB at MTU 1500) */

static void drop_queue(mpa_proto *c)
{
	mpa_fpdu *f = c->q_head;
	while (f) {
		mpa_fpdu *n = f->next;
		mpa_fpdu_pool_put(&c->pool, f);
		f = n;
	}
	c->q_head = c->q_tail = NULL;
	c->queued = 0;
	c->q_fpdus = 0;
}

/* start-up failed or connection lost: report once, stop everything */
static void fail(mpa_proto *c, int err, uint8_t ecode)
{
	if (c->phase == PH_DONE)
		return;
	int was_full = c->phase == PH_FULL;
	c->phase = PH_DONE;
	drop_queue(c);
	set_want_write(c, 0);
	if (was_full) {
		mpa_dfr_abort(&c->rx);
		c->swallowing = 0;
		/* a dead peer is a time-out for the ULP too */
		if (c->s)
			ddp_llp_failed(c->s, UINT32_MAX,
			               err == DDP_ERR_TIMEOUT ? err : DDP_ERR_LLP);
	}
	raise_ev(c, MPA_CEV_FAILED, err, ecode);
}

/* ------------------------------------------------------------ tx path */

static void enqueue(mpa_proto *c, mpa_fpdu *f)
{
	f->next = NULL;
	if (c->q_tail)
		c->q_tail->next = f;
	else
		c->q_head = f;
	c->q_tail = f;
	c->queued += f->wire_len - f->written;
	c->q_fpdus++;
}

static int tx_allowed(const mpa_proto *c)
{
	return c->phase == PH_FULL && c->tx_ok && !c->closing;
}

static void maybe_shutdown(mpa_proto *c)
{
	if (c->closing && !c->q_head && !c->fin_sent && c->phase == PH_FULL) {
		c->fin_sent = 1;
		c->io->shutdown(c->io_ctx, 0);
		if (c->rx_eof) {
			/* the peer's FIN came first, ours now: both halves are
			 * closed in order (RFC 5041 §6): DDP hears it too */
			c->phase = PH_DONE;
			if (c->s)
				ddp_llp_closed(c->s, UINT32_MAX);
			raise_ev(c, MPA_CEV_CLOSED, 0, 0);
		}
	}
}

/* Write as much of the queue as the transport takes, one writev per
 * round (IOV_MAX aware); complete fully written FPDUs. */
static int flush(mpa_proto *c)
{
	struct iovec v[WRITEV_MAX];

	if (c->in_flush)
		return 0;
	c->in_flush = 1;
	/* Bounded work per flush: completions run from here (ddp_llp_tx_done
	 * -> send_done) and a ULP that sends again from them keeps the queue
	 * full; with a peer that drains the socket on another CPU this loop
	 * would never end and the event loop (timers, other connections)
	 * would starve. What is left goes on the next writable event. */
	for (int calls = 0; c->q_head && c->phase == PH_FULL && calls < FLUSH_MAX_CALLS; calls++) {
		int n = 0;
		size_t total = 0;
		for (mpa_fpdu *f = c->q_head; f && n < WRITEV_MAX; f = f->next) {
			size_t skip = f->written;
			for (int i = 0; i < f->iovcnt && n < WRITEV_MAX; i++) {
				size_t l = f->iov[i].iov_len;
				if (skip >= l) {
					skip -= l;
					continue;
				}
				v[n].iov_base = (uint8_t *)f->iov[i].iov_base + skip;
				v[n].iov_len = l - skip;
				total += l - skip;
				skip = 0;
				n++;
			}
		}
		ssize_t w = c->io->writev(c->io_ctx, v, n);
		c->writevs++;
		if (w < 0) {
			c->in_flush = 0;
			fail(c, (int)w, DDP_MPA_ECODE_CLOSED);
			return (int)w;
		}
		if (w == 0)
			break;
		size_t left = (size_t)w;
		c->queued -= left;
		while (left > 0 && c->q_head) {
			mpa_fpdu *f = c->q_head;
			size_t need = f->wire_len - f->written;
			if (left < need) {
				f->written += left;
				break;
			}
			left -= need;
			c->q_head = f->next;
			if (!c->q_head)
				c->q_tail = NULL;
			c->q_fpdus--;
			int pending = f->pending;
			mpa_fpdu_pool_put(&c->pool, f);
			if (pending && c->s)
				ddp_llp_tx_done(c->s, 0);
			if (c->phase != PH_FULL)
				break;
		}
		if ((size_t)w < total)
			break; /* the transport is full */
	}
	c->in_flush = 0;
	if (c->phase != PH_FULL)
		return 0;
	set_want_write(c, c->q_head != NULL);
	if (c->blocked && c->queued < c->cfg.tx_cap && c->q_fpdus < MPA_TX_FPDU_MAX) {
		c->blocked = 0;
		ddp_llp_writable(c->s);
	}
	maybe_shutdown(c);
	return 0;
}

static int llp_send(void *llp, uint32_t stream, const struct iovec *iov, int iovcnt, size_t len,
                    unsigned flags)
{
	mpa_proto *c = llp;
	mpa_fpdu *f;

	if (stream != 0)
		return DDP_ERR_INVAL;
	if (c->phase == PH_DONE || c->phase == PH_LEFT || c->closing)
		return DDP_ERR_CLOSED;
	/* before full operation, before the Responder's first valid FPDU
	 * (RFC 5044 §7.1.4), or over the queue caps: not now */
	if (!tx_allowed(c) || c->queued >= c->cfg.tx_cap || c->q_fpdus >= MPA_TX_FPDU_MAX) {
		c->blocked = 1;
		c->agains++;
		return DDP_ERR_AGAIN;
	}
	if (len > c->mulpdu)
		return DDP_ERR_TOOBIG;
	int rc = mpa_fpdu_pool_build(&c->pool, &c->tx, iov, iovcnt, len, &f);
	if (rc < 0)
		return rc;
	f->pending = 1;
	enqueue(c, f);
	/* Writing happens on flush (on writable / at the end of the loop
	 * iteration), so many small sends go out in one writev. */
	set_want_write(c, 1);
	return DDP_LLP_PENDING;
}

static uint32_t llp_mulpdu(void *llp)
{
	mpa_proto *c = llp;
	return c->mulpdu;
}

static void llp_close(void *llp, int abortive)
{
	mpa_proto *c = llp;

	if (c->phase == PH_DONE)
		return;
	if (abortive || c->phase != PH_FULL) {
		c->phase = PH_DONE;
		drop_queue(c);
		set_want_write(c, 0);
		mpa_dfr_abort(&c->rx);
		c->io->shutdown(c->io_ctx, 1);
		raise_ev(c, MPA_CEV_CLOSED, DDP_ERR_ABORTED, 0);
		return;
	}
	c->closing = 1;
	if (c->blocked)
		c->blocked = 0;
	/* the FIN goes from the next flush, after what is queued: from the
	 * loop, so that a close completed by it (the peer's FIN came first)
	 * is reported there, never inside the ULP's close call (ddp.h,
	 * "Callbacks") */
	set_want_write(c, 1);
}

static void llp_close_stream(void *llp, uint32_t stream, int abortive)
{
	if (stream == 0)
		llp_close(llp, abortive);
}

static int llp_addr(void *llp, int peer, char *buf, size_t len)
{
	mpa_proto *c = llp;
	if (!c->io->addr)
		return DDP_ERR_UNSUPPORTED;
	return c->io->addr(c->io_ctx, peer, buf, len);
}

static void llp_close_deadline(void *llp, unsigned ms)
{
	mpa_proto *c = llp;
	if (c->phase == PH_DONE)
		return; /* down already */
	if (c->io->close_deadline)
		c->io->close_deadline(c->io_ctx, ms);
	else
		llp_close(llp, 1); /* no timer below: no wait either */
}

const ddp_llp_ops mpa_proto_llp_ops = {
    .send = llp_send,
    .mulpdu = llp_mulpdu,
    .close_stream = llp_close_stream,
    .close = llp_close,
    .addr = llp_addr,
    .close_deadline = llp_close_deadline,
};

/* ---------------------------------------------------------- start-up */

static int write_startup(mpa_proto *c)
{
	while (c->sdone < c->slen) {
		struct iovec v = {c->sbuf + c->sdone, c->slen - c->sdone};
		ssize_t w = c->io->writev(c->io_ctx, &v, 1);
		if (w < 0) {
			fail(c, (int)w, DDP_MPA_ECODE_CLOSED);
			return (int)w;
		}
		if (w == 0) {
			set_want_write(c, 1);
			return 0;
		}
		c->sdone += (size_t)w;
	}
	set_want_write(c, 0);
	if (c->reject_after_write) {
		c->reject_after_write = 0;
		raise_ev(c, MPA_CEV_REJECTED, DDP_ERR_REJECTED, 0);
	}
	return 0;
}

static int encode_startup(mpa_proto *c, const mpa_frame *f)
{
	int rc = mpa_frame_encode(f, c->sbuf, sizeof(c->sbuf), &c->slen);
	c->sdone = 0;
	return rc;
}

static void enter_full(mpa_proto *c)
{
	c->phase = PH_FULL;
	c->tx.pos = 0;
	c->tx.markers = c->res.tx_markers;
	c->tx.crc = c->res.crc;
	mpa_dfr_init(&c->rx, c->res.rx_markers, c->res.crc, c->cfg.rx_max_ulpdu, &mpa_proto_sink,
	             c);
	/* FPDUs above MPA_STAGE_MAX and runs of small ones go through a
	 * ring (mpa_readahead.h), allocated when they come and given back
	 * when the connection goes quiet (mpa_proto_quiet) */
	mpa_ra_set_ring_lazy(&c->rx.ra, c->cfg.stage_max > MPA_STAGE_MAX);
	mpa_dfr_set_stage_max(&c->rx, c->cfg.stage_max);
	mpa_dfr_set_readv(&c->rx, c->io->readv);
	uint32_t m = mpa_mulpdu(c->cfg.emss, c->tx.markers);
	c->mulpdu = m;
	if (c->s)
		ddp_llp_mulpdu_changed(c->s, m);
	if (c->cfg.initiator) {
		/* RFC 5044 §7.1.4: the Initiator sends the first FPDU; with
		 * peer-to-peer it MUST be the RTR (RFC 6581 §9.2). */
		c->tx_ok = 1;
		if (c->res.p2p) {
			size_t hl, pn;
			mpa_fpdu *f;
			mpa_rtr_build(c->res.rtr, c->rtr_hdr, &hl, c->rtr_pl, &pn);
			struct iovec iov[2] = {{c->rtr_hdr, hl}, {c->rtr_pl, pn}};
			if (mpa_fpdu_build(&c->tx, iov, pn ? 2 : 1, hl + pn, &f) < 0) {
				fail(c, DDP_ERR_NOMEM, DDP_MPA_ECODE_LOCAL_CATASTROPHIC);
				return;
			}
			f->pending = 0; /* ours: no ddp_llp_tx_done() */
			enqueue(c, f);
			set_want_write(c, 1);
		}
	} else {
		c->tx_ok = 0;
		c->expect_rtr = c->res.p2p;
	}
	raise_ev(c, MPA_CEV_UP, 0, 0);
	if (c->phase == PH_FULL && c->s && c->tx_ok)
		ddp_llp_writable(c->s);
}

static void got_request(mpa_proto *c)
{
	c->phase = PH_DECIDE;
	raise_ev(c, MPA_CEV_REQUEST, 0, 0);
}

static void got_reply(mpa_proto *c)
{
	uint8_t ec = 0;
	int rc = mpa_check_reply(&c->cfg.local, &c->req, &c->sp.frame, &c->res, &ec);
	c->have_res = 1;
	if (rc == DDP_ERR_REJECTED) {
		/* RFC 5044 §7.1.3: R=1, leave MPA (TCP stays to the ULP) */
		c->phase = PH_LEFT;
		raise_ev(c, MPA_CEV_REJECTED, DDP_ERR_REJECTED, 0);
		return;
	}
	if (rc < 0) {
		fail(c, DDP_ERR_PROTO, ec);
		return;
	}
	enter_full(c);
}

static int startup_read(mpa_proto *c)
{
	uint8_t buf[MPA_FRAME_HDR_LEN + MPA_PD_MAX + 1];

	for (;;) {
		ssize_t r = c->io->read(c->io_ctx, buf, sizeof(buf));
		if (r == 0)
			return 0;
		if (r < 0) {
			/* RFC 5044 §8 code 1: lost or closed during start-up */
			fail(c, (int)r, DDP_MPA_ECODE_CLOSED);
			return (int)r;
		}
		if (c->phase != PH_WAIT_REQ && c->phase != PH_WAIT_REP) {
			/* spec §2: nothing may arrive while we decide (the
			 * peer has not seen our Reply yet) */
			fail(c, DDP_ERR_PROTO, DDP_MPA_ECODE_BAD_FRAME);
			return DDP_ERR_PROTO;
		}
		size_t used;
		int rc = mpa_sp_feed(&c->sp, buf, (size_t)r, &used);
		if (rc == DDP_ERR_NEED_MORE)
			continue;
		if (rc < 0) {
			/* RFC 5044 §7.1: improperly formatted -> close */
			fail(c, DDP_ERR_PROTO, c->sp.ecode);
			return rc;
		}
		if (c->phase == PH_WAIT_REQ)
			got_request(c);
		else
			got_reply(c);
		return 0;
	}
}

int mpa_proto_on_readable(mpa_proto *c)
{
	if (!c)
		return DDP_ERR_INVAL;
	switch (c->phase) {
	case PH_WAIT_REQ:
	case PH_WAIT_REP:
	case PH_DECIDE: {
		int rc = startup_read(c);
		if (rc < 0 || c->phase != PH_FULL)
			return rc;
		break; /* octets after a Reply were rejected by the parser */
	}
	case PH_FULL:
		break;
	default:
		return DDP_ERR_STATE;
	}
	if (c->phase != PH_FULL || c->rx_eof)
		return 0;
	int rc = mpa_dfr_run(&c->rx, c->io->read, c->io_ctx);
	if (rc == DDP_ERR_NEED_MORE || c->phase != PH_FULL)
		return 0;
	if (rc == DDP_ERR_CLOSED) {
		c->rx_eof = 1;
		raise_ev(c, MPA_CEV_STOP_READ, 0, 0);
		if (mpa_dfr_abort(&c->rx)) {
			/* FIN in the middle of an FPDU: RFC 5044 §8 code 1 */
			fail(c, DDP_ERR_LLP, DDP_MPA_ECODE_CLOSED);
			return DDP_ERR_LLP;
		}
		/* RFC 5044 §7.2 / RFC 5041 §6: tell DDP about the FIN */
		if (c->fin_sent) {
			c->phase = PH_DONE;
			ddp_llp_closed(c->s, UINT32_MAX);
			raise_ev(c, MPA_CEV_CLOSED, 0, 0);
			return 0;
		}
		ddp_llp_peer_closed(c->s, 0);
		return 0;
	}
	fail(c, rc, DDP_MPA_ECODE_CLOSED);
	return rc;
}

int mpa_proto_on_writable(mpa_proto *c)
{
	if (!c)
		return DDP_ERR_INVAL;
	if (c->sdone < c->slen) {
		int rc = write_startup(c);
		if (rc < 0 || c->sdone < c->slen)
			return rc;
	}
	if (c->phase == PH_FULL)
		return flush(c);
	set_want_write(c, 0);
	return 0;
}

void mpa_proto_stop(mpa_proto *c)
{
	if (!c)
		return;
	c->phase = PH_DONE;
	drop_queue(c);
	c->want_write = 0;
	mpa_dfr_abort(&c->rx); /* a segment being read goes nowhere */
	c->swallowing = 0;
}

void mpa_proto_on_timeout(mpa_proto *c)
{
	if (c && mpa_proto_starting(c))
		fail(c, DDP_ERR_TIMEOUT, 0);
}

void mpa_proto_on_failed(mpa_proto *c, int err)
{
	if (c)
		fail(c, err < 0 ? err : DDP_ERR_LLP, DDP_MPA_ECODE_CLOSED);
}

void mpa_proto_set_emss(mpa_proto *c, uint32_t emss)
{
	if (!c || emss == 0)
		return;
	c->cfg.emss = emss;
	uint32_t m = mpa_mulpdu(emss, c->phase == PH_FULL ? c->tx.markers : 1);
	if (m != c->mulpdu) {
		c->mulpdu = m;
		/* RFC 5041 §3 (DDP-LLP-1): MULPDU changes go to DDP */
		if (c->s)
			ddp_llp_mulpdu_changed(c->s, m);
	}
}

static int decide(mpa_proto *c, const void *priv, uint16_t priv_len, int accept)
{
	if (!c || c->phase != PH_DECIDE)
		return DDP_ERR_STATE;
	if (priv_len && !priv)
		return DDP_ERR_INVAL;
	mpa_local l = c->cfg.local;
	l.priv = priv;
	l.priv_len = priv_len;
	mpa_frame rep;
	/* RFC 5044 §7.1.2: accept with R=0, reject with R=1 (both may carry
	 * private data); the peer's IRD/ORD are kept either way. */
	int rc = mpa_respond(&l, &c->sp.frame, &rep, &c->res);
	if (rc < 0)
		return rc;
	if (!accept)
		rep.flags |= MPA_FLAG_R;
	c->have_res = 1;
	rc = encode_startup(c, &rep);
	if (rc < 0)
		return DDP_ERR_INVAL;
	if (!accept) {
		c->phase = PH_LEFT;
		c->reject_after_write = 1;
		return write_startup(c);
	}
	rc = write_startup(c);
	if (rc < 0)
		return rc;
	enter_full(c);
	return 0;
}

int mpa_proto_accept(mpa_proto *c, const void *priv, uint16_t priv_len)
{
	return decide(c, priv, priv_len, 1);
}

int mpa_proto_reject(mpa_proto *c, const void *priv, uint16_t priv_len)
{
	return decide(c, priv, priv_len, 0);
}

int mpa_proto_new(const mpa_proto_config *cfg, const mpa_proto_io *io, void *io_ctx,
                  mpa_proto **out)
{
	if (!cfg || !io || !io->read || !io->writev || !io->shutdown || !out)
		return DDP_ERR_INVAL;
	const mpa_local *l = &cfg->local;
	if (l->rev < MPA_REV_MIN || l->rev > MPA_REV_MAX || (l->priv_len && !l->priv) ||
	    (size_t)l->priv_len + (l->rev >= 2 ? MPA_ENH_LEN : 0) > MPA_PD_MAX)
		return DDP_ERR_INVAL;
	mpa_proto *c = calloc(1, sizeof(*c));
	if (!c)
		return DDP_ERR_NOMEM;
	c->cfg = *cfg;
	if (l->priv_len)
		memcpy(c->local_pd, l->priv, l->priv_len);
	c->cfg.local.priv = l->priv_len ? c->local_pd : NULL;
	if (!c->cfg.emss)
		c->cfg.emss = 1460;
	if (!c->cfg.tx_cap)
		c->cfg.tx_cap = 1u << 20;
	if (c->cfg.stage_max == 0)
		c->cfg.stage_max = MPA_RING_SWITCH;
	else if (c->cfg.stage_max == UINT32_MAX)
		c->cfg.stage_max = 0;
	c->io = io;
	c->io_ctx = io_ctx;
	/* until the markers are known, assume the smaller MULPDU */
	c->mulpdu = mpa_mulpdu(c->cfg.emss, 1);
	mpa_sp_init(&c->sp, cfg->initiator, cfg->priv_cap);
	*out = c;
	return 0;
}

void mpa_proto_free(mpa_proto *c)
{
	if (!c)
		return;
	drop_queue(c);
	mpa_fpdu_pool_drain(&c->pool);
	mpa_ra_fini(&c->rx.ra);
	free(c);
}

int mpa_proto_attach(mpa_proto *c, ddp_session *s)
{
	if (!c || !s)
		return DDP_ERR_INVAL;
	c->s = s;
	return 0;
}

int mpa_proto_start(mpa_proto *c)
{
	if (!c)
		return DDP_ERR_INVAL;
	if (c->phase != PH_IDLE)
		return DDP_ERR_STATE;
	if (!c->cfg.initiator) {
		c->phase = PH_WAIT_REQ;
		return 0;
	}
	int rc = mpa_build_request(&c->cfg.local, &c->req);
	if (rc < 0)
		return rc;
	rc = encode_startup(c, &c->req);
	if (rc < 0)
		return DDP_ERR_INVAL;
	c->phase = PH_WAIT_REP;
	return write_startup(c);
}

size_t mpa_proto_quiet(mpa_proto *c)
{
	size_t n = 0;
	if (!c)
		return 0;
	/* the ring's stage area holds an FPDU being staged until its CRC
	 * passed (states STAGE and TRAILER) */
	if (c->phase == PH_FULL && !c->rx.staged && mpa_ra_release(&c->rx.ra))
		n += MPA_RING_ALLOC;
	n += (size_t)c->pool.alive * MPA_FPDU_BLOCK;
	mpa_fpdu_pool_drain(&c->pool);
	n -= (size_t)c->pool.alive * MPA_FPDU_BLOCK;
	return n;
}
