/*
 * `ddp-xfer recv` against a hand-written sender built on the library in
 * this test (a second implementation of the protocol in main.c): a valid
 * minimal transfer completes with the right hash on both sides, and every
 * protocol violation makes the receiver exit 1 with exactly one
 * "ddp-xfer: <reason>" line on stderr:
 *   - DONE for a buffer no tagged write went to;
 *   - a tagged write to a buffer whose chunk is held (its STag lost remote
 *     write access at DONE: RFC 5041 §8 DDP-SEC-6, the core answers with
 *     (1, 0x00) and the receiver reports the DDP error);
 *   - END whose size is below an octet already received.
 * MPA/TCP on 127.0.0.1 ports 29560..29569, every test bounded (alarm, loop
 * timeout 15 s).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <ddp/ddp.h>
#include <ddp/mpa.h>
#include <event2/event.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../demos/ddp-xfer/proto.c"

enum scenario { S_VALID, S_DONE_NO_WRITE, S_WRITE_HELD, S_BEYOND_END };

struct rogue {
	enum scenario sc;
	struct event_base *base;
	ddp_ctx *ctx;
	ddp_mpa_conn *c;
	ddp_session *s;
	pid_t pid;
	int status, exited, acted, got_result, timed_out;
	struct xf_msg adv[8], result;
	int nadv;
	uint8_t rx[64][XF_MSG_MAX];
	uint8_t msgs[8][XF_MSG_MAX];
	int nmsg;
	uint8_t data[4096];
	char err_path[64], out_path[64];
};

static void send_msg(struct rogue *r, const struct xf_msg *m)
{
	assert_true(r->nmsg < 8);
	uint8_t *b = r->msgs[r->nmsg++];
	struct iovec v = { b, xf_msg_encode(m, b) };
	assert_int_equal(ddp_send_untagged(r->s, 0, 0, 0, &v, 1, NULL), 0);
}

static void write_to(struct rogue *r, const struct xf_msg *adv, size_t len)
{
	struct iovec v = { r->data, len };
	assert_int_equal(ddp_send_tagged(r->s, 0, adv->stag, adv->to, 0, &v, 1, NULL), 0);
}

/* Both ADVERTs (--depth 2) are in: misbehave as the scenario says. */
static void act(struct rogue *r)
{
	const struct xf_msg *a = &r->adv[0];
	switch (r->sc) {
	case S_VALID:
		memcpy(r->data, "abc", 3);
		write_to(r, a, 3);
		send_msg(r, &(struct xf_msg){ .type = XF_DONE, .id = a->id, .off = 0, .len = 3 });
		/* END once buffer 0 is advertised again (on_deliver): the
		 * receiver advertises nothing after END */
		break;
	case S_DONE_NO_WRITE:
		send_msg(r, &(struct xf_msg){ .type = XF_DONE, .id = a->id, .off = 0, .len = 100 });
		break;
	case S_WRITE_HELD:
		write_to(r, a, 100);
		/* ahead of the frontier: the receiver holds it, no access */
		send_msg(r, &(struct xf_msg){ .type = XF_DONE, .id = a->id, .off = 4096, .len = 100 });
		write_to(r, a, 100);
		break;
	case S_BEYOND_END:
		write_to(r, a, 100);
		send_msg(r, &(struct xf_msg){ .type = XF_DONE, .id = a->id, .off = 0, .len = 100 });
		send_msg(r, &(struct xf_msg){ .type = XF_END, .total = 50, .count = 1 });
		break;
	}
}

static void on_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	struct rogue *r = user;
	struct xf_msg m;
	if (d->status || d->tagged || xf_msg_decode(d->buf, d->len, &m) != 0)
		return;
	ddp_post_recv(s, 0, 0, d->buf, XF_MSG_MAX, NULL);
	if (m.type == XF_ADVERT && r->nadv < 8)
		r->adv[r->nadv++] = m;
	if (m.type == XF_RESULT) {
		r->result = m;
		r->got_result = 1;
		ddp_session_close(s, 0); /* the receiver may leave now */
	}
	if (r->nadv == 2 && !r->acted) {
		r->acted = 1;
		act(r);
	}
	if (r->sc == S_VALID && m.type == XF_ADVERT && r->nadv == 3)
		send_msg(r, &(struct xf_msg){ .type = XF_END, .total = 3, .count = 1 });
}

static const ddp_callbacks cbs = { .deliver = on_deliver };

static void on_event(ddp_mpa_conn *c, enum ddp_mpa_event ev, int err, uint8_t code, void *user)
{
}

static void on_tick(evutil_socket_t fd, short what, void *arg)
{
	struct rogue *r = arg;
	if (waitpid(r->pid, &r->status, WNOHANG) == r->pid) {
		r->exited = 1;
		event_base_loopbreak(r->base);
	}
}

static void on_timeout(evutil_socket_t fd, short what, void *arg)
{
	struct rogue *r = arg;
	r->timed_out = 1;
	event_base_loopbreak(r->base);
}

static pid_t spawn_recv(struct rogue *r, int port)
{
	char self[PATH_MAX], prog[PATH_MAX + 16], listen[32];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	assert_true(n > 0);
	self[n] = 0;
	*strrchr(self, '/') = 0; /* BUILD/itests */
	snprintf(prog, sizeof(prog), "%s/../bin/ddp-xfer", self);
	snprintf(listen, sizeof(listen), "127.0.0.1:%d", port);
	snprintf(r->err_path, sizeof(r->err_path), "/tmp/xfer-rogue-%d.err", (int)getpid());
	snprintf(r->out_path, sizeof(r->out_path), "/tmp/xfer-rogue-%d.out", (int)getpid());
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int e = open(r->err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int o = open(r->out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (e < 0 || o < 0)
			_exit(126);
		dup2(e, 2);
		dup2(o, 1);
		alarm(30); /* never outlive the test */
		execl(prog, "ddp-xfer", "recv", "--llp", "mpa", "--listen", listen, "--depth", "2",
		      "--chunk", "4096", (char *)NULL);
		_exit(127);
	}
	/* wait until it listens */
	for (int i = 0; i < 100; i++) {
		char buf[256] = "";
		FILE *f = fopen(r->err_path, "r");
		if (f) {
			size_t k = fread(buf, 1, sizeof(buf) - 1, f);
			buf[k] = 0;
			fclose(f);
		}
		if (strstr(buf, "recv: listening"))
			return pid;
		usleep(50000);
	}
	fail_msg("ddp-xfer recv did not start");
	return -1;
}

/* Run scenario sc against a fresh receiver; the receiver's stderr is
 * returned in err (NUL terminated). */
static void run(struct rogue *r, enum scenario sc, int port, char *err, size_t errlen)
{
	memset(r, 0, sizeof(*r));
	r->sc = sc;
	r->pid = spawn_recv(r, port);
	r->base = event_base_new();
	assert_non_null(r->base);
	assert_int_equal(ddp_ctx_new(NULL, &r->ctx), 0);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	uint8_t pd[XF_HELLO_LEN];
	xf_hello_encode(&(struct xf_hello){ .id = 42, .idx = 0, .nstreams = 1, .credits = 64 },
			pd);
	ddp_mpa_config cfg = { .revision = 2, .peer_to_peer = 1, .private_data = pd,
			       .private_data_len = sizeof(pd) };
	assert_int_equal(ddp_mpa_connect(r->base, r->ctx, (struct sockaddr *)&sa, sizeof(sa), &cfg,
					 &cbs, on_event, r, &r->c),
			 0);
	r->s = ddp_mpa_session(r->c);
	for (int i = 0; i < 64; i++)
		assert_int_equal(ddp_post_recv(r->s, 0, 0, r->rx[i], XF_MSG_MAX, NULL), 0);
	struct event *tick = event_new(r->base, -1, EV_PERSIST, on_tick, r);
	struct event *tmo = evtimer_new(r->base, on_timeout, r);
	struct timeval tv = { 0, 50000 }, tv15 = { 15, 0 };
	event_add(tick, &tv);
	event_add(tmo, &tv15);
	event_base_dispatch(r->base);
	event_free(tick);
	event_free(tmo);
	ddp_mpa_conn_free(r->c);
	ddp_ctx_free(r->ctx);
	event_base_free(r->base);
	if (!r->exited) {
		kill(r->pid, SIGKILL);
		waitpid(r->pid, &r->status, 0);
	}
	FILE *f = fopen(r->err_path, "r");
	size_t k = f ? fread(err, 1, errlen - 1, f) : 0;
	err[k] = 0;
	if (f)
		fclose(f);
	unlink(r->err_path);
	assert_false(r->timed_out);
	assert_true(r->nadv >= 2); /* --depth 2: two ADVERTs at the start */
}

/* exactly one "ddp-xfer: " line, containing want */
static void assert_one_reason(const char *err, const char *want)
{
	int lines = 0;
	const char *line = NULL;
	for (const char *p = err; (p = strstr(p, "ddp-xfer: ")); p++)
		if (p == err || p[-1] == '\n') {
			lines++;
			line = p;
		}
	if (lines != 1 || !strstr(line, want))
		fail_msg("want one 'ddp-xfer:' line with '%s', stderr:\n%s", want, err);
}

static void test_xfer_recv_completes_a_minimal_transfer(void **state)
{
	struct rogue r;
	char err[4096];
	run(&r, S_VALID, 29560, err, sizeof(err));
	assert_true(WIFEXITED(r.status));
	assert_int_equal(WEXITSTATUS(r.status), 0);
	assert_null(strstr(err, "ddp-xfer: "));
	/* the two first ADVERTs, and buffer 0 again once "abc" was consumed */
	assert_int_equal(r.nadv, 3);
	assert_int_equal(r.adv[2].id, r.adv[0].id);
	/* FIPS 180-4 "abc" vector */
	static const char abc[] = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
	assert_true(r.got_result);
	assert_int_equal(r.result.total, 3);
	char hex[2 * XF_SHA256_LEN + 1];
	for (int i = 0; i < XF_SHA256_LEN; i++)
		snprintf(hex + 2 * i, 3, "%02x", r.result.sha[i]);
	assert_string_equal(hex, abc);
	char out[256] = "";
	FILE *f = fopen(r.out_path, "r");
	assert_non_null(f);
	size_t k = fread(out, 1, sizeof(out) - 1, f);
	out[k] = 0;
	fclose(f);
	unlink(r.out_path);
	char want[128];
	snprintf(want, sizeof(want), "sha256 %s bytes 3\n", abc);
	assert_string_equal(out, want);
}

static void expect_failure(enum scenario sc, int port, const char *why)
{
	struct rogue r;
	char err[4096];
	run(&r, sc, port, err, sizeof(err));
	unlink(r.out_path);
	assert_true(WIFEXITED(r.status));
	assert_int_equal(WEXITSTATUS(r.status), 1);
	assert_int_equal(r.nadv, 2); /* nothing consumed: no ADVERT again */
	assert_one_reason(err, why);
	assert_false(r.got_result);
}

static void test_xfer_recv_rejects_done_without_tagged_write(void **state)
{
	expect_failure(S_DONE_NO_WRITE, 29561, "protocol error: bad DONE");
}

/* RFC 5041 §8 DDP-SEC-6: access revoked while the chunk is held */
static void test_xfer_recv_revokes_write_access_of_held_buffers(void **state)
{
	expect_failure(S_WRITE_HELD, 29562, "DDP error: layer DDP type 0x1 code 0x00");
}

static void test_xfer_recv_rejects_end_below_received_octets(void **state)
{
	expect_failure(S_BEYOND_END, 29563, "protocol error: bad END");
}

int main(void)
{
	alarm(120);
	signal(SIGPIPE, SIG_IGN);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xfer_recv_completes_a_minimal_transfer),
		cmocka_unit_test(test_xfer_recv_rejects_done_without_tagged_write),
		cmocka_unit_test(test_xfer_recv_revokes_write_access_of_held_buffers),
		cmocka_unit_test(test_xfer_recv_rejects_end_below_received_octets),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
