/*
 * test_sctp_ctl_flood: a peer that sends stream Initiates (RFC 5043
 * §5.2.3) as fast as it can and never reads our answers. The victim's ULP
 * accepts none, so past max_pending_initiates (1 here) each Initiate is answered
 * with a Terminate. usrsctp bounds its send buffer in payload octets (a
 * Terminate is 4), so without a bound of our own the victim would hand it
 * millions of answers, each costing a message and an mbuf. Asserted: the
 * victim stops reading after a bounded number of Initiates (its control
 * queue fills because usrsctp holds at most SCTP_CTL_LLP_MAX of its
 * answers), its memory stays flat, the association lives, and once the
 * peer reads again every Initiate it sent is read and answered.
 *
 * The attacker is a bare sctp_ll endpoint of this test (small send and
 * receive buffers of its own, so what it queues is not the victim's).
 */
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

#include "proc_stats.h"
#include "sctp/sctp_ctl.h"
#include "ddp_test.h"
#include "sctp/sctp_ssn.h"
#include "sctp/usrsctp/sctp_ll.h"

#define NSTREAMS 8192
#define FLOOD_MS 3000
/* Initiates the victim may read while the peer reads nothing: the
 * pending ones, SCTP_CTL_LLP_MAX answers in usrsctp, a full control queue
 * of 20-octet Terminates (64 KiB), what the peer's 64 KiB receive
 * window takes in, with room to spare */
#define READ_MAX    16384
#define RSS_MAX_KIB (64 * 1024)

static struct event_base *base;
static ddp_ctx *ctx;
static ddp_sctp_ep *vep;
static ddp_sctp_assoc *va;
static int vup, vdown;
static uint64_t ninit_ulp;
static sctp_ll_ep *aep;
static sctp_ll_assoc *aa;
static int aup, adown, areads;
static uint64_t agot;

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static void step(long ms)
{
	struct timeval tv = {0, ms * 1000};
	event_base_loopexit(base, &tv);
	event_base_dispatch(base);
}

static void on_assoc(ddp_sctp_assoc *a, ddp_session *s, int status, void *user)
{
	(void)s;
	(void)user;
	if (status == 0) {
		va = a;
		vup = 1;
	} else if (a == va) {
		va = NULL;
		vdown = 1;
	}
}

/* the ULP answers nothing: the Initiates stay pending, the rest are
 * refused with a Terminate by the adapter */
static void on_ctl(ddp_sctp_assoc *a, uint32_t stream, enum ddp_sctp_event ev, int status,
                   const void *pd, size_t len, void *user)
{
	(void)a;
	(void)stream;
	(void)status;
	(void)pd;
	(void)len;
	(void)user;
	if (ev == DDP_SCTP_INITIATE)
		ninit_ulp++;
}

static void on_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	(void)s;
	(void)d;
	(void)user;
}

static void read_all(sctp_ll_assoc *a)
{
	static uint8_t sink[4096];
	sctp_ll_rinfo ri;
	while (sctp_ll_recv(a, sink, sizeof sink, &ri) >= 0)
		if (ri.eor)
			agot++;
}

static void on_att(sctp_ll_assoc *a, enum sctp_ll_event ev, int status, void *user)
{
	(void)status;
	(void)user;
	if (ev == SCTP_LL_EV_UP)
		aup = 1;
	else if (ev == SCTP_LL_EV_DOWN)
		adown = 1;
	else if (ev == SCTP_LL_EV_READABLE && areads)
		read_all(a);
}

static const sctp_ll_assoc_cb att_cb = {on_att};

static uint64_t victim_rx_ctl(void)
{
	ddp_sctp_stats st;
	memset(&st, 0, sizeof(st));
	ddp_sctp_get_stats(va, &st);
	return st.rx_ctl;
}

static void test_sctp_ctl_flood_from_a_peer_that_never_reads_is_bounded(void **state)
{
	(void)state;
	alarm(60);
	base = event_base_new();
	assert_int_equal(ddp_ctx_new(NULL, &ctx), 0);
	ddp_sctp_config vc;
	memset(&vc, 0, sizeof(vc));
	vc.port = -1;
	vc.nstreams = NSTREAMS;
	vc.ctx = ctx;
	vc.ddp.deliver = on_deliver;
	vc.sctp.assoc = on_assoc;
	vc.sctp.session_ctl = on_ctl;
	vc.max_pending_initiates = 1;
	assert_int_equal(ddp_sctp_ep_new(base, &vc, &vep), 0);
	assert_int_equal(ddp_sctp_listen(vep), 0);

	sctp_ll_config ac;
	memset(&ac, 0, sizeof(ac));
	ac.port = -1;
	ac.nstreams = NSTREAMS;
	ac.adaptation = SCTP_ADAPTATION_DDP; /* RFC 5043 §11.1 */
	ac.require_adaptation = 1;
	ac.sndbuf = 64 * 1024;
	ac.rcvbuf = 64 * 1024;
	assert_int_equal(sctp_ll_ep_new(base, &ac, &aep), 0);
	assert_int_equal(
	    sctp_ll_connect(aep, "127.0.0.1", ddp_sctp_ep_port(vep), &att_cb, NULL, &aa), 0);
	long end = now_ms() + 5000;
	while (!(aup && vup) && now_ms() < end)
		step(5);
	assert_true(aup && vup);

	struct sctp_ctl_msg m;
	memset(&m, 0, sizeof(m));
	m.code = SCTP_CTL_INITIATE;
	uint8_t b[SCTP_CTL_MAX_LEN];
	size_t n = 0;
	assert_int_equal(sctp_ctl_encode(b, sizeof b, &m, &n), 0);

	/* stream 0 takes the one pending Initiate; every other stream's
	 * Initiate is refused with a Terminate */
	assert_int_equal(sctp_ll_send(aa, 0, SCTP_PPID_CTL, b, n), 0);
	uint64_t sent = 1;
	long rss0 = proc_rss_kib();
	end = now_ms() + FLOOD_MS;
	while (now_ms() < end && !adown && !vdown) {
		int rc =
		    sctp_ll_send(aa, (uint16_t)(1 + sent % (NSTREAMS - 1)), SCTP_PPID_CTL, b, n);
		if (rc == 0) {
			sent++;
			if (sent % 64 == 0)
				event_base_loop(base, EVLOOP_NONBLOCK);
			continue;
		}
		assert_int_equal(rc, DDP_ERR_AGAIN);
		step(1);
	}
	step(200);
	long rss1 = proc_rss_kib();
	assert_false(adown);
	assert_false(vdown);
	uint64_t rd = victim_rx_ctl();
	print_message("peer sent %llu Initiates without reading; the victim read %llu "
	              "(ULP saw %llu); RSS %+ld KiB\n",
	              (unsigned long long)sent, (unsigned long long)rd,
	              (unsigned long long)ninit_ulp, rss1 - rss0);
	assert_true(rd <= READ_MAX);
	if (proc_rss_meaningful())
		assert_true(rss1 - rss0 <= RSS_MAX_KIB);

	/* the peer reads again: every Initiate it sent is read */
	areads = 1;
	read_all(aa);
	end = now_ms() + 20000;
	while (victim_rx_ctl() < sent && now_ms() < end) {
		read_all(aa);
		step(5);
	}
	print_message("after the peer read %llu answers: the victim read %llu of %llu\n",
	              (unsigned long long)agot, (unsigned long long)victim_rx_ctl(),
	              (unsigned long long)sent);
	assert_int_equal(victim_rx_ctl(), sent);
	assert_false(vdown);

	sctp_ll_close(aa, 1);
	end = now_ms() + 5000;
	while (!vdown && now_ms() < end)
		step(5);
	sctp_ll_free(aa);
	sctp_ll_ep_free(aep);
	ddp_sctp_ep_free(vep);
	event_base_loop(base, EVLOOP_NONBLOCK);
	assert_int_equal(ddp_ctx_free(ctx), 0);
	event_base_free(base);
	alarm(0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sctp_ctl_flood_from_a_peer_that_never_reads_is_bounded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
