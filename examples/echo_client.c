/*
 * echo_client — the smallest program against the installed libddp: sends one
 * untagged DDP message to an echo server (examples/echo_server, ddp-echo)
 * over MPA/TCP, or over SCTP with --sctp, and checks that the echo carries
 * the same payload, QN and RsvdULP. The ULP is the same for both LLPs;
 * only the setup call differs (ddp_mpa_connect_to / ddp_sctp_connect_to).
 *
 *   cc -o echo_client echo_client.c $(pkg-config --cflags --libs libddp-mpa libddp-sctp)
 *   ./echo_server 127.0.0.1 5000 9899 &
 *   ./echo_client localhost 5000 hello            # MPA/TCP
 *   ./echo_client --sctp 127.0.0.1 9899 hello     # SCTP over UDP (RFC 6951)
 *
 * HOST is an IPv4 or IPv6 address or a name. Exit status 0 when the echo
 * matched, 1 when it did not (or the peer failed), 2 on bad usage; gives up
 * after 10 s.
 */
#define _POSIX_C_SOURCE 200809L /* struct timeval under -std=c11 */

#include <ddp/ddp.h>
#include <ddp/mpa.h>
#include <ddp/sctp.h>
#include <event2/event.h>

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
}

/* ------------------------------------------------- the ULP (any LLP) */

/* Stream 0 is open: post the receive buffer for the echo, then send. */
static void stream_open(ddp_session *s, uint32_t stream, void *user)
{
	(void)user;
	if (stream != 0)
		return;
	struct iovec v = {(void *)app.msg, app.len};
	int rc = ddp_post_recv(s, 0, QN, app.rbuf, sizeof(app.rbuf), NULL);
	if (rc == 0)
		rc = ddp_send_untagged(s, 0, QN, RSVDULP, &v, 1, NULL);
	if (rc != 0) {
		finish(1, ddp_strerror(rc));
		ddp_session_close(s, 1);
	}
}

static void on_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	(void)user;
	if (d->status != 0)
		return;
	int ok = !d->tagged && d->qn == QN && d->rsvdulp == RSVDULP && d->len == app.len &&
	         memcmp(d->buf, app.msg, app.len) == 0;
	if (ok)
		printf("echo: %.*s\n", (int)d->len, (const char *)d->buf);
	finish(ok ? 0 : 1, ok ? "echo matched" : "echo differs from what was sent");
	ddp_session_close(s, 0); /* in order: FIN / SHUTDOWN, then down() */
}

static void on_error(ddp_session *s, const ddp_error_info *e, void *user)
{
	(void)user;
	finish(1, ddp_error_str(e->layer, e->etype, e->code));
	ddp_session_close(s, 0);
}

static void down(ddp_session *s, int status, void *user)
{
	(void)s, (void)user;
	if (status != 0)
		finish(1, ddp_strerror(status));
	else
		finish(1, "the server closed before the echo");
	event_base_loopbreak(app.base);
}

static const ddp_conn_callbacks ulp = {
	.ddp = {.deliver = on_deliver, .error = on_error},
	.stream_open = stream_open,
	.down = down,
};

/* ---------------------------------------------------------------- main */

static void on_timeout(evutil_socket_t fd, short what, void *arg)
{
	(void)fd, (void)what, (void)arg;
	finish(1, "timed out");
	event_base_loopbreak(app.base);
}

int main(int argc, char **argv)
{
	int sctp = argc > 1 && strcmp(argv[1], "--sctp") == 0;
	ddp_ctx *ctx;
	int rc;

	argv += sctp;
	argc -= sctp;
	if (argc < 3 || argc > 4 || atoi(argv[2]) <= 0 || atoi(argv[2]) > 65535) {
		fprintf(stderr, "usage: echo_client [--sctp] HOST PORT [MESSAGE]\n");
		return 2;
	}
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

	/* the only LLP-specific line */
	ddp_sctp_config one_stream = {.nstreams = 1};
	rc = sctp ? ddp_sctp_connect_to(app.base, ctx, argv[1], atoi(argv[2]), &one_stream, &ulp, NULL)
	          : ddp_mpa_connect_to(app.base, ctx, argv[1], atoi(argv[2]), NULL, &ulp, NULL);
	if (rc != 0)
		finish(1, ddp_strerror(rc));
	else
		event_base_dispatch(app.base); /* until down() or the time limit */

	event_free(t);
	/* frees what the adapter left for the loop too: no extra pass */
	rc = ddp_ctx_free(ctx);
	if (rc != 0)
		fprintf(stderr, "echo_client: ddp_ctx_free: %s\n", ddp_strerror(rc));
	event_base_free(app.base);
	return app.result == 0 && rc == 0 ? 0 : 1;
}
