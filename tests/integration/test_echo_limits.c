/*
 * ddp-echo against hostile peers, as a program (build/bin/ddp-echo) on
 * 127.0.0.1, its stderr in a log file:
 *  - octets nobody placed are never echoed: a client echoes a 64 KiB
 *    message and leaves; then a peer speaking MPA by hand sends only a
 *    zero-length last segment with MO 65536. That message was delivered
 *    as 65,536 octets and echoed back (what the buffer held: an earlier
 *    peer's data); it must end the stream with (2, 0x04) instead, the
 *    peer getting no echo.
 *  - the receive buffers of all sessions are capped: with room for two
 *    streams (--max-buffer-bytes), an SCTP association initiating four
 *    gets two accepted and two rejected, each refusal logged; the
 *    accepted streams still echo.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ddp/ddp.h>
#include <ddp/mpa.h>
#include <ddp/sctp.h>
#include <event2/event.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ddpwire.h"
#include "mpa_craft.h"
#include "net_helpers.h"

#define MPORT 29431
#define SPORT 29432
#define BIG   65536

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static int file_count(const char *path, const char *needle)
{
	char line[512];
	int n = 0;
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		n += strstr(line, needle) != NULL;
	fclose(f);
	return n;
}

/* ddp-echo with args (NULL-terminated, at most 12), stderr into log;
 * returns once it logged `ready`. */
static pid_t start_echo(const char *log, const char *ready, const char *const *args)
{
	char self[PATH_MAX], prog[PATH_MAX + 16];
	const char *argv[16] = {"ddp-echo"};
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	assert_true(n > 0);
	self[n] = 0;
	*strrchr(self, '/') = 0; /* BUILD/itests */
	snprintf(prog, sizeof(prog), "%s/../bin/ddp-echo", self);
	for (int i = 0; args[i] && i < 12; i++)
		argv[i + 1] = args[i];
	unlink(log);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (!freopen(log, "w", stderr))
			_exit(126);
		alarm(60); /* never outlive the test */
		execv(prog, (char *const *)argv);
		_exit(127);
	}
	for (int i = 0; i < 100 && !file_count(log, ready); i++)
		usleep(100000);
	assert_true(file_count(log, ready) > 0);
	return pid;
}

static void stop_echo(pid_t pid)
{
	int st = -1;
	kill(pid, SIGTERM);
	for (int i = 0; i < 50 && waitpid(pid, &st, WNOHANG) == 0; i++)
		usleep(100000);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

static void run_until(struct event_base *base, const int *flag, long ms)
{
	long end = now_ms() + ms;
	while (!*flag && now_ms() < end) {
		struct timeval tv = {0, 5000};
		event_base_loopexit(base, &tv);
		event_base_dispatch(base);
	}
}

/* ---------------------------------------------- octets nobody placed */

static struct {
	int up, echoed, done;
	ddp_mpa_conn *c;
} A;

static void a_event(ddp_mpa_conn *c, enum ddp_mpa_event ev, int err, uint8_t code, void *user)
{
	(void)err, (void)code, (void)user;
	A.c = c;
	if (ev == DDP_MPA_CONNECTED)
		A.up = 1;
	else
		A.done = 1;
}

static void a_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	(void)s, (void)user;
	if (!d->status && d->len == BIG && ((uint8_t *)d->buf)[BIG - 1] == 0xA5)
		A.echoed = 1;
}

/* Octets the peer reads from fd until it closes or ms pass. */
static size_t read_until_closed(int fd, long ms)
{
	static uint8_t buf[1 << 16];
	size_t got = 0;
	long end = now_ms() + ms;
	while (now_ms() < end) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		if (poll(&p, 1, 50) <= 0)
			continue;
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		if (n <= 0)
			break; /* closed or reset */
		got += (size_t)n;
	}
	return got;
}

static void test_echo_never_echoes_octets_nobody_placed(void **state)
{
	(void)state;
	const char *log = "/tmp/ddp-test-echo-limits-mpa.log";
	const char *args[] = {
	    "--mpa-listen", "127.0.0.1:29431", "--buf-size", "65536", "--depth", "1", NULL};
	pid_t pid = start_echo(log, "MPA listening", args);
	signal(SIGPIPE, SIG_IGN);

	/* an honest client: 64 KiB of 0xA5 echoed, then it leaves */
	struct event_base *base = event_base_new();
	ddp_ctx *ctx;
	assert_int_equal(ddp_ctx_new(NULL, &ctx), 0);
	static const ddp_callbacks cb = {.deliver = a_deliver};
	ddp_mpa_config cfg = {.revision = 2};
	struct sockaddr_in sa = net_lo(MPORT);
	memset(&A, 0, sizeof(A));
	ddp_mpa_conn *c;
	assert_int_equal(ddp_mpa_connect(base, ctx, (struct sockaddr *)&sa, sizeof(sa), &cfg, &cb,
	                                 a_event, NULL, &c),
	                 0);
	run_until(base, &A.up, 5000);
	assert_true(A.up);
	static uint8_t msg[BIG], rbuf[BIG];
	memset(msg, 0xA5, sizeof(msg));
	ddp_session *s = ddp_mpa_session(c);
	assert_int_equal(ddp_post_recv(s, 0, 0, rbuf, sizeof(rbuf), NULL), 0);
	struct iovec v = {msg, sizeof(msg)};
	assert_int_equal(ddp_send_untagged(s, 0, 0, 1, &v, 1, NULL), 0);
	run_until(base, &A.echoed, 5000);
	assert_true(A.echoed);
	ddp_mpa_conn_free(c);
	event_base_loop(base, EVLOOP_NONBLOCK);
	for (int i = 0;
	     i < 50 && file_count(log, "mpa#1: failed") + file_count(log, "mpa#1: closed") == 0;
	     i++)
		usleep(20000);

	/* the hostile peer: only a zero-length L=1 segment at MO 65536 */
	int fd = net_raw_connect(MPORT);
	assert_true(fd >= 0);
	uint8_t req[64], seg[DDP_MAX_HDR_LEN], fpdu[64];
	size_t n = mpa_craft_request(req, sizeof(req), 1, 1);
	assert_true(n > 0);
	assert_int_equal(mpa_craft_send_all(fd, req, n), 0);
	assert_int_equal(mpa_craft_read_reply(fd, 2000), 0);
	n = tw_untagged(seg, 1, 1, 1, 0, 1, BIG, NULL, 0);
	n = mpa_craft_fpdu(fpdu, sizeof(fpdu), seg, n, 1);
	assert_true(n > 0);
	assert_int_equal(mpa_craft_send_all(fd, fpdu, n), 0);
	size_t got = read_until_closed(fd, 2000);
	close(fd);
	print_message("hostile peer read %zu octets\n", got);
	assert_true(got < 64); /* an echo is an FPDU of more than 65,536 */
	for (int i = 0; i < 50 && !file_count(log, "type 0x2 code 0x04"); i++)
		usleep(20000);
	assert_int_equal(file_count(log, "mpa#2 stream 0: error layer 1 type 0x2 code 0x04"), 1);

	stop_echo(pid);
	assert_int_equal(ddp_ctx_free(ctx), 0);
	event_base_free(base);
}

/* ------------------------------------------------ the buffer memory cap */

#define NST 4
static struct {
	int up, failed, answered, accepted, rejected, echoed;
	int acc[NST];
	uint8_t rbuf[NST][64];
} C;

static void c_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	(void)s, (void)user;
	if (!d->status && d->len == 5 && memcmp(d->buf, "hello", 5) == 0)
		C.echoed++;
}

static void c_assoc(ddp_sctp_assoc *a, ddp_session *s, int status, void *user)
{
	(void)s, (void)user;
	if (status) {
		C.failed = 1;
		return;
	}
	C.up = 1;
	for (uint32_t st = 0; st < NST; st++)
		assert_int_equal(ddp_sctp_initiate(a, st, NULL, 0), 0);
}

static void c_ctl(ddp_sctp_assoc *a, uint32_t stream, enum ddp_sctp_event ev, int status,
                  const void *pd, size_t n, void *user)
{
	(void)status, (void)pd, (void)n, (void)user;
	if (stream >= NST)
		return;
	C.answered++;
	if (ev == DDP_SCTP_ACCEPTED) {
		ddp_session *s = ddp_sctp_session(a);
		C.accepted++;
		C.acc[stream] = 1;
		assert_int_equal(ddp_post_recv(s, stream, 0, C.rbuf[stream], 64, NULL), 0);
		struct iovec v = {"hello", 5};
		assert_int_equal(ddp_send_untagged(s, stream, 0, 0, &v, 1, NULL), 0);
	} else if (ev == DDP_SCTP_REJECTED) {
		C.rejected++;
	}
}

static int all_done(void)
{
	return C.failed || (C.answered == NST && C.echoed == C.accepted);
}

static void test_echo_buffer_cap_refuses_streams_with_a_log_line(void **state)
{
	(void)state;
	const char *log = "/tmp/ddp-test-echo-limits-sctp.log";
	/* 3 queues x depth 1 x 4096 = 12,288 octets a stream: room for two */
	const char *args[] = {
	    "--sctp-listen",      "127.0.0.1:29432", "--buf-size", "4096", "--depth", "1",
	    "--max-buffer-bytes", "24576",           NULL};
	pid_t pid = start_echo(log, "SCTP listening", args);
	struct event_base *base = event_base_new();
	ddp_ctx *ctx;
	assert_int_equal(ddp_ctx_new(NULL, &ctx), 0);
	memset(&C, 0, sizeof(C));
	ddp_sctp_config cfg = {.port = -1, .nstreams = NST, .ctx = ctx};
	cfg.ddp.deliver = c_deliver;
	cfg.sctp.assoc = c_assoc;
	cfg.sctp.session_ctl = c_ctl;
	ddp_sctp_ep *ep;
	assert_int_equal(ddp_sctp_ep_new(base, &cfg, &ep), 0);
	ddp_sctp_assoc *a;
	assert_int_equal(ddp_sctp_connect(ep, "127.0.0.1", SPORT, &a), 0);
	long end = now_ms() + 10000;
	while (!all_done() && now_ms() < end) {
		struct timeval tv = {0, 5000};
		event_base_loopexit(base, &tv);
		event_base_dispatch(base);
	}
	assert_false(C.failed);
	assert_int_equal(C.accepted, 2);
	assert_int_equal(C.rejected, 2);
	assert_int_equal(C.echoed, 2);
	assert_int_equal(file_count(log,
	                            "refused: buffer memory cap reached (24576 of 24576 octets "
	                            "in use, a stream needs 12288; --max-buffer-bytes)"),
	                 2);
	ddp_sctp_ep_free(ep);
	stop_echo(pid);
	assert_int_equal(ddp_ctx_free(ctx), 0);
	event_base_free(base);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_echo_never_echoes_octets_nobody_placed),
	    cmocka_unit_test(test_echo_buffer_cap_refuses_streams_with_a_log_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
