/* Scale: 10,000 concurrent MPA/TCP connections on one event loop.
 * The responder side (this process) holds all 10,000 connections
 * on one event_base at the same time: each one completes the RFC 5044 §7.1
 * start-up and moves one untagged message each way. The initiator side runs
 * in a child process with its own event loop, because both ends in one
 * process need 20,000+ fds and the hard RLIMIT_NOFILE here may be 20,000
 * (raising it needs CAP_SYS_RESOURCE); each process raises its soft limit to
 * the hard one. 127.0.0.1 only; bounded by alarm().
 *
 * Also measured: RSS per idle MPA connection (responder side: connection,
 * session, libevent events and the 64-octet posted buffer; kernel socket
 * memory is not in RSS). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include <ddp/ddp.h>
#include <ddp/mpa.h>
#include "proc_stats.h"

/* Under ASan (quarantine) or valgrind, RSS and CPU time say nothing about
 * the library: those numbers are printed but not asserted (proc_stats.h). */
#define NCONN_MAX 10000
static uint32_t nconn = NCONN_MAX;
#define INFLIGHT 128 /* client start-ups in progress at once */
#define MSGLEN   24

struct slot {
	ddp_mpa_conn *c;
	uint32_t idx;
	uint8_t rx[64];
	char tx[MSGLEN];
	int up, got, sent, gone;
};

struct side {
	struct event_base *base;
	ddp_ctx *ctx;
	struct slot *sl;
	uint32_t nslots, next; /* client: next connection to open */
	int port;
	long up, delivered, send_done, failed, bad, inflight, gone;
	int done;
};

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double cpu_s(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static int raise_nofile(rlim_t want)
{
	struct rlimit r;
	if (getrlimit(RLIMIT_NOFILE, &r) < 0)
		return -1;
	if (r.rlim_cur >= want)
		return 0;
	r.rlim_cur = r.rlim_max < want ? r.rlim_max : want;
	if (r.rlim_max < want) {
		struct rlimit h = {want, want};
		if (setrlimit(RLIMIT_NOFILE, &h) == 0)
			return 0;
	}
	if (setrlimit(RLIMIT_NOFILE, &r) < 0)
		return -1;
	return r.rlim_cur >= want ? 0 : -1;
}

static void fmt_msg(char *b, const char *what, uint32_t idx)
{
	memset(b, 0, MSGLEN);
	snprintf(b, MSGLEN, "%s %u", what, idx);
}

/* ------------------------------------------------------------ server */

static struct side *g_srv;

static void s_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	struct slot *sl = user;
	char want[MSGLEN];
	if (d->status != 0)
		return;
	fmt_msg(want, "ping", sl->idx);
	sl->got++;
	if (d->len != MSGLEN || memcmp(d->buf, want, MSGLEN) != 0)
		g_srv->bad++;
	fmt_msg(sl->tx, "pong", sl->idx);
	struct iovec v = {sl->tx, MSGLEN};
	if (ddp_send_untagged(s, 0, 0, sl->idx, &v, 1, NULL) == 0)
		sl->sent = 1;
}

static void s_send_done(ddp_session *s, uint32_t st, void *ctx, int status, void *user)
{
	if (status == 0)
		g_srv->send_done++;
}

/* the initiator went away (its process exited): close our half too */
static void s_stream_event(ddp_session *s, uint32_t st, enum ddp_stream_event ev, int status,
                           void *user)
{
	if (ev == DDP_EV_HALF_CLOSED)
		ddp_session_close(s, 0);
}

static const ddp_callbacks s_cbs = {
	.deliver = s_deliver, .send_done = s_send_done, .stream_event = s_stream_event,
};

static void s_event(ddp_mpa_conn *c, enum ddp_mpa_event ev, int err, uint8_t code, void *user)
{
	struct slot *sl = user;
	struct side *sd = g_srv;
	if (ev == DDP_MPA_CONNECTED) {
		sl->up = 1;
		sd->up++;
		return;
	}
	if (!sl->gone) {
		sl->gone = 1;
		sd->gone++;
	}
	ddp_mpa_conn_free(c);
	sl->c = NULL;
}

static void s_accept(ddp_mpa_conn *c, const ddp_mpa_info *req, void *user)
{
	struct side *sd = user;
	if (sd->next >= sd->nslots) {
		ddp_mpa_reject(c, NULL, 0);
		return;
	}
	struct slot *sl = &sd->sl[sd->next];
	sl->idx = sd->next++;
	sl->c = c;
	ddp_mpa_set_user(c, sl);
	if (req->private_data_len != 4 || memcmp(req->private_data, "scal", 4) != 0)
		sd->bad++;
	if (ddp_post_recv(ddp_mpa_session(c), 0, 0, sl->rx, sizeof(sl->rx), NULL) != 0)
		sd->bad++;
	if (ddp_mpa_accept(c, NULL, 0) != 0)
		sd->bad++;
}

/* ------------------------------------------------------------ client */

static struct side *g_cli;

static void c_open_more(struct side *sd);

static void c_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	struct slot *sl = user;
	char want[MSGLEN];
	if (d->status != 0)
		return;
	fmt_msg(want, "pong", sl->idx);
	if (d->len != MSGLEN || memcmp(d->buf, want, MSGLEN) != 0)
		g_cli->bad++;
	sl->got++;
	g_cli->delivered++;
	if (g_cli->delivered == (long)g_cli->nslots)
		event_base_loopbreak(g_cli->base);
}

static void c_event(ddp_mpa_conn *c, enum ddp_mpa_event ev, int err, uint8_t code, void *user)
{
	struct slot *sl = user;
	struct side *sd = g_cli;
	if (ev == DDP_MPA_CONNECTED) {
		sl->up = 1;
		sd->up++;
	} else {
		if (!sl->up)
			sd->failed++;
		sl->gone = 1;
		sd->gone++;
	}
	sd->inflight--;
	c_open_more(sd);
}

static const ddp_callbacks c_cbs = { .deliver = c_deliver };

static void c_open_more(struct side *sd)
{
	struct sockaddr_in sa;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)sd->port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ddp_mpa_config cfg;
	memset(&cfg, 0, sizeof(cfg));
	cfg.private_data = "scal";
	cfg.private_data_len = 4;
	cfg.startup_timeout_ms = 15000;
	while (sd->inflight < INFLIGHT && sd->next < sd->nslots) {
		struct slot *sl = &sd->sl[sd->next];
		sl->idx = sd->next++;
		if (ddp_mpa_connect(sd->base, sd->ctx, (struct sockaddr *)&sa, sizeof(sa), &cfg,
		                    &c_cbs, c_event, sl, &sl->c) != 0) {
			sd->failed++;
			continue;
		}
		sd->inflight++;
		ddp_session *s = ddp_mpa_session(sl->c);
		if (ddp_post_recv(s, 0, 0, sl->rx, sizeof(sl->rx), NULL) != 0)
			sd->bad++;
		fmt_msg(sl->tx, "ping", sl->idx);
		struct iovec v = {sl->tx, MSGLEN};
		/* held by the core until full operation */
		if (ddp_send_untagged(s, 0, 0, sl->idx, &v, 1, NULL) != 0)
			sd->bad++;
	}
}

struct cli_report {
	long up, delivered, failed, bad;
	long rss_before, rss_after;
	double secs;
};

/* The initiator process: opens nconn connections, INFLIGHT at a time,
 * waits for every reply, reports and exits (closing everything). */
static int run_client(int port_fd, int rep_fd, int go_fd)
{
	struct side sd;
	struct cli_report rep;
	memset(&sd, 0, sizeof(sd));
	memset(&rep, 0, sizeof(rep));
	if (raise_nofile(nconn + 200) < 0)
		return 2;
	if (read(port_fd, &sd.port, sizeof(sd.port)) != sizeof(sd.port))
		return 3;
	g_cli = &sd;
	sd.base = event_base_new();
	if (!sd.base || ddp_ctx_new(NULL, &sd.ctx) != 0)
		return 4;
	sd.nslots = nconn;
	sd.sl = calloc(nconn, sizeof(*sd.sl));
	rep.rss_before = proc_rss_kib();
	double t0 = now_s();
	c_open_more(&sd);
	while (sd.delivered < nconn && now_s() - t0 < 50 && sd.failed == 0 && sd.bad == 0) {
		struct timeval tv = {1, 0};
		event_base_loopexit(sd.base, &tv);
		event_base_dispatch(sd.base);
	}
	rep.secs = now_s() - t0;
	rep.rss_after = proc_rss_kib();
	rep.up = sd.up;
	rep.delivered = sd.delivered;
	rep.failed = sd.failed;
	rep.bad = sd.bad;
	if (write(rep_fd, &rep, sizeof(rep)) != sizeof(rep))
		return 5;
	/* hold every connection open until the server measured them idle;
	 * then exit: that closes every socket */
	char go;
	if (read(go_fd, &go, 1) != 1)
		return 6;
	return 0;
}

static void on_child_report(evutil_socket_t fd, short what, void *arg)
{
	struct side *sd = arg;
	sd->done = 1;
	event_base_loopbreak(sd->base);
}

/* 10,000 concurrent MPA connections on one event_base, each through the
 * RFC 5044 §7.1 start-up (Request with private data, Reply) and one
 * untagged message (RFC 5041 §4.3) each way. */
static void test_scale_10000_mpa_connections_on_one_loop(void **state)
{
	int port_p[2], rep_p[2], go_p[2];
	alarm(60);
	assert_int_equal(raise_nofile(nconn + 200), 0);
	assert_int_equal(pipe(port_p), 0);
	assert_int_equal(pipe(rep_p), 0);
	assert_int_equal(pipe(go_p), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(port_p[1]);
		close(rep_p[0]);
		close(go_p[1]);
		_exit(run_client(port_p[0], rep_p[1], go_p[0]));
	}
	close(port_p[0]);
	close(rep_p[1]);
	close(go_p[0]);

	struct side sd;
	memset(&sd, 0, sizeof(sd));
	g_srv = &sd;
	sd.base = event_base_new();
	assert_non_null(sd.base);
	assert_int_equal(ddp_ctx_new(NULL, &sd.ctx), 0);
	sd.nslots = nconn;
	sd.sl = calloc(nconn, sizeof(*sd.sl));
	assert_non_null(sd.sl);
	memset(sd.sl, 0, nconn * sizeof(*sd.sl)); /* count the test's own
	                                           * slots before rss0 */
	long rss0 = proc_rss_kib();
	ddp_mpa_listener *l;
	struct sockaddr_in sa;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ddp_mpa_config cfg;
	memset(&cfg, 0, sizeof(cfg));
	cfg.startup_timeout_ms = 15000;
	cfg.max_conns = cfg.max_conns_per_addr = UINT_MAX; /* 10,000 from 127.0.0.1 */
	assert_int_equal(ddp_mpa_listen(sd.base, sd.ctx, (struct sockaddr *)&sa, sizeof(sa), &cfg,
	                                &s_cbs, s_accept, s_event, &sd, &l),
	                 0);
	int port = ddp_mpa_listener_port(l);
	assert_int_equal(write(port_p[1], &port, sizeof(port)), sizeof(port));
	struct event *rep_ev = event_new(sd.base, rep_p[0], EV_READ, on_child_report, &sd);
	event_add(rep_ev, NULL);

	double t0 = now_s();
	long peak_open = 0, rss_peak = 0;
	while (!sd.done && now_s() - t0 < 55) {
		struct timeval tv = {0, 200000};
		event_base_loopexit(sd.base, &tv);
		event_base_dispatch(sd.base);
		long open_ = sd.up - sd.gone;
		if (open_ > peak_open)
			peak_open = open_;
		if (sd.send_done == nconn && !rss_peak)
			rss_peak = proc_rss_kib(); /* all open, all moved data */
	}
	struct cli_report rep;
	memset(&rep, 0, sizeof(rep));
	assert_true(sd.done);
	assert_int_equal(read(rep_p[0], &rep, sizeof(rep)), sizeof(rep));
	if (!rss_peak)
		rss_peak = proc_rss_kib();
	/* all nconn open and idle: what do they cost the loop? */
	long open_idle = sd.up - sd.gone;
	double c0 = cpu_s(), w0 = now_s();
	while (now_s() - w0 < 3) {
		struct timeval tv = {0, 100000};
		event_base_loopexit(sd.base, &tv);
		event_base_dispatch(sd.base);
	}
	double idle_cpu = (cpu_s() - c0) / (now_s() - w0);
	assert_int_equal(write(go_p[1], "g", 1), 1);
	long got = 0;
	for (uint32_t i = 0; i < nconn; i++)
		if (sd.sl[i].got == 1)
			got++;
	print_message("scale MPA: %u connections in %.1f s; server open at "
	              "once %ld, delivered %ld, replies done %ld; client up %ld, "
	              "delivered %ld, failed %ld, bad %ld\n",
	              nconn, rep.secs, peak_open, got, sd.send_done, rep.up, rep.delivered,
	              rep.failed, rep.bad);
	print_message("scale MPA: responder RSS %ld -> %ld KiB: %.2f KiB per "
	              "connection; initiator RSS %ld -> %ld KiB: %.2f KiB per "
	              "connection\n",
	              rss0, rss_peak, (double)(rss_peak - rss0) / nconn, rep.rss_before,
	              rep.rss_after, (double)(rep.rss_after - rep.rss_before) / nconn);
	print_message("scale MPA: %ld idle connections cost the responder's "
	              "loop %.1f %% of a CPU\n",
	              open_idle, 100.0 * idle_cpu);
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(sd.bad, 0);
	assert_int_equal(peak_open, nconn);
	assert_int_equal(got, nconn);
	assert_int_equal(sd.send_done, nconn);
	assert_int_equal(rep.up, nconn);
	assert_int_equal(rep.delivered, nconn);
	assert_int_equal(rep.failed, 0);
	assert_int_equal(rep.bad, 0);
	assert_int_equal(open_idle, nconn);
	/* idle connections must not keep a core busy */
	if (proc_rss_meaningful())
		assert_true(idle_cpu < 0.25);

	/* the child exited: every connection ends (reset) and is freed */
	t0 = now_s();
	while (sd.gone < nconn && now_s() - t0 < 10) {
		struct timeval tv = {0, 100000};
		event_base_loopexit(sd.base, &tv);
		event_base_dispatch(sd.base);
	}
	assert_int_equal(sd.gone, nconn);
	event_free(rep_ev);
	ddp_mpa_listener_free(l);
	assert_int_equal(ddp_ctx_free(sd.ctx), 0);
	event_base_free(sd.base);
	free(sd.sl);
	close(port_p[1]);
	close(rep_p[0]);
	close(go_p[1]);
	alarm(0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_scale_10000_mpa_connections_on_one_loop),
	};
	signal(SIGPIPE, SIG_IGN);
	if (proc_under_valgrind())
		nconn = 500;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
