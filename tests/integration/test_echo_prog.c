/*
 * The ddp-echo program end to end: starts build/bin/ddp-echo with MPA, SCTP
 * and HTTP listeners on 127.0.0.1, then, as a client with the library,
 * sends untagged messages over MPA (revision 1 and 2) and over SCTP on
 * several streams at once and checks every echo (same stream, QN, RsvdULP
 * and payload; the server's own MSN sequence), reads the status page, and
 * stops the server with SIGTERM (it must exit 0). The server posts 16
 * buffers per (stream, QN), more than the client ever has in flight.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <ddp/ddp.h>
#include <ddp/mpa.h>
#include <ddp/sctp.h>
#include <event2/event.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define NMSG 40
#define NSTREAMS 4
#define MPORT 29411
#define SPORT 29412
#define HPORT 29413

static pid_t server;
static struct event_base *base;
static ddp_ctx *ctx;

struct client {
	int up, done_streams, failed;
	unsigned long got[NSTREAMS], bad;
	uint32_t next_msn[NSTREAMS][3];
	uint8_t rbuf[NSTREAMS][8][4096];
	uint8_t sbuf[NSTREAMS][NMSG][3000];
	ddp_session *s;
	ddp_sctp_assoc *a;
};

static size_t len_of(unsigned st, unsigned k)
{
	return (size_t)(1 + (st * 977 + k * 131) % 2999);
}

static void fill(uint8_t *p, size_t n, unsigned st, unsigned k)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(st * 17 + k * 3 + i);
}

static void c_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	struct client *c = user;
	if (d->status || d->tagged)
		return;
	unsigned st = d->stream, k = (unsigned)(d->rsvdulp & 0xffff);
	/* same QN and RsvdULP as sent (QN = k % 3), MSNs 1, 2, ... per QN */
	if (k >= NMSG || d->qn != k % 3 || d->rsvdulp != (0x5500000000ull | k) ||
	    d->len != len_of(st, k) || memcmp(d->buf, c->sbuf[st][k], d->len) != 0 ||
	    d->msn != ++c->next_msn[st][d->qn])
		c->bad++;
	c->got[st]++;
	ddp_post_recv(s, d->stream, d->qn, d->buf, d->buf_len, NULL);
	int all = 1;
	for (unsigned i = 0; i < NSTREAMS; i++)
		if (c->got[i] < NMSG && (c->a || i == 0))
			all = 0;
	if (all)
		event_base_loopbreak(base);
}

static void start_stream(struct client *c, unsigned st)
{
	for (unsigned q = 0; q < 3; q++)
		for (unsigned i = 0; i < 2; i++)
			assert_int_equal(ddp_post_recv(c->s, st, q, c->rbuf[st][q * 2 + i],
						       4096, NULL), 0);
	for (unsigned k = 0; k < NMSG; k++) {
		size_t n = len_of(st, k);
		fill(c->sbuf[st][k], n, st, k);
		struct iovec v = { c->sbuf[st][k], n };
		assert_int_equal(ddp_send_untagged(c->s, st, k % 3, 0x5500000000ull | k, &v, 1,
						   NULL), 0);
	}
}

static void on_timeout(evutil_socket_t fd, short w, void *arg)
{
	event_base_loopbreak(base);
}

static void run_loop(int seconds)
{
	struct event *t = evtimer_new(base, on_timeout, NULL);
	struct timeval tv = { seconds, 0 };
	evtimer_add(t, &tv);
	event_base_dispatch(base);
	event_free(t);
}

/* --------------------------------------------------------------- MPA */

static void m_event(ddp_mpa_conn *mc, enum ddp_mpa_event ev, int err, uint8_t code, void *user)
{
	struct client *c = user;
	if (ev == DDP_MPA_CONNECTED)
		c->up = 1;
	else
		c->failed = 1;
}

static void echo_over_mpa(uint8_t rev, int markers, int no_crc)
{
	struct client *c = calloc(1, sizeof(*c));
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(MPORT) };
	inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
	ddp_mpa_config cfg = { .revision = rev, .markers = markers, .no_crc = no_crc,
			       .private_data = "hello", .private_data_len = 5 };
	ddp_callbacks cb = { .deliver = c_deliver };
	ddp_mpa_conn *mc;
	assert_int_equal(ddp_mpa_connect(base, ctx, (struct sockaddr *)&sa, sizeof(sa), &cfg, &cb,
					 m_event, c, &mc), 0);
	c->s = ddp_mpa_session(mc);
	start_stream(c, 0);
	run_loop(10);
	assert_false(c->failed);
	assert_true(c->up);
	assert_int_equal(c->got[0], NMSG);
	assert_int_equal(c->bad, 0);
	ddp_mpa_conn_free(mc);
	free(c);
}

static void test_echo_mpa_rev2_crc(void **state)
{
	echo_over_mpa(2, 0, 0);
}
static void test_echo_mpa_rev1_markers_nocrc(void **state)
{
	echo_over_mpa(1, 1, 1);
}

/* -------------------------------------------------------------- SCTP */

static void s_assoc(ddp_sctp_assoc *a, ddp_session *s, int status, void *user)
{
	struct client *c = user;
	if (status) {
		c->failed = 1;
		c->a = NULL;
		event_base_loopbreak(base);
		return;
	}
	c->s = s;
	c->up = 1;
	for (unsigned st = 0; st < NSTREAMS; st++)
		assert_int_equal(ddp_sctp_initiate(a, st, "hi", 2), 0);
}

static void s_ctl(ddp_sctp_assoc *a, uint32_t stream, enum ddp_sctp_event ev, int status,
		  const void *pd, size_t n, void *user)
{
	struct client *c = user;
	if (ev == DDP_SCTP_ACCEPTED && stream < NSTREAMS)
		start_stream(c, stream);
	else
		c->failed = 1;
}

static void test_echo_sctp_streams(void **state)
{
	struct client *c = calloc(1, sizeof(*c));
	ddp_sctp_config cfg = { .port = -1, .nstreams = 8, .ctx = ctx, .user = c };
	cfg.ddp.deliver = c_deliver;
	cfg.sctp.assoc = s_assoc;
	cfg.sctp.session_ctl = s_ctl;
	ddp_sctp_ep *ep;
	assert_int_equal(ddp_sctp_ep_new(base, &cfg, &ep), 0);
	assert_int_equal(ddp_sctp_connect(ep, "127.0.0.1", SPORT, &c->a), 0);
	run_loop(15);
	assert_false(c->failed);
	for (unsigned st = 0; st < NSTREAMS; st++)
		assert_int_equal(c->got[st], NMSG);
	assert_int_equal(c->bad, 0);
	ddp_sctp_ep_free(ep);
	free(c);
}

/* A stream whose DDP stream session ended (ddp_stream_close: session
 * Terminate) and is initiated again gets a new session with MSNs from 1:
 * ddp-echo must post its buffers again, else the first message of the new
 * session is answered with (2, 0x02) "invalid MSN, no buffer". */
struct reinit {
	ddp_sctp_assoc *a;
	ddp_session *s;
	int round, got, bad, failed, closed, up;
	uint32_t next_msn[3];
	uint8_t rbuf[6][4096];
	uint8_t sbuf[NMSG][3000];
};

static void r_start(struct reinit *r)
{
	memset(r->next_msn, 0, sizeof(r->next_msn));
	r->got = 0;
	for (unsigned i = 0; i < 6; i++)
		assert_int_equal(ddp_post_recv(r->s, 0, i / 2, r->rbuf[i], 4096, NULL), 0);
	for (unsigned k = 0; k < NMSG; k++) {
		size_t n = len_of(0, k);
		fill(r->sbuf[k], n, 0, k);
		struct iovec v = { r->sbuf[k], n };
		assert_int_equal(ddp_send_untagged(r->s, 0, k % 3, 0x5500000000ull | k, &v, 1, NULL),
				 0);
	}
}

static void r_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	struct reinit *r = user;
	if (d->status)
		return; /* our buffers flushed by the close */
	unsigned k = (unsigned)(d->rsvdulp & 0xffff);
	if (k >= NMSG || d->len != len_of(0, k) || memcmp(d->buf, r->sbuf[k], d->len) != 0 ||
	    d->msn != ++r->next_msn[d->qn])
		r->bad++;
	if (++r->got < NMSG) {
		ddp_post_recv(s, 0, d->qn, d->buf, d->buf_len, NULL);
		return;
	}
	if (r->round == 0)
		assert_int_equal(ddp_stream_close(s, 0), 0); /* session Terminate */
	else
		event_base_loopbreak(base);
}

static void r_error(ddp_session *s, const ddp_error_info *e, void *user)
{
	struct reinit *r = user;
	r->failed = 1;
	fprintf(stderr, "reinit: error %u/%u/0x%02x on stream %u\n", e->layer, e->etype, e->code,
		e->stream);
	event_base_loopbreak(base);
}

/* The same stream id again: a new DDP stream session. DDP_ERR_BUSY while
 * the old session's chunks may be in flight (RFC 5043 §6): retry. */
static void r_reinitiate(evutil_socket_t fd, short what, void *arg)
{
	struct reinit *r = arg;
	int rc = ddp_sctp_initiate(r->a, 0, "again", 5);
	if (rc == DDP_ERR_BUSY) {
		struct timeval tv = { 0, 20000 };
		event_base_once(base, -1, EV_TIMEOUT, r_reinitiate, r, &tv);
		return;
	}
	assert_int_equal(rc, 0);
}

static void r_stream_event(ddp_session *s, uint32_t stream, enum ddp_stream_event ev, int status,
			   void *user)
{
	struct reinit *r = user;
	if (ev != DDP_EV_CLOSED || r->round != 0)
		return;
	r->closed = 1;
	r->round = 1;
	r_reinitiate(-1, 0, r);
}

static void r_assoc(ddp_sctp_assoc *a, ddp_session *s, int status, void *user)
{
	struct reinit *r = user;
	if (status) {
		r->failed = 1;
		r->a = NULL;
		event_base_loopbreak(base);
		return;
	}
	r->s = s;
	r->up = 1;
	assert_int_equal(ddp_sctp_initiate(a, 0, "hi", 2), 0);
}

static void r_ctl(ddp_sctp_assoc *a, uint32_t stream, enum ddp_sctp_event ev, int status,
		  const void *pd, size_t n, void *user)
{
	struct reinit *r = user;
	if (ev == DDP_SCTP_ACCEPTED && stream == 0)
		r_start(r);
	else
		r->failed = 1;
}

static void test_echo_sctp_reinitiated_stream(void **state)
{
	struct reinit *r = calloc(1, sizeof(*r));
	ddp_sctp_config cfg = { .port = -1, .nstreams = 2, .ctx = ctx, .user = r };
	cfg.ddp.deliver = r_deliver;
	cfg.ddp.error = r_error;
	cfg.ddp.stream_event = r_stream_event;
	cfg.sctp.assoc = r_assoc;
	cfg.sctp.session_ctl = r_ctl;
	ddp_sctp_ep *ep;
	assert_int_equal(ddp_sctp_ep_new(base, &cfg, &ep), 0);
	assert_int_equal(ddp_sctp_connect(ep, "127.0.0.1", SPORT, &r->a), 0);
	run_loop(15);
	assert_false(r->failed);
	assert_true(r->closed);
	assert_int_equal(r->round, 1);
	assert_int_equal(r->got, NMSG); /* every echo of the second session */
	assert_int_equal(r->bad, 0);
	ddp_sctp_ep_free(ep);
	free(r);
}

/* -------------------------------------------------------------- HTTP */

static void test_echo_status_page(void **state)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(HPORT) };
	inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	const char *rq = "GET / HTTP/1.0\r\n\r\n";
	assert_int_equal(write(fd, rq, strlen(rq)), (ssize_t)strlen(rq));
	char buf[2048];
	size_t have = 0;
	ssize_t n;
	while (have < sizeof(buf) - 1 && (n = read(fd, buf + have, sizeof(buf) - 1 - have)) > 0)
		have += (size_t)n;
	buf[have] = 0;
	close(fd);
	assert_non_null(strstr(buf, "200 OK"));
	assert_non_null(strstr(buf, "mpa:  sessions 2"));
	char want[64];
	snprintf(want, sizeof(want), "messages %d", NSTREAMS * NMSG);
	assert_non_null(strstr(buf, want));
}

/* ------------------------------------------------------------ server */

static int port_answers(int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		return 0;
	int ok = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
	close(fd);
	return ok;
}

static int start_server(void **state)
{
	char self[PATH_MAX], prog[PATH_MAX + 16];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return -1;
	self[n] = 0;
	*strrchr(self, '/') = 0; /* BUILD/itests */
	snprintf(prog, sizeof(prog), "%s/../bin/ddp-echo", self);
	server = fork();
	if (server == 0) {
		char m[32], s[32], h[32];
		snprintf(m, sizeof(m), "127.0.0.1:%d", MPORT);
		snprintf(s, sizeof(s), "127.0.0.1:%d", SPORT);
		snprintf(h, sizeof(h), "127.0.0.1:%d", HPORT);
		alarm(60); /* never outlive the test */
		execl(prog, "ddp-echo", "--mpa-listen", m, "--sctp-listen", s, "--http-listen", h,
		      "--buf-size", "4096", "--depth", "16", (char *)NULL);
		_exit(127);
	}
	/* ddp-echo binds its HTTP port last: once that port answers, all
	 * three listen (at most 10 s; no guess at how long start-up takes). */
	for (int i = 0; i < 100 && !port_answers(HPORT); i++)
		usleep(100000);
	base = event_base_new();
	signal(SIGPIPE, SIG_IGN);
	return ddp_ctx_new(NULL, &ctx);
}

static int stop_server(void **state)
{
	int st = -1;
	kill(server, SIGTERM);
	for (int i = 0; i < 50 && waitpid(server, &st, WNOHANG) == 0; i++)
		usleep(100000);
	event_base_free(base);
	ddp_ctx_free(ctx);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "ddp-echo did not exit cleanly (status %d)\n", st);
		kill(server, SIGKILL);
		return -1;
	}
	return 0;
}

int main(void)
{
	alarm(90);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_echo_mpa_rev2_crc),
		cmocka_unit_test(test_echo_mpa_rev1_markers_nocrc),
		cmocka_unit_test(test_echo_sctp_streams),
		cmocka_unit_test(test_echo_status_page),
		cmocka_unit_test(test_echo_sctp_reinitiated_stream),
	};
	return cmocka_run_group_tests(tests, start_server, stop_server);
}
