/* Log lines a peer triggers are rate-limited (src/log_limit.h). A
 * slowloris flood for FLOOD_S seconds: TCP connections that send the first
 * octets of an MPA Request and stop, against a listener with a small
 * start-up cap (evictions) and a short start-up time-out (time-outs). Every
 * one of them is ended by the listener, and each end is either a log line
 * or part of the count of a "N more like this suppressed" line; no second
 * (of any start) sees more than 10 lines through ddp_ctx_config.log.
 * Before, every eviction and time-out logged one line (thousands a
 * second). Loopback only. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/event.h>

#include <ddp/ddp.h>
#include <ddp/mpa.h>
#include "net_helpers.h"

#define FLOOD_S    3.0
#define MAX_OPEN   400 /* client sockets open at once */
#define MAX_LINES  4096
#define PER_SECOND 10

static struct event_base *base;
static ddp_ctx *ctx;
static double line_t[MAX_LINES];
static int nlines, nevent_lines, ncount_lines, ncount_during;
static long counted;
static int freeing;

static void on_log(void *user, enum ddp_log_level level, const char *msg)
{
	const char *c;
	long n;
	(void)user, (void)level;
	if (nlines < MAX_LINES)
		line_t[nlines] = net_now_s();
	nlines++;
	if ((c = strstr(msg, " more like this suppressed")) != NULL) {
		while (c > msg && c[-1] >= '0' && c[-1] <= '9')
			c--;
		assert_int_equal(sscanf(c, "%ld", &n), 1);
		counted += n;
		ncount_lines++;
		ncount_during += !freeing;
	} else if (strstr(msg, "MPA start-up timed out") || strstr(msg, "evicted") ||
	           strstr(msg, "refused")) {
		nevent_lines++;
	} else {
		print_message("unexpected line: %s\n", msg);
		fail();
	}
}

static void deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	(void)s, (void)d, (void)user;
}

static const ddp_callbacks cbs = {.deliver = deliver};

static void on_ev(ddp_mpa_conn *c, enum ddp_mpa_event ev, int err, uint8_t code, void *user)
{
	(void)c, (void)ev, (void)err, (void)code, (void)user;
	fail(); /* no slowloris connection reaches the application */
}

static int fds[MAX_OPEN];

/* Close the client sockets the listener ended (reset). Returns how many. */
static int reap(void)
{
	int n = 0;
	for (int i = 0; i < MAX_OPEN; i++)
		if (fds[i] >= 0 && net_peer_closed(fds[i])) {
			close(fds[i]);
			fds[i] = -1;
			n++;
		}
	return n;
}

static int open_count(void)
{
	int n = 0;
	for (int i = 0; i < MAX_OPEN; i++)
		n += fds[i] >= 0;
	return n;
}

static void test_mpa_slowloris_log_lines_are_rate_limited(void **st)
{
	(void)st;
	alarm(30);
	ddp_ctx_config cc = {.log = on_log};
	base = event_base_new();
	assert_int_equal(ddp_ctx_new(&cc, &ctx), 0);
	struct sockaddr_in sa = net_lo(0);
	ddp_mpa_config mc;
	memset(&mc, 0, sizeof(mc));
	mc.max_startup = 16;
	mc.startup_timeout_ms = 150;
	ddp_mpa_listener *l;
	assert_int_equal(ddp_mpa_listen(base, ctx, (struct sockaddr *)&sa, sizeof(sa), &mc, &cbs,
	                                NULL, on_ev, NULL, &l),
	                 0);
	int port = ddp_mpa_listener_port(l);
	for (int i = 0; i < MAX_OPEN; i++)
		fds[i] = -1;
	long opened = 0, ended = 0;
	double t0 = net_now_s();
	while (net_now_s() - t0 < FLOOD_S) {
		for (int i = 0, k = 0; i < MAX_OPEN && k < 24; i++) {
			if (fds[i] >= 0)
				continue;
			fds[i] = net_raw_connect(port);
			assert_true(fds[i] >= 0);
			assert_int_equal(write(fds[i], "MPA ", 4), 4); /* and no more */
			opened++, k++;
		}
		net_run_for(base, 0.005);
		ended += reap();
	}
	/* the last ones time out */
	for (int i = 0; i < 100 && open_count(); i++) {
		net_run_for(base, 0.02);
		ended += reap();
	}
	double secs = net_now_s() - t0;
	int during = nlines;
	ddp_mpa_listener_free(l);
	freeing = 1;
	assert_int_equal(ddp_ctx_free(ctx), 0); /* the counts left come out */
	event_base_free(base);

	/* the counts ddp_ctx_free reports at once come after the flood */
	int worst = 0;
	for (int i = 0; i < during && i < MAX_LINES; i++) {
		int in = 0;
		for (int j = i; j < during && j < MAX_LINES && line_t[j] - line_t[i] < 1.0; j++)
			in++;
		if (in > worst)
			worst = in;
	}
	print_message("%ld slowloris connections in %.2f s, %ld ended by the listener: %d log "
	              "lines during the flood (%.1f/s, at most %d in a second), %d event lines + "
	              "%ld counted in %d count lines (%d of them during the flood)\n",
	              opened, secs, ended, during, during / secs, worst, nevent_lines, counted,
	              ncount_lines, ncount_during);
	assert_int_equal(ended, opened);
	assert_true(opened > 10 * PER_SECOND * FLOOD_S); /* a flood */
	assert_true(worst <= PER_SECOND);
	assert_true(ncount_during >= 1);
	/* every end is a line or in a count */
	assert_int_equal(nevent_lines + counted, opened);
	alarm(0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mpa_slowloris_log_lines_are_rate_limited),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
