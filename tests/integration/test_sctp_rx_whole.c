/* Integration: the SCTP receive policy over real usrsctp on 127.0.0.1.
 * Segments of at most SCTP_RX_WHOLE_MAX octets (DDP-SSN included) are
 * read whole, one usrsctp receive call each, and placed with one counted
 * copy; longer ones header-first without a copy (sctp_rx.c, the glue's
 * sctp_ll_rx.c). Every message is checked octet by octet, across the
 * threshold (T-1, T, T+1 octets, untagged and tagged) and with messages
 * cut into several segments. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include <ddp/ddp.h>
#include <ddp/sctp.h>
#include "sctp/sctp_ddp_int.h"

#define UHDR 18 /* untagged DDP header (RFC 5041 §4.3) */
#define THDR 14 /* tagged (§4.2) */
#define T SCTP_RX_WHOLE_MAX
#define ROUNDS 6
#define MAXMSG 32

struct peer {
	ddp_ctx *ctx;
	ddp_pd *pd;
	ddp_sctp_ep *ep;
	ddp_sctp_assoc *a;
	ddp_session *s;
	int up, accepted;
	unsigned long bad, errors, untagged_got, tagged_got;
};

static struct peer srv, cli;
static struct event_base *base;
static size_t ulen[MAXMSG * ROUNDS], tlen[MAXMSG * ROUNDS], toff[MAXMSG * ROUNDS];
static unsigned nmsg;
static uint8_t *rbuf[MAXMSG * ROUNDS], *region;
/* the data of each send stays ours until it is sent (no copy on send) */
static uint8_t *usrc[MAXMSG * ROUNDS], *tsrc[MAXMSG * ROUNDS];
static uint32_t stag;

static uint8_t pat(unsigned k, size_t j)
{
	return (uint8_t)(k * 31u + (unsigned)j * 13u + (unsigned)(j >> 8));
}

static void deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	struct peer *p = user;
	(void)s;
	if (d->status != 0) {
		p->bad++;
		return;
	}
	if (d->tagged) {
		p->tagged_got++;
		return;
	}
	unsigned k = (unsigned)d->rsvdulp;
	const uint8_t *b = d->buf;
	if (k >= nmsg || d->len != ulen[k] || d->msn != k + 1 || b != rbuf[k])
		p->bad++;
	else
		for (size_t j = 0; j < d->len; j++)
			if (b[j] != pat(k, j)) {
				p->bad++;
				break;
			}
	p->untagged_got++;
}

static void on_error(ddp_session *s, const ddp_error_info *e, void *user)
{
	struct peer *p = user;
	(void)s;
	(void)e;
	p->errors++;
}

static void on_assoc(ddp_sctp_assoc *a, ddp_session *s, int status, void *user)
{
	struct peer *p = user;
	if (status == 0) {
		p->a = a;
		p->s = s;
		p->up = 1;
	}
}

static void on_ctl(ddp_sctp_assoc *a, uint32_t stream, enum ddp_sctp_event ev, int status,
		   const void *pd, size_t len, void *user)
{
	struct peer *p = user;
	(void)status;
	(void)pd;
	(void)len;
	if (ev == DDP_SCTP_ACCEPTED)
		p->accepted = 1;
	if (ev != DDP_SCTP_INITIATE)
		return;
	/* every message has its own buffer of exactly its length */
	for (unsigned k = 0; k < nmsg; k++)
		assert_int_equal(ddp_post_recv(p->s, stream, 0, rbuf[k], ulen[k], NULL), 0);
	assert_int_equal(ddp_sctp_accept(a, stream, NULL, 0), 0);
}

static void peer_init(struct peer *p, int listen_, uint32_t path_mtu)
{
	ddp_sctp_config c;
	memset(p, 0, sizeof(*p));
	assert_int_equal(ddp_ctx_new(NULL, &p->ctx), 0);
	assert_int_equal(ddp_pd_new(p->ctx, &p->pd), 0);
	memset(&c, 0, sizeof(c));
	c.port = -1;
	c.nstreams = 4;
	c.ctx = p->ctx;
	c.path_mtu = path_mtu;
	c.session.pd = p->pd;
	c.ddp.deliver = deliver;
	c.ddp.error = on_error;
	c.sctp.assoc = on_assoc;
	c.sctp.session_ctl = on_ctl;
	c.user = p;
	assert_int_equal(ddp_sctp_ep_new(base, &c, &p->ep), 0);
	if (listen_)
		assert_int_equal(ddp_sctp_listen(p->ep), 0);
}

static void peer_fini(struct peer *p)
{
	ddp_sctp_ep_free(p->ep);
	ddp_pd_free(p->pd);
	assert_int_equal(ddp_ctx_free(p->ctx), 0);
}

static void run_ms(int ms)
{
	struct timeval tv = { 0, ms * 1000 };
	event_base_loopexit(base, &tv);
	event_base_dispatch(base);
}

static int run_until(const int *flag, int ms)
{
	for (int i = 0; i < ms / 5 && !*flag; i++)
		run_ms(5);
	return *flag;
}

static int setup(void **st)
{
	(void)st;
	alarm(60); /* no test can hang */
	base = event_base_new();
	return base ? 0 : -1;
}

static int teardown(void **st)
{
	(void)st;
	for (unsigned k = 0; k < nmsg; k++) {
		free(rbuf[k]);
		free(usrc[k]);
		free(tsrc[k]);
	}
	free(region);
	region = NULL;
	nmsg = 0;
	event_base_free(base);
	alarm(0);
	return 0;
}

/* Segments of one message of n payload octets cut at MULPDU mulpdu with
 * a DDP header of hdr octets: how many are at most T as SCTP messages
 * (DDP-SSN included), how many longer, and the payload of the small ones. */
static void count_segs(size_t n, uint32_t mulpdu, size_t hdr, unsigned *small, unsigned *big,
		       uint64_t *small_payload)
{
	size_t per = mulpdu - hdr;
	do {
		size_t p = n < per ? n : per;
		if (SCTP_SSN_LEN + hdr + p <= T) {
			(*small)++;
			*small_payload += p;
		} else {
			(*big)++;
		}
		n -= p;
	} while (n);
}

/* Sends ROUNDS times the lengths in base_len[] (shuffled), untagged on
 * stream 1 and as tagged writes into one region, then checks every octet
 * and the receive counters. all_small: every segment is at most T. */
static void run(uint32_t path_mtu, const size_t *base_len, unsigned nbase, int all_small)
{
	size_t tsum = 0;
	unsigned small = 0, big_u = 0, big_t = 0, ctl_in = 1; /* the Initiate */
	uint64_t small_payload = 0;
	ddp_sctp_stats ss;

	assert_true(nbase <= MAXMSG);
	srand(7);
	nmsg = 0;
	for (unsigned r = 0; r < ROUNDS; r++)
		for (unsigned i = 0; i < nbase; i++)
			ulen[nmsg++] = base_len[i];
	for (unsigned i = nmsg - 1; i > 0; i--) {
		unsigned j = (unsigned)rand() % (i + 1);
		size_t t = ulen[i];
		ulen[i] = ulen[j];
		ulen[j] = t;
	}
	for (unsigned k = 0; k < nmsg; k++) {
		rbuf[k] = malloc(ulen[k] ? ulen[k] : 1);
		tlen[k] = ulen[nmsg - 1 - k];
		toff[k] = tsum;
		tsum += tlen[k];
		usrc[k] = malloc(ulen[k] ? ulen[k] : 1);
		tsrc[k] = malloc(tlen[k] ? tlen[k] : 1);
		for (size_t j = 0; j < ulen[k]; j++)
			usrc[k][j] = pat(k, j);
		for (size_t j = 0; j < tlen[k]; j++)
			tsrc[k][j] = pat(k + 1000, j);
	}
	region = calloc(1, tsum);
	peer_init(&srv, 1, path_mtu);
	peer_init(&cli, 0, path_mtu);
	ddp_mr_attr at;
	memset(&at, 0, sizeof(at));
	at.addr = region;
	at.len = tsum;
	at.access = DDP_ACCESS_REMOTE_WRITE;
	at.pd = srv.pd;
	assert_int_equal(ddp_stag_register(srv.ctx, &at, &stag), 0);
	assert_int_equal(ddp_sctp_connect(cli.ep, "127.0.0.1", ddp_sctp_ep_port(srv.ep), &cli.a), 0);
	assert_true(run_until(&cli.up, 5000));
	assert_true(run_until(&srv.up, 5000));
	assert_int_equal(ddp_sctp_initiate(cli.a, 1, NULL, 0), 0);
	assert_true(run_until(&cli.accepted, 5000));

	uint32_t mulpdu = ddp_session_mulpdu(cli.s);
	print_message("threshold %u octets, MULPDU %u, %u messages each way\n", (unsigned)T,
		      (unsigned)mulpdu, nmsg);
	for (unsigned k = 0; k < nmsg; k++) {
		struct iovec v = { usrc[k], ulen[k] };
		/* completions come from the loop: at the stream's octet limit
		 * (DDP_ERR_LIMIT) let it run and try again */
		int rc;
		while ((rc = ddp_send_untagged(cli.s, 1, 0, k, &v, 1, NULL)) == DDP_ERR_LIMIT)
			event_base_loop(base, EVLOOP_ONCE);
		assert_int_equal(rc, 0);
		count_segs(ulen[k], mulpdu, UHDR, &small, &big_u, &small_payload);
		v.iov_base = tsrc[k];
		v.iov_len = tlen[k];
		while ((rc = ddp_send_tagged(cli.s, 1, stag, toff[k], 0, &v, 1, NULL)) == DDP_ERR_LIMIT)
			event_base_loop(base, EVLOOP_ONCE);
		assert_int_equal(rc, 0);
		count_segs(tlen[k], mulpdu, THDR, &small, &big_t, &small_payload);
	}
	for (int i = 0; i < 4000 && (srv.untagged_got < nmsg || srv.tagged_got < nmsg); i++)
		run_ms(5);
	print_message("delivered %lu untagged, %lu tagged, bad %lu, errors %lu / %lu\n",
		      srv.untagged_got, srv.tagged_got, srv.bad, srv.errors, cli.errors);
	assert_int_equal(srv.untagged_got, nmsg);
	assert_int_equal(srv.tagged_got, nmsg);
	assert_int_equal(srv.bad, 0);
	assert_int_equal(srv.errors, 0);
	assert_int_equal(cli.errors, 0);
	for (unsigned k = 0; k < nmsg; k++)
		for (size_t j = 0; j < tlen[k]; j++)
			if (region[toff[k] + j] != pat(k + 1000, j))
				fail_msg("tagged message %u octet %zu differs", k, j);

	ddp_sctp_get_stats(srv.a, &ss);
	uint64_t copied = ddp_session_copied_bytes(srv.s);
	print_message("segments: %u small, %u large; read whole %llu, header-first %llu, "
		      "staged %llu; usrsctp receive calls %llu; copied %llu (small payload %llu)\n",
		      small, big_u + big_t, (unsigned long long)ss.rx_whole,
		      (unsigned long long)ss.rx_hdr_first, (unsigned long long)ss.rx_staged,
		      (unsigned long long)ss.rx_calls, (unsigned long long)copied,
		      (unsigned long long)small_payload);
	/* every small segment was read whole and copied once into place */
	assert_int_equal(ss.rx_whole, small);
	assert_int_equal(ss.rx_hdr_first + ss.rx_staged, big_u + big_t);
	assert_true(copied >= small_payload);
	/* a large segment is copied only when its length was unknown */
	assert_true(copied - small_payload <= ss.rx_staged * (uint64_t)mulpdu);
	/* one call per small segment and per control message; a large one
	 * takes DDP-SSN + 14 octets, then (untagged) 4 more, then its
	 * payload; staged: a first piece, then the rest */
	assert_true(ss.rx_calls <= (uint64_t)small + 3u * big_u + 2u * big_t + ctl_in);
	if (all_small) {
		assert_int_equal(ss.rx_hdr_first, 0);
		assert_int_equal(ss.rx_staged, 0);
		assert_int_equal(copied, small_payload);
	}
	ddp_stag_invalidate(srv.ctx, stag);
	peer_fini(&cli);
	peer_fini(&srv);
}

/* Loopback's path MTU: segments up to 65476 octets, so messages across
 * the threshold stay one segment each, and large messages mix large
 * segments (header-first) with a small tail (whole). */
static void test_sctp_rx_whole_at_threshold_and_header_first_above(void **st)
{
	static const size_t lens[] = {
		/* SCTP messages of T-1, T, T+1 octets: untagged (2 + 18 + n) */
		T - 21, T - 20, T - 19,
		/* ... tagged ones of the same sizes (2 + 14 + n) */
		T - 17, T - 16, T - 15,
		1, 100, 1424, 4000, 30000, 60000,
		150000, 200000, /* several segments each */
	};
	(void)st;
	run(0, lens, sizeof(lens) / sizeof(lens[0]), 0);
}

/* MTU 1500: every segment (at most 1444 octets) is read whole, one call
 * each; no header-first read, no staging for want of a length. */
static void test_sctp_rx_whole_every_segment_at_mtu_1500(void **st)
{
	static const size_t lens[] = { 1, 17, 1000, 1405, 1406, 1424, 1425, 1426,
				       3000, 65536, 100000 };
	(void)st;
	run(1500, lens, sizeof(lens) / sizeof(lens[0]), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sctp_rx_whole_at_threshold_and_header_first_above,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_sctp_rx_whole_every_segment_at_mtu_1500, setup,
						teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
