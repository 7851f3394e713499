/*
 * ddp-echo — the embedding example. One libevent event_base runs a plain
 * HTTP status page (evhttp), an MPA/TCP listener and a DDP/SCTP endpoint;
 * every untagged DDP message that arrives is echoed back (echo.c).
 *
 *   ddp-echo [--mpa-listen ADDR:PORT] [--sctp-listen ADDR:PORT]
 *            [--http-listen ADDR:PORT] [--buf-size N] [--depth N]
 *            [--max-assocs N] [--idle-timeout MS] [--max-buffer-bytes N]
 *            [-q|--quiet]
 *
 * Receive buffers: --buf-size octets (64 KiB), --depth per untagged queue
 * and stream (4), 3 queues: 768 KiB per stream at the defaults. Their total
 * over all sessions is capped by --max-buffer-bytes (64 MiB, 0 = no cap): an
 * MPA connection or SCTP stream Initiate that would go past it is refused
 * (MPA Reject, SCTP Reject) and logged.
 *
 * Runs in the foreground until SIGINT/SIGTERM; one log line per session and
 * per error on stderr. What the library reports through the context's log
 * hook (every peer refused at a cap, evicted or timed out, every dropped
 * peer message) goes to stderr too, with a timestamp; -q keeps only its
 * errors.
 */
#include <ddp/ddp.h>
#include <ddp/mpa.h>
#include <ddp/sctp.h>
#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <arpa/inet.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "echo.h"

static struct {
	struct event_base *base;
	ddp_ctx *ctx;
	struct echo_stats mpa, sctp; /* the `user` of each LLP's callbacks */
	size_t buf_size;
	unsigned depth;
	int quiet;		/* -q: library log lines of level ERROR only */
	uint32_t max_assocs;	/* ddp_sctp_config (0: the library's default) */
	uint32_t idle_ms;
	uint64_t max_buffer_bytes;
} srv = { .buf_size = 65536, .depth = 4, .max_buffer_bytes = 64ull << 20 };

/* One line when the buffer cap refuses a stream (echo_stream_start). */
static void log_cap(const char *label, uint32_t stream, const struct echo_conn *e)
{
	fprintf(stderr,
		"ddp-echo: %s stream %u: refused: buffer memory cap reached (%llu of %llu octets "
		"in use, a stream needs %llu; --max-buffer-bytes)\n",
		label, stream, (unsigned long long)echo_memory_used(),
		(unsigned long long)echo_memory_cap(), (unsigned long long)echo_stream_bytes(e));
}

/* The context's log hook: the library's refusals, evictions, time-outs
 * and dropped peer messages, one stderr line each with a UTC timestamp. */
static void on_log(void *user, enum ddp_log_level level, const char *msg)
{
	static const char *const names[] = { "error", "warn", "info", "debug" };
	struct timespec ts;
	struct tm tm;
	char when[32];
	(void)user;
	if (srv.quiet && level > DDP_LOG_ERROR)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	fprintf(stderr, "%s.%03ldZ ddp-echo: %s: %s\n", when, ts.tv_nsec / 1000000L,
		(unsigned)level < 4 ? names[level] : "?", msg);
}

static int split(const char *s, char *host, size_t hl, int *port)
{
	const char *c = strrchr(s, ':');
	if (!c || (size_t)(c - s) >= hl)
		return -1;
	memcpy(host, s, (size_t)(c - s));
	host[c - s] = 0;
	*port = atoi(c + 1);
	return *port > 0 && *port < 65536 ? 0 : -1;
}

/* ------------------------------------------------------------- MPA side */

/* 1. A Request arrived: accept it (a real server would look at
 *    req->private_data here) and give the session its buffers. */
static void mpa_on_request(ddp_mpa_conn *c, const ddp_mpa_info *req, void *user)
{
	char label[64];
	snprintf(label, sizeof(label), "mpa#%llu", (unsigned long long)srv.mpa.sessions + 1);
	struct echo_conn *e = echo_conn_new(ddp_mpa_session(c), label, &srv.mpa, srv.buf_size,
					    srv.depth);
	int rc = e ? echo_stream_start(e, 0) : DDP_ERR_NOMEM;
	if (rc != 0) {
		if (rc == DDP_ERR_LIMIT)
			log_cap(label, 0, e);
		echo_conn_free(e);
		if (rc == DDP_ERR_LIMIT)
			ddp_mpa_reject(c, "busy", 4);
		else
			ddp_mpa_reject(c, "no memory", 9);
		return;
	}
	fprintf(stderr, "ddp-echo: %s: MPA request rev %u, %u octets of private data, %s\n",
		label, req->revision, req->private_data_len, req->peer_to_peer ? "p2p" : "c/s");
	ddp_mpa_accept(c, NULL, 0);
}

/* 2. Connection events: log, and free everything when it ends. */
static void mpa_on_event(ddp_mpa_conn *c, enum ddp_mpa_event ev, int err, uint8_t code,
			 void *user)
{
	ddp_session *s = ddp_mpa_session(c);
	const char *label = echo_label(s);
	if (ev == DDP_MPA_CONNECTED) {
		ddp_mpa_info i;
		ddp_mpa_get_info(c, &i);
		fprintf(stderr, "ddp-echo: %s: up, rev %u, crc %s, markers %s/%s, MULPDU %u\n",
			label, i.revision, i.crc ? "on" : "off", i.markers_tx ? "tx" : "-",
			i.markers_rx ? "rx" : "-", i.mulpdu);
		return;
	}
	fprintf(stderr, "ddp-echo: %s: %s%s%s (MPA code %u)\n", label,
		ev == DDP_MPA_CLOSED ? "closed" : ev == DDP_MPA_REJECTED ? "rejected" : "failed",
		err ? ": " : "", err ? ddp_strerror(err) : "", code);
	/* free the session (its buffers come back flushed), then ours */
	struct echo_conn *e = echo_find(s);
	ddp_mpa_conn_free(c);
	echo_conn_free(e);
}

/* ------------------------------------------------------------ SCTP side */

static void sctp_on_assoc(ddp_sctp_assoc *a, ddp_session *s, int status, void *user)
{
	if (status == 0) {
		char label[64];
		snprintf(label, sizeof(label), "sctp#%llu",
			 (unsigned long long)srv.sctp.sessions + 1);
		if (!echo_conn_new(s, label, &srv.sctp, srv.buf_size, srv.depth))
			ddp_sctp_close(a, 1);
		fprintf(stderr, "ddp-echo: %s: association up, %u streams\n", label,
			ddp_session_nstreams(s));
		return;
	}
	struct echo_conn *e = echo_find(s);
	fprintf(stderr, "ddp-echo: %s: association down: %s\n", echo_label(s),
		ddp_strerror(status));
	echo_conn_free(e); /* buffers stay untouched until the session is freed */
}

/* An Initiate on a stream: post that stream's buffers and accept. */
static void sctp_on_ctl(ddp_sctp_assoc *a, uint32_t stream, enum ddp_sctp_event ev, int status,
			const void *pd, size_t pd_len, void *user)
{
	ddp_session *s = ddp_sctp_session(a);
	if (ev != DDP_SCTP_INITIATE) {
		fprintf(stderr, "ddp-echo: %s stream %u: session control event %d (%s)\n",
			echo_label(s), stream, ev, ddp_strerror(status));
		return;
	}
	struct echo_conn *e = echo_find(s);
	int rc = e ? echo_stream_start(e, stream) : DDP_ERR_NOMEM;
	if (rc != 0) {
		if (rc == DDP_ERR_LIMIT) {
			log_cap(echo_label(s), stream, e);
			ddp_sctp_reject(a, stream, "busy", 4);
		} else {
			ddp_sctp_reject(a, stream, "no memory", 9);
		}
		return;
	}
	ddp_sctp_accept(a, stream, NULL, 0);
	fprintf(stderr, "ddp-echo: %s stream %u: DDP stream session accepted (%zu octets of "
			"private data)\n", echo_label(s), stream, pd_len);
}

/* ------------------------------------------------------------ HTTP page */

static void http_status(struct evhttp_request *req, void *arg)
{
	struct evbuffer *b = evbuffer_new();
	evbuffer_add_printf(b,
			    "ddp-echo status\n"
			    "mpa:  sessions %llu active %llu messages %llu bytes %llu errors %llu\n"
			    "sctp: sessions %llu active %llu messages %llu bytes %llu errors %llu\n"
			    "buffers: %llu of %llu octets\n",
			    (unsigned long long)srv.mpa.sessions, (unsigned long long)srv.mpa.active,
			    (unsigned long long)srv.mpa.msgs, (unsigned long long)srv.mpa.bytes,
			    (unsigned long long)srv.mpa.errors, (unsigned long long)srv.sctp.sessions,
			    (unsigned long long)srv.sctp.active, (unsigned long long)srv.sctp.msgs,
			    (unsigned long long)srv.sctp.bytes, (unsigned long long)srv.sctp.errors,
			    (unsigned long long)echo_memory_used(),
			    (unsigned long long)echo_memory_cap());
	evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type", "text/plain");
	evhttp_send_reply(req, 200, "OK", b);
	evbuffer_free(b);
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	fprintf(stderr, "ddp-echo: signal %d, stopping\n", (int)sig);
	event_base_loopbreak(srv.base);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = { { "mpa-listen", 1, 0, 'm' },
					      { "sctp-listen", 1, 0, 's' },
					      { "http-listen", 1, 0, 'h' },
					      { "buf-size", 1, 0, 'b' },
					      { "depth", 1, 0, 'd' },
					      { "max-assocs", 1, 0, 'A' },
					      { "idle-timeout", 1, 0, 'I' },
					      { "max-buffer-bytes", 1, 0, 'B' },
					      { "quiet", 0, 0, 'q' },
					      { 0, 0, 0, 0 } };
	const char *mpa = NULL, *sctp = NULL, *http = NULL;
	int c;
	while ((c = getopt_long(argc, argv, "q", opts, NULL)) != -1) {
		switch (c) {
		case 'm': mpa = optarg; break;
		case 's': sctp = optarg; break;
		case 'h': http = optarg; break;
		case 'b': srv.buf_size = strtoul(optarg, NULL, 0); break;
		case 'd': srv.depth = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'A': srv.max_assocs = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'I': srv.idle_ms = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'B': srv.max_buffer_bytes = strtoull(optarg, NULL, 0); break;
		case 'q': srv.quiet = 1; break;
		default:
			fprintf(stderr, "usage: ddp-echo [--mpa-listen A:P] [--sctp-listen A:P] "
					"[--http-listen A:P] [--buf-size N] [--depth N] "
					"[--max-assocs N] [--idle-timeout MS] [--max-buffer-bytes N] "
					"[-q|--quiet]\n");
			return 2;
		}
	}
	if ((!mpa && !sctp) || srv.buf_size == 0 || srv.depth == 0) {
		fprintf(stderr, "ddp-echo: give --mpa-listen and/or --sctp-listen\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	echo_set_memory_cap(srv.max_buffer_bytes);
	srv.base = event_base_new();
	/* without a log hook the library's refusals and evictions are silent */
	ddp_ctx_config cc = { .log = on_log };
	if (!srv.base || ddp_ctx_new(&cc, &srv.ctx) != 0)
		return 1;
	char host[64];
	int port, rc;
	ddp_mpa_listener *ml = NULL;
	ddp_sctp_ep *ep = NULL;
	struct evhttp *hs = NULL;

	if (mpa) {
		struct sockaddr_in sa = { .sin_family = AF_INET };
		if (split(mpa, host, sizeof(host), &port) || inet_pton(AF_INET, host, &sa.sin_addr) != 1) {
			fprintf(stderr, "ddp-echo: bad address %s\n", mpa);
			return 2;
		}
		sa.sin_port = htons((uint16_t)port);
		ddp_mpa_config cfg = { 0 };
		rc = ddp_mpa_listen(srv.base, srv.ctx, (struct sockaddr *)&sa, sizeof(sa), &cfg,
				    &echo_callbacks, mpa_on_request, mpa_on_event, &srv.mpa, &ml);
		if (rc) {
			fprintf(stderr, "ddp-echo: MPA listen on %s: %s\n", mpa, ddp_strerror(rc));
			return 1;
		}
		fprintf(stderr, "ddp-echo: MPA listening on %s\n", mpa);
	}
	if (sctp) {
		if (split(sctp, host, sizeof(host), &port)) {
			fprintf(stderr, "ddp-echo: bad address %s\n", sctp);
			return 2;
		}
		ddp_sctp_config cfg = { .addr = host, .port = port, .ctx = srv.ctx,
					.ddp = echo_callbacks, .user = &srv.sctp,
					.max_assocs = srv.max_assocs,
					.idle_assoc_timeout_ms = srv.idle_ms };
		cfg.sctp.assoc = sctp_on_assoc;
		cfg.sctp.session_ctl = sctp_on_ctl;
		if ((rc = ddp_sctp_ep_new(srv.base, &cfg, &ep)) || (rc = ddp_sctp_listen(ep))) {
			fprintf(stderr, "ddp-echo: SCTP listen on %s: %s\n", sctp, ddp_strerror(rc));
			return 1;
		}
		fprintf(stderr, "ddp-echo: SCTP listening on %s (UDP %d)\n", sctp, port);
	}
	if (http) {
		hs = evhttp_new(srv.base);
		if (!hs || split(http, host, sizeof(host), &port) ||
		    evhttp_bind_socket(hs, host, (uint16_t)port) != 0) {
			fprintf(stderr, "ddp-echo: HTTP listen on %s failed\n", http);
			return 1;
		}
		evhttp_set_gencb(hs, http_status, NULL);
		fprintf(stderr, "ddp-echo: status page on http://%s/\n", http);
	}
	struct event *si = evsignal_new(srv.base, SIGINT, on_signal, NULL);
	struct event *st = evsignal_new(srv.base, SIGTERM, on_signal, NULL);
	event_add(si, NULL);
	event_add(st, NULL);

	event_base_dispatch(srv.base);

	event_free(si);
	event_free(st);
	if (hs)
		evhttp_free(hs);
	ddp_mpa_listener_free(ml);
	ddp_sctp_ep_free(ep);
	fprintf(stderr, "ddp-echo: mpa %llu messages, sctp %llu messages, %llu errors\n",
		(unsigned long long)srv.mpa.msgs, (unsigned long long)srv.sctp.msgs,
		(unsigned long long)(srv.mpa.errors + srv.sctp.errors));
	event_base_free(srv.base);
	return 0;
}
