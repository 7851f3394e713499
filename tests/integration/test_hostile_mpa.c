/*
 * Memory safety through the MPA/TCP adapter: a real
 * ddp_mpa_listen() Responder on 127.0.0.1 under libevent is the victim; the
 * attacker is a plain TCP socket of this test that runs the MPA start-up by
 * hand and then writes hand-built FPDUs with VALID CRCs (RFC 5044 §4.4, so
 * the DDP checks are reached) carrying hostile DDP headers.
 *
 * Every tagged and untagged buffer of the victim sits between PROT_NONE
 * guard pages (guardbuf) and is filled with a canary; buffers this stream
 * must never write (read-only STag, other PD, other session, revoked) are
 * mapped read-only, so a stray write kills the test with SIGSEGV
 * (DDP-SEC-4, DDP-SEC-10: validation before any byte is placed).
 * The table of cases with their DDP-VAL / DDP-SEC ids and RFC 5041 §7.2
 * codes is shared with the SCTP test (tests/support/hostile.c). One
 * connection per case: the stream stops after its first error (DDP-ERR-1),
 * which the test checks by sending a valid FPDU afterwards.
 * Every test is bounded by alarm().
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include <ddp/ddp.h>
#include <ddp/llp.h>
#include <ddp/mpa.h>

#include "ddpwire.h"
#include "guardbuf.h"
#include "hostile.h"
#include "mpa_craft.h"
#include "nullllp.h"

#define CANARY HOSTILE_CANARY
#define EVIL   HOSTILE_EVIL
#define TLEN   HOSTILE_TLEN
#define TBASE  HOSTILE_TBASE
#define BIGLEN 32000

struct victim {
	struct event_base *base;
	ddp_ctx *ctx;
	ddp_pd *pda, *pdb;
	nullllp onl;
	ddp_session *other; /* owns HT_OTHERSESS */
	ddp_mpa_listener *lst;
	int port;
	hostile_targets t;
	guardbuf ub[HU_N];
	/* current connection */
	ddp_mpa_conn *c;
	int accepted, connected, failed, closed;
	int nerr;
	ddp_error_info err;
	unsigned ndlv, nprobe;
	uint64_t rng;
};

static void canary_fill(guardbuf *g)
{
	hostile_canary_fill(g);
}

static int canary_intact_from(const guardbuf *g, size_t from)
{
	return hostile_canary_intact(g, from);
}

/* Every buffer still holds its canary (the probe buffer from octet
 * probe_len on: a delivered probe wrote "ok!"). */
static void assert_all_canaries(struct victim *w, size_t probe_len)
{
	for (int i = 0; i < HT_N; i++)
		assert_true(canary_intact_from(&w->t.g[i], 0));
	for (int i = 0; i < HU_N; i++)
		assert_true(canary_intact_from(&w->ub[i], i == HU_PROBE ? probe_len : 0));
}

/* ---------------------------------------------------------- callbacks */

static void on_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	struct victim *w = user;
	if (d->status != 0)
		return; /* posted buffers flushed by ddp_mpa_conn_free() */
	if (!d->tagged && d->qn == 2)
		w->nprobe++;
	else
		w->ndlv++;
	event_base_loopbreak(w->base);
}

static void on_error(ddp_session *s, const ddp_error_info *e, void *user)
{
	struct victim *w = user;
	if (w->nerr++ == 0)
		w->err = *e;
	event_base_loopbreak(w->base);
}

static const ddp_callbacks cbs = {.deliver = on_deliver, .error = on_error};

static void on_event(ddp_mpa_conn *c, enum ddp_mpa_event ev, int err, uint8_t code, void *user)
{
	struct victim *w = user;
	if (ev == DDP_MPA_CONNECTED)
		w->connected = 1;
	else if (ev == DDP_MPA_CLOSED)
		w->closed = 1;
	else
		w->failed = 1;
	event_base_loopbreak(w->base);
}

static void on_accept(ddp_mpa_conn *c, const ddp_mpa_info *req, void *user)
{
	struct victim *w = user;
	ddp_session *s = ddp_mpa_session(c);
	w->c = c;
	w->accepted = 1;
	for (int i = 0; i < HU_N; i++) {
		canary_fill(&w->ub[i]);
		assert_int_equal(
		    ddp_post_recv(s, 0, hostile_u_qn[i], w->ub[i].p, hostile_u_len[i], NULL), 0);
	}
	assert_int_equal(ddp_mpa_accept(c, NULL, 0), 0);
	event_base_loopbreak(w->base);
}

/* ---------------------------------------------------------- the world */

static struct sockaddr_in lo(int port)
{
	struct sockaddr_in sa;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return sa;
}

/* markers: the victim asks for markers (M=1 in its Reply, RFC 5044 §7.1),
 * so the attacker is bound to insert them. */
static void victim_init_markers(struct victim *w, uint64_t seed, int markers)
{
	memset(w, 0, sizeof(*w));
	w->rng = seed * 0x9E3779B97F4A7C15ull + 1;
	w->base = event_base_new();
	assert_non_null(w->base);
	assert_int_equal(ddp_ctx_new(NULL, &w->ctx), 0);
	assert_int_equal(ddp_pd_new(w->ctx, &w->pda), 0);
	assert_int_equal(ddp_pd_new(w->ctx, &w->pdb), 0);
	ddp_callbacks ocb = {.deliver = on_deliver};
	assert_int_equal(ddp_session_new(w->ctx, NULL, &nullllp_ops, &w->onl, &ocb, w, &w->other),
	                 0);
	assert_int_equal(hostile_targets_new(&w->t, w->ctx, w->pda, w->pdb, w->other), 0);
	for (int i = 0; i < HU_N; i++)
		assert_int_equal(guardbuf_new(&w->ub[i], hostile_u_len[i]), 0);

	ddp_mpa_config cfg;
	memset(&cfg, 0, sizeof(cfg));
	cfg.revision = 1;
	cfg.markers = markers;
	cfg.startup_timeout_ms = 3000;
	cfg.session.pd = w->pda;
	struct sockaddr_in sa = lo(0);
	assert_int_equal(ddp_mpa_listen(w->base, w->ctx, (struct sockaddr *)&sa, sizeof sa, &cfg,
	                                &cbs, on_accept, on_event, w, &w->lst),
	                 0);
	w->port = ddp_mpa_listener_port(w->lst);
}

static void victim_init(struct victim *w, uint64_t seed)
{
	victim_init_markers(w, seed, 0);
}

static void victim_fini(struct victim *w)
{
	ddp_mpa_conn_free(w->c);
	ddp_mpa_listener_free(w->lst);
	ddp_session_free(w->other); /* invalidates HT_OTHERSESS */
	hostile_targets_free(&w->t, w->ctx, 1);
	for (int i = 0; i < HU_N; i++)
		guardbuf_free(&w->ub[i]);
	assert_int_equal(ddp_pd_free(w->pda), 0);
	assert_int_equal(ddp_pd_free(w->pdb), 0);
	assert_int_equal(ddp_ctx_free(w->ctx), 0);
	event_base_free(w->base);
}

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* Run the victim's loop for at most ms (callbacks break out early). */
static void step(struct victim *w, long ms)
{
	struct timeval tv = {0, ms * 1000};
	event_base_loopexit(w->base, &tv);
	event_base_dispatch(w->base);
}

static int readable(int fd)
{
	int n = 0;
	struct pollfd p = {.fd = fd, .events = POLLIN};
	if (poll(&p, 1, 0) != 1)
		return 0;
	return ioctl(fd, FIONREAD, &n) == 0 && n >= 20 ? 1 : 0;
}

/* Connect the attacker and run the MPA start-up by hand (RFC 5044 §7.1:
 * Request with C=1, read the Reply). Returns the attacker's socket. */
static int attacker_connect(struct victim *w)
{
	ddp_mpa_conn_free(w->c);
	w->c = NULL;
	w->accepted = w->connected = w->failed = w->closed = 0;
	w->nerr = 0;
	memset(&w->err, 0, sizeof(w->err));
	w->ndlv = w->nprobe = 0;
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	struct sockaddr_in sa = lo(w->port);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof sa), 0);
	uint8_t req[64];
	size_t n = mpa_craft_request(req, sizeof req, 1, 1);
	assert_true(n > 0);
	assert_int_equal(mpa_craft_send_all(fd, req, n), 0);
	long end = now_ms() + 5000;
	while (!(w->connected && readable(fd)) && !w->failed && now_ms() < end)
		step(w, 5);
	assert_true(w->connected);
	assert_int_equal(mpa_craft_read_reply(fd, 2000), 0);
	return fd;
}

static void send_fpdu(int fd, const uint8_t *seg, size_t len)
{
	static uint8_t f[70000];
	size_t n = mpa_craft_fpdu(f, sizeof f, seg, len, 1);
	assert_true(n > 0);
	assert_int_equal(mpa_craft_send_all(fd, f, n), 0);
}

static void wait_until_error(struct victim *w, long ms)
{
	long end = now_ms() + ms;
	while (!w->nerr && !w->failed && now_ms() < end)
		step(w, 20);
}

/* The attacker's connection is done: close it, free the victim's side and
 * check that no buffer was written (the probe buffer up to probe_len). */
static void attacker_done(struct victim *w, int fd, size_t probe_len)
{
	close(fd);
	ddp_mpa_conn_free(w->c);
	w->c = NULL;
	assert_all_canaries(w, probe_len);
}

/* RFC 5041 §7.1/§7.2 through MPA/TCP: every hostile header gets exactly its
 * (etype, code), nothing is placed or delivered, and the stream places
 * nothing after its first error (DDP-ERR-1). */
static void test_hostile_mpa_table_exact_codes_no_placement(void **state)
{
	alarm(60);
	struct victim w;
	victim_init(&w, 1);
	static uint8_t seg[HOSTILE_MAX_SEG];
	for (size_t i = 0; i < hostile_ncases; i++) {
		const hostile_case *c = &hostile_cases[i];
		int fd = attacker_connect(&w);
		if (c->pre_probe) {
			uint8_t probe[DDP_UNTAGGED_HDR_LEN + 3];
			send_fpdu(fd, probe, hostile_probe(probe));
		}
		size_t n = hostile_build(&w.t, c, seg);
		send_fpdu(fd, seg, n);
		/* a valid write after the error: must not land (stream stopped) */
		uint8_t ok[DDP_TAGGED_HDR_LEN + 16], pay[16];
		memset(pay, EVIL, sizeof pay);
		size_t okn = tw_tagged(ok, 1, 1, 0, w.t.stag[HT_GOOD], TBASE, pay, sizeof pay);
		send_fpdu(fd, ok, okn);
		wait_until_error(&w, 3000);
		step(&w, 20); /* let the valid FPDU reach the victim too */
		print_message("%-18s -> %d/%d/%d\n", c->name, w.err.layer, w.err.etype, w.err.code);
		assert_int_equal(w.nerr, 1);
		assert_int_equal(w.err.layer, DDP_LAYER_DDP);
		assert_int_equal(w.err.etype, c->etype);
		assert_int_equal(w.err.code, c->code);
		assert_int_equal(w.err.stream, 0);
		/* DDP-ERR-2: the offending header as received */
		assert_true(w.err.have_segment);
		assert_int_equal(w.err.hdr_len,
		                 c->tagged ? DDP_TAGGED_HDR_LEN : DDP_UNTAGGED_HDR_LEN);
		assert_memory_equal(w.err.hdr, seg, w.err.hdr_len);
		assert_int_equal(w.err.seg_len, n);
		assert_int_equal(w.ndlv, 0);
		assert_int_equal(w.nprobe, c->pre_probe ? 1 : 0);
		assert_false(w.failed);
		attacker_done(&w, fd, c->pre_probe ? 3 : 0);
	}
	victim_fini(&w);
	alarm(0);
}

/* Control: the same harness does place a valid write, so the canary
 * checks above can fail. */
static void test_hostile_mpa_valid_write_lands(void **state)
{
	alarm(20);
	struct victim w;
	victim_init(&w, 2);
	int fd = attacker_connect(&w);
	uint8_t seg[DDP_TAGGED_HDR_LEN + 16], pay[16];
	memset(pay, EVIL, sizeof pay);
	size_t n = tw_tagged(seg, 1, 1, 0, w.t.stag[HT_GOOD], TBASE + TLEN - 16, pay, 16);
	send_fpdu(fd, seg, n);
	long end = now_ms() + 3000;
	while (!w.ndlv && !w.nerr && now_ms() < end)
		step(&w, 20);
	assert_int_equal(w.nerr, 0);
	assert_int_equal(w.ndlv, 1);
	assert_false(canary_intact_from(&w.t.g[HT_GOOD], 0));
	assert_true(canary_intact_from(&w.t.g[HT_GOOD], TLEN)); /* slack only */
	assert_memory_equal(w.t.g[HT_GOOD].p + TLEN - 16, pay, 16);
	close(fd);
	victim_fini(&w);
	alarm(0);
}

/* DDP-SEC-5 "after revocation the buffer can no longer be modified", with
 * the segment already in flight: header + half the payload of a large
 * tagged FPDU are placed straight into the buffer, then the STag is
 * invalidated (and the buffer made read-only: any later write faults), then
 * the rest arrives: nothing more lands and (1, 0x00) is reported. */
static void test_hostile_mpa_revocation_hits_segment_in_flight(void **state)
{
	alarm(30);
	struct victim w;
	victim_init(&w, 3);
	guardbuf big;
	assert_int_equal(guardbuf_new(&big, BIGLEN), 0);
	canary_fill(&big);
	uint32_t stag;
	ddp_mr_attr a = {
	    .addr = big.p, .len = BIGLEN, .access = DDP_ACCESS_REMOTE_WRITE, .pd = w.pda};
	assert_int_equal(ddp_stag_register(w.ctx, &a, &stag), 0);

	int fd = attacker_connect(&w);
	static uint8_t seg[DDP_TAGGED_HDR_LEN + BIGLEN], f[BIGLEN + 64];
	static uint8_t pay[BIGLEN];
	memset(pay, EVIL, sizeof pay);
	size_t n = tw_tagged(seg, 1, 1, 0, stag, 0, pay, BIGLEN);
	size_t fn = mpa_craft_fpdu(f, sizeof f, seg, n, 1);
	assert_true(fn > 0);
	const size_t half = BIGLEN / 2;
	size_t first = 2 + DDP_TAGGED_HDR_LEN + half;
	assert_int_equal(mpa_craft_send_all(fd, f, first), 0);
	long end = now_ms() + 5000;
	while (big.p[half - 1] != EVIL && !w.nerr && now_ms() < end)
		step(&w, 5);
	/* the first half was placed header-first, straight from the socket */
	assert_int_equal(w.nerr, 0);
	for (size_t i = 0; i < half; i++)
		assert_int_equal(big.p[i], EVIL);
	assert_true(canary_intact_from(&big, half));
	/* ...not through a staging buffer (read-ahead may copy a few octets) */
	assert_true(ddp_session_copied_bytes(ddp_mpa_session(w.c)) < 64);

	assert_int_equal(ddp_stag_invalidate(w.ctx, stag), 0);
	assert_int_equal(guardbuf_protect(&big, 0), 0); /* a late write faults */
	assert_int_equal(mpa_craft_send_all(fd, f + first, fn - first), 0);
	wait_until_error(&w, 5000);
	assert_int_equal(w.nerr, 1);
	assert_int_equal(w.err.layer, DDP_LAYER_DDP);
	assert_int_equal(w.err.etype, DDP_ETYPE_TAGGED);
	assert_int_equal(w.err.code, DDP_ECODE_T_INVALID_STAG);
	assert_int_equal(w.ndlv, 0);
	assert_true(canary_intact_from(&big, half));
	close(fd);
	ddp_mpa_conn_free(w.c);
	w.c = NULL;
	guardbuf_free(&big);
	assert_all_canaries(&w, 0);
	victim_fini(&w);
	alarm(0);
}

/* ---------------------------------------------------------- MPA verdicts */

/* RFC 5044 §4.4, §6, §8 through MPA/TCP: an FPDU whose ULPDU_Length no DDP
 * segment can have (0: shorter than any header; 16 with an untagged
 * control octet; 65535: above MULPDU's 64768) is a CRC error (2, 0, 0x02)
 * when its CRC is bad and the length error (1, 3, SHORT / OVERSIZE) only
 * when its CRC is good: the CRC verdict first, for every ULPDU_Length.
 * Nothing is placed or delivered; TCP stays open (codes 2/3, RFC 5044 §8).
 * Was: (1, 3, x) whatever the CRC. */
static void test_hostile_mpa_crc_verdict_before_length_errors(void **state)
{
	alarm(60);
	static const struct {
		size_t len;
		uint8_t ctrl;
		uint8_t code;
	} cases[] = {
		{ 0, 0, DDP_ECODE_LLP_SHORT },
		{ 16, 0x41, DDP_ECODE_LLP_SHORT },
		{ 65535, 0x41, DDP_ECODE_LLP_OVERSIZE },
	};
	struct victim w;
	victim_init(&w, 5);
	static uint8_t seg[65535], f[70000];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (int good = 0; good < 2; good++) {
			int fd = attacker_connect(&w);
			memset(seg, EVIL, cases[i].len);
			if (cases[i].len)
				seg[0] = cases[i].ctrl;
			/* crc 0: a zero CRC field, which is not the CRC */
			size_t n = mpa_craft_fpdu(f, sizeof f, seg, cases[i].len, good);
			assert_true(n > 0);
			assert_int_equal(mpa_craft_send_all(fd, f, n), 0);
			wait_until_error(&w, 3000);
			step(&w, 20);
			print_message("ULPDU_Length %zu, CRC %s -> %d/%d/%d\n", cases[i].len,
			              good ? "good" : "bad", w.err.layer, w.err.etype,
			              w.err.code);
			assert_int_equal(w.nerr, 1);
			if (good) {
				assert_int_equal(w.err.layer, DDP_LAYER_DDP);
				assert_int_equal(w.err.etype, DDP_ETYPE_LLP);
				assert_int_equal(w.err.code, cases[i].code);
			} else {
				assert_int_equal(w.err.layer, DDP_LAYER_LLP);
				assert_int_equal(w.err.etype, 0);
				assert_int_equal(w.err.code, DDP_MPA_ECODE_CRC);
			}
			assert_int_equal(w.ndlv, 0);
			assert_false(w.failed);
			attacker_done(&w, fd, 0);
		}
	}
	victim_fini(&w);
	alarm(0);
}

/* RFC 5044 §4.3, §8 code 3 through MPA/TCP: the victim's Reply asks for
 * markers (M=1); the attacker sends a valid FPDU without them. The first
 * octets of its stream MUST be a marker with FPDUPTR 0: the victim reports
 * the MPA marker error (2, 0, 0x03), places and delivers nothing, and keeps
 * TCP open. Was: (1, 3, 0x03) "shorter than a header", or nothing. */
static void test_hostile_mpa_missing_markers_are_a_marker_error(void **state)
{
	alarm(30);
	struct victim w;
	victim_init_markers(&w, 6, 1);
	for (int k = 0; k < 2; k++) {
		int fd = attacker_connect(&w);
		uint8_t seg[DDP_TAGGED_HDR_LEN + 16], pay[16];
		memset(pay, EVIL, sizeof pay);
		size_t n;
		if (k == 0)
			n = tw_tagged(seg, 1, 1, 0, w.t.stag[HT_GOOD], TBASE, pay, sizeof pay);
		else
			n = hostile_probe(seg);
		send_fpdu(fd, seg, n);
		wait_until_error(&w, 3000);
		step(&w, 20);
		print_message("FPDU without markers -> %d/%d/%d\n", w.err.layer, w.err.etype,
		              w.err.code);
		assert_int_equal(w.nerr, 1);
		assert_int_equal(w.err.layer, DDP_LAYER_LLP);
		assert_int_equal(w.err.etype, 0);
		assert_int_equal(w.err.code, DDP_MPA_ECODE_MARKER);
		assert_int_equal(w.ndlv, 0);
		assert_int_equal(w.nprobe, 0);
		assert_false(w.failed);
		attacker_done(&w, fd, 0);
	}
	victim_fini(&w);
	alarm(0);
}

/* ---------------------------------------------------------- random phase */

/* A few thousand random hostile FPDUs through real TCP, a few per
 * connection (the rest of a connection is ignored after its first error),
 * each batch closed by a probe message on QN 2: zero faults, forbidden
 * buffers untouched, and both placements and errors happened. */
static void test_hostile_mpa_random_fpdus_never_fault(void **state)
{
	alarm(120);
	const char *env = getenv("DDP_HOSTILE_ITERS");
	unsigned long iters = env ? strtoul(env, NULL, 0) : 3000;
	struct victim w;
	victim_init(&w, 4);
	unsigned long sent = 0, conns = 0, errors = 0, dlv = 0;
	static uint8_t seg[HOSTILE_MAX_SEG];
	while (sent < iters) {
		int fd = attacker_connect(&w);
		conns++;
		int batch = 1 + (int)(hostile_rnd(&w.rng) % 4);
		for (int k = 0; k < batch; k++, sent++)
			send_fpdu(fd, seg, hostile_random(&w.t, &w.rng, seg));
		uint8_t probe[DDP_UNTAGGED_HDR_LEN + 3];
		send_fpdu(fd, probe, hostile_probe(probe));
		long end = now_ms() + 3000;
		while (!w.nerr && !w.nprobe && !w.failed && now_ms() < end)
			step(&w, 20);
		assert_true(w.nerr || w.nprobe);
		assert_false(w.failed);
		errors += w.nerr != 0;
		dlv += w.ndlv;
		close(fd);
		ddp_mpa_conn_free(w.c);
		w.c = NULL;
		/* forbidden buffers: still the canary (they are read-only too) */
		for (int i = HT_RO; i <= HT_REVOKED; i++)
			assert_true(canary_intact_from(&w.t.g[i], 0));
		/* the slack in front of every buffer was never written */
		for (int i = 0; i < HT_N; i++)
			assert_true(canary_intact_from(&w.t.g[i], w.t.g[i].len));
		for (int i = 0; i < HU_N; i++)
			assert_true(canary_intact_from(&w.ub[i], w.ub[i].len));
	}
	print_message("%lu FPDUs over %lu connections: %lu errors, %lu deliveries\n", sent, conns,
	              errors, dlv);
	assert_true(errors > 0);
	assert_true(dlv > 0);
	assert_true(errors < conns); /* some batches were all valid */
	victim_fini(&w);
	alarm(0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hostile_mpa_valid_write_lands),
	    cmocka_unit_test(test_hostile_mpa_table_exact_codes_no_placement),
	    cmocka_unit_test(test_hostile_mpa_revocation_hits_segment_in_flight),
	    cmocka_unit_test(test_hostile_mpa_random_fpdus_never_fault),
	    cmocka_unit_test(test_hostile_mpa_crc_verdict_before_length_errors),
	    cmocka_unit_test(test_hostile_mpa_missing_markers_are_a_marker_error),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
