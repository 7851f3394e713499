/* sctp_ll_sendv's gather send calls usrsctp's unexported
 * sctp_lower_sosend() with a copy of usrsctp's private struct uio. It is
 * guarded: configure enables it only for a usrsctp version known to have
 * that layout (DDP_USRSCTP_LOWER_SOSEND), and the first endpoint runs a
 * self-test (a known three-piece gather over a loopback association pair
 * inside usrsctp). Without it every multi-piece message is copied into one
 * buffer and sent with the public usrsctp_sendv(), and the copy is
 * counted. Both paths carry the same messages intact: stream, PPID and
 * every octet, over a real association pair. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include <ddp/ddp.h>
#include "msgcheck.h"
#include "net_helpers.h"
#include "ddp_test.h"

#define NMSG 300
#define MAXLEN 9000

struct side {
	sctp_ll_assoc *a;
	int up, down;
	long got, bad;
	uint8_t buf[65536];
};

static struct event_base *base;
static sctp_ll_ep *se, *ce;
static struct side srv, cli;

static void on_event(sctp_ll_assoc *a, enum sctp_ll_event ev, int status, void *user)
{
	struct side *s = user;
	sctp_ll_rinfo ri;
	long n;
	(void)status;
	if (ev == SCTP_LL_EV_UP)
		s->up = 1;
	else if (ev == SCTP_LL_EV_DOWN)
		s->down = 1;
	else if (ev == SCTP_LL_EV_READABLE)
		while ((n = sctp_ll_recv(a, s->buf, sizeof(s->buf), &ri)) >= 0) {
			/* one read per message: the buffer holds the largest */
			uint32_t seq = (uint32_t)s->got;
			if (!ri.eor || ri.sid != seq % 3 || ri.ppid != 0x1000 + seq ||
			    !msgcheck_ok(s->buf, (size_t)n, ri.sid, seq))
				s->bad++;
			s->got++;
		}
}

static const sctp_ll_assoc_cb cbs = {on_event};

static void on_accept(sctp_ll_ep *ep, sctp_ll_assoc *a, void *user)
{
	(void)ep;
	(void)user;
	srv.a = a;
	sctp_ll_assoc_set_cb(a, &cbs, &srv);
}

static void run_until(const int *flag, double secs)
{
	double end = net_now_s() + secs;
	while (!*flag && net_now_s() < end)
		event_base_loop(base, EVLOOP_ONCE | EVLOOP_NONBLOCK), usleep(200);
}

static void pair_up(void)
{
	sctp_ll_config lc;
	memset(&lc, 0, sizeof(lc));
	lc.port = -1;
	lc.nstreams = 4;
	memset(&srv, 0, sizeof(srv));
	memset(&cli, 0, sizeof(cli));
	base = event_base_new();
	assert_int_equal(sctp_ll_ep_new(base, &lc, &se), 0);
	assert_int_equal(sctp_ll_listen(se, on_accept, NULL), 0);
	assert_int_equal(sctp_ll_ep_new(base, &lc, &ce), 0);
	assert_int_equal(sctp_ll_connect(ce, "127.0.0.1", sctp_ll_ep_port(se), &cbs, &cli, &cli.a),
	                 0);
	run_until(&cli.up, 5);
	run_until(&srv.up, 5);
	assert_true(cli.up && srv.up);
}

static void pair_down(void)
{
	sctp_ll_ep_free(ce);
	sctp_ll_ep_free(se);
	event_base_free(base);
}

/* NMSG messages, each in three pieces (header-like, payload, trailer) cut
 * at varying points; returns the octets sent. */
static uint64_t send_pieces(void)
{
	static uint8_t msg[MAXLEN];
	uint64_t total = 0;
	for (uint32_t seq = 0; seq < NMSG; seq++) {
		size_t n = MSGCHECK_MIN + msgcheck_mix(seq) % (MAXLEN - MSGCHECK_MIN);
		size_t c1 = 1 + msgcheck_mix(seq + 7) % (n - 2);
		size_t c2 = c1 + 1 + msgcheck_mix(seq + 9) % (n - c1 - 1);
		struct iovec iov[3] = {{msg, c1}, {msg + c1, c2 - c1}, {msg + c2, n - c2}};
		int rc;
		msgcheck_make(msg, seq % 3, seq, n);
		while ((rc = sctp_ll_sendv(cli.a, (uint16_t)(seq % 3), 0x1000 + seq, iov, 3)) ==
		       DDP_ERR_AGAIN)
			event_base_loop(base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
		assert_int_equal(rc, 0);
		total += n;
		event_base_loop(base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
	}
	double end = net_now_s() + 10;
	while (srv.got < NMSG && net_now_s() < end)
		event_base_loop(base, EVLOOP_ONCE | EVLOOP_NONBLOCK), usleep(200);
	return total;
}

static void test_sctp_gather_send_passes_its_self_test(void **st)
{
	sctp_ll_io_stats io;
	(void)st;
	pair_up();
	print_message("gather send: %s\n", sctp_ll_send_gathers() ? "on (self-test passed)" : "off");
#if DDP_USRSCTP_LOWER_SOSEND
	/* configure knows this usrsctp: the self-test must pass */
	assert_int_equal(sctp_ll_send_gathers(), 1);
#endif
	send_pieces();
	sctp_ll_ep_io_stats(ce, &io);
	print_message("%ld messages, %ld bad, %llu octets copied\n", srv.got, srv.bad,
	              (unsigned long long)io.tx_copied);
	assert_int_equal(srv.got, NMSG);
	assert_int_equal(srv.bad, 0);
	if (sctp_ll_send_gathers())
		assert_int_equal(io.tx_copied, 0);
	pair_down();
}

static void test_sctp_forced_copy_send_carries_the_same_messages(void **st)
{
	sctp_ll_io_stats io;
	uint64_t sent;
	(void)st;
	sctp_ll_test_force_copy(1);
	pair_up();
	assert_int_equal(sctp_ll_send_gathers(), 0);
	sent = send_pieces();
	sctp_ll_ep_io_stats(ce, &io);
	print_message("copy path: %ld messages, %ld bad, %llu of %llu octets copied\n", srv.got,
	              srv.bad, (unsigned long long)io.tx_copied, (unsigned long long)sent);
	assert_int_equal(srv.got, NMSG);
	assert_int_equal(srv.bad, 0);
	/* every multi-piece message went through the staging buffer */
	assert_int_equal(io.tx_copied, sent);
	/* a single-piece message is never copied */
	{
		uint8_t one[64];
		memset(one, 'x', sizeof(one));
		assert_int_equal(sctp_ll_send(cli.a, 0, 1, one, sizeof(one)), 0);
		sctp_ll_ep_io_stats(ce, &io);
		assert_int_equal(io.tx_copied, sent);
	}
	pair_down();
	sctp_ll_test_force_copy(0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sctp_gather_send_passes_its_self_test),
	    cmocka_unit_test(test_sctp_forced_copy_send_carries_the_same_messages),
	};
	alarm(60);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
