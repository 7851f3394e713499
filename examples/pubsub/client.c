/*
 * pubsub_client — a publisher or a subscriber of the pub/sub relay
 * (examples/pubsub/relay), over MPA/TCP or over SCTP (--sctp); the ULP is
 * the same code for both, only the setup call differs.
 *
 *   pubsub_client --sub [--topics 0,1] [--pubs 2] [--count N] [--size B] HOST PORT
 *   pubsub_client --pub [--topics 0,1] [--id 0] [--count N] [--size B] HOST PORT
 *   more: [--sctp] [--streams S] [--stall-after N] [--timeout SECONDS]
 *
 * A publisher (id K) sends, round robin over its topics, COUNT messages of
 * SIZE octets per topic: the DATA header (topic, K, sequence 0..COUNT-1)
 * and a payload every octet of which follows from those three, within the
 * credits the relay grants. A subscriber expects from each of the --pubs
 * publishers (ids 0..N-1) COUNT messages per topic: each exactly once, in
 * sequence order per (topic, publisher), of SIZE octets, byte-exact; it
 * prints one summary line and exits. --stall-after N: after N messages the
 * subscriber stops reading altogether (its event loop stops) until killed.
 * Exit status 0: all sent / all received intact; 1: a violation, a failure
 * or the time limit (default 60 s); 2: bad usage.
 */
#define _POSIX_C_SOURCE 200809L

#include "proto.h"

#include <ddp/ddp.h>
#include <ddp/mpa.h>
#include <ddp/sctp.h>
#include <event2/event.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DEPTH      64 /* receive buffers per stream, reposted in deliver */
#define MAX_TOPICS 64

static struct {
	struct event_base *base;
	ddp_session *s;
	int pub, sctp;
	uint32_t topics[MAX_TOPICS], ntopics;
	uint32_t count, size, id, npubs, stall_after, streams, timeout;
	uint32_t nstreams, opened;
	uint8_t (*rbufs)[PS_MAX_MSG]; /* nstreams * DEPTH */
	uint64_t total;		      /* messages to send / to receive */
	/* publisher */
	uint32_t *credit; /* per stream */
	uint64_t sent, done;
	/* subscriber */
	uint32_t *expect; /* next sequence per (topic, publisher) */
	uint64_t received;
	int stalled;
	struct timespec t0;
	int result; /* -1 running, 0 ok, 1 failed */
} app = {.npubs = 1, .count = 1000, .size = 256, .streams = 4, .timeout = 60, .result = -1};

static double elapsed(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - app.t0.tv_sec) + (double)(t.tv_nsec - app.t0.tv_nsec) / 1e9;
}

static void finish(int result, const char *why)
{
	if (app.result >= 0)
		return;
	app.result = result;
	fprintf(result ? stderr : stdout, "pubsub_client: %s %u: %s\n", app.pub ? "pub" : "sub",
	        app.id, why);
	if (app.s)
		ddp_session_close(app.s, result != 0); /* in order when all is well */
	else
		event_base_loopbreak(app.base);
}

static uint8_t pattern(uint32_t topic, uint32_t pub, uint32_t seq, uint32_t i)
{
	return (uint8_t)(topic * 31u + pub * 17u + seq * 7u + i);
}

/* ------------------------------------------------- publisher */

static void send_done(ddp_session *s, uint32_t stream, void *ctx, int status, void *user)
{
	char line[128];
	(void)s, (void)stream, (void)user;
	if (!ctx)
		return; /* the HELLO */
	free(ctx);
	if (status != 0) {
		finish(1, ddp_strerror(status));
	} else if (++app.done == app.total) {
		double t = elapsed();
		snprintf(line, sizeof(line), "%llu messages sent in %.2f s, %.0f msg/s",
		         (unsigned long long)app.done, t, (double)app.done / (t > 0 ? t : 1e-9));
		finish(0, line);
	}
}

/* Send while there are credits on the next topic's stream and the send
 * queue takes them: round robin over the topics, sequence by sequence. */
static void pump(void)
{
	while (app.pub && app.result < 0 && app.sent < app.total) {
		uint32_t topic = app.topics[app.sent % app.ntopics];
		uint32_t seq = (uint32_t)(app.sent / app.ntopics);
		uint32_t stream = topic % app.nstreams;
		if (app.credit[stream] == 0)
			return; /* the relay has not taken the earlier ones yet */
		uint8_t *m = malloc(app.size);
		if (!m) {
			finish(1, "out of memory");
			return;
		}
		ps_put32(m, topic), ps_put32(m + 4, app.id), ps_put32(m + 8, seq);
		for (uint32_t i = PS_HDR_LEN; i < app.size; i++)
			m[i] = pattern(topic, app.id, seq, i);
		struct iovec v = {m, app.size};
		app.credit[stream]--;
		app.sent++;
		int rc = ddp_send_untagged(app.s, stream, PS_QN, ps_rsvdulp(PS_DATA, 0), &v, 1, m);
		if (rc != 0) {
			free(m);
			app.credit[stream]++;
			app.sent--;
			if (rc != DDP_ERR_LIMIT)
				finish(1, ddp_strerror(rc));
			return; /* DDP_ERR_LIMIT: writable follows */
		}
	}
}

static void on_writable(ddp_session *s, uint32_t stream, void *user)
{
	(void)s, (void)stream, (void)user;
	pump();
}

/* ------------------------------------------------- subscriber */

static int topic_index(uint32_t topic)
{
	for (uint32_t i = 0; i < app.ntopics; i++)
		if (app.topics[i] == topic)
			return (int)i;
	return -1;
}

/* Every check a delivered DATA message must pass; NULL when it does. */
static const char *check(const uint8_t *m, uint32_t len)
{
	static char why[160];
	if (len != app.size) {
		snprintf(why, sizeof(why), "message of %u octets, expected %u", len, app.size);
		return why;
	}
	uint32_t topic = ps_get32(m), pub = ps_get32(m + 4), seq = ps_get32(m + 8);
	int ti = topic_index(topic);
	if (ti < 0 || pub >= app.npubs) {
		snprintf(why, sizeof(why), "message of topic %u publisher %u not subscribed", topic, pub);
		return why;
	}
	uint32_t *next = &app.expect[(uint32_t)ti * app.npubs + pub];
	if (seq != *next || seq >= app.count) {
		snprintf(why, sizeof(why), "topic %u publisher %u: sequence %u, expected %u (%s)", topic,
		         pub, seq, *next, seq < *next ? "duplicate or reordered" : "lost");
		return why;
	}
	for (uint32_t i = PS_HDR_LEN; i < len; i++) {
		if (m[i] != pattern(topic, pub, seq, i)) {
			snprintf(why, sizeof(why), "topic %u publisher %u sequence %u: octet %u differs",
			         topic, pub, seq, i);
			return why;
		}
	}
	(*next)++;
	return NULL;
}

static void got_data(const uint8_t *m, uint32_t len)
{
	char line[160];
	if (app.stalled)
		return; /* already in the loop's current pass: not taken */
	const char *why = check(m, len);
	if (why) {
		finish(1, why);
		return;
	}
	if (app.received == 0)
		clock_gettime(CLOCK_MONOTONIC, &app.t0); /* the rate counts from the first */
	if (++app.received == app.stall_after) {
		app.stalled = 1; /* stop reading: the loop stops, nothing more is taken */
		event_base_loopbreak(app.base);
	} else if (app.received == app.total) {
		double t = elapsed();
		snprintf(line, sizeof(line),
		         "%llu messages (%u topics x %u publishers x %u), each once, in order, intact; "
		         "%.0f msg/s",
		         (unsigned long long)app.received, app.ntopics, app.npubs, app.count,
		         (double)app.received / (t > 0 ? t : 1e-9));
		finish(0, line);
	}
}

/* ------------------------------------------------- the ULP (any LLP) */

static void on_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	(void)user;
	if (d->status != 0 || app.result >= 0)
		return;
	switch (ps_kind_of(d->rsvdulp)) {
	case PS_ACK: /* the relay took our HELLO */
		clock_gettime(CLOCK_MONOTONIC, &app.t0);
		printf("pubsub_client: %s %u: %s\n", app.pub ? "pub" : "sub", app.id,
		       app.pub ? "publishing" : "subscribed");
		fflush(stdout);
		if (app.pub)
			pump();
		break;
	case PS_CREDIT:
		app.credit[d->stream] += ps_count_of(d->rsvdulp);
		pump();
		break;
	case PS_DATA:
		if (!app.pub) {
			got_data(d->buf, d->len);
			break;
		}
		/* fall through */
	default:
		finish(1, "unexpected message from the relay");
		return;
	}
	/* Stalled too: the loop stops only when this pass over the socket
	 * ends, and a message left without a buffer is a DDP error that would
	 * end the session (RFC 5041 section 7.2, invalid MSN: no buffer)
	 * instead of stalling it. */
	if (app.result < 0)
		ddp_post_recv(s, d->stream, PS_QN, d->buf, PS_MAX_MSG, NULL);
}

/* Post the stream's buffers; on stream 0 say who we are. */
static void stream_open(ddp_session *s, uint32_t stream, void *user)
{
	static uint8_t hello[8 + 4 * MAX_TOPICS];
	(void)user;
	app.s = s;
	for (uint32_t i = 0; i < DEPTH; i++) {
		if (ddp_post_recv(s, stream, PS_QN, app.rbufs[stream * DEPTH + i], PS_MAX_MSG, NULL)) {
			finish(1, "cannot post buffers");
			return;
		}
	}
	if (stream != 0)
		return;
	ps_put32(hello, app.pub ? PS_PUB : PS_SUB);
	ps_put32(hello + 4, app.ntopics);
	for (uint32_t i = 0; i < app.ntopics; i++)
		ps_put32(hello + 8 + 4 * i, app.topics[i]);
	struct iovec v = {hello, 8 + 4 * app.ntopics};
	app.credit[0]--;
	int rc = ddp_send_untagged(s, 0, PS_QN, ps_rsvdulp(PS_HELLO, 0), &v, 1, NULL);
	if (rc != 0)
		finish(1, ddp_strerror(rc));
}

static void up(ddp_session *s, void *user)
{
	(void)user;
	app.s = s;
	if (ddp_session_nstreams(s) < app.nstreams)
		app.nstreams = ddp_session_nstreams(s); /* the relay may grant fewer */
}

static void on_error(ddp_session *s, const ddp_error_info *e, void *user)
{
	(void)s, (void)user;
	finish(1, ddp_error_str(e->layer, e->etype, e->code));
}

static void down(ddp_session *s, int status, void *user)
{
	(void)s, (void)user;
	app.s = NULL;
	finish(1, status ? ddp_strerror(status) : "the relay closed the connection");
	event_base_loopbreak(app.base);
}

static const ddp_conn_callbacks ulp = {
	.ddp = {.deliver = on_deliver, .send_done = send_done, .writable = on_writable, .error = on_error},
	.up = up,
	.stream_open = stream_open,
	.down = down,
};

/* ---------------------------------------------------------------- main */

static void on_timeout(evutil_socket_t fd, short what, void *arg)
{
	char line[96];
	(void)fd, (void)what, (void)arg;
	snprintf(line, sizeof(line), "timed out: %llu of %llu messages",
	         (unsigned long long)(app.pub ? app.done : app.received), (unsigned long long)app.total);
	finish(1, line);
	event_base_loopbreak(app.base);
}

static int parse_topics(char *list)
{
	app.ntopics = 0;
	for (char *t = strtok(list, ","); t; t = strtok(NULL, ",")) {
		long v = strtol(t, NULL, 10);
		if (app.ntopics == MAX_TOPICS || v < 0 || v >= PS_MAX_TOPICS)
			return -1;
		app.topics[app.ntopics++] = (uint32_t)v;
	}
	return app.ntopics ? 0 : -1;
}

static int usage(void)
{
	fprintf(stderr, "usage: pubsub_client --pub|--sub [--sctp] [--topics LIST] [--count N] "
	                "[--size B] [--id K] [--pubs N] [--streams S] [--stall-after N] "
	                "[--timeout S] HOST PORT\n");
	return 2;
}

int main(int argc, char **argv)
{
	int role = 0, i = 1, rc;
	char deftopics[] = "0";
	parse_topics(deftopics);
	for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
		const char *o = argv[i] + 2;
		if (!strcmp(o, "pub") || !strcmp(o, "sub")) {
			role = 1, app.pub = !strcmp(o, "pub");
			continue;
		}
		if (!strcmp(o, "sctp")) {
			app.sctp = 1;
			continue;
		}
		if (i + 1 >= argc)
			return usage();
		char *v = argv[++i];
		uint32_t n = (uint32_t)strtoul(v, NULL, 10);
		if (!strcmp(o, "topics") && parse_topics(v) == 0)
			continue;
		else if (!strcmp(o, "count"))
			app.count = n;
		else if (!strcmp(o, "size"))
			app.size = n;
		else if (!strcmp(o, "id"))
			app.id = n;
		else if (!strcmp(o, "pubs"))
			app.npubs = n;
		else if (!strcmp(o, "streams"))
			app.streams = n;
		else if (!strcmp(o, "stall-after"))
			app.stall_after = n;
		else if (!strcmp(o, "timeout"))
			app.timeout = n;
		else
			return usage();
	}
	if (!role || argc - i != 2 || app.size < PS_HDR_LEN || app.size > PS_MAX_MSG || !app.count ||
	    !app.npubs || app.npubs > 1024 || !app.streams || app.streams > 64 || !app.timeout ||
	    atoi(argv[i + 1]) <= 0 || atoi(argv[i + 1]) > 65535)
		return usage();
	app.nstreams = app.sctp ? app.streams : 1;
	app.total = (uint64_t)app.count * app.ntopics * (app.pub ? 1 : app.npubs);
	app.rbufs = calloc((size_t)app.nstreams * DEPTH, PS_MAX_MSG);
	app.credit = calloc(app.nstreams, sizeof(*app.credit));
	app.expect = calloc((size_t)app.ntopics * app.npubs, sizeof(*app.expect));
	if (!app.rbufs || !app.credit || !app.expect)
		return 1;
	for (uint32_t k = 0; k < app.nstreams; k++)
		app.credit[k] = PS_CREDITS;

	signal(SIGPIPE, SIG_IGN);
	ddp_ctx *ctx;
	app.base = event_base_new();
	if (!app.base || ddp_ctx_new(NULL, &ctx) != 0)
		return 1;
	struct timeval limit = {(time_t)app.timeout, 0};
	struct event *t = evtimer_new(app.base, on_timeout, NULL);
	evtimer_add(t, &limit);

	/* the only LLP-specific line */
	ddp_sctp_config sc = {.nstreams = (uint16_t)app.nstreams};
	rc = app.sctp ? ddp_sctp_connect_to(app.base, ctx, argv[i], atoi(argv[i + 1]), &sc, &ulp, NULL)
	              : ddp_mpa_connect_to(app.base, ctx, argv[i], atoi(argv[i + 1]), NULL, &ulp, NULL);
	if (rc != 0)
		finish(1, ddp_strerror(rc));
	else
		event_base_dispatch(app.base); /* until down(), a stall or the time limit */

	if (app.stalled) {
		printf("pubsub_client: sub %u: stalled after %llu messages: reading nothing more\n",
		       app.id, (unsigned long long)app.received);
		fflush(stdout);
		for (;;)
			pause(); /* until a signal ends the process */
	}
	event_free(t);
	/* frees what the adapter left for the loop too: no extra pass */
	rc = ddp_ctx_free(ctx);
	if (rc != 0)
		fprintf(stderr, "pubsub_client: ddp_ctx_free: %s\n", ddp_strerror(rc));
	event_base_free(app.base);
	return app.result == 0 && rc == 0 ? 0 : 1;
}
