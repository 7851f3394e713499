/*
 * The lifetime rule over MPA/TCP (ddp.h "Lifetime"): a connection freed
 * inside one of its own callbacks is silent at once. A plain TCP socket of
 * this test runs the MPA start-up by hand and writes 40 small FPDUs in one
 * write, so they sit in the victim's receive ring together; the victim
 * frees its connection in the 5th delivery. Nothing more may happen: no
 * callback of any kind, no octet written into the 35 buffers still posted
 * (each filled with a canary), and the memory goes when the frame unwinds
 * (ASan / valgrind see no use after free and no leak).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include <ddp/ddp.h>
#include <ddp/mpa.h>

#include "ddpwire.h"
#include "mpa_craft.h"

#define NMSG 40
#define FREE_AT 5
#define PLEN 32
#define CANARY 0xA5

struct victim {
	struct event_base *base;
	ddp_ctx *ctx;
	ddp_mpa_listener *lst;
	ddp_mpa_conn *c;
	int connected, freed;
	unsigned delivered, after_free;
	uint8_t buf[NMSG][PLEN];
};

static struct victim V;

static void after(void)
{
	if (V.freed)
		V.after_free++;
}

static void on_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	(void)s, (void)d, (void)user;
	after();
	if (++V.delivered == FREE_AT) {
		V.freed = 1;
		ddp_mpa_conn_free(V.c); /* inside its own callback */
		V.c = NULL;
	}
}

static void on_error(ddp_session *s, const ddp_error_info *e, void *user)
{
	(void)s, (void)e, (void)user;
	after();
}

static void on_stream_event(ddp_session *s, uint32_t st, enum ddp_stream_event ev, int status,
			    void *user)
{
	(void)s, (void)st, (void)ev, (void)status, (void)user;
	after();
}

static void on_send_done(ddp_session *s, uint32_t st, void *ctx, int status, void *user)
{
	(void)s, (void)st, (void)ctx, (void)status, (void)user;
	after();
}

static void on_writable(ddp_session *s, uint32_t st, void *user)
{
	(void)s, (void)st, (void)user;
	after();
}

static const ddp_callbacks cbs = { .deliver = on_deliver, .error = on_error,
				   .stream_event = on_stream_event,
				   .send_done = on_send_done, .writable = on_writable };

static void on_event(ddp_mpa_conn *c, enum ddp_mpa_event ev, int err, uint8_t code, void *user)
{
	(void)err, (void)code, (void)user;
	after();
	if (ev != DDP_MPA_CONNECTED)
		return;
	V.c = c;
	V.connected = 1;
	ddp_session *s = ddp_mpa_session(c);
	for (int i = 0; i < NMSG; i++)
		assert_int_equal(ddp_post_recv(s, 0, 0, V.buf[i], PLEN, NULL), 0);
}

static void step(long ms)
{
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };
	event_base_loopexit(V.base, &tv);
	event_base_dispatch(V.base);
}

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static int readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	return poll(&p, 1, 0) == 1;
}

static void test_mpa_conn_free_inside_deliver_silences_it(void **state)
{
	(void)state;
	alarm(30);
	memset(&V, 0, sizeof(V));
	memset(V.buf, CANARY, sizeof(V.buf));
	V.base = event_base_new();
	assert_non_null(V.base);
	assert_int_equal(ddp_ctx_new(NULL, &V.ctx), 0);
	ddp_mpa_config cfg;
	memset(&cfg, 0, sizeof(cfg));
	cfg.revision = 1;
	struct sockaddr_in sa;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(ddp_mpa_listen(V.base, V.ctx, (struct sockaddr *)&sa, sizeof sa, &cfg,
					&cbs, NULL, on_event, NULL, &V.lst),
			 0);
	sa.sin_port = htons((uint16_t)ddp_mpa_listener_port(V.lst));

	/* the peer: MPA start-up by hand (RFC 5044 §7.1), CRCs on */
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof sa), 0);
	uint8_t req[64];
	size_t n = mpa_craft_request(req, sizeof req, 1, 1);
	assert_true(n > 0);
	assert_int_equal(mpa_craft_send_all(fd, req, n), 0);
	long end = now_ms() + 5000;
	while (!(V.connected && readable(fd)) && now_ms() < end)
		step(5);
	assert_true(V.connected);
	assert_int_equal(mpa_craft_read_reply(fd, 2000), 0);

	/* 40 untagged messages, MSN 1..40, in one write */
	static uint8_t wire[NMSG * 128];
	size_t off = 0;
	for (uint32_t i = 0; i < NMSG; i++) {
		uint8_t seg[64], pay[PLEN];
		memset(pay, (int)i, sizeof(pay));
		size_t sl = tw_untagged(seg, 1, 1, 0, 0, i + 1, 0, pay, PLEN);
		size_t fl = mpa_craft_fpdu(wire + off, sizeof(wire) - off, seg, sl, 1);
		assert_true(fl > 0);
		off += fl;
	}
	assert_int_equal(mpa_craft_send_all(fd, wire, off), 0);
	end = now_ms() + 2000;
	while (!V.freed && now_ms() < end)
		step(5);
	step(200); /* whatever would still come */

	assert_true(V.freed);
	assert_int_equal(V.delivered, FREE_AT);
	assert_int_equal(V.after_free, 0);
	for (int i = 0; i < NMSG; i++) {
		uint8_t want[PLEN];
		memset(want, i < FREE_AT ? i : CANARY, PLEN);
		assert_memory_equal(V.buf[i], want, PLEN);
	}
	close(fd);
	ddp_mpa_listener_free(V.lst);
	step(10);
	assert_int_equal(ddp_ctx_free(V.ctx), 0);
	event_base_free(V.base);
	alarm(0);
}

int main(void)
{
	const struct CMUnitTest t[] = {
		cmocka_unit_test(test_mpa_conn_free_inside_deliver_silences_it),
	};
	return cmocka_run_group_tests(t, NULL, NULL);
}
