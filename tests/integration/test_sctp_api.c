/* Integration: the public DDP-over-SCTP API (include/ddp/sctp.h) against
 * itself with real usrsctp associations over UDP on 127.0.0.1 and
 * libevent: what a sender sees when the adapter cannot allocate, and
 * ddp_sctp_ep_free() called from inside every kind of callback (run under
 * ASan: make BUILD=build-san SAN=1 all). Ports: any (UDP port -1). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include <ddp/ddp.h>
#include <ddp/sctp.h>
#include "sctp/sctp_ddp_int.h"

#define NSTR 4
#define NBUF 8
#define BUFLEN 4096

/* Where a peer frees its own endpoint from (free_in): */
enum where {
	FREE_NONE = 0,
	FREE_IN_ASSOC_UP,    /* sctp.assoc, status 0 */
	FREE_IN_ASSOC_DOWN,  /* sctp.assoc, status < 0 */
	FREE_IN_INITIATE,    /* sctp.session_ctl DDP_SCTP_INITIATE */
	FREE_IN_ACCEPTED,    /* sctp.session_ctl DDP_SCTP_ACCEPTED */
	FREE_IN_REJECTED,    /* sctp.session_ctl DDP_SCTP_REJECTED */
	FREE_IN_DELIVER,     /* ddp.deliver (a message arrived) */
	FREE_IN_SEND_DONE,   /* ddp.send_done */
	FREE_IN_ERROR,       /* ddp.error */
	FREE_IN_STREAM_EVENT, /* ddp.stream_event (half close) */
};

struct peer {
	const char *name;
	ddp_ctx *ctx;
	ddp_sctp_ep *ep;
	ddp_sctp_assoc *a;
	ddp_session *s;
	int up, down, down_status;
	int accepted, rejected, initiates;
	int reject; /* answer Initiates with Reject */
	unsigned long delivered, done, done_err, errors, events;
	int last_done_status;
	enum where free_in;
	unsigned long free_at; /* FREE_IN_DELIVER: at that many deliveries */
	int freed;
	unsigned long after_free; /* callbacks after the free */
	uint8_t buf[NSTR][NBUF][BUFLEN];
};

static struct peer srv, cli;
static struct event_base *base;

static void free_here(struct peer *p, enum where w)
{
	if (p->free_in != w || p->freed)
		return;
	p->freed = 1;
	ddp_sctp_ep_free(p->ep);
}

static void deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	struct peer *p = user;
	(void)s;
	p->after_free += p->freed;
	if (d->status)
		return;
	if (++p->delivered >= p->free_at)
		free_here(p, FREE_IN_DELIVER);
}

static void send_done(ddp_session *s, uint32_t stream, void *ctx, int status,
		      void *user)
{
	struct peer *p = user;
	(void)s;
	(void)stream;
	(void)ctx;
	p->after_free += p->freed;
	p->done++;
	p->last_done_status = status;
	if (status)
		p->done_err++;
	free_here(p, FREE_IN_SEND_DONE);
}

static void on_error(ddp_session *s, const ddp_error_info *e, void *user)
{
	struct peer *p = user;
	(void)s;
	(void)e;
	p->after_free += p->freed;
	p->errors++;
	free_here(p, FREE_IN_ERROR);
}

static void stream_event(ddp_session *s, uint32_t stream,
			 enum ddp_stream_event ev, int status, void *user)
{
	struct peer *p = user;
	(void)s;
	(void)stream;
	(void)ev;
	(void)status;
	p->after_free += p->freed;
	p->events++;
	free_here(p, FREE_IN_STREAM_EVENT);
}

static void on_assoc(ddp_sctp_assoc *a, ddp_session *s, int status, void *user)
{
	struct peer *p = user;
	p->after_free += p->freed;
	if (status == 0) {
		p->a = a;
		p->s = s;
		p->up = 1;
		free_here(p, FREE_IN_ASSOC_UP);
		return;
	}
	p->down = 1;
	p->down_status = status;
	p->a = NULL;
	p->s = NULL;
	free_here(p, FREE_IN_ASSOC_DOWN);
}

static void on_ctl(ddp_sctp_assoc *a, uint32_t stream, enum ddp_sctp_event ev,
		   int status, const void *pd, size_t len, void *user)
{
	struct peer *p = user;
	(void)status;
	(void)pd;
	(void)len;
	p->after_free += p->freed;
	switch (ev) {
	case DDP_SCTP_INITIATE:
		p->initiates++;
		if (p->reject) {
			assert_int_equal(ddp_sctp_reject(a, stream, NULL, 0), 0);
		} else {
			memset(p->buf[stream], 0xA5, sizeof(p->buf[stream]));
			for (int i = 0; i < NBUF; i++)
				assert_int_equal(ddp_post_recv(ddp_sctp_session(a),
							       stream, 0,
							       p->buf[stream][i],
							       BUFLEN, NULL), 0);
			assert_int_equal(ddp_sctp_accept(a, stream, NULL, 0), 0);
		}
		free_here(p, FREE_IN_INITIATE);
		return;
	case DDP_SCTP_ACCEPTED:
		p->accepted++;
		free_here(p, FREE_IN_ACCEPTED);
		return;
	case DDP_SCTP_REJECTED:
		p->rejected++;
		free_here(p, FREE_IN_REJECTED);
		return;
	default:
		return;
	}
}

static void peer_init(struct peer *p, const char *name, int listen_)
{
	ddp_sctp_config c;
	memset(p, 0, sizeof(*p));
	p->name = name;
	assert_int_equal(ddp_ctx_new(NULL, &p->ctx), 0);
	memset(&c, 0, sizeof(c));
	c.port = -1;
	c.nstreams = NSTR;
	c.ctx = p->ctx;
	c.ddp.deliver = deliver;
	c.ddp.send_done = send_done;
	c.ddp.error = on_error;
	c.ddp.stream_event = stream_event;
	c.sctp.assoc = on_assoc;
	c.sctp.session_ctl = on_ctl;
	c.user = p;
	assert_int_equal(ddp_sctp_ep_new(base, &c, &p->ep), 0);
	if (listen_)
		assert_int_equal(ddp_sctp_listen(p->ep), 0);
}

static void peer_fini(struct peer *p)
{
	if (!p->freed)
		ddp_sctp_ep_free(p->ep);
	p->ep = NULL;
	assert_int_equal(ddp_ctx_free(p->ctx), 0);
}

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static void step(int ms)
{
	struct timeval tv = { 0, ms * 1000 };
	event_base_loopexit(base, &tv);
	event_base_dispatch(base);
}

/* Run the loop until *flag (or ms passed). */
static int run_until(const int *flag, long ms)
{
	long end = now_ms() + ms;
	while (!*flag && now_ms() < end)
		step(5);
	return *flag;
}

static int setup(void **st)
{
	(void)st;
	alarm(30); /* no test can hang */
	base = event_base_new();
	return base ? 0 : -1;
}

static int teardown(void **st)
{
	(void)st;
	sctp_ddp_debug_fail_alloc(-1);
	/* deferred frees run from the loop */
	step(20);
	event_base_free(base);
	alarm(0);
	return 0;
}

static void connect_pair(void)
{
	peer_init(&srv, "srv", 1);
	peer_init(&cli, "cli", 0);
	assert_int_equal(ddp_sctp_connect(cli.ep, "127.0.0.1",
					  ddp_sctp_ep_port(srv.ep), &cli.a), 0);
	long end = now_ms() + 5000;
	while (!(cli.up && srv.up) && now_ms() < end)
		step(5);
	assert_true(cli.up && srv.up);
}

static void open_stream(uint32_t stream)
{
	assert_int_equal(ddp_sctp_initiate(cli.a, stream, NULL, 0), 0);
	assert_true(run_until(&cli.accepted, 5000));
}

/* A send whose iovec needs the adapter's allocation (more than 15 pieces)
 * while allocations fail: the stream fails with DDP_ERR_NOMEM and the send
 * completes with it. Before, the adapter answered DDP_ERR_AGAIN without
 * asking for a writable wake-up, so the send never completed and the
 * stream never sent again. */
static void test_sctp_send_alloc_failure_completes_with_nomem(void **st)
{
	static uint8_t src[40][16];
	struct iovec iov[40];
	(void)st;
	connect_pair();
	open_stream(1);
	for (int i = 0; i < 40; i++) {
		memset(src[i], i, sizeof(src[i]));
		iov[i].iov_base = src[i];
		iov[i].iov_len = sizeof(src[i]);
	}
	sctp_ddp_debug_fail_alloc(0);
	int rc = ddp_send_untagged(cli.s, 1, 0, 0, iov, 40, NULL);
	sctp_ddp_debug_fail_alloc(-1);
	/* accepted, then failed by the LLP (DDP-TRD-7), or refused at once */
	if (rc == 0) {
		int done = 0;
		long end = now_ms() + 3000;
		while (!(done = cli.done > 0) && now_ms() < end)
			step(5);
		assert_true(done);
		assert_int_equal(cli.last_done_status, DDP_ERR_NOMEM);
	} else {
		assert_int_equal(rc, DDP_ERR_NOMEM);
	}
	/* the association itself lives on: another stream still works */
	open_stream(2);
	assert_int_equal(ddp_send_untagged(cli.s, 2, 0, 0, iov, 4, NULL), 0);
	int one = 0;
	long end = now_ms() + 3000;
	while (!(one = srv.delivered > 0) && now_ms() < end)
		step(5);
	assert_true(one);
	peer_fini(&cli);
	peer_fini(&srv);
}

/* The lifetime rule (ddp.h): an endpoint freed inside a deliver callback
 * is silent at once. The client sends NBUF messages in one burst; the
 * server frees its endpoint in the 3rd delivery: no callback of any kind
 * follows and the buffers still posted keep their canary. */
static void test_sctp_ep_free_inside_deliver_silences_it(void **st)
{
	static uint8_t src[NBUF][100];
	(void)st;
	connect_pair();
	open_stream(1);
	srv.free_in = FREE_IN_DELIVER;
	srv.free_at = 3;
	for (int i = 0; i < NBUF; i++) {
		memset(src[i], i, sizeof(src[i]));
		struct iovec v = { src[i], sizeof(src[i]) };
		assert_int_equal(ddp_send_untagged(cli.s, 1, 0, 0, &v, 1, NULL), 0);
	}
	assert_true(run_until(&srv.freed, 3000));
	step(200);
	assert_int_equal(srv.delivered, 3);
	assert_int_equal(srv.after_free, 0);
	for (int i = 3; i < NBUF; i++)
		for (size_t k = 0; k < BUFLEN; k++)
			assert_int_equal(srv.buf[1][i][k], 0xA5);
	peer_fini(&cli);
	peer_fini(&srv);
}

static const char *const where_name[] = {
	"none", "assoc up", "assoc down", "INITIATE", "ACCEPTED", "REJECTED",
	"deliver", "send_done", "error", "stream_event",
};

/* Drive the association until peer p (srv or cli) reaches callback w and
 * frees its endpoint there. */
static void free_from(enum where w)
{
	static uint8_t src[3][100];
	struct iovec iov[1];
	struct peer *p = (w == FREE_IN_ACCEPTED || w == FREE_IN_REJECTED ||
			  w == FREE_IN_SEND_DONE) ? &cli : &srv;
	peer_init(&srv, "srv", 1);
	peer_init(&cli, "cli", 0);
	p->free_in = w;
	srv.reject = w == FREE_IN_REJECTED;
	assert_int_equal(ddp_sctp_connect(cli.ep, "127.0.0.1",
					  ddp_sctp_ep_port(srv.ep), &cli.a), 0);
	long end = now_ms() + 5000;
	while (!(cli.up && srv.up) && !p->freed && now_ms() < end)
		step(5);
	if (w != FREE_IN_ASSOC_UP) {
		assert_true(cli.up && srv.up);
		assert_int_equal(ddp_sctp_initiate(cli.a, 1, NULL, 0), 0);
		int *ans = w == FREE_IN_REJECTED ? &cli.rejected : &cli.accepted;
		end = now_ms() + 5000;
		while (!*ans && !p->freed && now_ms() < end)
			step(5);
	}
	switch (w) {
	case FREE_IN_ASSOC_DOWN:
		assert_int_equal(ddp_sctp_close(cli.a, 1), 0);
		break;
	case FREE_IN_DELIVER:
	case FREE_IN_SEND_DONE:
		for (int i = 0; i < 3 && !cli.freed; i++) {
			/* send_done may run inside this call (SCTP takes the
			 * segment at once) and free the endpoint there: the
			 * session stays valid until the loop runs again */
			iov[0].iov_base = src[i];
			iov[0].iov_len = sizeof(src[i]);
			assert_int_equal(ddp_send_untagged(cli.s, 1, 0, 0, iov,
							   1, NULL), 0);
		}

		break;
	case FREE_IN_ERROR: /* an STag nobody registered: RFC 5041 §7.2 */
		iov[0].iov_base = src[0];
		iov[0].iov_len = sizeof(src[0]);
		assert_int_equal(ddp_send_tagged(cli.s, 1, 0x12345678, 0, 0,
						 iov, 1, NULL), 0);
		break;
	case FREE_IN_STREAM_EVENT: /* our Terminate: the peer half-closes */
		assert_int_equal(ddp_stream_close(cli.s, 1), 0);
		break;
	default:
		break;
	}
	end = now_ms() + 5000;
	while (!p->freed && now_ms() < end)
		step(5);
	if (!p->freed)
		fail_msg("never reached the %s callback", where_name[w]);
	/* the loop goes on: the deferred free, the other side's ABORT */
	step(50);
	peer_fini(&cli);
	peer_fini(&srv);
	step(20);
}

/* ddp_sctp_ep_free() is allowed inside every callback (sctp.h): the
 * associations the calling frame still uses are freed when it has
 * unwound. Run under ASan (build-san) to see use after free; before,
 * every case but "assoc down" freed the association under the frame. */
static void test_sctp_ep_free_inside_every_callback(void **st)
{
	(void)st;
	for (int w = FREE_IN_ASSOC_UP; w <= FREE_IN_STREAM_EVENT; w++) {
		print_message("ddp_sctp_ep_free inside %s\n", where_name[w]);
		free_from((enum where)w);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sctp_ep_free_inside_deliver_silences_it,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_sctp_send_alloc_failure_completes_with_nomem, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sctp_ep_free_inside_every_callback, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
