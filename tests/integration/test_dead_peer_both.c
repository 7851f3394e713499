/*
 * One dead-peer time on both LLPs (ddp.h, "One behaviour"): connections
 * made with the one adapter model and every setting at its default, one
 * idle and one carrying data on each LLP, from network namespace A to a
 * listener in namespace B over a veth pair. Then B's veth goes down: the
 * peer vanishes (no FIN, no RST, no ABORT, nothing answered). Every one of
 * the four connections must report down(DDP_ERR_TIMEOUT) within the same
 * window: DDP_DEAD_PEER_TIMEOUT_MS after the peer went, 3 s either way
 * (an idle connection counts from the last thing it heard, up to a
 * keepalive / heartbeat period before the cut; the checks run every
 * second at most). The run is bounded: a connection still up after the
 * window fails the test. Each LLP names the peer that stopped answering
 * in the context's log ("MPA peer ... unresponsive", "SCTP peer ...
 * unresponsive").
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <event2/event.h>

#include <ddp/ddp.h>
#include <ddp/mpa.h>
#include <ddp/sctp.h>

#include "conn_ulp.h"
#include "net_helpers.h"
#include "netns_pair.h"

#define NET_A "169.254.233.1"
#define NET_B "169.254.233.2"
#define TOL_S 3.0
#define NBUF  16

static const char *const llp_name[] = {"MPA", "SCTP"};

struct end {
	const char *what;
	int busy, client;
	ddp_session *s;
	int opens, downs, status;
	double t_down;
	long sent, done;
	uint8_t buf[NBUF][256];
};

static void stream_open(ddp_session *s, uint32_t stream, void *user)
{
	struct end *e = user;
	e->s = s;
	e->opens++;
	for (int i = 0; i < NBUF; i++)
		assert_int_equal(
		    ddp_post_recv(s, stream, 0, e->buf[i], sizeof(e->buf[i]), e->buf[i]), 0);
}

static void deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	(void)user;
	if (d->status == 0) /* the buffer goes back for the next message */
		ddp_post_recv(s, d->stream, 0, d->buf_ctx, 256, d->buf_ctx);
}

static void send_done(ddp_session *s, uint32_t stream, void *ctx, int status, void *user)
{
	struct end *e = user;
	(void)s, (void)stream, (void)ctx, (void)status;
	e->done++;
}

static void down(ddp_session *s, int status, void *user)
{
	struct end *e = user;
	(void)s;
	e->s = NULL;
	e->downs++;
	e->status = status;
	e->t_down = net_now_s();
}

static const ddp_conn_callbacks ulp = {
    .ddp = {.deliver = deliver, .send_done = send_done, .stream_event = conn_ulp_stream_event},
    .stream_open = stream_open,
    .down = down,
};

static char logged[8192];
static size_t nlogged;

static void log_line(void *user, enum ddp_log_level level, const char *msg)
{
	size_t n = strlen(msg);
	(void)user, (void)level;
	if (nlogged + n + 2 > sizeof(logged))
		return;
	memcpy(logged + nlogged, msg, n);
	nlogged += n;
	logged[nlogged++] = '\n';
	logged[nlogged] = 0;
}

/* The busy clients keep a few messages in flight. */
static void top_up(struct end *e)
{
	static uint8_t msg[200];
	struct iovec v = {msg, sizeof(msg)};
	while (e->s && e->sent - e->done < 8 && ddp_send_untagged(e->s, 0, 0, 0, &v, 1, NULL) == 0)
		e->sent++;
}

static void test_dead_peer_same_window(void **st)
{
	(void)st;
	if (netns_pair_up("ddpdead", "dd", NET_A, NET_B) != 0) {
		print_message("cannot create network namespaces (root and iproute2 needed)\n");
		skip();
	}
	struct event_base *base = event_base_new();
	ddp_ctx *ctx;
	ddp_ctx_config cc;
	memset(&cc, 0, sizeof(cc));
	cc.log = log_line;
	assert_int_equal(ddp_ctx_new(&cc, &ctx), 0);
	/* [llp][busy]: client ends in A, server ends in B */
	static struct end cli[2][2], srv[2][2];
	ddp_listener *ls[2];
	int home = -1;
	memset(cli, 0, sizeof(cli));
	memset(srv, 0, sizeof(srv));
	assert_int_equal(netns_enter(netns_b, &home), 0);
	for (int l = 0; l < 2; l++)
		assert_int_equal(conn_listen_on((enum conn_llp)l, base, ctx, NET_B, NULL, &ulp,
		                                &srv[l][0], &ls[l]),
		                 0);
	assert_int_equal(netns_enter(netns_a, &home), 0);
	for (int l = 0; l < 2; l++)
		for (int b = 0; b < 2; b++) {
			cli[l][b].busy = b;
			assert_int_equal(conn_connect_to((enum conn_llp)l, base, ctx, NET_B,
			                                 ddp_listener_port(ls[l]), NULL, &ulp,
			                                 &cli[l][b]),
			                 0);
		}
	assert_int_equal(setns(home, CLONE_NEWNET), 0);
	close(home);
	double t0 = net_now_s();
	int opened = 0;
	while (opened < 4 && net_now_s() - t0 < 5) {
		net_run_for(base, 0.01);
		opened = cli[0][0].opens + cli[0][1].opens + cli[1][0].opens + cli[1][1].opens;
	}
	assert_int_equal(opened, 4);
	/* data flows on the busy ones for a while; the idle ones exchange one
	 * message at the end, so each last heard its peer just before the cut */
	t0 = net_now_s();
	while (net_now_s() - t0 < 1.0) {
		top_up(&cli[0][1]);
		top_up(&cli[1][1]);
		net_run_for(base, 0.005);
	}
	for (int l = 0; l < 2; l++) {
		cli[l][0].busy = 1;
		top_up(&cli[l][0]);
		cli[l][0].busy = 0;
	}
	net_run_for(base, 0.2);
	for (int l = 0; l < 2; l++)
		for (int b = 0; b < 2; b++) {
			assert_int_equal(cli[l][b].downs, 0);
			assert_true(cli[l][b].done > 0);
		}
	/* the peer vanishes */
	const double dead = DDP_DEAD_PEER_TIMEOUT_MS / 1000.0;
	assert_int_equal(netns_sh("ip -n %s link set %s down", netns_b, netns_veth_b), 0);
	t0 = net_now_s();
	int downs = 0;
	while (downs < 4 && net_now_s() - t0 < dead + TOL_S + 0.5) {
		top_up(&cli[0][1]);
		top_up(&cli[1][1]);
		net_run_for(base, 0.02);
		downs = cli[0][0].downs + cli[0][1].downs + cli[1][0].downs + cli[1][1].downs;
	}
	double t[2][2];
	for (int l = 0; l < 2; l++)
		for (int b = 0; b < 2; b++) {
			t[l][b] = cli[l][b].downs ? cli[l][b].t_down - t0 : -1;
			print_message("%s %s connection: down %s after %.1f s (%s)\n", llp_name[l],
			              b ? "busy" : "idle", cli[l][b].downs ? "" : "NOT",
			              cli[l][b].downs ? t[l][b] : net_now_s() - t0,
			              cli[l][b].downs ? ddp_strerror(cli[l][b].status) : "-");
		}
	for (int l = 0; l < 2; l++)
		for (int b = 0; b < 2; b++) {
			assert_int_equal(cli[l][b].downs, 1);
			assert_int_equal(cli[l][b].status, DDP_ERR_TIMEOUT);
			assert_true(t[l][b] >= dead - TOL_S && t[l][b] <= dead + TOL_S);
		}
	print_message("log:\n%s", logged);
	for (int l = 0; l < 2; l++) {
		char want[64];
		snprintf(want, sizeof(want), "%s peer %s:", llp_name[l], NET_B);
		const char *at = strstr(logged, want);
		assert_non_null(at);
		char line[256];
		snprintf(line, sizeof(line), "%.*s", (int)strcspn(at, "\n"), at);
		assert_non_null(strstr(line, "unresponsive"));
	}
	for (int l = 0; l < 2; l++)
		ddp_listener_free(ls[l]);
	event_base_loop(base, EVLOOP_NONBLOCK);
	ddp_ctx_free(ctx);
	event_base_free(base);
	netns_pair_del();
	signal(SIGALRM, SIG_DFL);
	signal(SIGABRT, SIG_DFL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_dead_peer_same_window),
	};
	alarm(60);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
