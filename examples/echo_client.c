/*
 * echo_client — the smallest program against the installed libddp: sends one
 * untagged DDP message to ddp-echo (over MPA/TCP, or over SCTP with --sctp)
 * and checks that the echo carries the same payload, QN and RsvdULP.
 *
 *   cc -o echo_client echo_client.c $(pkg-config --cflags --libs libddp-mpa libddp-sctp)
 *   ddp-echo --mpa-listen 127.0.0.1:5000 --sctp-listen 127.0.0.1:9899 &
 *   ./echo_client 127.0.0.1 5000 hello            # MPA/TCP
 *   ./echo_client --sctp 127.0.0.1 9899 hello     # SCTP over UDP (RFC 6951)
 *
 * Exit status 0 when the echo matched, 1 when it did not (or the peer failed),
 * 2 on bad usage; gives up after 10 s.
 */
#define _POSIX_C_SOURCE 200809L /* inet_pton, struct timeval under -std=c11 */

#include <ddp/ddp.h>
#include <ddp/mpa.h>
#include <ddp/sctp.h>
#include <event2/event.h>

#include <arpa/inet.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define QN      0               /* untagged queue 0 (RDMAP uses it for Sends) */
#define RSVDULP 0x1234567890ull /* 40 bits the ULP may use; echoed back */

static struct {
	struct event_base *base;
	const char *msg;
	size_t len;
	char rbuf[4096];
	int result; /* -1 running, 0 echo ok, 1 failed */
} app = {.result = -1};

static void finish(int result, const char *why)
{
	if (app.result < 0) {
		app.result = result;
		fprintf(stderr, "echo_client: %s\n", why);
	}
	event_base_loopbreak(app.base);
}

/* Post the receive buffer for the echo first, then send the message. */
static void send_one(ddp_session *s)
{
	struct iovec v = {(void *)app.msg, app.len};
	int rc = ddp_post_recv(s, 0, QN, app.rbuf, sizeof(app.rbuf), NULL);
	if (rc == 0)
		rc = ddp_send_untagged(s, 0, QN, RSVDULP, &v, 1, NULL);
	if (rc != 0)
		finish(1, ddp_strerror(rc));
}

static void on_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	(void)s, (void)user;
	if (d->status != 0)
		return; /* our buffer flushed at teardown */
	int ok = !d->tagged && d->qn == QN && d->rsvdulp == RSVDULP && d->len == app.len &&
	         memcmp(d->buf, app.msg, app.len) == 0;
	if (ok)
		printf("echo: %.*s\n", (int)d->len, (const char *)d->buf);
	finish(ok ? 0 : 1, ok ? "echo matched" : "echo differs from what was sent");
}

static void on_error(ddp_session *s, const ddp_error_info *e, void *user)
{
	(void)s, (void)user;
	char why[64];
	snprintf(why, sizeof(why), "DDP error layer %u type %u code %u", e->layer, e->etype,
	         e->code);
	finish(1, why);
}

static const ddp_callbacks ddp_cb = {.deliver = on_deliver, .error = on_error};

/* ------------------------------------------------------------- MPA/TCP */

static void mpa_event(ddp_mpa_conn *c, enum ddp_mpa_event ev, int err, uint8_t code, void *user)
{
	(void)c, (void)code, (void)user;
	/* after our own close, CLOSED ends the second loop below */
	if (ev != DDP_MPA_CONNECTED)
		finish(1, err ? ddp_strerror(err) : "MPA connection ended");
}

static void stop_loop(evutil_socket_t fd, short what, void *arg)
{
	(void)fd, (void)what, (void)arg;
	event_base_loopbreak(app.base);
}

/* Give an orderly close at most one second to finish. */
static void wait_closed(void)
{
	struct timeval tv = {1, 0};
	event_base_once(app.base, -1, EV_TIMEOUT, stop_loop, NULL, &tv);
	event_base_dispatch(app.base);
}

static int run_mpa(ddp_ctx *ctx, const struct sockaddr_in *sa)
{
	ddp_mpa_config cfg = {.revision = 2};
	ddp_mpa_conn *c;
	int rc = ddp_mpa_connect(app.base, ctx, (const struct sockaddr *)sa, sizeof(*sa), &cfg,
	                         &ddp_cb, mpa_event, NULL, &c);
	if (rc != 0)
		return rc;
	send_one(ddp_mpa_session(c)); /* held by the library until MPA is up */
	event_base_dispatch(app.base);
	if (app.result == 0 && ddp_session_close(ddp_mpa_session(c), 0) == 0)
		wait_closed(); /* FIN both ways: DDP_MPA_CLOSED */
	ddp_mpa_conn_free(c);
	return 0;
}

/* ---------------------------------------------------------------- SCTP */

static void sctp_assoc(ddp_sctp_assoc *a, ddp_session *s, int status, void *user)
{
	(void)s, (void)user;
	int rc;
	if (status != 0) {
		/* the association is gone (after our own close: the end) */
		finish(1, ddp_strerror(status));
		return;
	}
	rc = ddp_sctp_initiate(a, 0, "echo", 4); /* DDP stream session on stream 0 */
	if (rc != 0)
		finish(1, ddp_strerror(rc));
}

static void sctp_ctl(ddp_sctp_assoc *a, uint32_t stream, enum ddp_sctp_event ev, int status,
                     const void *pd, size_t pd_len, void *user)
{
	(void)stream, (void)status, (void)pd, (void)pd_len, (void)user;
	if (ev == DDP_SCTP_ACCEPTED)
		send_one(ddp_sctp_session(a));
	else
		finish(1, "DDP stream session refused");
}

static int run_sctp(ddp_ctx *ctx, const char *addr, int port)
{
	ddp_sctp_config cfg = {.port = -1, .nstreams = 1, .ctx = ctx, .ddp = ddp_cb};
	cfg.sctp.assoc = sctp_assoc;
	cfg.sctp.session_ctl = sctp_ctl;
	ddp_sctp_ep *ep;
	ddp_sctp_assoc *a;
	int rc = ddp_sctp_ep_new(app.base, &cfg, &ep);
	if (rc != 0)
		return rc;
	rc = ddp_sctp_connect(ep, addr, port, &a);
	if (rc == 0) {
		event_base_dispatch(app.base);
		if (app.result == 0) {
			/* orderly end: session Terminate, then SCTP SHUTDOWN */
			ddp_stream_close(ddp_sctp_session(a), 0);
			ddp_sctp_close(a, 0);
			wait_closed();
		}
	}
	ddp_sctp_ep_free(ep);
	return rc;
}

/* ---------------------------------------------------------------- main */

static void on_timeout(evutil_socket_t fd, short what, void *arg)
{
	(void)fd, (void)what, (void)arg;
	finish(1, "timed out");
}

int main(int argc, char **argv)
{
	int sctp = argc > 1 && strcmp(argv[1], "--sctp") == 0;
	struct sockaddr_in sa = {.sin_family = AF_INET};
	ddp_ctx *ctx;
	int rc;

	argv += sctp;
	argc -= sctp;
	if (argc < 3 || argc > 4 || inet_pton(AF_INET, argv[1], &sa.sin_addr) != 1 ||
	    atoi(argv[2]) <= 0 || atoi(argv[2]) > 65535) {
		fprintf(stderr, "usage: echo_client [--sctp] IPV4-ADDR PORT [MESSAGE]\n");
		return 2;
	}
	sa.sin_port = htons((uint16_t)atoi(argv[2]));
	app.msg = argc == 4 ? argv[3] : "hello, DDP";
	app.len = strlen(app.msg);
	if (app.len == 0 || app.len > sizeof(app.rbuf)) {
		fprintf(stderr, "echo_client: message must be 1..%zu octets\n", sizeof(app.rbuf));
		return 2;
	}

	signal(SIGPIPE, SIG_IGN);
	app.base = event_base_new();
	if (!app.base || ddp_ctx_new(NULL, &ctx) != 0)
		return 1;
	struct timeval limit = {10, 0};
	struct event *t = evtimer_new(app.base, on_timeout, NULL);
	evtimer_add(t, &limit);

	rc = sctp ? run_sctp(ctx, argv[1], atoi(argv[2])) : run_mpa(ctx, &sa);
	if (rc != 0)
		finish(1, ddp_strerror(rc));

	event_free(t);
	ddp_ctx_free(ctx);
	event_base_free(app.base);
	return app.result == 0 ? 0 : 1;
}
