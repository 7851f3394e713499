/*
 * Memory of associations that ask for many streams (RFC 5043 maps DDP
 * streams to SCTP streams: up to 65,535). Before: every stream of an
 * association got the adapter's 560-octet state at once (and the core's
 * ~300), touched by the init loop; 200 associations asking for 65,535
 * streams each and initiating on 64 took 9.96 GB virtual / 656 MB
 * resident. Now the adapter's state is made per stream as it gets a
 * session, and the endpoint caps the streams of all its associations
 * (ddp_sctp_config.max_streams): an association that does not fit is
 * refused (logged).
 *
 * Real usrsctp associations on 127.0.0.1: the victim is a ddp_sctp_ep
 * listening with nstreams 65535 and max_streams 2 x 65535; the peer a bare
 * sctp_ll endpoint (no DDP state of its own) asking for 65,535 streams.
 * usrsctp's own per-stream state, in this process on both sides, is
 * measured first with a bare listener and subtracted. Resident memory from
 * /proc/self/statm: after two associations with an Initiate on 64 streams
 * each, the growth beyond usrsctp's is at most the documented cost (2 x
 * 65,535 x 320 octets + the 128 streams with sessions) + 8 MiB; a third
 * association is refused; after every association closed, resident
 * memory is back within 16 MiB of where it started.
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
#include "sctp/usrsctp/sctp_ll.h"
#include "sctp/sctp_ssn.h"

#define NSTR 65535
#define NINIT 64
#define NATT 3
#define PER_STREAM 320 /* documented DDP cost of an unused stream, rounded up */
#define PER_SESSION 640

static struct event_base *base;
static ddp_ctx *ctx;
static char logbuf[8192];

struct att {
	sctp_ll_assoc *a;
	int up, down;
};
static struct att att[NATT];
static int vup, vdown, vinit;

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static void step(long ms)
{
	struct timeval tv = { 0, ms * 1000 };
	event_base_loopexit(base, &tv);
	event_base_dispatch(base);
}

static long rss_kib(void)
{
	long size = 0, res = 0;
	FILE *f = fopen("/proc/self/statm", "r");
	if (!f)
		return -1;
	if (fscanf(f, "%ld %ld", &size, &res) != 2)
		res = -1;
	fclose(f);
	return res < 0 ? -1 : res * (sysconf(_SC_PAGESIZE) / 1024);
}

static void on_log(void *user, enum ddp_log_level level, const char *msg)
{
	(void)user;
	(void)level;
	strncat(logbuf, msg, sizeof(logbuf) - strlen(logbuf) - 2);
	strcat(logbuf, "\n");
}

/* ---- the peer: bare sctp_ll associations */

static void on_att(sctp_ll_assoc *a, enum sctp_ll_event ev, int status, void *user)
{
	struct att *t = user;
	static uint8_t sink[70000];
	sctp_ll_rinfo ri;
	(void)status;
	switch (ev) {
	case SCTP_LL_EV_UP: t->up = 1; break;
	case SCTP_LL_EV_DOWN: t->down = 1; break;
	case SCTP_LL_EV_READABLE:
		while (sctp_ll_recv(a, sink, sizeof sink, &ri) >= 0)
			;
		break;
	default: break;
	}
}
static const sctp_ll_assoc_cb att_cb = { on_att };

static sctp_ll_ep *att_ep_new(void)
{
	sctp_ll_config ac;
	sctp_ll_ep *ep;
	memset(&ac, 0, sizeof(ac));
	ac.port = -1;
	ac.nstreams = NSTR;
	ac.adaptation = SCTP_ADAPTATION_DDP; /* RFC 5043 §11.1 */
	ac.require_adaptation = 1;
	assert_int_equal(sctp_ll_ep_new(base, &ac, &ep), 0);
	return ep;
}

static void att_connect(sctp_ll_ep *ep, int port, struct att *t)
{
	memset(t, 0, sizeof(*t));
	assert_int_equal(sctp_ll_connect(ep, "127.0.0.1", port, &att_cb, t, &t->a), 0);
	long end = now_ms() + 10000;
	while (!t->up && !t->down && now_ms() < end)
		step(5);
	assert_true(t->up);
}

static void att_initiate(struct att *t, uint16_t sid)
{
	struct sctp_ctl_msg m;
	uint8_t b[SCTP_CTL_MAX_LEN];
	size_t n = 0;
	memset(&m, 0, sizeof(m));
	m.code = SCTP_CTL_INITIATE; /* DDP-SSN 0, RFC 5043 §5.2.3 */
	assert_int_equal(sctp_ctl_encode(b, sizeof b, &m, &n), 0);
	long end = now_ms() + 5000;
	int rc;
	while ((rc = sctp_ll_send(t->a, sid, SCTP_PPID_CTL, b, n)) == DDP_ERR_AGAIN &&
	       now_ms() < end)
		step(5);
	assert_int_equal(rc, 0);
}

static void wait_until(int *flag, long ms)
{
	long end = now_ms() + ms;
	while (!*flag && now_ms() < end)
		step(5);
}

/* ---- usrsctp alone: a bare listener */

static sctp_ll_assoc *raw_acc[NATT];
static int nraw;
static void on_raw(sctp_ll_assoc *a, enum sctp_ll_event ev, int status, void *user)
{
	(void)a;
	(void)ev;
	(void)status;
	(void)user;
}
static const sctp_ll_assoc_cb raw_cb = { on_raw };
static void raw_accept(sctp_ll_ep *ep, sctp_ll_assoc *a, void *user)
{
	(void)ep;
	(void)user;
	sctp_ll_assoc_set_cb(a, &raw_cb, NULL);
	raw_acc[nraw++] = a;
}

/* Resident growth of two 65,535-stream association pairs in usrsctp. */
static long usrsctp_cost_kib(void)
{
	sctp_ll_config lc;
	sctp_ll_ep *lep, *aep;
	memset(&lc, 0, sizeof(lc));
	lc.port = -1;
	lc.nstreams = NSTR;
	lc.adaptation = SCTP_ADAPTATION_DDP;
	lc.require_adaptation = 1;
	assert_int_equal(sctp_ll_ep_new(base, &lc, &lep), 0);
	assert_int_equal(sctp_ll_listen(lep, raw_accept, NULL), 0);
	aep = att_ep_new();
	step(50);
	long before = rss_kib();
	nraw = 0;
	for (int i = 0; i < 2; i++)
		att_connect(aep, sctp_ll_ep_port(lep), &att[i]);
	for (int i = 0; i < 2; i++)
		for (uint16_t s = 0; s < NINIT; s++)
			att_initiate(&att[i], s);
	step(200);
	long cost = rss_kib() - before;
	for (int i = 0; i < 2; i++) {
		sctp_ll_close(att[i].a, 1);
		wait_until(&att[i].down, 5000);
		sctp_ll_free(att[i].a);
	}
	for (int i = 0; i < nraw; i++)
		sctp_ll_free(raw_acc[i]);
	sctp_ll_ep_free(aep);
	sctp_ll_ep_free(lep);
	step(100);
	return cost;
}

/* ---- the victim */

static void v_deliver(ddp_session *s, const ddp_delivery *d, void *u)
{
	(void)s;
	(void)d;
	(void)u;
}
static void v_assoc(ddp_sctp_assoc *a, ddp_session *s, int status, void *u)
{
	(void)a;
	(void)s;
	(void)u;
	if (status == 0)
		vup++;
	else
		vdown++;
}
static void v_ctl(ddp_sctp_assoc *a, uint32_t stream, enum ddp_sctp_event ev, int status,
		  const void *pd, size_t len, void *u)
{
	(void)status;
	(void)pd;
	(void)len;
	(void)u;
	if (ev != DDP_SCTP_INITIATE)
		return;
	vinit++;
	assert_int_equal(ddp_sctp_accept(a, stream, NULL, 0), 0);
}

static void test_sctp_many_streams_memory_bounded_and_returned(void **state)
{
	(void)state;
	long ucost = usrsctp_cost_kib();

	ddp_sctp_config vc;
	ddp_sctp_ep *vep;
	memset(&vc, 0, sizeof(vc));
	vc.port = -1;
	vc.nstreams = NSTR;
	vc.max_streams = 2 * NSTR;
	vc.max_pending_initiates = NINIT;
	vc.ctx = ctx;
	vc.ddp.deliver = v_deliver;
	vc.sctp.assoc = v_assoc;
	vc.sctp.session_ctl = v_ctl;
	assert_int_equal(ddp_sctp_ep_new(base, &vc, &vep), 0);
	assert_int_equal(ddp_sctp_listen(vep), 0);
	sctp_ll_ep *aep = att_ep_new();
	step(50);
	long base_kib = rss_kib();

	for (int i = 0; i < 2; i++)
		att_connect(aep, ddp_sctp_ep_port(vep), &att[i]);
	for (int i = 0; i < 2; i++)
		for (uint16_t s = 0; s < NINIT; s++)
			att_initiate(&att[i], s);
	long end = now_ms() + 10000;
	while ((vup < 2 || vinit < 2 * NINIT) && now_ms() < end)
		step(5);
	assert_int_equal(vup, 2);
	assert_int_equal(vinit, 2 * NINIT);
	step(200);
	long grown = rss_kib() - base_kib;
	long bound = (2L * NSTR * PER_STREAM + 2L * NINIT * PER_SESSION) / 1024 + 8192;
	print_message("resident: +%ld KiB with 2 associations (usrsctp alone: +%ld KiB; "
		      "DDP bound %ld KiB)\n", grown, ucost, bound);
	if (proc_rss_meaningful())
		assert_true(grown - ucost <= bound);

	/* the third does not fit: refused (ABORT as it comes up), logged */
	memset(&att[2], 0, sizeof(att[2]));
	assert_int_equal(sctp_ll_connect(aep, "127.0.0.1", ddp_sctp_ep_port(vep), &att_cb,
					 &att[2], &att[2].a),
			 0);
	wait_until(&att[2].down, 10000);
	assert_true(att[2].down);
	assert_int_equal(vup, 2);
	assert_non_null(strstr(logbuf, "SCTP stream cap 131070 reached"));

	for (int i = 0; i < NATT; i++) {
		if (!att[i].down)
			sctp_ll_close(att[i].a, 1);
		wait_until(&att[i].down, 5000);
		sctp_ll_free(att[i].a);
	}
	end = now_ms() + 5000;
	while (vdown < 3 && now_ms() < end)
		step(5);
	assert_int_equal(vdown, 3);
	sctp_ll_ep_free(aep);
	step(100);
	long after = rss_kib() - base_kib;
	print_message("resident after close: %+ld KiB\n", after);

	if (proc_rss_meaningful())
		assert_true(after <= 16384);
	ddp_sctp_ep_free(vep);
	step(50);
}

static int setup(void **state)
{
	(void)state;
	base = event_base_new();
	ddp_ctx_config cc;
	memset(&cc, 0, sizeof(cc));
	cc.log = on_log;
	return base && ddp_ctx_new(&cc, &ctx) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	ddp_ctx_free(ctx);
	event_base_free(base);
	return 0;
}

int main(void)
{
	alarm(120);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sctp_many_streams_memory_bounded_and_returned),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
