/* The MPA start-up cap (ddp_mpa_config.max_startup,
 * default 1024) must not lock good clients out. 1,100 slowloris
 * connections each dribble the first octets of an MPA Request and stop;
 * a good client arriving after them is served within 1 s: at the cap the
 * oldest connection without a complete Request is reset to make room, and
 * every eviction is reported through the context's log hook: a line with
 * the peer's address, or, past the rate limit (src/log_limit.h), in the
 * count of a later line. Before, every new client was reset until the slow
 * ones timed out (10 s). Loopback only. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <event2/event.h>

#include <ddp/ddp.h>
#include <ddp/mpa.h>
#include "net_helpers.h"

#define NSLOW 1100

static struct event_base *base;
static ddp_ctx *ctx;
static long evictions, with_addr, counted, other_logs;
static int connected, failed;
static ddp_mpa_conn *good;

static void on_log(void *user, enum ddp_log_level level, const char *msg)
{
	(void)user;
	const char *c;
	long n;
	if (level == DDP_LOG_WARN && strstr(msg, "evicted")) {
		evictions++;
		if (strstr(msg, "127.0.0.1:"))
			with_addr++;
	} else if (strncmp(msg, "MPA ", 4) == 0 && (c = strstr(msg, " cap: eviction: ")) &&
	           sscanf(c + strlen(" cap: eviction: "), "%ld more like this suppressed", &n) ==
	               1) {
		counted += n; /* the start-up or the per-source connection cap */
	} else {
		other_logs++;
	}
}

static void deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	(void)s;
	(void)d;
	(void)user;
}

static const ddp_callbacks cbs = {.deliver = deliver};

static void on_ev(ddp_mpa_conn *c, enum ddp_mpa_event ev, int err, uint8_t code, void *user)
{
	(void)err;
	(void)code;
	(void)user;
	if (ev == DDP_MPA_CONNECTED) {
		connected++;
		return;
	}
	failed++;
	if (c != good) /* the server's end of the good client */
		ddp_mpa_conn_free(c);
}

static void test_mpa_slowloris_does_not_lock_out_good_client(void **st)
{
	static int fds[NSLOW];
	struct rlimit rl;
	(void)st;
	getrlimit(RLIMIT_NOFILE, &rl);
	if (rl.rlim_max < 4 * NSLOW) {
		print_message("RLIMIT_NOFILE hard limit %lu: skipped\n",
		              (unsigned long)rl.rlim_max);
		skip();
	}
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
	ddp_ctx_config cc = {.log = on_log};
	base = event_base_new();
	assert_int_equal(ddp_ctx_new(&cc, &ctx), 0);
	struct sockaddr_in sa = net_lo(0);
	ddp_mpa_listener *l;
	/* defaults: max_startup 1024, start-up time-out 10 s */
	assert_int_equal(ddp_mpa_listen(base, ctx, (struct sockaddr *)&sa, sizeof(sa), NULL, &cbs,
	                                NULL, on_ev, NULL, &l),
	                 0);
	int port = ddp_mpa_listener_port(l);
	for (int i = 0; i < NSLOW; i++) {
		fds[i] = net_raw_connect(port);
		assert_true(fds[i] >= 0);
		assert_int_equal(write(fds[i], "MPA ", 4), 4); /* and no more */
		if (i % 64 == 63)
			net_run_for(base, 0.01);
	}
	net_run_for(base, 0.3);
	long ev_before = evictions;
	/* the good client */
	struct sockaddr_in ca = net_lo(port);
	ddp_mpa_conn *c;
	double t0 = net_now_s();
	assert_int_equal(ddp_mpa_connect(base, ctx, (struct sockaddr *)&ca, sizeof(ca), NULL, &cbs,
	                                 on_ev, NULL, &c),
	                 0);
	good = c;
	while (!connected && !failed && net_now_s() - t0 < 3)
		event_base_loop(base, EVLOOP_ONCE | EVLOOP_NONBLOCK), usleep(200);
	double took = net_now_s() - t0;
	int reset = 0;
	for (int i = 0; i < NSLOW; i++)
		reset += net_peer_closed(fds[i]);
	print_message("%d slowloris connections: %d reset, %ld evictions logged (%ld with the "
	              "address; %ld before the good client); good client %s after %.3f s\n",
	              NSLOW, reset, evictions, with_addr, ev_before,
	              connected ? "connected" : "NOT connected", took);
	assert_int_equal(connected, 1);
	assert_true(took < 1.0);
	assert_int_equal(with_addr, evictions);
	assert_true(evictions <= 10); /* the rest are counted */
	ddp_mpa_conn_free(c);
	for (int i = 0; i < NSLOW; i++)
		close(fds[i]);
	ddp_mpa_listener_free(l);
	/* the slow ones see EOF and go (their sessions hold the ctx); the
	 * last count comes out with the context */
	for (int i = 0; i < 50 && ddp_ctx_free(ctx) != 0; i++)
		net_run_for(base, 0.1);
	event_base_free(base);
	print_message("%ld evictions logged, %ld counted\n", evictions, counted);
	/* 1,100 + 1 into 1,024 slots: the 77 oldest slow ones went */
	assert_true(evictions + counted >= NSLOW + 1 - 1024);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mpa_slowloris_does_not_lock_out_good_client),
	};
	alarm(60);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
