/*
 * A close always finishes (ddp.h: ddp_session_close, ddp_session_close_
 * deadline). A server has one connection over MPA/TCP and one over SCTP
 * to a client process that then stops (SIGSTOP): its kernel still ACKs
 * TCP, but nobody answers the FIN or the SCTP SHUTDOWN. A graceful close
 * alone would wait for ever (FIN-WAIT-2) or for SCTP's retransmissions
 * (tens of seconds). Case 1: ddp_session_close_deadline(s, 300): both
 * connections are down within the deadline plus the adapters' timer
 * granularity. Case 2: a graceful close, then ddp_session_close(s, 1): the
 * abortive close takes effect although the graceful one already reached
 * the LLP. Both LLPs report the same status in down. Real TCP sockets and
 * real usrsctp associations on loopback; the client is a forked process.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event2/event.h>

#include <ddp/ddp.h>
#include <ddp/mpa.h>
#include <ddp/sctp.h>

#include "net_helpers.h"

enum { MPA, SCTP, NLLP };

struct end {
	ddp_session *s[NLLP];
	int ups, downs, status[NLLP];
	double down_at[NLLP];
	uint8_t buf[NLLP][4][256];
};

static struct end srv, cli;

static int llp_of(struct end *e, ddp_session *s)
{
	for (int i = 0; i < NLLP; i++)
		if (e->s[i] == s)
			return i;
	return -1;
}

static void deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	(void)s, (void)d, (void)user;
}

static void up(ddp_session *s, void *user)
{
	(void)s;
	((struct end *)user)->ups++;
}

static void stream_open(ddp_session *s, uint32_t stream, void *user)
{
	struct end *e = user;
	int k = ddp_session_nstreams(s) == 1 ? MPA : SCTP;
	e->s[k] = s;
	for (int i = 0; i < 4 && stream == 0; i++)
		ddp_post_recv(s, stream, 0, e->buf[k][i], sizeof(e->buf[k][i]), NULL);
}

static void down(ddp_session *s, int status, void *user)
{
	struct end *e = user;
	int k = llp_of(e, s);
	e->downs++;
	if (k >= 0) {
		e->status[k] = status;
		e->down_at[k] = net_now_s();
		e->s[k] = NULL;
	}
}

static const ddp_conn_callbacks ulp = {
	.ddp = { .deliver = deliver },
	.up = up,
	.stream_open = stream_open,
	.down = down,
};

/* The client: connects to both ports read from rd, reports "up" on wr,
 * then stops itself. Never returns. */
static void client(int rd, int wr)
{
	int port[NLLP];
	if (read(rd, port, sizeof(port)) != (ssize_t)sizeof(port))
		_exit(2);
	struct event_base *base = event_base_new();
	ddp_ctx *ctx;
	if (!base || ddp_ctx_new(NULL, &ctx))
		_exit(3);
	ddp_sctp_config sc = { .nstreams = 2 }; /* MPA has 1 */
	if (ddp_mpa_connect_to(base, ctx, "127.0.0.1", port[MPA], NULL, &ulp, &cli) ||
	    ddp_sctp_connect_to(base, ctx, "127.0.0.1", port[SCTP], &sc, &ulp, &cli))
		_exit(4);
	double end = net_now_s() + 10;
	while (!(cli.s[MPA] && cli.s[SCTP]) && net_now_s() < end)
		net_run_for(base, 0.01);
	char ok = cli.s[MPA] && cli.s[SCTP] ? 'u' : 'x';
	if (write(wr, &ok, 1) != 1)
		_exit(5);
	net_run_for(base, 0.1); /* the last acknowledgements go out */
	kill(getpid(), SIGSTOP);
	_exit(0);
}

struct world {
	pid_t child;
	struct event_base *base;
	ddp_ctx *ctx;
	ddp_listener *l[NLLP];
};

static void world_up(struct world *w)
{
	int to_child[2], from_child[2];
	memset(&srv, 0, sizeof(srv));
	memset(&cli, 0, sizeof(cli));
	assert_int_equal(pipe(to_child), 0);
	assert_int_equal(pipe(from_child), 0);
	w->child = fork();
	assert_true(w->child >= 0);
	if (w->child == 0) {
		close(to_child[1]);
		close(from_child[0]);
		client(to_child[0], from_child[1]);
	}
	close(to_child[0]);
	close(from_child[1]);
	w->base = event_base_new();
	assert_non_null(w->base);
	assert_int_equal(ddp_ctx_new(NULL, &w->ctx), 0);
	ddp_sctp_config sc = { .nstreams = 2 }; /* MPA has 1 */
	assert_int_equal(ddp_mpa_listen_on(w->base, w->ctx, "127.0.0.1", 0, NULL, &ulp, &srv,
					   &w->l[MPA]), 0);
	assert_int_equal(ddp_sctp_listen_on(w->base, w->ctx, "127.0.0.1", 0, &sc, &ulp, &srv,
					    &w->l[SCTP]), 0);
	int port[NLLP] = { ddp_listener_port(w->l[MPA]), ddp_listener_port(w->l[SCTP]) };
	assert_int_equal(write(to_child[1], port, sizeof(port)), (ssize_t)sizeof(port));
	char ok = 0;
	double end = net_now_s() + 10;
	while (net_now_s() < end && !(srv.s[MPA] && srv.s[SCTP] && ok)) {
		net_run_for(w->base, 0.01);
		struct timeval tv = { 0, 0 };
		fd_set r;
		FD_ZERO(&r);
		FD_SET(from_child[0], &r);
		if (!ok && select(from_child[0] + 1, &r, NULL, NULL, &tv) == 1)
			assert_int_equal(read(from_child[0], &ok, 1), 1);
	}
	assert_int_equal(ok, 'u');
	assert_non_null(srv.s[MPA]);
	assert_non_null(srv.s[SCTP]);
	/* the client is stopped: nobody answers a FIN or a SHUTDOWN */
	int st = 0;
	assert_int_equal(waitpid(w->child, &st, WUNTRACED), w->child);
	assert_true(WIFSTOPPED(st));
	close(to_child[1]);
	close(from_child[0]);
}

static void world_down(struct world *w)
{
	kill(w->child, SIGKILL);
	waitpid(w->child, NULL, 0);
	for (int i = 0; i < NLLP; i++)
		ddp_listener_free(w->l[i]);
	net_run_for(w->base, 0.05); /* the deferred frees */
	assert_int_equal(ddp_ctx_free(w->ctx), 0);
	event_base_free(w->base);
}

static void wait_downs(struct world *w, double secs)
{
	double end = net_now_s() + secs;
	while (srv.downs < NLLP && net_now_s() < end)
		net_run_for(w->base, 0.01);
}

static void test_close_deadline_ends_a_frozen_peer(void **state)
{
	(void)state;
	alarm(60);
	struct world w;
	world_up(&w);
	double t0 = net_now_s();
	for (int k = 0; k < NLLP; k++)
		assert_int_equal(ddp_session_close_deadline(srv.s[k], 300), 0);
	wait_downs(&w, 5);
	print_message("deadline 300 ms: MPA down after %.0f ms (status %d), SCTP after %.0f ms "
		      "(status %d)\n",
		      (srv.down_at[MPA] - t0) * 1e3, srv.status[MPA], (srv.down_at[SCTP] - t0) * 1e3,
		      srv.status[SCTP]);
	assert_int_equal(srv.downs, NLLP);
	for (int k = 0; k < NLLP; k++) {
		/* the deadline, plus SCTP's 100 ms timer, plus a loaded machine */
		assert_true(srv.down_at[k] - t0 >= 0.29);
		assert_true(srv.down_at[k] - t0 < 1.0);
	}
	assert_int_equal(srv.status[MPA], srv.status[SCTP]);
	assert_true(srv.status[MPA] < 0);
	world_down(&w);
	alarm(0);
}

static void test_abortive_close_after_a_graceful_one(void **state)
{
	(void)state;
	alarm(60);
	struct world w;
	world_up(&w);
	for (int k = 0; k < NLLP; k++)
		assert_int_equal(ddp_session_close(srv.s[k], 0), 0);
	net_run_for(w.base, 0.3);
	assert_int_equal(srv.downs, 0); /* nobody answers the graceful close */
	double t0 = net_now_s();
	for (int k = 0; k < NLLP; k++)
		assert_int_equal(ddp_session_close(srv.s[k], 1), 0);
	wait_downs(&w, 5);
	print_message("abort after graceful: MPA down after %.0f ms (status %d), SCTP after "
		      "%.0f ms (status %d)\n",
		      (srv.down_at[MPA] - t0) * 1e3, srv.status[MPA], (srv.down_at[SCTP] - t0) * 1e3,
		      srv.status[SCTP]);
	assert_int_equal(srv.downs, NLLP);
	for (int k = 0; k < NLLP; k++)
		assert_true(srv.down_at[k] - t0 < 0.5);
	assert_int_equal(srv.status[MPA], srv.status[SCTP]);
	world_down(&w);
	alarm(0);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	const struct CMUnitTest t[] = {
		cmocka_unit_test(test_close_deadline_ends_a_frozen_peer),
		cmocka_unit_test(test_abortive_close_after_a_graceful_one),
	};
	return cmocka_run_group_tests(t, NULL, NULL);
}
