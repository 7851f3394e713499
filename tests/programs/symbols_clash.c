/*
 * symbols_clash — an application that happens to use names libddp uses
 * inside (stream_error, tx_pump, uq_push, mpa_proto_new, sctp_udp_open, ...)
 * and links the installed static libraries (pkg-config --static). It must
 * link (no "multiple definition"), its own functions must be the ones its
 * code calls, and the libraries must still reach their own internals: one
 * untagged message over MPA/TCP (a loopback TCP pair on an ephemeral port,
 * ddp_mpa_wrap_fd), one over DDP/SCTP (two endpoints on ephemeral UDP ports)
 * and an RDMAP Terminate decoded. Built and run by test_symbols.sh;
 * -DSYMBOLS_CORE_ONLY (a build without libevent/usrsctp) keeps the core and
 * RDMAP parts. Exit 0 = pass; gives up after 10 s.
 */
#define _POSIX_C_SOURCE 200809L

#include <ddp/ddp.h>
#include <ddp/rdmap.h>
#ifndef SYMBOLS_CORE_ONLY
#include <ddp/mpa.h>
#include <ddp/sctp.h>
#include <event2/event.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>
#endif

#include <stdio.h>
#include <string.h>

/* ------------------------------------------- the application's own names */
/* Each is a global name some libddp object defines for its own use (core,
 * MPA, SCTP glue, RDMAP), with a different type here. */
int stream_error(int x);
int tx_pump(int x);
int uq_push(int x);
int wire_encode(int x);
int order_classify(int x);
int mpa_proto_new(int x);
int mpa_dfr_run(int x);
int sctp_udp_open(int x);
int sctp_ll_ep_new(int x);
int sctp_stream_init(int x);
int rdmapi_qp_error(int x);
const char *mpa_proto_llp_ops = "the application's mpa_proto_llp_ops";

int stream_error(int x)
{
	return x + 1;
}
int tx_pump(int x)
{
	return x + 2;
}
int uq_push(int x)
{
	return x + 3;
}
int wire_encode(int x)
{
	return x + 4;
}
int order_classify(int x)
{
	return x + 5;
}
int mpa_proto_new(int x)
{
	return x + 6;
}
int mpa_dfr_run(int x)
{
	return x + 7;
}
int sctp_udp_open(int x)
{
	return x + 8;
}
int sctp_ll_ep_new(int x)
{
	return x + 9;
}
int sctp_stream_init(int x)
{
	return x + 10;
}
int rdmapi_qp_error(int x)
{
	return x + 11;
}

static int fail(const char *what)
{
	fprintf(stderr, "symbols_clash: FAIL %s\n", what);
	return 1;
}

/* ------------------------------------------------------------- RDMAP */
static int rdmap_part(ddp_ctx *ctx)
{
	static const uint8_t w[4] = {0x01, 0x02, 0x00, 0x00};
	const uint8_t *p = w;
	ddp_rdmap_dev *dev;
	ddp_rdmap_term t;

	if (ddp_rdmap_dev_new(ctx, NULL, NULL, &dev) != 0)
		return fail("ddp_rdmap_dev_new");
	if (ddp_rdmap_term_decode(&t, &p, w + 4) != 0 || t.layer != 0 || t.etype != 1 ||
	    t.code != 2)
		return fail("ddp_rdmap_term_decode");
	if (ddp_rdmap_dev_free(dev) != 0)
		return fail("ddp_rdmap_dev_free");
	printf("rdmap: Terminate decoded (%s)\n", ddp_rdmap_term_str(t.layer, t.etype, t.code));
	return 0;
}

#ifndef SYMBOLS_CORE_ONLY
/* ---------------------------------------------- one message per LLP */
#define MSG "symbols: one untagged message"

static struct event_base *base;
static int got;    /* messages delivered intact */
static int broken; /* an LLP or DDP failure */
static char rbuf[2][256];

static void deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	if (d->status != 0)
		return; /* a posted buffer flushed at teardown */
	if (d->tagged || d->qn != 0 || d->len != sizeof(MSG) || memcmp(d->buf, MSG, sizeof(MSG)))
		broken = 1;
	else
		got++;
	event_base_loopbreak(base);
}

static void on_error(ddp_session *s, const ddp_error_info *e, void *user)
{
	broken = 1;
	event_base_loopbreak(base);
}

static const ddp_callbacks cbs = {.deliver = deliver, .error = on_error};

static int send_msg(ddp_session *s)
{
	static char msg[] = MSG;
	struct iovec v = {msg, sizeof(msg)};
	return ddp_send_untagged(s, 0, 0, 0, &v, 1, NULL);
}

/* Run the loop until one more message arrived (or something failed). */
static int wait_msg(int want)
{
	while (got < want && !broken)
		if (event_base_loop(base, EVLOOP_ONCE) < 0)
			return -1;
	return got == want ? 0 : -1;
}

static void mpa_ev(ddp_mpa_conn *c, enum ddp_mpa_event ev, int err, uint8_t code, void *user)
{
	if (ev != DDP_MPA_CONNECTED) {
		broken = 1;
		event_base_loopbreak(base);
	}
}

/* A connected loopback TCP pair (ephemeral port): fds[0] connects. */
static int tcp_pair(int fds[2])
{
	struct sockaddr_in sa = {.sin_family = AF_INET};
	socklen_t len = sizeof(sa);
	int l = socket(AF_INET, SOCK_STREAM, 0);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (l < 0 || bind(l, (struct sockaddr *)&sa, sizeof(sa)) || listen(l, 1) ||
	    getsockname(l, (struct sockaddr *)&sa, &len))
		return -1;
	fds[0] = socket(AF_INET, SOCK_STREAM, 0);
	if (fds[0] < 0 || connect(fds[0], (struct sockaddr *)&sa, sizeof(sa)))
		return -1;
	fds[1] = accept(l, NULL, NULL);
	close(l);
	return fds[1] < 0 ? -1 : 0;
}

static int mpa_part(ddp_ctx *ctx)
{
	ddp_mpa_config cfg;
	ddp_mpa_conn *ini, *resp;
	int fds[2];

	memset(&cfg, 0, sizeof(cfg));
	if (tcp_pair(fds))
		return fail("loopback TCP pair");
	if (ddp_mpa_wrap_fd(base, ctx, fds[1], 0, &cfg, &cbs, NULL, mpa_ev, NULL, &resp) ||
	    ddp_mpa_wrap_fd(base, ctx, fds[0], 1, &cfg, &cbs, NULL, mpa_ev, NULL, &ini))
		return fail("ddp_mpa_wrap_fd");
	if (ddp_post_recv(ddp_mpa_session(resp), 0, 0, rbuf[0], sizeof(rbuf[0]), NULL) ||
	    send_msg(ddp_mpa_session(ini)))
		return fail("MPA post/send");
	if (wait_msg(1))
		return fail("MPA message");
	ddp_mpa_conn_free(ini);
	ddp_mpa_conn_free(resp);
	printf("mpa: message delivered\n");
	return 0;
}

static void sctp_assoc(ddp_sctp_assoc *a, ddp_session *s, int status, void *user)
{
	if (status != 0) {
		broken = 1;
		event_base_loopbreak(base);
	} else if (user == NULL && ddp_sctp_initiate(a, 0, "x", 1) != 0) {
		broken = 1; /* the active side (user NULL) asks for stream 0 */
	}
}

static void sctp_ctl(ddp_sctp_assoc *a, uint32_t stream, enum ddp_sctp_event ev, int status,
                     const void *pd, size_t pd_len, void *user)
{
	if (ev == DDP_SCTP_INITIATE) {
		if (ddp_sctp_accept(a, stream, NULL, 0) ||
		    ddp_post_recv(ddp_sctp_session(a), 0, 0, rbuf[1], sizeof(rbuf[1]), NULL))
			broken = 1;
	} else if (ev != DDP_SCTP_ACCEPTED || send_msg(ddp_sctp_session(a)) != 0) {
		broken = 1;
		event_base_loopbreak(base);
	}
}

static int sctp_part(ddp_ctx *ctx)
{
	static int passive = 1;
	ddp_sctp_config cfg;
	ddp_sctp_ep *srv, *cli;
	ddp_sctp_assoc *a;

	memset(&cfg, 0, sizeof(cfg));
	cfg.port = -1;
	cfg.nstreams = 1;
	cfg.ctx = ctx;
	cfg.ddp = cbs;
	cfg.sctp.assoc = sctp_assoc;
	cfg.sctp.session_ctl = sctp_ctl;
	cfg.user = &passive;
	if (ddp_sctp_ep_new(base, &cfg, &srv) || ddp_sctp_listen(srv))
		return fail("SCTP server endpoint");
	cfg.user = NULL;
	if (ddp_sctp_ep_new(base, &cfg, &cli) ||
	    ddp_sctp_connect(cli, "127.0.0.1", ddp_sctp_ep_port(srv), &a))
		return fail("SCTP client endpoint");
	if (wait_msg(2))
		return fail("SCTP message");
	ddp_sctp_ep_free(cli);
	ddp_sctp_ep_free(srv);
	printf("sctp: message delivered\n");
	return 0;
}

static void on_timeout(evutil_socket_t fd, short what, void *arg)
{
	broken = 1;
	fprintf(stderr, "symbols_clash: timed out\n");
	event_base_loopbreak(base);
}
#endif /* SYMBOLS_CORE_ONLY */

int main(void)
{
	ddp_ctx *ctx;
	int rc = 0;

	/* our names are ours: 1 + 2 + ... + 11 */
	int sum = stream_error(0) + tx_pump(0) + uq_push(0) + wire_encode(0) + order_classify(0);
	sum += mpa_proto_new(0) + mpa_dfr_run(0) + sctp_udp_open(0) + sctp_ll_ep_new(0);
	sum += sctp_stream_init(0) + rdmapi_qp_error(0);
	if (sum != 66 || strcmp(mpa_proto_llp_ops, "the application's mpa_proto_llp_ops") != 0)
		return fail("the application's own functions");
	if (ddp_ctx_new(NULL, &ctx) != 0)
		return fail("ddp_ctx_new");
	rc |= rdmap_part(ctx);
#ifndef SYMBOLS_CORE_ONLY
	struct timeval limit = {10, 0};
	struct event *t;

	signal(SIGPIPE, SIG_IGN);
	base = event_base_new();
	t = base ? evtimer_new(base, on_timeout, NULL) : NULL;
	if (!t || evtimer_add(t, &limit))
		return fail("event_base");
	rc |= mpa_part(ctx);
	if (rc == 0)
		rc |= sctp_part(ctx);
	event_free(t);
	event_base_free(base);
#endif
	if (ddp_ctx_free(ctx) != 0)
		rc |= fail("ddp_ctx_free");
	return rc;
}
