/* Unit tests: the header-first receive machine of the SCTP adapter
 * (adapters/sctp/sctp_rx.c + session control in sctp_ddp.c) against a
 * scripted message source.
 *
 * Link seam: this file defines every sctp_ll_* function that sctp_ddp.o
 * and sctp_rx.o use, so the linker takes them from here and never pulls
 * sctp_usrsctp.o out of libddp_sctp.a. The fake hands each SCTP message
 * out in random pieces (byte chopper), with or without the
 * SCTP_RECVNXTINFO length of the next one, and may run dry mid-message. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include <ddp/ddp.h>
#include <ddp/llp.h>
#include "chopper.h"
#include "ddpwire.h"
#include "nullllp.h"
#include "ddp_test.h"
#include "sctp/sctp_ddp_int.h"

/* ------------------------------------------------------------ fake ll */

#define QMAX 256
struct fmsg {
	uint16_t sid;
	uint32_t ppid;
	uint8_t data[1200];
	size_t len, off;
	long adj; /* RECVNXTINFO announces len + adj (a length that lies) */
};
static struct fmsg q[QMAX];
static size_t qn, qh;
static chopper ch;
static int known_next = 1;
static unsigned again_pct;
static size_t max_piece = 7;
static int ll_closed = -1;
static int send_full; /* sctp_ll_send answers DDP_ERR_AGAIN */
static uint8_t sent_log[16][SCTP_CTL_MAX_LEN];
static size_t sent_len[16], nsent;

long sctp_ll_recv(sctp_ll_assoc *a, void *buf, size_t len, sctp_ll_rinfo *ri)
{
	struct fmsg *m;
	size_t n;
	(void)a;
	if (qh == qn || chopper_chance(&ch, again_pct))
		return DDP_ERR_AGAIN;
	m = &q[qh];
	n = chopper_piece(&ch, m->len - m->off, max_piece);
	if (n > len)
		n = len;
	memcpy(buf, m->data + m->off, n);
	m->off += n;
	memset(ri, 0, sizeof(*ri));
	ri->sid = m->sid;
	ri->ppid = m->ppid;
	ri->unordered = 1;
	ri->eor = m->off == m->len;
	/* RECVNXTINFO: the message after the one being read */
	if (known_next && qh + 1 < qn) {
		ri->next_valid = 1;
		ri->next_sid = q[qh + 1].sid;
		ri->next_ppid = q[qh + 1].ppid;
		ri->next_len = (uint32_t)((long)q[qh + 1].len + q[qh + 1].adj);
	}
	if (ri->eor)
		qh++;
	return (long)n;
}

int sctp_ll_send(sctp_ll_assoc *a, uint16_t sid, uint32_t ppid,
		 const void *buf, size_t len)
{
	(void)a;
	(void)sid;
	(void)ppid;
	if (send_full)
		return DDP_ERR_AGAIN;
	if (nsent < 16 && len <= SCTP_CTL_MAX_LEN) {
		memcpy(sent_log[nsent], buf, len);
		sent_len[nsent] = len;
	}
	nsent++;
	return 0;
}

int sctp_ll_sendv(sctp_ll_assoc *a, uint16_t sid, uint32_t ppid,
		  const struct iovec *iov, int iovcnt)
{
	uint8_t buf[SCTP_CTL_MAX_LEN];
	size_t len = 0;
	for (int i = 0; i < iovcnt; i++) {
		if (len + iov[i].iov_len <= sizeof(buf))
			memcpy(buf + len, iov[i].iov_base, iov[i].iov_len);
		len += iov[i].iov_len;
	}
	return sctp_ll_send(a, sid, ppid, buf, len <= sizeof(buf) ? len : 0);
}

void sctp_ll_close(sctp_ll_assoc *a, int abortive)
{
	(void)a;
	ll_closed = abortive;
}

void sctp_ll_free(sctp_ll_assoc *a) { (void)a; }
/* the deferral never runs here: ddp_ctx_free() releases what waits */
static int defer_token;
sctp_ll_defer *sctp_ll_ep_defer(sctp_ll_ep *ep, void (*fn)(void *), void *arg)
{
	(void)ep, (void)fn, (void)arg;
	return (sctp_ll_defer *)&defer_token;
}
void sctp_ll_defer_cancel(sctp_ll_defer *d) { (void)d; }
void sctp_ll_later(sctp_ll_assoc *a) { (void)a; }
const char *sctp_ll_peer_fmt(const sctp_ll_assoc *a, char *buf)
{
	(void)a;
	strcpy(buf, "192.0.2.1:9899");
	return buf;
}

const char *sctp_ll_local_fmt(const sctp_ll_assoc *a, char *buf)
{
	(void)a;
	strcpy(buf, "192.0.2.2:9899");
	return buf;
}
void sctp_ll_want_writable(sctp_ll_assoc *a) { (void)a; }
int sctp_ll_path_status(sctp_ll_assoc *a, sctp_ll_path *out) { (void)a; (void)out; return DDP_ERR_SYS; }
long sctp_ll_queued_octets(sctp_ll_assoc *a) { (void)a; return -1; }
uint16_t sctp_ll_nstreams(const sctp_ll_assoc *a) { (void)a; return 4; }
uint32_t sctp_ll_max_msg(const sctp_ll_assoc *a) { (void)a; return 1100; }
uint32_t sctp_ll_max_msg_rx(const sctp_ll_assoc *a) { (void)a; return 1100; }
void sctp_ll_ep_set_log(sctp_ll_ep *ep, struct ddp_ctx *ctx) { (void)ep; (void)ctx; }
const char *sctp_ll_assoc_peer_abort(const sctp_ll_assoc *a) { (void)a; return ""; }
void sctp_ll_assoc_set_cb(sctp_ll_assoc *a, const sctp_ll_assoc_cb *cb,
			  void *user) { (void)a; (void)cb; (void)user; }
int sctp_ll_connect(sctp_ll_ep *ep, const char *addr, int port,
		    const sctp_ll_assoc_cb *cb, void *user, sctp_ll_assoc **out)
{ (void)ep; (void)addr; (void)port; (void)cb; (void)user; (void)out;
  return DDP_ERR_UNSUPPORTED; }
int sctp_ll_ep_new(struct event_base *base, const sctp_ll_config *cfg,
		   sctp_ll_ep **out)
{ (void)base; (void)cfg; (void)out; return DDP_ERR_UNSUPPORTED; }
void sctp_ll_ep_free(sctp_ll_ep *ep) { (void)ep; }
const char *sctp_ll_assoc_peer(const sctp_ll_assoc *a, char *buf)
{ (void)a; buf[0] = '?'; buf[1] = 0; return buf; }
void sctp_ll_set_tick(sctp_ll_ep *ep, void (*tick)(void *user), void *user)
{ (void)ep; (void)tick; (void)user; }
int sctp_ll_ep_port(const sctp_ll_ep *ep) { (void)ep; return 0; }
int sctp_ll_listen(sctp_ll_ep *ep, sctp_ll_accept_cb cb, void *user)
{ (void)ep; (void)cb; (void)user; return DDP_ERR_UNSUPPORTED; }
void sctp_ll_ep_stats(const sctp_ll_ep *ep, uint64_t *rx, uint64_t *bad,
		      uint64_t *tx)
{ (void)ep; if (rx) *rx = 0; if (bad) *bad = 0; if (tx) *tx = 0; }

/* ------------------------------------------------------------ harness */

#define NSTR 4
#define BUFSZ 1000

static ddp_ctx *ctx;
static nullllp nl;
static struct ddp_sctp_ep ep;
static struct ddp_sctp_assoc as;
static struct ddp_sctp_assoc *a = &as;
static uint8_t rbuf[NSTR][64][BUFSZ];
static char log_[4096];
static unsigned long ndeliv, nerr;
static ddp_error_info last_err;
static int initiates;
static uint64_t reorder_max; /* ddp_ctx_config.max_reorder_bytes */
static char logged[8192];     /* the context's log hook, one line each */
static unsigned nlogged;

static void on_log(void *u, enum ddp_log_level level, const char *msg)
{
	(void)u;
	(void)level;
	nlogged++;
	strncat(logged, msg, sizeof(logged) - strlen(logged) - 2);
	strcat(logged, "\n");
}

static void logf_(const char *s)
{
	strncat(log_, s, sizeof(log_) - strlen(log_) - 1);
}

static void deliver(ddp_session *s, const ddp_delivery *d, void *u)
{
	(void)s;
	(void)u;
	if (d->status)
		return;
	ndeliv++;
	logf_("D");
}

static void on_error(ddp_session *s, const ddp_error_info *e, void *u)
{
	(void)s;
	(void)u;
	nerr++;
	last_err = *e;
}

static void stream_event(ddp_session *s, uint32_t st, enum ddp_stream_event ev,
			 int status, void *u)
{
	(void)s;
	(void)st;
	(void)status;
	(void)u;
	logf_(ev == DDP_EV_HALF_CLOSED ? "H" : "C");
}

static void on_ctl(ddp_sctp_assoc *x, uint32_t stream, enum ddp_sctp_event ev,
		   int status, const void *pd, size_t len, void *u)
{
	(void)status;
	(void)u;
	if (ev != DDP_SCTP_INITIATE)
		return;
	initiates++;
	assert_int_equal(len, 2);
	assert_memory_equal(pd, "hi", 2);
	for (int i = 0; i < 64; i++)
		assert_int_equal(ddp_post_recv(x->s, stream, 0, rbuf[stream][i],
					       BUFSZ, NULL), 0);
	assert_int_equal(ddp_sctp_accept(x, stream, "ok", 2), 0);
}

static void on_assoc(ddp_sctp_assoc *x, ddp_session *s, int st, void *u)
{
	(void)x;
	(void)s;
	(void)st;
	(void)u;
}

static int setup(void **state)
{
	ddp_session_config sc;
	ddp_callbacks cb;
	(void)state;
	memset(q, 0, sizeof(q));
	qn = qh = 0;
	nsent = 0;
	ll_closed = -1;
	send_full = 0;
	known_next = 1;
	again_pct = 0;
	max_piece = 7;
	ndeliv = nerr = 0;
	initiates = 0;
	log_[0] = 0;
	chopper_seed(&ch, 42);
	ddp_ctx_config cc;
	memset(&cc, 0, sizeof(cc));
	cc.max_reorder_bytes = reorder_max;
	cc.log = on_log;
	logged[0] = 0;
	nlogged = 0;
	assert_int_equal(ddp_ctx_new(&cc, &ctx), 0);
	memset(&ep, 0, sizeof(ep));
	ep.cfg.ctx = ctx;
	ep.cfg.max_pending_initiates = 2;
	ep.cfg.max_ctl_queue_bytes = 400;
	ep.cfg.sctp.session_ctl = on_ctl;
	ep.cfg.sctp.assoc = on_assoc;
	memset(&as, 0, sizeof(as));
	a->ep = &ep;
	a->ll = (sctp_ll_assoc *)&nl; /* opaque to the fake */
	a->nstreams = NSTR;
	a->max_msg = 1100;
	a->mulpdu = 1000;
	a->stage = malloc(a->max_msg + 1);
	assert_int_equal(sctp_ss_table_new(a), 0);
	memset(&nl, 0, sizeof(nl));
	nl.mulpdu = 1000;
	memset(&sc, 0, sizeof(sc));
	sc.nstreams = NSTR;
	memset(&cb, 0, sizeof(cb));
	cb.deliver = deliver;
	cb.error = on_error;
	cb.stream_event = stream_event;
	assert_int_equal(ddp_session_new(ctx, &sc, &nullllp_ops, &nl, &cb, NULL,
					 &a->s), 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	a->down = 1;
	ddp_session_free(a->s);
	sctp_ctl_drop_all(a);
	sctp_ss_table_free(a);
	free(a->stage);
	ddp_ctx_free(ctx);
	reorder_max = 0;
	return 0;
}

static int setup_no_reorder_memory(void **state)
{
	reorder_max = 1; /* no reorder ring fits in the context */
	return setup(state);
}

static void push(uint16_t sid, uint32_t ppid, const void *b, size_t n)
{
	assert_true(qn < QMAX && n <= sizeof(q[0].data));
	q[qn].sid = sid;
	q[qn].ppid = ppid;
	memcpy(q[qn].data, b, n);
	q[qn].len = n;
	q[qn].off = 0;
	q[qn].adj = 0;
	qn++;
}

static void push_ctl(uint16_t sid, uint16_t ssn, uint16_t code,
		     const void *pd, size_t n)
{
	uint8_t b[SCTP_CTL_MAX_LEN];
	b[0] = (uint8_t)(ssn >> 8);
	b[1] = (uint8_t)ssn;
	b[2] = (uint8_t)(code >> 8);
	b[3] = (uint8_t)code;
	if (n)
		memcpy(b + 4, pd, n);
	push(sid, SCTP_PPID_CTL, b, 4 + n);
}

/* PPID 16: DDP-SSN + one whole untagged message (MSN msn). */
static void push_seg(uint16_t sid, uint16_t ssn, uint32_t msn, size_t plen)
{
	uint8_t b[1200], pay[1100];
	for (size_t j = 0; j < plen; j++)
		pay[j] = (uint8_t)(msn * 7 + j);
	b[0] = (uint8_t)(ssn >> 8);
	b[1] = (uint8_t)ssn;
	size_t n = tw_untagged(b + 2, 1, 1, msn, 0, msn, 0, pay, plen);
	push(sid, SCTP_PPID_DDP, b, n + 2);
}

static void drain(void)
{
	for (int i = 0; i < 100000 && qh < qn && !a->down; i++)
		sctp_ddp_readable(a);
	assert_int_equal(qh, qn);
}

static void check_payloads(uint16_t sid, unsigned n, size_t (*len)(unsigned))
{
	for (unsigned k = 0; k < n; k++)
		for (size_t j = 0; j < len(k + 1); j++)
			assert_int_equal(rbuf[sid][k][j],
					 (uint8_t)((k + 1) * 7 + j));
}

static size_t plen_of(unsigned msn)
{
	return (msn * 131) % 900;
}

/* Open stream sid through the machine itself: Initiate in, Accept out. */
static void open_stream(uint16_t sid)
{
	push_ctl(sid, 0, SCTP_CTL_INITIATE, "hi", 2);
	drain();
	assert_int_equal(initiates, 1);
	/* RFC 5043 §5.2.3: Accept = DDP-SSN 0, code 2, private data */
	assert_true(nsent >= 1);
	static const uint8_t want[] = { 0, 0, 0, 2, 'o', 'k' };
	assert_int_equal(sent_len[nsent - 1], sizeof(want));
	assert_memory_equal(sent_log[nsent - 1], want, sizeof(want));
}

/* Unordered arrival (RFC 5043 §5.1) of 40 messages in chopped pieces:
 * placed header-first, delivered in DDP-SSN order (DDP-ORD-5), no copy. */
static void test_rx_header_first_places_without_copy(void **st)
{
	unsigned order[40];
	(void)st;
	/* queued behind the Initiate: every length is known in advance */
	push_ctl(1, 0, SCTP_CTL_INITIATE, "hi", 2);
	for (unsigned i = 0; i < 40; i++)
		order[i] = i + 1;
	for (unsigned i = 39; i > 0; i--) { /* shuffle inside the window */
		unsigned j = (unsigned)chopper_below(&ch, i + 1), t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (unsigned i = 0; i < 40; i++)
		push_seg(1, (uint16_t)order[i], order[i], plen_of(order[i]));
	drain();
	assert_int_equal(initiates, 1);
	assert_int_equal(ndeliv, 40);
	assert_int_equal(nerr, 0);
	check_payloads(1, 40, plen_of);
	assert_int_equal(ddp_session_copied_bytes(a->s), 0);
	assert_int_equal(a->stats.rx_staged, 0);
	assert_int_equal(a->stats.rx_hdr_first, 40);
}

/* Without SCTP_RECVNXTINFO the segment is staged and the copy counted. */
static void test_rx_unknown_length_is_staged_and_counted(void **st)
{
	uint64_t total = 0;
	(void)st;
	known_next = 0;
	open_stream(2);
	for (unsigned i = 1; i <= 30; i++) {
		push_seg(2, (uint16_t)i, i, plen_of(i));
		total += plen_of(i);
	}
	drain();
	assert_int_equal(ndeliv, 30);
	check_payloads(2, 30, plen_of);
	assert_int_equal(ddp_session_copied_bytes(a->s), total);
	assert_int_equal(a->stats.rx_staged, 30);
}

/* The machine resumes wherever the source runs dry (DDP_ERR_AGAIN). */
static void test_rx_resumes_after_again_mid_message(void **st)
{
	(void)st;
	again_pct = 40;
	max_piece = 3;
	open_stream(3);
	for (unsigned i = 1; i <= 30; i++)
		push_seg(3, (uint16_t)i, i, plen_of(i));
	drain();
	assert_int_equal(ndeliv, 30);
	assert_int_equal(nerr, 0);
	check_payloads(3, 30, plen_of);
}

/* RFC 5043 §6: the peer's Terminate counts at its DDP-SSN: half-close
 * only after the earlier segments were delivered. */
static void test_rx_terminate_half_closes_after_earlier_data(void **st)
{
	(void)st;
	open_stream(1);
	push_ctl(1, 3, SCTP_CTL_TERMINATE, NULL, 0);
	push_seg(1, 2, 2, 10);
	push_seg(1, 1, 1, 10);
	drain();
	assert_string_equal(log_, "DDH");
	/* RFC 5041 §6: data after the Terminate is an error */
	push_seg(1, 4, 3, 10);
	drain();
	assert_int_equal(nerr, 1);
	assert_int_equal(last_err.etype, DDP_ETYPE_LLP);
	assert_int_equal(last_err.code, DDP_ECODE_LLP_AFTER_CLOSE);
}

/* RFC 5041 §4 whole header; RFC 5043 §9 oversize rejected. */
static void test_rx_rejects_short_and_oversize_segments(void **st)
{
	uint8_t b[1100];
	(void)st;
	open_stream(1);
	memset(b, 0, sizeof(b));
	b[1] = 1;
	b[2] = 0x41; /* untagged: 18-octet header, only 10 given */
	push(1, SCTP_PPID_DDP, b, 12);
	drain();
	assert_int_equal(nerr, 1);
	assert_int_equal(last_err.stream, 1);
	assert_int_equal(last_err.code, DDP_ECODE_LLP_SHORT);
	/* DDP-ERR-2 / RFC 5040 §4.8: the report carries the header (the 10
	 * octets that came, zero-filled to 18) and the segment length */
	assert_true(last_err.have_segment);
	assert_int_equal(last_err.hdr_len, 18);
	assert_int_equal(last_err.hdr[0], 0x41);
	assert_int_equal(last_err.seg_len, 10);
	/* a new association-level stream for the oversize case */
	initiates = 0;
	open_stream(2);
	push_seg(2, 1, 1, 10);
	b[0] = 0;
	b[1] = 2;
	push(2, SCTP_PPID_DDP, b, 2 + 1001); /* segment = MULPDU + 1 */
	drain();
	assert_int_equal(nerr, 2);
	assert_int_equal(last_err.stream, 2);
	assert_int_equal(last_err.code, DDP_ECODE_LLP_OVERSIZE);
	assert_true(last_err.have_segment);
	assert_int_equal(last_err.hdr_len, 18);
	assert_memory_equal(last_err.hdr, b + 2, 18);
	assert_int_equal(last_err.seg_len, 1001);
	/* the same without the length known up front */
	known_next = 0;
	initiates = 0;
	open_stream(3);
	b[1] = 1;
	push(3, SCTP_PPID_DDP, b, 2 + 1001);
	drain();
	assert_int_equal(nerr, 3);
	assert_int_equal(last_err.stream, 3);
	assert_int_equal(last_err.code, DDP_ECODE_LLP_OVERSIZE);
	assert_true(last_err.have_segment);
	assert_int_equal(last_err.hdr_len, 18);
	assert_memory_equal(last_err.hdr, b + 2, 18);
	assert_int_equal(last_err.seg_len, 1001);
}

/* A message longer than SCTP_RECVNXTINFO announced is not "short": over
 * MULPDU it is EType 3 code 0x02 (RFC 5043 §9), within it the LLP's own
 * length was wrong: local catastrophic (RFC 5041 §7.2, 0x0/0x00). Both
 * carry the header and the true length. */
static void test_rx_longer_than_announced_is_not_short(void **st)
{
	uint8_t b[1100];
	(void)st;
	open_stream(1);
	push_seg(1, 1, 1, 10);
	push_seg(1, 2, 2, 10); /* 2 + 18 + 10 octets, announced 5 fewer */
	q[qn - 1].adj = -5;
	drain();
	assert_int_equal(nerr, 1);
	assert_int_equal(last_err.stream, 1);
	assert_int_equal(last_err.etype, DDP_ETYPE_CATASTROPHIC);
	assert_int_equal(last_err.code, 0);
	assert_true(last_err.have_segment);
	assert_int_equal(last_err.hdr_len, 18);
	assert_memory_equal(last_err.hdr, q[qn - 1].data + 2, 18);
	assert_int_equal(last_err.seg_len, 28);
	initiates = 0;
	open_stream(2);
	push_seg(2, 1, 1, 10);
	memset(b, 0, sizeof(b));
	b[1] = 2;
	b[2] = 0x41;
	b[15] = 2; /* QN 0, MSN 2 */
	push(2, SCTP_PPID_DDP, b, 2 + 1001); /* over MULPDU, announced 100 */
	q[qn - 1].adj = 100 - (long)(2 + 1001);
	drain();
	assert_int_equal(nerr, 2);
	assert_int_equal(last_err.stream, 2);
	assert_int_equal(last_err.etype, DDP_ETYPE_LLP);
	assert_int_equal(last_err.code, DDP_ECODE_LLP_OVERSIZE);
	assert_int_equal(last_err.seg_len, 1001);
	assert_memory_equal(last_err.hdr, b + 2, 18);
}

/* Undecodable control message on an open stream: stream error (0x05). */
static void test_rx_bad_control_is_stream_error(void **st)
{
	(void)st;
	open_stream(1);
	push_ctl(1, 1, 0x0042, NULL, 0);
	drain();
	assert_int_equal(nerr, 1);
	assert_int_equal(last_err.stream, 1);
	assert_int_equal(last_err.etype, DDP_ETYPE_LLP);
	assert_int_equal(last_err.code, DDP_ECODE_LLP_BAD_CTL);
	assert_int_equal(ll_closed, -1); /* the association lives on */
}

/* RFC 5043 §5.1: PPIDs other than 16/17 -> ABORT. */
static void test_rx_wrong_ppid_aborts_association(void **st)
{
	static const uint8_t b[8];
	(void)st;
	open_stream(1);
	push(1, 51, b, sizeof(b));
	sctp_ddp_readable(a);
	assert_int_equal(ll_closed, 1);
	assert_int_equal(a->fatal, DDP_ERR_PROTO);
	qh = qn;
}

/* RFC 5043 §5.2.3: Initiates beyond the cap get Terminate, not Reject. */
static void test_rx_initiate_cap_answers_terminate(void **st)
{
	(void)st;
	ep.cfg.sctp.session_ctl = NULL; /* the ULP never answers */
	push_ctl(0, 0, SCTP_CTL_INITIATE, NULL, 0);
	push_ctl(1, 0, SCTP_CTL_INITIATE, NULL, 0);
	push_ctl(2, 0, SCTP_CTL_INITIATE, NULL, 0);
	drain();
	assert_int_equal(a->pending_init, 2);
	assert_int_equal(nsent, 1);
	static const uint8_t term[] = { 0, 0, 0, 4 };
	assert_int_equal(sent_len[0], 4);
	assert_memory_equal(sent_log[0], term, 4);
	/* the refused stream got no per-stream state (lazy: only streams
	 * with a session have one) ... */
	assert_int_equal(a->nlive, 2);
	assert_null(a->st[2]);
	assert_string_equal(sctp_ddp_stream_state(a, 2), "idle");
	/* ... and is not reused by us while our Terminate may be in flight
	 * (RFC 5043 §6 rule 3: after SENDER_DRY) */
	assert_int_equal(ddp_sctp_initiate(a, 2, NULL, 0), DDP_ERR_BUSY);
	assert_int_equal(ddp_sctp_initiate(a, 3, NULL, 0), 0);
	ep.cfg.sctp.session_ctl = on_ctl;
}

/* A peer that sends Initiates and never reads our answers: every
 * Initiate over max_pending_initiates gets a Terminate (RFC 5043 §5.2.3)
 * that usrsctp cannot take. Before, each waited in a 544-octet entry, as
 * many as the peer sent. Now a stream has one waiting Terminate at most,
 * an entry costs its length, and at max_ctl_queue_bytes the association
 * stops reading until usrsctp has taken half of the queue. */
static void test_rx_ctl_queue_is_bounded_and_reading_pauses(void **st)
{
	(void)st;
	ep.cfg.sctp.session_ctl = NULL; /* the ULP never answers */
	send_full = 1;
	push_ctl(0, 0, SCTP_CTL_INITIATE, NULL, 0);
	push_ctl(1, 0, SCTP_CTL_INITIATE, NULL, 0);
	/* over the cap, all on stream 2: a single Terminate waits */
	for (int i = 0; i < 40; i++)
		push_ctl(2, 0, SCTP_CTL_INITIATE, NULL, 0);
	for (int i = 0; i < 150; i++) /* then on stream 3 ... */
		push_ctl(3, 0, SCTP_CTL_INITIATE, NULL, 0);
	for (int i = 0; i < 100 && qh < qn; i++)
		sctp_ddp_readable(a);
	assert_int_equal(a->pending_init, 2);
	assert_int_equal(qh, qn); /* two Terminates: below the bound */
	assert_int_equal(a->pc_bytes, 2 * SCTP_PC_COST(4));
	assert_false(a->rx_paused);
	/* the ULP's own messages are always queued; at the bound (400
	 * octets) reading stops, whatever the peer sends */
	for (int k = 0; k < 40; k++)
		assert_int_equal(sctp_ctl_send(a, 0, SCTP_CTL_ACCEPT, 0, "0123456789", 10), 0);
	assert_int_equal(a->pc_bytes, 2 * SCTP_PC_COST(4) + 40 * SCTP_PC_COST(14));
	size_t before = qn;
	for (int i = 0; i < 50; i++)
		push_ctl(1, 0, SCTP_CTL_INITIATE, NULL, 0);
	sctp_ddp_readable(a);
	assert_true(a->rx_paused);
	assert_int_equal(qh, before); /* nothing more read */
	/* usrsctp takes the queue: reading resumes, the rest is read */
	send_full = 0;
	sctp_ddp_writable(a);
	assert_false(a->rx_paused);
	for (int i = 0; i < 100 && qh < qn; i++)
		sctp_ddp_readable(a);
	assert_int_equal(qh, qn);
	assert_true(a->pc_bytes <= ep.cfg.max_ctl_queue_bytes);
	ep.cfg.sctp.session_ctl = on_ctl;
}

/* A Terminate ahead of a missing data chunk must be held by the core;
 * when the context has no memory left for that (max_reorder_bytes) the
 * stream stops with a local catastrophic error (RFC 5041 §7.2) and a log
 * line. Before, ddp_llp_rx_skip's failure was ignored: no error, the
 * Terminate's DDP-SSN never marked (the stream could stall silently). */
static void test_rx_skip_failure_stops_stream(void **st)
{
	(void)st;
	open_stream(1);
	push_ctl(1, 2, SCTP_CTL_TERMINATE, NULL, 0);
	drain();
	assert_int_equal(nerr, 1);
	assert_int_equal(last_err.stream, 1);
	assert_int_equal(last_err.etype, DDP_ETYPE_CATASTROPHIC);
	assert_non_null(strstr(logged, "192.0.2.1:9899 stream 1: DDP-SSN 2"));
	/* DDP-ERR-3: later data is dropped, not delivered */
	push_seg(1, 1, 1, 10);
	drain();
	assert_int_equal(ndeliv, 0);
	assert_int_equal(nerr, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_rx_header_first_places_without_copy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rx_unknown_length_is_staged_and_counted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rx_resumes_after_again_mid_message, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rx_terminate_half_closes_after_earlier_data, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rx_rejects_short_and_oversize_segments, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rx_longer_than_announced_is_not_short, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rx_bad_control_is_stream_error, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rx_wrong_ppid_aborts_association, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rx_initiate_cap_answers_terminate, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rx_skip_failure_stops_stream, setup_no_reorder_memory, teardown),
		cmocka_unit_test_setup_teardown(test_rx_ctl_queue_is_bounded_and_reading_pauses, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
