/* The MPA listener's caps on established connections
 * (ddp_mpa_config.max_conns, max_conns_per_addr): at a cap the least
 * recently active idle connection (of that source, for the per-source
 * cap) is ended to make room (DDP_MPA_FAILED with DDP_ERR_LIMIT, TCP
 * reset, logged with its address); when none is idle (or stalled) the
 * new connection is reset (logged). Clients are plain sockets speaking MPA by hand from
 * different loopback source addresses (127.0.0.2, .3, ...); "activity" is
 * one more octet of an FPDU that never completes. Before the caps every
 * connection was kept. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/event.h>

#include <ddp/ddp.h>
#include <ddp/mpa.h>
#include "ddpwire.h"
#include "mpa_craft.h"
#include "net_helpers.h"

static struct event_base *base;
static ddp_ctx *ctx;
static char logbuf[8192];
static int nup, nlimit, nclosed, nother;
static uint8_t fpdu[128];
static size_t fpdu_len;

static void on_log(void *user, enum ddp_log_level level, const char *msg)
{
	size_t n = strlen(logbuf);
	snprintf(logbuf + n, sizeof(logbuf) - n, "%s\n", msg);
}

static void on_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
}

/* the client went away: close our half too */
static void on_stream_event(ddp_session *s, uint32_t st, enum ddp_stream_event ev, int status,
                            void *user)
{
	if (ev == DDP_EV_HALF_CLOSED)
		ddp_session_close(s, 0);
}

static const ddp_callbacks cbs = {.deliver = on_deliver, .stream_event = on_stream_event};

static void on_event(ddp_mpa_conn *c, enum ddp_mpa_event ev, int err, uint8_t code, void *user)
{
	if (ev == DDP_MPA_CONNECTED) {
		nup++;
		return;
	}
	if (ev == DDP_MPA_FAILED && err == DDP_ERR_LIMIT)
		nlimit++;
	else if (ev == DDP_MPA_CLOSED)
		nclosed++;
	else
		nother++;
	ddp_mpa_conn_free(c);
}

struct client {
	int fd;
	size_t sent; /* octets of fpdu sent (activity) */
};

/* Connect from 127.0.0.<host> and run the MPA start-up by hand. Returns 1
 * when the Reply came, 0 when the connection was reset instead. */
static int client_open(struct client *k, int port, int host)
{
	char src[32];
	snprintf(src, sizeof(src), "127.0.0.%d", host);
	struct sockaddr_in ca = {.sin_family = AF_INET};
	inet_pton(AF_INET, src, &ca.sin_addr);
	struct sockaddr_in sa = net_lo(port);
	memset(k, 0, sizeof(*k));
	k->fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(k->fd >= 0);
	assert_int_equal(bind(k->fd, (struct sockaddr *)&ca, sizeof(ca)), 0);
	assert_int_equal(connect(k->fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	uint8_t req[64], rep[20];
	size_t rl = mpa_craft_request(req, sizeof(req), 1, 1), got = 0;
	if (send(k->fd, req, rl, MSG_NOSIGNAL) != (ssize_t)rl)
		return 0;
	for (int i = 0; i < 300 && got < sizeof(rep); i++) {
		net_run_for(base, 0.005);
		ssize_t r = recv(k->fd, rep + got, sizeof(rep) - got, MSG_DONTWAIT);
		if (r == 0 || (r < 0 && errno != EAGAIN))
			return 0;
		if (r > 0)
			got += (size_t)r;
	}
	assert_int_equal(got, sizeof(rep));
	assert_memory_equal(rep, "MPA ID Rep Frame", 16);
	net_run_for(base, 0.02);
	return 1;
}

/* One more octet of an FPDU that never completes: the server reads. */
static void client_poke(struct client *k)
{
	assert_true(k->sent < fpdu_len - 1);
	assert_int_equal(send(k->fd, fpdu + k->sent, 1, MSG_NOSIGNAL), 1);
	k->sent++;
	net_run_for(base, 0.01);
}

static int client_reset(struct client *k)
{
	net_run_for(base, 0.05);
	return net_peer_closed(k->fd);
}

static void test_mpa_listener_caps_evict_idle_or_refuse(void **st)
{
	alarm(30);
	base = event_base_new();
	ddp_ctx_config cc = {.log = on_log};
	assert_int_equal(ddp_ctx_new(&cc, &ctx), 0);
	uint8_t seg[64], pl[16] = {0};
	size_t sl = tw_untagged(seg, 1, 1, 0, 0, 1, 0, pl, sizeof(pl));
	fpdu_len = mpa_craft_fpdu(fpdu, sizeof(fpdu), seg, sl, 1);
	struct sockaddr_in sa = net_lo(0);
	ddp_mpa_listener *l;
	ddp_mpa_config mc;
	memset(&mc, 0, sizeof(mc));
	mc.revision = 1;
	mc.max_conns = 6;
	mc.max_conns_per_addr = 3;
	assert_int_equal(ddp_mpa_listen(base, ctx, (struct sockaddr *)&sa, sizeof(sa), &mc, &cbs,
	                                NULL, on_event, NULL, &l),
	                 0);
	int port = ddp_mpa_listener_port(l);
	struct client a[5], b[2], c1, d1;

	/* per source: three from .2, all idle; a fourth evicts the least
	 * recently active of them (a[0]) */
	for (int i = 0; i < 3; i++)
		assert_true(client_open(&a[i], port, 2));
	assert_int_equal(nup, 3);
	client_poke(&a[0]); /* a[0] was active last, then a[1] is the LRU */
	net_run_for(base, 1.1);
	assert_true(client_open(&a[3], port, 2));
	assert_int_equal(nlimit, 1);
	assert_true(client_reset(&a[1]));
	assert_false(client_reset(&a[0]));
	assert_false(client_reset(&a[2]));
	assert_non_null(strstr(logbuf, "per-source connection cap 3 reached: evicted 127.0.0.2:"));

	/* all three of .2 active: a fifth from .2 is refused */
	client_poke(&a[0]);
	client_poke(&a[2]);
	assert_false(client_open(&a[4], port, 2));
	assert_true(client_reset(&a[4]));
	assert_int_equal(nlimit, 1);
	assert_non_null(strstr(logbuf,
	                       "per-source connection cap 3 reached, none idle or stalled: refused "
	                       "127.0.0.2:"));

	/* in total: 3 of .2, two of .3, one of .4 = 6; all but b[0] active:
	 * a seventh (from .5) evicts b[0] */
	assert_true(client_open(&b[0], port, 3));
	assert_true(client_open(&b[1], port, 3));
	assert_true(client_open(&c1, port, 4));
	net_run_for(base, 1.1);
	client_poke(&a[0]);
	client_poke(&a[2]);
	client_poke(&a[3]);
	client_poke(&b[1]);
	client_poke(&c1);
	assert_true(client_open(&d1, port, 5));
	assert_int_equal(nlimit, 2);
	assert_true(client_reset(&b[0]));
	assert_false(client_reset(&b[1]));
	assert_false(client_reset(&c1));
	assert_non_null(strstr(logbuf, "MPA connection cap 6 reached: evicted 127.0.0.3:"));
	assert_non_null(strstr(logbuf, "for 127.0.0.5:"));
	print_message("%s", logbuf);
	assert_int_equal(nother, 0);

	struct client *all[] = {&a[0], &a[1], &a[2], &a[3], &a[4], &b[0], &b[1], &c1, &d1};
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		close(all[i]->fd);
	for (int i = 0; i < 100 && nup - nlimit - nclosed - nother > 0; i++)
		net_run_for(base, 0.02);
	assert_int_equal(nup, nlimit + nclosed + nother);
	ddp_mpa_listener_free(l);
	assert_int_equal(ddp_ctx_free(ctx), 0);
	event_base_free(base);
	alarm(0);
}

/* The one adapter model (ddp_mpa_listen_on) takes the same caps: the
 * evicted connection ends with down(DDP_ERR_LIMIT), and the session
 * the ULP had is freed by the adapter. */
static int downs, down_status;

static void on_stream_open(ddp_session *s, uint32_t st, void *user)
{
	nup++;
}

static void on_down(ddp_session *s, int status, void *user)
{
	downs++;
	down_status = status;
}

static void test_mpa_listen_on_per_source_cap_ends_idle_with_limit(void **st)
{
	alarm(30);
	base = event_base_new();
	ddp_ctx_config cc = {.log = on_log};
	logbuf[0] = 0;
	nup = 0;
	assert_int_equal(ddp_ctx_new(&cc, &ctx), 0);
	ddp_mpa_config mc;
	memset(&mc, 0, sizeof(mc));
	mc.revision = 1;
	mc.max_conns_per_addr = 1;
	ddp_conn_callbacks ccb = {.ddp = {.deliver = on_deliver, .stream_event = on_stream_event},
	                          .stream_open = on_stream_open,
	                          .down = on_down};
	ddp_listener *l;
	assert_int_equal(ddp_mpa_listen_on(base, ctx, "127.0.0.1", 0, &mc, &ccb, NULL, &l), 0);
	int port = ddp_listener_port(l);
	struct client k1, k2, k3;
	assert_true(client_open(&k1, port, 6));
	assert_int_equal(nup, 1);
	net_run_for(base, 1.1);
	assert_true(client_open(&k2, port, 6)); /* k1 idle: it makes room */
	assert_int_equal(nup, 2);
	assert_int_equal(downs, 1);
	assert_int_equal(down_status, DDP_ERR_LIMIT);
	assert_true(client_reset(&k1));
	assert_true(client_open(&k3, port, 7)); /* another source: no cap hit */
	assert_int_equal(downs, 1);
	assert_non_null(strstr(logbuf, "evicted 127.0.0.6:"));
	close(k1.fd);
	close(k2.fd);
	close(k3.fd);
	for (int i = 0; i < 50 && downs < 3; i++)
		net_run_for(base, 0.02);
	assert_int_equal(downs, 3);
	ddp_listener_free(l);
	event_base_loop(base, EVLOOP_NONBLOCK);
	assert_int_equal(ddp_ctx_free(ctx), 0);
	event_base_free(base);
	alarm(0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mpa_listener_caps_evict_idle_or_refuse),
	    cmocka_unit_test(test_mpa_listen_on_per_source_cap_ends_idle_with_limit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
